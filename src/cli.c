// SPDX-License-Identifier: GPL-2.0-or-later
/* cli.c - what every command shares: messages */
#include "commands.h"

#include <ctype.h>

#include <getopt.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void err_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("ipitrace: ", fmt, ap);
	va_end(ap);
}

/* is_own_trace_name - ipitrace.dat, or ipitrace-*.dat (the default command's) */
static bool is_own_trace_name(const char *name)
{
	size_t n = strlen(name);

	if (!strcmp(name, DEFAULT_TRACE))
		return true;
	return n > strlen("ipitrace-.dat") && !strncmp(name, "ipitrace-", 9) &&
	       !strcmp(name + n - 4, ".dat");
}

const char *default_trace(const char *cmd, char *buf, size_t size)
{
	struct timespec best = { 0, 0 };
	DIR *d = opendir(".");
	struct dirent *e;
	int found = 0;

	if (!d) {
		fprintf(stderr, "ipitrace %s: no FILE given, and the current directory cannot be read: %s\n",
			cmd, strerror(errno));
		return NULL;
	}
	while ((e = readdir(d))) {
		struct stat st;

		if (!is_own_trace_name(e->d_name) || stat(e->d_name, &st) || !S_ISREG(st.st_mode) ||
		    strlen(e->d_name) >= size)
			continue;
		/* the newest; equal times: the greater name (a later -N suffix) */
		if (found && (st.st_mtim.tv_sec < best.tv_sec ||
			      (st.st_mtim.tv_sec == best.tv_sec && (st.st_mtim.tv_nsec < best.tv_nsec ||
			       (st.st_mtim.tv_nsec == best.tv_nsec && strcmp(e->d_name, buf) < 0)))))
			continue;
		best = st.st_mtim;
		snprintf(buf, size, "%s", e->d_name);
		found++;
	}
	closedir(d);
	if (!found) {
		fprintf(stderr, "ipitrace %s: no FILE given, and no %s or ipitrace-*.dat here: record "
			"one with `ipitrace` (or `ipitrace record`), or name a FILE\n", cmd, DEFAULT_TRACE);
		return NULL;
	}
	fprintf(stderr, "ipitrace %s: reading %s (the newest ipitrace*.dat here)\n", cmd, buf);
	return buf;
}

int usage_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ipitrace%s%s: ", *cmd ? " " : "", cmd);	/* "": no command */
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see `ipitrace%s%s --help`)\n", *cmd ? " " : "", cmd);
	return 2;
}

int opt_err(const char *cmd, int c, char **argv)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";

	if (c == ':') {
		if (optopt && strncmp(arg, "--", 2))
			return usage_err(cmd, "option -%c needs an argument", optopt);
		return usage_err(cmd, "option %s needs an argument", arg);
	}
	/* dump's CPUs are those the events were recorded on, not the IPIs' targets */
	if (optopt == 'c' && !strcmp(cmd, "dump"))
		return usage_err(cmd, "unknown option -c: events recorded on CPUs are --on-cpus LIST (IPIs to CPUs:"
				      " report -c LIST, or -F 'cpu == N')");
	if (optopt)
		return usage_err(cmd, "unknown option -%c", optopt);
	return usage_err(cmd, "unknown option %s", arg);
}

int parse_duration(const char *s, double *secs)
{
	static const struct { const char *suffix; double mult; } units[] = {
		{ "", 1 }, { "s", 1 }, { "ms", 1e-3 }, { "m", 60 }, { "min", 60 },
		{ "h", 3600 }, { "d", 86400 },
	};
	char *end;
	double v;

	if (!*s || strchr(" \t+-", *s))
		return -1;
	v = strtod(s, &end);
	if (end == s || !isfinite(v) || !(v > 0))
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].suffix)) {
			*secs = v * units[i].mult;
			return *secs > 0 && *secs < 1e9 ? 0 : -1;
		}
	}
	return -1;
}

