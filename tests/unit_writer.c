/*
 * unit_writer.c - the ring-buffer page writer and the trace.dat writer
 *
 * Pages are checked by decoding their bytes by hand here (header words,
 * type_len, time extends, commit), and by a kbuffer-style decoder that must
 * give back every event.  trace.dat files are parsed back by a small reader
 * in this file (v6 and v7; none, zstd, zlib; both byte orders; long 4/8).
 */
#include "input/input.h"
#include "render/render.h"
#include "output/tracedat_write.h"
#include "testlib.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

static uint64_t rd(const uint8_t *p, unsigned int size, bool be)
{
	return ipt_get_uint(p, size, be);
}

/* The 32-bit event header as the kernel's bit-field lays it out. */
static void hdr_decode(uint32_t w, bool be, unsigned int *type_len, uint32_t *delta)
{
	if (be) {
		*type_len = w >> 27;
		*delta = w & ((1u << 27) - 1);
	} else {
		*type_len = w & 31;
		*delta = w >> 5;
	}
}

/* ------------------------------------------------------------------ */
/* page layout                                                         */
/* ------------------------------------------------------------------ */

static void test_layout(void)
{
	struct ipt_page_layout pl;

	ipt_page_layout_default(&pl, 4096, 8);
	CHECK(pl.ts_off == 0 && pl.ts_size == 8, "ts %u/%u", pl.ts_off, pl.ts_size);
	CHECK(pl.commit_off == 8 && pl.commit_size == 8, "commit %u/%u", pl.commit_off,
	      pl.commit_size);
	CHECK(pl.data_off == 16 && pl.page_size == 4096, "data %u page %u", pl.data_off,
	      pl.page_size);
	ipt_page_layout_default(&pl, 8192, 4);
	CHECK(pl.commit_size == 4 && pl.data_off == 12 && pl.page_size == 8192,
	      "long 4: commit %u data %u page %u", pl.commit_size, pl.data_off, pl.page_size);
	ipt_page_layout_default(&pl, 0, 8);
	CHECK(pl.page_size == 4096, "default page size %u", pl.page_size);
}

/* ------------------------------------------------------------------ */
/* hand-decoded pages                                                  */
/* ------------------------------------------------------------------ */

static void test_small_events(bool be)
{
	struct ipt_page_layout pl;
	struct ipt_page_writer pw;
	uint8_t pay[16], *pg, *d;
	unsigned int tl;
	uint32_t delta;
	int i;

	for (i = 0; i < 16; i++)
		pay[i] = (uint8_t)(0xa0 + i);
	ipt_page_layout_default(&pl, 4096, 8);
	CHECK(ipt_page_writer_init(&pw, &pl, be) == 0, "init: %s", ipt_errmsg());
	CHECK(ipt_page_writer_add(&pw, 1000, pay, 8) == 0, "add: %s", ipt_errmsg());
	CHECK(ipt_page_writer_add(&pw, 1005, pay, 12) == 0, "add: %s", ipt_errmsg());
	CHECK(ipt_page_writer_add(&pw, 1005, pay, 13) == 0, "add 13: %s", ipt_errmsg());
	CHECK(ipt_page_writer_add(&pw, 2000, pay, 0) == 0, "add 0: %s", ipt_errmsg());
	CHECK(pw.out.len == 0, "no page finished yet (%zu)", pw.out.len);
	CHECK(ipt_page_writer_finish(&pw) == 0, "finish");
	CHECK(pw.out.len == 4096, "one page (%zu)", pw.out.len);
	pg = (uint8_t *)pw.out.buf;
	d = pg + 16;
	CHECK(rd(pg, 8, be) == 1000, "page ts %llu", (unsigned long long)rd(pg, 8, be));
	/* 4+8, 4+12, 4+16, 4+4 */
	CHECK(rd(pg + 8, 8, be) == 12 + 16 + 20 + 8, "commit %llu",
	      (unsigned long long)rd(pg + 8, 8, be));

	hdr_decode((uint32_t)rd(d, 4, be), be, &tl, &delta);
	CHECK(tl == 2 && delta == 0, "ev1 type_len %u delta %u", tl, delta);
	CHECK(memcmp(d + 4, pay, 8) == 0, "ev1 payload");
	d += 12;
	hdr_decode((uint32_t)rd(d, 4, be), be, &tl, &delta);
	CHECK(tl == 3 && delta == 5, "ev2 type_len %u delta %u", tl, delta);
	CHECK(memcmp(d + 4, pay, 12) == 0, "ev2 payload");
	d += 16;
	/* 13 bytes: the kernel rounds up to 4 words, padding zero */
	hdr_decode((uint32_t)rd(d, 4, be), be, &tl, &delta);
	CHECK(tl == 4 && delta == 0, "ev3 type_len %u delta %u", tl, delta);
	CHECK(memcmp(d + 4, pay, 13) == 0 && d[4 + 13] == 0 && d[4 + 14] == 0 && d[4 + 15] == 0,
	      "ev3 payload and padding");
	d += 20;
	/* zero length counts as one byte: one word */
	hdr_decode((uint32_t)rd(d, 4, be), be, &tl, &delta);
	CHECK(tl == 1 && delta == 995, "ev4 type_len %u delta %u", tl, delta);
	d += 8;
	/* the raw header word layout */
	if (be)
		CHECK(rd(pg + 16, 4, true) == (2u << 27), "BE word %llx",
		      (unsigned long long)rd(pg + 16, 4, true));
	else
		CHECK(pg[16] == 2 && pg[17] == 0 && pg[18] == 0 && pg[19] == 0,
		      "LE word %02x %02x %02x %02x", pg[16], pg[17], pg[18], pg[19]);
	for (i = (int)(d - pg); i < 4096; i++)
		if (pg[i])
			break;
	CHECK(i == 4096, "tail not zero at %d", i);
	ipt_page_writer_free(&pw);
}

static void test_large_event(bool be)
{
	struct ipt_page_layout pl;
	struct ipt_page_writer pw;
	uint8_t pay[300], *d;
	unsigned int tl;
	uint32_t delta;
	int i;

	for (i = 0; i < 300; i++)
		pay[i] = (uint8_t)i;
	ipt_page_layout_default(&pl, 4096, 8);
	ipt_page_writer_init(&pw, &pl, be);
	CHECK(ipt_page_writer_add(&pw, 10, pay, 112) == 0, "112");
	CHECK(ipt_page_writer_add(&pw, 11, pay, 116) == 0, "116");
	CHECK(ipt_page_writer_add(&pw, 12, pay, 297) == 0, "297");
	ipt_page_writer_finish(&pw);
	d = (uint8_t *)pw.out.buf + 16;
	hdr_decode((uint32_t)rd(d, 4, be), be, &tl, &delta);
	CHECK(tl == 28, "112 bytes: type_len %u", tl);
	d += 4 + 112;
	hdr_decode((uint32_t)rd(d, 4, be), be, &tl, &delta);
	CHECK(tl == 0 && delta == 1, "116 bytes: type_len %u delta %u", tl, delta);
	CHECK(rd(d + 4, 4, be) == 120, "116 bytes: array[0] %llu",
	      (unsigned long long)rd(d + 4, 4, be));
	CHECK(memcmp(d + 8, pay, 116) == 0, "116 payload");
	d += 8 + 116;
	hdr_decode((uint32_t)rd(d, 4, be), be, &tl, &delta);
	CHECK(tl == 0 && rd(d + 4, 4, be) == 304, "297 bytes: type_len %u array[0] %llu", tl,
	      (unsigned long long)rd(d + 4, 4, be));
	CHECK(memcmp(d + 8, pay, 297) == 0 && d[8 + 297] == 0, "297 payload");
	CHECK(rd((uint8_t *)pw.out.buf + 8, 8, be) == 116 + 124 + 308, "commit %llu",
	      (unsigned long long)rd((uint8_t *)pw.out.buf + 8, 8, be));
	ipt_page_writer_free(&pw);
}

