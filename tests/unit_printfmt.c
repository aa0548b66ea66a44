/*
 * unit_printfmt.c - print fmt rendering (lib/render/printfmt_*.c)
 *
 * Every expected string below was derived by hand from libtraceevent 1.7's
 * rules (src/event-parse.c: process_op, eval_num_arg, print_str_arg,
 * print_arg_pointer, parse_arg_format, print_bitmask_to_seq, ...), the
 * rule used is named in a comment, and all of them were then checked by
 * rendering the same format texts and record bytes with libtraceevent
 * 1.7.1 itself (build with -DPF_ORACLE_DUMP=\"dir\" to write the cases out
 * for such a check: one FORMAT file, records.hex, syms and printk).
 */
#include "input/input.h"
#include "render/render.h"
#include "testlib.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define COMMON								\
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* FORMAT - a format file as tracefs shows it */
#define FORMAT(name, id, fields, pf)					\
	"name: " name "\nID: " #id "\nformat:\n" COMMON fields "\nprint fmt: " pf "\n"

#define FIELD(decl, off, size, sgn)					\
	"\tfield:" decl ";\toffset:" #off ";\tsize:" #size ";\tsigned:" #sgn ";\n"

/* kernel symbols of the test trace */
#define A_TTWU		0xffffffff81100000ULL	/* ttwu_queue_wakelist */
#define A_GENERIC	0xffffffff81200000ULL	/* generic_smp_call_function_single_interrupt */
#define A_PENDING	0xffffffff81300000ULL	/* sched_ttwu_pending */
#define A_FLUSH		0xffffffff81400000ULL	/* flush_tlb_func */
#define A_END		0xffffffff81500000ULL	/* _etext */
#define A_RESCHED	0xffff800080f1c2a0ULL	/* printk string (arm64 reason) */

static struct ipt_trace *tr;
static struct ipt_strbuf out;

/* a record being built: little-endian values at offsets */
struct rec {
	uint8_t d[512];
	uint32_t n;
};

/* put - store v in size bytes at off (little endian) */
static void put(struct rec *r, uint32_t off, unsigned int size, uint64_t v)
{
	ipt_put_uint(r->d + off, size, false, v);
	if (off + size > r->n)
		r->n = off + size;
}

/* put_str - store a string with its NUL at off */
static void put_str(struct rec *r, uint32_t off, const char *s)
{
	size_t n = strlen(s) + 1;

	memcpy(r->d + off, s, n);
	if (off + n > r->n)
		r->n = off + (uint32_t)n;
}

/* put_dyn - append len bytes at the end and point the __data_loc at off to them */
static void put_dyn(struct rec *r, uint32_t off, const void *data, uint32_t len)
{
	uint32_t at = r->n;

	memcpy(r->d + at, data, len);
	r->n = at + len;
	put(r, off, 4, (uint64_t)len << 16 | at);
}

/* rec_init - an empty record of event type id with n fixed bytes */
static void rec_init(struct rec *r, int id, uint32_t n)
{
	memset(r, 0, sizeof(*r));
	r->n = n;
	put(r, 0, 2, (uint64_t)id);
	put(r, 4, 4, 1234);
}

#ifdef PF_ORACLE_DUMP
#include <sys/stat.h>
static int ndump;

/* dump - write a case for checking with libtraceevent */
static void dump(const char *text, const uint8_t *d, uint32_t n)
{
	char path[512];
	FILE *f;

	mkdir(PF_ORACLE_DUMP, 0755);
	snprintf(path, sizeof(path), "%s/case%03d.format", PF_ORACLE_DUMP, ndump);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/case%03d.hex", PF_ORACLE_DUMP, ndump++);
	f = fopen(path, "w");
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "%02x", d[i]);
	fputc('\n', f);
	fclose(f);
}
#endif

/* render_text - parse a format text and render one record with it */
static const char *render_text(const char *text, const struct rec *r, unsigned int flags)
{
	static struct ipt_event ev;
	struct ipt_record rec = { 0 };

	ipt_event_release(&ev);
	if (ipt_format_parse(&ev, "test", text, strlen(text), tr->long_size, "test", 0))
		return "<BAD FORMAT>";
#ifdef PF_ORACLE_DUMP
	dump(text, r->d, r->n);
#endif
	rec.data = r->d;
	rec.size = r->n;
	rec.event = &ev;
	ipt_strbuf_reset(&out);
	if (ipt_printfmt_render(tr, &ev, &rec, flags, &out))
		return "<FAIL>";
	return ipt_strbuf_str(&out);
}

/* render_pf - render with a one-off event: fields as given, print fmt pf */
static const char *render_pf(const char *fields, const char *pf, const struct rec *r)
{
	static char text[8192];

	snprintf(text, sizeof(text), FORMAT("t", 7, "%s", "%s"), fields, pf);
	return render_text(text, r, 0);
}

