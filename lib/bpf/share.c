// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * share.c - one attachment per boot: the snapshot of the maps as text (what
 * `ipitrace serve` answers on its unix socket at /snapshot), and the client
 * that reads it instead of attaching again (ipt_counter_connect).
 *
 * The text, one item a line, every number decimal but addresses (hex):
 *
 *   ipitrace-bpf-snapshot 2
 *   pid PID                      the serving process
 *   time SECONDS                 its CLOCK_MONOTONIC at the read
 *   attached LIST | skipped LIST | pinned LIST   ("-" when empty)
 *   errors N E0 .. E(N-1)        the error counters
 *   recursion N
 *   s TARGET SRC EVENT CALLSITE ADDR2 FUNC COUNT COMMHEX   one send entry
 *   h CPU VEC COUNT SUM MAX N H0 .. H(N-1)            one handler entry
 *   end
 *
 * The answer is untrusted: every line is checked, and a bad one is an error
 * naming the socket and the line.
 */
#include "core/core.h"
#include "live/live.h"
#include "bpf/bpf_int.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_ANSWER (256u << 20)	/* far above 16384 entries of ~100 bytes */
#define ANSWER_TIMEOUT_MS 5000

static int add_list(struct ipt_strbuf *sb, const char *key, const char *list)
{
	return ipt_strbuf_addf(sb, "%s %s\n", key, list && *list ? list : "-");
}

char *ipt_counter_snapshot_text(const struct ipt_counter *b, const struct ipt_counter_snapshot *s, size_t *len)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	char pin[1024];
	int e = 0;

	ipt_cpuset_format_list(&b->pin, pin, sizeof(pin));
	e |= ipt_strbuf_addf(&sb, "ipitrace-bpf-snapshot 2\npid %d\ntime %.9f\n", (int)getpid(), s->time);
	e |= add_list(&sb, "attached", b->attached);
	e |= add_list(&sb, "skipped", b->skipped);
	e |= add_list(&sb, "pinned", pin);
	e |= ipt_strbuf_addf(&sb, "errors %d", IPT_COUNTER_NERRORS);
	for (int i = 0; i < IPT_COUNTER_NERRORS; i++)
		e |= ipt_strbuf_addf(&sb, " %" PRIu64, s->errors[i]);
	e |= ipt_strbuf_addf(&sb, "\nrecursion %" PRIu64 "\n", s->recursion_misses);
	for (size_t i = 0; i < s->nsends && !e; i++) {
		const struct ipt_counter_send *x = &s->sends[i];

		e |= ipt_strbuf_addf(&sb, "s %d %d %d %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIu64 " ", x->target,
			     x->src, (int)x->event, x->callsite, x->addr2, x->func, x->count);
		for (size_t k = 0; k < sizeof(x->comm) && x->comm[k]; k++)
			e |= ipt_strbuf_addf(&sb, "%02x", (unsigned char)x->comm[k]);
		if (!x->comm[0])
			e |= ipt_strbuf_addc(&sb, '-');
		e |= ipt_strbuf_addc(&sb, '\n');
	}
	for (size_t i = 0; i < s->nhandlers && !e; i++) {
		const struct ipt_counter_handler *h = &s->handlers[i];

		e |= ipt_strbuf_addf(&sb, "h %d %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %d", h->cpu, (int)h->vector,
			     h->count, h->sum_ns, h->max_ns, IPT_COUNTER_HIST_SLOTS);
		for (int k = 0; k < IPT_COUNTER_HIST_SLOTS; k++)
			e |= ipt_strbuf_addf(&sb, " %" PRIu64, h->hist[k]);
		e |= ipt_strbuf_addc(&sb, '\n');
	}
	e |= ipt_strbuf_adds(&sb, "end\n");
	if (e) {
		ipt_strbuf_free(&sb);
		ipt_err_code(IPT_ERR_NOMEM, "out of memory");
		return NULL;
	}
	*len = sb.len;
	return sb.buf;
}

/* ---- the client ---- */

