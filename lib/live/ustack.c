// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ustack.c - the senders' user stacks for `record --user-stacks`.
 *
 * With the instance's userstacktrace option the kernel writes, after each
 * event in task context, an ftrace user_stack record: the process (tgid)
 * and up to 8 user addresses, found by following frame pointers.  They
 * mean something only with the process's maps, which are gone once it
 * exits, so while recording a thread (on the recorder's housekeeping
 * CPUs, sleeping between looks: it never waits on a ring buffer) reads the
 * pages the readers captured so far, and reads /proc/TGID/maps the first
 * time a process shows up.  At the end each address is resolved with
 * elfutils (libdwfl) against the maps kept and the files they name, and
 * the result goes into the file (IPT_OPTION_USER_SYMBOLS), so that reports
 * work offline.
 *
 * Built with -DIPT_HAVE_DW when libdw is there; without, starting says so.
 * libdw itself is opened when the user stacks start, not at every exec
 * (see dw_load).
 */
#include "core/core.h"
#include "input/input.h"
#include "live/live.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef IPT_HAVE_DW
#include <dwarf.h>
#include <elfutils/libdwfl.h>

/*
 * libdw is opened with dlopen when the user stacks start, not linked: the
 * dynamic loader took 0.7 ms at every exec to load it and the libraries
 * it needs (liblzma, libbz2), for the one option that uses it, where a
 * `report` of a small trace starts in 20 ms.  The functions used, called
 * through dw (same names, same types):
 */
#define DW_FUNCS(X)							\
	X(dwfl_begin) X(dwfl_end) X(dwfl_report_begin) X(dwfl_report_end)	\
	X(dwfl_linux_proc_maps_report) X(dwfl_linux_proc_find_elf)		\
	X(dwfl_standard_find_debuginfo) X(dwfl_addrmodule) X(dwfl_module_info)	\
	X(dwfl_module_addrinfo) X(dwfl_module_eh_cfi) X(dwfl_module_dwarf_cfi)	\
	X(dwarf_cfi_addrframe) X(dwarf_frame_cfa)
#define DW_MEMBER(f) __typeof__(f) *f;
static struct {
	DW_FUNCS(DW_MEMBER)
} dw;
static bool dw_loaded;
static char dw_error[256];
static pthread_once_t dw_once = PTHREAD_ONCE_INIT;
static char *debuginfo_path;
static Dwfl_Callbacks dwfl_cbs = { .debuginfo_path = &debuginfo_path };	/* its functions: dw_load */

static void dw_load_once(void)
{
#define DW_NAME(f) #f,
	static const char *const names[] = { DW_FUNCS(DW_NAME) };
	void *syms[sizeof(names) / sizeof(names[0])];
	size_t i = 0;

	/* the soname of Debian's libdw1 (elfutils) */
	if (ipt_dl_open("libdw.so.1", names, syms, sizeof(names) / sizeof(names[0]), dw_error, sizeof(dw_error)))
		return;
#define DW_SET(f) dw.f = (__typeof__(f) *)syms[i++];
	DW_FUNCS(DW_SET)
	dwfl_cbs.find_elf = dw.dwfl_linux_proc_find_elf;
	dwfl_cbs.find_debuginfo = dw.dwfl_standard_find_debuginfo;
	dw_loaded = true;
}

/* dw_load - libdw's functions in dw (once; any thread), or -1 saying why not */
static int dw_load(void)
{
	if (pthread_once(&dw_once, dw_load_once) || !dw_loaded)
		return ipt_err_code(IPT_ERR_UNAVAILABLE, "user stacks: elfutils' libdw, which resolves them, "
				    "cannot be loaded: %s (Debian package libdw1)", *dw_error ? dw_error : "?");
	return 0;
}
#endif

#define SCAN_MS 50

struct uproc {
	int32_t tgid;
	enum ipt_uproc_state state;
	char *maps;
	size_t maps_len;
};

