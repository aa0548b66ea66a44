/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/core.h - the model every stage shares (not installed)
 *
 * Errors, memory, string buffers, byte order, symbol tables, and the model:
 * a struct ipt_trace owns event formats parsed from format files, symbol
 * tables, and one byte stream of ring-buffer sub-buffers ("pages") per CPU.
 * Binary traces map their streams from the file (or decompress them); text
 * traces are turned into the same pages by input/text_*.c, so that every
 * later stage has a single decode path.  core/ calls no other stage.
 */
#ifndef IPT_CORE_H
#define IPT_CORE_H

#include "ipitrace-private.h"

#include <stdarg.h>
#include <string.h>

#define IPT_UNUSED __attribute__((unused))
#define IPT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- errors (error.c) ---- */
/* Set the thread's message; always returns -1. */
int ipt_err(const char *fmt, ...) IPT_PRINTF(1, 2);
/* Same, prefixed "path: offset N: " (offset < 0: no offset part). */
int ipt_err_at(const char *path, long long offset, const char *fmt, ...) IPT_PRINTF(3, 4);
/* Set the message with another code than IPT_ERR_FAILED; returns -1. */
int ipt_err_code(enum ipt_error code, const char *fmt, ...) IPT_PRINTF(2, 3);

/* ---- options structs (opts.c): the one check of .sz ---- */
/* dst (dst_size bytes) = the fields of the caller's opts this library knows
 * (opts->sz bytes of them), the rest zero; dst's sz becomes dst_size.  opts
 * NULL: all zero.  -1 (IPT_ERR_INVALID, "WHAT: ...") for a size below
 * sizeof(size_t) or a field set that this library does not know. */
int ipt_opts_copy(void *dst, size_t dst_size, const void *opts, const char *what);
#define IPT_OPTS_COPY(dst, opts, what) ipt_opts_copy(&(dst), sizeof(dst), (opts), (what))

/* ---- memory (alloc.c): abort-free wrappers that set ipt_err on failure ---- */
void *ipt_malloc(size_t n);
/* For a large buffer written at once (a decompressed section): 2 MiB pages
 * where the kernel gives them, one fault each rather than 512, if that
 * wastes at most a quarter of n; free() it. */
void *ipt_malloc_big(size_t n);
/* For a table written all over when made (a hash table's slots, a file
 * read whole): from 256 KiB on whole 2 MiB pages, however much of the
 * last is used (a few per process, each faulted in at once); free() it. */
void *ipt_malloc_table(size_t n);
/*
 * The same for a buffer freed soon (a section read once): from 1 MiB a
 * mapping of its own, so that freeing it leaves malloc's thresholds as
 * they were (glibc raises them to the size of a freed mapped chunk, and
 * later large blocks then grow by copying); ipt_free_soon(p, n) frees it.
 */
void *ipt_malloc_soon(size_t n);
void ipt_free_soon(void *p, size_t n);
/* realloc for such a buffer of old bytes (p NULL, old 0: new), one that
 * grows large: from 1 MiB grown by mremap, never copied, and from 16 MiB
 * in 2 MiB pages; ipt_free_soon(p, n) frees it */
void *ipt_realloc_soon(void *p, size_t old, size_t n);
/* bytes [from, to) of such a buffer of n bytes are not read again: the
 * whole pages among them are given back (they read as zeros after), where
 * the buffer is a mapping of its own; else nothing happens */
void ipt_soon_discard(void *p, size_t n, size_t from, size_t to);
/* ---- files and arrays beyond memory (spill.c) ---- */
/* An unnamed temporary file in dir (NULL: $TMPDIR, else /tmp); -1 and the
 * message when none can be made. */
int ipt_tmpfile(const char *dir);
/* The directory ipt_tmpfile(dir) uses. */
const char *ipt_tmpdir(const char *dir);
/* All len bytes read from fd at off: 0, or -1 with errno (0 at the end
 * of the file first), again after EINTR. */
int ipt_read_at(int fd, void *p, size_t len, uint64_t off);
/* All len bytes written to fd at off (off < 0: at its position), again
 * after EINTR; -1 with errno (ENOSPC for a write that wrote nothing). */
int ipt_write_at(int fd, const void *p, size_t len, int64_t off);
static inline int ipt_write_all(int fd, const void *p, size_t len)
{
	return ipt_write_at(fd, p, len, -1);
}
/*
 * A byte array that grows with the trace: in memory up to this size, then
 * in an unnamed temporary file ($TMPDIR, else /tmp; its blocks taken as it
 * grows, so that the disk filling is an error, not a SIGBUS) mapped
 * shared, whose pages ipt_spill_rest gives back and the kernel reads again
 * when touched.  Where no file can be made it stays in memory.  p moves
 * when it grows.  what names it in messages.
 */