static void setup(void)
{
	tr = ipt_trace_alloc("unit");
	if (!tr)
		exit(1);
	ipt_symtab_add(&tr->ksyms, A_TTWU, "ttwu_queue_wakelist", 19);
	ipt_symtab_add(&tr->ksyms, A_GENERIC, "generic_smp_call_function_single_interrupt", 42);
	ipt_symtab_add(&tr->ksyms, A_PENDING, "sched_ttwu_pending", 18);
	ipt_symtab_add(&tr->ksyms, A_FLUSH, "flush_tlb_func", 14);
	ipt_symtab_add(&tr->ksyms, A_END, "_etext", 6);
	ipt_symtab_sort(&tr->ksyms);
	ipt_symtab_add(&tr->printk, A_RESCHED, "Rescheduling interrupts", 23);
	ipt_symtab_sort(&tr->printk);
}

/* ------------------------------------------------------------------ */
/* The IPI events                                                      */
/* ------------------------------------------------------------------ */

static const char ipi_send_cpu[] = FORMAT("ipi_send_cpu", 354,
	FIELD("unsigned int cpu", 8, 4, 0)
	FIELD("void * callsite", 16, 8, 0)
	FIELD("void * callback", 24, 8, 0),
	"\"cpu=%u callsite=%pS callback=%pS\", REC->cpu, REC->callsite, REC->callback");

static const char ipi_send_cpumask[] = FORMAT("ipi_send_cpumask", 353,
	FIELD("__data_loc cpumask_t cpumask", 8, 4, 0)
	FIELD("void * callsite", 16, 8, 0)
	FIELD("void * callback", 24, 8, 0),
	"\"cpumask=%s callsite=%pS callback=%pS\", __get_cpumask(cpumask), REC->callsite, REC->callback");

static const char csd_queue_cpu[] = FORMAT("csd_queue_cpu", 529,
	FIELD("unsigned int cpu", 8, 4, 0)
	FIELD("void * callsite", 16, 8, 0)
	FIELD("void * func", 24, 8, 0)
	FIELD("void * csd", 32, 8, 0),
	"\"cpu=%u callsite=%pS func=%ps csd=%p\", REC->cpu, REC->callsite, REC->func, REC->csd");

static const char csd_function_entry[] = FORMAT("csd_function_entry", 528,
	FIELD("void * func", 8, 8, 0)
	FIELD("void * csd", 16, 8, 0),
	"\"func=%ps, csd=%p\", REC->func, REC->csd");

static const char reschedule_entry[] = FORMAT("reschedule_entry", 155,
	FIELD("int vector", 8, 4, 1),
	"\"vector=%d\", REC->vector");

static const char ipi_raise[] = FORMAT("ipi_raise", 17,
	FIELD("__data_loc unsigned long[] target_cpus", 8, 4, 0)
	FIELD("const char * reason", 16, 8, 0),
	"\"target_mask=%s (%s)\", __get_bitmask(target_cpus), REC->reason");

/* test_ipi_send_cpu - %u and %pS: "sym+0xoff", +0x0 included; unknown 0x... */
static void test_ipi_send_cpu(void)
{
	struct rec r;

	rec_init(&r, 354, 32);
	put(&r, 8, 4, 1);
	put(&r, 16, 8, A_TTWU + 0x11d);
	put(&r, 24, 8, A_GENERIC);
	/* print_function: found -> name, and for S/F always "+0x%llx" */
	CHECK_STR(render_text(ipi_send_cpu, &r, 0),
		  "cpu=1 callsite=ttwu_queue_wakelist+0x11d "
		  "callback=generic_smp_call_function_single_interrupt+0x0");
	/* not found -> "0x%llx" of the value: callback 0 prints 0x0 */
	put(&r, 24, 8, 0);
	CHECK_STR(render_text(ipi_send_cpu, &r, 0),
		  "cpu=1 callsite=ttwu_queue_wakelist+0x11d callback=0x0");
	/* a field past the end of the record reads as 0 (check_data_offset_size) */
	r.n = 20;
	CHECK_STR(render_text(ipi_send_cpu, &r, 0), "cpu=1 callsite=0x0 callback=0x0");
}

/* test_ipi_send_cpumask - __get_cpumask as a cpulist, or hex words with MASK_HEX */
static void test_ipi_send_cpumask(void)
{
	static const uint8_t mask[8] = { 0x0f, 0x01, 0, 0, 0, 0, 0, 0x80 };
	static const uint8_t none[8] = { 0 };
	struct rec r;

	rec_init(&r, 353, 32);
	put(&r, 16, 8, A_TTWU + 0x40);
	put(&r, 24, 8, A_GENERIC);
	put_dyn(&r, 8, mask, sizeof(mask));
	/* print_cpumask_to_seq: ranges of set bits, byte 0 bit 0 = CPU 0 */
	CHECK_STR(render_text(ipi_send_cpumask, &r, 0),
		  "cpumask=0-3,8,63 callsite=ttwu_queue_wakelist+0x40 "
		  "callback=generic_smp_call_function_single_interrupt+0x0");
	/* the hex form: 2 digits a byte, most significant first, a comma per 4 bytes */
	CHECK_STR(render_text(ipi_send_cpumask, &r, IPT_RENDER_MASK_HEX),
		  "cpumask=80000000,0000010f callsite=ttwu_queue_wakelist+0x40 "
		  "callback=generic_smp_call_function_single_interrupt+0x0");
	rec_init(&r, 353, 32);
	put(&r, 16, 8, A_TTWU);
	put_dyn(&r, 8, none, sizeof(none));
	CHECK_STR(render_text(ipi_send_cpumask, &r, 0),
		  "cpumask= callsite=ttwu_queue_wakelist+0x0 callback=0x0");
	/* a __data_loc pointing outside the record: length 0, an empty list */
	put(&r, 8, 4, 8u << 16 | 200);
	CHECK_STR(render_text(ipi_send_cpumask, &r, 0),
		  "cpumask= callsite=ttwu_queue_wakelist+0x0 callback=0x0");
}

