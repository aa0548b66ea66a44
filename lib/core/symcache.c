// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * symcache.c - kallsyms tables kept on disk, by the content of the section
 *
 * A trace.dat's kallsyms section is some 5 MB of text, zstd-compressed to
 * about 1 MB in the file.  Decompressing it (one frame) and indexing its
 * 120 k lines is most of what opening a small trace costs (7 of 20 ms on
 * busy-stacks.dat).  The same kernel's section comes back in every trace
 * recorded on it, and the same trace is reported again and again, so the
 * index is kept in a directory the caller names (ipt_open_opts), one file
 * per section: the symbols' addresses in order, their names' offsets and
 * the names, behind a header holding the section's key (a hash of its
 * compressed bytes and its length) and a hash of the rest.
 *
 * A file is an untrusted input like any other: it is used only if its
 * size, header, key and hash agree and every offset lies within the names
 * (which end with a NUL), the addresses in order; else it is ignored (and
 * written again).  Files appear whole (written aside, then renamed).  Any
 * failure to read or write a cache leaves the table as the text gives it:
 * the cache changes no answer, only the time to the first one.
 */
#include "core/core.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define SC_MAGIC "IPTKSYM1"
#define SC_VERSION 1u
#define SC_ORDER 0x01020304u	/* the byte order it was written in */
#define SC_KEEP 16		/* files kept in a directory, the newest */

struct sc_header {
	char magic[8];
	uint32_t version;
	uint32_t order;
	uint64_t key[2];
	uint64_t ulen;		/* the section's text length */
	uint64_t nsyms;
	uint64_t names_len;
	uint64_t body_hash;	/* of everything after the header */
};
_Static_assert(sizeof(struct sc_header) == 64, "the header is 64 bytes");

/* rotl64 */
static inline uint64_t rotl(uint64_t v, int k)
{
	return v << k | v >> (64 - k);
}

/*
 * hash2 - two 64-bit hashes of n bytes: four lanes, one multiply per 8
 * bytes (the cost is reading the bytes), mixed at the end; for a key and a
 * check against damage, not against someone choosing the bytes
 */
static void hash2(const void *p, size_t n, uint64_t seed, uint64_t out[2])
{
	const uint64_t m = 0x9e3779b97f4a7c15ULL;
	const unsigned char *s = p;
	uint64_t a = seed ^ 0x243f6a8885a308d3ULL, b = seed ^ 0x13198a2e03707344ULL;
	uint64_t c = seed ^ 0xa4093822299f31d0ULL, d = seed ^ 0x082efa98ec4e6c89ULL;
	size_t i = 0;
	uint64_t w[4];

	for (; i + 32 <= n; i += 32) {
		memcpy(w, s + i, 32);
		a = rotl((a ^ w[0]) * m, 29);
		b = rotl((b ^ w[1]) * m, 31);
		c = rotl((c ^ w[2]) * m, 37);
		d = rotl((d ^ w[3]) * m, 41);
	}
	for (; i < n; i++)	/* the tail, a byte at a time */
		a = rotl((a ^ s[i]) * m, 29);
	a ^= (uint64_t)n;
	out[0] = ipt_hash_combine(ipt_hash_combine(ipt_hash_combine(ipt_hash64(a), b), c), d);
	out[1] = ipt_hash_combine(ipt_hash_combine(ipt_hash_combine(ipt_hash64(d ^ 0x5bd1e995ULL), c), b), a);
}

/* body_hash - of the index after its header: its table part and its names */
static uint64_t body_hash(const void *table, size_t tlen, const void *names, size_t nlen)
{
	uint64_t a[2], b[2];

	hash2(table, tlen, SC_VERSION, a);
	hash2(names, nlen, SC_VERSION + 1, b);
	return ipt_hash_combine(a[0], b[0]);
}

void ipt_symcache_key(struct ipt_symcache_key *k, const void *z, size_t zlen, uint64_t ulen)
{
	hash2(z, zlen, ulen, k->h);
	k->ulen = ulen;
}

