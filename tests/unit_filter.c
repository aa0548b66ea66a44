/* unit_filter.c - filter expressions: parsing, evaluation, errors, fuzzing */
#include "ipitrace.h"
#include "testlib.h"

#include <stdint.h>

/* ------------------------------------------------------------------ */
/* Fields and rows                                                     */
/* ------------------------------------------------------------------ */

enum { F_TARGET, F_SRC, F_MASK, F_CALLSITE, F_COMM, F_KIND, F_PID, F_DELTA, F_FLAGS,
       F_NOTHING, NF };

static const struct {
	const char *name;
	int id;
} names[] = {
	{ "target_cpu", F_TARGET }, { "tcpu", F_TARGET },	/* alias: same id */
	{ "src_cpu", F_SRC }, { "cpumask", F_MASK },
	{ "callsite", F_CALLSITE }, { "func", F_CALLSITE },
	{ "callsite.function", F_CALLSITE },
	{ "comm", F_COMM }, { "kind", F_KIND }, { "pid", F_PID },
	{ "delta", F_DELTA }, { "flags", F_FLAGS }, { "nothing", F_NOTHING },
};

static int resolve_calls;

static int resolve(void *ctx, const char *name)
{
	(void)ctx;
	resolve_calls++;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(names[i].name, name) == 0)
			return names[i].id;
	return -1;
}

#define NROWS 9
static struct ipt_value rows[NROWS][NF];	/* zero: IPT_VAL_NONE */
static struct ipt_cpuset masks[NROWS];

struct ctx {
	int row;
	int lookups[NF];
};

static void lookup(void *vctx, int id, struct ipt_value *v)
{
	struct ctx *c = vctx;

	c->lookups[id]++;
	if (id >= 0 && id < NF)
		*v = rows[c->row][id];
}

static void set_int(int r, int f, int64_t v, bool is_signed)
{
	rows[r][f].kind = IPT_VAL_INT;
	rows[r][f].i = (uint64_t)v;
	rows[r][f].is_signed = is_signed;
}

static void set_str(int r, int f, const char *s, size_t len)
{
	rows[r][f].kind = IPT_VAL_STR;
	rows[r][f].s = s;
	rows[r][f].slen = len;
}

static void set_addr(int r, uint64_t addr, const char *sym, uint64_t off)
{
	rows[r][F_CALLSITE].kind = IPT_VAL_ADDR;
	rows[r][F_CALLSITE].i = addr;
	rows[r][F_CALLSITE].sym = sym;
	rows[r][F_CALLSITE].symoff = off;
}

static void set_mask(int r, const char *list)
{
	ipt_cpuset_init(&masks[r]);
	ipt_cpuset_parse_list(&masks[r], list, strlen(list));
	rows[r][F_MASK].kind = IPT_VAL_CPUSET;
	rows[r][F_MASK].set = &masks[r];
}

/*
 * The rows (row 7 has no value at all: every field IPT_VAL_NONE).
 *
 * row target src(s)  cpumask   callsite               sym                          comm          kind      pid(s) delta(s)   flags
 *  0     0    1      {0}       0xffffffff81000100     ttwu_queue_wakelist          "bash"        resched   100    -5         0x1
 *  1     3    2      {2,3}     0xffffffff81234567     flush_tlb_func               "kworker/3:1" tlb       200    0          0x3
 *  2     5    4      {4-7}     0xffffffff81234567     flush_tlb_func               "bash"        tlb       -1     10         0x0
 *  3     7    0      NONE      0xffffffff81300000     smp_call_function_many_cond  "systemd"     call      1      -100       0x8
 *  4     8    8      {8-15}    0xffffffff81000200     (NULL: unknown)              "swapper/8"   resched   0      7          0x10
 *  5     2    3      {} empty  0xffffffff81000180     ttwu_do_wakeup               "cat" (slen 3 of "catXYZ")
 *                                                                                                call      4096   2147483648 0xff
 *  6    12    1      {1,3,12}  0xffffffff81000100     ttwu_queue_wakelist          "sh" ("sh\0ignored", slen 10)
 *                                                                                                irq_work  300    INT64_MIN  1<<63
 *  7   NONE  NONE    NONE      NONE                   -                            NONE          NONE      NONE   NONE       NONE
 *  8  9000   -1(s)   {0-8191}  0x0                    (NULL)                       "" (slen 0)   s=NULL    NONE   NONE       NONE
 *
 * (s) = signed.  target_cpu and flags are unsigned.
 */