static void test_time_extend(bool be)
{
	struct ipt_page_layout pl;
	struct ipt_page_writer pw;
	uint8_t pay[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, *d;
	const uint64_t t0 = 5000000000ull;
	const uint64_t big = (1ull << 27) + 12345;	/* just over 27 bits */
	const uint64_t huge = 30000000000ull;		/* 30 s: needs array[0] bits */
	unsigned int tl;
	uint32_t delta;

	ipt_page_layout_default(&pl, 4096, 8);
	ipt_page_writer_init(&pw, &pl, be);
	ipt_page_writer_add(&pw, t0, pay, 8);
	ipt_page_writer_add(&pw, t0 + (1ull << 27) - 1, pay, 8);	/* fits exactly */
	ipt_page_writer_add(&pw, t0 + (1ull << 27) - 1 + big, pay, 8);
	ipt_page_writer_add(&pw, t0 + (1ull << 27) - 1 + big + huge, pay, 8);
	ipt_page_writer_finish(&pw);
	CHECK(pw.out.len == 4096, "one page");
	d = (uint8_t *)pw.out.buf + 16;
	d += 12;
	hdr_decode((uint32_t)rd(d, 4, be), be, &tl, &delta);
	CHECK(tl == 2 && delta == (1u << 27) - 1, "max delta inline: tl %u delta %u", tl, delta);
	d += 12;
	hdr_decode((uint32_t)rd(d, 4, be), be, &tl, &delta);
	CHECK(tl == 30, "time extend type_len %u", tl);
	CHECK(delta == (big & ((1u << 27) - 1)) && rd(d + 4, 4, be) == big >> 27,
	      "extend low %u high %llu", delta, (unsigned long long)rd(d + 4, 4, be));
	d += 8;
	hdr_decode((uint32_t)rd(d, 4, be), be, &tl, &delta);
	CHECK(tl == 2 && delta == 0, "event after extend: tl %u delta %u", tl, delta);
	d += 12;
	hdr_decode((uint32_t)rd(d, 4, be), be, &tl, &delta);
	CHECK(tl == 30 && (((uint64_t)rd(d + 4, 4, be) << 27) | delta) == huge,
	      "30 s extend: %llu", (unsigned long long)(((uint64_t)rd(d + 4, 4, be) << 27) | delta));
	CHECK(rd((uint8_t *)pw.out.buf + 8, 8, be) == 12 * 4 + 8 * 2, "commit %llu",
	      (unsigned long long)rd((uint8_t *)pw.out.buf + 8, 8, be));
	ipt_page_writer_free(&pw);

	/* a delta of exactly 2^27 does not fit the 27 bits */
	ipt_page_writer_init(&pw, &pl, be);
	ipt_page_writer_add(&pw, 7, pay, 8);
	ipt_page_writer_add(&pw, 7 + (1ull << 27), pay, 8);
	ipt_page_writer_finish(&pw);
	d = (uint8_t *)pw.out.buf + 16 + 12;
	hdr_decode((uint32_t)rd(d, 4, be), be, &tl, &delta);
	CHECK(tl == 30 && delta == 0 && rd(d + 4, 4, be) == 1, "2^27: tl %u delta %u hi %llu",
	      tl, delta, (unsigned long long)rd(d + 4, 4, be));
	ipt_page_writer_free(&pw);

	/* a delta beyond 59 bits starts a new page */
	ipt_page_writer_init(&pw, &pl, be);
	ipt_page_writer_add(&pw, 1, pay, 8);
	ipt_page_writer_add(&pw, 1 + (1ull << 60), pay, 8);
	ipt_page_writer_finish(&pw);
	CHECK(pw.out.len == 8192, "huge gap: new page (%zu)", pw.out.len);
	if (pw.out.len == 8192)
		CHECK(rd((uint8_t *)pw.out.buf + 4096, 8, be) == 1 + (1ull << 60), "2nd page ts");
	ipt_page_writer_free(&pw);
}

static void test_page_fill(bool be, int long_size)
{
	struct ipt_page_layout pl;
	struct ipt_page_writer pw;
	uint8_t pay[60];
	unsigned int hs = 8 + (unsigned int)long_size, tl, n = 0, i;
	uint64_t commit;
	uint32_t delta;
	uint8_t *pg;

	memset(pay, 0x5a, sizeof(pay));
	ipt_page_layout_default(&pl, 1024, long_size);
	CHECK(ipt_page_writer_init(&pw, &pl, be) == 0, "init 1024");
	/* 64-byte events: (1024 - hs) / 64 fit in a page */
	for (i = 0; i < 40; i++)
		CHECK(ipt_page_writer_add(&pw, 100 + i * 10, pay, 60) == 0, "add %u", i);
	ipt_page_writer_finish(&pw);
	n = (1024 - hs) / 64;
	CHECK(pw.out.len == 1024 * ((40 + n - 1) / n), "pages: %zu bytes", pw.out.len);
	pg = (uint8_t *)pw.out.buf;
	commit = rd(pg + 8, (unsigned int)long_size, be);
	CHECK(commit == n * 64, "full page commit %llu", (unsigned long long)commit);
	pg += 1024;
	CHECK(rd(pg, 8, be) == 100 + n * 10, "2nd page ts %llu", (unsigned long long)rd(pg, 8, be));
	hdr_decode((uint32_t)rd(pg + hs, 4, be), be, &tl, &delta);
	CHECK(tl == 15 && delta == 0, "first event of page 2: tl %u delta %u", tl, delta);
	ipt_page_writer_free(&pw);
}

static void test_errors(void)
{
	struct ipt_page_layout pl;
	struct ipt_page_writer pw;
	static uint8_t pay[5000];

	ipt_page_layout_default(&pl, 4096, 8);
	ipt_page_writer_init(&pw, &pl, false);
	CHECK(ipt_page_writer_add(&pw, 100, pay, 8) == 0, "first");
	CHECK(ipt_page_writer_add(&pw, 99, pay, 8) == -1, "backwards ts accepted");
	CHECK(strstr(ipt_errmsg(), "before") != NULL, "msg: %s", ipt_errmsg());
	CHECK(ipt_page_writer_add(&pw, 100, pay, 4096) == -1, "oversized event accepted");
	CHECK(ipt_page_writer_add(&pw, 100, pay, 4096 - 16 - 8) == 0, "largest event: %s",
	      ipt_errmsg());
	CHECK(ipt_page_writer_add(&pw, 100, pay, 4096 - 16 - 8 + 1) == -1, "one byte too many");
	ipt_page_writer_free(&pw);
	pl.page_size = 16;
	CHECK(ipt_page_writer_init(&pw, &pl, false) == -1, "tiny page accepted");
	ipt_page_writer_free(&pw);
}

/* ------------------------------------------------------------------ */
/* kbuffer-style round trip                                            */
/* ------------------------------------------------------------------ */

struct ev {
	uint64_t ts;
	uint32_t len;
	uint8_t data[400];
};

static unsigned long long rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	return t_xorshift64(&rng_state);
}