/* the provenance keys a report shows after the command line, in order */
const char *const prov_keys[] = {
	"recorder", "command", "command_end", "events", "filter", "cpus", "stacks", "user_stacks", "buffer_kb", "clock",
	"start_utc", "recorder_pids", NULL,
};

int machine_cpus_within(const char *cmd, const char *opt, const char *arg, struct ipt_cpuset *set)
{
	struct ipt_cpuset all = IPT_CPUSET_INIT;
	int ret;

	ipt_cpuset_init(&all);
	if (ipt_possible_cpus(&all)) {
		err_msg("%s", ipt_errmsg());
		ipt_cpuset_free(&all);
		return -1;
	}
	ret = cpus_within(cmd, opt, arg, set, &all, "this machine");
	ipt_cpuset_free(&all);
	return ret;
}

int trace_cpus(struct ipt_trace *t, struct ipt_cpuset *set)
{
	ipt_cpuset_clear(set);
	for (int k = 0; k < ipt_trace_ncpus(t); k++)
		if (ipt_cpuset_add(set, (unsigned int)k))
			return -1;
	return 0;
}

char *cpus_filter(const char *cmd, const char *list, const char *filter, struct ipt_trace *t)
{
	struct ipt_cpuset set = IPT_CPUSET_INIT, all = IPT_CPUSET_INIT;
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	char *text = NULL;
	size_t len;

	ipt_cpuset_init(&set);
	ipt_cpuset_init(&all);
	if (ipt_cpuset_parse_list(&set, list, strlen(list)) || ipt_cpuset_empty(&set)) {
		usage_err(cmd, "--cpus: bad CPU list '%s'", list);
		goto out;
	}
	if (trace_cpus(t, &all))
		goto oom;
	if (cpus_within(cmd, "--cpus", list, &set, &all, "the trace"))
		goto out;
	/* the canonical list, never cut short */
	len = ipt_cpuset_format_list(&set, NULL, 0);
	text = malloc(len + 1);
	if (!text)
		goto oom;
	ipt_cpuset_format_list(&set, text, len + 1);
	if (filter ? ipt_strbuf_addf(&sb, "(%s) && (target_cpu & CPUS{%s})", filter, text)
		   : ipt_strbuf_addf(&sb, "target_cpu & CPUS{%s}", text))
		goto oom;
	free(text);
	ipt_cpuset_free(&set);
	ipt_cpuset_free(&all);
	text = strdup(ipt_strbuf_str(&sb));
	ipt_strbuf_free(&sb);
	if (!text)
		err_msg("out of memory");
	return text;
oom:
	err_msg("out of memory");
out:
	free(text);
	ipt_strbuf_free(&sb);
	ipt_cpuset_free(&set);
	ipt_cpuset_free(&all);
	return NULL;
}

void debug_msg(const char *fmt, ...)
{
	va_list ap;

	if (!getenv("IPITRACE_DEBUG"))
		return;
	va_start(ap, fmt);
	vmsg("ipitrace: debug: ", fmt, ap);
	va_end(ap);
}

int cpus_within(const char *cmd, const char *opt, const char *arg, struct ipt_cpuset *set,
		const struct ipt_cpuset *valid, const char *where)
{
	struct ipt_cpuset keep = IPT_CPUSET_INIT;
	char v[256], k[256];
	int ret = 0;

	ipt_cpuset_init(&keep);
	if (ipt_cpuset_copy(&keep, set)) {
		err_msg("out of memory");
		return -1;
	}
	ipt_cpuset_and(&keep, valid);
	ipt_cpuset_format_list(valid, v, sizeof(v));
	if (ipt_cpuset_empty(&keep)) {
		usage_err(cmd, "%s %s: no such CPU (%s has CPUs %s)", opt, arg, where, v);
		ret = -1;
	} else if (!ipt_cpuset_equal(&keep, set)) {
		ipt_cpuset_format_list(&keep, k, sizeof(k));
		err_msg("warning: %s %s: %s has CPUs %s only; keeping %s", opt, arg, where, v, k);
		ipt_cpuset_and(set, valid);
	}
	ipt_cpuset_free(&keep);
	return ret;
}

