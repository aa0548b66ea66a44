// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_http.c - the request side of `ipitrace serve`'s HTTP server
 * (src/http.c): what a peer on the TCP port or the unix socket sends is
 * untrusted.  The input is fed as reads of varying sizes into a buffer of
 * serve's size (8192); once http_request_state says complete, http_parse
 * runs.  It aborts (a finding) unless: a NUL byte or a full buffer without
 * the blank line is refused; an accepted request has GET or HEAD, a path
 * that starts with '/' and holds no '?', '#', space or line end, and
 * keep-alive only for HTTP/1.1 with nothing after the header; the buffer
 * is never written.
 */
#include "../src/http.c"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define REQ_MAX 8192

#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "http check failed: %s\n", #cond); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[REQ_MAX + 1], copy[REQ_MAX + 1];
	size_t len = 0, step = size ? (size_t)data[0] % 7 + 1 : 1;
	int state = 0;

	/* the first byte picks the read size (1-7 bytes at a time, or all) */
	if (size) {
		data++;
		size--;
	}
	while (len < size && len < REQ_MAX && !state) {
		size_t n = step == 7 ? size - len : step;

		if (n > size - len)
			n = size - len;
		if (n > REQ_MAX - len)
			n = REQ_MAX - len;
		memcpy(buf + len, data + len, n);
		len += n;
		buf[len] = 0;
		state = http_request_state(buf, len, REQ_MAX);
	}
	CHECK(state == 0 || state == 1 || state == 400 || state == 431);
	if (memchr(buf, 0, len))
		CHECK(state == 400);
	if (state == 431)
		CHECK(len == REQ_MAX);
	if (state == 1) {
		struct http_request r;
		int rc;

		memcpy(copy, buf, len + 1);
		rc = http_parse(buf, len, &r);
		CHECK(!memcmp(copy, buf, len + 1));
		CHECK(rc == 0 || rc == 400 || rc == 405);
		if (rc == 0) {
			CHECK(!strcmp(r.method, "GET") || !strcmp(r.method, "HEAD"));
			CHECK(r.head == !strcmp(r.method, "HEAD"));
			CHECK(r.path[0] == '/' && strlen(r.path) < sizeof(r.path));
			CHECK(!strpbrk(r.path, "?# \r\n"));
			CHECK(!memcmp(buf, r.method, strlen(r.method)) && buf[strlen(r.method)] == ' ');
			if (r.keep_alive)
				CHECK(strstr(buf, " HTTP/1.1") && (memmem(buf, len, "\r\n\r\n", 4) == buf + len - 4 ||
								   memmem(buf, len, "\n\n", 2) == buf + len - 2));
		}
	}
	return 0;
}
