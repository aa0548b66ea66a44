/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * core/hash.h - the hash functions every table of the library uses (not
 * installed).  The tables (open addressing, a power-of-two number of
 * slots) take the slot of a key as ipt_hash_slot(hash, cap).
 */
#ifndef IPT_CORE_HASH_H
#define IPT_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* A 64-bit value, every bit mixed into the low ones (Fibonacci hashing
 * with the high half folded down). */
static inline uint64_t ipt_hash64(uint64_t v)
{
	uint64_t h = v * 0x9e3779b97f4a7c15ULL;

	return h ^ (h >> 32);
}

/* h and one more value. */
static inline uint64_t ipt_hash_combine(uint64_t h, uint64_t v)
{
	return ipt_hash64(h ^ (v + 0x632be59bd9b4e019ULL + (h << 6) + (h >> 2)));
}

/* Bytes (FNV-1a, folded). */
static inline uint64_t ipt_hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

/* The home slot of hash h in a table of cap slots (a power of two). */
static inline size_t ipt_hash_slot(uint64_t h, size_t cap)
{
	return (size_t)h & (cap - 1);
}

#endif