struct uaddr {
	uint64_t tag;			/* the hash map's (ipt_hmap) */
	int32_t tgid;
	bool ret;			/* seen as a return address (not the leaf) */
	uint64_t addr;
};

struct ipt_ustacks {
	struct ipt_capture *cap;
	struct ipt_page_layout layout;
	bool big_endian;
	int long_size;
	uint16_t id;			/* user_stack's common_type */
	unsigned int tgid_off, tgid_size, caller_off, ncaller, flags_off;
	uint64_t *off;			/* per capture slot: bytes scanned */
	uint8_t *buf;
	size_t chunk;
	struct uproc *proc;
	size_t nproc, capproc;
	struct ipt_hmap addr;		/* of struct uaddr */
	uint64_t records, in_irq;
	bool nomem;
	/* the thread */
	pthread_t thread;
	bool running;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;			/* under lock */
};

struct uaddr_key {
	int32_t tgid;
	uint64_t addr;
};

static bool uaddr_eq(const void *entry, const void *key)
{
	const struct uaddr *e = entry;
	const struct uaddr_key *k = key;

	return e->tgid == k->tgid && e->addr == k->addr;
}

static int addr_add(struct ipt_ustacks *u, int32_t tgid, uint64_t a, bool ret)
{
	struct uaddr_key k = { tgid, a };
	uint64_t tag = ipt_hmap_tag(ipt_hash_combine(ipt_hash64(a), (uint64_t)(uint32_t)tgid));
	bool added;
	struct uaddr *s = ipt_hmap_add(&u->addr, sizeof(*s), tag, uaddr_eq, &k, &added);

	if (!s)
		return -1;
	if (added) {
		s->tgid = tgid;
		s->addr = a;
		s->ret = false;
	}
	s->ret = s->ret || ret;
	return 0;
}

/* proc_seen - the process's maps read, the first time it shows up */
static int proc_seen(struct ipt_ustacks *u, int32_t tgid)
{
	char path[64];
	struct uproc *p;

	for (size_t i = 0; i < u->nproc; i++)
		if (u->proc[i].tgid == tgid)
			return 0;
	if (IPT_GROW(u->proc, u->capproc, u->nproc + 1))
		return -1;
	p = &u->proc[u->nproc++];
	*p = (struct uproc){ .tgid = tgid, .state = IPT_UPROC_GONE };
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)tgid);
	if (!ipt_file_read(path, &p->maps, &p->maps_len) && p->maps_len)
		p->state = IPT_UPROC_MAPS;
	else if (errno == EACCES || errno == EPERM)
		p->state = IPT_UPROC_DENIED;
	if (p->state != IPT_UPROC_MAPS) {
		free(p->maps);
		p->maps = NULL;
	}
	return 0;
}

/* on_event - one captured event: a user_stack record's process and addresses */
static void on_event(const uint8_t *d, size_t len, void *arg)
{
	struct ipt_ustacks *u = arg;
	uint64_t tgid;

	if (len < 2 || ipt_get_uint(d, 2, u->big_endian) != u->id ||
	    len < u->caller_off + (size_t)u->ncaller * (size_t)u->long_size || len < u->tgid_off + u->tgid_size)
		return;
	u->records++;
	if (d[u->flags_off] & 0x58) {	/* hardirq, softirq, NMI: not the sender's own */
		u->in_irq++;
		return;
	}
	tgid = ipt_get_uint(d + u->tgid_off, u->tgid_size, u->big_endian);
	if (!tgid || tgid > INT32_MAX)
		return;
	for (unsigned int i = 0; i < u->ncaller; i++) {
		uint64_t a = ipt_get_uint(d + u->caller_off + (size_t)i * (size_t)u->long_size,
					  (unsigned int)u->long_size, u->big_endian);

		if (!a || a == UINT64_MAX)
			break;
		if (!i && proc_seen(u, (int32_t)tgid))
			u->nomem = true;
		if (addr_add(u, (int32_t)tgid, a, i > 0))
			u->nomem = true;
	}
}

