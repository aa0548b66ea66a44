// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * model.c - the trace object: building it (events, streams), accessors for
 * events, fields and symbols, and releasing it.  Opening a file is
 * input/open.c's.
 */
#include "core/core.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct ipt_trace *ipt_trace_alloc(const char *path)
{
	struct ipt_trace *t = ipt_calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->fd = -1;
	t->path = ipt_strdup(path ? path : "(memory)");
	t->compression = ipt_strdup("none");
	t->clock = ipt_strdup("");
	t->uname = ipt_strdup("");
	t->probes_missed = -1;
	if (!t->path || !t->compression || !t->clock || !t->uname) {
		ipt_trace_close(t);
		return NULL;
	}
	if (ipt_trace_add_buffer(t, "", 0) < 0) {
		ipt_trace_close(t);
		return NULL;
	}
	t->entries_in_buffer = t->entries_written = -1;
	t->long_size = 8;
	t->kernel_long_size = 8;
	t->page_size = 4096;
	ipt_page_layout_default(&t->layout, 4096, 8);
	return t;
}

int ipt_trace_add_event(struct ipt_trace *t, struct ipt_event *ev)
{
	if (t->nevents >= 1 << 20)
		return ipt_err("too many event formats");
	if (IPT_GROW(t->events, t->capevents, (size_t)t->nevents + 1))
		return -1;
	t->events[t->nevents++] = *ev;
	memset(ev, 0, sizeof(*ev));
	return 0;
}

/* ipt_trace_finish_events - index events by id (the last format for an id wins) */
int ipt_trace_finish_events(struct ipt_trace *t)
{
	int max = -1;

	for (int i = 0; i < t->nevents; i++) {
		struct ipt_event *ev = &t->events[i];

		ev->f_pid = ipt_event_field(ev, "common_pid");
		if (ev->id > max)
			max = ev->id;
		free(ev->dyn);
		ev->dyn = NULL;
		ev->ndyn = 0;
		for (int k = 0; k < ev->nfields; k++) {
			if (!(ev->fields[k].flags & IPT_FIELD_DYNAMIC))
				continue;
			if (!ev->dyn && !(ev->dyn = ipt_calloc((size_t)ev->nfields, sizeof(*ev->dyn))))
				return -1;
			ev->dyn[ev->ndyn++] = &ev->fields[k];
		}
	}
	if (max > 1 << 20)
		return ipt_err_at(t->path, -1, "event id %d too large", max);
	free(t->by_id);
	t->by_id = ipt_calloc((size_t)max + 2, sizeof(*t->by_id));
	if (!t->by_id)
		return -1;
	t->max_id = max;
	for (int i = 0; i < t->nevents; i++)
		if (t->events[i].id >= 0)
			t->by_id[t->events[i].id] = &t->events[i];
	return 0;
}

