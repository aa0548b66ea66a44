// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_explain.c - `ipitrace explain`: the latency spikes of a recording,
 * the IPI interrupts inside each joined to their sends, and the other
 * interference on their CPUs (ipt_spikes_explain does the work), as text,
 * JSON or a CSV table of their parts
 */
#include "commands.h"
#include "explain_out.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void explain_usage(FILE *f)
{
	fprintf(f,
		"usage: ipitrace explain [OPTIONS] [FILE]\n"
		"\n"
		"The latency spikes of a recording made with `record --timerlat` or\n"
		"`--osnoise` (FILE '-' or a pipe: standard input; none: the newest of\n"
		"ipitrace.dat and ipitrace-*.dat here) and the IPIs inside each.  A spike is\n"
		"a timerlat sample of the thread context: on its CPU the thread woke LAT\n"
		"after its timer was due, so it covers [ts - LAT, ts].  Or an osnoise\n"
		"sample_threshold: a gap of DUR in the osnoise tracer's loop, covering\n"
		"[ts - DUR, ts] (its start field is in another clock).  Each IPI whose\n"
		"interrupt entered on that CPU inside the window is listed under it, joined\n"
		"to the send that raised it (the matching of `report`): its kind, the\n"
		"interrupt's entry and handler time and share of the spike, the sending CPU,\n"
		"task, call site and function, and its stack when recorded (record --stacks).\n"
		"Sends served by one interrupt (coalesced) are listed, its time counted once.\n"
		"Then the csd functions run on that CPU inside the window (Linux 6.5+: the\n"
		"csd:* events), with the IPI whose handler ran each and its queueing.  What\n"
		"else interfered on that CPU inside the window follows: the osnoise:* noise\n"
		"events (irq, softirq, nmi, thread) with their net durations (an IPI's\n"
		"irq_noise names it), then `unaccounted`: the latency less the sum of those.\n"
		"Then the senders by the spike time of their IPIs.\n"
		"\n"
		"  -t, --threshold US   every sample over US microseconds (default: the\n"
		"                       worst 10 per CPU)\n"
		"  -n, --worst N        without --threshold: the worst N per CPU (default 10)\n"
		"  -f, --format FMT     text (default), json (docs/schema/explain.json) or\n"
		"                       csv (one row per part of each spike: its IPIs, csd\n"
		"                       runs, noise, what is unaccounted; docs/formats.md)\n"
		"      --json           the same as --format json\n"
		"  -h, --help           this text\n");
}

/* us - ns as microseconds text */
static double us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

/* secs - a timestamp in s, to the ns (trace-cmd report -t's) */
static void secs(uint64_t ns, char *buf, size_t n)
{
	snprintf(buf, n, "%llu.%09llu", (unsigned long long)(ns / 1000000000ULL),
		 (unsigned long long)(ns % 1000000000ULL));
}

/* pct - part of whole in percent (0 for an empty whole) */
static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* print_noise - the osnoise rows of a spike and its unaccounted time */
static void print_noise(const struct ipt_spike *s)
{
	char a[32];

	if (!s->noise_known) {
		printf("  other interference: unknown (no osnoise:* noise events on cpu %d in the recording)\n",
		       s->cpu);
	}
	for (size_t j = 0; j < s->nnoise; j++) {
		const struct ipt_spike_noise *nz = ipt_spike_noise_get(s, j);
		char what[96], ipi[48] = "";

		if (nz->kind == IPT_SPIKE_NOISE_NMI)
			snprintf(what, sizeof(what), "nmi");
		else
			snprintf(what, sizeof(what), "%s %s:%d", ipt_spike_noise_kind_name(nz->kind), nz->name,
				 (int)nz->num);
		if (nz->ipi >= 0)
			snprintf(ipi, sizeof(ipi), " (IPI %d above)", (int)nz->ipi + 1);
		else if (nz->kind == IPT_SPIKE_NOISE_IRQ && (!strncmp(nz->name, "call_function", 13) ||
							     !strcmp(nz->name, "reschedule")))
			snprintf(ipi, sizeof(ipi), " (an IPI: no send matched)");
		secs(nz->end_ns, a, sizeof(a));
		if (nz->before_window)
			printf("  %s ended %s: net %.3f us, %.3f us of it inside the window (%.1f%%)%s\n", what, a,
			       us(nz->duration_ns), us(nz->counted_ns), pct(nz->counted_ns, s->latency_ns), ipi);
		else
			printf("  %s ended %s: net %.3f us (%.1f%%)%s\n", what, a, us(nz->duration_ns),
			       pct(nz->counted_ns, s->latency_ns), ipi);
	}
	if (s->over)
		printf("  unaccounted: none; the listed %s exceed the latency by %.3f us (%s)\n",
		       s->noise_known ? "net durations" : "IPI handler times", us(s->excess_ns),
		       s->noise_known ? "osnoise measures in the local clock, the window is in the trace's" :
					"the handlers overlap the window's edges");
	else
		printf("  unaccounted %.3f us (%.1f%%)%s\n", us(s->unaccounted_ns), pct(s->unaccounted_ns, s->latency_ns),
		       s->noise_known ? "" : ": latency - the IPI handler times; other interference unknown");
}