/* scan - the whole pages captured since the last look */
static void scan(struct ipt_ustacks *u)
{
	uint32_t ps = u->layout.page_size;

	for (int i = 0; i < ipt_capture_ncpus(u->cap); i++) {
		uint64_t have = ipt_capture_bytes(u->cap, i) / ps * ps;

		while (u->off[i] < have) {
			size_t want = have - u->off[i] < u->chunk ? (size_t)(have - u->off[i]) : u->chunk;
			ssize_t n = pread(ipt_capture_fd(u->cap, i), u->buf, want, (off_t)u->off[i]);

			if (n < (ssize_t)ps)
				break;
			n = n / ps * ps;
			for (ssize_t k = 0; k < n; k += ps)
				ipt_page_each(u->buf + k, &u->layout, u->big_endian, on_event, u);
			u->off[i] += (uint64_t)n;
		}
	}
}

static void *scanner(void *arg)
{
	struct ipt_ustacks *u = arg;

	pthread_mutex_lock(&u->lock);
	while (!u->stop) {
		struct timespec ts;

		pthread_mutex_unlock(&u->lock);
		scan(u);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += SCAN_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&u->lock);
		if (!u->stop)
			pthread_cond_timedwait(&u->cond, &u->lock, &ts);
	}
	pthread_mutex_unlock(&u->lock);
	return NULL;
}

bool ipt_ustacks_built(void)
{
#ifdef IPT_HAVE_DW
	return true;
#else
	return false;
#endif
}

struct ipt_ustacks *ipt_ustacks_start(struct ipt_capture *cap, const struct ipt_page_layout *pl,
				      const char *format, size_t len)
{
	struct ipt_event ev = { 0 };
	const struct ipt_field *tg, *ca, *fl;
	struct ipt_ustacks *u;
	int n = ipt_capture_ncpus(cap);

	if (!ipt_ustacks_built()) {
		ipt_err_code(IPT_ERR_FAILED, "user stacks: this ipitrace was built without elfutils "
			     "(libdw), which resolves them");
		return NULL;
	}
#ifdef IPT_HAVE_DW
	if (dw_load())
		return NULL;
#endif
	if (ipt_format_parse(&ev, "ftrace", format, len, (int)sizeof(long), "events/ftrace/user_stack/format", 0))
		return NULL;
	tg = ipt_event_field(&ev, "tgid");
	ca = ipt_event_field(&ev, "caller");
	fl = ipt_event_field(&ev, "common_flags");
	if (!tg || !ca || !fl || ev.id <= 0 || ev.id > UINT16_MAX || tg->size > 8 || fl->size != 1 ||
	    ca->elem_size != sizeof(long) || !ca->nelem) {
		ipt_event_release(&ev);
		ipt_err("events/ftrace/user_stack/format: not the user_stack record this ipitrace reads");
		return NULL;
	}
	u = ipt_calloc(1, sizeof(*u));
	if (!u) {
		ipt_event_release(&ev);
		return NULL;
	}
	u->cap = cap;
	u->layout = *pl;
	u->big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	u->long_size = (int)sizeof(long);
	u->id = (uint16_t)ev.id;
	u->tgid_off = tg->offset;
	u->tgid_size = tg->size;
	u->caller_off = ca->offset;
	u->ncaller = ca->nelem;
	u->flags_off = fl->offset;
	ipt_event_release(&ev);
	u->chunk = (size_t)pl->page_size * 64;
	u->off = ipt_calloc((size_t)(n > 0 ? n : 1), sizeof(*u->off));
	u->buf = ipt_malloc(u->chunk);
	pthread_mutex_init(&u->lock, NULL);
	pthread_cond_init(&u->cond, NULL);
	if (!u->off || !u->buf || pthread_create(&u->thread, NULL, scanner, u)) {
		ipt_err("user stacks: cannot start the scanning thread");
		ipt_ustacks_free(u);
		return NULL;
	}
	u->running = true;
	return u;
}