/* Decode pages like libtraceevent's kbuffer; returns events found. */
static int decode_pages(const uint8_t *buf, size_t len, const struct ipt_page_layout *pl, bool be,
			struct ev *out, int max, int *errors)
{
	size_t off;
	int n = 0;

	for (off = 0; off + pl->page_size <= len; off += pl->page_size) {
		const uint8_t *pg = buf + off, *d = pg + pl->data_off;
		uint64_t ts = rd(pg + pl->ts_off, pl->ts_size, be);
		uint64_t commit = rd(pg + pl->commit_off, pl->commit_size, be) & ((1u << 27) - 1);
		uint32_t pos = 0;

		if (commit > pl->page_size - pl->data_off) {
			(*errors)++;
			continue;
		}
		while (pos < commit) {
			unsigned int tl;
			uint32_t delta, length;

			hdr_decode((uint32_t)rd(d + pos, 4, be), be, &tl, &delta);
			if (tl == 30) {
				ts += ((uint64_t)rd(d + pos + 4, 4, be) << 27) + delta;
				pos += 8;
				continue;
			}
			if (tl == 29 || tl == 31) {
				(*errors)++;
				break;
			}
			ts += delta;
			if (tl == 0) {
				length = (uint32_t)rd(d + pos + 4, 4, be) - 4;
				length = (length + 3) & ~3u;
				pos += 8;
			} else {
				length = tl * 4;
				pos += 4;
			}
			if (n < max) {
				out[n].ts = ts;
				out[n].len = length;
				memcpy(out[n].data, d + pos, length > 400 ? 400 : length);
			}
			n++;
			pos += length;
		}
		if (pos != commit)
			(*errors)++;
	}
	return n;
}

static void test_round_trip(bool be, int long_size, unsigned int page_size)
{
	enum { N = 3000 };
	static struct ev in[N], got[N];
	struct ipt_page_layout pl;
	struct ipt_page_writer pw;
	uint64_t ts = 1000;
	int i, n, errors = 0, bad = 0;

	ipt_page_layout_default(&pl, page_size, long_size);
	ipt_page_writer_init(&pw, &pl, be);
	for (i = 0; i < N; i++) {
		uint64_t k = rnd() % 100;
		uint32_t j;

		ts += k < 3 ? (1ull << 27) + rnd() % (1ull << 36) : rnd() % 5000;
		in[i].ts = ts;
		in[i].len = k < 10 ? 113 + (uint32_t)(rnd() % 280) : (uint32_t)(rnd() % 113);
		for (j = 0; j < in[i].len; j++)
			in[i].data[j] = (uint8_t)rnd();
		if (ipt_page_writer_add(&pw, ts, in[i].data, in[i].len))
			bad++;
		/* drain finished pages now and then, as a streaming user does */
		if (pw.out.len > 5 * page_size && i % 500 == 0) {
			n = decode_pages((uint8_t *)pw.out.buf, pw.out.len, &pl, be, got, N, &errors);
			(void)n;
		}
	}
	ipt_page_writer_finish(&pw);
	CHECK(bad == 0, "adds failed: %d", bad);
	CHECK(pw.out.len % page_size == 0, "whole pages");
	n = decode_pages((uint8_t *)pw.out.buf, pw.out.len, &pl, be, got, N, &errors);
	CHECK(n == N, "decoded %d of %d events (be %d, long %d, page %u)", n, N, be, long_size,
	      page_size);
	CHECK(errors == 0, "%d malformed pages", errors);
	bad = 0;
	for (i = 0; i < N && i < n; i++) {
		uint32_t want = in[i].len ? (in[i].len + 3) & ~3u : 4, j;

		if (got[i].ts != in[i].ts || got[i].len != want ||
		    memcmp(got[i].data, in[i].data, in[i].len))
			bad++;
		for (j = in[i].len; j < want && j < 400; j++)
			if (got[i].data[j])
				bad++;
	}
	CHECK(bad == 0, "%d events differ after the round trip", bad);
	ipt_page_writer_free(&pw);
}

/* ------------------------------------------------------------------ */
/* trace.dat reading (test side)                                       */
/* ------------------------------------------------------------------ */

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static uint8_t *decompress(const char *algo, const uint8_t *src, size_t slen, size_t ulen)
{
	uint8_t *dst = malloc(ulen + 1);

	if (!dst)
		return NULL;
	if (!strcmp(algo, "zstd")) {
		size_t r = ZSTD_decompress(dst, ulen, src, slen);

		if (ZSTD_isError(r) || r != ulen) {
			free(dst);
			return NULL;
		}
	} else if (!strcmp(algo, "zlib")) {
		uLongf dl = ulen;

		if (uncompress(dst, &dl, src, slen) != Z_OK || dl != ulen) {
			free(dst);
			return NULL;
		}
	} else {
		memcpy(dst, src, ulen);
	}
	return dst;
}

struct parsed {
	int version;
	bool be;
	int long_size;
	uint32_t page_size;
	char comp[16];
	/* metadata */
	char *header_page;
	char *kallsyms;
	char *printk;
	char *cmdlines;
	int nsystems, nevents, nftrace;
	char first_event_name[64];
	char clock[32];
	char uname[64];
	int cpucount;
	int ncpustat;
	/* flyrecord */
	int ncpu;
	int cpu_id[16];
	uint8_t *cpu_data[16];
	uint64_t cpu_len[16];
	bool cpu_aligned;
	int nsections;
	bool strings_ok;
};

static void parsed_free(struct parsed *p)
{
	int i;

	free(p->header_page);
	free(p->kallsyms);
	free(p->printk);
	free(p->cmdlines);
	for (i = 0; i < p->ncpu; i++)
		free(p->cpu_data[i]);
	memset(p, 0, sizeof(*p));
}

/* Parse the common metadata blocks at *pp (v6 order or one v7 section). */
static int parse_headers(struct parsed *p, const uint8_t *b, size_t len)
{
	uint64_t n;

	if (len < 12 + 8 || memcmp(b, "header_page", 12))
		return -1;
	n = rd(b + 12, 8, p->be);
	p->header_page = strndup((const char *)b + 20, n);
	b += 20 + n;
	if (memcmp(b, "header_event", 13))
		return -1;
	return (int)(20 + n + 13 + 8 + rd(b + 13, 8, p->be));
}

