/*
 * unit_api.c - the stable API (include/ipitrace.h) as a user of the
 * library calls it: this file includes ipitrace.h and nothing of lib/.
 *
 * Every value asserted comes from somewhere else than ipitrace:
 *  - names (errors, IRQ points, user-process states, kinds) and the strbuf
 *    numbers: the header's comments and hand computation;
 *  - long size, byte order, per-CPU stats and the /proc/interrupts copies
 *    stored by `ipitrace record`: the trace.dat bytes, read here by a small
 *    reader of the file header and the v7 options sections (trace-cmd.dat(5)),
 *    and a big-endian, 4-byte-long v6 trace.dat this file writes itself;
 *  - event formats (field types, offsets, sizes): `trace-cmd dump --events`;
 *  - rendered fields and the IPI iterator's counts: the `trace-cmd report`
 *    text stored beside each recorded trace (NAME.report.txt);
 *  - kernel stack frames: the "=> sym (addr)" lines of that text;
 *  - CSV / JSON lines: the columns as the header and README.md list them,
 *    for a row built here by hand;
 * *  - the rows a report keeps (keep_rows): the same rows decoded again by
 *    an iterator without them, with their matching;
 *  - ipt_rows_write: the loop its comment gives (ipt_ipi_next,
 *    ipt_report_row_match, ipt_rows_format_match) written out here;
 *  - Parquet: a file written here, read back by a Thrift compact-protocol
 *    reader of its footer ("PAR1" at both ends, the footer length, the
 *    schema's columns and types, the row count and row groups, the key/value
 *    metadata).
 * Inputs: the recorded traces of ../shared/traces (as tests/lib.sh finds
 * them, else $IPITRACE_TRACES, else /work/shared/traces) and the qemu
 * guest's trace in tests/data; a missing one is a SKIP line, not a pass.
 */
#include "ipitrace.h"
#include "testlib.h"

#include <fcntl.h>
#include <unistd.h>

#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <malloc.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

static char top[PATH_MAX];		/* the repository */
static char traces[PATH_MAX + 32];		/* the shared traces */
static char tmpdir[PATH_MAX];

static void skip(const char *what, const char *why)
{
	printf("SKIP unit_api %s: %s\n", what, why);
}

/* ------------------------------------------------------------------ */
/* Files                                                               */
/* ------------------------------------------------------------------ */

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* find_dirs - the repository (the directory above the binary that holds
 * include/ipitrace.h) and the shared traces beside it */
static void find_dirs(void)
{
	char exe[PATH_MAX], probe[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *env = getenv("IPITRACE_TRACES");

	top[0] = 0;
	if (n > 0) {
		exe[n] = 0;
		for (char *slash = strrchr(exe, '/'); slash; slash = strrchr(exe, '/')) {
			*slash = 0;
			snprintf(probe, sizeof(probe), "%s/include/ipitrace.h", exe[0] ? exe : "/");
			if (is_file(probe)) {
				snprintf(top, sizeof(top), "%s", exe);
				break;
			}
		}
	}
	if (!top[0] && getcwd(top, sizeof(top)) == NULL)
		snprintf(top, sizeof(top), ".");
	snprintf(probe, sizeof(probe), "%s/../shared/traces", top);
	if (is_dir(probe))
		snprintf(traces, sizeof(traces), "%s", probe);
	else
		snprintf(traces, sizeof(traces), "%s", env && *env ? env : "/work/shared/traces");
}

/* slurp - a whole file, NUL-terminated; NULL if it cannot be read */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0, got;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - n < 65536) {
			uint8_t *nb = realloc(buf, cap ? cap * 2 : 1 << 20);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap = cap ? cap * 2 : 1 << 20;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

static void path_of(char *out, size_t size, const char *dir, const char *name)
{
	snprintf(out, size, "%s/%s", dir, name);
}

/* ------------------------------------------------------------------ */
/* A reader of trace.dat headers and v7 options (trace-cmd.dat(5))     */
/* ------------------------------------------------------------------ */

struct tdat {
	const uint8_t *p;
	size_t n;
	int version;		/* 6, 7 */
	bool be;
	int long_size;
	uint32_t page_size;
	size_t after;		/* offset after the page size */
	uint64_t options;	/* v7: the first options section */
};

static uint64_t get_uint(const uint8_t *p, unsigned int size, bool be)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < size; i++)
		v |= (uint64_t)p[be ? size - 1 - i : i] << (8 * i);
	return v;
}

/* tdat_header - the file header: magic, version, endianness, long size,
 * page size (and in v7 the compression strings and the options offset) */
static bool tdat_header(struct tdat *d, const uint8_t *p, size_t n)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	size_t pos = 10;

	memset(d, 0, sizeof(*d));
	d->p = p;
	d->n = n;
	if (n < 32 || memcmp(p, magic, sizeof(magic)))
		return false;
	d->version = atoi((const char *)p + pos);
	pos += strnlen((const char *)p + pos, n - pos) + 1;
	if (pos + 6 > n)
		return false;
	d->be = p[pos] == 1;
	d->long_size = p[pos + 1];
	d->page_size = (uint32_t)get_uint(p + pos + 2, 4, d->be);
	pos += 6;
	d->after = pos;
	if (d->version >= 7) {
		for (int s = 0; s < 2; s++)	/* compression name and version */
			pos += strnlen((const char *)p + pos, n - pos) + 1;
		if (pos + 8 > n)
			return false;
		d->options = get_uint(p + pos, 8, d->be);
	}
	return true;
}

/*
 * tdat_options - each option of id `want` in the v7 options sections (the
 * chain from the header's offset through each DONE option's next offset):
 * up to max (data, size) pairs.  The count, or -1 when a section cannot be
 * read here (compressed: flag bit 0).
 */
static int tdat_options(const struct tdat *d, uint16_t want, const uint8_t **data,
			uint32_t *size, int max)
{
	uint64_t off = d->options;
	int found = 0, sections = 0;

	while (off && sections++ < 64) {
		uint16_t id, flags;
		uint64_t len, pos, end;

		if (off + 16 > d->n)
			return -1;
		id = (uint16_t)get_uint(d->p + off, 2, d->be);
		flags = (uint16_t)get_uint(d->p + off + 2, 2, d->be);
		len = get_uint(d->p + off + 8, 8, d->be);
		if (id != 0 || (flags & 1) || off + 16 + len > d->n)
			return -1;
		pos = off + 16;
		end = pos + len;
		off = 0;
		while (pos + 6 <= end) {
			uint16_t oid = (uint16_t)get_uint(d->p + pos, 2, d->be);
			uint32_t osz = (uint32_t)get_uint(d->p + pos + 2, 4, d->be);

			pos += 6;
			if (pos + osz > end)
				return -1;
			if (oid == 0) {
				if (osz >= 8)
					off = get_uint(d->p + pos, 8, d->be);
				break;
			}
			if (oid == want && found < max) {
				data[found] = d->p + pos;
				size[found] = osz;
				found++;
			}
			pos += osz;
		}
	}
	return found;
}

/* ------------------------------------------------------------------ */
/* Names and strbuf: the header's comments, hand computation           */
/* ------------------------------------------------------------------ */

static void test_names(void)
{
	static const char *const kinds[] = { "resched", "wakeup", "call", "tlb", "irq_work",
					     "membarrier", "timer", "stop", "other" };

	CHECK_STR(ipt_error_name(IPT_ERR_NONE), "none");
	CHECK_STR(ipt_error_name(IPT_ERR_FAILED), "failed");
	CHECK_STR(ipt_error_name(IPT_ERR_INVALID), "invalid");
	CHECK_STR(ipt_error_name(IPT_ERR_NOMEM), "nomem");
	CHECK_STR(ipt_error_name(IPT_ERR_UNAVAILABLE), "unavailable");
	CHECK_STR(ipt_error_name(IPT_ERR_REJECTED), "rejected");

	CHECK_STR(ipt_irq_point_name(IPT_IRQ_BEFORE_SETUP), "before_setup");
	CHECK_STR(ipt_irq_point_name(IPT_IRQ_TRACING_ON), "tracing_on");
	CHECK_STR(ipt_irq_point_name(IPT_IRQ_TRACING_OFF), "tracing_off");
	CHECK_STR(ipt_irq_point_name(IPT_IRQ_AFTER_TEARDOWN), "after_teardown");

	CHECK_STR(ipt_uproc_state_name(IPT_UPROC_MAPS), "maps");
	CHECK_STR(ipt_uproc_state_name(IPT_UPROC_GONE), "gone");
	CHECK_STR(ipt_uproc_state_name(IPT_UPROC_DENIED), "denied");

	CHECK(sizeof(kinds) / sizeof(kinds[0]) == IPT_KIND__COUNT, "%d kinds", IPT_KIND__COUNT);
	for (int k = 0; k < IPT_KIND__COUNT; k++)
		CHECK(ipt_kind_from_name(kinds[k]) == k, "kind_from_name(%s) = %d, want %d", kinds[k],
		      ipt_kind_from_name(kinds[k]), k);
	CHECK(ipt_kind_from_name("nope") == -1, "kind_from_name(nope) = %d", ipt_kind_from_name("nope"));
	CHECK(ipt_kind_from_name("") == -1, "kind_from_name('') = %d", ipt_kind_from_name(""));
	CHECK(ipt_kind_from_name("tlbx") == -1, "kind_from_name(tlbx) = %d", ipt_kind_from_name("tlbx"));

	/* the codes of real failures, by name */
	CHECK(ipt_trace_open("/nonexistent-dir-ipitrace/none.dat") == NULL, "opened a missing file");
	CHECK_STR(ipt_error_name(ipt_errcode()), "failed");
}

static void test_strbuf(void)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;

	/*
	 * Room made in an empty buffer: still empty, and (the header says) buf
	 * holds len bytes and a NUL after them.  Fresh memory is not zero here
	 * (M_PERTURB in main(); ASan fills it too), so a missing NUL shows.
	 */
	CHECK(ipt_strbuf_grow(&sb, 100) == 0, "grow");
	CHECK(sb.buf != NULL && sb.cap >= sb.len + 100, "grow: cap %zu len %zu", sb.cap, sb.len);
	CHECK(sb.len == 0, "grow changed len to %zu", sb.len);
	CHECK(sb.buf && sb.buf[0] == 0 && ipt_strbuf_str(&sb)[0] == 0,
	      "grow on an empty buffer leaves it unterminated: ipt_strbuf_str() gives byte 0x%02x, not \"\"",
	      sb.buf ? (unsigned char)sb.buf[0] : 0);

	/* reserve: room past what is there, the text kept */
	CHECK(ipt_strbuf_adds(&sb, "ab") == 0 && ipt_strbuf_reserve(&sb, 5000) == 0, "reserve");
	CHECK(sb.cap >= sb.len + 5001, "reserve: cap %zu len %zu", sb.cap, sb.len);
	CHECK_STR(ipt_strbuf_str(&sb), "ab");
	ipt_strbuf_reset(&sb);

	CHECK(ipt_strbuf_add_u64(&sb, 0) == 0, "add_u64");
	CHECK_STR(ipt_strbuf_str(&sb), "0");
	ipt_strbuf_reset(&sb);
	CHECK(ipt_strbuf_add_u64(&sb, UINT64_MAX) == 0, "add_u64");
	CHECK_STR(ipt_strbuf_str(&sb), "18446744073709551615");
	CHECK(sb.len == 20, "len %zu", sb.len);
	ipt_strbuf_reset(&sb);
	CHECK(ipt_strbuf_add_u64(&sb, 1000000007ull) == 0, "add_u64");
	CHECK_STR(ipt_strbuf_str(&sb), "1000000007");

	ipt_strbuf_reset(&sb);
	ipt_strbuf_add_i64(&sb, INT64_MIN);
	ipt_strbuf_addc(&sb, ' ');
	ipt_strbuf_add_i64(&sb, -1);
	ipt_strbuf_addc(&sb, ' ');
	ipt_strbuf_add_i64(&sb, 0);
	ipt_strbuf_addc(&sb, ' ');
	CHECK(ipt_strbuf_add_i64(&sb, INT64_MAX) == 0, "add_i64");
	CHECK_STR(ipt_strbuf_str(&sb), "-9223372036854775808 -1 0 9223372036854775807");

	ipt_strbuf_reset(&sb);
	ipt_strbuf_add_hex(&sb, 0);
	ipt_strbuf_addc(&sb, ' ');
	ipt_strbuf_add_hex(&sb, 0xdeadBEEFull);
	ipt_strbuf_addc(&sb, ' ');
	ipt_strbuf_add_hex(&sb, 0xffffffff81000130ull);
	ipt_strbuf_addc(&sb, ' ');
	CHECK(ipt_strbuf_add_hex(&sb, UINT64_MAX) == 0, "add_hex");
	CHECK_STR(ipt_strbuf_str(&sb), "0 deadbeef ffffffff81000130 ffffffffffffffff");

	/* pad: the text from `from` on is made width bytes long with blanks */
	ipt_strbuf_reset(&sb);
	ipt_strbuf_adds(&sb, "ab");
	CHECK(ipt_strbuf_pad(&sb, 0, 5) == 0, "pad");
	CHECK_STR(ipt_strbuf_str(&sb), "ab   ");
	ipt_strbuf_adds(&sb, "|xyz");
	CHECK(ipt_strbuf_pad(&sb, 5, 2) == 0, "pad");	/* already longer: unchanged */
	CHECK_STR(ipt_strbuf_str(&sb), "ab   |xyz");
	CHECK(ipt_strbuf_pad(&sb, 5, 8) == 0, "pad");
	CHECK_STR(ipt_strbuf_str(&sb), "ab   |xyz    ");
	CHECK(sb.len == 13, "len %zu", sb.len);

	/* grow keeps the text; many small adds cross several reallocations */
	ipt_strbuf_reset(&sb);
	for (int i = 0; i < 1000; i++)
		ipt_strbuf_add_u64(&sb, (uint64_t)i % 10);
	CHECK(sb.len == 1000 && sb.buf[999] == '9' && sb.buf[1000] == 0 && sb.buf[500] == '0',
	      "1000 digits: len %zu", sb.len);
	CHECK(ipt_strbuf_grow(&sb, 1 << 20) == 0 && sb.cap >= sb.len + (1 << 20) && sb.len == 1000 &&
	      sb.buf[998] == '8', "grow 1 MiB: cap %zu len %zu", sb.cap, sb.len);
	ipt_strbuf_free(&sb);
}

