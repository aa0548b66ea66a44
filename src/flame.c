// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * flame.c - icicle flame graphs in inline SVG (flame.h)
 */
#include "flame.h"
#include "commands.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void html_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
				fputc('?', f);
			else
				fputc(*s, f);
		}
	}
}

struct fnode {			/* a frame: a call path's prefix */
	char *name;
	uint64_t count[2];	/* the line's counts (before, after for a diff) */
	struct fnode *kid;	/* children, in order of first sight */
	size_t nkid, capkid;
};

static void fnode_free(struct fnode *n)
{
	for (size_t i = 0; i < n->nkid; i++)
		fnode_free(&n->kid[i]);
	free(n->kid);
	free(n->name);
}

/* fnode_child - the child of n named name[0..len), added if new */
static struct fnode *fnode_child(struct fnode *n, const char *name, size_t len)
{
	for (size_t i = 0; i < n->nkid; i++)
		if (strlen(n->kid[i].name) == len && !memcmp(n->kid[i].name, name, len))
			return &n->kid[i];
	if (IPT_GROW(n->kid, n->capkid, n->nkid + 1))
		return NULL;
	memset(&n->kid[n->nkid], 0, sizeof(n->kid[0]));
	if (!(n->kid[n->nkid].name = strndup(name, len)))
		return NULL;
	return &n->kid[n->nkid++];
}

/* flame_add - one folded line ("a;b;c COUNT" or "a;b;c C1 C2") into the tree */
static int flame_add(struct fnode *root, const char *line, size_t len, bool two)
{
	const char *sp = memrchr(line, ' ', len), *p = line;
	unsigned long long c[2] = { 0, 0 };
	struct fnode *n = root;

	if (!sp || sscanf(sp + 1, "%llu", &c[two]) != 1)
		return 0;
	if (two) {
		const char *sp0 = memrchr(line, ' ', (size_t)(sp - line));

		if (!sp0 || sscanf(sp0 + 1, "%llu", &c[0]) != 1)
			return 0;
		sp = sp0;
	}
	for (int i = 0; i < 2; i++)
		root->count[i] += c[i];
	while (p < sp) {
		const char *e = memchr(p, ';', (size_t)(sp - p));

		if (!e)
			e = sp;
		if (!(n = fnode_child(n, p, (size_t)(e - p))))
			return -1;
		for (int i = 0; i < 2; i++)
			n->count[i] += c[i];
		p = e + 1;
	}
	return 0;
}

