// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * text_events.c - the events of a text trace
 *
 * Each known event gets its real kernel format, built in below (from
 * Linux 6.18 x86_64 and 5.10 arm64), so that its lines become the records
 * the kernel writes.  Events not built in become a generic event of
 * system "text" holding the rest of the line in one string field.
 */
#include "input/text.h"

#include <stdio.h>
#include <stdlib.h>

#define COMMON_FIELDS                                                                       \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"               \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"               \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"       \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

#define F_IPI_SEND_CPU                                                                      \
	"\tfield:unsigned int cpu;\toffset:8;\tsize:4;\tsigned:0;\n"                         \
	"\tfield:void * callsite;\toffset:16;\tsize:8;\tsigned:0;\n"                         \
	"\tfield:void * callback;\toffset:24;\tsize:8;\tsigned:0;\n\n"                       \
	"print fmt: \"cpu=%u callsite=%pS callback=%pS\", REC->cpu, REC->callsite, REC->callback\n"

#define F_IPI_SEND_CPUMASK                                                                  \
	"\tfield:__data_loc cpumask_t cpumask;\toffset:8;\tsize:4;\tsigned:0;\n"             \
	"\tfield:void * callsite;\toffset:16;\tsize:8;\tsigned:0;\n"                         \
	"\tfield:void * callback;\toffset:24;\tsize:8;\tsigned:0;\n\n"                       \
	"print fmt: \"cpumask=%s callsite=%pS callback=%pS\", __get_cpumask(cpumask), "       \
	"REC->callsite, REC->callback\n"

#define F_CSD_QUEUE_CPU                                                                     \
	"\tfield:unsigned int cpu;\toffset:8;\tsize:4;\tsigned:0;\n"                         \
	"\tfield:void * callsite;\toffset:16;\tsize:8;\tsigned:0;\n"                         \
	"\tfield:void * func;\toffset:24;\tsize:8;\tsigned:0;\n"                             \
	"\tfield:void * csd;\toffset:32;\tsize:8;\tsigned:0;\n\n"                            \
	"print fmt: \"cpu=%u callsite=%pS func=%ps csd=%p\", REC->cpu, REC->callsite, "       \
	"REC->func, REC->csd\n"

#define F_CSD_FUNCTION                                                                      \
	"\tfield:void * func;\toffset:8;\tsize:8;\tsigned:0;\n"                              \
	"\tfield:void * csd;\toffset:16;\tsize:8;\tsigned:0;\n\n"                            \
	"print fmt: \"func=%ps, csd=%p\", REC->func, REC->csd\n"

#define F_VECTOR                                                                            \
	"\tfield:int vector;\toffset:8;\tsize:4;\tsigned:1;\n\n"                             \
	"print fmt: \"vector=%d\", REC->vector\n"