void buffers_read(struct ipt_trace *t, char *buf, size_t size)
{
	size_t n = 0;

	if (size)
		buf[0] = 0;
	for (int i = 0; i < ipt_trace_nbuffers(t) && n < size; i++) {
		const char *name = ipt_trace_buffer_name(t, i);

		if (!ipt_trace_buffer_size(t, i))
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", *name ? name : "top");
	}
}

/*
 * symbol_cache - where the library keeps kallsyms indexes: $IPITRACE_CACHE_DIR
 * (set but empty: nowhere), else $XDG_CACHE_HOME/ipitrace, else
 * $HOME/.cache/ipitrace (relative paths ignored, as the XDG spec says)
 */
static const char *symbol_cache(char *buf, size_t size)
{
	const char *dir = getenv("IPITRACE_CACHE_DIR"), *base;
	int n;

	if (dir)
		return *dir ? dir : NULL;
	if ((base = getenv("XDG_CACHE_HOME")) && *base == '/')
		n = snprintf(buf, size, "%s/ipitrace", base);
	else if ((base = getenv("HOME")) && *base == '/')
		n = snprintf(buf, size, "%s/.cache/ipitrace", base);
	else
		return NULL;
	return n > 0 && (size_t)n < size ? buf : NULL;
}

struct ipt_trace *open_trace(const char *path, const char *buffer, bool one_buffer, int *rc)
{
	char cache[4096];
	const struct ipt_open_opts oo = { .sz = sizeof(oo), .symbol_cache = symbol_cache(cache, sizeof(cache)) };
	/* "-": standard input (a pipe is read into a temporary file by the library) */
	struct ipt_trace *t = strcmp(path, "-") ? ipt_trace_open_opts(path, -1, &oo)
						: ipt_trace_open_opts("standard input", 0, &oo);
	int with_data = 0;

	*rc = 1;
	if (!t) {
		err_msg("%s", ipt_errmsg());
		return NULL;
	}
	if (buffer && ipt_trace_select_buffer(t, buffer)) {
		err_msg("%s", ipt_errmsg());
		*rc = ipt_errcode() == IPT_ERR_INVALID ? 2 : 1;
		ipt_trace_close(t);
		return NULL;
	}
	for (int i = 0; i < ipt_trace_nbuffers(t); i++)
		with_data += ipt_trace_buffer_size(t, i) > 0;
	if (one_buffer && with_data > 1) {
		char names[512];

		buffers_read(t, names, sizeof(names));
		err_msg("%s: data in %d buffers (%s): an IPI count over them would count each IPI "
			"once per buffer; choose one with --buffer NAME", path, with_data, names);
		*rc = 2;
		ipt_trace_close(t);
		return NULL;
	}
	*rc = 0;
	return t;
}

void note_skipped(struct ipt_trace *t)
{
	long long first;
	uint64_t skipped = ipt_trace_lines_skipped(t, &first);

	if (skipped)
		err_msg("%s: %llu line%s that %s no event skipped (the first at offset %lld)",
			ipt_trace_path(t), (unsigned long long)skipped, skipped == 1 ? "" : "s",
			skipped == 1 ? "is" : "are", first);
}

/* ---- the command line, for provenance ---- */

static char *command_line;

char *shell_join(char *const *words, int n)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;

	for (int i = 0; i < n && words[i]; i++) {
		const char *w = words[i];
		bool plain = *w != 0;

		for (const char *c = w; *c; c++)
			if (!isalnum((unsigned char)*c) && !strchr("_/.,:=@%+-", *c))
				plain = false;
		if (i)
			ipt_strbuf_add(&sb, " ", 1);
		if (plain) {
			ipt_strbuf_add(&sb, w, strlen(w));
			continue;
		}
		ipt_strbuf_add(&sb, "'", 1);
		for (const char *c = w; *c; c++) {
			if (*c == '\'')
				ipt_strbuf_add(&sb, "'\\''", 4);
			else
				ipt_strbuf_add(&sb, *c == '\n' || *c == '\r' ? " " : c, 1);
		}
		ipt_strbuf_add(&sb, "'", 1);
	}
	if (!sb.buf)
		return strdup("");
	return sb.buf;
}