/* ------------------------------------------------------------------ */
/* Trace headers: the bytes of the recorded traces, and one written here */
/* ------------------------------------------------------------------ */

struct bb {
	uint8_t *p;
	size_t n, cap;
};

static void bb_put(struct bb *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap < b->n + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p)
			abort();
		b->cap = cap;
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void bb_uint(struct bb *b, uint64_t v, unsigned int size, bool be)
{
	uint8_t x[8];

	for (unsigned int i = 0; i < size; i++)
		x[be ? size - 1 - i : i] = (uint8_t)(v >> (8 * i));
	bb_put(b, x, size);
}

static void bb_str0(struct bb *b, const char *s)
{
	bb_put(b, s, strlen(s) + 1);
}

static const char cpustat1[] = "CPU: 1\nentries: 0\noverrun: 0\ncommit overrun: 0\nbytes: 0\n"
			       "oldest event ts:   100.000001\nnow ts:   100.500000\n"
			       "dropped events: 3\nread events: 77\n";
static const char cpustat0[] = "CPU: 0\nentries: 5\noverrun: 2\ncommit overrun: 0\nbytes: 4096\n"
			       "oldest event ts:   99.000002\nnow ts:   100.500001\n"
			       "dropped events: 0\nread events: 1234\n";

/*
 * write_be_trace - a v6 trace.dat of a big-endian machine with 4-byte
 * longs, laid out as trace-cmd.dat(5) says: header, header_page and
 * header_event, no event formats, empty kallsyms, printk and cmdlines, two
 * CPUs, options (the two CPUs' stats, CPU 1's first), and a flyrecord
 * table of two empty CPU streams.
 */
static bool write_be_trace(const char *path)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	static const char header_page[] =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:12;\tsize:4084;\tsigned:1;\n";
	static const char header_event[] =
		"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
		"\tarray       :   32 bits\n\n\tpadding     : type == 29\n"
		"\ttime_extend : type == 30\n\ttime_stamp : type == 31\n\tdata max type_len  == 28\n";
	struct bb b = { 0 };
	FILE *f;
	bool ok;

	bb_put(&b, magic, sizeof(magic));
	bb_str0(&b, "6");
	bb_uint(&b, 1, 1, true);	/* big endian */
	bb_uint(&b, 4, 1, true);	/* long size */
	bb_uint(&b, 4096, 4, true);
	bb_str0(&b, "header_page");
	bb_uint(&b, strlen(header_page), 8, true);
	bb_put(&b, header_page, strlen(header_page));
	bb_str0(&b, "header_event");
	bb_uint(&b, strlen(header_event), 8, true);
	bb_put(&b, header_event, strlen(header_event));
	bb_uint(&b, 0, 4, true);	/* ftrace event formats */
	bb_uint(&b, 0, 4, true);	/* event systems */
	bb_uint(&b, 0, 4, true);	/* kallsyms */
	bb_uint(&b, 0, 4, true);	/* printk formats */
	bb_uint(&b, 0, 8, true);	/* cmdlines */
	bb_uint(&b, 2, 4, true);	/* CPUs */
	bb_put(&b, "options  ", 10);
	bb_uint(&b, 2, 2, true);	/* CPUSTAT */
	bb_uint(&b, sizeof(cpustat1), 4, true);
	bb_put(&b, cpustat1, sizeof(cpustat1));
	bb_uint(&b, 2, 2, true);
	bb_uint(&b, sizeof(cpustat0), 4, true);
	bb_put(&b, cpustat0, sizeof(cpustat0));
	bb_uint(&b, 0, 2, true);	/* end of options */
	bb_put(&b, "flyrecord", 10);
	for (int cpu = 0; cpu < 2; cpu++) {
		bb_uint(&b, b.n + 32 - (size_t)cpu * 16, 8, true);	/* the end of the file */
		bb_uint(&b, 0, 8, true);
	}
	f = fopen(path, "wb");
	ok = f && fwrite(b.p, 1, b.n, f) == b.n;
	if (f && fclose(f))
		ok = false;
	free(b.p);
	return ok;
}

/* trim_end - s without trailing blanks and newlines, into buf */
static const char *trim_end(char *buf, size_t size, const char *s, size_t n)
{
	n = strnlen(s, n);
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n >= size)
		n = size - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
	return buf;
}

static void test_headers(void)
{
	static const char *const names[] = { "pingpong.dat", "pingpong.v6.dat", "pingpong.v7-none.dat",
					     "busy-stacks.dat", "idle.dat" };
	char path[PATH_MAX + 64], a[1024];
	int seen = 0;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct ipt_trace *t;
		struct tdat d;
		uint8_t *buf;
		size_t n;

		snprintf(path, sizeof(path), "%s/recorded/%s", traces, names[i]);
		if (!(buf = slurp(path, &n)))
			continue;
		seen++;
		CHECK(tdat_header(&d, buf, n), "%s: no trace.dat header", names[i]);
		t = ipt_trace_open(path);
		CHECK(t != NULL, "%s: %s", path, ipt_errmsg());
		{	/* the same trace by its fd, and with options */
			int fd = open(path, O_RDONLY);
			struct ipt_trace *u = fd >= 0 ? ipt_trace_open_fd(fd, "by-fd") : NULL;
			const struct ipt_open_opts big = { .sz = sizeof(big) + 8 }, none = { .sz = sizeof(none) };
			struct ipt_trace *v = ipt_trace_open_opts(path, -1, &none);

			CHECK(u && t && ipt_trace_ncpus(u) == ipt_trace_ncpus(t) && !strcmp(ipt_trace_path(u), "by-fd"),
			      "%s by its fd: %s", names[i], u ? ipt_trace_path(u) : ipt_errmsg());
			CHECK(v && t && ipt_trace_ncpus(v) == ipt_trace_ncpus(t), "%s with options", names[i]);
			if (fd >= 0)
				close(fd);
			ipt_trace_close(u);
			ipt_trace_close(v);
			/* options larger than this library's, unknown bytes set */
			{
				unsigned char raw[sizeof(big) + 8];

				memcpy(raw, &big, sizeof(big));
				memset(raw + sizeof(big), 1, 8);
				CHECK(ipt_trace_open_opts(path, -1, (const void *)raw) == NULL &&
				      ipt_errcode() == IPT_ERR_INVALID, "unknown options refused: %s", ipt_errmsg());
			}
			CHECK(ipt_trace_open_fd(-1, "bad fd") == NULL, "a bad fd opened");
		}
		if (t) {
			CHECK(ipt_trace_long_size(t) == d.long_size, "%s: long size %d, the header says %d",
			      names[i], ipt_trace_long_size(t), d.long_size);
			CHECK(ipt_trace_big_endian(t) == d.be, "%s: big endian %d, the header says %d",
			      names[i], ipt_trace_big_endian(t), d.be);
			CHECK(ipt_trace_file_version(t) == d.version, "%s: version %d, header %d", names[i],
			      ipt_trace_file_version(t), d.version);
		}
		/* the per-CPU stats: the CPUSTAT options' text (v7: read here) */
		if (t && d.version >= 7) {
			const uint8_t *od[64];
			uint32_t os[64];
			int k = tdat_options(&d, 2, od, os, 64);

			CHECK(k > 0, "%s: %d CPUSTAT options read here", names[i], k);
			for (int j = 0; j < k; j++) {
				int cpu = -1;
				char b[1024];

				if (os[j] > 5 && !memcmp(od[j], "CPU:", 4))
					cpu = atoi((const char *)od[j] + 4);
				trim_end(a, sizeof(a), (const char *)od[j], os[j]);
				trim_end(b, sizeof(b), ipt_trace_cpustat(t, cpu), SIZE_MAX);
				CHECK(cpu >= 0 && !strcmp(a, b), "%s: cpustat(%d) '%s', the option says '%s'",
				      names[i], cpu, b, a);
			}
			CHECK_STR(ipt_trace_cpustat(t, 4000), "");
			CHECK_STR(ipt_trace_cpustat(t, -1), "");
		}
		ipt_trace_close(t);
		free(buf);
	}
	if (!seen)
		skip("headers", "no recorded trace in ../shared/traces/recorded");

	/* a trace written here: big endian, 4-byte longs, stats in CPU order 1, 0 */
	path_of(path, sizeof(path), tmpdir, "be32.dat");
	CHECK(write_be_trace(path), "writing %s", path);
	{
		struct ipt_trace *t = ipt_trace_open(path);
		char b[1024];

		CHECK(t != NULL, "%s: %s", path, ipt_errmsg());
		if (t) {
			CHECK(ipt_trace_big_endian(t), "big-endian trace read as little endian");
			CHECK(ipt_trace_long_size(t) == 4, "long size %d, want 4", ipt_trace_long_size(t));
			CHECK(ipt_trace_file_version(t) == 6, "version %d", ipt_trace_file_version(t));
			CHECK(ipt_trace_ncpus(t) == 2, "ncpus %d", ipt_trace_ncpus(t));
			trim_end(a, sizeof(a), cpustat0, sizeof(cpustat0));
			trim_end(b, sizeof(b), ipt_trace_cpustat(t, 0), SIZE_MAX);
			CHECK(!strcmp(a, b), "cpustat(0) '%s', want '%s'", b, a);
			trim_end(a, sizeof(a), cpustat1, sizeof(cpustat1));
			trim_end(b, sizeof(b), ipt_trace_cpustat(t, 1), SIZE_MAX);
			CHECK(!strcmp(a, b), "cpustat(1) '%s', want '%s'", b, a);
			CHECK_STR(ipt_trace_cpustat(t, 2), "");
			CHECK(!ipt_trace_has_irq_counts(t), "a trace without counters has them");
			CHECK(ipt_trace_irq_count(t, IPT_IRQ_TRACING_ON, "RES", 0) == -1, "count without counters");
			CHECK(ipt_trace_irq_desc(t, "RES") == NULL, "desc without counters");
		}
		ipt_trace_close(t);
		unlink(path);
	}
}

/* ------------------------------------------------------------------ */
/* /proc/interrupts copies: the option's text, parsed here             */
/* ------------------------------------------------------------------ */

struct irqrow {
	char name[32];
	char desc[128];
	long long count[64];
	int ncount;
};

struct irqpoint {
	bool present;
	int cpu[64];		/* CPU of each column */
	int ncol;
	struct irqrow row[128];
	int nrow;
};