/* probe_line - one line of the PROBES option applied; -1 if malformed */
static int probe_line(struct ipt_trace *t, const char *line, size_t n)
{
	static const struct { const char *name; enum ipt_probe_role role; } roles[] = {
		{ "send", IPT_PROBE_SEND }, { "send_call", IPT_PROBE_SEND_CALL },
		{ "queue", IPT_PROBE_QUEUE }, { "many", IPT_PROBE_MANY },
	};
	char buf[512], *w[6], *save = NULL, *colon;
	struct ipt_event *ev = NULL;
	int k = 0;

	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, line, n);
	buf[n] = 0;
	for (char *tok = strtok_r(buf, " ", &save); tok && k < 6; tok = strtok_r(NULL, " ", &save))
		w[k++] = tok;
	/* " hits=H missed=M" (record's count from kprobe_profile) */
	for (int i = 4; i < k; i++)
		if (!strncmp(w[i], "missed=", 7)) {
			char *end;
			unsigned long long m = strtoull(w[i] + 7, &end, 10);

			if (*end)
				return -1;
			t->probes_missed = (t->probes_missed < 0 ? 0 : t->probes_missed) + (int64_t)m;
		}
	if (k < 3 || !(colon = strchr(w[0], ':')))
		return -1;
	*colon = 0;
	for (int i = 0; i < t->nevents && !ev; i++)
		if (!strcmp(t->events[i].system, w[0]) && !strcmp(t->events[i].name, colon + 1))
			ev = &t->events[i];
	if (!ev)
		return 0;	/* defined but not in the file: nothing to apply */
	ev->as_name = !strcmp(w[1], "ipi:ipi_send_cpu") ? "ipi_send_cpu" :
		      !strcmp(w[1], "ipi:ipi_send_cpumask") ? "ipi_send_cpumask" : NULL;
	if (!ev->as_name && strcmp(w[1], "-"))
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(roles); i++)
		if (!strcmp(w[2], roles[i].name))
			ev->probe = roles[i].role;
	if (!ev->probe || (ev->as_name != NULL) != (ev->probe <= IPT_PROBE_SEND_CALL))
		return -1;
	/* a kprobe fetches a mask as plain words */
	for (int i = 0; i < ev->nfields; i++)
		if (!strcmp(ev->fields[i].name, ev->as_name ? "cpumask" : "mask") &&
		    !(ev->fields[i].flags & IPT_FIELD_DYNAMIC))
			ev->fields[i].flags |= IPT_FIELD_CPUMASK;
	return 0;
}

/* ipt_trace_apply_probes - what each dynamic probe of the file stands for */
int ipt_trace_apply_probes(struct ipt_trace *t)
{
	const char *s = t->probes_text;

	t->probes_missed = -1;
	while (s && *s) {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s) : strlen(s);

		if (n && probe_line(t, s, n))
			return ipt_err_at(t->path, -1, "bad probe line '%.*s' in the PROBES option",
					  (int)(n > 80 ? 80 : n), s);
		s += n + (e ? 1 : 0);
	}
	return 0;
}

/*
 * ipt_trace_keep_format - remember a format text as stored (for rewriting).
 * system and text are not copied: they must live as long as t (the mapped
 * file, a kept section, a literal).  A kernel has thousands of formats, and
 * copying each was about a third of the page faults of opening a trace.
 */
int ipt_trace_keep_format(struct ipt_trace *t, const char *system, const char *text, size_t len)
{
	struct ipt_raw_format *n;

	if (IPT_GROW(t->raw_formats, t->capraw_formats, (size_t)t->nraw_formats + 1))
		return -1;
	n = &t->raw_formats[t->nraw_formats++];
	n->system = system;
	n->text = text;
	n->len = len;
	return 0;
}

int ipt_trace_add_buffer(struct ipt_trace *t, const char *name, size_t len)
{
	for (int i = 0; i < t->nbuffers; i++)
		if (strlen(t->buffers[i]) == len && !memcmp(t->buffers[i], name, len))
			return i;
	if (t->nbuffers >= 4096)
		return ipt_err_at(t->path, -1, "more than 4096 buffers");
	if (IPT_GROW(t->buffers, t->capbuffers, (size_t)t->nbuffers + 1))
		return -1;
	if (!(t->buffers[t->nbuffers] = ipt_strndup(name, len)))
		return -1;
	return t->nbuffers++;
}

struct ipt_cpu_stream *ipt_trace_add_buffer_stream(struct ipt_trace *t, int buffer, int cpu)
{
	struct ipt_cpu_stream *n;

	if (cpu < 0 || cpu >= IPT_CPUSET_MAX) {
		ipt_err_at(t->path, -1, "CPU number %d out of range", cpu);
		return NULL;
	}
	if (buffer < 0 || buffer >= t->nbuffers) {
		ipt_err_at(t->path, -1, "no buffer %d", buffer);
		return NULL;
	}
	for (int i = 0; i < t->nstreams; i++)
		if (t->streams[i].cpu == cpu && t->streams[i].buffer == buffer) {
			if (*t->buffers[buffer])
				ipt_err_at(t->path, -1, "buffer %s: CPU %d given twice", t->buffers[buffer], cpu);
			else
				ipt_err_at(t->path, -1, "CPU %d given twice", cpu);
			return NULL;
		}
	if (IPT_GROW(t->streams, t->capstreams, (size_t)t->nstreams + 1))
		return NULL;
	n = t->streams;
	memset(&n[t->nstreams], 0, sizeof(*n));
	n[t->nstreams].cpu = cpu;
	n[t->nstreams].buffer = buffer;
	return &n[t->nstreams++];
}