static void setup_rows(void)
{
	static const char *tgt_syms[] = { "ttwu_queue_wakelist", "flush_tlb_func",
					  "smp_call_function_many_cond", "ttwu_do_wakeup" };

	set_int(0, F_TARGET, 0, false);  set_int(0, F_SRC, 1, true);  set_mask(0, "0");
	set_addr(0, 0xffffffff81000100ull, tgt_syms[0], 0x20);
	set_str(0, F_COMM, "bash", 4);   set_str(0, F_KIND, "resched", 7);
	set_int(0, F_PID, 100, true);    set_int(0, F_DELTA, -5, true); set_int(0, F_FLAGS, 1, false);

	set_int(1, F_TARGET, 3, false);  set_int(1, F_SRC, 2, true);  set_mask(1, "2,3");
	set_addr(1, 0xffffffff81234567ull, tgt_syms[1], 0x17);
	set_str(1, F_COMM, "kworker/3:1", 11); set_str(1, F_KIND, "tlb", 3);
	set_int(1, F_PID, 200, true);    set_int(1, F_DELTA, 0, true);  set_int(1, F_FLAGS, 3, false);

	set_int(2, F_TARGET, 5, false);  set_int(2, F_SRC, 4, true);  set_mask(2, "4-7");
	set_addr(2, 0xffffffff81234567ull, tgt_syms[1], 0x17);
	set_str(2, F_COMM, "bash", 4);   set_str(2, F_KIND, "tlb", 3);
	set_int(2, F_PID, -1, true);     set_int(2, F_DELTA, 10, true); set_int(2, F_FLAGS, 0, false);

	set_int(3, F_TARGET, 7, false);  set_int(3, F_SRC, 0, true);  /* no mask */
	set_addr(3, 0xffffffff81300000ull, tgt_syms[2], 0);
	set_str(3, F_COMM, "systemd", 7); set_str(3, F_KIND, "call", 4);
	set_int(3, F_PID, 1, true);      set_int(3, F_DELTA, -100, true); set_int(3, F_FLAGS, 8, false);

	set_int(4, F_TARGET, 8, false);  set_int(4, F_SRC, 8, true);  set_mask(4, "8-15");
	set_addr(4, 0xffffffff81000200ull, NULL, 0);
	set_str(4, F_COMM, "swapper/8", 9); set_str(4, F_KIND, "resched", 7);
	set_int(4, F_PID, 0, true);      set_int(4, F_DELTA, 7, true);  set_int(4, F_FLAGS, 0x10, false);

	set_int(5, F_TARGET, 2, false);  set_int(5, F_SRC, 3, true);  set_mask(5, "");
	set_addr(5, 0xffffffff81000180ull, tgt_syms[3], 0);
	set_str(5, F_COMM, "catXYZ", 3); set_str(5, F_KIND, "call", 4);
	set_int(5, F_PID, 4096, true);   set_int(5, F_DELTA, 2147483648ll, true);
	set_int(5, F_FLAGS, 0xff, false);

	set_int(6, F_TARGET, 12, false); set_int(6, F_SRC, 1, true);  set_mask(6, "1,3,12");
	set_addr(6, 0xffffffff81000100ull, tgt_syms[0], 0x20);
	set_str(6, F_COMM, "sh\0ignored", 10); set_str(6, F_KIND, "irq_work", 8);
	set_int(6, F_PID, 300, true);    set_int(6, F_DELTA, INT64_MIN, true);
	set_int(6, F_FLAGS, (int64_t)0x8000000000000000ull, false);

	/* row 7: nothing */

	set_int(8, F_TARGET, 9000, false); set_int(8, F_SRC, -1, true); set_mask(8, "0-8191");
	set_addr(8, 0, NULL, 0);
	set_str(8, F_COMM, "", 0);       set_str(8, F_KIND, NULL, 0);
}

/* The rows an expression matches, as a string of row digits ("" none). */
static void match_rows(const struct ipt_filter *f, char *out, int *max_lookups)
{
	int n = 0;

	*max_lookups = 0;
	for (int r = 0; r < NROWS; r++) {
		struct ctx c;

		memset(&c, 0, sizeof(c));
		c.row = r;
		if (ipt_filter_eval(f, lookup, &c))
			out[n++] = (char)('0' + r);
		for (int k = 0; k < NF; k++)
			if (c.lookups[k] > *max_lookups)
				*max_lookups = c.lookups[k];
	}
	out[n] = 0;
}

/* ------------------------------------------------------------------ */
/* Expressions and the rows they match (worked out by hand from the    */
/* table above; the comment gives the reasoning)                       */
/* ------------------------------------------------------------------ */