/* parse_interrupts - "@point\n" then a copy of /proc/interrupts, per point */
static void parse_interrupts(const char *s, size_t n, struct irqpoint *pts)
{
	const char *end = s + strnlen(s, n);
	struct irqpoint *cur = NULL;
	bool header = false;

	while (s < end) {
		const char *e = memchr(s, '\n', (size_t)(end - s));
		char line[2048];
		size_t len;

		if (!e)
			e = end;
		len = (size_t)(e - s) < sizeof(line) - 1 ? (size_t)(e - s) : sizeof(line) - 1;
		memcpy(line, s, len);
		line[len] = 0;
		s = e + 1;
		if (line[0] == '@') {
			cur = NULL;
			for (int p = 0; p < IPT_IRQ__POINTS; p++)
				if (!strcmp(line + 1, ipt_irq_point_name(p)) && !pts[p].present)
					cur = &pts[p];
			if (cur)
				cur->present = true;
			header = true;
			continue;
		}
		if (!cur)
			continue;
		if (header) {
			header = false;
			for (char *tok = strtok(line, " \t"); tok && cur->ncol < 64; tok = strtok(NULL, " \t"))
				if (!strncmp(tok, "CPU", 3))
					cur->cpu[cur->ncol++] = atoi(tok + 3);
			continue;
		}
		{
			char *colon = strchr(line, ':'), *p, *name = line;
			struct irqrow *r;

			if (!colon || cur->nrow >= 128)
				continue;
			*colon = 0;
			while (*name == ' ')
				name++;
			r = &cur->row[cur->nrow++];
			memset(r, 0, sizeof(*r));
			snprintf(r->name, sizeof(r->name), "%.31s", name);
			p = colon + 1;
			while (r->ncount < cur->ncol) {
				char *q;

				while (*p == ' ' || *p == '\t')
					p++;
				if (!isdigit((unsigned char)*p))
					break;
				r->count[r->ncount++] = strtoll(p, &q, 10);
				p = q;
			}
			while (*p == ' ' || *p == '\t')
				p++;
			snprintf(r->desc, sizeof(r->desc), "%.127s", p);
		}
	}
}

static void test_irq_counts(void)
{
	static const char *const rows[] = { "RES", "CAL", "TLB", "IWI", "LOC", "NMI", "ERR", "MIS", "0" };
	char path[PATH_MAX + 64];
	struct irqpoint *pts;
	struct ipt_trace *t;
	const uint8_t *od[4];
	uint32_t os[4];
	struct tdat d;
	uint8_t *buf;
	size_t n;
	int k, compared = 0, bad = 0;

	snprintf(path, sizeof(path), "%s/tests/data/qemu/x86_64-6.1-kprobes.dat", top);
	if (!(buf = slurp(path, &n))) {
		skip("irq counts", "no tests/data/qemu/x86_64-6.1-kprobes.dat");
		return;
	}
	CHECK(tdat_header(&d, buf, n) && d.version == 7, "%s: not a v7 trace.dat", path);
	/* option 66: where `ipitrace record` stores the /proc/interrupts copies */
	k = tdat_options(&d, 66, od, os, 4);
	if (k != 1) {
		skip("irq counts", "the qemu trace's options hold no readable interrupts copy");
		free(buf);
		return;
	}
	pts = calloc(IPT_IRQ__POINTS, sizeof(*pts));
	parse_interrupts((const char *)od[0], os[0], pts);
	t = ipt_trace_open(path);
	CHECK(t != NULL, "%s: %s", path, ipt_errmsg());
	if (!t) {
		free(pts);
		free(buf);
		return;
	}
	CHECK(ipt_trace_has_irq_counts(t), "the qemu trace has no irq counts");
	for (int p = 0; p < IPT_IRQ__POINTS; p++) {
		CHECK(pts[p].present && pts[p].ncol == 8, "point %s: present %d, %d columns",
		      ipt_irq_point_name(p), pts[p].present, pts[p].ncol);
		for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
			const struct irqrow *row = NULL;

			for (int i = 0; i < pts[p].nrow; i++)
				if (!strcmp(pts[p].row[i].name, rows[r]))
					row = &pts[p].row[i];
			for (int c = 0; c < pts[p].ncol + 1; c++) {
				int cpu = c < pts[p].ncol ? pts[p].cpu[c] : 99;
				long long want = -1;
				int64_t got = ipt_trace_irq_count(t, p, rows[r], cpu);

				if (row && c < row->ncount)
					want = row->count[c];
				compared++;
				if (got != want && bad++ < 5)
					printf("  irq_count(%s, %s, cpu %d) = %lld, the option says %lld\n",
					       ipt_irq_point_name(p), rows[r], cpu, (long long)got, want);
			}
		}
	}
	CHECK(bad == 0 && compared > 200, "%d of %d counts differ from the stored text", bad, compared);
	CHECK(ipt_trace_irq_count(t, IPT_IRQ_TRACING_ON, "NOSUCHROW", 0) == -1, "an unknown row");
	/* the counters move between the points: RES on CPU 0 never goes back */
	CHECK(ipt_trace_irq_count(t, IPT_IRQ_BEFORE_SETUP, "RES", 0) <=
	      ipt_trace_irq_count(t, IPT_IRQ_AFTER_TEARDOWN, "RES", 0), "RES went back");
	for (size_t r = 0; r < 4; r++) {
		const char *want = NULL;

		for (int i = 0; i < pts[IPT_IRQ_TRACING_ON].nrow; i++)
			if (!strcmp(pts[IPT_IRQ_TRACING_ON].row[i].name, rows[r]))
				want = pts[IPT_IRQ_TRACING_ON].row[i].desc;
		CHECK(want && ipt_trace_irq_desc(t, rows[r]) && !strcmp(ipt_trace_irq_desc(t, rows[r]), want),
		      "desc(%s) '%s', the option says '%s'", rows[r],
		      ipt_trace_irq_desc(t, rows[r]) ? ipt_trace_irq_desc(t, rows[r]) : "(null)",
		      want ? want : "(none)");
	}
	CHECK_STR(ipt_trace_irq_desc(t, "RES"), "Rescheduling interrupts");
	CHECK(ipt_trace_irq_desc(t, "NOSUCHROW") == NULL, "desc of an unknown row");
	ipt_trace_close(t);
	free(pts);
	free(buf);

	/* a recorded trace made by trace-cmd has none */
	snprintf(path, sizeof(path), "%s/recorded/pingpong.dat", traces);
	if ((t = ipt_trace_open(path))) {
		CHECK(!ipt_trace_has_irq_counts(t), "pingpong.dat (trace-cmd) has irq counts");
		CHECK(ipt_trace_irq_count(t, IPT_IRQ_TRACING_OFF, "RES", 0) == -1, "irq count without any");
		ipt_trace_close(t);
	}
}

/* ------------------------------------------------------------------ */
/* Event formats: trace-cmd dump --events                              */
/* ------------------------------------------------------------------ */

static bool have_trace_cmd(void)
{
	return system("command -v trace-cmd > /dev/null 2>&1") == 0;
}

/* split_decl - "TYPE NAME[N]" into its type ("TYPE") and name */
static void split_decl(const char *decl, char *type, size_t tsize, char *name, size_t nsize)
{
	size_t e = strlen(decl), ns, ts = 0, te;

	while (e && isspace((unsigned char)decl[e - 1]))
		e--;
	if (e && decl[e - 1] == ']')
		while (e && decl[e - 1] != '[')
			e--;
	if (e && decl[e - 1] == '[')
		e--;
	ns = e;
	while (ns && (isalnum((unsigned char)decl[ns - 1]) || decl[ns - 1] == '_'))
		ns--;
	te = ns;
	while (ts < te && isspace((unsigned char)decl[ts]))
		ts++;
	while (te > ts && isspace((unsigned char)decl[te - 1]))
		te--;
	snprintf(name, nsize, "%.*s", (int)(e - ns), decl + ns);
	snprintf(type, tsize, "%.*s", (int)(te - ts), decl + ts);
}

static void test_formats(void)
{
	char path[PATH_MAX + 64], cmd[PATH_MAX + 200], line[8192];
	struct ipt_trace *t;
	const struct ipt_event *ev = NULL;
	int events = 0, fields = 0, bad = 0;
	bool seen_send = false;
	FILE *p;

	snprintf(path, sizeof(path), "%s/recorded/pingpong.dat", traces);
	if (!is_file(path)) {
		skip("formats", "no recorded/pingpong.dat");
		return;
	}
	if (!have_trace_cmd()) {
		skip("formats", "trace-cmd is not installed");
		return;
	}
	if (!(t = ipt_trace_open(path))) {
		CHECK(0, "%s: %s", path, ipt_errmsg());
		return;
	}
	snprintf(cmd, sizeof(cmd), "trace-cmd dump --events -i '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	CHECK(p != NULL, "popen trace-cmd");
	while (p && fgets(line, sizeof(line), p)) {
		char *f, *decl, type[256], name[256], *semi;
		unsigned int off, size;
		int sgn;

		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "ID: ", 4)) {
			ev = ipt_trace_event_by_id(t, atoi(line + 4));
			events++;
			if (!ev && bad++ < 5)
				printf("  event id %s: not in the trace\n", line + 4);
			continue;
		}
		if (!ev || !(f = strstr(line, "field:")))
			continue;
		decl = f + 6;
		if (!(semi = strchr(decl, ';')))
			continue;
		*semi = 0;
		if (sscanf(semi + 1, " offset:%u; size:%u; signed:%d;", &off, &size, &sgn) != 3)
			continue;
		split_decl(decl, type, sizeof(type), name, sizeof(name));
		{
			const struct ipt_field *fl = ipt_event_field(ev, name);

			fields++;
			if (!fl || strcmp(ipt_field_type(fl), type) || ipt_field_offset(fl) != off ||
			    ipt_field_size(fl) != size ||
			    !!(ipt_field_flags(fl) & IPT_FIELD_SIGNED) != !!sgn) {
				if (bad++ < 5)
					printf("  %s.%s: type '%s' offset %u size %u; trace-cmd: '%s' %u %u signed %d\n",
					       ipt_event_name(ev), name, fl ? ipt_field_type(fl) : "(none)",
					       fl ? ipt_field_offset(fl) : 0, fl ? ipt_field_size(fl) : 0,
					       type, off, size, sgn);
			}
			if (!strcmp(ipt_event_name(ev), "ipi_send_cpu") && !strcmp(name, "callsite")) {
				seen_send = true;
				CHECK_STR(ipt_field_type(fl), "void *");
			}
		}
	}
	if (p)
		pclose(p);
	CHECK(events > 100 && fields > 1000, "trace-cmd listed %d events, %d fields", events, fields);
	CHECK(bad == 0, "%d of %d fields differ from trace-cmd's formats", bad, fields);
	CHECK(seen_send, "no ipi_send_cpu.callsite in trace-cmd's formats");
	ipt_trace_close(t);
}

/* ------------------------------------------------------------------ */
/* trace-cmd report text beside the traces                             */
/* ------------------------------------------------------------------ */

struct rline {
	int cpu;
	char name[64];
	const char *fields;	/* into the line, up to its end */
	size_t flen;
};

/* report_line - "COMM-PID [CPU] TS: NAME: FIELDS" (false for other lines) */
static bool report_line(const char *s, size_t n, struct rline *r)
{
	for (const char *b = memchr(s, '[', n); b; b = memchr(b + 1, '[', n - (size_t)(b + 1 - s))) {
		const char *q = b + 1, *e = s + n, *nm;
		int cpu = 0;

		if (q >= e || !isdigit((unsigned char)*q))
			continue;
		while (q < e && isdigit((unsigned char)*q))
			cpu = cpu * 10 + (*q++ - '0');
		if (q >= e || *q++ != ']')
			continue;
		while (q < e && *q == ' ')
			q++;
		if (q >= e || !isdigit((unsigned char)*q))
			continue;
		while (q < e && (isdigit((unsigned char)*q) || *q == '.'))
			q++;
		if (e - q < 2 || q[0] != ':' || q[1] != ' ')
			continue;
		q += 2;
		nm = q;
		while (q < e && *q != ':' && *q != ' ')
			q++;
		if (q >= e || *q != ':' || q == nm || (size_t)(q - nm) >= sizeof(r->name))
			continue;
		r->cpu = cpu;
		memcpy(r->name, nm, (size_t)(q - nm));
		r->name[q - nm] = 0;
		q++;
		while (q < e && *q == ' ')
			q++;
		r->fields = q;
		r->flen = (size_t)(e - q);
		while (r->flen && (q[r->flen - 1] == ' ' || q[r->flen - 1] == '\r'))
			r->flen--;
		return true;
	}
	return false;
}

/* next_rline - the next event line of text at *pos */
static bool next_rline(const char *text, size_t len, size_t *pos, struct rline *r)
{
	while (*pos < len) {
		const char *s = text + *pos, *e = memchr(s, '\n', len - *pos);
		size_t n = e ? (size_t)(e - s) : len - *pos;

		*pos += n + 1;
		if (report_line(s, n, r))
			return true;
	}
	return false;
}