void ipt_symcache_key_text(struct ipt_symcache_key *k, const void *text, size_t len)
{
	/* seeded apart from the compressed sections' keys */
	hash2(text, len, (uint64_t)len ^ 0x7465787400000000ULL, k->h);
	k->ulen = len;
}

/* a file's path: DIR/kallsyms-KEY.SUFFIX (idx: the index, hot: its answers) */
static int path_of(char *buf, size_t size, const char *dir, const struct ipt_symcache_key *k,
		   const char *suffix)
{
	int n = snprintf(buf, size, "%s/kallsyms-%016llx%016llx.%s", dir, (unsigned long long)k->h[0],
			 (unsigned long long)k->h[1], suffix);

	return n > 0 && (size_t)n < size ? 0 : -1;
}

/* the layout after the header: addresses, offsets (padded to 8), names */
static bool layout(uint64_t nsyms, uint64_t names_len, uint64_t *offs_at, uint64_t *names_at, uint64_t *total)
{
	if (nsyms > (UINT64_MAX / 2) / 12 || names_len > UINT64_MAX / 4 || names_len > UINT32_MAX)
		return false;
	*offs_at = sizeof(struct sc_header) + nsyms * 8;
	*names_at = (*offs_at + nsyms * 4 + 7) & ~(uint64_t)7;
	*total = *names_at + names_len;
	return true;
}

/* identify - the header's fields that say what it is and whose */
static void identify(struct sc_header *h, const struct ipt_symcache_key *k)
{
	memcpy(h->magic, SC_MAGIC, 8);
	h->version = SC_VERSION;
	h->order = SC_ORDER;
	h->key[0] = k->h[0];
	h->key[1] = k->h[1];
	h->ulen = k->ulen;
}

size_t ipt_symcache_seal(uint8_t *file, size_t n, const struct ipt_symcache_key *k)
{
	struct sc_header h;
	uint64_t offs_at, names_at, total;

	if (n < sizeof(h))
		return 0;
	memcpy(&h, file, sizeof(h));
	if (!layout(h.nsyms, h.names_len, &offs_at, &names_at, &total) || total > n || names_at > total)
		return 0;
	identify(&h, k);
	h.body_hash = body_hash(file + sizeof(h), (size_t)(names_at - sizeof(h)), file + names_at,
				(size_t)h.names_len);
	memcpy(file, &h, sizeof(h));
	return (size_t)total;
}

/* the largest index read (a kernel's is a few MB) */
#define SC_MAX_FILE (1ll << 30)

/* read_whole - the n bytes of fd in a buffer of their own (free()), or NULL */
static uint8_t *read_whole(int fd, size_t n)
{
	uint8_t *b = ipt_malloc_table(n);	/* huge pages, however full the last */

	if (b && ipt_read_at(fd, b, n, 0)) {
		free(b);
		return NULL;
	}
	return b;
}

int ipt_symcache_read(const char *dir, const struct ipt_symcache_key *k, struct ipt_symcache_found *f)
{
	char path[4096];
	struct stat sb;
	const struct sc_header *h;
	uint64_t offs_at, names_at, total;
	const uint8_t *m;
	struct ipt_sym *sy = NULL;
	int fd;

	if (!dir || !*dir || path_of(path, sizeof(path), dir, k, "idx"))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size < (off_t)sizeof(*h) ||
	    (uint64_t)sb.st_size > SIZE_MAX / 2) {
		close(fd);
		return 0;
	}
	/* read, not mapped: into huge pages, one copy, where mapping it
	 * costs a fault (or a populated entry) for each 4 KiB of it */
	m = sb.st_size <= SC_MAX_FILE ? read_whole(fd, (size_t)sb.st_size) : NULL;
	close(fd);
	if (!m)
		return 0;
	h = (const struct sc_header *)(const void *)m;
	if (memcmp(h->magic, SC_MAGIC, 8) || h->version != SC_VERSION || h->order != SC_ORDER ||
	    h->key[0] != k->h[0] || h->key[1] != k->h[1] || h->ulen != k->ulen || !h->nsyms ||
	    !h->names_len || !layout(h->nsyms, h->names_len, &offs_at, &names_at, &total) ||
	    total != (uint64_t)sb.st_size)
		goto miss;
	if (body_hash(m + sizeof(*h), (size_t)(names_at - sizeof(*h)), m + names_at, (size_t)h->names_len) !=
	    h->body_hash || m[total - 1] != 0)
		goto miss;
	sy = ipt_malloc_big((size_t)h->nsyms * sizeof(*sy));
	if (!sy)
		goto miss;
	{
		const char *names = (const char *)m + names_at;
		uint64_t last = 0;

		for (size_t i = 0; i < h->nsyms; i++) {
			uint64_t addr;
			uint32_t off;

			memcpy(&addr, m + sizeof(*h) + i * 8, 8);
			memcpy(&off, m + offs_at + i * 4, 4);
			if (off >= h->names_len || addr < last)
				goto miss;
			last = addr;
			sy[i].addr = addr;
			sy[i].name = names + off;
		}
	}
	*f = (struct ipt_symcache_found){ sy, (size_t)h->nsyms, (void *)(uintptr_t)m };
	return 1;
