/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * http.h - the request side of `ipitrace serve`'s HTTP server, apart from
 * the sockets so that fuzz/fuzz_http.c runs it on any bytes: when a request
 * is complete, and what it asks.  GET and HEAD of a path, HTTP/1.0 or 1.1,
 * keep-alive for 1.1 unless "Connection: close" (no pipelining).
 */
#ifndef IPT_HTTP_H
#define IPT_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#define HTTP_METHOD_MAX 16
#define HTTP_PATH_MAX 256

struct http_request {
	char method[HTTP_METHOD_MAX];
	char path[HTTP_PATH_MAX];	/* without "?query" or "#fragment" */
	bool head;			/* HEAD: the answer without its body */
	bool keep_alive;
};

/*
 * http_request_state - the len bytes read so far (max: the buffer's size):
 * 0 incomplete, 1 complete (a blank line ends the header), else the status
 * to answer: 400 (a NUL byte), 431 (max bytes and no end).
 */
int http_request_state(const char *buf, size_t len, size_t max);

/*
 * http_parse - a complete request (len bytes; buf need not end with a NUL
 * and is not written): 0 and *r filled, else the status to answer: 400
 * (a malformed request line), 405 (a method other than GET and HEAD).
 */
int http_parse(const char *buf, size_t len, struct http_request *r);

#endif
