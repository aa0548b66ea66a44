/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bpf_int.h - the handle of lib/bpf/: a local attachment (counter.c, with
 * libbpf), a client of a process that shares its own (share.c) or the
 * tracefs fallback (tracefs.c); what they share is in handle.c.
 */
#ifndef IPT_COUNTER_INT_H
#define IPT_COUNTER_INT_H

#include "core/core.h"

#include <sched.h>

#define IPTK_NPROGS 11

struct ipitrace_bpf;
struct bpf_program;
struct bpf_link;
struct ring_buffer;

struct ipt_counter {
	/* a client of a serving process (share.c): no programs of its own */
	bool remote;
	char *sock_path;
	int remote_pid;
	/* a local attachment */
	struct ipitrace_bpf *skel;
	struct bpf_program *progs[IPTK_NPROGS];
	struct bpf_link *links[IPTK_NPROGS];
	struct ring_buffer *ring;
	ipt_counter_row_fn row_fn;
	void *row_ctx;
	int row_count;
	uint64_t attach_ns;
	int stats_fd;
	cpu_set_t orig_affinity;
	bool pinned;
	int ncpus;
	/* the tracefs fallback (tracefs.c) */
	struct ipt_tfs *tfs;
	/* every kind */
	char *attached, *skipped;
	struct ipt_cpuset pin;
	struct ipt_symtab ksyms;
};

/* pin the calling thread onto the housekeeping CPUs (o->housekeeping, else
 * ipt_housekeeping_cpus()); b->orig_affinity keeps what to restore */
int ipt_counter_pin(struct ipt_counter *b, const struct ipt_counter_opts *o);
/* add name to a comma-separated list (malloc'ed) */
int ipt_counter_list_add(char **list, const char *name);
/* the tracefs fallback (tracefs.c) */
struct ipt_tfs;
struct ipt_counter_snapshot *ipt_tfs_read(struct ipt_counter *b);
void ipt_tfs_close(struct ipt_counter *b);
/* the kernel symbols, read now (after loading: JIT images are named then) */
void ipt_counter_load_ksyms(struct ipt_counter *b);
/* the snapshot text (NUL-terminated; modified) into s and b's lists (b
 * a remote handle: sock_path names it in errors); -1 if malformed */
int ipt_counter_snapshot_parse(struct ipt_counter *b, char *text, struct ipt_counter_snapshot *s);
/* a snapshot read from the serving process */
struct ipt_counter_snapshot *ipt_counter_remote_read(struct ipt_counter *b);
/* sort s->sends as ipt_counter_read does: by target, then count descending */
void ipt_counter_sort_sends(struct ipt_counter_snapshot *s);
/* restore the caller's affinity (if pinned), free the lists, the symbols and b */
void ipt_counter_handle_free(struct ipt_counter *b);

#endif
