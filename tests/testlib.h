/* testlib.h - a minimal test harness: CHECK() counts, main() reports */
#ifndef IPT_TESTLIB_H
#define IPT_TESTLIB_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_pass, t_fail;

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (cond) {                                                \
			t_pass++;                                          \
		} else {                                                   \
			t_fail++;                                          \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);        \
			printf(__VA_ARGS__);                               \
			printf("\n");                                      \
		}                                                          \
	} while (0)

#define CHECK_STR(got, want)                                               \
	do {                                                               \
		const char *g_ = (got), *w_ = (want);                      \
		CHECK(g_ && strcmp(g_, w_) == 0, "got '%s', want '%s'",    \
		      g_ ? g_ : "(null)", w_);                             \
	} while (0)

/* The tests' random numbers: xorshift64 (Marsaglia), state *s never 0;
 * a fixed seed gives the same cases at every run. */
static inline unsigned long long t_xorshift64(unsigned long long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Unit test binaries print "RESULT <passed> <failed>" as their last line. */
#define TEST_MAIN_END()                                                    \
	do {                                                               \
		printf("RESULT %d %d\n", t_pass, t_fail);                  \
		return t_fail ? 1 : 0;                                     \
	} while (0)

#endif