static const struct {
	const char *expr;
	const char *rows;
} good[] = {
	/* integers: target_cpu 0,3,5,7,8,2,12,-,9000 */
	{ "target_cpu == 3", "1" },
	{ "target_cpu != 3", "0234568" },		/* every INT row but 1; 7 is NONE */
	{ "target_cpu < 5", "015" },			/* 0, 3, 2 */
	{ "target_cpu <= 5", "0125" },
	{ "target_cpu > 7", "468" },			/* 8, 12, 9000 */
	{ "target_cpu >= 7", "3468" },
	{ "target_cpu == -1", "" },			/* unsigned: never negative */
	{ "target_cpu != -1", "01234568" },
	/* durations are decimal ns: 3ns = 3, 0.005us = 5, 9us = 9000 */
	{ "target_cpu == 3ns", "1" },
	{ "target_cpu > 0.005us", "3468" },
	{ "target_cpu < 0.000005ms", "015" },
	{ "target_cpu >= 9us", "8" },
	{ "target_cpu == 0.000009s", "8" },
	{ "target_cpu == 010ns", "" },			/* decimal 10, not octal 8 (row 4) */
	/* & : flags 1,3,0,8,0x10,0xff,1<<63 */
	{ "flags & 0x8", "35" },
	{ "flags & 1", "015" },
	{ "flags & 0x8000000000000000", "6" },
	{ "flags & 0", "" },
	{ "flags == 0xff", "5" },
	{ "flags == 0XFF", "5" },
	{ "flags == 0377", "5" },			/* octal, as kstrtoull(s, 0) */
	{ "flags == 010", "3" },			/* octal 8 */
	{ "flags == 0", "2" },
	{ "flags == true", "0" },			/* true is 1, false 0 */
	{ "flags == false", "2" },
	/* signed: pid 100,200,-1,1,0,4096,300 */
	{ "pid < 0", "2" },
	{ "pid >= 0", "013456" },
	{ "pid == -1", "2" },
	{ "pid > -2", "0123456" },
	{ "pid < 0xffffffffffffffff", "0123456" },	/* -1 < 2^64-1 mathematically */
	{ "pid == 0", "4" },
	{ "pid == -0", "4" },
	/* delta -5,0,10,-100,7,2^31,INT64_MIN */
	{ "delta < -5", "36" },
	{ "delta <= -5", "036" },
	{ "delta > 2147483647", "5" },
	{ "delta == -9223372036854775808", "6" },
	{ "delta < -0x7fffffffffffffff", "6" },
	{ "delta >= 0", "1245" },
	/* src_cpu (signed) 1,2,4,0,8,3,1,-,-1 */
	{ "src_cpu == -1", "8" },
	{ "src_cpu < 2", "0368" },
	/* addresses as numbers */
	{ "callsite == 0xffffffff81234567", "12" },
	{ "callsite > 0xffffffff81000180", "1234" },	/* ..234567 x2, ..300000, ..200 */
	{ "callsite & 0x100", "01256" },		/* low bits 100, 567, 567, 180, 100 */
	{ "callsite == 0", "8" },
	/* addresses as symbol names (NULL symbol: the name "") */
	{ "callsite ~ \"ttwu_*\"", "056" },
	{ "func == \"flush_tlb_func\"", "12" },
	{ "func != \"flush_tlb_func\"", "034568" },	/* ADDR rows other than 1, 2 */
	{ "callsite.function == \"flush_tlb_func\"", "12" },
	{ "callsite ~ \"*wake*\"", "056" },
	{ "callsite ~ \"*_cond\"", "3" },
	{ "callsite ~ \"ttwu_[dq]*\"", "056" },		/* full glob */
	{ "callsite ~ \"*\"", "01234568" },		/* every ADDR row, "" too */
	{ "callsite ~ \"?*\"", "012356" },		/* non-empty names */
	{ "callsite ~ \"!ttwu_*\"", "12348" },		/* kernel: leading ! inverts */
	{ "func == \"ttwu\"", "" },			/* whole name, no prefix match */
	/* strings: comm bash,kworker/3:1,bash,systemd,swapper/8,cat,sh,-,"" */
	{ "comm == \"bash\"", "02" },
	{ "comm != \"bash\"", "134568" },
	{ "comm == 'cat'", "5" },			/* slen honoured */
	{ "comm == \"catXYZ\"", "" },
	{ "comm == \"sh\"", "6" },			/* stops at the NUL */
	{ "comm == \"\"", "8" },
	{ "comm == \"bas\"", "" },
	{ "comm ~ \"kworker/*\"", "1" },		/* prefix */
	{ "comm ~ \"*/8\"", "4" },			/* suffix */
	{ "comm ~ \"*s*\"", "02346" },			/* substring */
	{ "comm ~ \"?a?\"", "5" },			/* 3 chars, 'a' in the middle */
	{ "comm ~ \"[bc]a*\"", "025" },
	{ "comm ~ \"[!b]*\"", "13456" },		/* non-empty, first char not b */
	{ "comm ~ \"s[a-z]*\"", "346" },
	{ "comm ~ \"*\"", "01234568" },
	{ "comm ~ \"\"", "8" },
	{ "comm ~ \"bas\\h\"", "02" },			/* \h is h */
	{ "comm ~ \"[b\"", "" },			/* unclosed [: literal */
	{ "comm ~ \"kworker/3:?\"", "1" },
	{ "comm ~ \"b*h\"", "02" },
	{ "comm ~ \"*o*e*\"", "1" },			/* kworker: o then e */
	{ "comm ~ \"bash\"", "02" },			/* no wildcard: exact */
	{ "comm == \"b*\"", "" },			/* == never globs */
	{ "comm != \"*\"", "01234568" },
	{ "comm ~ \"!*\"", "" },
	{ "comm ~ \"!\"", "0123456" },			/* not "" */
	{ "kind == \"tlb\"", "12" },
	{ "kind ~ \"*\"", "01234568" },			/* NULL s is "" */
	/* CPUS{} on cpumasks: {0},{2,3},{4-7},-,{8-15},{},{1,3,12},-,{0-8191} */
	{ "cpumask & CPUS{4-7}", "28" },
	{ "cpumask & CPUS{3}", "168" },
	{ "cpumask == CPUS{2-3}", "1" },
	{ "cpumask == CPUS{0}", "0" },
	{ "cpumask != CPUS{0}", "124568" },		/* CPUSET rows other than 0 */
	{ "cpumask & CPUS{ 0 , 12 }", "0468" },	/* {0}, {8-15}, {1,3,12}, all */
	{ "cpumask & CPUS{8191}", "8" },
	{ "cpumask == CPUS{0-8191}", "8" },
	{ "!(cpumask & CPUS{0-8191})", "357" },		/* empty set, and NONE rows */
	{ "cpumask & CPUS{100-200}", "8" },
	{ "cpumask == 3", "" },				/* set vs number: no match */
	/* CPUS{} on scalar CPU numbers: membership for &, {cpu} for == */
	{ "target_cpu & CPUS{2,3}", "15" },
	{ "target_cpu == CPUS{3}", "1" },
	{ "target_cpu & CPUS{3}", "1" },
	{ "target_cpu == CPUS{2,3}", "" },
	{ "target_cpu != CPUS{2,3}", "01234568" },
	{ "target_cpu != CPUS{3}", "0234568" },
	{ "src_cpu & CPUS{0-8191}", "0123456" },	/* -1 is no CPU */
	{ "target_cpu & CPUS{0-8191}", "0123456" },	/* 9000 is no CPU */
	{ "comm & CPUS{1}", "" },
	{ "callsite == CPUS{1}", "" },
	/* kind mismatches are false, NONE too; ! inverts that */
	{ "comm < 5", "" },
	{ "comm == 5", "" },
	{ "comm != 5", "" },
	{ "target_cpu == \"3\"", "" },
	{ "!(comm == 5)", "012345678" },
	{ "nothing == 0", "" },
	{ "nothing != 0", "" },
	{ "!(nothing == 0)", "012345678" },
	{ "!nothing != 0", "012345678" },		/* ! binds to the predicate */
	{ "nothing != 0 || pid == 0", "4" },
	/* precedence: && binds tighter than || */
	{ "kind == \"tlb\" || kind == \"call\" && pid == 1", "123" },	/* {1,2} + {3} */
	{ "pid == 1 && kind == \"call\" || kind == \"tlb\"", "123" },
	{ "(kind == \"tlb\" || kind == \"call\") && pid == 1", "3" },
	{ "!kind == \"tlb\" && comm == \"bash\"", "0" },	/* {0,3-8} & {0,2} */
	{ "!(kind == \"tlb\" && comm == \"bash\")", "01345678" },	/* not {2} */
	{ "!!(kind == \"tlb\")", "12" },
	{ "!(!(kind == \"tlb\"))", "12" },
	{ "!!!(kind == \"tlb\")", "0345678" },
	{ "target_cpu == 0 || target_cpu == 3 && src_cpu == 2 || target_cpu == 8", "014" },
	{ "target_cpu == 0 || target_cpu == 3 && src_cpu == 9 || target_cpu == 8", "04" },
	/*
	 * The kernel's example "a && !(!b || (c && g)) || d || e && !f" with
	 * a = delta >= 0 {1,2,4,5}, b = kind tlb {1,2}, c = comm k* {1},
	 * g = flags & 2 {1,5}, d = target_cpu 7 {3}, e = delta < 0 {0,3,6},
	 * f = comm sh {6}: !b || (c && g) = {0,1,3-8}, its negation {2};
	 * a && {2} = {2}; e && !f = {0,3}; total {0,2,3}.
	 */
	{ "delta >= 0 && !(!kind == \"tlb\" || (comm ~ \"k*\" && flags & 2)) || "
	  "target_cpu == 7 || delta < 0 && !comm == \"sh\"", "023" },
	{ "((((pid == 100))))", "0" },
	{ "  pid\t==\n100  ", "0" },
	{ "pid==100&&comm==\"bash\"", "0" },
	{ "(pid == 100 || pid == 200) && (comm ~ \"b*\" || comm ~ \"k*\")", "01" },
	{ "pid == 100 || pid == 200 || pid == 300", "016" },
	{ "tcpu == 3 || target_cpu == 5", "12" },	/* one id, one lookup */
};