/* test_csd - %ps prints the name only; %p prints (nil) or 0x... */
static void test_csd(void)
{
	struct rec r;

	rec_init(&r, 529, 40);
	put(&r, 8, 4, 0);
	put(&r, 16, 8, A_TTWU + 0x11d);
	put(&r, 24, 8, A_PENDING);
	put(&r, 32, 8, 0xffff888106b72db8ULL);
	CHECK_STR(render_text(csd_queue_cpu, &r, 0),
		  "cpu=0 callsite=ttwu_queue_wakelist+0x11d func=sched_ttwu_pending "
		  "csd=0xffff888106b72db8");
	rec_init(&r, 528, 24);
	put(&r, 8, 8, A_FLUSH);
	CHECK_STR(render_text(csd_function_entry, &r, 0), "func=flush_tlb_func, csd=(nil)");
	/* an address below every symbol is unknown */
	put(&r, 8, 8, 0xffff888100000000ULL);
	put(&r, 16, 8, 1);
	CHECK_STR(render_text(csd_function_entry, &r, 0), "func=0xffff888100000000, csd=0x1");
}

/* test_irq_vectors - %d of a signed int (the cast to int signs it) */
static void test_irq_vectors(void)
{
	struct rec r;

	rec_init(&r, 155, 12);
	put(&r, 8, 4, 253);
	CHECK_STR(render_text(reschedule_entry, &r, 0), "vector=253");
	put(&r, 8, 4, 0xffffffff);
	CHECK_STR(render_text(reschedule_entry, &r, 0), "vector=-1");
}

/* test_ipi_raise - arm64: hex bitmask and a char * reason from the printk strings */
static void test_ipi_raise(void)
{
	static const uint8_t cpus[8] = { 0x06, 0, 0, 0, 0, 0, 0, 0 };
	struct rec r;

	rec_init(&r, 17, 24);
	put(&r, 16, 8, A_RESCHED);
	put_dyn(&r, 8, cpus, sizeof(cpus));
	/* print_bitmask_to_seq; a long-sized non-array field through %s is a
	 * pointer: its printk string */
	CHECK_STR(render_text(ipi_raise, &r, 0),
		  "target_mask=00000000,00000006 (Rescheduling interrupts)");
	/* __get_bitmask stays hex without MASK_HEX; an unknown address prints
	 * as "%llx" (no 0x) */
	put(&r, 16, 8, A_RESCHED + 8);
	CHECK_STR(render_text(ipi_raise, &r, 0),
		  "target_mask=00000000,00000006 (ffff800080f1c2a8)");
}

/* ------------------------------------------------------------------ */
/* Other events from the brief                                         */
/* ------------------------------------------------------------------ */

static const char sched_wakeup[] = FORMAT("sched_wakeup", 374,
	FIELD("char comm[16]", 8, 16, 0)
	FIELD("pid_t pid", 24, 4, 1)
	FIELD("int prio", 28, 4, 1)
	FIELD("int target_cpu", 32, 4, 1),
	"\"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, "
	"REC->target_cpu");

static const char sched_switch[] = FORMAT("sched_switch", 372,
	FIELD("char prev_comm[16]", 8, 16, 0)
	FIELD("pid_t prev_pid", 24, 4, 1)
	FIELD("int prev_prio", 28, 4, 1)
	FIELD("long prev_state", 32, 8, 1)
	FIELD("char next_comm[16]", 40, 16, 0)
	FIELD("pid_t next_pid", 56, 4, 1)
	FIELD("int next_prio", 60, 4, 1),
	"\"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s "
	"next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, "
	"(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | "
	"0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? "
	"__print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | "
	"0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), "
	"\"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, "
	"{ 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, "
	"{ 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", REC->prev_state & "
	"(((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | "
	"0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, REC->next_pid, "
	"REC->next_prio");

static const char kernel_stack[] = "name: kernel_stack\nID: 4\nformat:\n" COMMON
	FIELD("int size", 8, 4, 1)
	FIELD("unsigned long caller[8]", 16, 64, 0)
	"\nprint fmt: \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n"
	"\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\", (void *)REC->caller[0], "
	"(void *)REC->caller[1], (void *)REC->caller[2], (void *)REC->caller[3], "
	"(void *)REC->caller[4], (void *)REC->caller[5], (void *)REC->caller[6], "
	"(void *)REC->caller[7]\n";