/* print_csd - the csd function runs of a spike */
static void print_csd(const struct ipt_spike *s)
{
	for (size_t k = 0; k < s->ncsd; k++) {
		const struct ipt_spike_csd *c = ipt_spike_csd_get(s, k);
		char a[32], b[32], run[64] = "run ? (no exit seen)", in[32] = "outside the IPI handlers above";

		secs(c->entry_ns, a, sizeof(a));
		if (c->has_exit)
			snprintf(run, sizeof(run), "run %.3f us (%.1f%%)", us(c->run_ns), pct(c->run_ns, s->latency_ns));
		if (c->ipi >= 0)
			snprintf(in, sizeof(in), "in IPI %d above", c->ipi + 1);
		printf("  csd %s entry %s %s, %s", c->func, a, run, in);
		if (c->queued) {
			secs(c->queue_ns, b, sizeof(b));
			printf("; queued %s from cpu %d by %s[%d] via %s, waited %.3f us\n", b, (int)c->src_cpu, c->comm,
			       (int)c->pid, c->callsite ? c->callsite : "?",
			       us(c->entry_ns >= c->queue_ns ? c->entry_ns - c->queue_ns : 0));
		} else {
			puts("; its queueing not in the recording");
		}
	}
}

static void print(const struct ipt_trace *t, const struct ipt_spikes *sp, const struct explain_summary *m,
		  bool threshold)
{
	size_t n = ipt_spikes_count(sp);

	printf("%zu spikes (%s, %s)\n", n, explain_samples_kind(sp),
	       threshold ? "over the threshold" : "the worst per CPU");
	for (size_t i = 0; i < n; i++) {
		const struct ipt_spike *s = ipt_spikes_get(sp, i);
		char a[32], b[32], c[32];

		secs(s->start_ns, a, sizeof(a));
		secs(s->ts_ns, b, sizeof(b));
		if (s->osnoise)
			printf("\nspike cpu %d osnoise at %s: noise %.3f us, interferences %u, window [%s, %s], IPIs %zu, "
			       "IPI handler time %.3f us (%.1f%%)\n", s->cpu, b, us(s->latency_ns), s->interference, a, b,
			       s->nipis, us(s->ipi_ns), pct(s->ipi_ns, s->latency_ns));
		else
			printf("\nspike cpu %d seq %u at %s: latency %.3f us, window [%s, %s], IPIs %zu, "
			       "IPI handler time %.3f us (%.1f%%)\n", s->cpu, s->seq, b, us(s->latency_ns), a, b,
			       s->nipis, us(s->ipi_ns), pct(s->ipi_ns, s->latency_ns));
		for (size_t k = 0; k < s->nipis; k++) {
			const struct ipt_spike_ipi *ip = ipt_spike_ipi_get(s, k);
			char key[512], h[64] = "handler ?";

			secs(ip->entry_ns, c, sizeof(c));
			secs(ip->send_ns, a, sizeof(a));
			if (ip->has_handler)
				snprintf(h, sizeof(h), "handler %.3f us (%.1f%%)", us(ip->handler_ns),
					 pct(ip->handler_ns, s->latency_ns));
			explain_sender(ip, key, sizeof(key));
			printf("  ipi %s entry %s %s%s; sent %s from cpu %d by %s\n", ipt_kind_name(ip->kind), c,
			       ip->coalesced ? "(coalesced: the interrupt above) " : "", ip->coalesced ? "" : h, a,
			       (int)ip->src_cpu, key);
			if (ip->nstack) {
				fputs("    stack", stdout);
				for (uint32_t f = 0; f < ip->nstack; f++) {
					ipt_trace_format_symbol(t, ip->stack[f], true, key, sizeof(key));
					printf(" %s%s", f ? "<- " : "", key);
				}
				putchar('\n');
			}
		}
		print_csd(s);
		print_noise(s);
	}
	if (ipt_spikes_csd_given_up(sp))
		printf("\ncsd calls forgotten unpaired: %llu (too many waited at once, their runs not recorded):"
		       " a run of one of them shows no queueing\n", (unsigned long long)ipt_spikes_csd_given_up(sp));
	printf("\n%llu of %zu spikes hold IPI interrupts; senders by IPI handler time inside spikes:\n",
	       (unsigned long long)m->with, n);
	for (size_t j = 0; j < m->full.n; j++)
		printf("  %10.3f us %6llu IPIs  %s\n", us(m->full.t[j].ns), (unsigned long long)m->full.t[j].ipis,
		       m->full.t[j].key);
}