static void test_render_fields(void)
{
	char path[PATH_MAX + 64], rpath[PATH_MAX + 64];
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	struct ipt_record rec;
	struct ipt_trace *t;
	struct ipt_iter *it;
	struct rline rl;
	char *text;
	size_t len, pos = 0;
	int records = 0, same = 0, bad = 0, ipi = 0, failed = 0;

	snprintf(path, sizeof(path), "%s/recorded/pingpong.dat", traces);
	snprintf(rpath, sizeof(rpath), "%s/recorded/pingpong.report.txt", traces);
	if (!(text = (char *)slurp(rpath, &len))) {
		skip("render_fields", "no recorded/pingpong.report.txt");
		return;
	}
	if (!(t = ipt_trace_open(path))) {
		CHECK(0, "%s: %s", path, ipt_errmsg());
		free(text);
		return;
	}
	it = ipt_iter_new(t, NULL);
	CHECK(it != NULL, "iter: %s", ipt_errmsg());
	while (it && ipt_iter_next(it, &rec) > 0) {
		const char *name = rec.event ? ipt_event_name(rec.event) : "?";
		size_t glen;

		records++;
		if (!next_rline(text, len, &pos, &rl)) {
			CHECK(0, "the report text ends before record %d", records);
			break;
		}
		ipt_strbuf_reset(&sb);
		if (ipt_render_fields(t, &rec, 0, &sb) && failed++ < 3)
			printf("  record %d: render_fields: %s\n", records, ipt_errmsg());
		glen = sb.len;
		while (glen && sb.buf[glen - 1] == ' ')
			glen--;
		{
			const char *g = ipt_strbuf_str(&sb);

			while (*g == ' ') {	/* trace-cmd's padding after the name is skipped too */
				g++;
				glen--;
			}
			if (rl.cpu == rec.cpu && !strcmp(rl.name, name) && glen == rl.flen &&
			    !memcmp(g, rl.fields, glen)) {
				same++;
				ipi += !strncmp(name, "ipi_", 4);
			} else if (bad++ < 5) {
				printf("  record %d (cpu %d %s): '%.*s'\n   trace-cmd (cpu %d %s): '%.*s'\n", records,
				       rec.cpu, name, (int)glen, g, rl.cpu, rl.name, (int)rl.flen, rl.fields);
			}
		}
	}
	CHECK(records > 1000 && ipi > 100, "%d records, %d ipi_*", records, ipi);
	CHECK(failed == 0, "render_fields failed on %d of %d records", failed, records);
	CHECK(bad == 0 && same == records, "%d of %d records' fields differ from trace-cmd report", bad,
	      records);
	CHECK(!next_rline(text, len, &pos, &rl), "the report text has more events than the iterator");
	/* RAW: name=value pairs; cpu= is the ipi_send_cpu field trace-cmd printed too */
	ipt_iter_free(it);
	it = ipt_iter_new(t, NULL);
	pos = 0;
	while (it && ipt_iter_next(it, &rec) > 0 && next_rline(text, len, &pos, &rl)) {
		if (!rec.event || strcmp(ipt_event_name(rec.event), "ipi_send_cpu"))
			continue;
		ipt_strbuf_reset(&sb);
		CHECK(ipt_render_fields(t, &rec, IPT_RENDER_RAW, &sb) == 0, "raw: %s", ipt_errmsg());
		{
			unsigned int want = 0, got = 0;
			const char *c = strstr(ipt_strbuf_str(&sb), "cpu=");

			sscanf(rl.fields, "cpu=%u", &want);
			CHECK(c && sscanf(c, "cpu=%u", &got) == 1 && got == want, "raw '%s': cpu, want %u",
			      ipt_strbuf_str(&sb), want);
		}
		break;
	}
	ipt_iter_free(it);
	ipt_strbuf_free(&sb);
	ipt_trace_close(t);
	free(text);
}

/* a trace's IPI iterator against the count of its events in the report text */
static void stats_against_report(const char *base, const char *filter, int want_target)
{
	char path[PATH_MAX + 64], rpath[PATH_MAX + 64];
	uint64_t events = 0, sends = 0, rows = 0, rows_target = 0, csd = 0, got_rows = 0;
	const struct ipt_ipi_stats *st;
	struct ipt_ipi_iter *it;
	struct ipt_ipi_row row;
	struct ipt_trace *t;
	struct rline rl;
	size_t len, pos = 0;
	char *text;

	snprintf(path, sizeof(path), "%s/recorded/%s.dat", traces, base);
	snprintf(rpath, sizeof(rpath), "%s/recorded/%s.report.txt", traces, base);
	if (!(text = (char *)slurp(rpath, &len))) {
		skip("ipi_iter_stats", "no report text of a recorded trace");
		return;
	}
	while (next_rline(text, len, &pos, &rl)) {
		events++;
		if (!strcmp(rl.name, "csd_queue_cpu"))
			csd++;
		if (!strcmp(rl.name, "ipi_send_cpu")) {
			unsigned int cpu = 0;

			sends++;
			rows++;
			if (sscanf(rl.fields, "cpu=%u", &cpu) == 1 && (int)cpu == want_target)
				rows_target++;
		} else if (!strcmp(rl.name, "ipi_send_cpumask")) {
			struct ipt_cpuset set = IPT_CPUSET_INIT;
			const char *m = rl.fields + 8;	/* "cpumask=" */

			sends++;
			ipt_cpuset_parse_list(&set, m, strcspn(m, " "));
			rows += ipt_cpuset_weight(&set);
			rows_target += ipt_cpuset_has(&set, (unsigned int)want_target);
			ipt_cpuset_free(&set);
		}
	}
	free(text);
	if (!(t = ipt_trace_open(path))) {
		CHECK(0, "%s: %s", path, ipt_errmsg());
		return;
	}
	it = ipt_ipi_iter_new(t, filter);
	CHECK(it != NULL, "ipi_iter_new(%s): %s", filter ? filter : "NULL", ipt_errmsg());
	while (it && ipt_ipi_next(it, &row) > 0)
		got_rows++;
	st = it ? ipt_ipi_iter_stats(it) : NULL;
	CHECK(st != NULL, "no stats");
	if (st) {
		CHECK(st->send_events == sends && sends > 100,
		      "%s: send_events %llu, the report text has %llu ipi_send_cpu/cpumask lines", base,
		      (unsigned long long)st->send_events, (unsigned long long)sends);
		CHECK(st->records == events, "%s: records %llu, the report text has %llu events", base,
		      (unsigned long long)st->records, (unsigned long long)events);
		CHECK(st->rows == rows, "%s: rows %llu, the report text's sends have %llu targets", base,
		      (unsigned long long)st->rows, (unsigned long long)rows);
		CHECK(st->csd_queued == csd, "%s: csd_queued %llu, the report text has %llu", base,
		      (unsigned long long)st->csd_queued, (unsigned long long)csd);
		CHECK(st->rows_out == got_rows, "%s: rows_out %llu, rows given %llu", base,
		      (unsigned long long)st->rows_out, (unsigned long long)got_rows);
		if (filter)
			CHECK(st->rows_out == rows_target, "%s: rows_out %llu with '%s', the text has %llu",
			      base, (unsigned long long)st->rows_out, filter,
			      (unsigned long long)rows_target);
		else
			CHECK(st->rows_out == rows, "%s: rows_out %llu, want %llu without a filter", base,
			      (unsigned long long)st->rows_out, (unsigned long long)rows);
	}
	ipt_ipi_iter_free(it);
	ipt_trace_close(t);
}

static void test_ipi_iter(void)
{
	char path[PATH_MAX + 64], rpath[PATH_MAX + 64];
	struct ipt_trace *t;
	struct ipt_ipi_iter *it;

	stats_against_report("pingpong", NULL, -1);
	stats_against_report("pingpong", "target_cpu == 1", 1);
	stats_against_report("busy-stacks", NULL, -1);

	/*
	 * can_thread: busy-stacks.dat's events hold no sched_switch (its
	 * report text has none, and trace-cmd lists no such format), so one
	 * pass per CPU is possible; a filter on id needs the one numbering;
	 * forkexec.dat learns task names from its sched_switch records.
	 */
	snprintf(path, sizeof(path), "%s/recorded/busy-stacks.dat", traces);
	if ((t = ipt_trace_open(path))) {
		it = ipt_ipi_iter_new(t, NULL);
		CHECK(it && ipt_ipi_iter_can_thread(it), "busy-stacks: cannot thread");
		ipt_ipi_iter_free(it);
		it = ipt_ipi_iter_new(t, "id == 10");
		CHECK(it && !ipt_ipi_iter_can_thread(it), "busy-stacks with a filter on id: can thread");
		ipt_ipi_iter_free(it);
		it = ipt_ipi_iter_new(t, "src_cpu == 1 && kind == \"resched\"");
		CHECK(it && ipt_ipi_iter_can_thread(it), "busy-stacks with a filter not on id: cannot thread");
		ipt_ipi_iter_free(it);
		/* a bad filter: an invalid argument */
		CHECK(ipt_ipi_iter_new(t, "src_cpu == (") == NULL, "a bad filter was taken");
		CHECK_STR(ipt_error_name(ipt_errcode()), "invalid");
		ipt_trace_close(t);
	}
	snprintf(path, sizeof(path), "%s/recorded/forkexec.dat", traces);
	snprintf(rpath, sizeof(rpath), "%s/recorded/forkexec.report.txt", traces);
	{
		size_t len;
		char *text = (char *)slurp(rpath, &len);

		if (text && strstr(text, " sched_switch: ") && (t = ipt_trace_open(path))) {
			it = ipt_ipi_iter_new(t, NULL);
			CHECK(it && !ipt_ipi_iter_can_thread(it), "forkexec (sched_switch records): can thread");
			ipt_ipi_iter_free(it);
			ipt_trace_close(t);
		}
		free(text);
	}
}

/* ------------------------------------------------------------------ */
/* Kept rows: a report's rows given back equal the rows decoded again   */
/* ------------------------------------------------------------------ */

/* rows_of - the rows of t through an iterator on rep (keep_rows or not),
 * each with what matching found; -1 on error */
struct kept_pass {
	struct ipt_ipi_row *rows;
	struct ipt_row_match *m;	/* (their stacks are rep's) */
	size_t n;
	uint64_t rows_out;
	struct ipt_report *rep;
};

