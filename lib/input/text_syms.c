// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * text_syms.c - symbols and printk strings of a text trace
 *
 * Text shows names, not addresses.  Each distinct name gets a synthetic
 * address: slots are handed out downwards from the top of the address
 * space (SYM_TOP), above every real kernel address, so that a raw address
 * kept from the text never falls into a synthetic symbol.
 * "wakeup_preempt+0x92" becomes slot+0x92 and renders back the same.  A
 * slot is 4 KiB unless the text shows a larger offset or size; an offset
 * past the slot gets the name a further, larger slot (the first slot
 * stays the name's address for offset 0).  Stack lines of `trace-cmd
 * report` carry real addresses: the name is added at that address.  A raw
 * address in a %pS field ("callsite=0xffffffff81121013") stays that
 * number; it renders back as shown unless a stack line put a real symbol
 * below it.
 *
 * arm64 reason strings ("Function call interrupts") get synthetic printk
 * string addresses.
 */
#include "input/text.h"

#include <ctype.h>
#include <inttypes.h>

#define SYM_SLOT 0x1000ULL
#define PRINTK_BASE 0xfffffffffe000000ULL	/* synthetic printk string addresses */

/* ipt_text_sym_addr - the synthetic address of name+off (size: function size or 0) */
int ipt_text_sym_addr(struct tx *x, const char *name, size_t n, uint64_t off, uint64_t size,
		      uint64_t *addr)
{
	int i, last = -1;
	uint64_t need;

	if (smap_get(&x->symmap, name, n, &i)) {
		for (; i >= 0; last = i, i = x->syn[i].next)
			if (off < x->syn[i].size) {
				*addr = x->syn[i].base + off;
				return 0;
			}
	}
	/* a new slot: room for the offset and the size, never the top address */
	need = (off > size ? off : size) + 2;
	need = (need + SYM_SLOT - 1) & ~(SYM_SLOT - 1);
	if (need > x->sym_top / 2)
		return ipt_err_at(x->t->path, x->line_off, "symbol offset 0x%" PRIx64 " too large", off);
	if (IPT_GROW(x->syn, x->capsyn, x->nsyn + 1))
		return -1;
	x->sym_top -= need;
	if (ipt_symtab_add(&x->t->ksyms, x->sym_top, name, n))
		return -1;
	x->syn[x->nsyn] = (struct synsym){ x->sym_top, need - 1, -1 };
	if (last >= 0) {
		x->syn[last].next = x->nsyn;
	} else {
		const char *key = x->t->ksyms.syms[x->t->ksyms.n - 1].name;

		if (smap_put(&x->symmap, key, n, x->nsyn))
			return -1;
	}
	x->nsyn++;
	*addr = x->sym_top + off;
	return 0;
}

/* ipt_text_real_sym - name at a real address (stack lines of trace-cmd report) */
int ipt_text_real_sym(struct tx *x, const char *name, size_t n, uint64_t addr)
{
	if (!addr || aset_has(&x->real, addr))
		return 0;
	if (aset_add(&x->real, addr) || ipt_symtab_add(&x->t->ksyms, addr, name, n))
		return -1;
	return 0;
}

/* ipt_text_unknown_at - from addr on, no name is known (an empty symbol; a real one
 * at the same address wins, see ipt_trace_symbol) */
int ipt_text_unknown_at(struct tx *x, uint64_t addr)
{
	if (!addr || addr >= x->sym_top || aset_has(&x->real, addr))
		return 0;
	return ipt_symtab_add(&x->t->ksyms, addr, "", 0);
}

/* ipt_text_reason_addr - printk string address of an arm64 IPI reason */
int ipt_text_reason_addr(struct tx *x, const char *s, size_t n, uint64_t *addr)
{
	int i;

	if (!smap_get(&x->reasonmap, s, n, &i)) {
		struct ipt_symtab *st = &x->t->printk;

		i = x->nreason;
		if (ipt_symtab_add(st, PRINTK_BASE + (uint64_t)i * 0x100, s, n) ||
		    smap_put(&x->reasonmap, st->syms[st->n - 1].name, n, i))
			return -1;
		x->nreason++;
	}
	*addr = PRINTK_BASE + (uint64_t)i * 0x100;
	return 0;
}

/*
 * ipt_text_parse_symval - a %pS/%ps value: "(nil)", "0x..." (raw), or
 * "name[+0xoff[/0xsize]]" (synthetic).  [p, e) is one token.
 * -1: malformed (no message), -2: failed (message set).
 */
int ipt_text_parse_symval(struct tx *x, const char *p, const char *e, uint64_t *v)
{
	const char *plus, *slash, *ne;
	uint64_t off = 0, size = 0;

	if (p == e)
		return -1;
	if (starts(p, e, "(nil)") && e - p == 5) {
		*v = 0;
		return 0;
	}
	if (e - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		return parse_hexn(p + 2, e, v) ? 0 : -1;	/* a raw address stays a number */
	}
	plus = memchr(p, '+', (size_t)(e - p));
	ne = plus ? plus : e;
	if (ne == p)
		return -1;
	for (const char *c = p; c < ne; c++)
		if (!isalnum((unsigned char)*c) && !strchr("_.$@-", *c))
			return -1;
	if (plus) {
		slash = memchr(plus, '/', (size_t)(e - plus));
		if (!starts(plus, e, "+0x") || !parse_hexn(plus + 3, slash ? slash : e, &off))
			return -1;
		if (slash && (!starts(slash, e, "/0x") || !parse_hexn(slash + 3, e, &size)))
			return -1;
	}
	return ipt_text_sym_addr(x, p, (size_t)(ne - p), off, size, v) ? -2 : 0;
}
