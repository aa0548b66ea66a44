// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * explain_sum.c - the summary of the spikes of `ipitrace explain`: the
 * IPI senders and call paths by the handler time of their interrupts
 * inside spikes (once per interrupt: coalesced sends add none)
 */
#include "explain_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sender - "comm pid, callsite+off, function" of one IPI, the summary's key */
void explain_sender(const struct ipt_spike_ipi *ip, char *buf, size_t n)
{
	char cs[192] = "?";

	if (ip->callsite)
		snprintf(cs, sizeof(cs), "%s+0x%llx", ip->callsite, (unsigned long long)ip->callsite_off);
	snprintf(buf, n, "%s[%d] via %s function %s", ip->comm, (int)ip->pid, cs, ip->func ? ip->func : "?");
}

static int by_ns(const void *a, const void *b)
{
	const struct explain_tally *x = a, *y = b;

	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : strcmp(x->key, y->key);
}

/* tally - count ip (in spike number i) under key; -1 out of memory */
static int tally(struct explain_tallies *ts, const char *key, const struct ipt_spike_ipi *ip, size_t i)
{
	struct explain_tally *tt = NULL;

	for (size_t j = 0; j < ts->n && !tt; j++)
		if (!strcmp(ts->t[j].key, key))
			tt = &ts->t[j];
	if (!tt) {
		if (IPT_GROW(ts->t, ts->cap, ts->n + 1))
			return -1;
		tt = &ts->t[ts->n++];
		memset(tt, 0, sizeof(*tt));
		snprintf(tt->key, sizeof(tt->key), "%s", key);
		tt->ip = ip;
	}
	tt->ipis++;
	if (!ip->coalesced)
		tt->ns += ip->handler_ns;
	if (tt->last != i + 1) {
		tt->spikes++;
		tt->last = i + 1;
	}
	return 0;
}


void explain_summary_free(struct explain_summary *m)
{
	free(m->full.t);
	free(m->senders.t);
	free(m->paths.t);
}

int explain_summarize(const struct ipt_spikes *sp, struct explain_summary *m)
{
	size_t n = ipt_spikes_count(sp);

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < n; i++) {
		const struct ipt_spike *s = ipt_spikes_get(sp, i);

		m->with += s->nipis > 0;
		for (size_t k = 0; k < s->nipis; k++) {
			const struct ipt_spike_ipi *ip = ipt_spike_ipi_get(s, k);
			char key[512], cs[192] = "?";

			explain_sender(ip, key, sizeof(key));
			if (tally(&m->full, key, ip, i))
				return -1;
			snprintf(key, sizeof(key), "%s[%d]", ip->comm, (int)ip->pid);
			if (tally(&m->senders, key, ip, i))
				return -1;
			if (ip->callsite)
				snprintf(cs, sizeof(cs), "%s+0x%llx", ip->callsite, (unsigned long long)ip->callsite_off);
			snprintf(key, sizeof(key), "%s -> %s", cs, ip->func ? ip->func : "?");
			if (tally(&m->paths, key, ip, i))
				return -1;
		}
	}
	if (m->full.n)
		qsort(m->full.t, m->full.n, sizeof(*m->full.t), by_ns);
	if (m->senders.n)
		qsort(m->senders.t, m->senders.n, sizeof(*m->senders.t), by_ns);
	if (m->paths.n)
		qsort(m->paths.t, m->paths.n, sizeof(*m->paths.t), by_ns);
	return 0;
}


void explain_json_tallies(struct ipt_jw *j, const char *k, const struct explain_tallies *ts, bool path)
{
	ipt_jw_key(j, k);
	ipt_jw_arr(j);
	for (size_t i = 0; i < ts->n; i++) {
		const struct explain_tally *t = &ts->t[i];
		char cs[192];

		ipt_jw_obj(j);
		if (path) {
			if (t->ip->callsite)
				snprintf(cs, sizeof(cs), "%s+0x%llx", t->ip->callsite,
					 (unsigned long long)t->ip->callsite_off);
			ipt_jw_kstr(j, "callsite_sym", t->ip->callsite ? cs : NULL);
			ipt_jw_kstr(j, "func_name", t->ip->func);
		} else {
			ipt_jw_kstr(j, "comm", t->ip->comm);
			ipt_jw_ki64(j, "pid", t->ip->pid);
		}
		ipt_jw_ku64(j, "spike_ns", t->ns);
		ipt_jw_ku64(j, "ipis", t->ipis);
		ipt_jw_ku64(j, "spikes", t->spikes);
		ipt_jw_end(j);
	}
	ipt_jw_end(j);
}

size_t explain_cpu_sum(const struct ipt_spikes *sp, size_t i, struct explain_cpu *c)
{
	size_t n = ipt_spikes_count(sp);

	memset(c, 0, sizeof(*c));
	c->noise_known = true;
	if (i >= n)
		return n;
	c->cpu = ipt_spikes_get(sp, i)->cpu;
	for (; i < n && ipt_spikes_get(sp, i)->cpu == c->cpu; i++) {
		const struct ipt_spike *e = ipt_spikes_get(sp, i);

		c->spikes++;
		c->worst_ns = e->latency_ns > c->worst_ns ? e->latency_ns : c->worst_ns;
		c->ipi_ns += e->ipi_ns;
		c->with_ipis += e->nipis > 0;
		c->noise_known &= e->noise_known;
		c->noise_ns += e->noise_known ? e->listed_ns : 0;
		c->unaccounted_ns += e->unaccounted_ns;
		c->over += e->over;
		c->unknown += !e->noise_known;
	}
	return i;
}

bool explain_latency_recording(struct ipt_trace *t, bool ns)
{
	return ns && (ipt_trace_find_event(t, "ftrace", "timerlat") || ipt_trace_find_event(t, "osnoise", "sample_threshold")) &&
	       ipt_trace_find_event(t, "osnoise", "irq_noise");
}

const char *explain_samples_kind(const struct ipt_spikes *sp)
{
	size_t n = ipt_spikes_count(sp), nosn = 0;

	for (size_t i = 0; i < n; i++)
		nosn += ipt_spikes_get(sp, i)->osnoise;
	return !nosn ? "timerlat thread samples" : nosn == n ? "osnoise samples" :
	       "timerlat thread samples and osnoise samples";
}

int explain_default_spikes(struct ipt_trace *t, struct ipt_spikes **sp, struct explain_summary *m)
{
	struct ipt_spikes_opts so = { .sz = sizeof(so) };

	memset(m, 0, sizeof(*m));
	*sp = ipt_spikes_explain(t, &so);
	if (!*sp)
		return 0;
	if (explain_summarize(*sp, m)) {
		explain_summary_free(m);
		ipt_spikes_free(*sp);
		*sp = NULL;
		return -1;
	}
	return 1;
}