/* Malformed expressions and the column their error names. */
static const struct {
	const char *expr;
	int col;
	const char *what;	/* a part of the message */
} bad[] = {
	{ "", 1, "empty expression" },
	{ "   ", 1, "empty expression" },
	{ "pid ==", 7, "expected a value" },
	{ "pid", 4, "expected an operator" },
	{ "pid = 1", 5, "expected an operator" },
	{ "bogus == 1", 1, "unknown field 'bogus'" },
	{ "pid == 1 && bogus == 2", 13, "unknown field 'bogus'" },
	{ "(pid == 1", 10, "expected ')'" },
	{ "pid == 1)", 9, "unmatched ')'" },
	{ "comm == \"bash", 9, "unterminated string" },
	{ "pid == 1 &&", 12, "expected a field name" },
	{ "pid == 1 ||", 12, "expected a field name" },
	{ "&& pid == 1", 1, "expected a field name" },
	{ "pid == 1 pid == 2", 10, "expected '&&', '||' or end" },
	{ "pid == 1 & pid == 2", 10, "expected '&&', '||' or end" },
	{ "cpumask & CPUS{x}", 16, "bad CPU list" },
	{ "cpumask & CPUS{}", 16, "empty CPU list" },
	{ "cpumask & CPUS{ }", 16, "empty CPU list" },
	{ "cpumask & CPUS{1-}", 18, "expected a CPU number" },
	{ "cpumask & CPUS{1,}", 18, "expected a CPU number" },
	{ "cpumask & CPUS{3-1}", 18, "backwards" },
	{ "cpumask & CPUS{9000}", 16, "too large" },
	{ "cpumask & CPUS{1,2", 15, "missing '}'" },
	{ "cpumask & CPUS 1", 15, "expected '{'" },
	{ "cpumask & CPUS{1 2}", 18, "bad CPU list" },
	{ "cpumask < CPUS{1}", 9, "cannot compare CPU sets" },
	{ "cpumask ~ CPUS{1}", 9, "cannot compare CPU sets" },
	{ "comm < \"a\"", 6, "cannot compare strings" },
	{ "comm & \"a\"", 6, "cannot compare strings" },
	{ "pid ~ 5", 5, "needs a \"string\"" },
	{ "pid == abc", 8, "strings need quotes" },
	{ "pid == 12ab", 8, "invalid number" },
	{ "pid == 0x", 8, "invalid number" },
	{ "pid == 08", 8, "invalid number" },
	{ "pid == 18446744073709551616", 8, "out of range" },
	{ "pid == -9223372036854775809", 8, "out of range" },
	{ "pid == -", 8, "invalid number" },
	{ "()", 2, "expected a field name" },
	{ "!", 2, "expected a field name" },
	{ "pid == 1 && (comm == \"x\" || )", 29, "expected a field name" },
	{ "pid == 1 && (comm == \"x\" pid", 26, "expected '&&', '||' or ')'" },
	{ "5 == pid", 1, "expected a field name" },
	{ "pid == \"1\" && comm ~ 'x", 22, "unterminated string" },
	{ "pid && 1", 5, "expected an operator" },
	{ "pid == 1 @", 10, "found '@'" },
	{ "pid\x01== 1", 4, "found '\\x01'" },
	{ "cpumask & CPUSX{1}", 11, "strings need quotes" },
	{ "comm == \"a\" \"b\"", 13, "expected '&&', '||' or end" },
	{ "pid != ", 8, "expected a value" },
	{ "pid == 1 || (", 14, "expected a field name" },
	{ "pid === 1", 7, "expected a value" },
	{ "!= 5", 1, "expected a field name" },
	{ "pid == 1.5", 8, "a duration is decimal with a unit" },	/* a fraction needs a unit */
	{ "delta > 1.5ns", 9, "finer than 1 ns" },
	{ "delta > 2.5 s", 9, "a duration is decimal with a unit" },
	{ "delta > 1e3", 9, "invalid number '1e3'" },
	{ "flags >= true", 7, "cannot compare true or false" },
	{ "pid == +5", 8, "expected a value" },
	{ "comm == \"a\"b", 12, "expected '&&', '||' or end" },
	{ ")", 1, "expected a field name" },
	{ "pid == 1 ) && (", 10, "unmatched ')'" },
	{ "comm == 'it''s'", 13, "expected '&&', '||' or end" },	/* no '' escape */
	{ "comm == \"a\\\"b\"", 13, "expected '&&'" },	/* no \" escape */
};