#define IPT_SPILL_FILE_FROM (1u << 20)
struct ipt_spill {		/* all zero: empty, in memory */
	uint8_t *p;
	size_t cap;		/* bytes there */
	bool in_file;		/* ... in the file fd */
	bool memory_only;	/* no file could be made */
	int fd;
	const char *what;
};
/* cap at least need bytes (doubled); 0, or -1 and the message */
int ipt_spill_reserve(struct ipt_spill *s, size_t need);
/* bytes [from, to) are not needed soon: their whole pages leave memory
 * (in the file they keep their values); in memory nothing happens */
void ipt_spill_rest(struct ipt_spill *s, size_t from, size_t to);
/* bytes [from, to) are about to be written (write) or read: their pages
 * mapped in one call, not a fault each (a hint: in the file only) */
void ipt_spill_ahead(struct ipt_spill *s, size_t from, size_t to, bool write);
/* n bytes from off into buf: a sequential reader of the whole array, whose
 * pages read from the file do not stay in memory; 0, or -1 and the message */
int ipt_spill_read(const struct ipt_spill *s, size_t off, void *buf, size_t n);
void ipt_spill_free(struct ipt_spill *s);
void *ipt_calloc(size_t n, size_t size);
/* The room an array grown by doubling gets for need (from cap, else from
 * first), at most max; 0 when need is over max.  ipt_grow's rule, for the
 * arrays it cannot grow (mappings: ipt_spill). */
size_t ipt_grow_room(size_t cap, size_t need, size_t first, size_t max);
/* Zeroed memory for n objects of a type with cache-line members
 * (_Alignas(64)): aligned as the type asks, which malloc's 16 is not;
 * free() it. */
#define IPT_LINE 64
void *ipt_calloc_lines(size_t n, size_t size);
void *ipt_malloc_lines(size_t n, size_t size);	/* the same, not cleared */
void *ipt_realloc(void *p, size_t n);
char *ipt_strndup(const char *s, size_t n);
char *ipt_strdup(const char *s);

/* ipt_two_digits[2 * n], [2 * n + 1]: n (0..99) as two decimal digits */
extern const char ipt_two_digits[201];
/* The decimal digits of v written backwards so that they end at end (two
 * at a time); their start. */
static inline char *ipt_decimal(char *end, uint64_t v)
{
	while (v >= 100) {
		end -= 2;
		memcpy(end, ipt_two_digits + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, ipt_two_digits + 2 * v, 2);
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

/* The number of decimal digits of v (1 for 0) */
static inline unsigned int ipt_decimal_len(uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
		10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL, 1000000000000000000ULL, 10000000000000000000ULL,
	};
	/* log10 from the bit length (1233 / 4096 ~ log10(2)), then one compare */
	unsigned int t = ((64 - (unsigned int)__builtin_clzll(v | 1)) * 1233) >> 12;

	return t - (v < pow10[t]) + 1 + (v == 0);
}

/* The decimal digits of v written at p, in place (no copy); the end */
static inline char *ipt_put_decimal(char *p, uint64_t v)
{
	char *end = p + ipt_decimal_len(v);

	ipt_decimal(end, v);
	return end;
}

/* The bits set in x: one instruction where the build's target has POPCNT,
 * else a few shifts and a multiply inline (not libgcc's call per word). */
static inline unsigned int ipt_popcount64(uint64_t x)
{
#if defined(__POPCNT__) || !defined(__x86_64__)
	return (unsigned int)__builtin_popcountll(x);
#else
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned int)((x * 0x0101010101010101ull) >> 56);
#endif
}

/* The value of a hex digit, -1 for any other character. */
static inline int ipt_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* ---- byte order ---- */
static inline uint64_t ipt_get_uint(const uint8_t *p, unsigned int size, bool be)
{
	uint64_t v = 0;
	unsigned int i;

	if (!be) {
		switch (size) {
		case 1: return p[0];
		case 2: { uint16_t x; memcpy(&x, p, 2); return x; }
		case 4: { uint32_t x; memcpy(&x, p, 4); return x; }
		case 8: { uint64_t x; memcpy(&x, p, 8); return x; }
		}
		for (i = 0; i < size && i < 8; i++)
			v |= (uint64_t)p[i] << (8 * i);
		return v;
	}
	for (i = 0; i < size && i < 8; i++)
		v = (v << 8) | p[i];
	return v;
}

static inline void ipt_put_uint(uint8_t *p, unsigned int size, bool be, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < size; i++) {
		unsigned int shift = be ? 8 * (size - 1 - i) : 8 * i;

		p[i] = shift < 64 ? (uint8_t)(v >> shift) : 0;
	}
}