/* test_sched_wakeup - a char[16] through %s, %03d zero padding */
static void test_sched_wakeup(void)
{
	struct rec r;

	rec_init(&r, 374, 36);
	put_str(&r, 8, "bash");
	put(&r, 24, 4, 26136);
	put(&r, 28, 4, 120);
	put(&r, 32, 4, 1);
	CHECK_STR(render_text(sched_wakeup, &r, 0), "comm=bash pid=26136 prio=120 target_cpu=001");
	/* a comm filling all 16 bytes (no NUL) stops at the field's end */
	memcpy(r.d + 8, "0123456789abcdef", 16);
	put(&r, 32, 4, 0xffffffff);
	CHECK_STR(render_text(sched_wakeup, &r, 0),
		  "comm=0123456789abcdef pid=26136 prio=120 target_cpu=-01");
}

/* switch_state - sched_switch's prev_state column for a state value */
static const char *switch_state(uint64_t state)
{
	static char buf[64];
	struct rec r;
	const char *s, *b, *e;

	rec_init(&r, 372, 64);
	put_str(&r, 8, "a");
	put(&r, 32, 8, state);
	put_str(&r, 40, "b");
	s = render_text(sched_switch, &r, 0);
	b = strstr(s, "prev_state=");
	e = b ? strstr(b, " ==>") : NULL;
	if (!b || !e)
		return s;
	b += 11;
	snprintf(buf, sizeof(buf), "%.*s", (int)(e - b), b);
	return buf;
}

/*
 * test_sched_switch - the ?: around __print_flags, "|" between flags; the
 * second %s is (state & 0x100) ? "+" : "" (the & binds before ?:).
 */
static void test_sched_switch(void)
{
	struct rec r;

	rec_init(&r, 372, 64);
	put_str(&r, 8, "swapper/0");
	put(&r, 24, 4, 0);
	put(&r, 28, 4, 120);
	put(&r, 32, 8, 1);
	put_str(&r, 40, "bash");
	put(&r, 56, 4, 26136);
	put(&r, 60, 4, 120);
	CHECK_STR(render_text(sched_switch, &r, 0),
		  "prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=S ==> "
		  "next_comm=bash next_pid=26136 next_prio=120");
	CHECK_STR(switch_state(0), "R");
	CHECK_STR(switch_state(2), "D");
	CHECK_STR(switch_state(3), "S|D");
	CHECK_STR(switch_state(0x81), "S|I");
	CHECK_STR(switch_state(0x100), "R+");
	CHECK_STR(switch_state(0x101), "S+");
	CHECK_STR(switch_state(0x402), "D");	/* 0x400 is outside the mask */
}

/* test_kernel_stack - (void *)REC->caller[i]: element reads, %ps names */
static void test_kernel_stack(void)
{
	struct rec r;

	rec_init(&r, 4, 80);
	put(&r, 8, 4, 8);
	put(&r, 16, 8, A_PENDING + 0x10);
	put(&r, 24, 8, A_TTWU + 0x11d);
	put(&r, 32, 8, A_FLUSH);
	put(&r, 40, 8, A_FLUSH + 0x7f);
	CHECK_STR(render_text(kernel_stack, &r, 0),
		  "\t=> sched_ttwu_pending\n\t=> ttwu_queue_wakelist\n\t=> flush_tlb_func\n"
		  "\t=> flush_tlb_func\n\t=> 0x0\n\t=> 0x0\n\t=> 0x0\n\t=> 0x0\n");
	/* a record cut inside caller[]: the missing elements read as 0 */
	r.n = 36;
	CHECK_STR(render_text(kernel_stack, &r, 0),
		  "\t=> sched_ttwu_pending\n\t=> ttwu_queue_wakelist\n\t=> 0x0\n"
		  "\t=> 0x0\n\t=> 0x0\n\t=> 0x0\n\t=> 0x0\n\t=> 0x0\n");
}

/* ------------------------------------------------------------------ */
/* Conversions                                                         */
/* ------------------------------------------------------------------ */

#define F_INTS								\
	FIELD("int a", 8, 4, 1)						\
	FIELD("int b", 12, 4, 1)					\
	FIELD("unsigned long c", 16, 8, 0)				\
	FIELD("short d", 24, 2, 1)					\
	FIELD("unsigned char e", 26, 1, 0)

/* ints - a record of F_INTS */
static void ints(struct rec *r, uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e)
{
	rec_init(r, 7, 32);
	put(r, 8, 4, a);
	put(r, 12, 4, b);
	put(r, 16, 8, c);
	put(r, 24, 2, d);
	put(r, 26, 1, e);
}

/*
 * test_numbers - values are read unsigned; the conversion's length
 * modifier casts (print_arg_number: (char), (short), (int), (long))
 */