static void test_good(void)
{
	char got[NROWS + 1];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct ipt_filter *f;
		int maxl;

		f = ipt_filter_parse(good[i].expr, resolve, NULL);
		CHECK(f != NULL, "parse '%s': %s", good[i].expr, ipt_errmsg());
		if (!f)
			continue;
		match_rows(f, got, &maxl);
		CHECK(strcmp(got, good[i].rows) == 0, "'%s': rows '%s', want '%s'",
		      good[i].expr, got, good[i].rows);
		CHECK(strlen(got) == strlen(good[i].rows), "'%s': %zu matches, want %zu",
		      good[i].expr, strlen(got), strlen(good[i].rows));
		CHECK(maxl <= 1, "'%s': a value looked up %d times in one eval", good[i].expr, maxl);
		ipt_filter_free(f);
	}
}

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ipt_filter *f = ipt_filter_parse(bad[i].expr, resolve, NULL);
		char prefix[64];
		const char *msg;

		CHECK(f == NULL, "'%s' parsed, want an error at column %d", bad[i].expr, bad[i].col);
		ipt_filter_free(f);
		msg = ipt_errmsg();
		snprintf(prefix, sizeof(prefix), "filter: column %d: ", bad[i].col);
		CHECK(strncmp(msg, prefix, strlen(prefix)) == 0, "'%s': got '%s', want '%s...'",
		      bad[i].expr, msg, prefix);
		CHECK(strstr(msg, bad[i].what) != NULL, "'%s': got '%s', want '...%s...'",
		      bad[i].expr, msg, bad[i].what);
		CHECK(strchr(msg, '\n') == NULL, "'%s': message has a newline", bad[i].expr);
	}

	/* exact messages */
	CHECK(ipt_filter_parse("(pid == 1", resolve, NULL) == NULL, "parsed");
	CHECK_STR(ipt_errmsg(), "filter: column 10: expected ')'");
	CHECK(ipt_filter_parse("pid == 1 && bogus == 2", resolve, NULL) == NULL, "parsed");
	CHECK_STR(ipt_errmsg(), "filter: column 13: unknown field 'bogus'");
	CHECK(ipt_filter_parse("pid == 1 && x.y_z == 2", resolve, NULL) == NULL, "parsed");
	CHECK_STR(ipt_errmsg(), "filter: column 13: unknown field 'x.y_z'");
	CHECK(ipt_filter_parse(NULL, resolve, NULL) == NULL, "NULL parsed");
	CHECK(ipt_filter_parse("pid == 1", NULL, NULL) == NULL, "parsed without resolver");
	CHECK_STR(ipt_errmsg(), "filter: column 1: unknown field 'pid'");
}