static int parse_events(struct parsed *p, const uint8_t *b)
{
	const uint8_t *s = b;
	uint32_t ns = (uint32_t)rd(b, 4, p->be), i, j;

	b += 4;
	p->nsystems = (int)ns;
	for (i = 0; i < ns; i++) {
		uint32_t ne;

		b += strlen((const char *)b) + 1;
		ne = (uint32_t)rd(b, 4, p->be);
		b += 4;
		for (j = 0; j < ne; j++) {
			uint64_t n = rd(b, 8, p->be);

			if (!p->nevents)
				sscanf((const char *)b + 8, "name: %63s", p->first_event_name);
			p->nevents++;
			b += 8 + n;
		}
	}
	return (int)(b - s);
}

static int parse_ftrace(struct parsed *p, const uint8_t *b)
{
	const uint8_t *s = b;
	uint32_t n = (uint32_t)rd(b, 4, p->be), i;

	p->nftrace = (int)n;
	b += 4;
	for (i = 0; i < n; i++)
		b += 8 + rd(b, 8, p->be);
	return (int)(b - s);
}

static void parse_option(struct parsed *p, uint16_t id, const uint8_t *d, uint32_t len)
{
	switch (id) {
	case 4:
		snprintf(p->clock, sizeof(p->clock), "%.*s", (int)len, d);
		break;
	case 5:
		snprintf(p->uname, sizeof(p->uname), "%.*s", (int)len, d);
		break;
	case 8:
		p->cpucount = (int)rd(d, 4, p->be);
		break;
	case 2:
		p->ncpustat++;
		break;
	}
}

static int parse_file(const char *path, struct parsed *p)
{
	size_t len, off;
	uint8_t *f = slurp(path, &len);
	int ret = -1;

	memset(p, 0, sizeof(*p));
	if (!f)
		return -1;
	if (len < 20 || memcmp(f, "\x17\x08\x44tracing", 10))
		goto out;
	p->version = f[10] - '0';
	if (f[11] != 0)
		goto out;
	p->be = f[12];
	p->long_size = f[13];
	p->page_size = (uint32_t)rd(f + 14, 4, p->be);
	off = 18;
	if (p->version == 6) {
		int n;

		strcpy(p->comp, "none");
		n = parse_headers(p, f + off, len - off);
		if (n < 0)
			goto out;
		off += (size_t)n;
		off += (size_t)parse_ftrace(p, f + off);
		off += (size_t)parse_events(p, f + off);
		n = (int)rd(f + off, 4, p->be);
		p->kallsyms = strndup((char *)f + off + 4, (size_t)n);
		off += 4 + (size_t)n;
		n = (int)rd(f + off, 4, p->be);
		p->printk = strndup((char *)f + off + 4, (size_t)n);
		off += 4 + (size_t)n;
		n = (int)rd(f + off, 8, p->be);
		p->cmdlines = strndup((char *)f + off + 8, (size_t)n);
		off += 8 + (size_t)n;
		p->ncpu = (int)rd(f + off, 4, p->be);
		off += 4;
		if (memcmp(f + off, "options  ", 10))
			goto out;
		off += 10;
		for (;;) {
			uint16_t id = (uint16_t)rd(f + off, 2, p->be);
			uint32_t ol;

			off += 2;
			if (!id)
				break;
			ol = (uint32_t)rd(f + off, 4, p->be);
			parse_option(p, id, f + off + 4, ol);
			off += 4 + ol;
		}
		if (memcmp(f + off, "flyrecord", 10) || p->ncpu > 16)
			goto out;
		off += 10;
		p->cpu_aligned = true;
		for (int i = 0; i < p->ncpu; i++) {
			uint64_t o = rd(f + off + 16 * (size_t)i, 8, p->be);
			uint64_t s = rd(f + off + 16 * (size_t)i + 8, 8, p->be);

			p->cpu_id[i] = i;
			p->cpu_len[i] = s;
			if (o % p->page_size)
				p->cpu_aligned = false;
			if (o + s > len)
				goto out;
			p->cpu_data[i] = malloc(s + 1);
			memcpy(p->cpu_data[i], f + o, s);
		}
		off += 16 * (size_t)p->ncpu;
		/* the clock: "[local]" */
		if (rd(f + off, 8, p->be) > 30)
			goto out;
		snprintf(p->clock, sizeof(p->clock), "%.*s", (int)rd(f + off, 8, p->be),
			 f + off + 8);
		ret = 0;
		goto out;
	}

	/* version 7 */
	snprintf(p->comp, sizeof(p->comp), "%s", (char *)f + off);
	off += strlen((char *)f + off) + 1;
	off += strlen((char *)f + off) + 1;
	{
		uint64_t opt_off = rd(f + off, 8, p->be), fly = 0, next;
		const uint8_t *strings = NULL;
		size_t strings_len = 0;
		uint8_t *to_free[64];
		int nfree = 0, i;
		uint32_t desc_ids[32];
		uint16_t sec_ids[32];
		int nsec = 0;

		off += 8;
		/* walk all sections, as trace-cmd does to find the strings */
		while (off + 16 <= len) {
			uint16_t id = (uint16_t)rd(f + off, 2, p->be);
			uint16_t flags = (uint16_t)rd(f + off + 2, 2, p->be);
			uint32_t desc = (uint32_t)rd(f + off + 4, 4, p->be);
			uint64_t size = rd(f + off + 8, 8, p->be);
			const uint8_t *d = f + off + 16;
			uint64_t dlen = size;

			if (off + 16 + size > len)
				goto out7;
			if (nsec < 32) {
				desc_ids[nsec] = desc;
				sec_ids[nsec] = id;
			}
			nsec++;
			if ((flags & 1) && id != 3) {
				uint32_t cs = (uint32_t)rd(d, 4, p->be), us = (uint32_t)rd(d + 4, 4, p->be);
				uint8_t *u;

				if (cs + 8 != size)
					goto out7;
				u = decompress(p->comp, d + 8, cs, us);
				if (!u || nfree >= 64)
					goto out7;
				to_free[nfree++] = u;
				d = u;
				dlen = us;
			} else if (flags & 1 && strcmp(p->comp, "none") == 0) {
				goto out7;
			}
			switch (id) {
			case 16:
				if (parse_headers(p, d, dlen) < 0)
					goto out7;
				break;
			case 17:
				parse_ftrace(p, d);
				break;
			case 18:
				parse_events(p, d);
				break;
			case 19:
				p->kallsyms = strndup((const char *)d + 4, rd(d, 4, p->be));
				break;
			case 20:
				p->printk = strndup((const char *)d + 4, rd(d, 4, p->be));
				break;
			case 21:
				p->cmdlines = strndup((const char *)d + 8, rd(d, 8, p->be));
				break;
			case 15:
				strings = d;
				strings_len = dlen;
				break;
			case 3:
				fly = off;
				break;
			}
			off += 16 + size;
		}
		if (off != len)
			goto out7;
		p->nsections = nsec;
		/* every section description names a string */
		p->strings_ok = strings != NULL;
		for (i = 0; i < nsec && i < 32 && strings; i++) {
			const char *want = sec_ids[i] == 0 ? "options" : sec_ids[i] == 3 ?
				"buffer flyrecord " : sec_ids[i] == 15 ? "strings" : NULL;

			if (desc_ids[i] >= strings_len ||
			    (want && strcmp((const char *)strings + desc_ids[i], want)))
				p->strings_ok = false;
		}
		/* the options chain */
		for (next = opt_off; next; ) {
			uint64_t o = next, end;

			if (rd(f + o, 2, p->be) != 0)
				goto out7;
			end = o + 16 + rd(f + o + 8, 8, p->be);
			o += 16;
			next = 0;
			while (o < end) {
				uint16_t id = (uint16_t)rd(f + o, 2, p->be);
				uint32_t ol = (uint32_t)rd(f + o + 2, 4, p->be);
				const uint8_t *d = f + o + 6;

				if (id == 0) {
					next = rd(d, 8, p->be);
				} else if (id == 3) {
					const uint8_t *q = d;
					uint32_t nc;

					if (rd(q, 8, p->be) != fly)
						goto out7;
					q += 8;
					q += strlen((const char *)q) + 1;	/* name */
					snprintf(p->clock, sizeof(p->clock), "%s", (const char *)q);
					q += strlen((const char *)q) + 1;
					if (rd(q, 4, p->be) != p->page_size)
						goto out7;
					nc = (uint32_t)rd(q + 4, 4, p->be);
					q += 8;
					if (nc > 16)
						goto out7;
					p->ncpu = (int)nc;
					p->cpu_aligned = true;
					for (i = 0; i < (int)nc; i++, q += 20) {
						uint64_t co = rd(q + 4, 8, p->be), cs = rd(q + 12, 8, p->be);

						p->cpu_id[i] = (int)rd(q, 4, p->be);
						if (co % p->page_size)
							p->cpu_aligned = false;
						if (strcmp(p->comp, "none")) {
							uint32_t nch = (uint32_t)rd(f + co, 4, p->be), c;
							uint64_t at = co + 4, total = 0;
							struct ipt_strbuf sb = IPT_STRBUF_INIT;

							for (c = 0; c < nch; c++) {
								uint32_t zs = (uint32_t)rd(f + at, 4, p->be);
								uint32_t us = (uint32_t)rd(f + at + 4, 4, p->be);
								uint8_t *u = decompress(p->comp, f + at + 8, zs, us);

								if (!u || us % p->page_size)
									goto out7;
								ipt_strbuf_add(&sb, (char *)u, us);
								free(u);
								total += us;
								at += 8 + zs;
							}
							if (at - co != cs)
								goto out7;
							p->cpu_data[i] = (uint8_t *)sb.buf;
							p->cpu_len[i] = total;
						} else {
							p->cpu_data[i] = malloc(cs + 1);
							memcpy(p->cpu_data[i], f + co, cs);
							p->cpu_len[i] = cs;
						}
					}
				} else {
					parse_option(p, id, d, ol);
				}
				o += 6 + ol;
			}
		}
		ret = 0;
out7:
		for (i = 0; i < nfree; i++)
			free(to_free[i]);
	}
out:
	free(f);
	return ret;
}