/* ---- event formats (format.c) ---- */
struct ipt_field {
	char *name;
	char *type;		/* type text as in the file: "__data_loc cpumask_t" */
	unsigned int offset;
	unsigned int size;
	unsigned int flags;	/* enum ipt_field_flags */
	unsigned int elem_size;	/* arrays: bytes per element (else = size) */
	unsigned int nelem;	/* fixed arrays: element count */
};

/* ipt_field_u64's rule (model.c), inline for the paths that read fields
 * of every record: 0 and *val, or -1 if the field lies outside r */
static inline int ipt_field_u64_of(bool be, const struct ipt_record *r, const struct ipt_field *f,
				   uint64_t *val)
{
	unsigned int size = f->flags & (IPT_FIELD_DYNAMIC | IPT_FIELD_ARRAY) ? 4 : f->size;
	uint64_t v;

	/* the dynamic word itself, or the first element: 4 bytes */
	if (size > 8 || size == 0 || (uint64_t)f->offset + size > r->size)
		return -1;
	v = ipt_get_uint(r->data + f->offset, size, be);
	if ((f->flags & IPT_FIELD_SIGNED) && size < 8 && (v >> (8 * size - 1)) & 1)
		v |= ~0ULL << (8 * size);
	*val = v;
	return 0;
}

/*
 * A dynamic probe the recorder defined in place of a missing send event
 * (IPT_OPTION_PROBES): what its records stand for.
 */
enum ipt_probe_role {
	IPT_PROBE_NONE = 0,
	IPT_PROBE_SEND,		/* a send with its own call site, no callback (reschedule) */
	IPT_PROBE_SEND_CALL,	/* a function-call send: call site and function from the
				 * caller probe just before it on the same CPU */
	IPT_PROBE_QUEUE,	/* caller: a call queued for one CPU (cpu, callsite, flags, func) */
	IPT_PROBE_MANY,		/* caller: calls for a mask of CPUs (callsite, func) */
};

struct ipt_event {
	int id;
	char *system;
	char *name;
	/* a probe (IPT_OPTION_PROBES): the generic event it stands for
	 * ("ipi_send_cpu", "ipi_send_cpumask"; static text) and its role */
	const char *as_name;
	enum ipt_probe_role probe;
	struct ipt_field *fields;
	int nfields;
	char *field_text;	/* the fields' names and types, one allocation */
	char *print_fmt;	/* text after "print fmt: " */
	const struct ipt_field *f_pid;	/* common_pid */
	const struct ipt_field **dyn;	/* __data_loc/__rel_loc fields, checked per record */
	int ndyn;
};

/* Free an event's members (the struct itself belongs to its array). */
void ipt_event_release(struct ipt_event *ev);

/* Ring-buffer layout taken from events/header_page. */
struct ipt_page_layout {
	unsigned int ts_off, ts_size;
	unsigned int commit_off, commit_size;
	unsigned int data_off;
	unsigned int page_size;	/* sub-buffer size, header included */
};
/* The kernel's standard layout (page 4096, ts 0/8, commit 8/long, data after). */
static inline void ipt_page_layout_default(struct ipt_page_layout *pl, unsigned int page_size,
					   int kernel_long_size)
{
	unsigned int ls = kernel_long_size == 4 ? 4 : 8;

	pl->ts_off = 0;
	pl->ts_size = 8;
	pl->commit_off = 8;
	pl->commit_size = ls;
	pl->data_off = 8 + ls;
	pl->page_size = page_size ? page_size : 4096;
}

/* ---- symbols (symbols.c) ---- */
struct ipt_sym {
	uint64_t addr;
	const char *name;	/* into the owning table's string storage */
};
struct ipt_symcache_ref;
/* the key of a kallsyms section: a hash of its bytes as stored and its
 * text's length (symcache.c) */
struct ipt_symcache_key {
	uint64_t h[2];
	uint64_t ulen;
};
/*
 * The answers a kallsyms table gave, kept beside its index (symcache.c):
 * for each range of addresses [syms[i].addr, last[i]], the symbol every
 * address in it finds (syms[i].name; NULL: none, below the first), and the
 * addresses of names asked for (0: no symbol of that name).
 */
struct ipt_symhot_name {
	const char *name;
	uint64_t addr;
};
struct ipt_symhot {
	struct ipt_sym *syms;
	uint64_t *last;
	size_t n;
	struct ipt_symhot_name *names;
	size_t nnames;
	void *block;		/* the file's bytes, the names among them */
};
/* an answer of the whole table, to be kept: the range [lo, last] finds
 * the symbol called name (NULL: none) */