void ipt_ustacks_finish(struct ipt_ustacks *u)
{
	if (!u || !u->running)
		return;
	pthread_mutex_lock(&u->lock);
	u->stop = true;
	pthread_cond_signal(&u->cond);
	pthread_mutex_unlock(&u->lock);
	pthread_join(u->thread, NULL);
	u->running = false;
	scan(u);		/* what the readers drained at the end */
}

#ifdef IPT_HAVE_DW
/* put_word - a name as one word of the option: spaces and newlines replaced */
static int put_word(struct ipt_strbuf *sb, const char *s)
{
	if (!s || !*s)
		return ipt_strbuf_addc(sb, '-');
	for (; *s; s++)
		if (ipt_strbuf_addc(sb, *s == ' ' || *s == '\n' || *s == '\r' ? '?' : *s))
			return -1;
	return 0;
}

/* put_rest - the function name, the rest of the line: newlines replaced */
static int put_rest(struct ipt_strbuf *sb, const char *s)
{
	if (!s || !*s)
		return ipt_strbuf_addc(sb, '-');
	for (; *s; s++)
		if (ipt_strbuf_addc(sb, *s == '\n' || *s == '\r' ? '?' : *s))
			return -1;
	return 0;
}

/* proc_dwfl - a session over the maps kept of p, NULL if none */
static Dwfl *proc_dwfl(const struct uproc *p)
{
	Dwfl *d;
	FILE *f;

	if (p->state != IPT_UPROC_MAPS || !(d = dw.dwfl_begin(&dwfl_cbs)))
		return NULL;
	dw.dwfl_report_begin(d);
	f = fmemopen(p->maps, p->maps_len, "r");
	if (!f || dw.dwfl_linux_proc_maps_report(d, f)) {
		if (f)
			fclose(f);
		dw.dwfl_end(d);
		return NULL;
	}
	fclose(f);
	dw.dwfl_report_end(d, NULL, NULL);
	return d;
}

/* resolve - an address line: its module and function, from the session */
/* the DWARF number of the frame pointer register */
#if defined(__x86_64__)
#define FP_REG 6		/* rbp */
#elif defined(__aarch64__)
#define FP_REG 29		/* x29 */
#endif

/*
 * no_fp - whether the function at address at (module m) keeps no frame
 * pointer there: its unwind information computes the frame (CFA) from
 * another register than the frame pointer.  A frame-pointer walk through
 * it (the kernel's user stack) then misses its caller.  False where the
 * module has no unwind information for it.
 */
static bool no_fp(Dwfl_Module *m, Dwarf_Addr at)
{
#ifdef FP_REG
	Dwarf_Addr bias = 0;
	Dwarf_CFI *cfi = dw.dwfl_module_eh_cfi(m, &bias);
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops = NULL;
	size_t nops = 0;
	bool r = false;

	if (!cfi)
		cfi = dw.dwfl_module_dwarf_cfi(m, &bias);
	if (!cfi || dw.dwarf_cfi_addrframe(cfi, at - bias, &fr) || !fr)
		return false;
	/* the CFA as a register plus an offset: DW_OP_bregN, or DW_OP_bregx
	 * with the register in its first operand (what libdw gives) */
	if (!dw.dwarf_frame_cfa(fr, &ops, &nops) && nops >= 1) {
		if (ops[0].atom == DW_OP_bregx)
			r = ops[0].number != FP_REG;
		else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31)
			r = ops[0].atom != DW_OP_breg0 + FP_REG;
	}
	free(fr);
	return r;
#else
	(void)m;
	(void)at;
	return false;
#endif
}