/* ------------------------------------------------------------------ */
/* trace.dat writing                                                   */
/* ------------------------------------------------------------------ */

static char tmpdir[256];

static const char fmt_ipi[] =
	"name: ipi_send_cpu\nID: 354\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned int cpu;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:void * callsite;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:void * callback;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"cpu=%u callsite=%pS callback=%pS\", REC->cpu, REC->callsite, REC->callback\n";

/* Pages for cpu: n events of 32 bytes. */
static void make_pages(struct ipt_strbuf *out, int cpu, int n, bool be, int ls)
{
	struct ipt_page_layout pl;
	struct ipt_page_writer pw;
	uint8_t rec[32];
	int i;

	ipt_page_layout_default(&pl, 4096, ls);
	ipt_page_writer_init(&pw, &pl, be);
	for (i = 0; i < n; i++) {
		memset(rec, 0, sizeof(rec));
		ipt_put_uint(rec, 2, be, 354);
		ipt_put_uint(rec + 8, 4, be, (uint64_t)(cpu + 1));
		ipt_put_uint(rec + 16, 8, be, (uint64_t)i);
		ipt_page_writer_add(&pw, 1000000 + (uint64_t)i * 777 + (uint64_t)cpu, rec, 32);
	}
	ipt_page_writer_finish(&pw);
	*out = pw.out;
	pw.out = (struct ipt_strbuf)IPT_STRBUF_INIT;
	ipt_page_writer_free(&pw);
}

static struct ipt_tdw *fill_writer(const char *path, int version, const char *comp, bool be,
				   int ls, struct ipt_strbuf *pages, int use_fd, int *fds)
{
	struct ipt_tdw_opts o = { .version = version, .compression = comp, .big_endian = be, .long_size = ls, .page_size = 4096 };
	struct ipt_tdw *w = ipt_tdw_open(path, &o);
	static const char kall[] = "ffffffff81000000 T _stext\nffffffff813af910 T wakeup_preempt\n";
	static const char cmdl[] = "1 systemd\n42 bash\n";
	static const char prk[] = "0xffffffff8281a98f : \"thaw_processes\"\n";
	int cpu;

	if (!w)
		return NULL;
	ipt_tdw_add_event_format(w, "ipi", fmt_ipi, strlen(fmt_ipi));
	ipt_tdw_add_event_format(w, "ipi", fmt_ipi, strlen(fmt_ipi));
	ipt_tdw_add_event_format(w, "other", fmt_ipi, strlen(fmt_ipi));
	ipt_tdw_set_kallsyms(w, kall, strlen(kall));
	ipt_tdw_set_printk(w, prk, strlen(prk));
	ipt_tdw_set_cmdlines(w, cmdl, strlen(cmdl));
	ipt_tdw_set_clock(w, "[local] global counter\n");
	ipt_tdw_set_uname(w, "Linux test 6.18 x86_64");
	ipt_tdw_set_version(w, "unit");
	ipt_tdw_set_cpucount(w, 4);
	ipt_tdw_add_cpustat(w, 3, "CPU: 3\n");
	ipt_tdw_add_cpustat(w, 0, "CPU: 0\n");
	for (cpu = 0; cpu < 4; cpu++) {
		if (cpu == 2 && !use_fd) {
			ipt_tdw_set_cpu_data(w, cpu, "", 0);	/* a CPU without data */
			continue;
		}
		if (use_fd == 2) {	/* appended in pieces of 1, 3 and 7 pages */
			static const size_t piece[] = { 1, 3, 7 };

			if (!pages[cpu].len)
				ipt_tdw_add_cpu_pages(w, cpu, NULL, 0);
			for (size_t off = 0, k = 0; off < pages[cpu].len; k++) {
				size_t n = piece[k % 3] * 4096;

				if (n > pages[cpu].len - off)
					n = pages[cpu].len - off;
				CHECK(ipt_tdw_add_cpu_pages(w, cpu, pages[cpu].buf + off, n) == 0, "pieces: %s",
				      ipt_errmsg());
				off += n;
			}
		} else if (use_fd) {
			char p[300];

			snprintf(p, sizeof(p), "%s/cpu%d.raw", tmpdir, cpu);
			fds[cpu] = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
			if (write(fds[cpu], pages[cpu].buf, pages[cpu].len) != (ssize_t)pages[cpu].len)
				CHECK(0, "write raw");
			lseek(fds[cpu], 123, SEEK_SET);	/* the writer reads from 0 anyway */
			ipt_tdw_set_cpu_fd(w, cpu, fds[cpu]);
		} else {
			ipt_tdw_set_cpu_data(w, cpu, pages[cpu].buf, pages[cpu].len);
		}
	}
	return w;
}