struct ipt_cpu_stream *ipt_trace_add_stream(struct ipt_trace *t, int cpu)
{
	return ipt_trace_add_buffer_stream(t, 0, cpu);
}

uint64_t ipt_trace_lines_skipped(const struct ipt_trace *t, long long *first_offset)
{
	if (first_offset)
		*first_offset = t->lines_skipped ? t->first_skipped : -1;
	return t->lines_skipped;
}

int ipt_trace_nbuffers(const struct ipt_trace *t)
{
	return t->nbuffers;
}

const char *ipt_trace_buffer_name(const struct ipt_trace *t, int i)
{
	return i >= 0 && i < t->nbuffers ? t->buffers[i] : NULL;
}

/* ipt_trace_buffer_size - bytes of ring-buffer data of buffer i (all CPUs) */
uint64_t ipt_trace_buffer_size(const struct ipt_trace *t, int i)
{
	uint64_t n = 0;

	for (int k = 0; k < t->nstreams; k++)
		if (t->streams[k].buffer == i)
			n += t->streams[k].size;
	return n;
}

int ipt_trace_select_buffer(struct ipt_trace *t, const char *name)
{
	struct ipt_strbuf names = IPT_STRBUF_INIT;
	int b = -1, k = 0;

	for (int i = 0; i < t->nbuffers; i++)
		if (!strcmp(t->buffers[i], name) || (!*t->buffers[i] && !strcmp(name, "top")))
			b = i;
	if (b < 0) {
		for (int i = 0; i < t->nbuffers; i++)
			if (ipt_strbuf_addf(&names, "%s%s", i ? ", " : "", *t->buffers[i] ? t->buffers[i] : "top"))
				break;
		ipt_err_code(IPT_ERR_INVALID, "%s: no buffer '%s' (the trace has: %s)", t->path, name,
			     names.len ? names.buf : "none");
		ipt_strbuf_free(&names);
		return -1;
	}
	for (int i = 0; i < t->nstreams; i++) {
		if (t->streams[i].buffer == b)
			t->streams[k++] = t->streams[i];
		else
			free(t->streams[i].owned);
	}
	t->nstreams = k;
	return 0;
}

void ipt_event_release(struct ipt_event *ev)
{
	if (!ev)
		return;
	free(ev->field_text);	/* the fields' names and types */
	free(ev->fields);
	free(ev->system);
	free(ev->name);
	free(ev->print_fmt);
	free(ev->dyn);
	memset(ev, 0, sizeof(*ev));
}

void ipt_trace_close(struct ipt_trace *t)
{
	if (!t)
		return;
	for (int i = 0; i < IPT_SLOT__COUNT; i++)
		if (t->slots[i].release)
			t->slots[i].release(t->slots[i].data);
	for (int i = 0; i < t->nevents; i++)
		ipt_event_release(&t->events[i]);
	free(t->events);
	free(t->by_id);
	ipt_symtab_free(&t->ksyms);
	ipt_symtab_free(&t->printk);
	ipt_comms_free(&t->comms);
	for (int i = 0; i < t->nstreams; i++) {
		free(t->streams[i].owned);
	}
	free(t->streams);
	for (int i = 0; i < t->nbuffers; i++)
		free(t->buffers[i]);
	free(t->buffers);
	for (int i = 0; i < t->ncpustat; i++)
		free(t->cpustat[i]);
	free(t->cpustat);
	if (t->map)
		munmap((void *)t->map, t->map_size);
	if (t->fd >= 0)
		close(t->fd);
	free(t->path);
	free(t->compression);
	free(t->clock);
	free(t->uname);
	free(t->tc_version);
	free(t->scratch);
	free(t->isolated_text);
	free(t->provenance_text);
	free(t->interrupts_text);
	free(t->probes_text);
	ipt_irq_table_free(t->irq);
	ipt_usyms_free(t->usyms);
	ipt_strbuf_free(&t->raw_header_page);
	ipt_strbuf_free(&t->raw_header_event);
	ipt_strbuf_free(&t->raw_kallsyms);
	ipt_strbuf_free(&t->raw_printk);
	ipt_strbuf_free(&t->raw_cmdlines);
	free(t->raw_formats);
	for (size_t i = 0; i < ARRAY_SIZE(t->formats_sections); i++)
		ipt_free_soon(t->formats_sections[i], t->formats_sections_len[i]);
	free(t);
}

