// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fuzz_snapshot.c - the snapshot text `ipitrace serve` answers on its unix
 * socket and `top` parses (lib/bpf/share.c): untrusted input.  Any input
 * must be refused with an error or parsed; a parsed one is printed again
 * with ipt_counter_snapshot_text and parsed a second time, which must give the
 * same entries, errors and lists (abort() otherwise: a finding).
 */
#include "core/core.h"
#include "bpf/bpf_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...) do { if (!(cond)) { fprintf(stderr, "snapshot check failed: %s: ", #cond); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); abort(); } } while (0)

static struct ipt_counter *handle(void)
{
	struct ipt_counter *b = calloc(1, sizeof(*b));

	if (!b)
		abort();
	b->remote = true;
	b->stats_fd = -1;
	b->sock_path = strdup("fuzz.sock");
	ipt_cpuset_init(&b->pin);
	return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipt_counter *b, *b2;
	struct ipt_counter_snapshot *s, *s2;
	char *text, *again;
	size_t len;

	if (memchr(data, 0, size))
		return 0;	/* the client refuses a NUL before parsing */
	text = malloc(size + 1);
	memcpy(text, data, size);
	text[size] = 0;
	b = handle();
	s = calloc(1, sizeof(*s));
	if (ipt_counter_snapshot_parse(b, text, s) == 0) {
		again = ipt_counter_snapshot_text(b, s, &len);
		CHECK(again && strlen(again) == len, "printed text");
		b2 = handle();
		s2 = calloc(1, sizeof(*s2));
		CHECK(ipt_counter_snapshot_parse(b2, again, s2) == 0, "its own print refused: %s", ipt_errmsg());
		CHECK(s2->nsends == s->nsends && s2->nhandlers == s->nhandlers, "%zu/%zu entries, then %zu/%zu",
		      s->nsends, s->nhandlers, s2->nsends, s2->nhandlers);
		for (size_t i = 0; i < s->nsends; i++)
			CHECK(!memcmp(&s->sends[i], &s2->sends[i], sizeof(s->sends[i])), "send entry %zu", i);
		for (size_t i = 0; i < s->nhandlers; i++)
			CHECK(!memcmp(&s->handlers[i], &s2->handlers[i], sizeof(s->handlers[i])), "handler %zu", i);
		CHECK(!memcmp(s->errors, s2->errors, sizeof(s->errors)), "errors");
		CHECK(s->recursion_misses == s2->recursion_misses, "recursion misses");
		CHECK(!strcmp(ipt_counter_attached(b), ipt_counter_attached(b2)) &&
		      !strcmp(ipt_counter_skipped(b), ipt_counter_skipped(b2)), "lists");
		free(again);
		ipt_counter_snapshot_free(s2);
		ipt_counter_close(b2);
	}
	ipt_counter_snapshot_free(s);
	ipt_counter_close(b);
	free(text);
	return 0;
}