static int dial(const char *path)
{
	struct sockaddr_un sa;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

static int64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *ipt_counter_remote_get(const char *path, const char *what, size_t *blen)
{
	struct ipt_strbuf sb = IPT_STRBUF_INIT;
	char req[256], buf[65536], *body;
	int64_t deadline = ms_now() + ANSWER_TIMEOUT_MS;
	size_t off = 0;
	int fd, n;

	fd = dial(path);
	if (fd < 0) {
		int e = errno;

		ipt_err("%s: %s", path, strerror(e));
		errno = e;
		return NULL;
	}
	n = snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\n\r\n", what);
	while (off < (size_t)n) {
		ssize_t w = write(fd, req + off, (size_t)n - off);

		if (w <= 0) {
			ipt_err("%s: writing the request: %s", path, w ? strerror(errno) : "closed");
			goto fail;
		}
		off += (size_t)w;
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = deadline - ms_now();
		ssize_t r;

		if (left <= 0) {
			ipt_err("%s: no complete answer within %d ms", path, ANSWER_TIMEOUT_MS);
			goto fail;
		}
		if (poll(&p, 1, (int)left) < 0 && errno != EINTR) {
			ipt_err("%s: poll: %s", path, strerror(errno));
			goto fail;
		}
		r = read(fd, buf, sizeof(buf));
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0) {
			ipt_err("%s: reading the answer: %s", path, strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		if (sb.len + (size_t)r > MAX_ANSWER) {
			ipt_err("%s: the answer exceeds %u bytes", path, MAX_ANSWER);
			goto fail;
		}
		if (ipt_strbuf_add(&sb, buf, (size_t)r)) {
			ipt_err_code(IPT_ERR_NOMEM, "out of memory");
			goto fail;
		}
	}
	close(fd);
	fd = -1;
	if (!sb.buf || strncmp(sb.buf, "HTTP/1.", 7) || sb.len < 12 || strncmp(sb.buf + 8, " 200", 4)) {
		char *nl = sb.buf ? strpbrk(sb.buf, "\r\n") : NULL;

		ipt_err("%s: %s %s: %.*s", path, "GET", what, sb.buf ? (int)(nl ? nl - sb.buf : 80) : 11,
			sb.buf ? sb.buf : "empty answer");
		goto fail;
	}
	body = strstr(sb.buf, "\r\n\r\n");
	if (!body) {
		ipt_err("%s: the answer has no end of header", path);
		goto fail;
	}
	body += 4;
	*blen = sb.len - (size_t)(body - sb.buf);
	memmove(sb.buf, body, *blen + 1);
	return sb.buf;
fail:
	if (fd >= 0)
		close(fd);
	ipt_strbuf_free(&sb);
	return NULL;
}

static int dup_list(char **dst, const char *v)
{
	free(*dst);
	*dst = strdup(strcmp(v, "-") ? v : "");
	return *dst ? 0 : -1;
}

/* u64s - n numbers (base) from *p, each after a blank; -1 if malformed */
static int u64s(char **p, uint64_t *out, int n, int base)
{
	for (int i = 0; i < n; i++) {
		char *end;

		if (**p != ' ')
			return -1;
		(*p)++;
		if (**p < '0' || **p > 'f')
			return -1;
		errno = 0;
		out[i] = strtoull(*p, &end, base);
		if (errno || end == *p)
			return -1;
		*p = end;
	}
	return 0;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static int parse_comm(char *p, char *comm, size_t size)
{
	size_t k = 0;

	memset(comm, 0, size);
	if (!strcmp(p, "-"))
		return 0;
	for (; p[0] && p[1]; p += 2) {
		int hi = hexval(p[0]), lo = hexval(p[1]);

		/* two hex digits a byte, none 0 (the name ends at its NUL) */
		if (k + 1 >= size || hi < 0 || lo < 0 || !(hi | lo))
			return -1;
		comm[k++] = (char)(hi << 4 | lo);
	}
	return *p || !k ? -1 : 0;
}

int ipt_counter_snapshot_parse(struct ipt_counter *b, char *text, struct ipt_counter_snapshot *s)
{
	size_t cap_s = 0, cap_h = 0;
	int line = 0, ended = 0;
	char *p = text, *nl;

	for (; *p && !ended; p = nl + 1) {
		uint64_t v[3 + IPT_COUNTER_HIST_SLOTS + 8];
		char *q;

		nl = strchr(p, '\n');
		if (!nl)
			goto bad;
		*nl = 0;
		line++;
		if (line == 1) {
			if (strcmp(p, "ipitrace-bpf-snapshot 2"))
				goto bad;
		} else if (!strncmp(p, "pid ", 4)) {
			q = p + 3;
			if (u64s(&q, v, 1, 10) || *q || v[0] > 0x7fffffff)
				goto bad;
			b->remote_pid = (int)v[0];
		} else if (!strncmp(p, "time ", 5)) {
			s->time = strtod(p + 5, &q);
			if (*q || q == p + 5)
				goto bad;
		} else if (!strncmp(p, "attached ", 9)) {
			if (dup_list(&b->attached, p + 9))
				goto nomem;
		} else if (!strncmp(p, "skipped ", 8)) {
			if (dup_list(&b->skipped, p + 8))
				goto nomem;
		} else if (!strncmp(p, "pinned ", 7)) {
			ipt_cpuset_clear(&b->pin);
			if (strcmp(p + 7, "-") && ipt_cpuset_parse_list(&b->pin, p + 7, strlen(p + 7)))
				goto bad;
		} else if (!strncmp(p, "errors", 6)) {
			q = p + 6;
			if (u64s(&q, v, 1, 10) || v[0] > 64)
				goto bad;
			int n = (int)v[0];
			uint64_t e[64];

			if (u64s(&q, e, n, 10) || *q)
				goto bad;
			for (int i = 0; i < n && i < IPT_COUNTER_NERRORS; i++)
				s->errors[i] = e[i];
		} else if (!strncmp(p, "recursion", 9)) {
			q = p + 9;
			if (u64s(&q, &s->recursion_misses, 1, 10) || *q)
				goto bad;
		} else if (p[0] == 's' && p[1] == ' ') {
			struct ipt_counter_send *x;

			q = p + 1;
			if (u64s(&q, v, 3, 10) || u64s(&q, v + 3, 3, 16) || u64s(&q, v + 6, 1, 10) ||
			    *q != ' ' || v[0] > 0x7fffffff || v[1] > 0x7fffffff || v[2] > IPT_COUNTER_CSD_QUEUE)
				goto bad;
			if (IPT_GROW(s->sends, cap_s, s->nsends + 1))
				goto nomem;
			x = &s->sends[s->nsends];
			memset(x, 0, sizeof(*x));
			x->target = (int)v[0];
			x->src = (int)v[1];
			x->event = (enum ipt_counter_event)v[2];
			x->callsite = v[3];
			x->addr2 = v[4];
			x->func = v[5];
			x->count = v[6];
			if (parse_comm(q + 1, x->comm, sizeof(x->comm)))
				goto bad;
			s->nsends++;
		} else if (p[0] == 'h' && p[1] == ' ') {
			struct ipt_counter_handler *h;
			int n;

			q = p + 1;
			if (u64s(&q, v, 6, 10) || v[0] > 0x7fffffff || v[1] >= IPT_COUNTER_NVECTORS ||
			    v[5] > IPT_COUNTER_HIST_SLOTS)
				goto bad;
			n = (int)v[5];
			if (u64s(&q, v + 6, n, 10) || *q)
				goto bad;
			if (IPT_GROW(s->handlers, cap_h, s->nhandlers + 1))
				goto nomem;
			h = &s->handlers[s->nhandlers++];
			memset(h, 0, sizeof(*h));
			h->cpu = (int)v[0];
			h->vector = (enum ipt_counter_vector)v[1];
			h->count = v[2];
			h->sum_ns = v[3];
			h->max_ns = v[4];
			for (int k = 0; k < n; k++)
				h->hist[k] = v[6 + k];
		} else if (!strcmp(p, "end")) {
			ended = 1;
		} else {
			goto bad;
		}
	}
	if (!ended)
		goto bad;
	return 0;
bad:
	ipt_err("%s: malformed snapshot at line %d", b->sock_path, line);
	return -1;
nomem:
	ipt_err_code(IPT_ERR_NOMEM, "out of memory");
	return -1;
}

struct ipt_counter_snapshot *ipt_counter_remote_read(struct ipt_counter *b)
{
	struct ipt_counter_snapshot *s = calloc(1, sizeof(*s));
	size_t len;
	char *text;

	if (!s) {
		ipt_err_code(IPT_ERR_NOMEM, "out of memory");
		return NULL;
	}
	text = ipt_counter_remote_get(b->sock_path, "/snapshot", &len);
	if (text && strlen(text) != len) {
		ipt_err("%s: a NUL byte in the snapshot", b->sock_path);
		free(text);
		ipt_counter_snapshot_free(s);
		return NULL;
	}
	if (!text || ipt_counter_snapshot_parse(b, text, s)) {
		free(text);
		ipt_counter_snapshot_free(s);
		return NULL;
	}
	free(text);
	ipt_counter_sort_sends(s);
	return s;
}

struct ipt_counter *ipt_counter_connect(const char *path)
{
	struct ipt_counter *b = calloc(1, sizeof(*b));
	struct ipt_counter_snapshot *s;

	if (!b || !(b->sock_path = strdup(path))) {
		free(b);
		ipt_err_code(IPT_ERR_NOMEM, "out of memory");
		return NULL;
	}
	b->remote = true;
	b->stats_fd = -1;
	ipt_cpuset_init(&b->pin);
	{
		/* off the watched CPUs, as a loader would be: the reads and the
		 * memory they take then cost those CPUs nothing (no TLB flush
		 * IPIs); best effort.  b->pin then holds serve's loader CPUs. */
		struct ipt_counter_opts o = { .sz = sizeof(o) };

		(void)ipt_counter_pin(b, &o);
	}
	s = ipt_counter_remote_read(b);
	if (!s) {
		int e = errno;
		char msg[1024];

		snprintf(msg, sizeof(msg), "%s", ipt_errmsg());
		ipt_counter_handle_free(b);
		ipt_err("%s", msg);
		errno = e;
		return NULL;
	}
	ipt_counter_snapshot_free(s);
	ipt_counter_load_ksyms(b);
	return b;
}