static void test_numbers(void)
{
	struct rec r;

	ints(&r, 0xfffffffb, 7, 0x1234abcd, 0xffff, 0xff);
	CHECK_STR(render_pf(F_INTS, "\"%d %i %u %x %X %o\", REC->a, REC->a, REC->a, REC->a, "
			    "REC->a, REC->b", &r), "-5 -5 4294967291 fffffffb FFFFFFFB 7");
	/* %ld of a 4-byte signed field: read unsigned, so no sign */
	CHECK_STR(render_pf(F_INTS, "\"%ld %lld %lu %lx\", REC->a, REC->a, REC->c, REC->c", &r),
		  "4294967291 4294967291 305441741 1234abcd");
	CHECK_STR(render_pf(F_INTS, "\"%hd %hu %hhd %hhu %zu %zd\", REC->d, REC->d, REC->e, "
			    "REC->e, REC->c, REC->a", &r), "-1 65535 -1 255 305441741 4294967291");
	CHECK_STR(render_pf(F_INTS, "\"[%5d][%-5d][%05d][%08lx][%#x][%#o][%.3d]\", REC->b, REC->b, "
			    "REC->a, REC->c, REC->b, REC->b, REC->b", &r),
		  "[    7][7    ][-0005][1234abcd][0x7][07][007]");
	/* (int) cast: "(int)" masks to 32 bits, the %lld then does not sign */
	CHECK_STR(render_pf(F_INTS, "\"%lld %d\", (int)REC->c, (u8)REC->c", &r), "305441741 205");
	/* %*d takes the width from the argument before */
	CHECK_STR(render_pf(F_INTS, "\"[%*d][%-*u]\", REC->b, REC->b, 3, REC->b", &r), "[      7][7  ]");
	/* %% is a percent sign; %c is not known: ">c<", no argument used */
	CHECK_STR(render_pf(F_INTS, "\"100%% %c=%d\", REC->b", &r), "100% >c<=7");
	/* string literals are joined; escapes in the format are decoded */
	CHECK_STR(render_pf(F_INTS, "\"a=%d\" \" b=%d\\t|\\\"q\\\"\", REC->a, REC->b", &r),
		  "a=-5 b=7\t|\"q\"");
}

/* test_pointers - %p, %pK/%pB (letter kept), %pM/%pm, %pI4/%pi4 */
static void test_pointers(void)
{
	static const char fields[] = FIELD("void * p", 8, 8, 0)
		FIELD("unsigned char mac[6]", 16, 6, 0)
		FIELD("__u8 addr[4]", 24, 4, 0)
		FIELD("int n", 28, 4, 1);
	struct rec r;

	rec_init(&r, 7, 32);
	put(&r, 8, 8, 0xffffa0001234abcdULL);
	memcpy(r.d + 16, "\x00\x1b\x21\xab\xcd\xef", 6);
	memcpy(r.d + 24, "\xc0\xa8\x01\x02", 4);
	CHECK_STR(render_pf(fields, "\"%p %pK %pB\", REC->p, REC->p, REC->p", &r),
		  "0xffffa0001234abcd 0xffffa0001234abcdK 0xffffa0001234abcdB");
	CHECK_STR(render_pf(fields, "\"%pM %pm %pMR %pI4 %pi4\", REC->mac, REC->mac, REC->mac, "
			    "REC->addr, REC->addr", &r),
		  "00:1b:21:ab:cd:ef 001b21abcdef ef:cd:ab:21:1b:00 192.168.1.2 192.168.001.002");
	/* print_mac_arg: a field of another size, an argument not a field */
	CHECK_STR(render_pf(fields, "\"%pM|%pM\", REC->addr, 1", &r),
		  "INVALIDMAC|ARG TYPE NOT FIELD BUT 1");
	put(&r, 8, 8, 0);
	CHECK_STR(render_pf(fields, "\"%p\", REC->p", &r), "(nil)");
}