enum ipt_input_kind ipt_trace_kind(const struct ipt_trace *t) { return t->kind; }
const char *ipt_trace_path(const struct ipt_trace *t) { return t->path; }
int ipt_trace_file_version(const struct ipt_trace *t) { return t->version; }
const char *ipt_trace_clock(const struct ipt_trace *t) { return t->clock; }
const char *ipt_trace_uname(const struct ipt_trace *t) { return t->uname; }
const char *ipt_trace_compression(const struct ipt_trace *t) { return t->compression; }
int ipt_trace_long_size(const struct ipt_trace *t) { return t->long_size; }
bool ipt_trace_big_endian(const struct ipt_trace *t) { return t->big_endian; }

int ipt_trace_ncpus(const struct ipt_trace *t)
{
	int n = t->cpucount;

	for (int i = 0; i < t->nstreams; i++)
		if (t->streams[i].cpu + 1 > n)
			n = t->streams[i].cpu + 1;
	return n;
}

const char *ipt_trace_cpustat(const struct ipt_trace *t, int cpu)
{
	if (cpu < 0 || cpu >= t->ncpustat || !t->cpustat[cpu])
		return "";
	return t->cpustat[cpu];
}

/* ipt_trace_ts_in_ns - whether the clock counts nanoseconds */
bool ipt_trace_ts_in_ns(const struct ipt_trace *t)
{
	/* asked per event: the first letter tells most clocks apart */
	return t->tsc_mult || (t->clock[0] != 'c' && t->clock[0] != 'x') ||
	       (strcmp(t->clock, "counter") && strcmp(t->clock, "x86-tsc"));
}

/* ipt_trace_time_unit - "ns", or "cycles" (x86-tsc with no conversion), "counts" (counter) */
const char *ipt_trace_time_unit(const struct ipt_trace *t)
{
	if (ipt_trace_ts_in_ns(t))
		return "ns";
	return strcmp(t->clock, "counter") ? "cycles" : "counts";
}

int ipt_trace_nevents(const struct ipt_trace *t) { return t->nevents; }

const struct ipt_event *ipt_trace_event_at(const struct ipt_trace *t, int i)
{
	return i >= 0 && i < t->nevents ? &t->events[i] : NULL;
}

const struct ipt_event *ipt_trace_find_event(const struct ipt_trace *t,
					      const char *system, const char *name)
{
	for (int i = 0; i < t->nevents; i++)
		if (!strcmp(t->events[i].name, name) &&
		    (!system || !strcmp(t->events[i].system, system)))
			return &t->events[i];
	return NULL;
}

const struct ipt_event *ipt_trace_event_by_id(const struct ipt_trace *t, int id)
{
	if (!t->by_id || id < 0 || id > t->max_id)
		return NULL;
	return t->by_id[id];
}

const char *ipt_event_name(const struct ipt_event *ev) { return ev->name; }
const char *ipt_event_system(const struct ipt_event *ev) { return ev->system; }
int ipt_event_id(const struct ipt_event *ev) { return ev->id; }
const char *ipt_event_print_fmt(const struct ipt_event *ev) { return ev->print_fmt; }
int ipt_event_nfields(const struct ipt_event *ev) { return ev->nfields; }

const struct ipt_field *ipt_event_field_at(const struct ipt_event *ev, int i)
{
	return i >= 0 && i < ev->nfields ? &ev->fields[i] : NULL;
}