static int rows_of(struct ipt_trace *t, const char *filter, bool keep, int threads, struct kept_pass *kp)
{
	struct ipt_report_opts ro = { .sz = sizeof(ro), .filter = filter, .row_results = true,
				      .no_tables = true, .keep_rows = keep, .threads = threads };
	struct ipt_report *rep = ipt_report_run(t, &ro);
	struct ipt_ipi_iter *it = rep ? ipt_ipi_iter_new_with(t, filter, rep) : NULL;
	struct ipt_ipi_row row;
	size_t cap = 0;
	int r = -1;

	memset(kp, 0, sizeof(*kp));
	if (!it)
		goto out;
	ipt_ipi_iter_set_threads(it, threads);
	while ((r = ipt_ipi_next(it, &row)) > 0) {
		if (kp->n == cap) {
			cap = cap ? 2 * cap : 1024;
			kp->rows = realloc(kp->rows, cap * sizeof(*kp->rows));
			kp->m = realloc(kp->m, cap * sizeof(*kp->m));
			if (!kp->rows || !kp->m)
				abort();
		}
		row.targets = NULL;	/* (the decoder's, gone after the next row) */
		kp->rows[kp->n] = row;
		if (ipt_report_row_match(rep, &row, &kp->m[kp->n]))
			r = -1;
		kp->n++;
	}
	kp->rows_out = ipt_ipi_iter_stats(it)->rows_out;
out:
	if (r < 0)
		printf("FAIL kept rows: %s\n", ipt_errmsg());
	ipt_ipi_iter_free(it);
	kp->rep = rep;
	return r;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool same_match(const struct ipt_row_match *a, const struct ipt_row_match *b)
{
	return a->known == b->known && a->matched == b->matched && a->coalesced == b->coalesced &&
	       a->unmatched == b->unmatched && a->has_latency == b->has_latency &&
	       a->latency_ns == b->latency_ns && a->has_handler == b->has_handler &&
	       a->handler_ns == b->handler_ns && a->has_handler_ts == b->has_handler_ts &&
	       a->handler_ts_ns == b->handler_ts_ns && !a->stack == !b->stack &&
	       (!a->stack || a->stack->nframes == b->stack->nframes);
}

static void kept_against_decoded(const char *path, const char *filter, int threads)
{
	struct ipt_trace *t = ipt_trace_open(path);
	struct kept_pass a, b;
	size_t bad = 0, first = 0;
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	if (!t) {
		CHECK(0, "%s: %s", path, ipt_errmsg());
		return;
	}
	memset(&b, 0, sizeof(b));
	if (rows_of(t, filter, true, threads, &a) || rows_of(t, filter, false, threads, &b)) {
		CHECK(0, "%s: a pass failed", name);
		goto out;
	}
	for (size_t i = 0; i < a.n && i < b.n; i++) {
		const struct ipt_ipi_row *x = &a.rows[i], *y = &b.rows[i];
		bool same = x->ts == y->ts && x->id == y->id && x->src_cpu == y->src_cpu &&
			    x->target_cpu == y->target_cpu && x->pid == y->pid && x->ntargets == y->ntargets &&
			    same_str(x->comm, y->comm) && same_str(x->event, y->event) &&
			    x->callsite == y->callsite && same_str(x->callsite_sym, y->callsite_sym) &&
			    x->callsite_off == y->callsite_off && x->callback == y->callback &&
			    same_str(x->callback_sym, y->callback_sym) && x->func == y->func &&
			    same_str(x->func_sym, y->func_sym) && same_str(x->reason, y->reason) &&
			    x->kind == y->kind && same_match(&a.m[i], &b.m[i]);

		if (!same && !bad++)
			first = i;
	}
	CHECK(a.n == b.n && !bad && a.rows_out == a.n && b.rows_out == b.n,
	      "%s filter '%s' -j%d: kept %zu rows (rows_out %llu), decoded %zu (%llu); %zu differ, the first at %zu",
	      name, filter ? filter : "", threads, a.n, (unsigned long long)a.rows_out, b.n,
	      (unsigned long long)b.rows_out, bad, first);
	if (a.n == b.n && !bad)
		printf("PASS kept rows %s filter '%s' -j%d: %zu rows and their matching as decoded again\n", name,
		       filter ? filter : "", threads, a.n);
out:
	free(a.rows);
	free(a.m);
	ipt_report_free(a.rep);
	free(b.rows);
	free(b.m);
	ipt_report_free(b.rep);
	ipt_trace_close(t);
}

static void test_kept_rows(void)
{
	static const char *const names[] = { "busy-stacks.dat", "forkexec.dat", "pingpong.dat", "stacks.dat",
					     "pingpong.v6.dat", "tracefs-text.trace" };
	char path[PATH_MAX + 64];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/recorded/%s", traces, names[i]);
		if (access(path, R_OK)) {
			skip(names[i], "not found");
			continue;
		}
		kept_against_decoded(path, NULL, 1);
		kept_against_decoded(path, NULL, 2);
		kept_against_decoded(path, "target_cpu == 1", 2);
		kept_against_decoded(path, "matched == true && lat_ns < 50000", 1);
	}
	snprintf(path, sizeof(path), "%s/tests/data/qemu/x86_64-6.1-kprobes.dat", top);
	kept_against_decoded(path, NULL, 2);
	snprintf(path, sizeof(path), "%s/tests/data/qemu/arm64-6.1.dat", top);
	kept_against_decoded(path, NULL, 2);
	/* (past 1 MiB of rows, and dropped: tests/test_rowsmatch.sh kept-rows) */
}

/* ------------------------------------------------------------------ */
/* ipt_rows_write: the loop of ipt_rows_format_match, the same bytes    */
/* ------------------------------------------------------------------ */

struct wbuf {
	struct ipt_strbuf sb;
	size_t calls, fail_at;		/* fail_at: the call that answers 5 (0: none) */
};

static int wbuf_write(void *arg, const char *buf, size_t len)
{
	struct wbuf *w = arg;

	if (++w->calls == w->fail_at) {
		errno = ENOSPC;
		return 5;
	}
	return ipt_strbuf_add(&w->sb, buf, len) ? -1 : 0;
}

/* the rows of a fresh report and iterator on t, skipping the first `skip`
 * rows by hand: written out (by_hand) or by ipt_rows_write */
static int rows_text(struct ipt_trace *t, bool match, bool explode, enum ipt_row_format fmt, int threads,
		     size_t skip, bool by_hand, struct wbuf *out)
{
	struct ipt_report_opts ro = { .sz = sizeof(ro), .row_results = true, .no_tables = true,
				      .keep_rows = explode };
	struct ipt_report *rep = match ? ipt_report_run(t, &ro) : NULL;
	struct ipt_ipi_iter *it = !match || rep ? ipt_ipi_iter_new_with(t, NULL, rep) : NULL;
	struct ipt_ipi_row row;
	struct ipt_row_match m;
	uint64_t last_id = 0;
	int r = -1;

	if (!it)
		goto out;
	for (size_t i = 0; i < skip && (r = ipt_ipi_next(it, &row)) > 0; i++)
		if (rep && ipt_report_row_match(rep, &row, &m))
			goto out;
	if (by_hand) {
		while ((r = ipt_ipi_next(it, &row)) > 0) {
			if (rep && ipt_report_row_match(rep, &row, &m))
				goto out;
			if (!explode) {
				if (row.id == last_id)
					continue;
				last_id = row.id;
			}
			if (ipt_rows_format_match(fmt, explode, t, &row, rep ? &m : NULL, &out->sb))
				goto out;
		}
	} else {
		struct ipt_rows_write_opts wo = { .sz = sizeof(wo), .fmt = fmt, .explode = explode,
						  .threads = threads, .write = wbuf_write, .arg = out };

		r = ipt_rows_write(t, it, rep, &wo);
	}
out:
	ipt_ipi_iter_free(it);
	ipt_report_free(rep);
	return r;
}

static void test_rows_write(void)
{
	static const char *const names[] = { "busy-stacks.dat", "pingpong.dat", "stacks.dat" };
	char path[PATH_MAX + 64];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct ipt_trace *t;
		size_t same = 0, tried = 0;

		snprintf(path, sizeof(path), "%s/recorded/%s", traces, names[i]);
		if (access(path, R_OK)) {
			skip(names[i], "not found");
			continue;
		}
		if (!(t = ipt_trace_open(path))) {
			CHECK(0, "%s: %s", names[i], ipt_errmsg());
			continue;
		}
		for (int v = 0; v < 16; v++) {
			bool match = v & 1, explode = v & 2;
			enum ipt_row_format fmt = v & 4 ? IPT_ROWS_JSONL : IPT_ROWS_CSV;
			size_t skip_rows = v & 8 ? 100 : 0;

			for (int threads = 1; threads <= 4; threads += 3) {
				struct wbuf a = { IPT_STRBUF_INIT, 0, 0 }, b = { IPT_STRBUF_INIT, 0, 0 };
				int ra = rows_text(t, match, explode, fmt, threads, skip_rows, true, &a);
				int rb = rows_text(t, match, explode, fmt, threads, skip_rows, false, &b);

				tried++;
				if (!ra && !rb && a.sb.len && a.sb.len == b.sb.len && !memcmp(a.sb.buf, b.sb.buf, a.sb.len))
					same++;
				else
					printf("  %s rows_write match %d explode %d %s -j%d skip %zu: %d/%d, %zu/%zu bytes\n",
					       names[i], match, explode, fmt ? "jsonl" : "csv", threads, skip_rows, ra, rb,
					       a.sb.len, b.sb.len);
				ipt_strbuf_free(&a.sb);
				ipt_strbuf_free(&b.sb);
			}
		}
		CHECK(same == tried, "%s rows_write: %zu of %zu ways not as the loop by hand", names[i],
		      tried - same, tried);
		if (same == tried)
			printf("PASS rows_write %s: %zu ways (matching or not, one row per target or send, csv "
			       "and jsonl, from the first row or the 101st, 1 and 4 threads) as the loop by hand\n",
			       names[i], tried);
		{	/* the writer's answer stops it and comes back, with its errno */
			struct wbuf w = { IPT_STRBUF_INIT, 0, 1 };
			int r = rows_text(t, true, true, IPT_ROWS_CSV, 4, 0, false, &w);

			CHECK(r == 5 && errno == ENOSPC && w.calls == 1,
			      "%s rows_write: a writer answering 5 gave %d (errno %d) after %zu calls", names[i], r,
			      errno, w.calls);
			if (r == 5 && errno == ENOSPC && w.calls == 1)
				printf("PASS rows_write %s: the writer's 5 returned as is, errno kept\n", names[i]);
			ipt_strbuf_free(&w.sb);
		}
		ipt_trace_close(t);
	}
	{	/* options too short: an error, not a crash */
		struct ipt_rows_write_opts wo = { .sz = 4 };

		CHECK(ipt_rows_write(NULL, NULL, NULL, &wo) == -1 && ipt_errcode() == IPT_ERR_INVALID,
		      "rows_write with sz 4: %s", ipt_errmsg());
		CHECK(ipt_rows_write(NULL, NULL, NULL, NULL) == -1, "rows_write without options");
	}
}

/* ------------------------------------------------------------------ */
/* Stack frames: the report's stacks against the report text's frames  */
/* ------------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void test_frames(void)
{
	char path[PATH_MAX + 64], rpath[PATH_MAX + 64];
	const struct ipt_report_group *g;
	struct ipt_report *r;
	struct ipt_trace *t;
	uint64_t *addrs = NULL;
	size_t naddr = 0, cap = 0, len, ng = 0;
	int frames = 0, bad = 0;
	char *text;

	snprintf(path, sizeof(path), "%s/recorded/stacks.dat", traces);
	snprintf(rpath, sizeof(rpath), "%s/recorded/stacks.report.txt", traces);
	if (!(text = (char *)slurp(rpath, &len))) {
		skip("frame_address", "no recorded/stacks.report.txt");
		return;
	}
	/* "=> sym (ffffffff8144fb7c)": the frames trace-cmd printed (lines
	 * walked with explicit lengths: ASan's str* interceptors scan to the end) */
	for (size_t pos = 0; pos < len;) {
		const char *l = text + pos, *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos;
		const char *lp = n > 4 && !memcmp(l, "=> ", 3) ? memchr(l, '(', n) : NULL;

		pos += n + 1;
		if (!lp)
			continue;
		if (naddr == cap) {
			cap = cap ? cap * 2 : 4096;
			addrs = realloc(addrs, cap * sizeof(*addrs));
		}
		addrs[naddr++] = strtoull(lp + 1, NULL, 16);
	}
	free(text);
	qsort(addrs, naddr, sizeof(*addrs), cmp_u64);
	if (!(t = ipt_trace_open(path))) {
		CHECK(0, "%s: %s", path, ipt_errmsg());
		free(addrs);
		return;
	}
	r = ipt_report_run(t, NULL);
	CHECK(r != NULL, "report: %s", ipt_errmsg());
	g = r ? ipt_report_groups(r, IPT_BY_STACK, -1, IPT_SORT_COUNT, &ng) : NULL;
	for (size_t i = 0; g && i < ng; i++) {
		if (!g[i].stack)
			continue;
		for (uint32_t k = 0; k < g[i].stack->nframes; k++) {
			uint64_t f = g[i].stack->frames[k], a = ipt_trace_frame_address(t, f);
			struct ipt_user_frame uf;

			frames++;
			if ((a != f || ipt_trace_user_frame(t, f, &uf) ||
			     !bsearch(&a, addrs, naddr, sizeof(*addrs), cmp_u64)) && bad++ < 5)
				printf("  frame %#llx: address %#llx, not among trace-cmd's frames\n",
				       (unsigned long long)f, (unsigned long long)a);
		}
	}
	CHECK(frames > 10 && naddr > 10, "%d frames in the report's stacks, %zu in the text", frames, naddr);
	CHECK(bad == 0, "%d of %d frames are not trace-cmd's", bad, frames);
	ipt_report_free(r);
	ipt_trace_close(t);
	free(addrs);
}

/* ------------------------------------------------------------------ */
/* CSV and JSON lines of a row built here                              */
/* ------------------------------------------------------------------ */

/* json_compact - s without the blanks outside strings */
static void json_compact(char *out, size_t size, const char *s)
{
	bool in = false;
	size_t o = 0;

	for (; *s && o + 1 < size; s++) {
		if (in) {
			out[o++] = *s;
			if (*s == '\\' && s[1] && o + 1 < size)
				out[o++] = *++s;
			else if (*s == '"')
				in = false;
		} else if (*s == '"') {
			in = true;
			out[o++] = *s;
		} else if (!isspace((unsigned char)*s) || *s == '\n') {
			out[o++] = *s;
		}
	}
	out[o] = 0;
}