/* ---- JSON (docs/schema/explain.json) ---- */
#define EXPLAIN_SCHEMA	"ipitrace-explain/4"

/* callsite_sym - "sym+0xoff" into buf, or NULL */
static const char *callsite_sym(const struct ipt_spike_ipi *ip, char *buf, size_t n)
{
	if (!ip->callsite)
		return NULL;
	snprintf(buf, n, "%s+0x%llx", ip->callsite, (unsigned long long)ip->callsite_off);
	return buf;
}

/* kshare - "k": part / whole, or null for an empty whole */
static void kshare(struct ipt_jw *j, const char *k, uint64_t part, uint64_t whole)
{
	ipt_jw_key(j, k);
	if (whole)
		ipt_jw_fixed(j, (double)part / (double)whole, 6);
	else
		ipt_jw_null(j);
}

static void json_ipi(struct ipt_jw *j, const struct ipt_trace *t, const struct ipt_spike *s,
		     const struct ipt_spike_ipi *ip)
{
	const struct ipt_spike_noise *tied = ip->noise >= 0 ? ipt_spike_noise_get(s, (size_t)ip->noise) : NULL;
	char cs[192];

	ipt_jw_obj(j);
	ipt_jw_kstr(j, "kind", ipt_kind_name(ip->kind));
	ipt_jw_kstr(j, "vector", tied ? tied->name : NULL);
	ipt_jw_ku64(j, "send_ns", ip->send_ns);
	ipt_jw_ku64(j, "entry_ns", ip->entry_ns);
	ipt_jw_kbool(j, "coalesced", ip->coalesced);
	ipt_jw_kopt_u64(j, "handler_ns", ip->has_handler && !ip->coalesced, ip->handler_ns);
	if (ip->has_handler && !ip->coalesced)
		kshare(j, "share", ip->handler_ns, s->latency_ns);
	else
		ipt_jw_knull(j, "share");
	ipt_jw_kopt_i64(j, "noise", ip->noise >= 0, ip->noise);
	ipt_jw_key(j, "sender");
	ipt_jw_obj(j);
	ipt_jw_kstr(j, "comm", ip->comm);
	ipt_jw_ki64(j, "pid", ip->pid);
	ipt_jw_ki64(j, "cpu", ip->src_cpu);
	ipt_jw_end(j);
	ipt_jw_kstr(j, "callsite_sym", callsite_sym(ip, cs, sizeof(cs)));
	ipt_jw_kstr(j, "func_name", ip->func);
	ipt_jw_key(j, "stack");
	if (ip->stack) {
		ipt_jw_arr(j);
		for (uint32_t f = 0; f < ip->nstack; f++) {
			ipt_trace_format_symbol(t, ip->stack[f], true, cs, sizeof(cs));
			ipt_jw_str(j, cs);
		}
		ipt_jw_end(j);
	} else {
		ipt_jw_null(j);
	}
	ipt_jw_end(j);
}

static void json_noise(struct ipt_jw *j, const struct ipt_spike *s, const struct ipt_spike_noise *nz)
{
	ipt_jw_obj(j);
	ipt_jw_kstr(j, "kind", ipt_spike_noise_kind_name(nz->kind));
	ipt_jw_kstr(j, "name", nz->name);
	ipt_jw_kopt_i64(j, "num", nz->kind != IPT_SPIKE_NOISE_NMI, nz->num);
	ipt_jw_ku64(j, "end_ns", nz->end_ns);
	ipt_jw_ku64(j, "duration_ns", nz->duration_ns);
	ipt_jw_ku64(j, "counted_ns", nz->counted_ns);
	ipt_jw_kbool(j, "before_window", nz->before_window);
	kshare(j, "share", nz->counted_ns, s->latency_ns);
	ipt_jw_kopt_i64(j, "ipi", nz->ipi >= 0, nz->ipi);
	ipt_jw_end(j);
}