#define F_SCHED_SWITCH                                                                      \
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"                      \
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"                          \
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"                           \
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"                         \
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"                     \
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"                          \
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"                         \
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s " \
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "         \
	"(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | "        \
	"0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? "              \
	"__print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | "        \
	"0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), "   \
	"\"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, "        \
	"{ 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, "               \
	"{ 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", REC->prev_state & "           \
	"(((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | "  \
	"0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, REC->next_pid, " \
	"REC->next_prio\n"

#define F_SCHED_WAKEUP                                                                      \
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"                           \
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"                               \
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"                                \
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"                        \
	"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, "        \
	"REC->prio, REC->target_cpu\n"

#define F_KERNEL_STACK                                                                      \
	"\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"                                 \
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"              \
	"print fmt: \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\\t=> " \
	"%ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\", (void *)REC->caller[0], (void *)REC->caller[1], " \
	"(void *)REC->caller[2], (void *)REC->caller[3], (void *)REC->caller[4], "            \
	"(void *)REC->caller[5], (void *)REC->caller[6], (void *)REC->caller[7]\n"

/* arm64 (android_raven 5.10) */
#define F_IPI_RAISE                                                                         \
	"\tfield:__data_loc unsigned long[] target_cpus;\toffset:8;\tsize:4;\tsigned:0;\n"   \
	"\tfield:const char * reason;\toffset:16;\tsize:8;\tsigned:0;\n\n"                   \
	"print fmt: \"target_mask=%s (%s)\", __get_bitmask(target_cpus), REC->reason\n"

#define F_IPI_REASON                                                                        \
	"\tfield:const char * reason;\toffset:8;\tsize:8;\tsigned:0;\n\n"                    \
	"print fmt: \"(%s)\", REC->reason\n"

#define F_TEXT                                                                              \
	"\tfield:__data_loc char[] text;\toffset:8;\tsize:4;\tsigned:0;\n\n"                 \
	"print fmt: \"%s\", __get_str(text)\n"

/* ftrace's own timerlat entry (Linux 6.1, common fields as above) */
#define F_TIMERLAT                                                                          \
	"\tfield:unsigned int seqnum;\toffset:8;\tsize:4;\tsigned:0;\n"                       \
	"\tfield:int context;\toffset:12;\tsize:4;\tsigned:1;\n"                              \
	"\tfield:u64 timer_latency;\toffset:16;\tsize:8;\tsigned:0;\n\n"                     \
	"print fmt: \"seq:%u\\tcontext:%d\\ttimer_latency:%llu\\n\", REC->seqnum, "           \
	"REC->context, REC->timer_latency\n"

/* ftrace's own osnoise entry (the tracer's per-period summary) */
#define F_OSNOISE                                                                           \
	"\tfield:u64 noise;\toffset:8;\tsize:8;\tsigned:0;\n"                                 \
	"\tfield:u64 runtime;\toffset:16;\tsize:8;\tsigned:0;\n"                              \
	"\tfield:u64 max_sample;\toffset:24;\tsize:8;\tsigned:0;\n"                           \
	"\tfield:unsigned int hw_count;\toffset:32;\tsize:4;\tsigned:0;\n"                    \
	"\tfield:unsigned int nmi_count;\toffset:36;\tsize:4;\tsigned:0;\n"                   \
	"\tfield:unsigned int irq_count;\toffset:40;\tsize:4;\tsigned:0;\n"                   \
	"\tfield:unsigned int softirq_count;\toffset:44;\tsize:4;\tsigned:0;\n"               \
	"\tfield:unsigned int thread_count;\toffset:48;\tsize:4;\tsigned:0;\n\n"              \
	"print fmt: \"noise:%llu\\tmax_sample:%llu\\thw:%u\\tnmi:%u\\tirq:%u\\tsoftirq:%u\\t"   \
	"thread:%u\\n\", REC->noise, REC->max_sample, REC->hw_count, REC->nmi_count, "         \
	"REC->irq_count, REC->softirq_count, REC->thread_count\n"

/* osnoise:* (include/trace/events/osnoise.h, Linux 6.1) */
#define NOISE_START_DURATION                                                                \
	"\tfield:u64 start;\toffset:8;\tsize:8;\tsigned:0;\n"                                 \
	"\tfield:u64 duration;\toffset:16;\tsize:8;\tsigned:0;\n"
#define NOISE_PRINT "start %llu.%09u duration %llu ns"
#define NOISE_ARGS "(REC->start) / 1000000000UL, (REC->start) % 1000000000UL, REC->duration"

#define F_IRQ_NOISE                                                                         \
	NOISE_START_DURATION                                                                \
	"\tfield:__data_loc char[] desc;\toffset:24;\tsize:4;\tsigned:1;\n"                   \
	"\tfield:int vector;\toffset:28;\tsize:4;\tsigned:1;\n\n"                             \
	"print fmt: \"%s:%d " NOISE_PRINT "\", __get_str(desc), REC->vector, " NOISE_ARGS "\n"

#define F_NMI_NOISE                                                                         \
	NOISE_START_DURATION "\n"                                                           \
	"print fmt: \"" NOISE_PRINT "\", " NOISE_ARGS "\n"

#define F_SOFTIRQ_NOISE                                                                     \
	NOISE_START_DURATION                                                                \
	"\tfield:int vector;\toffset:24;\tsize:4;\tsigned:1;\n\n"                             \
	"print fmt: \"%8s:%d " NOISE_PRINT "\", __print_symbolic(REC->vector, { 0, \"HI\" }, " \
	"{ 1, \"TIMER\" }, { 2, \"NET_TX\" }, { 3, \"NET_RX\" }, { 4, \"BLOCK\" }, "          \
	"{ 5, \"IRQ_POLL\" }, { 6, \"TASKLET\" }, { 7, \"SCHED\" }, { 8, \"HRTIMER\" }, "     \
	"{ 9, \"RCU\" }), REC->vector, " NOISE_ARGS "\n"

#define F_THREAD_NOISE                                                                      \
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"                             \
	"\tfield:u64 start;\toffset:24;\tsize:8;\tsigned:0;\n"                                \
	"\tfield:u64 duration;\toffset:32;\tsize:8;\tsigned:0;\n"                             \
	"\tfield:pid_t pid;\toffset:40;\tsize:4;\tsigned:1;\n\n"                              \
	"print fmt: \"%8s:%d " NOISE_PRINT "\", REC->comm, REC->pid, " NOISE_ARGS "\n"

#define F_SAMPLE_THRESHOLD                                                                  \
	NOISE_START_DURATION                                                                \
	"\tfield:u64 interference;\toffset:24;\tsize:8;\tsigned:0;\n\n"                       \
	"print fmt: \"" NOISE_PRINT " interference %llu\", " NOISE_ARGS ", REC->interference\n"

/* a built-in event: its kernel name, id and format, and how its fields text is read */
struct builtin {
	const char *system;
	const char *name;
	int id;
	enum ev_kind kind;
	const char *body;	/* format text after the common fields */
};

static const struct builtin builtins[] = {
	{ "ipi", "ipi_send_cpu", 354, EK_KV, F_IPI_SEND_CPU },
	{ "ipi", "ipi_send_cpumask", 353, EK_KV, F_IPI_SEND_CPUMASK },
	{ "csd", "csd_queue_cpu", 529, EK_KV, F_CSD_QUEUE_CPU },
	{ "csd", "csd_function_entry", 528, EK_KV, F_CSD_FUNCTION },
	{ "csd", "csd_function_exit", 527, EK_KV, F_CSD_FUNCTION },
	{ "irq_vectors", "call_function_entry", 153, EK_KV, F_VECTOR },
	{ "irq_vectors", "call_function_exit", 152, EK_KV, F_VECTOR },
	{ "irq_vectors", "call_function_single_entry", 151, EK_KV, F_VECTOR },
	{ "irq_vectors", "call_function_single_exit", 150, EK_KV, F_VECTOR },
	{ "irq_vectors", "reschedule_entry", 155, EK_KV, F_VECTOR },
	{ "irq_vectors", "reschedule_exit", 154, EK_KV, F_VECTOR },
	{ "irq_vectors", "irq_work_entry", 157, EK_KV, F_VECTOR },
	{ "irq_vectors", "irq_work_exit", 156, EK_KV, F_VECTOR },
	{ "irq_vectors", "x86_platform_ipi_entry", 159, EK_KV, F_VECTOR },
	{ "irq_vectors", "x86_platform_ipi_exit", 158, EK_KV, F_VECTOR },
	{ "irq_vectors", "local_timer_entry", 165, EK_KV, F_VECTOR },
	{ "irq_vectors", "local_timer_exit", 164, EK_KV, F_VECTOR },
	{ "irq_vectors", "error_apic_entry", 161, EK_KV, F_VECTOR },
	{ "irq_vectors", "error_apic_exit", 160, EK_KV, F_VECTOR },
	{ "irq_vectors", "spurious_apic_entry", 163, EK_KV, F_VECTOR },
	{ "irq_vectors", "spurious_apic_exit", 162, EK_KV, F_VECTOR },
	{ "irq_vectors", "thermal_apic_entry", 149, EK_KV, F_VECTOR },
	{ "irq_vectors", "thermal_apic_exit", 148, EK_KV, F_VECTOR },
	{ "sched", "sched_switch", 372, EK_SWITCH, F_SCHED_SWITCH },
	{ "sched", "sched_wakeup", 374, EK_WAKEUP, F_SCHED_WAKEUP },
	{ "sched", "sched_waking", 375, EK_WAKEUP, F_SCHED_WAKEUP },
	{ "sched", "sched_wakeup_new", 373, EK_WAKEUP, F_SCHED_WAKEUP },
	{ "ftrace", "kernel_stack", 4, EK_STACK, F_KERNEL_STACK },
	{ "ipi", "ipi_raise", 24, EK_RAISE, F_IPI_RAISE },
	{ "ipi", "ipi_entry", 22, EK_REASON, F_IPI_REASON },
	{ "ipi", "ipi_exit", 23, EK_REASON, F_IPI_REASON },
	{ "ftrace", "timerlat", 17, EK_TIMERLAT, F_TIMERLAT },
	{ "ftrace", "osnoise", 16, EK_OSNOISE, F_OSNOISE },
	{ "osnoise", "sample_threshold", 447, EK_NOISE, F_SAMPLE_THRESHOLD },
	{ "osnoise", "nmi_noise", 448, EK_NOISE, F_NMI_NOISE },
	{ "osnoise", "irq_noise", 449, EK_NOISE, F_IRQ_NOISE },
	{ "osnoise", "softirq_noise", 450, EK_NOISE, F_SOFTIRQ_NOISE },
	{ "osnoise", "thread_noise", 451, EK_NOISE, F_THREAD_NOISE },
};

/*
 * The recorder's dynamic probes (kernels without ipi:ipi_send_*, see
 * lib/live/kprobes.c), as tracefs prints a kprobe: "(function+0x0/0xN)"
 * then its arguments.  A text made beside the recorder's probes (rtla's
 * -t with -e for their group) holds them under these names; each name is
 * taken for the probe only when the function in parentheses is one the
 * recorder probes under it.  The recorder fetches a mask as one word
 * (x64: up to 64 possible CPUs) or as words (x64[N]), which tracefs
 * prints "cpumask={0x6,0x0}": the first line of the probe says which, and
 * the format made for it is the one the kernel gives such a probe.
 */
#define KP_IP "\tfield:void * __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
#define KP_CALLSITE(off) "\tfield:void * callsite;\toffset:" #off ";\tsize:8;\tsigned:0;\n"
#define KP_CPU "\tfield:unsigned int cpu;\toffset:16;\tsize:4;\tsigned:0;\n"

static const struct kprobe_kind {
	const char *name, *stands_for, *role;
	const char *functions[2];
	int id;
	const char *body;
} kprobe_kinds[] = {
	{ "resched", "ipi:ipi_send_cpu", "send", { "native_smp_send_reschedule", "smp_send_reschedule" }, 9001,
	  KP_IP KP_CPU KP_CALLSITE(24) "\nprint fmt: \"(%lx) cpu=%u callsite=%pS\", REC->__probe_ip, REC->cpu, "
	  "REC->callsite\n" },
	{ "call_single", "ipi:ipi_send_cpu", "send_call",
	  { "native_send_call_func_single_ipi", "arch_send_call_function_single_ipi" }, 9002,
	  KP_IP KP_CPU KP_CALLSITE(24) "\nprint fmt: \"(%lx) cpu=%u callsite=%pS\", REC->__probe_ip, REC->cpu, "
	  "REC->callsite\n" },
	{ "call_mask", "ipi:ipi_send_cpumask", "send_call",
	  { "native_send_call_func_ipi", "arch_send_call_function_ipi_mask" }, 9003,
	  KP_IP "\tfield:unsigned long cpumask;\toffset:16;\tsize:8;\tsigned:0;\n" KP_CALLSITE(24)
	  "\nprint fmt: \"(%lx) cpumask=0x%lx callsite=%pS\", REC->__probe_ip, REC->cpumask, REC->callsite\n" },
	{ "exec_single", "-", "queue", { "generic_exec_single" }, 9004,
	  KP_IP KP_CPU "\tfield:unsigned int flags;\toffset:20;\tsize:4;\tsigned:0;\n"
	  "\tfield:void * func;\toffset:24;\tsize:8;\tsigned:0;\n" KP_CALLSITE(32)
	  "\nprint fmt: \"(%lx) cpu=%u flags=%u func=%pS callsite=%pS\", REC->__probe_ip, REC->cpu, REC->flags, "
	  "REC->func, REC->callsite\n" },
	{ "queue", "-", "queue", { "__smp_call_single_queue" }, 9005,
	  KP_IP KP_CPU "\tfield:unsigned int flags;\toffset:20;\tsize:4;\tsigned:0;\n"
	  "\tfield:void * func;\toffset:24;\tsize:8;\tsigned:0;\n" KP_CALLSITE(32)
	  "\nprint fmt: \"(%lx) cpu=%u flags=%u func=%pS callsite=%pS\", REC->__probe_ip, REC->cpu, REC->flags, "
	  "REC->func, REC->callsite\n" },
	{ "many", "-", "many", { "smp_call_function_many_cond" }, 9006,
	  KP_IP "\tfield:void * func;\toffset:16;\tsize:8;\tsigned:0;\n" KP_CALLSITE(24)
	  "\nprint fmt: \"(%lx) func=%pS callsite=%pS\", REC->__probe_ip, REC->func, REC->callsite\n" },
};

#define GENERIC_ID_BASE 10000	/* ids of generic "text" events */

/* is_sym_field - a pointer field whose text is a symbol (%pS, %ps) */
static bool is_sym_field(const char *name)
{
	return !strcmp(name, "callsite") || !strcmp(name, "callback") || !strcmp(name, "func");
}

/* add_event - parse a format text and register the event */
static int add_event(struct tx *x, const char *system, enum ev_kind kind, const char *text,
		     int *idx)
{
	struct ipt_trace *t = x->t;
	struct ipt_event ev;
	struct einfo *ei;
	const struct ipt_event *stored;

	if (ipt_format_parse(&ev, system, text, strlen(text), 8, "(built-in format)", 0))
		return -1;
	if (IPT_GROW(x->ei, x->capei, x->nei + 1)) {
		ipt_event_release(&ev);
		return -1;
	}
	if (ipt_trace_add_event(t, &ev)) {
		ipt_event_release(&ev);
		return -1;
	}
	stored = &t->events[t->nevents - 1];
	ei = &x->ei[x->nei];
	memset(ei, 0, sizeof(*ei));
	ei->id = stored->id;
	ei->kind = kind;
	ei->name = stored->name;
	ei->fixed = 8;
	for (int i = 0; i < stored->nfields; i++) {
		const struct ipt_field *f = &stored->fields[i];
		unsigned int end = f->offset + ((f->flags & IPT_FIELD_DYNAMIC) ? 4 : f->size);
		enum role role;

		if (kind == EK_STACK && !strcmp(f->name, "caller"))
			end = f->offset;	/* the callers follow as they come */
		if (end > ei->fixed)
			ei->fixed = end;
		if (f->flags & IPT_FIELD_COMMON)
			continue;
		if (f->flags & IPT_FIELD_CPUMASK)
			role = R_MASK;
		else if ((f->flags & IPT_FIELD_STRING) && (f->flags & IPT_FIELD_DYNAMIC))
			role = R_DSTR;
		else if (f->flags & IPT_FIELD_STRING)
			role = R_STR;
		else if (f->flags & IPT_FIELD_POINTER)
			role = is_sym_field(f->name) ? R_SYM : R_PTR;
		else if (!strcmp(f->name, "prev_state"))
			role = R_STATE;
		else if (kind == EK_KPROBE && strchr(f->type, '[') && f->size && f->size % 8 == 0)
			role = R_WORDS;	/* a kprobe's array: type "u64[N]" */
		else
			role = R_INT;
		if (ei->nf < MAXF)
			ei->fl[ei->nf++] = (struct finfo){ f, role };
	}
	ei->fixed = (ei->fixed + 3) & ~3u;
	if (smap_put(&x->evmap, stored->name, strlen(stored->name), x->nei))
		return -1;
	*idx = x->nei++;
	return 0;
}

/*
 * mask_words_shown - the words of a "cpumask={0x6,0x0}" value in a probe
 * line [f, fe): N (1 .. IPT_CPUSET_MAX / 64), 0 when the mask is one word
 * without braces, -1 when the braces hold no sane list
 */
static int mask_words_shown(const char *f, const char *fe)
{
	static const char key[] = "cpumask={";
	const char *p = f;
	int words = 1;

	for (; p + sizeof(key) - 1 <= fe; p++)
		if (!memcmp(p, key, sizeof(key) - 1) && (p == f || p[-1] == ' '))
			break;
	if (p + sizeof(key) - 1 > fe)
		return 0;
	for (p += sizeof(key) - 1; p < fe && *p != '}'; p++)
		if (*p == ',' && ++words > IPT_CPUSET_MAX / 64)
			return -1;
	return p < fe ? words : -1;
}

/* mask_probe_format - the format the kernel gives the call_mask probe
 * fetching its mask as x64[words] */
static int mask_probe_format(struct ipt_strbuf *sb, const struct kprobe_kind *k, int words)
{
	int ret = ipt_strbuf_addf(sb, "name: %s\nID: %d\nformat:\n%s" KP_IP
				  "\tfield:u64[%d] cpumask;\toffset:16;\tsize:%d;\tsigned:0;\n"
				  "\tfield:void * callsite;\toffset:%d;\tsize:8;\tsigned:0;\n"
				  "\nprint fmt: \"(%%lx) cpumask={0x%%Lx", k->name, k->id, COMMON_FIELDS,
				  words, 8 * words, 16 + 8 * words);

	for (int i = 1; i < words; i++)
		ret |= ipt_strbuf_adds(sb, ",0x%Lx");
	ret |= ipt_strbuf_adds(sb, "} callsite=%pS\", REC->__probe_ip");
	for (int i = 0; i < words; i++)
		ret |= ipt_strbuf_addf(sb, ", REC->cpumask[%d]", i);
	ret |= ipt_strbuf_adds(sb, ", REC->callsite\n");
	return ret ? -1 : 0;
}

int ipt_text_kprobe_event(struct tx *x, const char *name, size_t n, const char *f, const char *fe)
{
	char text[sizeof(COMMON_FIELDS) + 1024];
	const char *fn, *fnend;
	int idx, words;

	if (smap_get(&x->evmap, name, n, &idx) || f >= fe || *f != '(')
		return 0;
	fn = f + 1;
	for (fnend = fn; fnend < fe && *fnend != '+' && *fnend != ')'; fnend++)
		;
	for (size_t i = 0; i < ARRAY_SIZE(kprobe_kinds); i++) {
		const struct kprobe_kind *k = &kprobe_kinds[i];
		struct ipt_strbuf sb = IPT_STRBUF_INIT;
		bool ours = false;

		if (strlen(k->name) != n || memcmp(k->name, name, n))
			continue;
		for (size_t j = 0; j < ARRAY_SIZE(k->functions) && k->functions[j]; j++)
			if (strlen(k->functions[j]) == (size_t)(fnend - fn) &&
			    !memcmp(k->functions[j], fn, (size_t)(fnend - fn)))
				ours = true;
		if (!ours)
			return 0;
		words = strcmp(k->name, "call_mask") ? 0 : mask_words_shown(fnend, fe);
		if (words < 0)
			return ipt_err_at(x->t->path, x->line_off, "%s: a cpumask of more than %d words or no "
					  "closing brace", k->name, IPT_CPUSET_MAX / 64);
		if (words) {
			struct ipt_strbuf fmt = IPT_STRBUF_INIT;
			int rc = mask_probe_format(&fmt, k, words);

			if (rc)
				rc = ipt_err_at(x->t->path, x->line_off, "out of memory");
			else
				rc = add_event(x, "kprobes", EK_KPROBE, fmt.buf, &idx);
			ipt_strbuf_free(&fmt);
			if (rc)
				return -1;
		} else {
			snprintf(text, sizeof(text), "name: %s\nID: %d\nformat:\n%s%s", k->name, k->id,
				 COMMON_FIELDS, k->body);
			if (add_event(x, "kprobes", EK_KPROBE, text, &idx))
				return -1;
		}
		/* a function-call send hook's interrupt runs the generic handler
		 * (the decoder's callback when no caller probe names the
		 * function, as a recording's kallsyms gives it): known by name */
		if (!strcmp(k->role, "send_call")) {
			static const char gh[] = "generic_smp_call_function_single_interrupt";
			uint64_t addr;

			if (ipt_text_sym_addr(x, gh, sizeof(gh) - 1, 0, 0, &addr))
				return -1;
		}
		/* what it stands for, as a recording's PROBES option says it */
		if (ipt_strbuf_adds(&sb, x->t->probes_text ? x->t->probes_text : "") ||
		    ipt_strbuf_addf(&sb, "kprobes:%s %s %s %.*s\n", k->name, k->stands_for, k->role,
				    (int)(fnend - fn), fn)) {
			ipt_strbuf_free(&sb);
			return ipt_err_at(x->t->path, x->line_off, "out of memory");
		}
		free(x->t->probes_text);
		x->t->probes_text = sb.buf;
		return 0;
	}
	return 0;
}

/* ipt_text_event_for - the event of a name: built in, or a new generic one */
int ipt_text_event_for(struct tx *x, const char *name, size_t n, int *idx)
{
	char text[sizeof(COMMON_FIELDS) + sizeof(F_SCHED_SWITCH) + 1024];

	if (smap_get(&x->evmap, name, n, idx))
		return 0;
	if (n > 100)
		return ipt_err_at(x->t->path, x->line_off, "event name too long");
	for (size_t i = 0; i < ARRAY_SIZE(builtins); i++) {
		const struct builtin *b = &builtins[i];

		if (strlen(b->name) == n && !memcmp(b->name, name, n)) {
			snprintf(text, sizeof(text), "name: %s\nID: %d\nformat:\n%s%s", b->name,
				 b->id, COMMON_FIELDS, b->body);
			return add_event(x, b->system, b->kind, text, idx);
		}
	}
	if (GENERIC_ID_BASE + x->next_generic > 0xffff)
		return ipt_err_at(x->t->path, x->line_off, "too many distinct event names");
	snprintf(text, sizeof(text), "name: %.*s\nID: %d\nformat:\n%s%s", (int)n, name,
		 GENERIC_ID_BASE + x->next_generic++, COMMON_FIELDS, F_TEXT);
	return add_event(x, "text", EK_TEXT, text, idx);
}