/* test_ip6_uuid - %pI6 (groups of 4), %pi6, %pI6c (RFC 5952-like), %pU[L] */
static void test_ip6_uuid(void)
{
	static const char fields[] = FIELD("__u8 a6[16]", 8, 16, 0)
		FIELD("__u8 m6[16]", 24, 16, 0);
	struct rec r;

	rec_init(&r, 7, 40);
	memcpy(r.d + 8, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
	memcpy(r.d + 24, "\0\0\0\0\0\0\0\0\0\0\xff\xff\xc0\xa8\x01\x02", 16);
	CHECK_STR(render_pf(fields, "\"%pI6 %pi6\", REC->a6, REC->a6", &r),
		  "2001:0db8:0000:0000:0000:0000:0000:0001 20010db8000000000000000000000001");
	/* print_ip6c_addr: the longest zero run becomes "::"; v4-mapped ends dotted */
	CHECK_STR(render_pf(fields, "\"%pI6c %pI6c\", REC->a6, REC->m6", &r),
		  "2001:db8::1 ::ffff:192.168.1.2");
	for (int i = 0; i < 16; i++)
		r.d[8 + i] = (uint8_t)i;
	/* print_uuid_arg: 'L' is the GUID byte order in upper case */
	CHECK_STR(render_pf(fields, "\"%pU %pUL\", REC->a6, REC->a6", &r),
		  "00010203-0405-0607-0809-0a0b0c0d0e0f 03020100-0504-0706-0809-0A0B0C0D0E0F");
}

/* test_strings - %s widths, __get_str, %.*s, a %s of a number */
static void test_strings(void)
{
	static const char fields[] = FIELD("__data_loc char[] name", 8, 4, 0)
		FIELD("int len", 12, 4, 1)
		FIELD("__rel_loc char[] rel", 16, 4, 0);
	struct rec r;

	rec_init(&r, 7, 20);
	put(&r, 12, 4, 2);
	put_dyn(&r, 8, "eth0", 5);
	put(&r, 16, 4, (5u << 16) | (r.n - 20));	/* __rel_loc: from the field's end */
	memcpy(r.d + r.n, "wlan", 5);
	r.n += 5;
	CHECK_STR(render_pf(fields, "\"[%s][%6s][%-6s][%.*s][%s]\", __get_str(name), "
			    "__get_str(name), __get_str(name), REC->len, __get_str(name), "
			    "__get_rel_str(rel)", &r), "[eth0][  eth0][eth0  ][et][wlan]");
	/* %s of constants prints their text; a cast prints nothing */
	CHECK_STR(render_pf(fields, "\"%s|%s|%s|%s\", 42, \"lit\", 1 + 2, (int)REC->len", &r),
		  "42|lit|3|");
	/* a negative length: libtraceevent passes printf shifted arguments; we fail */
	CHECK_STR(render_pf(fields, "\"[%.*s]\", -1, __get_str(name)", &r), "<FAIL>");
	/* a zero-length string prints nothing, not even the width */
	put(&r, 8, 4, 0);
	CHECK_STR(render_pf(fields, "\"[%5s]\", __get_str(name)", &r), "[]");
}

/* ------------------------------------------------------------------ */
/* Expressions and helpers                                             */
/* ------------------------------------------------------------------ */

/* test_expressions - C operators, with libtraceevent's own associativity */
static void test_expressions(void)
{
	struct rec r;

	ints(&r, 12, 5, 3, 0, 0);
	/* an operator of the same precedence binds to the right operand:
	 * a - b - 1 is a - (b - 1) */
	CHECK_STR(render_pf(F_INTS, "\"%d %d %d %d %d %d\", REC->a + REC->b * 2, REC->a - REC->b - 1, "
			    "REC->a / REC->b, REC->a % REC->b, REC->a << 2, REC->a >> 1", &r),
		  "22 8 2 2 48 6");
	CHECK_STR(render_pf(F_INTS, "\"%d %d %d %d %d %d %d\", REC->a & 4, REC->a | 1, !REC->a, "
			    "~REC->a, -REC->b, REC->a == 12, REC->b != 5", &r),
		  "4 13 0 -13 -5 1 0");
	CHECK_STR(render_pf(F_INTS, "\"%d %d %d %d\", REC->a > REC->b, REC->a <= 3, "
			    "REC->a && REC->e, REC->a || REC->e", &r), "1 0 0 1");
	CHECK_STR(render_pf(F_INTS, "\"%d %s\", REC->b > 3 ? REC->a : 99, REC->b ? \"yes\" : \"no\"", &r),
		  "12 yes");
	/* process_op re-associates a parenthesised operand of looser binding:
	 * a * (b + c) is evaluated as (a * b) + c */
	CHECK_STR(render_pf(F_INTS, "\"%d\", REC->a * (REC->b + REC->c)", &r), "63");
	/* eval_num_arg has no '^' (0); constants are folded by C rules */
	CHECK_STR(render_pf(F_INTS, "\"%d %d\", REC->a ^ 1, 6 ^ 3", &r), "0 5");
	CHECK_STR(render_pf(F_INTS, "\"%d %d %d\", 'A', 0x10, sizeof(int)", &r), "0 16 4");
	/* a name used as a number is a kernel symbol's address (test_for_symbol) */
	CHECK_STR(render_pf(F_INTS, "\"%lx %s %d\", flush_tlb_func, flush_tlb_func, nosuch", &r),
		  "ffffffff81400000 flush_tlb_func 0");
	/* division by zero: libtraceevent would crash; we fail */
	ints(&r, 12, 0, 3, 0, 0);
	CHECK_STR(render_pf(F_INTS, "\"%d\", REC->a / REC->b", &r), "<FAIL>");
}

/* test_flags_symbolic - __print_flags / __print_symbolic */
static void test_flags_symbolic(void)
{
	static const char pf_flags[] = "\"%s\", __print_flags(REC->a, \" | \", { 1, \"ONE\" }, "
				       "{ 2, \"TWO\" }, { 0x10, \"SIXTEEN\" })";
	static const char pf_sym[] = "\"%s\", __print_symbolic(REC->a, { 0, \"zero\" }, "
				     "{ 2, \"two\" }, { HRTIMER_RESTART, \"restart\" })";
	struct rec r;

	ints(&r, 0x13, 0, 0, 0, 0);
	CHECK_STR(render_pf(F_INTS, pf_flags, &r), "ONE | TWO | SIXTEEN");
	ints(&r, 0x105, 0, 0, 0, 0);	/* leftover bits in hex after the names */
	CHECK_STR(render_pf(F_INTS, pf_flags, &r), "ONE | 0x104");
	ints(&r, 0, 0, 0, 0, 0);	/* nothing for 0 */
	CHECK_STR(render_pf(F_INTS, pf_flags, &r), "");
	ints(&r, 2, 0, 0, 0, 0);
	CHECK_STR(render_pf(F_INTS, pf_sym, &r), "two");
	ints(&r, 1, 0, 0, 0, 0);	/* eval_flag knows HRTIMER_RESTART = 1 */
	CHECK_STR(render_pf(F_INTS, pf_sym, &r), "restart");
	ints(&r, 9, 0, 0, 0, 0);
	CHECK_STR(render_pf(F_INTS, pf_sym, &r), "0x9");
}

/* test_arrays - __print_hex(_str), __print_array, __get_dynamic_array_len, %*ph */
static void test_arrays(void)
{
	static const char fields[] = FIELD("__data_loc u8[] buf", 8, 4, 0)
		FIELD("__data_loc u32[] vals", 12, 4, 0)
		FIELD("unsigned char raw[4]", 16, 4, 0);
	static const uint8_t bytes[3] = { 0x01, 0xab, 0xff };
	static const uint8_t vals[8] = { 1, 0, 0, 0, 0x10, 0x27, 0, 0 };
	struct rec r;

	rec_init(&r, 7, 20);
	memcpy(r.d + 16, "\xde\xad\xbe\xef", 4);
	put_dyn(&r, 8, bytes, sizeof(bytes));
	put_dyn(&r, 12, vals, sizeof(vals));
	CHECK_STR(render_pf(fields, "\"%s|%s|%s|%d\", __print_hex(__get_dynamic_array(buf), "
			    "__get_dynamic_array_len(buf)), __print_hex_str(REC->raw, 4), "
			    "__print_array(__get_dynamic_array(vals), 2, 4), "
			    "__get_dynamic_array_len(vals)", &r),
		  "01 ab ff|deadbeef|1 10000|8");
	CHECK_STR(render_pf(fields, "\"%*ph|%phC|%*phN\", 3, __get_dynamic_array(buf), "
			    "__get_dynamic_array(buf), 2, __get_dynamic_array(buf)", &r),
		  "01 ab ff|01|01ab");
}

/* ------------------------------------------------------------------ */
/* Malformed input                                                     */
/* ------------------------------------------------------------------ */

/* test_malformed - print fmts libtraceevent rejects, and hostile ones */
static void test_malformed(void)
{
	static const char *const bad[] = {
		"\"x=%d",				/* unterminated string */
		"\"x=%d\", foo(REC->a)",		/* unknown function */
		"\"x=%d\"",				/* a conversion without argument */
		"\"%d %d\", REC->a",
		"\"x=%d\", REC->a +",
		"\"x=%d\" REC->a",
		"x=%d, REC->a",				/* no format string */
		"",
		"\"%d\", __get_dynamic_array(a)[0]",	/* 1.7 fails on [] after it */
		"\"%d\", sizeof(u64)",			/* 1.7 knows no u64 here */
		"\"%s\", __print_flags_u64(REC->a, \"|\", { 1, \"a\" })",
		"\"%s\", __print_flags(REC->a, \"|\", { REC->b, \"a\" })",
		"\"%lld\", 1 / 0",			/* libtraceevent: SIGFPE */
		"\"%lls\", \"x\"",			/* glibc would get "%lls" */
		"\"%lllu\", REC->a",
		"\"%**d\", 1, 2, 3",
		"\"%d\", REC->a ]",
		"\"%d\", (REC->a REC->b",
		"\"\xc3\xa9\", REC->a",
	};
	struct rec r;
	char deep[8192];
	size_t n = 0;

	ints(&r, 1, 2, 3, 4, 5);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *got = render_pf(F_INTS, bad[i], &r);

		CHECK(!strcmp(got, "<FAIL>"), "print fmt <%s> gave '%s'", bad[i], got);
	}
	/* nesting deeper than the parser allows */
	n += (size_t)snprintf(deep, sizeof(deep), "\"%%d\", ");
	for (int i = 0; i < 2000; i++)
		deep[n++] = '(';
	deep[n] = 0;
	CHECK_STR(render_pf(F_INTS, deep, &r), "<FAIL>");
	n = (size_t)snprintf(deep, sizeof(deep), "\"%%d\", ");
	for (int i = 0; i < 1000; i++)	/* libtraceevent would take these */
		n += (size_t)snprintf(deep + n, sizeof(deep) - n, "- ");
	snprintf(deep + n, sizeof(deep) - n, "1");
	CHECK_STR(render_pf(F_INTS, deep, &r), "<FAIL>");
	/* things libtraceevent accepts: trailing junk after the last argument */
	CHECK_STR(render_pf(F_INTS, "\"%d\", REC->a)", &r), "1");
	/* an unknown field reads as 0 */
	CHECK_STR(render_pf(F_INTS, "\"%d\", REC->nosuch", &r), "0");
}