static void hand_row(struct ipt_ipi_row *r, const struct ipt_cpuset *targets)
{
	memset(r, 0, sizeof(*r));
	r->ts = 1234567890123ull;
	r->id = 7;
	r->src_cpu = 1;
	r->target_cpu = 3;
	r->pid = 42;
	r->ntargets = ipt_cpuset_weight(targets);
	r->comm = "a,b\"c";
	r->event = "ipi_send_cpumask";
	r->callsite = 0xffffffff81000010ull;
	r->callsite_sym = "foo";
	r->callsite_off = 0x92;
	r->callback = 0xffffffff81000020ull;
	r->callback_sym = NULL;	/* unknown */
	r->func = 0xffffffff81234560ull;
	r->func_sym = "baz";
	r->reason = "Function call interrupts";
	r->kind = IPT_KIND_CALL;
	r->targets = targets;
}

static void test_rows(void)
{
	static const char base[] = "ts_ns,id,src_cpu,%s,ntargets,pid,comm,event,kind,callsite,callsite_sym,"
				   "callback,callback_sym,func,func_sym,reason\n";
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	struct ipt_cpuset set = IPT_CPUSET_INIT;
	struct ipt_ipi_row row;
	char want[1024], got[1024];

	CHECK(ipt_rows_header(IPT_ROWS_CSV, true, &sb) == 0, "header");
	snprintf(want, sizeof(want), base, "target_cpu");
	CHECK_STR(ipt_strbuf_str(&sb), want);
	ipt_strbuf_reset(&sb);
	CHECK(ipt_rows_header(IPT_ROWS_CSV, false, &sb) == 0, "header");
	snprintf(want, sizeof(want), base, "targets");
	CHECK_STR(ipt_strbuf_str(&sb), want);
	ipt_strbuf_reset(&sb);
	CHECK(ipt_rows_header(IPT_ROWS_JSONL, true, &sb) == 0 && sb.len == 0, "JSON lines header: '%s'",
	      ipt_strbuf_str(&sb));

	ipt_cpuset_add(&set, 3);
	ipt_cpuset_add(&set, 5);
	ipt_cpuset_add(&set, 6);
	ipt_cpuset_add(&set, 7);
	hand_row(&row, &set);

	/* RFC 4180: a field with a comma or a quote is quoted, quotes doubled */
	ipt_strbuf_reset(&sb);
	CHECK(ipt_rows_format(IPT_ROWS_CSV, true, &row, &sb) == 0, "csv");
	CHECK_STR(ipt_strbuf_str(&sb), "1234567890123,7,1,3,4,42,\"a,b\"\"c\",ipi_send_cpumask,call,"
				      "0xffffffff81000010,foo+0x92,0xffffffff81000020,,0xffffffff81234560,"
				      "baz,Function call interrupts\n");
	ipt_strbuf_reset(&sb);
	CHECK(ipt_rows_format(IPT_ROWS_CSV, false, &row, &sb) == 0, "csv");
	CHECK_STR(ipt_strbuf_str(&sb), "1234567890123,7,1,\"3,5-7\",4,42,\"a,b\"\"c\",ipi_send_cpumask,call,"
				      "0xffffffff81000010,foo+0x92,0xffffffff81000020,,0xffffffff81234560,"
				      "baz,Function call interrupts\n");

	ipt_strbuf_reset(&sb);
	CHECK(ipt_rows_format(IPT_ROWS_JSONL, true, &row, &sb) == 0, "jsonl");
	json_compact(got, sizeof(got), ipt_strbuf_str(&sb));
	CHECK_STR(got, "{\"ts_ns\":1234567890123,\"id\":7,\"src_cpu\":1,\"target_cpu\":3,\"ntargets\":4,"
		       "\"pid\":42,\"comm\":\"a,b\\\"c\",\"event\":\"ipi_send_cpumask\",\"kind\":\"call\","
		       "\"callsite\":\"0xffffffff81000010\",\"callsite_sym\":\"foo+0x92\","
		       "\"callback\":\"0xffffffff81000020\",\"callback_sym\":null,"
		       "\"func\":\"0xffffffff81234560\",\"func_sym\":\"baz\","
		       "\"reason\":\"Function call interrupts\"}\n");
	ipt_strbuf_reset(&sb);
	CHECK(ipt_rows_format(IPT_ROWS_JSONL, false, &row, &sb) == 0, "jsonl");
	json_compact(got, sizeof(got), ipt_strbuf_str(&sb));
	CHECK_STR(got, "{\"ts_ns\":1234567890123,\"id\":7,\"src_cpu\":1,\"targets\":[3,5,6,7],\"ntargets\":4,"
		       "\"pid\":42,\"comm\":\"a,b\\\"c\",\"event\":\"ipi_send_cpumask\",\"kind\":\"call\","
		       "\"callsite\":\"0xffffffff81000010\",\"callsite_sym\":\"foo+0x92\","
		       "\"callback\":\"0xffffffff81000020\",\"callback_sym\":null,"
		       "\"func\":\"0xffffffff81234560\",\"func_sym\":\"baz\","
		       "\"reason\":\"Function call interrupts\"}\n");

	/* a send's next target: the same text but the target (the tail kept
	 * from the row before is reused); a field that differs is formatted
	 * anew, as are names long enough for 16-byte scanning, with a byte to
	 * quote before or after the first 16 */
	{
		struct ipt_ipi_row r2 = row;
		static const char tail[] = ",4,42,\"a,b\"\"c\",ipi_send_cpumask,call,0xffffffff81000010,foo+0x92,"
					   "0xffffffff81000020,,0xffffffff81234560,baz,Function call interrupts\n";
		char w2[512];

		r2.target_cpu = 5;
		ipt_strbuf_reset(&sb);
		CHECK(ipt_rows_format(IPT_ROWS_CSV, true, &row, &sb) == 0 &&
		      ipt_rows_format(IPT_ROWS_CSV, true, &r2, &sb) == 0, "csv: two targets of a send");
		snprintf(w2, sizeof(w2), "1234567890123,7,1,3%s1234567890123,7,1,5%s", tail, tail);
		CHECK_STR(ipt_strbuf_str(&sb), w2);
		r2.comm = "a_very_long_command_name_with_no_comma";
		r2.func_sym = "a_function_name_longer_than_16,with_a_comma";
		r2.reason = "0123456789abcdef\"quote after 16";
		ipt_strbuf_reset(&sb);
		CHECK(ipt_rows_format(IPT_ROWS_CSV, true, &r2, &sb) == 0, "csv: other names, same send");
		CHECK_STR(ipt_strbuf_str(&sb), "1234567890123,7,1,5,4,42,a_very_long_command_name_with_no_comma,"
					       "ipi_send_cpumask,call,0xffffffff81000010,foo+0x92,0xffffffff81000020,,"
					       "0xffffffff81234560,\"a_function_name_longer_than_16,with_a_comma\","
					       "\"0123456789abcdef\"\"quote after 16\"\n");
	}

	/* appended, not replaced: two rows make two lines */
	ipt_strbuf_reset(&sb);
	ipt_rows_header(IPT_ROWS_CSV, true, &sb);
	ipt_rows_format(IPT_ROWS_CSV, true, &row, &sb);
	ipt_rows_format(IPT_ROWS_CSV, true, &row, &sb);
	{
		int lines = 0;

		for (size_t i = 0; i < sb.len; i++)
			lines += sb.buf[i] == '\n';
		CHECK(lines == 3, "header and two rows: %d lines", lines);
	}
	ipt_cpuset_free(&set);
	ipt_strbuf_free(&sb);
}

/* ------------------------------------------------------------------ */
/* Parquet: a file written here, its footer read back                  */
/* ------------------------------------------------------------------ */

/* Thrift compact protocol (the Parquet footer's encoding) */
struct tc {
	const uint8_t *p;
	size_t n, pos;
	bool err;
};

static uint8_t tc_byte(struct tc *c)
{
	if (c->pos >= c->n) {
		c->err = true;
		return 0;
	}
	return c->p[c->pos++];
}

static uint64_t tc_varint(struct tc *c)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64 && !c->err; shift += 7) {
		uint8_t b = tc_byte(c);

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->err = true;
	return 0;
}

