/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flame.h - icicle flame graphs in inline SVG from folded stacks
 * ("a;b;c COUNT", or "a;b;c BEFORE AFTER" for a differential one), for
 * report --html and diff --html
 */
#ifndef IPT_FLAME_H
#define IPT_FLAME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define FLAME_W 1200		/* width (px) */
#define FLAME_ROW 17		/* height of one frame */
#define FLAME_DEPTH 48		/* frames drawn at most */

/* html_esc - s with &, <, >, " escaped, control characters as '?' */
void html_esc(FILE *f, const char *s);

/*
 * flame_svg - the graph of the folded lines text[0..len) as one <svg
 * class="flame"> (attrs: more attributes for it, may be ""): root on top.
 * One count per line: widths by it, warm colours by name.  Two (diff):
 * widths by their sum, so that what is gone and what is new both show;
 * red where after is larger, blue where smaller, deeper with the share of
 * the change; each frame's title gives both counts.  *total gets the sum
 * of the (first) counts.  0, or -1 without memory.
 */
int flame_svg(FILE *f, const char *text, size_t len, bool two, const char *attrs, uint64_t *total);

#endif