/* xorshift - a small deterministic random generator */
static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* test_random_records - random bytes and sizes through every test event */
static void test_random_records(void)
{
	const char *texts[] = { ipi_send_cpu, ipi_send_cpumask, csd_queue_cpu, csd_function_entry,
				reschedule_entry, ipi_raise, sched_wakeup, sched_switch,
				kernel_stack };
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	int ok = 0;

	for (size_t k = 0; k < ARRAY_SIZE(texts); k++) {
		struct ipt_event ev;
		struct ipt_record rec = { 0 };

		if (ipt_format_parse(&ev, "test", texts[k], strlen(texts[k]), 8, "t", 0))
			continue;
		for (int i = 0; i < 2000; i++) {
			uint8_t *d;
			uint32_t n = (uint32_t)(xorshift(&seed) % 120);

			d = malloc(n ? n : 1);	/* exact size: sanitizers see overreads */
			for (uint32_t j = 0; j < n; j++)
				d[j] = (uint8_t)(xorshift(&seed) >> 24);
			rec.data = d;
			rec.size = n;
			ipt_strbuf_reset(&out);
			ipt_printfmt_render(tr, &ev, &rec, (unsigned int)i & IPT_RENDER_MASK_HEX, &out);
			ok += out.len < 100000;
			free(d);
		}
		ipt_event_release(&ev);
	}
	CHECK(ok == 2000 * (int)ARRAY_SIZE(texts), "random records: %d rendered", ok);
}