static int count_dir(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")))
			n++;
	if (d)
		closedir(d);
	return n;
}

static bool same_file(const char *a, const char *b)
{
	size_t la, lb;
	uint8_t *x = slurp(a, &la), *y = slurp(b, &lb);
	bool r = x && y && la == lb && !memcmp(x, y, la);

	free(x);
	free(y);
	return r;
}

static void test_file(int version, const char *comp, bool be, int ls)
{
	struct ipt_strbuf pages[4] = { IPT_STRBUF_INIT, IPT_STRBUF_INIT, IPT_STRBUF_INIT,
				       IPT_STRBUF_INIT };
	int nev[4] = { 10, 400, 0, 1500 };	/* 1500 events: > 10 pages: several chunks */
	int fds[4] = { -1, -1, -1, -1 };
	char path[300], path2[320];
	struct parsed p;
	struct stat st;
	struct ipt_tdw *w;
	int cpu, i;

	snprintf(path, sizeof(path), "%s/t-v%d-%s-%s-%d.dat", tmpdir, version, comp,
		 be ? "be" : "le", ls);
	snprintf(path2, sizeof(path2), "%s.fd", path);
	for (cpu = 0; cpu < 4; cpu++)
		make_pages(&pages[cpu], cpu, nev[cpu], be, ls);

	w = fill_writer(path, version, comp, be, ls, pages, 0, fds);
	CHECK(w != NULL, "open %s: %s", path, ipt_errmsg());
	if (!w)
		return;
	CHECK(access(path, F_OK) != 0, "final name visible before commit");
	CHECK(ipt_tdw_commit(w) == 0, "commit %s: %s", path, ipt_errmsg());
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "mode %o", st.st_mode & 0777);

	/* the same from file descriptors gives the same bytes */
	w = fill_writer(path2, version, comp, be, ls, pages, 1, fds);
	CHECK(w && ipt_tdw_commit(w) == 0, "commit (fd) %s: %s", path2, ipt_errmsg());
	CHECK(same_file(path, path2), "memory and fd inputs differ (%s)", path);
	for (cpu = 0; cpu < 4; cpu++)
		if (fds[cpu] >= 0)
			close(fds[cpu]);
	/* ... and appended in pieces, chunks compressed as they fill */
	unlink(path2);
	w = fill_writer(path2, version, comp, be, ls, pages, 2, fds);
	CHECK(w && ipt_tdw_add_cpu_pages(w, 0, pages[0].buf, 4096) != 0, "CPU 0's pages again after CPU 3's");
	CHECK(w && ipt_tdw_commit(w) == 0, "commit (pieces) %s: %s", path2, ipt_errmsg());
	CHECK(same_file(path, path2), "memory and appended inputs differ (%s)", path);

	CHECK(parse_file(path, &p) == 0, "parse %s", path);
	CHECK(p.version == version && p.be == be && p.long_size == ls && p.page_size == 4096,
	      "initial format v%d be%d ls%d page%u", p.version, p.be, p.long_size, p.page_size);
	CHECK_STR(p.comp, comp);
	CHECK(p.header_page && strstr(p.header_page, ls == 8 ? "commit;\toffset:8;\tsize:8;"
							     : "commit;\toffset:8;\tsize:4;"),
	      "header_page: %s", p.header_page ? p.header_page : "(null)");
	CHECK(p.nsystems == 2 && p.nevents == 3 && p.nftrace == 0, "systems %d events %d ftrace %d",
	      p.nsystems, p.nevents, p.nftrace);
	CHECK_STR(p.first_event_name, "ipi_send_cpu");
	CHECK(p.kallsyms && strstr(p.kallsyms, "wakeup_preempt"), "kallsyms");
	CHECK(p.printk && strstr(p.printk, "thaw_processes"), "printk");
	CHECK(p.cmdlines && !strcmp(p.cmdlines, "1 systemd\n42 bash\n"), "cmdlines");
	CHECK(!strncmp(p.uname, "Linux test", 10), "uname '%s'", p.uname);
	CHECK(p.cpucount == 4 && p.ncpustat == 2, "cpucount %d cpustat %d", p.cpucount,
	      p.ncpustat);
	if (version == 6)
		CHECK_STR(p.clock, "[local]");
	else
		CHECK_STR(p.clock, "local");
	CHECK(p.cpu_aligned, "CPU data not page aligned");
	if (version == 7) {
		CHECK(p.nsections == 10, "sections %d", p.nsections);
		CHECK(p.strings_ok, "section descriptions");
		CHECK(p.ncpu == 3, "BUFFER lists %d CPUs", p.ncpu);
	} else {
		CHECK(p.ncpu == 4, "v6 CPU count %d", p.ncpu);
	}
	for (i = 0; i < p.ncpu; i++) {
		int c = p.cpu_id[i];

		CHECK(c >= 0 && c < 4 && p.cpu_len[i] == pages[c].len &&
		      (!p.cpu_len[i] || !memcmp(p.cpu_data[i], pages[c].buf, pages[c].len)),
		      "CPU %d data (%llu bytes, want %zu)", c, (unsigned long long)p.cpu_len[i],
		      c >= 0 && c < 4 ? pages[c].len : 0);
	}
	parsed_free(&p);
	unlink(path);
	unlink(path2);
	for (cpu = 0; cpu < 4; cpu++) {
		snprintf(path, sizeof(path), "%s/cpu%d.raw", tmpdir, cpu);
		unlink(path);
		ipt_strbuf_free(&pages[cpu]);
	}
	CHECK(count_dir() == 0, "files left behind: %d", count_dir());
}

static void test_stdout(void)
{
	struct ipt_strbuf pages[4] = { IPT_STRBUF_INIT, IPT_STRBUF_INIT, IPT_STRBUF_INIT,
				       IPT_STRBUF_INIT };
	int fds[4] = { -1, -1, -1, -1 }, saved, fd, cpu, r;
	char path[300], path2[300];
	struct ipt_tdw *w;

	for (cpu = 0; cpu < 4; cpu++)
		make_pages(&pages[cpu], cpu, 50, false, 8);
	snprintf(path, sizeof(path), "%s/file.dat", tmpdir);
	snprintf(path2, sizeof(path2), "%s/stdout.dat", tmpdir);
	w = fill_writer(path, 7, "zstd", false, 8, pages, 0, fds);
	CHECK(w && ipt_tdw_commit(w) == 0, "commit: %s", ipt_errmsg());

	fflush(stdout);
	saved = dup(1);
	fd = open(path2, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 1);
	close(fd);
	w = fill_writer("-", 7, "zstd", false, 8, pages, 0, fds);
	r = w ? ipt_tdw_commit(w) : -1;
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	CHECK(r == 0, "commit to stdout: %s", ipt_errmsg());
	CHECK(same_file(path, path2), "stdout output differs from the file");
	unlink(path);
	unlink(path2);
	for (cpu = 0; cpu < 4; cpu++)
		ipt_strbuf_free(&pages[cpu]);
}