static void free_command_line(void)
{
	free(command_line);
}

void cli_set_command_line(int argc, char **argv)
{
	free(command_line);
	command_line = shell_join(argv, argc);
	if (command_line && strrchr(command_line, '/') && argc > 0 && !strchr(argv[0], ' ')) {
		/* the program by its name, as a user would type it */
		const char *base = strrchr(argv[0], '/');
		size_t skip = strlen(argv[0]);

		if (base && !strncmp(command_line, argv[0], skip))
			memmove(command_line, command_line + (base + 1 - argv[0]),
				strlen(command_line) - (size_t)(base + 1 - argv[0]) + 1);
	}
	atexit(free_command_line);
}

const char *cli_command_line(void)
{
	return command_line ? command_line : "";
}

const char *bpf_sym(const struct ipt_counter *b, uint64_t addr, bool with_off, char *buf, size_t size)
{
	uint64_t off = 0;
	const char *name = ipt_counter_symbol(b, addr, &off);

	if (!addr)
		snprintf(buf, size, "0");
	else if (!name)
		snprintf(buf, size, "0x%" PRIx64, addr);
	else if (with_off && off)
		snprintf(buf, size, "%s+0x%" PRIx64, name, off);
	else
		snprintf(buf, size, "%s", name);
	return buf;
}

void bpf_json_addr(struct ipt_jw *j, const struct ipt_counter *b, const char *key, const char *sym_key,
		   uint64_t addr, bool with_off)
{
	uint64_t off = 0;
	const char *name = addr ? ipt_counter_symbol(b, addr, &off) : NULL;
	char buf[192];

	ipt_jw_kaddr(j, key, addr);
	if (name && with_off) {
		snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, name, off);
		name = buf;
	}
	ipt_jw_kstr(j, sym_key, name);
}

struct ipt_counter *open_counter(const char *cmd, const char *backend, const char *sock,
			     const struct ipt_counter_opts *bo)
{
	struct ipt_counter *b = NULL;
	bool any = !backend || !strcmp(backend, "auto");

	if (any && sock && access(sock, F_OK) == 0) {
		b = ipt_counter_connect(sock);
		if (b)
			return b;
		if (errno != ECONNREFUSED && errno != ENOENT)
			fprintf(stderr, "ipitrace %s: warning: %s; attaching instead\n", cmd, ipt_errmsg());
	}
	if (any || !strcmp(backend, "bpf")) {
		b = ipt_counter_open(bo);
		if (b || !any)
			goto out;
		if (ipt_errcode() != IPT_ERR_UNAVAILABLE)
			goto out;
		fprintf(stderr, "ipitrace %s: %s; counting with a tracefs instance instead\n", cmd, ipt_errmsg());
	}
	b = ipt_counter_open_tracefs(bo);
out:
	if (!b)
		err_msg("%s: %s", cmd, ipt_errmsg());
	return b;
}

void bpf_row_targets(const struct ipt_counter_row *r, char *buf, size_t size)
{
	struct ipt_cpuset set = IPT_CPUSET_INIT;

	ipt_cpuset_init(&set);
	for (int w = 0; w < IPT_COUNTER_ROW_MASK_WORDS; w++)
		for (int k = 0; k < 64; k++)
			if ((r->mask[w] >> k) & 1)
				ipt_cpuset_add(&set, (unsigned int)(w * 64 + k));
	ipt_cpuset_format_list(&set, buf, size);
	ipt_cpuset_free(&set);
}

int lib_err(const char *cmd)
{
	if (ipt_errcode() == IPT_ERR_INVALID)
		return usage_err(cmd, "%s", ipt_errmsg());
	err_msg("%s", ipt_errmsg());
	return 1;
}

/* csv_field - s quoted as RFC 4180 wants when it needs to be */
void csv_field(const char *s, FILE *f)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}