struct ipt_symhot_rec {
	uint64_t lo, last;
	const char *name;
};
struct ipt_symtab {
	struct ipt_sym *syms;	/* sorted by address */
	size_t n, cap;
	char *strings;		/* storage the names point into (may be NULL) */
	char **extra;		/* additionally owned strings */
	size_t nextra, extracap;
	/* deferred kallsyms (ipt_symtab_defer_kallsyms): the text is borrowed
	 * until the first lookup reads it */
	const char *ltext;
	size_t llen;
	int lstate;		/* 0: none or read, 1: pending (atomic) */
	char *lcache;		/* where its index may be kept (or NULL) */
	uint64_t lref[2];	/* ... and where the text lies (lref_ok) */
	bool lref_ok;
	struct ipt_sym_byname *byname;	/* by-name answers, remembered */
	size_t nbyname, capbyname;
	uint64_t byname_gen;		/* ... for the symbols of this gen */
	uint64_t gen;		/* changes with the symbols (unique in the process;
				 * 0: none yet): the key of remembered lookups */
	void *cache_block;	/* an index file's bytes the names point into (symcache.c) */
	/* ... or a compressed section's (ipt_symtab_defer_fill), read by
	 * lfill at the first lookup that needs the whole table */
	int (*lfill)(void *arg, struct ipt_symtab *st);
	void *lfill_arg;
	/* the kallsyms key of a deferred table, once known (hkey_ok), and
	 * the answers kept for it in hdir: read at the first lookup, asked
	 * first while the table is the key's alone (gen == hot_gen, atomic);
	 * the whole table's answers (hrec, hbyname) kept when it is freed */
	struct ipt_symcache_key hkey;
	bool hkey_ok;
	char *hdir;
	int hstate;			/* 0: not read yet, 1: read (atomic) */
	uint64_t hot_gen;
	struct ipt_symhot hot;
	struct ipt_symhot_rec *hrec;
	size_t nhrec, caphrec;
	struct ipt_symhot_name *hbyname;	/* names owned */
	size_t nhbyname, caphbyname;
};
/* Parse /proc/kallsyms text ("addr type name [module]"): the names are
 * copied, the text is not kept. */
int ipt_symtab_load_kallsyms(struct ipt_symtab *st, const char *text, size_t len);
/* The same from a buffer of the caller's that is not read again (then
 * freed): its memory is given back as it is read. */
int ipt_symtab_take_kallsyms(struct ipt_symtab *st, char *text, size_t len);
/*
 * The same, deferred: text must stay as it is until the first lookup,
 * which reads it (sorted only if the text is not).  A table with symbols
 * already, or a second text, is loaded (and sorted) at once.
 */
int ipt_symtab_defer_kallsyms(struct ipt_symtab *st, const char *text, size_t len);
/* A deferred text's index may be kept in dir (symcache.c): looked for
 * there at the first lookup, by ref (where the text lies in its file, or
 * NULL) else by the text's content, and written there after the text is
 * read.  Nothing for a table that is not deferred. */
void ipt_symtab_defer_cache(struct ipt_symtab *st, const char *dir, const struct ipt_symcache_ref *ref);
/*
 * A kallsyms section that is compressed, deferred: its key k is known
 * (from a ref), so that its index in dir is read at the first lookup that
 * needs the whole table, or, where there is none, fill(arg, st) fills st
 * (with ipt_symtab_take_kallsyms or ipt_symtab_load_kallsyms) and the index
 * is written.  An empty table only; 0, or -1 (out of memory: not deferred).
 */
int ipt_symtab_defer_fill(struct ipt_symtab *st, const char *dir, const struct ipt_symcache_key *k,
			  int (*fill)(void *arg, struct ipt_symtab *st), void *arg);
/* A table just filled with the kallsyms of key k alone (read, not
 * deferred): the answers it gives are kept in dir when it is freed. */
void ipt_symtab_keep_answers(struct ipt_symtab *st, const char *dir, const struct ipt_symcache_key *k);
/* A deferred table read now (the text no longer needed). */
int ipt_symtab_materialize(struct ipt_symtab *st);
/* The name of s, a symbol of st. */
const char *ipt_symtab_name(const struct ipt_symtab *st, const struct ipt_sym *s);
/* The address of the symbol called name (the lowest of several), or 0. */
uint64_t ipt_symtab_addr_of(const struct ipt_symtab *st, const char *name);
/* Parse printk_formats text ("0xaddr : \"string\""). */
int ipt_symtab_load_printk(struct ipt_symtab *st, const char *text, size_t len);
/* Add one symbol (the name is copied). */
int ipt_symtab_add(struct ipt_symtab *st, uint64_t addr, const char *name, size_t len);
int ipt_symtab_sort(struct ipt_symtab *st);
const struct ipt_sym *ipt_symtab_lookup(const struct ipt_symtab *st, uint64_t addr);	/* <= addr */
const struct ipt_sym *ipt_symtab_exact(const struct ipt_symtab *st, uint64_t addr);
void ipt_symtab_free(struct ipt_symtab *st);
/* An empty table takes syms (n of them, in order; its own now) whose
 * names lie in block, which it frees with them. */
