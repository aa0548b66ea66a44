/*
 * unit_spill.c - arrays beyond memory (ipt_spill_*, lib/core/spill.c)
 * against their own formula: every 8-byte word i holds word(i), written
 * as the array grows past IPT_SPILL_FILE_FROM into its temporary file,
 * given back to the kernel behind the writer, changed again after that,
 * and read back through the mapping and through ipt_spill_read; the
 * memory the process holds is the kernel's figure (VmRSS in
 * /proc/self/status); where no temporary file can be made, it stays in
 * memory with the same values.
 */
#include "core/core.h"
#include "testlib.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static uint64_t word(uint64_t i)
{
	return i * 0x9E3779B97F4A7C15ull ^ (i >> 7);
}

/* rss_kib - this process's resident memory, from the kernel */
static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &v) == 1)
			break;
	fclose(f);
	return v;
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* fill - n words appended one at a time, those 1 MiB behind given back */
static int fill(struct ipt_spill *s, size_t n)
{
	const size_t every = (1u << 20) / 8;

	for (size_t i = 0; i < n; i++) {
		if (ipt_spill_reserve(s, (i + 1) * 8))
			return -1;
		((uint64_t *)s->p)[i] = word(i);
		if ((i + 1) % every == 0 && i + 1 > every)
			ipt_spill_rest(s, 0, (i + 1 - every) * 8);
	}
	return 0;
}

/* check - words [0, n) through the mapping and through ipt_spill_read */
static size_t check(struct ipt_spill *s, size_t n, size_t changed)
{
	uint64_t chunk[4096];
	size_t bad = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t want = i == changed ? ~word(i) : word(i);

		if (((uint64_t *)s->p)[i] != want)
			bad++;
	}
	for (size_t i = 0; i < n; i += 4096) {
		size_t k = n - i < 4096 ? n - i : 4096;

		if (ipt_spill_read(s, i * 8, chunk, k * 8))
			return n;
		for (size_t j = 0; j < k; j++)
			if (chunk[j] != (i + j == changed ? ~word(i + j) : word(i + j)))
				bad++;
	}
	return bad;
}

int main(void)
{
	const size_t n = (48u << 20) / 8;	/* 48 MiB of words */
	struct ipt_spill s = { 0 }, m = { 0 };
	long before, after;
	uint64_t x;

	/* small: in memory */
	CHECK(!fill(&s, 1000), "fill 1000: %s", ipt_errmsg());
	CHECK(!s.in_file, "1000 words went to a file");
	CHECK(check(&s, 1000, SIZE_MAX) == 0, "1000 words in memory differ");
	ipt_spill_free(&s);

	/* large: in a file, behind the writer out of memory */
	before = rss_kib();
	s.what = "unit test words";
	CHECK(!fill(&s, n), "fill %zu: %s", n, ipt_errmsg());
	after = rss_kib();
	CHECK(s.in_file, "48 MiB stayed in memory (TMPDIR %s)", getenv("TMPDIR") ? getenv("TMPDIR") : "unset");
	CHECK(s.cap >= n * 8, "capacity %zu below %zu", s.cap, n * 8);
#ifndef UNDER_ASAN
	/* the kernel's count: at most the window and the last growth's copy */
	CHECK(before > 0 && after - before < 12 * 1024, "resident grew %ld KiB for 48 MiB written", after - before);
#else
	(void)after;
	(void)before;
#endif
	/* a word given back long ago, changed: the file keeps it */
	((uint64_t *)s.p)[12345] = ~word(12345);
	ipt_spill_rest(&s, 0, n * 8);
	CHECK(check(&s, n, 12345) == 0, "words read back differ");
	CHECK(ipt_spill_read(&s, s.cap - 4, &x, 8) == -1 && strstr(ipt_errmsg(), "unit test words"),
	      "a read past the end: '%s'", ipt_errmsg());
	ipt_spill_free(&s);
	CHECK(!s.p && !s.cap && !s.in_file, "freed spill not empty");

	/* no temporary file can be made: memory, the same values */
	setenv("TMPDIR", "/nonexistent/ipitrace-unit-spill", 1);
	CHECK(!fill(&m, (16u << 20) / 8), "fill without a file: %s", ipt_errmsg());
	CHECK(!m.in_file && m.memory_only, "in_file %d memory_only %d", m.in_file, m.memory_only);
	CHECK(check(&m, (16u << 20) / 8, SIZE_MAX) == 0, "words in memory differ");
	ipt_spill_free(&m);
	unsetenv("TMPDIR");
	CHECK(ipt_tmpfile("/nonexistent/ipitrace-unit-spill") == -1 && strstr(ipt_errmsg(), "/nonexistent"),
	      "tmpfile error: '%s'", ipt_errmsg());
	TEST_MAIN_END();
}