/* A resolver that knows every nI as id I. */
static int resolve_any(void *ctx, const char *name)
{
	(void)ctx;
	return name[0] == 'n' ? atoi(name + 1) : -1;
}

/* Limits: nesting depth 256, expression length 64 KiB. */
static void test_limits(void)
{
	static char buf[70000];
	struct ipt_filter *f;
	size_t n;
	char want[64];

	/* 256 nested parentheses are fine, 257 are not */
	for (int depth = 256; depth <= 257; depth++) {
		n = 0;
		for (int i = 0; i < depth; i++)
			buf[n++] = '(';
		n += (size_t)sprintf(buf + n, "pid == 100");
		for (int i = 0; i < depth; i++)
			buf[n++] = ')';
		buf[n] = 0;
		f = ipt_filter_parse(buf, resolve, NULL);
		if (depth == 256) {
			char got[NROWS + 1];
			int maxl;

			CHECK(f != NULL, "256 levels: %s", ipt_errmsg());
			if (f) {
				match_rows(f, got, &maxl);
				CHECK_STR(got, "0");
			}
		} else {
			CHECK(f == NULL, "257 levels parsed");
			CHECK(strncmp(ipt_errmsg(), "filter: column 257: nesting too deep", 36) == 0,
			      "got '%s'", ipt_errmsg());
		}
		ipt_filter_free(f);
	}

	/* 10000 "!" */
	memset(buf, '!', 10000);
	strcpy(buf + 10000, "pid == 100");
	CHECK(ipt_filter_parse(buf, resolve, NULL) == NULL, "10000 ! parsed");
	CHECK(strncmp(ipt_errmsg(), "filter: column 257: nesting too deep", 36) == 0,
	      "got '%s'", ipt_errmsg());
	/* 256 "!" are fine: an even count, so the same rows as without */
	memset(buf, '!', 256);
	strcpy(buf + 256, "pid == 100");
	f = ipt_filter_parse(buf, resolve, NULL);
	CHECK(f != NULL, "256 !: %s", ipt_errmsg());
	if (f) {
		char got[NROWS + 1];
		int maxl;

		match_rows(f, got, &maxl);
		CHECK_STR(got, "0");
	}
	ipt_filter_free(f);

	/* a long flat chain (65536 bytes exactly) parses and evaluates */
	n = 0;
	n += (size_t)sprintf(buf, "pid == 100");
	while (n + 14 <= 65536)
		n += (size_t)sprintf(buf + n, " || pid == 300");
	while (n < 65536)
		buf[n++] = ' ';
	buf[n] = 0;
	f = ipt_filter_parse(buf, resolve, NULL);
	CHECK(f != NULL, "65536 bytes: %s", ipt_errmsg());
	if (f) {
		char got[NROWS + 1];
		int maxl;

		match_rows(f, got, &maxl);
		CHECK_STR(got, "06");
		CHECK(maxl == 1, "pid looked up %d times", maxl);
	}
	ipt_filter_free(f);
	/* one byte more is too long */
	buf[n++] = ' ';
	buf[n] = 0;
	CHECK(ipt_filter_parse(buf, resolve, NULL) == NULL, "65537 bytes parsed");
	snprintf(want, sizeof(want), "filter: column 65537: expression too long");
	CHECK(strncmp(ipt_errmsg(), want, strlen(want)) == 0, "got '%s'", ipt_errmsg());

	/* 129 different names (aliases of one field count once) */
	n = 0;
	for (int i = 0; i < 129; i++)
		n += (size_t)sprintf(buf + n, "%sn%d == 1", i ? " || " : "", i);
	buf[n] = 0;
	{
		f = ipt_filter_parse(buf, resolve_any, NULL);
		CHECK(f == NULL, "129 names parsed");
		CHECK(strstr(ipt_errmsg(), "too many different names") != NULL, "got '%s'",
		      ipt_errmsg());
		buf[strlen(buf) - strlen(" || n128 == 1")] = 0;
		f = ipt_filter_parse(buf, resolve_any, NULL);
		CHECK(f != NULL, "128 names: %s", ipt_errmsg());
		ipt_filter_free(f);
	}
}