void ipt_symtab_adopt(struct ipt_symtab *st, struct ipt_sym *syms, size_t n, void *block);

/* kallsyms tables kept on disk (symcache.c): the key of a kallsyms
 * section (the hash of its bytes as stored and its text's length) is
 * struct ipt_symcache_key, above */
void ipt_symcache_key(struct ipt_symcache_key *k, const void *z, size_t zlen, uint64_t ulen);
/* ... of a section stored as text (not compressed): its len bytes */
void ipt_symcache_key_text(struct ipt_symcache_key *k, const void *text, size_t len);
/* 1: f holds the symbols kept in dir under k (for ipt_symtab_adopt); 0:
 * none there (or a file that is not whole and sound) */
struct ipt_symcache_found {
	struct ipt_sym *syms;
	size_t n;
	void *block;		/* the file's bytes, the names among them */
};
int ipt_symcache_read(const char *dir, const struct ipt_symcache_key *k, struct ipt_symcache_found *f);
/* 1: the empty table st now holds the symbols kept in dir under k
 * (symbols.c); 0: none there, or st not empty: st unchanged */
int ipt_symtab_load_index(struct ipt_symtab *st, const char *dir, const struct ipt_symcache_key *k);
/* st's symbols kept in dir under k (made with its parents, mode 0700),
 * the oldest files beyond 16 removed; st must hold one kallsyms text's
 * symbols only (read into an empty table).  Failures are silent. */
void ipt_symcache_store(const struct ipt_symtab *st, const char *dir, const struct ipt_symcache_key *k);
/*
 * Where a trace file's kallsyms section lies, as its file system tells
 * files apart: the file's device, inode, size and its modification and
 * change times (file[5]; any write changes the last), the section's offset
 * and length.  A ref file in the directory holds the key of the content
 * found there, so that a trace reported again finds its index without
 * reading the section.  Refs are for files changed at least 2 s before
 * (the caller's test): later changes then show in the change time.
 */
struct ipt_symcache_ref {
	uint64_t h[2];
};
void ipt_symcache_ref_of(struct ipt_symcache_ref *r, const uint64_t file[5], uint64_t off, uint64_t len);
/* 1: k is the key kept in dir for r; 0: none (r NULL, or a file that is
 * not sound) */
int ipt_symcache_ref_get(const char *dir, const struct ipt_symcache_ref *r, struct ipt_symcache_key *k);
/* k kept in dir for r (the oldest refs beyond 256 removed); silent */
void ipt_symcache_ref_put(const char *dir, const struct ipt_symcache_ref *r, const struct ipt_symcache_key *k);
/* After a kallsyms table st was filled under key k (known: k came from
 * r): its index written (index: st was read from the text) and, unless
 * known, r kept for k (r may be NULL). */
void ipt_symcache_keep(const struct ipt_symtab *st, const char *dir, const struct ipt_symcache_ref *r,
		       const struct ipt_symcache_key *k, bool known, bool index);
/*
 * The answers kept for key k in dir (the kallsyms-KEY.hot file), read
 * into h: 1; 0: none there (or a file that is not whole and sound: h
 * empty).  ipt_symhot_store: h's answers and n more (rec), nn more names
 * (names), written there whole (at most 16 such files kept); silent.
 */
int ipt_symhot_read(const char *dir, const struct ipt_symcache_key *k, struct ipt_symhot *h);
void ipt_symhot_store(const char *dir, const struct ipt_symcache_key *k, const struct ipt_symhot *h,
		      const struct ipt_symhot_rec *rec, size_t n, const struct ipt_symhot_name *names,
		      size_t nn);
void ipt_symhot_free(struct ipt_symhot *h);
/* For the fuzzer: the first n bytes of file made a hot file of key k (its
 * counts kept, its key and hash set); its length then, 0 if they do not
 * fit in n. */
size_t ipt_symhot_seal(uint8_t *file, size_t n, const struct ipt_symcache_key *k);
/* For the fuzzer: the first n bytes of file made an index of key k in all
 * but their table (its header's counts kept, its key and body hash set);
 * the length it then has, 0 if its counts do not fit in n. */
size_t ipt_symcache_seal(uint8_t *file, size_t n, const struct ipt_symcache_key *k);

/* pid -> comm */
struct ipt_comms {
	struct ipt_hmap map;	/* of struct ipt_comm (symbols.c) */
	char **old;		/* names replaced: a name given out stays valid
				 * until the trace is closed */
	size_t nold, capold;
	char *loaded;		/* the names of ipt_comms_load_cmdlines, one block */
};
int ipt_comms_set(struct ipt_comms *c, int pid, const char *name, size_t len);
const char *ipt_comms_get(const struct ipt_comms *c, int pid);
int ipt_comms_load_cmdlines(struct ipt_comms *c, const char *text, size_t len);
void ipt_comms_free(struct ipt_comms *c);