static void json_csd(struct ipt_jw *j, const struct ipt_spike_csd *c)
{
	ipt_jw_obj(j);
	ipt_jw_kstr(j, "func_name", c->func);
	ipt_jw_ku64(j, "entry_ns", c->entry_ns);
	ipt_jw_kopt_u64(j, "run_ns", c->has_exit, c->run_ns);
	ipt_jw_kopt_i64(j, "ipi", c->ipi >= 0, c->ipi);
	ipt_jw_key(j, "queued");
	if (c->queued) {
		ipt_jw_obj(j);
		ipt_jw_ku64(j, "ts_ns", c->queue_ns);
		ipt_jw_ki64(j, "cpu", c->src_cpu);
		ipt_jw_kstr(j, "comm", c->comm);
		ipt_jw_ki64(j, "pid", c->pid);
		ipt_jw_kstr(j, "callsite_sym", c->callsite);
		ipt_jw_end(j);
	} else {
		ipt_jw_null(j);
	}
	ipt_jw_end(j);
}

static void json_spike(struct ipt_jw *j, const struct ipt_trace *t, const struct ipt_spike *s)
{
	ipt_jw_obj(j);
	ipt_jw_ki64(j, "cpu", s->cpu);
	ipt_jw_kstr(j, "source", s->osnoise ? "osnoise" : "timerlat");
	ipt_jw_kopt_u64(j, "seq", !s->osnoise, s->seq);
	ipt_jw_kopt_u64(j, "interferences", s->osnoise, s->interference);
	ipt_jw_ku64(j, "ts_ns", s->ts_ns);
	ipt_jw_key(j, "window");
	ipt_jw_obj(j);
	ipt_jw_ku64(j, "start_ns", s->start_ns);
	ipt_jw_ku64(j, "end_ns", s->ts_ns);
	ipt_jw_end(j);
	ipt_jw_ku64(j, "latency_ns", s->latency_ns);
	ipt_jw_ku64(j, "ipi_ns", s->ipi_ns);
	ipt_jw_key(j, "ipis");
	ipt_jw_arr(j);
	for (size_t k = 0; k < s->nipis; k++)
		json_ipi(j, t, s, ipt_spike_ipi_get(s, k));
	ipt_jw_end(j);
	ipt_jw_kbool(j, "csd_known", s->csd_known);
	ipt_jw_key(j, "csd");
	ipt_jw_arr(j);
	for (size_t k = 0; k < s->ncsd; k++)
		json_csd(j, ipt_spike_csd_get(s, k));
	ipt_jw_end(j);
	ipt_jw_kbool(j, "noise_known", s->noise_known);
	ipt_jw_key(j, "interference");
	ipt_jw_arr(j);
	for (size_t k = 0; k < s->nnoise; k++)
		json_noise(j, s, ipt_spike_noise_get(s, k));
	ipt_jw_end(j);
	ipt_jw_ku64(j, "listed_ns", s->listed_ns);
	ipt_jw_kopt_u64(j, "unaccounted_ns", !s->over, s->unaccounted_ns);
	ipt_jw_kopt_u64(j, "excess_ns", s->over, s->excess_ns);
	ipt_jw_kstr(j, "note", s->over ? (s->noise_known ?
		"the net durations exceed the latency: osnoise measures them in the kernel's local clock, "
		"the window is in the trace's" :
		"the IPI handler times exceed the latency: the handlers overlap the window's edges") :
		s->noise_known ? NULL : "no osnoise noise events on this CPU in the recording: "
		"unaccounted is the latency less the IPI handler times; other interference unknown");
	ipt_jw_end(j);
}