miss:
	free(sy);
	free((void *)(uintptr_t)m);
	return 0;
}

/* mkdirs - dir and its parents, made where missing (mode 0700) */
static int mkdirs(const char *dir)
{
	char p[4096];
	size_t n = strlen(dir);

	if (n == 0 || n >= sizeof(p))
		return -1;
	memcpy(p, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (p[i] != '/' && p[i] != 0)
			continue;
		p[i] = 0;
		if (mkdir(p, 0700) && errno != EEXIST)
			return -1;
		p[i] = i < n ? '/' : 0;
	}
	return 0;
}

struct sc_file {
	time_t mtime;
	char name[64];
};

static int newer_first(const void *a, const void *b)
{
	const struct sc_file *x = a, *y = b;

	return x->mtime != y->mtime ? (x->mtime < y->mtime ? 1 : -1) : strcmp(x->name, y->name);
}

/* prune - at most keep files called PREFIX...SUFFIX in dir: the oldest go */
static void prune(const char *dir, const char *prefix, const char *suffix, size_t keep)
{
	size_t plen = strlen(prefix), slen = strlen(suffix);
	DIR *d = opendir(dir);
	struct dirent *e;
	struct sc_file *v = NULL;
	size_t n = 0, cap = 0;

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat sb;
		size_t len = strlen(e->d_name);

		if (strncmp(e->d_name, prefix, plen) || len < plen + slen || len >= sizeof(v->name) ||
		    strcmp(e->d_name + len - slen, suffix) || fstatat(dirfd(d), e->d_name, &sb, 0) ||
		    IPT_GROW(v, cap, n + 1))
			continue;
		v[n].mtime = sb.st_mtime;
		memcpy(v[n].name, e->d_name, len + 1);
		n++;
	}
	if (n > keep) {
		qsort(v, n, sizeof(*v), newer_first);
		for (size_t i = keep; i < n; i++)
			(void)unlinkat(dirfd(d), v[i].name, 0);
	}
	free(v);
	closedir(d);
}

/* put_file - path (in dir, made if missing) holds the parts, whole: written
 * aside, then renamed; 0 done, -1 not */
static int put_file(const char *dir, const char *path, const struct iovec *parts, int nparts)
{
	char tmp[4096 + 16];
	bool ok = true;
	int fd;

	if (mkdirs(dir) || snprintf(tmp, sizeof(tmp), "%s/.kallsyms-XXXXXX", dir) >= (int)sizeof(tmp) ||
	    (fd = mkostemp(tmp, O_CLOEXEC)) < 0)
		return -1;
	for (int i = 0; ok && i < nparts; i++)
		ok = ipt_write_all(fd, parts[i].iov_base, parts[i].iov_len) == 0;
	if (close(fd))
		ok = false;
	if (!ok || rename(tmp, path)) {
		(void)unlink(tmp);
		return -1;
	}
	return 0;
}

