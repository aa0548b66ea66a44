/* SPDX-License-Identifier: GPL-2.0-or-later */
/* commands.h - the ipitrace subcommands and the helpers they share */
#ifndef IPT_COMMANDS_H
#define IPT_COMMANDS_H

#include "ipitrace-private.h"

/*
 * Every subcommand is `int cmd_NAME(int argc, char **argv)` with argv[0]
 * the subcommand name; it parses its options with getopt_long, prints
 * usage on --help (exit 0), and returns the process exit code:
 * 0 success, 1 runtime error (one line on stderr: "ipitrace: ..."),
 * 2 usage error.
 */
int cmd_dump(int argc, char **argv);
int cmd_count(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_explode(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_explain(int argc, char **argv);
/*
 * open_counter - what top and serve count with: backend "auto" (NULL: a
 * running serve's attachment if sock answers, else BPF, else where BPF is
 * unavailable a tracefs instance, saying so on stderr as CMD), "bpf",
 * "tracefs"; NULL after the error was said
 */
struct ipt_counter *open_counter(const char *cmd, const char *backend, const char *sock,
			     const struct ipt_counter_opts *bo);
/* the header of serve's /watched.txt (watched.c): serve writes it, record
 * --from-serve reads the watched CPUs, the rows in all and kept, "#P:" */
struct watched_header {
	char watch[256];
	uint64_t total;
	long kept;
	char ncpus[32];
};
int watched_header_write(struct ipt_strbuf *out, const char *watch, uint64_t total, long kept, long ncpus);
void watched_header_read(const char *text, struct watched_header *h);
/* where `ipitrace serve` answers other ipitrace processes (top asks it) */
#define SERVE_SOCKET "/run/ipitrace/serve.sock"
int cmd_default(int argc, char **argv);	/* `ipitrace` with no arguments */

#include <stdarg.h>
#include <stdio.h>

/* vmsg - print prefix, the message and a newline on stderr */
void vmsg(const char *prefix, const char *fmt, va_list ap);
/* err_msg - print "ipitrace: <message>" on stderr */
void err_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * cpus_within - keep the CPUs of set (given as opt ARG to command cmd) that
 * are in valid (where: "this machine", "the trace").  None left: a usage
 * error naming the valid CPUs, -1 (exit 2); some dropped: a warning naming
 * those kept.  0 otherwise.
 */
int cpus_within(const char *cmd, const char *opt, const char *arg, struct ipt_cpuset *set,
		const struct ipt_cpuset *valid, const char *where);
/* machine_cpus_within - cpus_within this machine's possible CPUs */
int machine_cpus_within(const char *cmd, const char *opt, const char *arg, struct ipt_cpuset *set);
/* trace_cpus - the CPUs of trace t (0 .. its CPU count - 1) into set */
int trace_cpus(struct ipt_trace *t, struct ipt_cpuset *set);
/*
 * open_trace - open path for a command: with buffer, keep only that buffer;
 * one_buffer: a trace with data in several buffers is refused (an IPI
 * count over them would count every IPI once per buffer), naming them.
 * NULL with *rc the exit code (1, or 2 for a usage error) on failure.
 */
struct ipt_trace *open_trace(const char *path, const char *buffer, bool one_buffer, int *rc);
/* the file `record` writes without -o */
#define DEFAULT_TRACE "ipitrace.dat"
/*
 * default_trace - the trace report, dump, convert and count read without
 * FILE: the newest (modification time) of ipitrace.dat and ipitrace-*.dat
 * in the current directory, named on stderr; into buf.  NULL after saying
 * there is none (exit 1).
 */
const char *default_trace(const char *cmd, char *buf, size_t size);
/* note_skipped - after a command's success: the lines a text trace skipped */
void note_skipped(struct ipt_trace *t);
/* prov_keys - the provenance keys a report shows after the command line,
 * in order, NULL-terminated (report's text and JSON) */
extern const char *const prov_keys[];

/* buffers_read - the names of the buffers with data ("top" for the top one) */
void buffers_read(struct ipt_trace *t, char *buf, size_t size);
/*
 * usage_err - a usage error: one line "ipitrace CMD: <message> (see
 * `ipitrace CMD --help`)" on stderr; returns 2, the exit code
 */
int usage_err(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * lib_err - the library's last error, said for command cmd: one that a
 * user's argument caused (IPT_ERR_INVALID: a bad filter, CPU list or
 * option) as a usage error (usage_err, returns 2), any other as
 * "ipitrace: ..." (returns 1)
 */
int lib_err(const char *cmd);
/*
 * opt_err - after getopt_long returned '?' or ':' (opterr = 0 and an
 * optstring starting with ':' or "+:"): the one-line usage error naming the
 * option; returns 2
 */
int opt_err(const char *cmd, int c, char **argv);
/*
 * parse_duration - "30", "2.5", "30s", "5m", "2h" (also "ms", "d") into
 * seconds; -1 if it is not a positive duration
 */
int parse_duration(const char *s, double *secs);
/*
 * cpus_filter - a CPU list option (--cpus LIST) as a row filter on the
 * target CPU, ANDed to filter (may be NULL), kept to the CPUs of t (a
 * warning names those kept): a new string the caller frees, or NULL after
 * a one-line usage error (no CPU of t) or out of memory
 */
char *cpus_filter(const char *cmd, const char *list, const char *filter, struct ipt_trace *t);
/* The command line as run (shell-quoted, one line), for a recording's
 * provenance: cli_set_command_line() from main, then cli_command_line(). */
void cli_set_command_line(int argc, char **argv);
/* cli_heap_on_huge_pages - for a command that reads a trace and ends, before
 * it allocates: the heap on 2 MiB pages, one malloc arena (heap.c) */
void cli_heap_on_huge_pages(void);
const char *cli_command_line(void);
/* shell_join - words quoted for a shell, joined by spaces, on one line (caller frees) */
char *shell_join(char *const *words, int n);
/* bpf_sym - addr as "name+0xoff" (with_off) or "name" (ipt_counter_symbol), "0" for 0,
 * else "0x..."; returns buf */
const char *bpf_sym(const struct ipt_counter *b, uint64_t addr, bool with_off, char *buf, size_t size);
/* bpf_json_addr - "key":"0x..." (null for 0, as report's JSON writes an
 * address) and "sym_key": its symbol, "name+0xoff" with with_off, null
 * when unknown (top's and serve's JSON) */
void bpf_json_addr(struct ipt_jw *j, const struct ipt_counter *b, const char *key, const char *sym_key,
		   uint64_t addr, bool with_off);
/* bpf_row_targets - a flight recorder row's targets as a CPU list ("1,3-5") */
void bpf_row_targets(const struct ipt_counter_row *r, char *buf, size_t size);
/* debug_msg - print only when IPITRACE_DEBUG is set */
/* csv_field - s written to f, quoted as RFC 4180 wants when it needs to be */
void csv_field(const char *s, FILE *f);
void debug_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