const struct ipt_field *ipt_event_field(const struct ipt_event *ev, const char *name)
{
	for (int i = 0; i < ev->nfields; i++)
		if (!strcmp(ev->fields[i].name, name))
			return &ev->fields[i];
	return NULL;
}

const char *ipt_field_name(const struct ipt_field *f) { return f->name; }
const char *ipt_field_type(const struct ipt_field *f) { return f->type; }
unsigned int ipt_field_offset(const struct ipt_field *f) { return f->offset; }
unsigned int ipt_field_size(const struct ipt_field *f) { return f->size; }
unsigned int ipt_field_flags(const struct ipt_field *f) { return f->flags; }

/* ipt_field_u64 - integer value of a scalar field, sign-extended if signed */
int ipt_field_u64(const struct ipt_trace *t, const struct ipt_record *r,
		  const struct ipt_field *f, uint64_t *val)
{
	return ipt_field_u64_of(t->big_endian, r, f, val);
}

/* ipt_field_bytes - the bytes of a field; resolves __data_loc/__rel_loc */
int ipt_field_bytes(const struct ipt_trace *t, const struct ipt_record *r,
		    const struct ipt_field *f, const uint8_t **data, uint32_t *len)
{
	if (f->flags & IPT_FIELD_DYNAMIC) {
		uint32_t word, off, n;

		if ((uint64_t)f->offset + 4 > r->size)
			return -1;
		word = (uint32_t)ipt_get_uint(r->data + f->offset, 4, t->big_endian);
		off = word & 0xffff;
		n = word >> 16;
		if (f->flags & IPT_FIELD_RELATIVE)
			off += f->offset + f->size;
		if ((uint64_t)off + n > r->size)
			return -1;
		*data = r->data + off;
		*len = n;
		return 0;
	}
	if ((uint64_t)f->offset + f->size > r->size)
		return -1;
	*data = r->data + f->offset;
	*len = f->size;
	if (f->size == 0 && (f->flags & IPT_FIELD_ARRAY))
		*len = r->size - f->offset;	/* flexible array: to the end */
	return 0;
}

/* ipt_field_cpuset - the CPU set of a cpumask/bitmask field */
int ipt_field_cpuset(const struct ipt_trace *t, const struct ipt_record *r,
		     const struct ipt_field *f, struct ipt_cpuset *set)
{
	const uint8_t *d;
	uint32_t n;
	unsigned int ws = (unsigned int)t->kernel_long_size;

	if (ipt_field_bytes(t, r, f, &d, &n))
		return ipt_err("field %s lies outside its record", f->name);
	if (n % ws)
		ws = n % 8 == 0 ? 8 : 4;
	if (n % ws)
		return ipt_err("field %s: mask of %u bytes is not whole words", f->name, n);
	return ipt_cpuset_from_bitmap(set, d, n, ws, t->big_endian);
}

int ipt_record_pid(const struct ipt_trace *t, const struct ipt_record *r)
{
	uint64_t v;

	if (!r->event || !r->event->f_pid || ipt_field_u64(t, r, r->event->f_pid, &v))
		return -1;
	return (int)v;
}

const char *ipt_trace_comm(const struct ipt_trace *t, int pid)
{
	const char *c;

	if (pid == 0)
		return "<idle>";
	c = ipt_comms_get(&t->comms, pid);
	return c ? c : "<...>";
}

const char *ipt_trace_symbol(const struct ipt_trace *t, uint64_t addr, uint64_t *offset)
{
	const struct ipt_sym *s;

	if ((addr & IPT_UFRAME_TAG_MASK) == IPT_UFRAME_TAG)
		return ipt_usym_name(t, addr, offset);
	s = ipt_symtab_lookup(&t->ksyms, addr);

	/* an empty name marks where a text trace's known names end; a real
	 * symbol at the same address wins */
	while (s && !*s->name && s + 1 < t->ksyms.syms + t->ksyms.n && s[1].addr == s->addr &&
	       ipt_symtab_name(&t->ksyms, s + 1))
		s++;
	if (!s || !*s->name)
		return NULL;
	if (offset)
		*offset = addr - s->addr;
	return s->name;
}