static int64_t tc_zigzag(struct tc *c)
{
	uint64_t v = tc_varint(c);

	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* tc_binary - a string: a varint length and the bytes */
static const uint8_t *tc_binary(struct tc *c, size_t *len)
{
	uint64_t n = tc_varint(c);
	const uint8_t *s = c->p + c->pos;

	if (c->err || n > c->n - c->pos) {
		c->err = true;
		*len = 0;
		return NULL;
	}
	c->pos += n;
	*len = (size_t)n;
	return s;
}

/* tc_field - the next field header of a struct: false at its stop byte */
static bool tc_field(struct tc *c, int *last, int *type)
{
	uint8_t b = tc_byte(c);

	if (c->err || b == 0)
		return false;
	*type = b & 0x0f;
	if (b >> 4)
		*last += b >> 4;
	else
		*last = (int)tc_zigzag(c);
	return true;
}

static void tc_list_head(struct tc *c, uint64_t *size, int *etype)
{
	uint8_t b = tc_byte(c);

	*size = b >> 4;
	*etype = b & 0x0f;
	if (*size == 15)
		*size = tc_varint(c);
}

static void tc_skip(struct tc *c, int type, bool in_list, int depth);

static void tc_skip_struct(struct tc *c, int depth)
{
	int last = 0, type;

	while (!c->err && tc_field(c, &last, &type))
		tc_skip(c, type, false, depth + 1);
}

static void tc_skip(struct tc *c, int type, bool in_list, int depth)
{
	uint64_t n;
	size_t len;
	int et;

	if (depth > 32) {
		c->err = true;
		return;
	}
	switch (type) {
	case 1: case 2:			/* booleans: the value is in the type, but a byte in lists */
		if (in_list)
			tc_byte(c);
		break;
	case 3:
		tc_byte(c);
		break;
	case 4: case 5: case 6:
		tc_varint(c);
		break;
	case 7:
		for (int i = 0; i < 8; i++)
			tc_byte(c);
		break;
	case 8:
		tc_binary(c, &len);
		break;
	case 9: case 10:
		tc_list_head(c, &n, &et);
		for (uint64_t i = 0; i < n && !c->err; i++)
			tc_skip(c, et, true, depth + 1);
		break;
	case 11: {
		uint8_t kv;

		n = tc_varint(c);
		if (!n)
			break;
		kv = tc_byte(c);
		for (uint64_t i = 0; i < n && !c->err; i++) {
			tc_skip(c, kv >> 4, true, depth + 1);
			tc_skip(c, kv & 0x0f, true, depth + 1);
		}
		break;
	}
	case 12:
		tc_skip_struct(c, depth);
		break;
	default:
		c->err = true;
	}
}

struct pq_elem {
	char name[64];
	int type;		/* -1: none (a group) */
	int children;
};

struct pq_meta {
	int64_t num_rows;
	struct pq_elem el[128];
	int nel;
	int64_t rg_rows[64];
	int nrg;
	char kv[16][2][128];
	int nkv;
};

static void pq_copy(char *dst, size_t size, const uint8_t *s, size_t n)
{
	if (n >= size)
		n = size - 1;
	memcpy(dst, s, n);
	dst[n] = 0;
}

/* pq_footer - FileMetaData: 2 schema, 3 num_rows, 4 row_groups, 5 key_value_metadata */
static bool pq_footer(const uint8_t *p, size_t n, struct pq_meta *m)
{
	struct tc c = { p, n, 0, false };
	int last = 0, type;

	memset(m, 0, sizeof(*m));
	while (!c.err && tc_field(&c, &last, &type)) {
		uint64_t cnt;
		int et;

		if (last == 3 && type == 6) {
			m->num_rows = tc_zigzag(&c);
		} else if ((last == 2 || last == 4 || last == 5) && type == 9) {
			tc_list_head(&c, &cnt, &et);
			for (uint64_t i = 0; i < cnt && !c.err; i++) {
				int fl = 0, ft;

				if (et != 12) {
					c.err = true;
					break;
				}
				if (last == 2 && m->nel < 128) {
					struct pq_elem *e = &m->el[m->nel++];

					e->type = -1;
					while (!c.err && tc_field(&c, &fl, &ft)) {
						size_t len;
						const uint8_t *s;

						if (fl == 1 && ft == 5)
							e->type = (int)tc_zigzag(&c);
						else if (fl == 5 && ft == 5)
							e->children = (int)tc_zigzag(&c);
						else if (fl == 4 && ft == 8 && (s = tc_binary(&c, &len)))
							pq_copy(e->name, sizeof(e->name), s, len);
						else
							tc_skip(&c, ft, false, 1);
					}
				} else if (last == 4 && m->nrg < 64) {
					int64_t rows = -1;

					while (!c.err && tc_field(&c, &fl, &ft)) {
						if (fl == 3 && ft == 6)
							rows = tc_zigzag(&c);
						else
							tc_skip(&c, ft, false, 1);
					}
					m->rg_rows[m->nrg++] = rows;
				} else if (last == 5 && m->nkv < 16) {
					while (!c.err && tc_field(&c, &fl, &ft)) {
						size_t len;
						const uint8_t *s;

						if ((fl == 1 || fl == 2) && ft == 8 && (s = tc_binary(&c, &len)))
							pq_copy(m->kv[m->nkv][fl - 1], sizeof(m->kv[0][0]), s, len);
						else
							tc_skip(&c, ft, false, 1);
					}
					m->nkv++;
				} else {
					tc_skip_struct(&c, 1);
				}
			}
		} else {
			tc_skip(&c, type, false, 0);
		}
	}
	return !c.err;
}

/* pq_subtree - the element after the subtree of element i */
static int pq_subtree(const struct pq_meta *m, int i)
{
	int nc = i < m->nel ? m->el[i].children : 0;

	i++;
	for (int k = 0; k < nc && i < m->nel; k++)
		i = pq_subtree(m, i);
	return i;
}

/* pq_read - the file's structure: magic at both ends, footer, metadata */
static bool pq_read(const char *path, struct pq_meta *m, size_t *fsize)
{
	size_t n;
	uint8_t *b = slurp(path, &n);
	uint32_t flen;
	bool ok;

	*fsize = n;
	if (!b)
		return false;
	if (n < 12 || memcmp(b, "PAR1", 4) || memcmp(b + n - 4, "PAR1", 4)) {
		printf("  %s: no PAR1 magic at both ends (%zu bytes)\n", path, n);
		free(b);
		return false;
	}
	flen = (uint32_t)get_uint(b + n - 8, 4, false);
	if (flen == 0 || flen > n - 12) {
		printf("  %s: footer length %u of a %zu-byte file\n", path, flen, n);
		free(b);
		return false;
	}
	ok = pq_footer(b + n - 8 - flen, flen, m);
	if (!ok)
		printf("  %s: the footer does not parse as Thrift compact FileMetaData\n", path);
	free(b);
	return ok;
}

enum { PQ_BOOLEAN = 0, PQ_INT32 = 1, PQ_INT64 = 2, PQ_BYTE_ARRAY = 6, PQ_GROUP = -1 };

struct col {
	const char *name;
	int type;
};

static void check_columns(const struct pq_meta *m, bool explode, bool match, const char *what)
{
	const struct col base[] = {
		{ "ts_ns", PQ_INT64 }, { "id", PQ_INT64 }, { "src_cpu", PQ_INT32 },
		{ explode ? "target_cpu" : "targets", explode ? PQ_INT32 : PQ_GROUP },
		{ "ntargets", PQ_INT32 }, { "pid", PQ_INT32 }, { "comm", PQ_BYTE_ARRAY },
		{ "event", PQ_BYTE_ARRAY }, { "kind", PQ_BYTE_ARRAY }, { "callsite", PQ_BYTE_ARRAY },
		{ "callsite_sym", PQ_BYTE_ARRAY }, { "callback", PQ_BYTE_ARRAY },
		{ "callback_sym", PQ_BYTE_ARRAY }, { "func", PQ_BYTE_ARRAY },
		{ "func_sym", PQ_BYTE_ARRAY }, { "reason", PQ_BYTE_ARRAY },
		{ "lat_ns", PQ_INT64 }, { "handler_ns", PQ_INT64 }, { "handler_ts_ns", PQ_INT64 },
		{ "matched", PQ_BOOLEAN }, { "coalesced", PQ_BOOLEAN },
		{ "unmatched_reason", PQ_BYTE_ARRAY }, { "callsite_func", PQ_BYTE_ARRAY },
		{ "func_name", PQ_BYTE_ARRAY }, { "stack", PQ_GROUP },
	};
	int want = match ? 25 : 16, got = m->nel ? m->el[0].children : 0, i = 1, bad = 0;
	char names[1024] = "";

	CHECK(got == want, "%s: the schema's root has %d columns, want %d", what, got, want);
	for (int k = 0; k < got && k < want && i < m->nel; k++) {
		const struct pq_elem *e = &m->el[i];

		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s(%d)", k ? "," : "",
			 e->name, e->type);
		if (strcmp(e->name, base[k].name) || e->type != base[k].type ||
		    (base[k].type == PQ_GROUP) != (e->children > 0))
			bad++;
		i = pq_subtree(m, i);
	}
	CHECK(bad == 0 && i == m->nel, "%s: columns %s (%d of %d schema elements)", what, names, i, m->nel);
}

static bool kv_has_value(const struct pq_meta *m, const char *v)
{
	for (int i = 0; i < m->nkv; i++)
		if (!strcmp(m->kv[i][1], v))
			return true;
	return false;
}

static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void test_parquet(void)
{
	struct ipt_cpuset one = IPT_CPUSET_INIT, many = IPT_CPUSET_INIT;
	char dir[PATH_MAX + 16], path[PATH_MAX + 64];
	struct ipt_ipi_row rows[5];
	struct pq_meta *m = calloc(1, sizeof(*m));
	size_t fsize;

	snprintf(dir, sizeof(dir), "%s/pq", tmpdir);
	mkdir(dir, 0700);
	ipt_cpuset_add(&one, 3);
	ipt_cpuset_parse_list(&many, "0-2,6", 5);
	for (int i = 0; i < 5; i++) {
		hand_row(&rows[i], i == 2 ? &many : &one);
		rows[i].ts += (uint64_t)i * 1000;
		rows[i].id = (uint64_t)i;
		rows[i].target_cpu = i == 2 ? 6 : 3;
	}

	for (int pass = 0; pass < 4; pass++) {
		bool explode = pass != 1, match = pass >= 2;
		enum ipt_pq_codec codec = pass == 3 ? IPT_PQ_ZSTD : IPT_PQ_UNCOMPRESSED;
		struct ipt_parquet_opts o = {
			.sz = sizeof(o), .explode = explode, .codec = codec, .row_group_rows = 2,
			.ts_is_ns = true, .source = "unit_api-source", .clock = "mono",
			.kernel = "6.1.0-unit", .match_columns = match,
		};
		struct ipt_parquet_writer *w;
		char what[64];

		snprintf(what, sizeof(what), "parquet pass %d (explode %d, match %d, codec %d)", pass,
			 explode, match, (int)codec);
		snprintf(path, sizeof(path), "%s/rows%d.parquet", dir, pass);
		w = ipt_parquet_open(path, &o);
		CHECK(w != NULL, "%s: open: %s", what, ipt_errmsg());
		if (!w)
			continue;
		CHECK(ipt_parquet_rows(w) == 0, "%s: %llu rows before any", what,
		      (unsigned long long)ipt_parquet_rows(w));
		CHECK(!is_file(path), "%s: the file is there before it is complete", what);
		for (int i = 0; i < 5; i++) {
			int rc;

			if (match) {
				struct ipt_row_match rm = { 0 };

				rm.known = true;
				rm.matched = i != 4;
				rm.unmatched = i == 4 ? IPT_UNMATCHED_TRACE_ENDED : IPT_UNMATCHED_NONE;
				rm.has_latency = i != 4;
				rm.latency_ns = 1500 + (uint64_t)i;
				rm.has_handler = i == 1;
				rm.handler_ns = 800;
				rm.has_handler_ts = i != 4;
				rm.handler_ts_ns = rows[i].ts + rm.latency_ns;
				rc = ipt_parquet_add_match(w, &rows[i], i == 3 ? NULL : &rm);
			} else {
				rc = ipt_parquet_add(w, &rows[i]);
			}
			CHECK(rc == 0, "%s: add row %d: %s", what, i, ipt_errmsg());
		}
		CHECK(ipt_parquet_rows(w) == 5, "%s: %llu rows added, want 5", what,
		      (unsigned long long)ipt_parquet_rows(w));
		CHECK(ipt_parquet_close(w) == 0, "%s: close: %s", what, ipt_errmsg());
		if (!pq_read(path, m, &fsize)) {
			CHECK(0, "%s: %s is no readable Parquet file (%zu bytes)", what, path, fsize);
			continue;
		}
		CHECK(m->num_rows == 5, "%s: the footer says %lld rows", what, (long long)m->num_rows);
		/* row_group_rows 2: groups of 2, 2 and 1 */
		CHECK(m->nrg == 3 && m->rg_rows[0] == 2 && m->rg_rows[1] == 2 && m->rg_rows[2] == 1,
		      "%s: %d row groups (%lld, %lld, %lld)", what, m->nrg, (long long)m->rg_rows[0],
		      (long long)m->rg_rows[1], (long long)m->rg_rows[2]);
		check_columns(m, explode, match, what);
		CHECK(kv_has_value(m, "mono") && kv_has_value(m, "unit_api-source") &&
		      kv_has_value(m, "6.1.0-unit"), "%s: the key/value metadata lacks source, clock or kernel (%d pairs)",
		      what, m->nkv);
		unlink(path);
	}

	/* abort: the partial file is dropped, and nothing is left beside it */
	{
		struct ipt_parquet_opts o = { .sz = sizeof(o), .explode = true, .row_group_rows = 1 };
		struct ipt_parquet_writer *w;

		snprintf(path, sizeof(path), "%s/aborted.parquet", dir);
		w = ipt_parquet_open(path, &o);
		CHECK(w != NULL, "open: %s", ipt_errmsg());
		for (int i = 0; w && i < 3; i++)
			ipt_parquet_add(w, &rows[i]);
		CHECK(w && ipt_parquet_rows(w) == 3, "rows before abort");
		ipt_parquet_abort(w);
		CHECK(!is_file(path), "aborted file %s exists", path);
		CHECK(dir_entries(dir) == 0, "%d files left in %s after abort", dir_entries(dir), dir);
		ipt_parquet_abort(NULL);
		/* a writer to a directory that does not exist: NULL, and a reason */
		snprintf(path, sizeof(path), "%s/no/such/dir/x.parquet", dir);
		CHECK(ipt_parquet_open(path, &o) == NULL && ipt_errmsg()[0], "open in a missing directory");
	}
	rmdir(dir);
	ipt_cpuset_free(&one);
	ipt_cpuset_free(&many);
	free(m);
}

/* ------------------------------------------------------------------ */
/* Groups over a set of target CPUs: the per-CPU tables summed here    */
/* ------------------------------------------------------------------ */

/* same_key - whether two groups have the same key for by */
static bool same_key(const struct ipt_report_group *a, const struct ipt_report_group *b)
{
	return a->pid == b->pid && a->src_cpu == b->src_cpu && a->addr == b->addr && a->kind == b->kind &&
	       ((!a->comm && !b->comm) || (a->comm && b->comm && !strcmp(a->comm, b->comm)));
}

/* summed_count - the count of key g summed over the per-CPU tables of set */
static uint64_t summed_count(struct ipt_report *r, enum ipt_group_by by, const struct ipt_cpuset *set,
			     int ncpus, const struct ipt_report_group *g)
{
	uint64_t c = 0;

	for (int cpu = 0; cpu < ncpus; cpu++) {
		const struct ipt_report_group *v;
		size_t n;

		if (!ipt_cpuset_has(set, (unsigned int)cpu))
			continue;
		v = ipt_report_groups(r, by, cpu, IPT_SORT_KEY, &n);
		for (size_t i = 0; v && i < n; i++)
			if (same_key(&v[i], g))
				c += v[i].count;
	}
	return c;
}