static int print_json(const struct ipt_trace *t, const struct ipt_spikes *sp, const struct explain_summary *m,
		      const struct ipt_spikes_opts *o)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	size_t n = ipt_spikes_count(sp);
	struct ipt_jw j;

	ipt_jw_init(&j, &sb, stdout);
	ipt_jw_obj(&j);
	ipt_jw_kstr(&j, "schema", EXPLAIN_SCHEMA);
	ipt_jw_key(&j, "threshold_ns");
	if (o->threshold_ns)
		ipt_jw_u64(&j, o->threshold_ns);
	else
		ipt_jw_null(&j);
	ipt_jw_key(&j, "worst");
	if (o->threshold_ns)
		ipt_jw_null(&j);
	else
		ipt_jw_i64(&j, o->worst ? o->worst : 10);
	ipt_jw_key(&j, "spikes");
	ipt_jw_arr(&j);
	for (size_t i = 0; i < n; i++) {
		ipt_jw_next(&j);
		ipt_jw_raw(&j, "\n");
		json_spike(&j, t, ipt_spikes_get(sp, i));
	}
	ipt_jw_end(&j);
	ipt_jw_key(&j, "summary");
	ipt_jw_obj(&j);
	ipt_jw_ku64(&j, "spikes", n);
	ipt_jw_ku64(&j, "with_ipis", m->with);
	ipt_jw_ku64(&j, "csd_given_up", ipt_spikes_csd_given_up(sp));
	explain_json_tallies(&j, "senders", &m->senders, false);
	explain_json_tallies(&j, "paths", &m->paths, true);
	ipt_jw_end(&j);
	ipt_jw_end(&j);
	ipt_jw_raw(&j, "\n");
	if (ipt_jw_finish(&j)) {
		err_msg("explain: the JSON was not written whole (%s)", ferror(stdout) ? "a write error" : "out of memory");
		ipt_strbuf_free(&sb);
		return 1;
	}
	ipt_strbuf_free(&sb);
	return 0;
}

/*
 * The parts table (`explain -f csv`): one row per part of each spike, its
 * IPIs, then its noise, then what is left unaccounted; the spike's own
 * columns on every row.  Python's spike_parts() has these columns too.
 */
static const char CSV_HEADER[] =
	"spike,cpu,source,seq,spike_ts_ns,latency_ns,part,counted,ts_ns,ns,duration_ns,name,num,"
	"before_window,kind,coalesced,send_ns,src_cpu,pid,comm,callsite_sym,func_name,stack\n";

/* csv_u64 - ",v", or "," alone when !has */
static void csv_u64(bool has, uint64_t v)
{
	if (has)
		printf(",%" PRIu64, v);
	else
		putchar(',');
}

/* csv_str - ",s" quoted as needed, or "," alone for NULL */
static void csv_str(const char *s)
{
	putchar(',');
	if (s)
		csv_field(s, stdout);
}

static const char *csv_bool(bool v)
{
	return v ? "true" : "false";
}

/* csv_spike_cols - the spike's columns and the part's name, counted, ts_ns */
static void csv_spike_cols(size_t i, const struct ipt_spike *s, const char *part, bool counted,
			   bool has_ts, uint64_t ts)
{
	printf("%zu,%d,%s,", i, s->cpu, s->osnoise ? "osnoise" : "timerlat");
	if (!s->osnoise)
		printf("%u", s->seq);
	printf(",%" PRIu64 ",%" PRIu64 ",%s,%s", s->ts_ns, s->latency_ns, part, csv_bool(counted));
	csv_u64(has_ts, ts);
}

static int csv_spike(const struct ipt_trace *t, size_t i, const struct ipt_spike *s)
{
	char cs[192];

	for (size_t k = 0; k < s->nipis; k++) {
		const struct ipt_spike_ipi *ip = ipt_spike_ipi_get(s, k);
		const struct ipt_spike_noise *tied = ip->noise >= 0 ? ipt_spike_noise_get(s, (size_t)ip->noise) : NULL;

		csv_spike_cols(i, s, "ipi", !s->noise_known, true, ip->entry_ns);
		csv_u64(ip->has_handler && !ip->coalesced, ip->handler_ns);
		csv_u64(false, 0);			/* duration_ns */
		csv_str(tied ? tied->name : NULL);
		printf(",,,%s,%s,%" PRIu64 ",%d,%d", ipt_kind_name(ip->kind), csv_bool(ip->coalesced),
		       ip->send_ns, ip->src_cpu, ip->pid);
		csv_str(ip->comm);
		csv_str(callsite_sym(ip, cs, sizeof(cs)));
		csv_str(ip->func);
		putchar(',');
		if (ip->nstack) {
			struct ipt_strbuf fr = IPT_STRBUF_INIT;
			int ret = 0;

			for (uint32_t f = 0; f < ip->nstack; f++) {
				ipt_trace_format_symbol(t, ip->stack[f], true, cs, sizeof(cs));
				ret |= (f ? ipt_strbuf_addc(&fr, ';') : 0) | ipt_strbuf_adds(&fr, cs);
			}
			if (ret) {
				ipt_strbuf_free(&fr);
				return -1;
			}
			csv_field(fr.buf, stdout);
			ipt_strbuf_free(&fr);
		}
		putchar('\n');
	}
	for (size_t k = 0; k < s->ncsd; k++) {
		const struct ipt_spike_csd *c = ipt_spike_csd_get(s, k);

		csv_spike_cols(i, s, "csd", false, true, c->entry_ns);
		csv_u64(c->has_exit, c->run_ns);
		fputs(",,,,,,", stdout);		/* duration_ns .. coalesced */
		csv_u64(c->queued, c->queue_ns);
		if (c->queued)
			printf(",%d,%d", c->src_cpu, c->pid);
		else
			fputs(",,", stdout);
		csv_str(c->queued ? c->comm : NULL);
		csv_str(c->queued ? c->callsite : NULL);
		csv_str(c->func);
		fputs(",\n", stdout);
	}
	for (size_t k = 0; k < s->nnoise; k++) {
		const struct ipt_spike_noise *nz = ipt_spike_noise_get(s, k);

		csv_spike_cols(i, s, ipt_spike_noise_kind_name(nz->kind), s->noise_known, true, nz->end_ns);
		printf(",%" PRIu64 ",%" PRIu64, nz->counted_ns, nz->duration_ns);
		csv_str(nz->name);
		if (nz->kind == IPT_SPIKE_NOISE_NMI)
			putchar(',');
		else
			printf(",%d", nz->num);
		printf(",%s,,,,,,,,,\n", csv_bool(nz->before_window));
	}
	csv_spike_cols(i, s, "unaccounted", true, false, 0);
	csv_u64(!s->over, s->unaccounted_ns);
	fputs(",,,,,,,,,,,,,\n", stdout);
	return 0;
}