/* warm - a warm color from the name, so a frame keeps its color */
static void warm(const char *name, char *out)
{
	unsigned int h = 2166136261u;

	for (const char *c = name; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	snprintf(out, 8, "#%02x%02x%02x", 205 + (int)(h % 50), 80 + (int)((h >> 8) % 130),
		 40 + (int)((h >> 16) % 50));
}

/* red_blue - red for more after, blue for fewer, white for the same */
static void red_blue(const uint64_t c[2], char *out)
{
	double d = ((double)c[1] - (double)c[0]) / (double)(c[0] + c[1] ? c[0] + c[1] : 1);
	int v = 255 - (int)((d < 0 ? -d : d) * 190);

	snprintf(out, 8, d >= 0 ? "#ff%02x%02x" : "#%02x%02xff", v, v);
}

static int depth_of(const struct fnode *n, int d)
{
	int m = d;

	for (size_t i = 0; i < n->nkid && d < FLAME_DEPTH; i++) {
		int k = depth_of(&n->kid[i], d + 1);

		if (k > m)
			m = k;
	}
	return m;
}

static uint64_t width_of(const struct fnode *n, bool two)
{
	return two ? n->count[0] + n->count[1] : n->count[0];
}

/* put_str - s at p; past it */
static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

/* put_u64 - v in decimal at p; past it */
static char *put_u64(char *p, uint64_t v)
{
	char tmp[24], *s = tmp + sizeof(tmp);
	size_t n;

	do
		*--s = (char)('0' + v % 10);
	while ((v /= 10));
	n = (size_t)(tmp + sizeof(tmp) - s);
	memcpy(p, s, n);
	return p + n;
}

/* put_int - v in decimal at p, as "%d"; past it */
static char *put_int(char *p, int v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)-(int64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

/*
 * put_tenths - x at p exactly as printf's "%.1f" writes it; past it.
 * printf rounds the double's exact value to the nearest tenth, a tie to
 * the even one; x * 10 is rounded itself, so the tenths it gives are
 * checked against the exact midpoints around them with fma (one rounding:
 * the sign of x * 10 - (q +- 0.5) is exact).  Outside [0, 1e12) (not a
 * flame graph's pixels or percents) and -0.0: snprintf, at most 320 bytes.
 */
static char *put_tenths(char *p, double x)
{
	double q, below, above;
	uint64_t tenths;

	if (!(x >= 0 && x < 1e12) || signbit(x))	/* -0.0: "-0.0" */
		return p + snprintf(p, 400, "%.1f", x);
	q = nearbyint(x * 10.0);
	below = fma(x, 10.0, -(q - 0.5));
	above = fma(x, 10.0, -(q + 0.5));
	if (below < 0 || (below == 0 && fmod(q, 2.0) != 0))
		q -= 1;
	else if (above > 0 || (above == 0 && fmod(q, 2.0) != 0))
		q += 1;
	tenths = (uint64_t)q;
	p = put_u64(p, tenths / 10);
	*p++ = '.';
	*p++ = (char)('0' + tenths % 10);
	return p;
}

/* draw - n and its children from x0 (px) at depth d */
static void draw(FILE *f, const struct fnode *n, double x0, int d, double scale, uint64_t total, bool two)
{
	double w = (double)width_of(n, two) * scale, x = x0;
	char col[8];
	/* the text of one fprintf it replaces: short strings, numbers, and at
	 * most two put_tenths (each under 400 bytes, whatever the value) */
	char buf[1024], *p;

	if (w < 0.5 || d > FLAME_DEPTH)
		return;
	if (two)
		red_blue(n->count, col);
	else
		warm(n->name, col);
	fputs("<g><title>", f);
	html_esc(f, n->name);
	/* what fprintf wrote, put together by hand: a stack-heavy report
	 * draws thousands of frames, and fprintf was most of its HTML's cost */
	p = put_str(buf, ": ");
	p = put_u64(p, n->count[0]);
	if (two) {
		p = put_str(p, " IPIs before, ");
		p = put_u64(p, n->count[1]);
		p = put_str(p, " after");
	} else {
		p = put_str(p, " IPIs (");
		p = put_tenths(p, total ? 100.0 * (double)n->count[0] / (double)total : 0.0);
		p = put_str(p, "%)");
	}
	p = put_str(p, "</title><rect x=\"");
	p = put_tenths(p, x0);
	p = put_str(p, "\" y=\"");
	p = put_int(p, d * FLAME_ROW);
	p = put_str(p, "\" width=\"");
	p = put_tenths(p, w > 1 ? w - 0.5 : w);
	p = put_str(p, "\" height=\"");
	p = put_int(p, FLAME_ROW - 1);
	p = put_str(p, "\" fill=\"");
	p = put_str(p, col);
	p = put_str(p, "\" data-count=\"");
	p = put_u64(p, n->count[0]);
	if (two) {
		p = put_str(p, "\" data-after=\"");
		p = put_u64(p, n->count[1]);
	}
	p = put_str(p, "\" data-depth=\"");
	p = put_int(p, d);
	p = put_str(p, "\"/>");
	fwrite(buf, 1, (size_t)(p - buf), f);
	if (w > 30) {
		int chars = (int)(w / 6.6) - 1;
		int len = (int)strlen(n->name);

		p = put_str(buf, "<text x=\"");
		p = put_tenths(p, x0 + 3);
		p = put_str(p, "\" y=\"");
		p = put_int(p, d * FLAME_ROW + 12);
		p = put_str(p, "\">");
		fwrite(buf, 1, (size_t)(p - buf), f);
		if (len <= chars) {
			html_esc(f, n->name);
		} else if (chars > 2) {
			char *cut = strndup(n->name, (size_t)chars - 2);

			html_esc(f, cut);
			fputs("..", f);
			free(cut);
		}
		fputs("</text>", f);
	}
	fputs("</g>\n", f);
	for (size_t i = 0; i < n->nkid; i++) {
		draw(f, &n->kid[i], x, d + 1, scale, total, two);
		x += (double)width_of(&n->kid[i], two) * scale;
	}
}

int flame_svg(FILE *f, const char *text, size_t len, bool two, const char *attrs, uint64_t *total)
{
	struct fnode root = { 0 };
	const char *p, *end;
	int ret = -1, depth;

	*total = 0;
	if (!(root.name = strdup("all")))
		goto out;
	for (p = text, end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl)
			nl = end;
		if (flame_add(&root, p, (size_t)(nl - p), two))
			goto out;
		p = nl + 1;
	}
	ret = 0;
	*total = root.count[0];
	if (!width_of(&root, two))
		goto out;
	depth = depth_of(&root, 0) + 1;
	fprintf(f, "<svg class=\"flame\" %s width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n", attrs, FLAME_W,
		depth * FLAME_ROW, FLAME_W, depth * FLAME_ROW);
	draw(f, &root, 0, 0, (double)FLAME_W / (double)width_of(&root, two), root.count[0], two);
	fputs("</svg>\n", f);
out:
	fnode_free(&root);
	return ret;
}