/* ---- the trace ---- */
/*
 * The pages of one CPU: either flat bytes (mapped from the file, or owned
 * after being built or decompressed), or v7 compressed chunks (a count, then
 * per chunk: compressed size, uncompressed size, data) that readers walk and
 * decompress one at a time, so memory stays constant however many there are.
 */
struct ipt_cpu_stream {
	int cpu;
	int buffer;		/* index into the trace's buffers (0: the top buffer) */
	const uint8_t *data;	/* flat pages, or NULL when chunked */
	uint64_t size;		/* flat size, or total uncompressed size */
	uint64_t file_offset;	/* where the data starts in the file */
	uint8_t *owned;		/* set if data is owned by the stream */
	bool chunked;		/* data is compressed chunks */
	uint64_t chunk_off;	/* file offset of the first chunk header */
	uint32_t nchunks;	/* chunks (validated when the file was opened) */
};

/* dl.c: dlopen soname and find names[0..n) into syms; -1 with why (not
 * ipt_err: the caller says it its way) when the library or a name is not
 * there */
int ipt_dl_open(const char *soname, const char *const *names, void **syms, size_t n, char *why, size_t whylen);

/* compress.c: decompress exactly dlen bytes; errors name path and offset. */
int ipt_decompress(const char *algo, const uint8_t *src, size_t slen, uint8_t *dst,
		   size_t dlen, const char *path, long long off);
/* ipt_compression_supported: public (ipitrace.h) */

/*
 * Data that a later stage keeps with a trace (a cache built on first use):
 * the model knows only how to release it, so that core/ calls no stage
 * above it.  Set once, under the owner's own lock.
 */
enum ipt_trace_slot_id {
	IPT_SLOT_PRINTFMT,		/* render/printfmt_*.c: programs per event */
	IPT_SLOT__COUNT
};
struct ipt_trace_slot {
	void *data;
	void (*release)(void *data);
};

struct ipt_trace {
	char *path;
	enum ipt_input_kind kind;
	int version;		/* 6 or 7; 0 for text */
	bool big_endian;
	int long_size;		/* user-space long size from the file */
	int kernel_long_size;	/* from header_page commit size */
	uint32_t page_size;
	char *compression;	/* "none", "zstd", "zlib" */

	const uint8_t *map;	/* the whole file, mmap()ed (or NULL) */
	size_t map_size;
	int fd;			/* the same file, for pread (-1 none) */

	struct ipt_page_layout layout;

	struct ipt_event *events;	/* all event formats */
	int nevents;
	size_t capevents;
	struct ipt_event **by_id;	/* index by id (NULL holes) */
	int max_id;

	struct ipt_symtab ksyms;
	struct ipt_symtab printk;
	struct ipt_comms comms;

	char *clock;
	char *uname;
	char *tc_version;
	char **cpustat;		/* per cpu, may be NULL */
	int ncpustat;
	size_t capcpustat;
	int cpucount;		/* CPUCOUNT option (0 if absent) */

	struct ipt_cpu_stream *streams;	/* of every buffer, in the order they were added */
	int nstreams;
	size_t capstreams;
	char **buffers;		/* buffer names: [0] "" (the top buffer), then instances */
	int nbuffers;
	size_t capbuffers;

	char *scratch;		/* misc owned text */
	int64_t entries_in_buffer, entries_written;	/* tracefs text header, -1 if none */
	bool text_stack_offsets;	/* a text's stack lines gave offsets (sym+0xoff) */
	uint32_t tsc_mult, tsc_shift;	/* TSC2NSEC: ns = (cycles * mult) >> shift; mult 0: none */
	uint64_t lines_skipped;	/* text: lines that were no event, header or known mark */
	long long first_skipped;	/* ... the offset of the first, -1 none */
	char *isolated_text;	/* private option: "isolated=LIST\nnohz_full=LIST\n..." (the roles) */
	char *provenance_text;	/* private option: "key=value\n" lines (how it was recorded) */
	char *interrupts_text;	/* private option: /proc/interrupts at four points */
	char *probes_text;	/* private option: the dynamic probes and what they stand for */
	int64_t probes_missed;	/* their hits the kernel missed (-1: not known) */
	struct ipt_irq_table *irq;	/* ... parsed on first use (interrupts.c) */
	struct ipt_usyms *usyms;	/* private option: user-space symbols (usyms.c) */

	/* data of later stages kept with the trace, released by ipt_trace_close */
	struct ipt_trace_slot slots[IPT_SLOT__COUNT];