void ipt_symcache_store(const struct ipt_symtab *st, const char *dir, const struct ipt_symcache_key *k)
{
	char path[4096];
	const char *lo = NULL, *hi = NULL;
	struct sc_header h;
	uint64_t offs_at, names_at, total;
	uint8_t *table;
	size_t tlen;

	if (!dir || !*dir || !st->n || st->ltext || path_of(path, sizeof(path), dir, k, "idx"))
		return;
	/* the names: one block of the table's (kallsyms' are), from its
	 * lowest name to the end of its highest, written from where they are */
	for (size_t i = 0; i < st->n; i++) {
		const char *s = st->syms[i].name;

		if (!lo || s < lo)
			lo = s;
		if (!hi || s > hi)
			hi = s;
	}
	hi += strlen(hi) + 1;
	memset(&h, 0, sizeof(h));
	if ((uint64_t)(hi - lo) > 4 * (k->ulen + 64) ||
	    !layout(st->n, (uint64_t)(hi - lo), &offs_at, &names_at, &total) || total > SIZE_MAX / 2)
		return;
	/* the addresses, the offsets and the padding after them */
	tlen = (size_t)(names_at - sizeof(h));
	table = ipt_malloc(tlen);
	if (!table)
		return;
	memset(table + (offs_at - sizeof(h)), 0, tlen - (size_t)(offs_at - sizeof(h)));
	for (size_t i = 0; i < st->n; i++) {
		uint32_t off = (uint32_t)(st->syms[i].name - lo);

		memcpy(table + i * 8, &st->syms[i].addr, 8);
		memcpy(table + (offs_at - sizeof(h)) + i * 4, &off, 4);
	}
	identify(&h, k);
	h.nsyms = st->n;
	h.names_len = (uint64_t)(hi - lo);
	h.body_hash = body_hash(table, tlen, lo, (size_t)(hi - lo));
	{
		const struct iovec parts[3] = { { &h, sizeof(h) }, { table, tlen },
						{ (void *)(uintptr_t)lo, (size_t)(hi - lo) } };

		if (put_file(dir, path, parts, 3) == 0)
			prune(dir, "kallsyms-", ".idx", SC_KEEP);
	}
	free(table);
}

/* ---- a trace file's section -> the key of its content ---- */

#define REF_MAGIC "IPTKREF1"
#define REF_KEEP 256		/* refs kept in a directory, the newest */

/* a ref file: the key of the content of the section it is named after */
struct sc_ref {
	char magic[8];
	uint64_t key[2];
	uint64_t ulen;
	uint64_t check;		/* a hash of the above */
};
_Static_assert(sizeof(struct sc_ref) == 40, "a ref is 40 bytes");

static uint64_t ref_check(const struct sc_ref *r)
{
	uint64_t h[2];

	hash2(r, offsetof(struct sc_ref, check), SC_VERSION + 2, h);
	return h[0];
}

static int ref_path(char *buf, size_t size, const char *dir, const struct ipt_symcache_ref *r)
{
	int n = snprintf(buf, size, "%s/ref-%016llx%016llx", dir, (unsigned long long)r->h[0],
			 (unsigned long long)r->h[1]);

	return n > 0 && (size_t)n < size ? 0 : -1;
}

void ipt_symcache_ref_of(struct ipt_symcache_ref *r, const uint64_t file[5], uint64_t off, uint64_t len)
{
	uint64_t v[7] = { file[0], file[1], file[2], file[3], file[4], off, len };

	hash2(v, sizeof(v), SC_VERSION + 3, r->h);
}

int ipt_symcache_ref_get(const char *dir, const struct ipt_symcache_ref *r, struct ipt_symcache_key *k)
{
	char path[4096];
	struct sc_ref f;
	ssize_t got;
	int fd;

	if (!r || !dir || !*dir || ref_path(path, sizeof(path), dir, r))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	got = read(fd, &f, sizeof(f));
	close(fd);
	if (got != (ssize_t)sizeof(f) || memcmp(f.magic, REF_MAGIC, 8) || f.check != ref_check(&f))
		return 0;
	k->h[0] = f.key[0];
	k->h[1] = f.key[1];
	k->ulen = f.ulen;
	return 1;
}