uint64_t ipt_trace_symbol_addr(const struct ipt_trace *t, const char *name)
{
	return ipt_symtab_addr_of(&t->ksyms, name);
}

const char *ipt_trace_printk_string(const struct ipt_trace *t, uint64_t addr)
{
	const struct ipt_sym *s = ipt_symtab_exact(&t->printk, addr);

	return s ? s->name : NULL;
}

/*
 * The private option IPT_OPTION_CPU_ISOLATION: "isolated=LIST\nnohz_full=LIST\n"
 * (CPU lists as in sysfs, empty for none).  Written and read here only.
 */
int ipt_cpu_role_format(const char *key, const struct ipt_cpuset *set, struct ipt_strbuf *out)
{
	size_t n = ipt_cpuset_format_list(set, NULL, 0);

	if (ipt_strbuf_adds(out, key) || ipt_strbuf_addc(out, '=') || ipt_strbuf_grow(out, n + 1))
		return -1;
	ipt_cpuset_format_list(set, out->buf + out->len, n + 1);
	out->len += n;
	return ipt_strbuf_addc(out, '\n');
}

int ipt_cpu_isolation_format(const struct ipt_cpuset *isolated, const struct ipt_cpuset *nohz_full,
			     struct ipt_strbuf *out)
{
	return ipt_cpu_role_format("isolated", isolated, out) || ipt_cpu_role_format("nohz_full", nohz_full, out) ?
	       -1 : 0;
}

const char *ipt_kv_find(const char *text, const char *key, size_t *len)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p;) {
		const char *e = strchr(p, '\n');

		if (!e)
			e = p + strlen(p);
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			*len = (size_t)(e - p - (ptrdiff_t)klen - 1);
			return p + klen + 1;
		}
		p = *e ? e + 1 : e;
	}
	return NULL;
}

/* one "key=LIST" line of the option text into set; false if absent or bad */
static bool isolation_line(const char *s, const char *key, struct ipt_cpuset *set)
{
	size_t n;
	const char *v = ipt_kv_find(s, key, &n);

	if (!v)
		return false;
	ipt_cpuset_clear(set);
	return !ipt_cpuset_parse_list(set, v, n);
}

/* kv_copy - the value of key in "key=value" text, copied NUL-terminated
 * into buf (cut to size); NULL when absent */
static const char *kv_copy(const char *text, const char *key, char *buf, size_t size)
{
	size_t n;
	const char *v = text ? ipt_kv_find(text, key, &n) : NULL;

	if (!v || !size)
		return NULL;
	if (n >= size)
		n = size - 1;
	memcpy(buf, v, n);
	buf[n] = 0;
	return buf;
}

/* ipt_trace_provenance - a value of the provenance option, copied into buf */
const char *ipt_trace_provenance(const struct ipt_trace *t, const char *key, char *buf, size_t size)
{
	return kv_copy(t->provenance_text, key, buf, size);
}

bool ipt_trace_cpu_role(const struct ipt_trace *t, const char *role, struct ipt_cpuset *set)
{
	static const char *const roles[] = { "isolated", "nohz_full", "isolcpus", "rcu_nocbs", "online",
					     "possible" };
	bool known = false;

	for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]) && role; i++)
		known = known || !strcmp(role, roles[i]);
	if (!known || !t->isolated_text || !*t->isolated_text)
		return false;
	return isolation_line(t->isolated_text, role, set);
}

const char *ipt_trace_isolcpus_flags(const struct ipt_trace *t, char *buf, size_t size)
{
	return kv_copy(t->isolated_text, "isolcpus_flags", buf, size);
}

bool ipt_trace_cpu_isolation(const struct ipt_trace *t, struct ipt_cpuset *isolated,
			     struct ipt_cpuset *nohz_full)
{
	const char *s = t->isolated_text;
	bool a, b = true;

	if (!s || !*s)
		return false;
	a = isolation_line(s, "isolated", isolated);
	if (nohz_full)
		b = isolation_line(s, "nohz_full", nohz_full);
	return a && b;
}