static void test_groups_on(void)
{
	static const enum ipt_group_by keys[] = { IPT_BY_COMM, IPT_BY_TASK, IPT_BY_CPU, IPT_BY_CALLSITE,
						  IPT_BY_KIND };
	char path[PATH_MAX + 64];
	struct ipt_trace *t;
	struct ipt_report *r;
	int ncpus, checked = 0, bad = 0;

	snprintf(path, sizeof(path), "%s/recorded/busy-stacks.dat", traces);
	if (!is_file(path)) {
		skip("groups on a set", "no busy-stacks.dat");
		return;
	}
	t = ipt_trace_open(path);
	r = t ? ipt_report_run(t, NULL) : NULL;
	CHECK(r != NULL, "%s: %s", path, ipt_errmsg());
	if (!r) {
		ipt_trace_close(t);
		return;
	}
	ncpus = ipt_trace_ncpus(t);
	for (unsigned int mask = 1; mask < 1u << ncpus && mask < 8; mask++) {
		struct ipt_cpuset set = IPT_CPUSET_INIT;
		uint64_t total = 0, want = 0;

		for (int cpu = 0; cpu < ncpus; cpu++)
			if (mask & 1u << cpu)
				ipt_cpuset_add(&set, (unsigned int)cpu);
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			size_t n, nall;
			struct ipt_report_group *v = ipt_report_groups_on(r, keys[k], &set, IPT_SORT_COUNT, &n);
			const struct ipt_report_group *all = ipt_report_groups(r, keys[k], -1, IPT_SORT_KEY, &nall);

			CHECK(v != NULL && all != NULL, "groups on 0x%x by %s: %s", mask,
			      ipt_group_by_name(keys[k]), ipt_errmsg());
			total = 0;
			for (size_t i = 0; v && i < n; i++) {
				uint64_t c = summed_count(r, keys[k], &set, ncpus, &v[i]);

				total += v[i].count;
				checked++;
				if (c != v[i].count || (i && v[i].count > v[i - 1].count))
					if (bad++ < 5)
						printf("  on 0x%x by %s, group %zu: %llu, the CPUs' tables say %llu\n",
						       mask, ipt_group_by_name(keys[k]), i,
						       (unsigned long long)v[i].count, (unsigned long long)c);
			}
			/* every key of the whole table with a count on the set is there */
			want = 0;
			for (size_t i = 0; all && i < nall; i++)
				want += summed_count(r, keys[k], &set, ncpus, &all[i]);
			CHECK(total == want && total > 0, "on 0x%x by %s: %llu rows, the CPUs' tables %llu", mask,
			      ipt_group_by_name(keys[k]), (unsigned long long)total, (unsigned long long)want);
			free(v);
		}
		ipt_cpuset_free(&set);
	}
	CHECK(bad == 0 && checked > 20, "%d of %d groups on a set disagree with the per-CPU tables", bad, checked);
	{
		size_t n;

		CHECK(ipt_report_groups_on(r, IPT_BY_COMM, NULL, IPT_SORT_COUNT, &n) == NULL && n == 0,
		      "groups on no set");
	}
	ipt_report_free(r);
	ipt_trace_close(t);
}

/* roles: a set's totals and pairs against the per-CPU rows and pairs,
 * added up here one CPU at a time */
static void test_roles(void)
{
	char path[PATH_MAX + 64];
	struct ipt_trace *t;
	struct ipt_report *r;
	int ncpus;

	snprintf(path, sizeof(path), "%s/recorded/busy-stacks.dat", traces);
	if (!is_file(path)) {
		skip("roles", "no busy-stacks.dat");
		return;
	}
	t = ipt_trace_open(path);
	r = t ? ipt_report_run(t, NULL) : NULL;
	CHECK(r != NULL, "%s: %s", path, ipt_errmsg());
	if (!r) {
		ipt_trace_close(t);
		return;
	}
	ncpus = ipt_trace_ncpus(t);
	for (unsigned int mask = 0; mask < 1u << ncpus && mask < 8; mask++) {
		struct ipt_cpuset set = IPT_CPUSET_INIT;
		struct ipt_report_role *ro;
		struct ipt_report_pair *p;
		const struct ipt_report_pair *all;
		uint64_t ipis = 0, kinds[IPT_KIND__COUNT] = { 0 }, rec = 0, stk = 0, psum = 0;
		size_t n, nall;
		unsigned int nc = 0;
		int bad = 0;
		double d = ipt_report_summary(r)->duration_s;

		for (int cpu = 0; cpu < ncpus; cpu++) {
			const struct ipt_report_cpu *cp = ipt_report_cpu(r, cpu);

			if (!(mask & 1u << cpu))
				continue;
			ipt_cpuset_add(&set, (unsigned int)cpu);
			nc++;
			ipis += cp->ipis;
			rec += cp->recorder_ipis;
			stk += cp->with_stack;
			for (int k = 0; k < IPT_KIND__COUNT; k++)
				kinds[k] += cp->by_kind[k];
		}
		ipt_cpuset_add(&set, 4000);	/* beyond the table: not counted */
		ro = ipt_report_role(r, &set);
		CHECK(ro != NULL, "role 0x%x: %s", mask, ipt_errmsg());
		if (ro) {
			CHECK(ro->ncpus == nc && ro->ipis == ipis && !memcmp(ro->by_kind, kinds, sizeof(kinds)) &&
			      ro->recorder_ipis == rec && ro->with_stack == stk,
			      "role 0x%x: %u CPUs %llu IPIs, the CPUs say %u, %llu", mask, ro->ncpus,
			      (unsigned long long)ro->ipis, nc, (unsigned long long)ipis);
			CHECK(d > 0 && fabs(ro->per_s - (double)ipis / d) < 1e-9 &&
			      fabs(ro->per_cpu_per_s - (nc ? (double)ipis / d / nc : 0.0)) < 1e-9,
			      "role 0x%x: %g/s, %g/s per CPU", mask, ro->per_s, ro->per_cpu_per_s);
		}
		free(ro);
		p = ipt_report_pairs_on(r, &set, &n);
		all = ipt_report_pairs(r, &nall);
		CHECK(p != NULL, "pairs on 0x%x: %s", mask, ipt_errmsg());
		for (size_t i = 0; p && i < n; i++) {
			uint64_t c = 0;

			psum += p[i].count;
			for (size_t j = 0; j < nall; j++)
				if (all[j].target_cpu >= 0 && mask & 1u << all[j].target_cpu &&
				    all[j].callsite == p[i].callsite && all[j].function == p[i].function)
					c += all[j].count;
			if (c != p[i].count || p[i].target_cpu != -1 || (i && p[i].count > p[i - 1].count) ||
			    (i && p[i].callsite == p[i - 1].callsite && p[i].function == p[i - 1].function))
				bad++;
		}
		CHECK(p && bad == 0 && psum == ipis, "pairs on 0x%x: %d bad, %llu IPIs of %llu", mask, bad,
		      (unsigned long long)psum, (unsigned long long)ipis);
		free(p);
		ipt_cpuset_free(&set);
	}
	{
		size_t n = 7;

		CHECK(ipt_report_role(r, NULL) == NULL && ipt_errcode() == IPT_ERR_INVALID, "role of no set");
		CHECK(ipt_report_pairs_on(r, NULL, &n) == NULL && n == 0 && ipt_errcode() == IPT_ERR_INVALID,
		      "pairs on no set");
	}
	ipt_report_free(r);
	ipt_trace_close(t);
}

/* diff: the test by hand, and a recording against itself */
static void test_diff(void)
{
	static const int keys[] = { IPT_DIFF_BY_ROLE, IPT_BY_FUNCTION, IPT_BY_CALLSITE, IPT_BY_COMM, IPT_BY_KIND,
				    IPT_BY_PID, IPT_BY_CPU };
	char path[PATH_MAX + 64];
	struct ipt_trace *t;
	struct ipt_diff_side *a, *b;
	struct ipt_report *r;
	double p;

	/* 10 against 0 over equal exposures: 2 * 0.5^10; dispersion 2 halves
	 * the counts: 2 * 0.5^5; 5 against 5: 1; 0 against 3 over 1:3 */
	p = ipt_diff_pvalue(10, 1, 0, 1, 1);
	CHECK(fabs(p - 2 * pow(0.5, 10)) < 1e-12, "p(10, 0) = %g", p);
	p = ipt_diff_pvalue(10, 1, 0, 1, 2);
	CHECK(fabs(p - 2 * pow(0.5, 5)) < 1e-12, "p(10, 0; dispersion 2) = %g", p);
	p = ipt_diff_pvalue(10, 5, 0, 5, 0.5);
	CHECK(fabs(p - 2 * pow(0.5, 10)) < 1e-12, "a dispersion below 1 counts as 1: %g", p);
	p = ipt_diff_pvalue(5, 1, 5, 1, 1);
	CHECK(p == 1, "p(5, 5) = %g", p);
	p = ipt_diff_pvalue(0, 1, 3, 3, 1);
	CHECK(fabs(p - 2 * pow(0.75, 3)) < 1e-12, "p(0, 3 over 1:3) = %g", p);
	/* 3 against 1, equal exposures: P(X >= 3) = 5/16, two-sided 5/8 */
	p = ipt_diff_pvalue(3, 1, 1, 1, 1);
	CHECK(fabs(p - 0.625) < 1e-12, "p(3, 1) = %g", p);
	CHECK(isnan(ipt_diff_pvalue(0, 1, 0, 1, 1)) && isnan(ipt_diff_pvalue(1, 0, 1, 1, 1)), "no counts, no test");
	CHECK_STR(ipt_diff_status_name(IPT_DIFF_GONE), "gone");
	CHECK_STR(ipt_role_name(IPT_ROLE_ISOLATED), "isolated");

	snprintf(path, sizeof(path), "%s/recorded/busy-stacks.dat", traces);
	if (!is_file(path)) {
		skip("diff", "no busy-stacks.dat");
		return;
	}
	t = ipt_trace_open(path);
	a = t ? ipt_diff_read(t, NULL) : NULL;
	b = t ? ipt_diff_read(t, NULL) : NULL;
	r = t ? ipt_report_run(t, NULL) : NULL;
	CHECK(a && b && r, "%s: %s", path, ipt_errmsg());
	if (a && b && r) {
		const struct ipt_diff_info *in = ipt_diff_info(a);
		uint64_t counted = ipt_report_summary(r)->ipis_counted;

		CHECK(in->ipis + in->recorder_ipis == counted && in->ipis > 0, "diff tallied %llu + %llu, report %llu",
		      (unsigned long long)in->ipis, (unsigned long long)in->recorder_ipis,
		      (unsigned long long)counted);
		CHECK(in->windows >= 32 && in->windows <= 64, "%u windows", in->windows);
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			size_t n;
			struct ipt_diff_row *v = ipt_diff_table(a, b, keys[k], &n);
			uint64_t sum = 0;
			bool same = v != NULL;

			for (size_t i = 0; v && i < n; i++) {
				sum += v[i].count[0];
				same = same && v[i].count[0] == v[i].count[1] && v[i].status == IPT_DIFF_SAME &&
				       v[i].p > 0.999 && v[i].ratio == 1;
			}
			CHECK(v && sum == in->ipis && same, "by %d: %zu rows, %llu of %llu, all same: %d", keys[k],
			      n, (unsigned long long)sum, (unsigned long long)in->ipis, same);
			free(v);
		}
		{
			size_t n;

			CHECK(ipt_diff_table(a, b, IPT_BY_STACK, &n) == NULL && n == 0,
			      "no diff by stack without opts.latency");
			CHECK(ipt_diff_table(a, b, IPT_BY_TASK, &n) == NULL && n == 0, "no diff by task");
		}
		{	/* with the matching: stacks, latencies */
			struct ipt_diff_opts o = { .sz = sizeof(o), .latency = true };
			struct ipt_diff_side *la = ipt_diff_read(t, &o);
			size_t n;
			struct ipt_diff_row *v = la ? ipt_diff_table(la, la, IPT_BY_STACK, &n) : NULL;
			uint64_t sum = 0, with = 0, lat = 0;

			for (size_t i = 0; v && i < n; i++) {
				sum += v[i].count[0];
				if (strcmp(v[i].key, "(no stack)"))
					with += v[i].count[0];
				lat += v[i].latency[0] ? ipt_dist_count(v[i].latency[0]) : 0;
			}
			CHECK(v && sum == in->ipis && with > 0 && lat > 0,
			      "by stack: %llu rows (%llu with a stack, %llu latencies) of %llu: %s",
			      (unsigned long long)sum, (unsigned long long)with, (unsigned long long)lat,
			      (unsigned long long)in->ipis, v ? "" : ipt_errmsg());
			free(v);
			ipt_diff_side_free(la);
		}
	}
	ipt_report_free(r);
	ipt_diff_side_free(a);
	ipt_diff_side_free(b);
	ipt_trace_close(t);
}

int main(void)
{
	const char *base = getenv("TMPDIR");

	mallopt(M_PERTURB, 0x5a);	/* no malloc'd byte is 0 by chance */
	find_dirs();
	snprintf(tmpdir, sizeof(tmpdir), "%s/unit_api.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	if (!is_dir(traces))
		skip("traces", "no shared traces (../shared/traces, $IPITRACE_TRACES)");
	test_names();
	test_strbuf();
	test_headers();
	test_irq_counts();
	test_formats();
	test_render_fields();
	test_ipi_iter();
	test_kept_rows();
	test_rows_write();
	test_frames();
	test_groups_on();
	test_roles();
	test_diff();
	test_rows();
	test_parquet();
	rmdir(tmpdir);
	TEST_MAIN_END();
}