/* test_random_fmts - mutated print fmts must fail or render, never crash */
static void test_random_fmts(void)
{
	static const char alphabet[] = "\"%dsxpSl*.-0123(),?:[]{}<>=!&|^~+/ REC->abcde_'\\\n";
	uint64_t seed = 12345;
	struct rec r;
	char pf[160];

	ints(&r, 1, 2, 3, 4, 5);
	for (int i = 0; i < 3000; i++) {
		size_t n = 1 + xorshift(&seed) % (sizeof(pf) - 1);

		snprintf(pf, sizeof(pf), "\"%%d %%s %%p\", REC->a, REC->b ? \"x\" : \"y\", REC->c");
		for (size_t j = 0; j < n / 8; j++) {	/* mutate some chars */
			size_t at = xorshift(&seed) % strlen(pf);

			pf[at] = alphabet[xorshift(&seed) % (sizeof(alphabet) - 1)];
		}
		render_pf(F_INTS, pf, &r);
		for (size_t j = 0; j < n; j++)
			pf[j] = alphabet[xorshift(&seed) % (sizeof(alphabet) - 1)];
		pf[n] = 0;
		render_pf(F_INTS, pf, &r);
	}
	CHECK(1, "survived");
}

/* ------------------------------------------------------------------ */
/* Threads                                                             */
/* ------------------------------------------------------------------ */

struct job {
	const struct ipt_event *ev;
	const struct rec *r;
	int good;
};

/* worker - render one record many times; the first calls race on the parse */
static void *worker(void *arg)
{
	struct job *j = arg;
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	struct ipt_record rec = { 0 };

	rec.data = j->r->d;
	rec.size = j->r->n;
	rec.event = j->ev;
	for (int i = 0; i < 2000; i++) {
		ipt_strbuf_reset(&sb);
		if (!ipt_printfmt_render(tr, j->ev, &rec, 0, &sb) &&
		    !strcmp(ipt_strbuf_str(&sb), "cpu=1 callsite=ttwu_queue_wakelist+0x11d callback=0x0"))
			j->good++;
	}
	ipt_strbuf_free(&sb);
	return NULL;
}

/* test_threads - one event rendered from 4 threads at once */
static void test_threads(void)
{
	struct ipt_event ev;
	struct job jobs[4];
	pthread_t th[4];
	struct rec r;

	if (ipt_format_parse(&ev, "ipi", ipi_send_cpu, strlen(ipi_send_cpu), 8, "t", 0)) {
		CHECK(0, "format");
		return;
	}
	rec_init(&r, 354, 32);
	put(&r, 8, 4, 1);
	put(&r, 16, 8, A_TTWU + 0x11d);
	for (int i = 0; i < 4; i++) {
		jobs[i] = (struct job){ &ev, &r, 0 };
		pthread_create(&th[i], NULL, worker, &jobs[i]);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		CHECK(jobs[i].good == 2000, "thread %d: %d good", i, jobs[i].good);
	}
	ipt_event_release(&ev);
}

int main(void)
{
	setup();
	test_ipi_send_cpu();
	test_ipi_send_cpumask();
	test_csd();
	test_irq_vectors();
	test_ipi_raise();
	test_sched_wakeup();
	test_sched_switch();
	test_kernel_stack();
	test_numbers();
	test_pointers();
	test_ip6_uuid();
	test_strings();
	test_expressions();
	test_flags_symbolic();
	test_arrays();
	test_malformed();
	test_random_records();
	test_random_fmts();
	test_threads();
	render_text("", &(struct rec){ 0 }, 0);		/* release the static event */
	ipt_strbuf_free(&out);
	ipt_trace_close(tr);
	TEST_MAIN_END();
}
