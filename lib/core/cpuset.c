// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cpuset.c - native CPU sets: membership, set operations, and the two text
 * forms the kernel uses: cpulists ("0-3,8") and %*pb hex words
 * ("00000000,00000104", most significant 32-bit word first).
 */
#include "core/core.h"

#include <stdlib.h>

#define MAXWORDS (IPT_CPUSET_MAX / 64)

void ipt_cpuset_init(struct ipt_cpuset *set)
{
	memset(set, 0, sizeof(*set));
	set->words = set->inline_words;
	set->nwords = ARRAY_SIZE(set->inline_words);
}

/* words_of - the word array, fixing up a zero-initialised or moved set */
static inline uint64_t *words_of(struct ipt_cpuset *set)
{
	if (!set->words || set->nwords <= ARRAY_SIZE(set->inline_words)) {
		set->words = set->inline_words;
		set->nwords = ARRAY_SIZE(set->inline_words);
	}
	return set->words;
}

#define cwords ipt_cpuset_words

void ipt_cpuset_free(struct ipt_cpuset *set)
{
	if (!set)
		return;
	if (set->words && set->words != set->inline_words &&
	    set->nwords > ARRAY_SIZE(set->inline_words))
		free(set->words);
	ipt_cpuset_init(set);
}

void ipt_cpuset_clear(struct ipt_cpuset *set)
{
	uint64_t *w = words_of(set);

	memset(w, 0, set->nwords * sizeof(*w));
}

/* reserve - make the set hold at least nwords words (not ipt_grow: the
 * first words are inline in the set, and MAXWORDS bounds them) */
static int reserve(struct ipt_cpuset *set, uint32_t nwords)
{
	uint64_t *w = words_of(set), *nw;
	uint32_t cap = set->nwords;

	if (nwords <= cap)
		return 0;
	if (nwords > MAXWORDS)
		return ipt_err("CPU set wider than %d CPUs", IPT_CPUSET_MAX);
	while (cap < nwords)
		cap *= 2;
	if (cap > MAXWORDS)
		cap = MAXWORDS;
	nw = ipt_calloc(cap, sizeof(*nw));
	if (!nw)
		return -1;
	memcpy(nw, w, set->nwords * sizeof(*w));
	if (w != set->inline_words)
		free(w);
	set->words = nw;
	set->nwords = cap;
	return 0;
}

int ipt_cpuset_add(struct ipt_cpuset *set, unsigned int cpu)
{
	if (cpu >= IPT_CPUSET_MAX)
		return ipt_err("CPU %u out of range (max %d)", cpu, IPT_CPUSET_MAX - 1);
	if (reserve(set, cpu / 64 + 1))
		return -1;
	set->words[cpu / 64] |= 1ULL << (cpu % 64);
	return 0;
}

void ipt_cpuset_del(struct ipt_cpuset *set, unsigned int cpu)
{
	uint64_t *w = words_of(set);

	if (cpu / 64 < set->nwords)
		w[cpu / 64] &= ~(1ULL << (cpu % 64));
}

bool ipt_cpuset_has(const struct ipt_cpuset *set, unsigned int cpu)
{
	uint32_t n;
	const uint64_t *w = cwords(set, &n);

	return cpu / 64 < n && (w[cpu / 64] >> (cpu % 64)) & 1;
}

/*
 * weight_sw - bits set in w[0..n) with what the build's target has (the
 * portable x86-64 build: a libgcc call per word); weight_hw, the same with
 * the POPCNT instruction, is used when the CPU has it.
 */
#define DEFINE_WEIGHT(name, attr)						\
	attr static unsigned int name(const uint64_t *w, uint32_t n)		\
	{									\
		unsigned int c = 0;						\
										\
		for (uint32_t i = 0; i < n; i++)				\
			c += (unsigned int)__builtin_popcountll(w[i]);		\
		return c;							\
	}
DEFINE_WEIGHT(weight_sw, )

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__POPCNT__)
DEFINE_WEIGHT(weight_hw, __attribute__((target("popcnt"))))

/* 0: not asked yet, 1: no POPCNT, 2: POPCNT (asked once; any thread) */
static int have_popcnt;

static unsigned int weight(const uint64_t *w, uint32_t n)
{
	int h = __atomic_load_n(&have_popcnt, __ATOMIC_RELAXED);

	if (!h) {
		__builtin_cpu_init();
		h = __builtin_cpu_supports("popcnt") ? 2 : 1;
		__atomic_store_n(&have_popcnt, h, __ATOMIC_RELAXED);
	}
	return h == 2 ? weight_hw(w, n) : weight_sw(w, n);
}
#else
#define weight weight_sw
#endif

unsigned int ipt_cpuset_weight(const struct ipt_cpuset *set)
{
	uint32_t n;
	const uint64_t *w = cwords(set, &n);

	return weight(w, n);
}

