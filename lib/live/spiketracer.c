// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * spiketracer.c - the kernel's timerlat or osnoise tracer in the
 * recorder's instance, beside the IPI events (record --timerlat/--osnoise)
 *
 * The tracer runs in our instance (Linux 5.16+ lets instances have it), so
 * its samples (ftrace's own timerlat and osnoise entries) land in our
 * buffer; the osnoise:* events are enabled there too.  Its settings under
 * tracefs/osnoise/ are global, shared by every instance that runs the
 * tracer: they are read first and written back at the end, and if another
 * instance (rtla, a user) already runs osnoise or timerlat we refuse,
 * rather than change its settings under it.
 */
#include "live/live.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the osnoise/ files we write (their values before: saved[]) */
static const char *const knobs[] = {
	"cpus", "period_us", "runtime_us", "stop_tracing_us", "stop_tracing_total_us",
	"timerlat_period_us",
};
#define NKNOBS (sizeof(knobs) / sizeof(knobs[0]))

struct ipt_spike_tracer {
	char *tracefs;
	struct ipt_live *live;		/* the recorder's; not ours to free */
	const char *tracer;		/* "timerlat" or "osnoise" */
	char *saved[NKNOBS];		/* NULL: the file does not exist */
	bool written[NKNOBS];
	bool tracer_set;
};

/* trim - a tracefs value without its newline */
static void trim(char *s)
{
	s[strcspn(s, "\n")] = 0;
}

/* top_read - tracefs/rel, trimmed; NULL if it cannot be read (errmsg set) */
static char *top_read(const char *tracefs, const char *rel)
{
	char path[PATH_MAX];
	char *text = NULL;

	snprintf(path, sizeof(path), "%s/%s", tracefs, rel);
	if (ipt_file_read(path, &text, NULL))
		return NULL;
	trim(text);
	return text;
}

/* word_in - word is one of the blank-separated words of list */
static bool word_in(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ' || p[-1] == '\t') &&
		    (!p[n] || p[n] == ' ' || p[n] == '\t' || p[n] == '\n'))
			return true;
	return false;
}

/* latency_tracer - current_tracer text names osnoise or timerlat */
static bool latency_tracer(const char *cur)
{
	return !strcmp(cur, "osnoise") || !strcmp(cur, "timerlat");
}

/* in_use - another instance (or the top level) runs a latency tracer: -1 said */
static int in_use(const char *tracefs, const char *ours)
{
	char dir[PATH_MAX], rel[PATH_MAX + 300];
	struct dirent *de;
	char *cur;
	DIR *d;
	int ret = 0;

	cur = top_read(tracefs, "current_tracer");
	if (cur && latency_tracer(cur)) {
		ipt_err("the top-level buffer already runs the %s tracer (rtla or a user): its osnoise/ "
			"settings are global; stop it first", cur);
		free(cur);
		return -1;
	}
	free(cur);
	snprintf(dir, sizeof(dir), "%s/instances", tracefs);
	d = opendir(dir);
	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, ours))
			continue;
		snprintf(rel, sizeof(rel), "instances/%s/current_tracer", de->d_name);
		cur = top_read(tracefs, rel);
		if (cur && latency_tracer(cur))
			ret = ipt_err("instance %s already runs the %s tracer (rtla or a user): its osnoise/ "
				      "settings are global; stop it first", de->d_name, cur);
		free(cur);
	}
	closedir(d);
	return ret;
}

/* set_knob - write osnoise/NAME (saved first) */
static int set_knob(struct ipt_spike_tracer *t, const char *name, const char *value)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < NKNOBS; i++) {
		if (strcmp(knobs[i], name))
			continue;
		if (!t->saved[i])
			return ipt_err("%s/osnoise/%s: not in this kernel", t->tracefs, name);
		snprintf(path, sizeof(path), "%s/osnoise/%s", t->tracefs, name);
		t->written[i] = true;
		return ipt_file_write(path, value);
	}
	return ipt_err("osnoise/%s: not a setting ipitrace writes", name);
}

/* has_knob - osnoise/NAME existed */
static bool has_knob(const struct ipt_spike_tracer *t, const char *name)
{
	for (size_t i = 0; i < NKNOBS; i++)
		if (!strcmp(knobs[i], name))
			return t->saved[i] != NULL;
	return false;
}

/* set_period - osnoise's period_us and runtime_us: the kernel keeps
 * runtime <= period at each write, so runtime first if it shrinks */
static int set_period(struct ipt_spike_tracer *t, unsigned long period, unsigned long runtime)
{
	char p[32], r[32];
	size_t k = 0;

	for (size_t i = 0; i < NKNOBS; i++)
		if (!strcmp(knobs[i], "runtime_us"))
			k = i;
	snprintf(p, sizeof(p), "%lu", period);
	snprintf(r, sizeof(r), "%lu", runtime);
	if (t->saved[k] && strtoull(t->saved[k], NULL, 10) > runtime)
		return set_knob(t, "runtime_us", r) || set_knob(t, "period_us", p);
	return set_knob(t, "period_us", p) || set_knob(t, "runtime_us", r);
}