	/* the metadata texts as stored in the file, for rewriting (explode) */
	struct ipt_strbuf raw_header_page, raw_header_event;
	struct ipt_strbuf raw_printk, raw_cmdlines;
	/* ... the kallsyms text: a view of the file (kallsyms_text), else its
	 * compressed section there (kallsyms_z: the text is not kept, see
	 * ipt_trace_kallsyms_text), or a copy (raw_kallsyms) */
	const char *kallsyms_text;
	size_t kallsyms_len;
	const uint8_t *kallsyms_z;
	size_t kallsyms_zlen, kallsyms_ulen;
	long long kallsyms_zoff;
	struct ipt_strbuf raw_kallsyms;
	/* while it is opened: the directory of kept kallsyms indexes
	 * (ipt_open_opts.symbol_cache; the caller's, NULL: none) */
	const char *symcache_dir;
	/* the file's identity for symcache refs: device, inode, size,
	 * modification and change times (ns); file_ident_ok where it is a
	 * file of its own, changed at least 2 s before it was opened */
	uint64_t file_ident[5];
	bool file_ident_ok;
	struct ipt_raw_format *raw_formats;
	int nraw_formats;
	size_t capraw_formats;
	/* ... the ftrace and event formats sections where they were
	 * compressed: kept decompressed (ipt_malloc_soon), raw_formats point
	 * into them */
	uint8_t *formats_sections[2];
	size_t formats_sections_len[2];
};

/* a field's value; 0 without the field (f NULL) or outside r */
static inline uint64_t ipt_field_val(const struct ipt_trace *t, const struct ipt_record *r,
				     const struct ipt_field *f)
{
	uint64_t v = 0;

	if (f && ipt_field_u64_of(t->big_endian, r, f, &v))
		v = 0;
	return v;
}

/*
 * Bytes of a trace's file read into a private buffer (filewin.c), for data
 * read once in order that would otherwise stay mapped: see there.
 */
struct ipt_file_window {
	uint8_t *buf;
	size_t cap;
	uint64_t off;		/* file offset of buf[0] */
	size_t len;		/* bytes of the file in buf */
};
/* n bytes of t's file at off, valid until the next call on w; NULL with a
 * message naming what, the file and the offset when they lie past its end
 * or cannot be read. */
const uint8_t *ipt_file_window_get(const struct ipt_trace *t, struct ipt_file_window *w,
				   uint64_t off, size_t n, const char *what);
void ipt_file_window_release(struct ipt_file_window *w);

/* A format file text as stored in a trace.dat: a view, not a copy (of the
 * mapped file, or of the trace's formats_sections). */
struct ipt_raw_format {
	const char *system;	/* "ftrace" for the ftrace formats */
	const char *text;
	size_t len;
};
int ipt_trace_keep_format(struct ipt_trace *t, const char *system, const char *text, size_t len);
/* The kallsyms text as stored, for rewriting; decompressed into tmp (to be
 * freed) when only its compressed section is kept. */
int ipt_trace_kallsyms_text(const struct ipt_trace *t, struct ipt_strbuf *tmp, const char **text, size_t *len);

/* Allocate an empty trace with defaults (little endian, 8-byte long). */
struct ipt_trace *ipt_trace_alloc(const char *path);
/* Add a parsed event (takes ownership of its members).  -1 on error. */
int ipt_trace_add_event(struct ipt_trace *t, struct ipt_event *ev);
/* Build by_id and other indexes once every event is added. */
int ipt_trace_finish_events(struct ipt_trace *t);
/* Add an empty stream for cpu of the top buffer; returns it (valid until the
 * next stream is added), NULL on error. */
struct ipt_cpu_stream *ipt_trace_add_stream(struct ipt_trace *t, int cpu);
/* The same for buffer (an index from ipt_trace_add_buffer). */
struct ipt_cpu_stream *ipt_trace_add_buffer_stream(struct ipt_trace *t, int buffer, int cpu);
/* The index of the buffer named name ("" the top one), added if new; -1 on error. */
int ipt_trace_add_buffer(struct ipt_trace *t, const char *name, size_t len);

/* TSC cycles to ns with the file's TSC2NSEC factors, as trace-cmd computes it */
static inline uint64_t ipt_tsc_to_ns(const struct ipt_trace *t, uint64_t ts)
{
	uint64_t lo = (uint32_t)ts, hi = ts >> 32, ns;

	ns = (lo * t->tsc_mult) >> t->tsc_shift;
	if (hi)
		ns += (hi * t->tsc_mult) << (32 - t->tsc_shift);
	return ns;
}