/* Lookups: once per id per eval, and only when needed (short circuit). */
static void test_lookups(void)
{
	struct ipt_filter *f;
	struct ctx c;

	resolve_calls = 0;
	f = ipt_filter_parse("pid == 100 && comm == \"x\" || pid == 5 || comm ~ \"b*\"", resolve, NULL);
	CHECK(f != NULL, "parse: %s", ipt_errmsg());
	CHECK(resolve_calls == 2, "resolve called %d times, want 2", resolve_calls);
	memset(&c, 0, sizeof(c));
	c.row = 1;	/* pid 200: pid == 100 false, pid == 5 false, comm ~ b* false */
	CHECK(ipt_filter_eval(f, lookup, &c) == 0, "row 1 matched");
	CHECK(c.lookups[F_PID] == 1 && c.lookups[F_COMM] == 1, "lookups pid %d comm %d",
	      c.lookups[F_PID], c.lookups[F_COMM]);
	ipt_filter_free(f);

	f = ipt_filter_parse("pid == 100 && comm == \"x\"", resolve, NULL);
	memset(&c, 0, sizeof(c));
	c.row = 1;	/* pid == 100 is false: comm is never needed */
	CHECK(f && ipt_filter_eval(f, lookup, &c) == 0, "row 1 matched");
	CHECK(c.lookups[F_PID] == 1 && c.lookups[F_COMM] == 0, "lookups pid %d comm %d",
	      c.lookups[F_PID], c.lookups[F_COMM]);
	ipt_filter_free(f);

	/* a NULL lookup gives NONE everywhere */
	f = ipt_filter_parse("!(pid == 1)", resolve, NULL);
	CHECK(f && ipt_filter_eval(f, NULL, NULL) == 1, "NULL lookup");
	ipt_filter_free(f);

	/* NULL filter: matches; free(NULL): no-op */
	CHECK(ipt_filter_eval(NULL, lookup, &c) == 1, "NULL filter");
	ipt_filter_free(NULL);
}