void ipt_symcache_ref_put(const char *dir, const struct ipt_symcache_ref *r, const struct ipt_symcache_key *k)
{
	char path[4096];
	struct sc_ref f;

	if (!dir || !*dir || ref_path(path, sizeof(path), dir, r))
		return;
	memset(&f, 0, sizeof(f));
	memcpy(f.magic, REF_MAGIC, 8);
	f.key[0] = k->h[0];
	f.key[1] = k->h[1];
	f.ulen = k->ulen;
	f.check = ref_check(&f);
	{
		const struct iovec part = { &f, sizeof(f) };

		if (put_file(dir, path, &part, 1) == 0)
			prune(dir, "ref-", "", REF_KEEP);
	}
}

void ipt_symcache_keep(const struct ipt_symtab *st, const char *dir, const struct ipt_symcache_ref *r,
		       const struct ipt_symcache_key *k, bool known, bool index)
{
	if (index)
		ipt_symcache_store(st, dir, k);
	if (r && !known && st->n)
		ipt_symcache_ref_put(dir, r, k);
}

/* ---- the answers kept for a key: kallsyms-KEY.hot ---- */

/*
 * A report of a small trace asks a kernel's table of 120 k symbols for a
 * few hundred addresses, yet reading its index (3 MB, hashed whole) took a
 * quarter of the run.  So the answers the whole table gave are kept beside
 * it, under the same key: each as the range of addresses that finds that
 * symbol (from its address to the next symbol's, less one), and the names
 * asked for by name.  Any address within a kept range has the answer the
 * whole table would give; any other sends the lookup to the whole table,
 * whose answer is kept in turn.  The file is checked like an index (its
 * size, header, key, hash, every offset, the ranges in order and apart);
 * a file that is not sound is not used (and written again).
 */
#define SH_MAGIC "IPTKHOT1"
#define SH_VERSION 1u
#define SH_MAX_RANGES (1u << 16)	/* at most: ranges kept, */
#define SH_MAX_NAMES 4096u		/* names asked for, */
#define SH_MAX_TEXT (8u << 20)		/* and the bytes of their names */
#define SH_NONE UINT32_MAX		/* a range's name offset: no symbol */

struct sh_header {
	char magic[8];
	uint32_t version;
	uint32_t order;
	uint64_t key[2];
	uint64_t ulen;
	uint32_t nranges, nnames;
	uint32_t names_len, pad;
	uint64_t body_hash;	/* of everything after the header */
};
_Static_assert(sizeof(struct sh_header) == 64, "the header is 64 bytes");

struct sh_range {
	uint64_t lo, last;
	uint32_t name, pad;
};
_Static_assert(sizeof(struct sh_range) == 24, "a range is 24 bytes");

struct sh_name {
	uint64_t addr;
	uint32_t name, pad;
};
_Static_assert(sizeof(struct sh_name) == 16, "a name is 16 bytes");

/* hot_total - the file's length for these counts (all within their limits) */
static uint64_t hot_total(const struct sh_header *h)
{
	return sizeof(*h) + (uint64_t)h->nranges * sizeof(struct sh_range) +
	       (uint64_t)h->nnames * sizeof(struct sh_name) + h->names_len;
}

static bool hot_counts_ok(const struct sh_header *h)
{
	return h->nranges <= SH_MAX_RANGES && h->nnames <= SH_MAX_NAMES && h->names_len <= SH_MAX_TEXT;
}

static void hot_identify(struct sh_header *h, const struct ipt_symcache_key *k)
{
	memcpy(h->magic, SH_MAGIC, 8);
	h->version = SH_VERSION;
	h->order = SC_ORDER;
	h->key[0] = k->h[0];
	h->key[1] = k->h[1];
	h->ulen = k->ulen;
}

static uint64_t hot_hash(const uint8_t *body, size_t n)
{
	uint64_t a[2];

	hash2(body, n, SH_VERSION + 16, a);
	return a[0];
}

size_t ipt_symhot_seal(uint8_t *file, size_t n, const struct ipt_symcache_key *k)
{
	struct sh_header h;
	uint64_t total;

	if (n < sizeof(h))
		return 0;
	memcpy(&h, file, sizeof(h));
	if (!hot_counts_ok(&h) || (total = hot_total(&h)) > n)
		return 0;
	hot_identify(&h, k);
	h.body_hash = hot_hash(file + sizeof(h), (size_t)(total - sizeof(h)));
	memcpy(file, &h, sizeof(h));
	return (size_t)total;
}