/* The user symbols option (record --user-stacks): written, read back and
 * looked up by (process, address); a malformed line is an error naming
 * the file and the option's offset. */
static void user_symbols_file(const char *path, const char *text, struct ipt_strbuf *pages)
{
	int fds[4] = { -1, -1, -1, -1 };
	struct ipt_tdw *w = fill_writer(path, 7, "none", false, 8, pages, 0, fds);

	CHECK(w && ipt_tdw_add_option(w, IPT_OPTION_USER_SYMBOLS, text, (uint32_t)strlen(text) + 1) == 0 &&
	      ipt_tdw_commit(w) == 0, "commit: %s", ipt_errmsg());
}

/* the roles of the CPUs as record stores them, read back by role; an
 * older file's option (two lines) says only those two */
static void test_cpu_roles(void)
{
	struct ipt_strbuf pages[4] = { IPT_STRBUF_INIT, IPT_STRBUF_INIT, IPT_STRBUF_INIT,
				       IPT_STRBUF_INIT };
	static const char *const texts[] = {
		"isolated=3-5\nnohz_full=4-5\nisolcpus_flags=domain,managed_irq\nisolcpus=3-5\n"
		"rcu_nocbs=\nonline=0-7\npossible=0-15\n",
		"isolated=2\nnohz_full=\n",
	};
	static const char *const want[][6] = {	/* isolated .. possible; "?" not said */
		{ "3-5", "4-5", "3-5", "", "0-7", "0-15" },
		{ "2", "", "?", "?", "?", "?" },
	};
	static const char *const roles[] = { "isolated", "nohz_full", "isolcpus", "rcu_nocbs", "online", "possible" };
	char path[300], list[64], flags[64];

	for (int cpu = 0; cpu < 4; cpu++)
		make_pages(&pages[cpu], cpu, 5, false, 8);
	for (int k = 0; k < 2; k++) {
		int fds[4] = { -1, -1, -1, -1 };
		struct ipt_tdw *w;
		struct ipt_trace *t;
		struct ipt_cpuset set = IPT_CPUSET_INIT;

		snprintf(path, sizeof(path), "%s/roles%d.dat", tmpdir, k);
		w = fill_writer(path, 7, "none", false, 8, pages, 0, fds);
		CHECK(w && ipt_tdw_add_option(w, IPT_OPTION_CPU_ISOLATION, texts[k], (uint32_t)strlen(texts[k]) + 1) == 0 &&
		      ipt_tdw_commit(w) == 0, "commit: %s", ipt_errmsg());
		t = ipt_trace_open(path);
		CHECK(t != NULL, "open: %s", ipt_errmsg());
		for (int r = 0; t && r < 6; r++) {
			bool said = ipt_trace_cpu_role(t, roles[r], &set);

			ipt_cpuset_format_list(&set, list, sizeof(list));
			CHECK(said ? !strcmp(list, want[k][r]) : !strcmp(want[k][r], "?"), "file %d role %s: %s %s, want %s",
			      k, roles[r], said ? "said" : "not said", list, want[k][r]);
		}
		if (t) {
			const char *f = ipt_trace_isolcpus_flags(t, flags, sizeof(flags));

			CHECK(k ? f == NULL : f && !strcmp(f, "domain,managed_irq"), "file %d isolcpus flags %s", k,
			      f ? f : "(not said)");
			CHECK(!ipt_trace_cpu_role(t, "housekeeping", &set), "a role that is not one");
		}
		ipt_cpuset_free(&set);
		ipt_trace_close(t);
		unlink(path);
	}
	for (int cpu = 0; cpu < 4; cpu++)
		ipt_strbuf_free(&pages[cpu]);
}

static void test_user_symbols(void)
{
	struct ipt_strbuf pages[4] = { IPT_STRBUF_INIT, IPT_STRBUF_INIT, IPT_STRBUF_INIT,
				       IPT_STRBUF_INIT };
	char path[300];
	struct ipt_trace *t;
	struct ipt_user_frame uf;
	uint64_t tok, off = 0;
	bool known;
	static const char good[] =
		"p 42 maps\np 7 gone\n"
		"a 42 55a4088e1c93 c3 /usr/bin/ipi?workload run_membarrier\n"
		"a 42 7fd590e5e829 19 /lib/x86_64-linux-gnu/libc.so.6 operator new(unsigned long)\n"
		"a 7 7f0000001000 0 - -\n";
	static const char *const bad[] = {
		"p 42 alive\n", "a 42 zz 0 m f\n", "a 42 10 0 m\n", "q 1 maps\n", "a -1 10 0 m f\n",
		"p 99999999999 maps\n",
	};

	for (int cpu = 0; cpu < 4; cpu++)
		make_pages(&pages[cpu], cpu, 5, false, 8);
	snprintf(path, sizeof(path), "%s/usyms.dat", tmpdir);
	user_symbols_file(path, good, pages);
	t = ipt_trace_open(path);
	CHECK(t != NULL, "open: %s", ipt_errmsg());
	if (t) {
		CHECK(ipt_trace_has_user_symbols(t), "no user symbols read");
		tok = ipt_usym_token(t, 42, 0x55a4088e1c93ULL);
		CHECK((tok & IPT_UFRAME_TAG_MASK) == IPT_UFRAME_TAG, "no token for a stored address");
		CHECK(ipt_usym_token(t, 43, 0x55a4088e1c93ULL) == 0x55a4088e1c93ULL,
		      "another process's address has a token");
		CHECK(ipt_trace_symbol(t, tok, &off) && !strcmp(ipt_trace_symbol(t, tok, &off), "run_membarrier") &&
		      off == 0xc3, "token name/offset");
		CHECK(ipt_trace_user_frame(t, tok, &uf) && uf.tgid == 42 && uf.addr == 0x55a4088e1c93ULL &&
		      uf.module && !strcmp(uf.module, "/usr/bin/ipi?workload"), "user frame fields");
		tok = ipt_usym_token(t, 42, 0x7fd590e5e829ULL);
		CHECK(ipt_trace_symbol(t, tok, NULL) &&
		      !strcmp(ipt_trace_symbol(t, tok, NULL), "operator new(unsigned long)"), "name with spaces");
		tok = ipt_usym_token(t, 7, 0x7f0000001000ULL);
		CHECK(!ipt_trace_symbol(t, tok, NULL), "unknown function has a name");
		{
			char buf[64];

			ipt_trace_format_symbol(t, tok, true, buf, sizeof(buf));
			CHECK(!strcmp(buf, "0x7f0000001000"), "unknown user frame shown as '%s'", buf);
			ipt_trace_format_symbol(t, IPT_UFRAME_CUT, true, buf, sizeof(buf));
			CHECK(!strcmp(buf, IPT_UFRAME_CUT_NAME), "cut marker shown as '%s'", buf);
		}
		CHECK(ipt_trace_user_process(t, 7, &known) == IPT_UPROC_GONE && known, "process 7 state");
		CHECK(ipt_trace_user_process(t, 42, &known) == IPT_UPROC_MAPS && known, "process 42 state");
		ipt_trace_user_process(t, 5, &known);
		CHECK(!known, "process 5 known");
		CHECK(!ipt_trace_user_frame(t, 0xffffffff81000000ULL, &uf), "kernel address is a user frame");
		ipt_trace_close(t);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		user_symbols_file(path, bad[i], pages);
		t = ipt_trace_open(path);
		CHECK(!t && strstr(ipt_errmsg(), "usyms.dat") && strstr(ipt_errmsg(), "offset") &&
		      strstr(ipt_errmsg(), "user symbols option: line 1 malformed"),
		      "bad option '%s' read as: %s", bad[i], t ? "(opened)" : ipt_errmsg());
		ipt_trace_close(t);
	}
	unlink(path);
	for (int cpu = 0; cpu < 4; cpu++)
		ipt_strbuf_free(&pages[cpu]);
}

