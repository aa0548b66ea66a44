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

/* the file's path: DIR/kallsyms-KEY.idx */
static int path_of(char *buf, size_t size, const char *dir, const struct ipt_symcache_key *k)
{
	int n = snprintf(buf, size, "%s/kallsyms-%016llx%016llx.idx", dir, (unsigned long long)k->h[0],
			 (unsigned long long)k->h[1]);

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

	if (!dir || !*dir || path_of(path, sizeof(path), dir, k))
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

	if (!dir || !*dir || !st->n || st->ltext || path_of(path, sizeof(path), dir, k))
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