static int print_csv(const struct ipt_trace *t, const struct ipt_spikes *sp)
{
	size_t n = ipt_spikes_count(sp);

	fputs(CSV_HEADER, stdout);
	for (size_t i = 0; i < n; i++)
		if (csv_spike(t, i, ipt_spikes_get(sp, i))) {
			err_msg("explain: out of memory");
			return 1;
		}
	if (fflush(stdout) || ferror(stdout)) {
		err_msg("explain: the CSV was not written whole (a write error)");
		return 1;
	}
	return 0;
}

int cmd_explain(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threshold", required_argument, NULL, 't' },
		{ "worst", required_argument, NULL, 'n' },
		{ "format", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct ipt_spikes_opts so = { .sz = sizeof(so) };
	struct ipt_spikes *sp;
	struct ipt_trace *t;
	const char *path;
	char found[256], *end;
	struct explain_summary m;
	bool json = false, csv = false;
	int c, r;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:n:f:h", opts, NULL)) != -1) {
		switch (c) {
		case '?':
		case ':':
			return opt_err("explain", c, argv);
		case 't': {
			unsigned long long v = strtoull(optarg, &end, 10);

			if (*end || end == optarg || *optarg == '-' || !v || v > 1000000000ULL)
				return usage_err("explain", "--threshold: microseconds, not '%s'", optarg);
			so.threshold_ns = v * 1000;
			break;
		}
		case 'n': {
			long v = strtol(optarg, &end, 10);

			if (*end || end == optarg || v < 1 || v > 1000000)
				return usage_err("explain", "--worst: a number from 1 to 1000000, not '%s'", optarg);
			so.worst = (int)v;
			break;
		}
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json") && strcmp(optarg, "csv"))
				return usage_err("explain", "--format: text, json or csv, not '%s'", optarg);
			json = !strcmp(optarg, "json");
			csv = !strcmp(optarg, "csv");
			break;
		case 'j': json = true; csv = false; break;
		case 'h': explain_usage(stdout); return 0;
		default: return 2;
		}
	}
	if (optind < argc - 1)
		return usage_err("explain", "one FILE only");
	path = optind == argc - 1 ? argv[optind] : default_trace("explain", found, sizeof(found));
	if (!path)
		return 1;
	t = open_trace(path, NULL, false, &r);
	if (!t)
		return r;
	sp = ipt_spikes_explain(t, &so);
	if (!sp) {
		err_msg("%s: %s", path, ipt_errmsg());
		ipt_trace_close(t);
		return 1;
	}
	if (explain_summarize(sp, &m)) {
		err_msg("explain: out of memory");
		r = 1;
	} else if (json) {
		r = print_json(t, sp, &m, &so);
	} else if (csv) {
		r = print_csv(t, sp);
	} else {
		print(t, sp, &m, so.threshold_ns != 0);
		r = 0;
	}
	explain_summary_free(&m);
	ipt_spikes_free(sp);
	ipt_trace_close(t);
	return r;
}
