/*
 * unit_comms.c - pid -> task name (ipt_comms_*: a saved_cmdlines text
 * loaded, names set one by one) against a plain array written here, each
 * "PID COMM" line read on its own, the last name given for a pid winning:
 * texts with a pid given twice, lines without a name or a pid, empty
 * lines, no final newline; more lines than the table is made for (at
 * most the kernel's 32768: it grows for the rest); names set before the
 * text and after it (replacing loaded ones, and new pids), every pid
 * asked, those never named NULL.
 */
#include "core/core.h"
#include "testlib.h"

#define PIDS 80000

static char *want[PIDS];

static void want_set(int pid, const char *name, size_t n)
{
	free(want[pid]);
	want[pid] = strndup(name, n);
}

/* read - the text's lines as the test reads them */
static void want_text(const char *text)
{
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n'), *e = nl ? nl : p + strlen(p);
		int pid = 0, digits = 0;

		while (p < e && *p >= '0' && *p <= '9') {
			pid = pid * 10 + (*p++ - '0');
			digits++;
		}
		if (digits && p < e && *p == ' ' && pid < PIDS)
			want_set(pid, p + 1, (size_t)(e - p - 1));
		p = nl ? nl + 1 : e;
	}
}

static int differ(const struct ipt_comms *c)
{
	int bad = 0;

	for (int pid = 0; pid < PIDS; pid++) {
		const char *got = ipt_comms_get(c, pid);

		bad += want[pid] ? !got || strcmp(got, want[pid]) : got != NULL;
	}
	return bad;
}

static void want_clear(void)
{
	for (int pid = 0; pid < PIDS; pid++) {
		free(want[pid]);
		want[pid] = NULL;
	}
}

int main(void)
{
	unsigned long long rnd = 0x2545f4914f6cdd1dull;

	for (int round = 0; round < 6; round++) {
		struct ipt_comms c = { 0 };
		struct ipt_strbuf t = IPT_STRBUF_INIT;
		int lines = round == 3 ? 40000 : round == 4 ? 3 : 1 + (int)(t_xorshift64(&rnd) % 9000);
		const char *how[] = { "plain", "set before", "set after", "more lines than the table",
				      "three lines", "no final newline" };

		if (round == 1) {	/* names set before the text */
			for (int i = 0; i < 50; i++) {
				int pid = (int)(t_xorshift64(&rnd) % 30000);

				CHECK(ipt_comms_set(&c, pid, "early", 5) == 0, "set");
				want_set(pid, "early", 5);
			}
		}
		for (int i = 0; i < lines; i++) {
			/* more than the table holds: 40000 lines, 34000 pids named once or more */
			int pid = round == 3 ? (i * 7) % 79999 : (int)(t_xorshift64(&rnd) % 20000);
			int kind = (int)(t_xorshift64(&rnd) % 20);

			if (kind == 0)
				ipt_strbuf_addf(&t, "\n");			/* empty */
			else if (kind == 1)
				ipt_strbuf_addf(&t, "%d\n", pid);		/* no name */
			else if (kind == 2)
				ipt_strbuf_addf(&t, "x%d task\n", pid);	/* no pid */
			else
				ipt_strbuf_addf(&t, "%d task-%d.%d%s\n", pid, pid, i, kind == 3 ? " with spaces" : "");
		}
		if (round == 5 && t.len)
			t.len--;	/* no final newline */
		t.buf[t.len] = 0;
		want_text(t.buf);
		CHECK(ipt_comms_load_cmdlines(&c, t.buf, t.len) == 0, "%s: loaded", how[round]);
		CHECK(differ(&c) == 0, "%s: %d pids differ after the text (%d lines)", how[round], differ(&c), lines);
		if (round == 2 || round == 3) {	/* names set after: loaded ones replaced, new pids */
			for (int i = 0; i < 300; i++) {
				int pid = (int)(t_xorshift64(&rnd) % 25000);
				char name[32];
				int n = snprintf(name, sizeof(name), "later-%d", i);

				CHECK(ipt_comms_set(&c, pid, name, (size_t)n) == 0, "set");
				want_set(pid, name, (size_t)n);
			}
			CHECK(differ(&c) == 0, "%s: %d pids differ after 300 names set", how[round], differ(&c));
		}
		ipt_comms_free(&c);
		ipt_strbuf_free(&t);
		want_clear();
	}
	TEST_MAIN_END();
}