static int resolve(Dwfl *d, const struct uaddr *a, struct ipt_strbuf *sb)
{
	/* a return address points after its call: look up the call itself */
	Dwarf_Addr at = a->ret && a->addr ? a->addr - 1 : a->addr;
	Dwfl_Module *m = d ? dw.dwfl_addrmodule(d, at) : NULL;
	const char *mod = NULL, *fn = NULL;
	GElf_Off off = 0;
	GElf_Sym sym;

	if (m) {
		mod = dw.dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
		fn = dw.dwfl_module_addrinfo(m, at, &off, &sym, NULL, NULL, NULL);
		if (fn && a->ret)
			off++;
	}
	if (ipt_strbuf_addf(sb, "a %d %llx %llx ", (int)a->tgid, (unsigned long long)a->addr,
			    (unsigned long long)(fn ? off : 0)) ||
	    put_word(sb, mod) || ipt_strbuf_addc(sb, ' ') || put_rest(sb, fn) || ipt_strbuf_addc(sb, '\n'))
		return -1;
	if (m && no_fp(m, at) &&
	    ipt_strbuf_addf(sb, "n %d %llx\n", (int)a->tgid, (unsigned long long)a->addr))
		return -1;
	return 0;
}
#endif

static int cmp_uaddr(const void *a, const void *b)
{
	const struct uaddr *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int ipt_ustacks_option(struct ipt_ustacks *u, struct ipt_strbuf *out, struct ipt_ustacks_stats *st)
{
	struct uaddr *v;
	size_t n = 0;
	int ret = -1;

	memset(st, 0, sizeof(*st));
	if (u->nomem)
		return ipt_err_code(IPT_ERR_NOMEM, "user stacks: out of memory");
	v = ipt_malloc((u->addr.n ? u->addr.n : 1) * sizeof(*v));
	if (!v)
		return -1;
	for (size_t i = 0; i < u->addr.cap; i++) {
		const struct uaddr *e = ipt_hmap_at(&u->addr, sizeof(*e), i);

		if (ipt_hmap_used(e))
			v[n++] = *e;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_uaddr);
	st->records = u->records;
	st->in_irq = u->in_irq;
	st->processes = u->nproc;
	st->addresses = n;
	for (size_t i = 0; i < u->nproc; i++) {
		st->gone += u->proc[i].state != IPT_UPROC_MAPS;
		if (ipt_strbuf_addf(out, "p %d %s\n", (int)u->proc[i].tgid,
				    ipt_uproc_state_name(u->proc[i].state)))
			goto out;
	}
#ifdef IPT_HAVE_DW
	for (size_t i = 0, j; i < n; i = j) {
		const struct uproc *p = NULL;
		Dwfl *d;

		for (size_t k = 0; k < u->nproc && !p; k++)
			if (u->proc[k].tgid == v[i].tgid)
				p = &u->proc[k];
		d = p ? proc_dwfl(p) : NULL;
		for (j = i; j < n && v[j].tgid == v[i].tgid; j++) {
			size_t before = out->len;

			if (resolve(d, &v[j], out)) {
				if (d)
					dw.dwfl_end(d);
				goto out;
			}
			/* resolved: the line does not end in " -\n" */
			st->resolved += !(out->len - before >= 3 && !memcmp(out->buf + out->len - 3, " -\n", 3));
		}
		if (d)
			dw.dwfl_end(d);
	}
#endif
	ret = 0;
out:
	free(v);
	return ret;
}

void ipt_ustacks_free(struct ipt_ustacks *u)
{
	if (!u)
		return;
	ipt_ustacks_finish(u);
	for (size_t i = 0; i < u->nproc; i++)
		free(u->proc[i].maps);
	free(u->proc);
	ipt_hmap_free(&u->addr);
	free(u->off);
	free(u->buf);
	pthread_mutex_destroy(&u->lock);
	pthread_cond_destroy(&u->cond);
	free(u);
}