/* ------------------------------------------------------------------ */
/* Random inputs: no crash, no leak, no sanitizer report               */
/* ------------------------------------------------------------------ */

static unsigned long long rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	return t_xorshift64(&rng);
}

static void eval_all(const struct ipt_filter *f)
{
	char got[NROWS + 1];
	int maxl;

	match_rows(f, got, &maxl);
	CHECK(maxl <= 1, "a value looked up %d times", maxl);
}

static void test_fuzz(void)
{
	static const char *tokens[] = {
		"pid", "comm", "cpumask", "target_cpu", "callsite", "nothing", "tcpu", "bogus",
		"==", "!=", "<", "<=", ">", ">=", "&", "~", "&&", "||", "!", "(", ")",
		"CPUS{", "}", "CPUS{1-3}", "CPUS{0,8191}", "\"", "'", "\"b*\"", "\"[!a-c]?*\"",
		"0x", "-", "1", "0", "9", "07", "0xffffffffffffffff", ",", "*", "?", "[", "\\",
		" ", " ", "\t", "=", "x", ".", "{", "-1",
	};
	char buf[512];
	int parsed = 0, failed = 0;

	for (int iter = 0; iter < 30000; iter++) {
		size_t n = 0, len;
		struct ipt_filter *f;

		if (iter % 3 == 0) {
			/* raw bytes 1..255 */
			len = rnd() % 120;
			for (size_t i = 0; i < len; i++)
				buf[n++] = (char)(1 + rnd() % 255);
		} else {
			/* token soup */
			len = rnd() % 24;
			for (size_t i = 0; i < len; i++) {
				const char *t = tokens[rnd() % (sizeof(tokens) / sizeof(tokens[0]))];
				size_t tl = strlen(t);

				if (n + tl >= sizeof(buf) - 1)
					break;
				memcpy(buf + n, t, tl);
				n += tl;
			}
		}
		buf[n] = 0;
		f = ipt_filter_parse(buf, resolve, NULL);
		if (f) {
			parsed++;
			eval_all(f);
			ipt_filter_free(f);
		} else {
			const char *m = ipt_errmsg();

			failed++;
			if (strncmp(m, "filter: column ", 15) != 0 || strchr(m, '\n')) {
				CHECK(0, "bad message for '%s': '%s'", buf, m);
			}
		}
	}
	/* well-formed random expressions */
	for (int iter = 0; iter < 5000; iter++) {
		static const char *preds[] = {
			"pid == 100", "pid < 0", "comm ~ \"*a*\"", "cpumask & CPUS{3-5}",
			"target_cpu & CPUS{2,3}", "nothing == 1", "callsite ~ \"ttwu_*\"",
			"flags & 0x10", "kind != 'tlb'",
		};
		size_t n = 0;
		int open = 0;
		struct ipt_filter *f;
		int terms = 1 + (int)(rnd() % 12);

		for (int t = 0; t < terms; t++) {
			if (t)
				n += (size_t)sprintf(buf + n, rnd() % 2 ? " && " : " || ");
			while (rnd() % 4 == 0 && open < 8) {
				n += (size_t)sprintf(buf + n, rnd() % 2 ? "(" : "!(");
				open++;
			}
			if (rnd() % 3 == 0)
				buf[n++] = '!';
			n += (size_t)sprintf(buf + n, "%s", preds[rnd() % 9]);
			while (open && rnd() % 3 == 0) {
				buf[n++] = ')';
				open--;
			}
		}
		while (open--)
			buf[n++] = ')';
		buf[n] = 0;
		f = ipt_filter_parse(buf, resolve, NULL);
		CHECK(f != NULL, "'%s': %s", buf, ipt_errmsg());
		if (f)
			eval_all(f);
		ipt_filter_free(f);
	}
	CHECK(parsed > 0 && failed > 0, "fuzz: %d parsed, %d failed", parsed, failed);
}

int main(void)
{
	setup_rows();
	test_good();
	test_bad();
	test_limits();
	test_lookups();
	test_fuzz();
	for (int r = 0; r < NROWS; r++)
		ipt_cpuset_free(&masks[r]);
	TEST_MAIN_END();
}