bool ipt_cpuset_empty(const struct ipt_cpuset *set)
{
	uint32_t n, i;
	const uint64_t *w = cwords(set, &n);

	for (i = 0; i < n; i++)
		if (w[i])
			return false;
	return true;
}

bool ipt_cpuset_equal(const struct ipt_cpuset *a, const struct ipt_cpuset *b)
{
	uint32_t na, nb, i;
	const uint64_t *wa = cwords(a, &na), *wb = cwords(b, &nb);
	uint32_t n = na > nb ? na : nb;

	for (i = 0; i < n; i++) {
		uint64_t x = i < na ? wa[i] : 0, y = i < nb ? wb[i] : 0;

		if (x != y)
			return false;
	}
	return true;
}

bool ipt_cpuset_intersects(const struct ipt_cpuset *a, const struct ipt_cpuset *b)
{
	uint32_t na, nb, i;
	const uint64_t *wa = cwords(a, &na), *wb = cwords(b, &nb);
	uint32_t n = na < nb ? na : nb;

	for (i = 0; i < n; i++)
		if (wa[i] & wb[i])
			return true;
	return false;
}

int ipt_cpuset_copy(struct ipt_cpuset *dst, const struct ipt_cpuset *src)
{
	if (dst == src)
		return 0;
	ipt_cpuset_clear(dst);
	return ipt_cpuset_or(dst, src);
}

int ipt_cpuset_or(struct ipt_cpuset *dst, const struct ipt_cpuset *src)
{
	uint32_t ns, i;
	const uint64_t *ws = cwords(src, &ns);
	int last = ipt_cpuset_last(src);

	if (last < 0)
		return 0;
	if (reserve(dst, (uint32_t)last / 64 + 1))
		return -1;
	for (i = 0; i < ns && i < dst->nwords; i++)
		dst->words[i] |= ws[i];
	return 0;
}

void ipt_cpuset_and(struct ipt_cpuset *dst, const struct ipt_cpuset *src)
{
	uint32_t ns, i;
	const uint64_t *ws = cwords(src, &ns);
	uint64_t *wd = words_of(dst);

	for (i = 0; i < dst->nwords; i++)
		wd[i] &= i < ns ? ws[i] : 0;
}

int ipt_cpuset_next(const struct ipt_cpuset *set, unsigned int from)
{
	uint32_t n, i;
	const uint64_t *w = cwords(set, &n);
	uint64_t cur;

	if (from / 64 >= n)
		return -1;
	i = from / 64;
	cur = w[i] & (~0ULL << (from % 64));
	for (;;) {
		if (cur)
			return (int)(i * 64 + (uint32_t)__builtin_ctzll(cur));
		if (++i >= n)
			return -1;
		cur = w[i];
	}
}

int ipt_cpuset_last(const struct ipt_cpuset *set)
{
	uint32_t n, i;
	const uint64_t *w = cwords(set, &n);

	for (i = n; i-- > 0;)
		if (w[i])
			return (int)(i * 64 + 63 - (uint32_t)__builtin_clzll(w[i]));
	return -1;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* parse_uint - a decimal CPU number at s[*i]; -1 if none or too large */
static long parse_uint(const char *s, size_t len, size_t *i)
{
	long v = 0;
	size_t start = *i;

	while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
		v = v * 10 + (s[*i] - '0');
		if (v >= IPT_CPUSET_MAX)
			return -1;
		(*i)++;
	}
	return *i == start ? -1 : v;
}

/* ipt_cpuset_parse_list - parse a cpulist such as "0-3,8,10-11" */
int ipt_cpuset_parse_list(struct ipt_cpuset *set, const char *s, size_t len)
{
	size_t i = 0;

	ipt_cpuset_clear(set);
	while (i < len && is_blank(s[i]))
		i++;
	while (len > i && is_blank(s[len - 1]))
		len--;
	if (i == len)
		return 0;
	for (;;) {
		long a, b;

		while (i < len && is_blank(s[i]))
			i++;
		a = parse_uint(s, len, &i);
		if (a < 0)
			return ipt_err("bad CPU list '%.*s' at column %zu", (int)len, s, i + 1);
		b = a;
		if (i < len && s[i] == '-') {
			i++;
			b = parse_uint(s, len, &i);
			if (b < a)
				return ipt_err("bad CPU range in '%.*s' at column %zu", (int)len, s, i + 1);
		}
		for (long c = a; c <= b; c++)
			if (ipt_cpuset_add(set, (unsigned int)c))
				return -1;
		while (i < len && is_blank(s[i]))
			i++;
		if (i == len)
			return 0;
		if (s[i] != ',')
			return ipt_err("bad CPU list '%.*s' at column %zu", (int)len, s, i + 1);
		i++;
	}
}


/*
 * ipt_cpuset_parse_hex - parse comma-separated 32-bit hex words, most
 * significant first ("00000000,00000104").  Without commas, any number of
 * digits is accepted ("104", "0x104").
 */