/*
 * ipitrace's private trace.dat options (trace-cmd skips ids it does not
 * know), NUL-terminated texts:
 *   CPU_ISOLATION  the roles of the machine's CPUs: "isolated=LIST\nnohz_full=LIST\n"
 *                  then isolcpus_flags=, isolcpus=, rcu_nocbs=, online=, possible=
 *   PROVENANCE     how it was recorded: "key=value\n" lines (no newline in a value)
 *   INTERRUPTS     /proc/interrupts at each ipt_irq_point: "@NAME\n" then the
 *                  file's text, for each point stored
 */
#define IPT_OPTION_CPU_ISOLATION	64
#define IPT_OPTION_PROVENANCE		65
#define IPT_OPTION_INTERRUPTS		66
/*
 *   USER_SYMBOLS   the user stacks' addresses as `record --user-stacks`
 *                  resolved them, one line each:
 *                    "p TGID STATE" a process: maps (read while it ran), gone
 *                                   (it exited first), denied (not readable)
 *                    "a TGID ADDR OFF MODULE FUNCTION" an address (hex), its
 *                                   offset in FUNCTION (hex), the file it is
 *                                   in; "-" for an unknown module or function
 *                    "n TGID ADDR"  after its "a" line: the function keeps no
 *                                   frame pointer at that address (its
 *                                   unwind information says so), so the
 *                                   frame-pointer walk lost its caller
 */
#define IPT_OPTION_USER_SYMBOLS		68

/* A user-space frame in a report's stacks: IPT_UFRAME_TAG | the index of its
 * (process, address) entry (no kernel address has these top bits: they are
 * not canonical on x86_64 or arm64); IPT_UFRAME_CUT closes a user stack
 * that does not reach the program's entry (no frame pointers, or the
 * kernel's 8-frame limit); IPT_UFRAME_SKIP follows a frame whose function
 * keeps no frame pointer: its caller is missing. */
#define IPT_UFRAME_TAG_MASK	0xff00000000000000ULL
#define IPT_UFRAME_TAG		0xfe00000000000000ULL
#define IPT_UFRAME_MAX		0x00fffffffffffffdULL
#define IPT_UFRAME_CUT		(IPT_UFRAME_TAG | 0x00ffffffffffffffULL)
#define IPT_UFRAME_CUT_NAME	"[user stack cut short]"
#define IPT_UFRAME_SKIP		(IPT_UFRAME_TAG | 0x00fffffffffffffeULL)
#define IPT_UFRAME_SKIP_NAME	"[a caller is missing: the function before keeps no frame pointer]"
/* Whether user frame token frame (IPT_UFRAME_TAG | index) is at an address
 * where its function keeps no frame pointer. */
bool ipt_usym_nofp(const struct ipt_trace *t, uint64_t frame);
struct ipt_usyms;
void ipt_usyms_free(struct ipt_usyms *u);
/* Parse the option's data (size bytes, from file offset at) into t->usyms. */
int ipt_usyms_parse(struct ipt_trace *t, const uint8_t *d, uint32_t size, long long at);
/* The option's text as stored (NULL if none). */
const char *ipt_usyms_text(const struct ipt_trace *t);
/* The frame for addr of process tgid: its token if stored, else addr. */
uint64_t ipt_usym_token(const struct ipt_trace *t, int32_t tgid, uint64_t addr);
/* The token of the first process's entry at the same file, function and
 * offset as frame's (frame itself when not a token, or not named). */
uint64_t ipt_usym_canonical(const struct ipt_trace *t, uint64_t frame);
/* The function of a user frame token, *offset set; NULL if none or unknown. */
const char *ipt_usym_name(const struct ipt_trace *t, uint64_t frame, uint64_t *offset);
/*   PROBES         the kprobe events record defined where the kernel lacks the
 *                  generic send events, one line each:
 *                  "SYSTEM:NAME STANDS_FOR ROLE FUNCTION\n", STANDS_FOR
 *                  ipi:ipi_send_cpu, ipi:ipi_send_cpumask or "-" (a caller),
 *                  ROLE send, send_call, queue or many (enum ipt_probe_role) */
#define IPT_OPTION_PROBES		67
/* Apply t->probes_text to the events it names (after loading). */
int ipt_trace_apply_probes(struct ipt_trace *t);
/* The value of key in "key=value\n" text: its start, *len its length; NULL if absent. */
const char *ipt_kv_find(const char *text, const char *key, size_t *len);
struct ipt_irq_table;
void ipt_irq_table_free(struct ipt_irq_table *tab);
/* Its text, as ipt_trace_cpu_isolation() reads it. */
int ipt_cpu_isolation_format(const struct ipt_cpuset *isolated, const struct ipt_cpuset *nohz_full,
			     struct ipt_strbuf *out);
/* One more "key=LIST\n" line of it (the roles of ipt_trace_cpu_role). */
int ipt_cpu_role_format(const char *key, const struct ipt_cpuset *set, struct ipt_strbuf *out);

#endif /* IPT_CORE_H */