void ipt_symhot_free(struct ipt_symhot *h)
{
	free(h->syms);
	free(h->last);
	free(h->names);
	free(h->block);
	memset(h, 0, sizeof(*h));
}

/* a name at offset off of names (len bytes, the last a NUL): a name of
 * one character or more, else NULL */
static const char *hot_name_at(const char *names, uint32_t len, uint32_t off)
{
	return off < len && names[off] ? names + off : NULL;
}

int ipt_symhot_read(const char *dir, const struct ipt_symcache_key *k, struct ipt_symhot *out)
{
	char path[4096];
	struct stat sb;
	struct sh_header h;
	struct ipt_symhot x = { 0 };
	const uint8_t *body;
	const char *names;
	uint8_t *m = NULL;
	int fd;

	memset(out, 0, sizeof(*out));
	if (!dir || !*dir || path_of(path, sizeof(path), dir, k, "hot"))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size < (off_t)sizeof(h) ||
	    sb.st_size > (off_t)(sizeof(h) + SH_MAX_RANGES * sizeof(struct sh_range) +
				 SH_MAX_NAMES * sizeof(struct sh_name) + SH_MAX_TEXT) ||
	    !(m = malloc((size_t)sb.st_size)) || ipt_read_at(fd, m, (size_t)sb.st_size, 0)) {
		close(fd);
		free(m);
		return 0;
	}
	close(fd);
	memcpy(&h, m, sizeof(h));
	if (memcmp(h.magic, SH_MAGIC, 8) || h.version != SH_VERSION || h.order != SC_ORDER ||
	    h.key[0] != k->h[0] || h.key[1] != k->h[1] || h.ulen != k->ulen || !hot_counts_ok(&h) ||
	    hot_total(&h) != (uint64_t)sb.st_size || (h.names_len && m[sb.st_size - 1] != 0) ||
	    hot_hash(m + sizeof(h), (size_t)sb.st_size - sizeof(h)) != h.body_hash)
		goto bad;
	body = m + sizeof(h);
	names = (const char *)body + (size_t)h.nranges * sizeof(struct sh_range) +
		(size_t)h.nnames * sizeof(struct sh_name);
	x.syms = malloc((h.nranges ? h.nranges : 1) * sizeof(*x.syms));
	x.last = malloc((h.nranges ? h.nranges : 1) * sizeof(*x.last));
	x.names = malloc((h.nnames ? h.nnames : 1) * sizeof(*x.names));
	if (!x.syms || !x.last || !x.names)
		goto bad;
	for (uint32_t i = 0; i < h.nranges; i++) {
		struct sh_range r;
		const char *name = NULL;

		memcpy(&r, body + (size_t)i * sizeof(r), sizeof(r));
		/* in order and apart; a name, or none */
		if (r.lo > r.last || (i && (x.last[i - 1] == UINT64_MAX || r.lo <= x.last[i - 1])) ||
		    (r.name != SH_NONE && !(name = hot_name_at(names, h.names_len, r.name))))
			goto bad;
		x.syms[i] = (struct ipt_sym){ r.lo, name };
		x.last[i] = r.last;
	}
	for (uint32_t i = 0; i < h.nnames; i++) {
		struct sh_name e;

		memcpy(&e, body + (size_t)h.nranges * sizeof(struct sh_range) + (size_t)i * sizeof(e), sizeof(e));
		if (!(x.names[i].name = hot_name_at(names, h.names_len, e.name)))
			goto bad;
		x.names[i].addr = e.addr;
	}
	x.n = h.nranges;
	x.nnames = h.nnames;
	x.block = m;
	*out = x;
	return 1;
bad:
	x.block = m;
	ipt_symhot_free(&x);
	return 0;
}

static int rec_by_lo(const void *a, const void *b)
{
	const struct ipt_symhot_rec *x = a, *y = b;

	return x->lo != y->lo ? (x->lo < y->lo ? -1 : 1) : 0;
}