/* A pipe as the CPU data source (not seekable): read as it comes. */
static void test_pipe(void)
{
	struct ipt_tdw_opts o = { .version = 7, .compression = "zstd", .long_size = 8, .page_size = 4096 };
	struct ipt_strbuf pg = IPT_STRBUF_INIT;
	char path[300], path2[300];
	struct ipt_tdw *w;
	int pfd[2];

	make_pages(&pg, 0, 200, false, 8);	/* 2 pages: fits a pipe buffer */
	snprintf(path, sizeof(path), "%s/mem.dat", tmpdir);
	snprintf(path2, sizeof(path2), "%s/pipe.dat", tmpdir);
	w = ipt_tdw_open(path, &o);
	CHECK(w && ipt_tdw_set_cpu_data(w, 1, pg.buf, pg.len) == 0 && ipt_tdw_commit(w) == 0,
	      "memory: %s", ipt_errmsg());
	CHECK(pipe(pfd) == 0, "pipe");
	CHECK(write(pfd[1], pg.buf, pg.len) == (ssize_t)pg.len, "fill pipe");
	close(pfd[1]);
	w = ipt_tdw_open(path2, &o);
	CHECK(w && ipt_tdw_set_cpu_fd(w, 1, pfd[0]) == 0 && ipt_tdw_commit(w) == 0,
	      "pipe: %s", ipt_errmsg());
	close(pfd[0]);
	CHECK(same_file(path, path2), "pipe input gives another file");
	unlink(path);
	unlink(path2);
	ipt_strbuf_free(&pg);
}

static void test_write_errors(void)
{
	struct ipt_tdw_opts o = { .version = 7, .compression = "none", .long_size = 8, .page_size = 4096 };
	struct ipt_strbuf pages[4] = { IPT_STRBUF_INIT, IPT_STRBUF_INIT, IPT_STRBUF_INIT,
				       IPT_STRBUF_INIT };
	int fds[4] = { -1, -1, -1, -1 }, cpu;
	struct ipt_tdw *w;
	struct rlimit old, lim;
	char path[300];

	/* bad options */
	o.version = 6;
	o.compression = "zstd";
	snprintf(path, sizeof(path), "%s/x.dat", tmpdir);
	CHECK(ipt_tdw_open(path, &o) == NULL, "v6 + zstd accepted");
	o.version = 7;
	o.compression = "lzma";
	CHECK(ipt_tdw_open(path, &o) == NULL, "unknown compression accepted");
	o.compression = "none";
	o.long_size = 2;
	CHECK(ipt_tdw_open(path, &o) == NULL, "long size 2 accepted");
	o.long_size = 8;

	/* a directory that does not exist */
	w = ipt_tdw_open("/nonexistent-dir/x.dat", &o);
	CHECK(w == NULL && strstr(ipt_errmsg(), "/nonexistent-dir/x.dat"), "msg: %s", ipt_errmsg());

	/* abort leaves nothing */
	w = ipt_tdw_open(path, &o);
	/* nothing under the name while open; an unnamed file (O_TMPFILE) or
	 * one hidden temporary where the file system has no O_TMPFILE */
	CHECK(w != NULL && count_dir() <= 1 && access(path, F_OK) != 0,
	      "visible while open (%d files)", count_dir());
	ipt_tdw_abort(w);
	CHECK(count_dir() == 0 && access(path, F_OK) != 0, "abort left files");
	ipt_tdw_abort(NULL);

	/* no_replace: a file that appeared under the name is kept, and said */
	{
		FILE *f = fopen(path, "w");
		char buf[8] = "";

		CHECK(f && fputs("keep", f) >= 0 && fclose(f) == 0, "cannot write %s", path);
		o.no_replace = true;
		w = ipt_tdw_open(path, &o);
		CHECK(w && ipt_tdw_commit(w) == -1 && strstr(ipt_errmsg(), "exists"),
		      "no_replace: %s", ipt_errmsg());
		f = fopen(path, "r");
		CHECK(f && fread(buf, 1, sizeof(buf) - 1, f) == 4 && !strcmp(buf, "keep"),
		      "no_replace: the file was replaced");
		if (f)
			fclose(f);
		o.no_replace = false;
		w = ipt_tdw_open(path, &o);
		CHECK(w && ipt_tdw_commit(w) == 0 && access(path, F_OK) == 0, "replace: %s", ipt_errmsg());
		unlink(path);
	}

	/* not whole pages */
	w = ipt_tdw_open(path, &o);
	CHECK(w && ipt_tdw_set_cpu_data(w, 0, "abc", 3) == -1, "partial page accepted");
	ipt_tdw_abort(w);

	/* a write error during commit: file size limit (EFBIG) */
	for (cpu = 0; cpu < 4; cpu++)
		make_pages(&pages[cpu], cpu, 3000, false, 8);
	w = fill_writer(path, 7, "none", false, 8, pages, 0, fds);
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = 64 * 1024;
	setrlimit(RLIMIT_FSIZE, &lim);
	CHECK(w && ipt_tdw_commit(w) == -1, "commit past the size limit succeeded");
	setrlimit(RLIMIT_FSIZE, &old);
	CHECK(strncmp(ipt_errmsg(), path, strlen(path)) == 0 && strstr(ipt_errmsg(), "write"),
	      "msg: %s", ipt_errmsg());
	CHECK(access(path, F_OK) != 0 && count_dir() == 0, "failed commit left files (%d)",
	      count_dir());
	for (cpu = 0; cpu < 4; cpu++)
		ipt_strbuf_free(&pages[cpu]);
}

int main(void)
{
	static const char *const comps[] = { "none", "zstd", "zlib" };
	const char *base = getenv("TMPDIR");
	int i;

	snprintf(tmpdir, sizeof(tmpdir), "%s/unit_writer.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}

	test_layout();
	for (i = 0; i < 2; i++) {
		test_small_events(i);
		test_large_event(i);
		test_time_extend(i);
		test_page_fill(i, 8);
		test_page_fill(i, 4);
		test_round_trip(i, 8, 4096);
		test_round_trip(i, 4, 1024);
	}
	test_round_trip(false, 8, 65536);
	test_errors();

	test_file(6, "none", false, 8);
	test_file(6, "none", true, 4);
	for (i = 0; i < 3; i++) {
		test_file(7, comps[i], false, 8);
		test_file(7, comps[i], true, 8);
		test_file(7, comps[i], true, 4);
	}
	test_stdout();
	test_pipe();
	test_write_errors();
	test_user_symbols();
	test_cpu_roles();
	rmdir(tmpdir);
	TEST_MAIN_END();
}
