// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * http.c - when a request is complete and what it asks (see http.h).
 */
#include "http.h"

#include <string.h>
#include <strings.h>

/* header_end - the end of the blank line that closes the header, or NULL */
static const char *header_end(const char *buf, size_t len)
{
	const char *a = memmem(buf, len, "\r\n\r\n", 4), *b = memmem(buf, len, "\n\n", 2);

	if (a && (!b || a < b))
		return a + 4;
	return b ? b + 2 : NULL;
}

int http_request_state(const char *buf, size_t len, size_t max)
{
	if (memchr(buf, 0, len))
		return 400;
	if (header_end(buf, len))
		return 1;
	return len >= max ? 431 : 0;
}

/* has_close - a "Connection: close" header line in [p, end) */
static bool has_close(const char *p, const char *end)
{
	static const char name[] = "connection:";

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end, *v = p + strlen(name);

		if ((size_t)(le - p) > strlen(name) && !strncasecmp(p, name, strlen(name))) {
			while (v < le && (*v == ' ' || *v == '\t'))
				v++;
			if ((size_t)(le - v) >= 5 && !strncasecmp(v, "close", 5))
				return true;
		}
		p = le + 1;
	}
	return false;
}

int http_parse(const char *buf, size_t len, struct http_request *r)
{
	const char *end = header_end(buf, len), *eol, *sp1, *sp2, *ver;
	size_t n;

	memset(r, 0, sizeof(*r));
	if (!end)
		return 400;
	eol = buf;
	while (eol < end && *eol != '\r' && *eol != '\n')
		eol++;
	sp1 = memchr(buf, ' ', (size_t)(eol - buf));
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1)) : NULL;
	if (!sp1 || !sp2)
		return 400;
	ver = sp2 + 1;
	n = (size_t)(eol - ver);
	if ((size_t)(sp1 - buf) >= sizeof(r->method) || sp1 == buf || (size_t)(sp2 - sp1 - 1) >= sizeof(r->path) ||
	    sp1[1] != '/' || n < 8 || strncmp(ver, "HTTP/1.", 7) || memchr(ver, ' ', n) ||
	    (n != 8 || (ver[7] != '0' && ver[7] != '1')))
		return 400;
	memcpy(r->method, buf, (size_t)(sp1 - buf));
	n = (size_t)(sp2 - sp1 - 1);
	memcpy(r->path, sp1 + 1, n);
	r->path[strcspn(r->path, "?#")] = 0;
	r->head = !strcmp(r->method, "HEAD");
	if (!r->head && strcmp(r->method, "GET"))
		return 405;
	/* keep-alive: HTTP/1.1, not asked to close, nothing after the request */
	r->keep_alive = ver[7] == '1' && end == buf + len && !has_close(eol, end);
	return 0;
}