/* ipt_spike_tracer_setup - check, save and write the settings, tracer on */
struct ipt_spike_tracer *ipt_spike_tracer_setup(struct ipt_live *live, const char *tracefs,
						const struct ipt_spike_tracer_opts *o)
{
	struct ipt_spike_tracer *t;
	char num[32], *avail, *list = NULL;
	bool timerlat;
	size_t n;

	if (!o->tracer || (strcmp(o->tracer, "timerlat") && strcmp(o->tracer, "osnoise"))) {
		ipt_err_code(IPT_ERR_INVALID, "tracer '%s': not timerlat or osnoise", o->tracer ? o->tracer : "");
		return NULL;
	}
	timerlat = !strcmp(o->tracer, "timerlat");
	avail = top_read(tracefs, "available_tracers");
	if (!avail)
		return NULL;
	if (!word_in(avail, o->tracer)) {
		ipt_err("this kernel has no %s tracer (CONFIG_%s_TRACER; available_tracers: %s)", o->tracer,
			timerlat ? "TIMERLAT" : "OSNOISE", *avail ? avail : "none");
		free(avail);
		return NULL;
	}
	free(avail);
	if (in_use(tracefs, live->name))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t || !(t->tracefs = strdup(tracefs))) {
		free(t);
		ipt_err_code(IPT_ERR_NOMEM, "out of memory");
		return NULL;
	}
	t->live = live;
	t->tracer = timerlat ? "timerlat" : "osnoise";
	for (size_t i = 0; i < NKNOBS; i++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "osnoise/%s", knobs[i]);
		t->saved[i] = top_read(tracefs, rel);	/* NULL: not in this kernel */
	}
	if (!has_knob(t, "cpus")) {
		ipt_err("%s/osnoise/cpus: missing (the %s tracer's settings)", tracefs, t->tracer);
		goto fail;
	}
	n = ipt_cpuset_format_list(o->cpus, NULL, 0);
	list = malloc(n + 1);
	if (!list) {
		ipt_err_code(IPT_ERR_NOMEM, "out of memory");
		goto fail;
	}
	ipt_cpuset_format_list(o->cpus, list, n + 1);
	if (set_knob(t, "cpus", list))
		goto fail;
	if (o->period_us) {
		snprintf(num, sizeof(num), "%lu", o->period_us);
		if (timerlat ? set_knob(t, "timerlat_period_us", num) :
			       set_period(t, o->period_us, o->runtime_us && o->runtime_us < o->period_us ?
							    o->runtime_us : o->period_us))
			goto fail;
	}
	/* timerlat: the thread's latency (the whole wake-up) stops the trace,
	 * as rtla timerlat -T; osnoise: one noise, as rtla osnoise -s */
	snprintf(num, sizeof(num), "%lu", o->threshold_us);
	if (set_knob(t, timerlat ? "stop_tracing_total_us" : "stop_tracing_us", num))
		goto fail;
	if (has_knob(t, timerlat ? "stop_tracing_us" : "stop_tracing_total_us") &&
	    set_knob(t, timerlat ? "stop_tracing_us" : "stop_tracing_total_us", "0"))
		goto fail;
	free(list);
	return t;
fail:
	free(list);
	ipt_spike_tracer_restore(t);
	return NULL;
}

/* ipt_spike_tracer_start - the tracer on in the instance (tracing still off) */
int ipt_spike_tracer_start(struct ipt_spike_tracer *t)
{
	if (ipt_live_write(t->live, "current_tracer", t->tracer))
		return -1;
	t->tracer_set = true;
	return 0;
}

/* ipt_spike_tracer_stopped - the kernel turned the instance's tracing off */
bool ipt_spike_tracer_stopped(struct ipt_spike_tracer *t)
{
	char *text = NULL;
	bool off;

	if (!t || !t->tracer_set || ipt_live_read(t->live, "tracing_on", &text, NULL))
		return false;
	off = text[0] == '0';
	free(text);
	return off;
}

/* ipt_spike_tracer_off - the instance back to nop (before it is removed) */
void ipt_spike_tracer_off(struct ipt_spike_tracer *t)
{
	if (t && t->tracer_set && t->live) {
		ipt_live_write(t->live, "current_tracer", "nop");
		t->tracer_set = false;
	}
	if (t)
		t->live = NULL;
}

/* ipt_spike_tracer_restore - settings written back, t freed; -1 if one stays */
int ipt_spike_tracer_restore(struct ipt_spike_tracer *t)
{
	char path[PATH_MAX], failed[256] = "";
	int ret = 0;

	if (!t)
		return 0;
	ipt_spike_tracer_off(t);
	/* in two rounds: runtime_us and period_us refuse a value that would
	 * make runtime > period, so one may need the other back first */
	for (int round = 0; round < 2; round++) {
		*failed = 0;
		for (size_t k = NKNOBS; k-- > 0;) {
			if (!t->written[k])
				continue;
			snprintf(path, sizeof(path), "%s/osnoise/%s", t->tracefs, knobs[k]);
			if (ipt_file_write(path, t->saved[k])) {
				if (!*failed)
					snprintf(failed, sizeof(failed), "%s", ipt_errmsg());
			} else {
				t->written[k] = false;
			}
		}
		if (!*failed)
			break;
	}
	for (size_t k = 0; k < NKNOBS; k++)
		free(t->saved[k]);
	free(t->tracefs);
	free(t);
	if (*failed)
		ret = ipt_err("osnoise settings not restored: %s", failed);
	return ret;
}