int ipt_cpuset_parse_hex(struct ipt_cpuset *set, const char *s, size_t len)
{
	size_t i = 0, end;
	unsigned int bit = 0;
	bool commas;

	ipt_cpuset_clear(set);
	while (i < len && is_blank(s[i]))
		i++;
	while (len > i && is_blank(s[len - 1]))
		len--;
	if (len - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X'))
		i += 2;
	if (i == len)
		return ipt_err("empty hex CPU mask");
	commas = memchr(s + i, ',', len - i) != NULL;
	end = len;
	for (;;) {
		size_t start = end;

		while (start > i && s[start - 1] != ',')
			start--;
		if (start == end || (commas && end - start > 8))
			return ipt_err("bad hex CPU mask '%.*s' at column %zu",
				       (int)len, s, start + 1);
		for (size_t k = end; k > start; k--) {
			int v = ipt_hex_digit(s[k - 1]);

			if (v < 0)
				return ipt_err("bad hex digit in CPU mask '%.*s' at column %zu",
					       (int)len, s, k);
			for (int b = 0; b < 4; b++)
				if (((v >> b) & 1) && ipt_cpuset_add(set, bit + (unsigned int)b))
					return -1;
			if (bit < (1u << 30))
				bit += 4;
		}
		if (commas)
			bit = (bit + 31) / 32 * 32;
		if (start == i)
			return 0;
		end = start - 1;	/* skip the comma */
		if (end == i)
			return ipt_err("bad hex CPU mask '%.*s' (leading comma)", (int)len, s);
	}
}

/* emit - snprintf-style append into buf */
static void emit(char *buf, size_t size, size_t *pos, const char *s, size_t n)
{
	if (*pos < size) {
		size_t room = size - *pos - 1 + 1;	/* includes NUL slot */
		size_t k = n < room - 1 ? n : room - 1;

		memcpy(buf + *pos, s, k);
		buf[*pos + k] = 0;
	}
	*pos += n;
}

static size_t utoa(unsigned int v, char *tmp)
{
	char r[12];
	size_t n = 0, i;

	do {
		r[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		tmp[i] = r[n - 1 - i];
	return n;
}

size_t ipt_cpuset_format_list(const struct ipt_cpuset *set, char *buf, size_t size)
{
	size_t pos = 0;
	int c = ipt_cpuset_next(set, 0);
	char tmp[16];

	if (size)
		buf[0] = 0;
	while (c >= 0) {
		int e = c;

		while (ipt_cpuset_has(set, (unsigned int)e + 1))
			e++;
		if (pos)
			emit(buf, size, &pos, ",", 1);
		emit(buf, size, &pos, tmp, utoa((unsigned int)c, tmp));
		if (e > c) {
			emit(buf, size, &pos, "-", 1);
			emit(buf, size, &pos, tmp, utoa((unsigned int)e, tmp));
		}
		c = ipt_cpuset_next(set, (unsigned int)e + 1);
	}
	return pos;
}

size_t ipt_cpuset_format_hex(const struct ipt_cpuset *set, unsigned int nbits,
			     char *buf, size_t size)
{
	static const char digits[] = "0123456789abcdef";
	unsigned int nwords32 = (nbits + 31) / 32, w;
	size_t pos = 0;

	if (size)
		buf[0] = 0;
	if (!nwords32)
		nwords32 = 1;
	for (w = nwords32; w-- > 0;) {
		char tmp[9];
		unsigned int ndig = 8, word = 0;

		for (unsigned int b = 0; b < 32; b++)
			if (ipt_cpuset_has(set, w * 32 + b))
				word |= 1u << b;
		/* the top word only prints the digits nbits covers */
		if (w == nwords32 - 1 && nbits % 32)
			ndig = (nbits % 32 + 3) / 4;
		for (unsigned int d = 0; d < ndig; d++)
			tmp[d] = digits[(word >> (4 * (ndig - 1 - d))) & 15];
		if (w != nwords32 - 1)
			emit(buf, size, &pos, ",", 1);
		emit(buf, size, &pos, tmp, ndig);
	}
	return pos;
}

int ipt_cpuset_from_bitmap(struct ipt_cpuset *set, const uint8_t *data, size_t len,
			   unsigned int word_size, bool big_endian)
{
	size_t nw, i;

	ipt_cpuset_clear(set);
	if (word_size != 4 && word_size != 8)
		return ipt_err("bad bitmap word size %u", word_size);
	nw = len / word_size;
	for (i = 0; i < nw; i++) {
		uint64_t v = ipt_get_uint(data + i * word_size, word_size, big_endian);
		size_t base = i * word_size * 8;	/* a word of 4 bytes is half of ours */

		if (!v)
			continue;
		if (base + 63 - (size_t)__builtin_clzll(v) >= IPT_CPUSET_MAX)
			return ipt_err("bitmap wider than %d CPUs", IPT_CPUSET_MAX);
		if (reserve(set, (uint32_t)(base / 64 + 1)))
			return -1;
		set->words[base / 64] |= v << (base % 64);
	}
	return 0;
}