/* hot_text - a name's offset among the names being written (added) */
static uint32_t hot_text(struct ipt_strbuf *sb, const char *name)
{
	uint32_t off = (uint32_t)sb->len;

	if (!name)
		return SH_NONE;
	if (sb->len + strlen(name) + 1 > SH_MAX_TEXT || ipt_strbuf_add(sb, name, strlen(name) + 1))
		return SH_NONE - 1;	/* no room: not kept */
	return off;
}

void ipt_symhot_store(const char *dir, const struct ipt_symcache_key *k, const struct ipt_symhot *h,
		      const struct ipt_symhot_rec *rec, size_t n, const struct ipt_symhot_name *names,
		      size_t nn)
{
	char path[4096];
	struct ipt_symhot_rec *all = NULL;
	struct sh_range *ranges = NULL;
	struct sh_name *byname = NULL;
	struct ipt_strbuf text = IPT_STRBUF_INIT;
	struct sh_header hd;
	size_t m = 0, nr = 0, nb = 0;

	if (!dir || !*dir || path_of(path, sizeof(path), dir, k, "hot") || n > SIZE_MAX / 2 - h->n)
		return;
	all = malloc((h->n + n ? h->n + n : 1) * sizeof(*all));
	ranges = malloc((h->n + n ? h->n + n : 1) * sizeof(*ranges));
	byname = malloc((h->nnames + nn ? h->nnames + nn : 1) * sizeof(*byname));
	if (!all || !ranges || !byname)
		goto out;
	for (size_t i = 0; i < h->n; i++)
		all[m++] = (struct ipt_symhot_rec){ h->syms[i].addr, h->last[i], h->syms[i].name };
	memcpy(all + m, rec, n * sizeof(*rec));
	m += n;
	/* in order; the same range once (all come from the one table: two
	 * ranges are the same or apart; any other is not kept) */
	qsort(all, m, sizeof(*all), rec_by_lo);
	for (size_t i = 0; i < m && nr < SH_MAX_RANGES; i++) {
		uint32_t off;

		if (all[i].lo > all[i].last ||
		    (nr && (ranges[nr - 1].last == UINT64_MAX || all[i].lo <= ranges[nr - 1].last)))
			continue;
		if ((off = hot_text(&text, all[i].name)) == SH_NONE - 1)
			break;
		ranges[nr++] = (struct sh_range){ all[i].lo, all[i].last, off, 0 };
	}
	for (size_t i = 0; i < h->nnames + nn && nb < SH_MAX_NAMES; i++) {
		const struct ipt_symhot_name *e = i < h->nnames ? &h->names[i] : &names[i - h->nnames];
		bool seen = false;
		uint32_t off;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(j < h->nnames ? h->names[j].name : names[j - h->nnames].name, e->name);
		if (seen || !*e->name)
			continue;
		if ((off = hot_text(&text, e->name)) >= SH_NONE - 1)
			break;
		byname[nb++] = (struct sh_name){ e->addr, off, 0 };
	}
	memset(&hd, 0, sizeof(hd));
	hot_identify(&hd, k);
	hd.nranges = (uint32_t)nr;
	hd.nnames = (uint32_t)nb;
	hd.names_len = (uint32_t)text.len;
	{
		size_t rlen = nr * sizeof(*ranges), blen = rlen + nb * sizeof(*byname) + text.len;
		uint8_t *body = malloc(blen ? blen : 1);

		if (!body)
			goto out;
		memcpy(body, ranges, rlen);
		memcpy(body + rlen, byname, nb * sizeof(*byname));
		if (text.len)
			memcpy(body + rlen + nb * sizeof(*byname), text.buf, text.len);
		hd.body_hash = hot_hash(body, blen);
		{
			const struct iovec parts[2] = { { &hd, sizeof(hd) }, { body, blen } };

			if (put_file(dir, path, parts, 2) == 0)
				prune(dir, "kallsyms-", ".hot", SC_KEEP);
		}
		free(body);
	}
out:
	ipt_strbuf_free(&text);
	free(all);
	free(ranges);
	free(byname);
}
