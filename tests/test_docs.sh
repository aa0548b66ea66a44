#!/bin/sh
# test_docs.sh - the README and docs/ name only what the program has
# (tests/docs_check.py):
#  1 README.md is under 400 lines (the front page; the depth is in docs/)
#  2 every `ipitrace CMD` in README.md, docs/*.md and the EXAMPLES of the
#    built man pages is a command `ipitrace --help` lists, and every option
#    given to it one that `ipitrace CMD --help` lists; so are the option
#    tables of docs/commands.md
#  3 every relative link in README.md and docs/*.md leads to a file, and an
#    #anchor to a heading there
#  4 every `make TARGET` named is a target of the Makefile
#  5 the checker itself: on a copy of the docs it passes, and each of a
#    made-up option (`ipitrace report --no-such-option`), command, option
#    in a man page's EXAMPLES, link, anchor, make target and a 400-line
#    README makes it fail, naming what was made up
# Usage: sh tests/test_docs.sh [BUILD]
# asan: no - it checks text
# seconds: 6
. "$(dirname "$0")/lib.sh"
CHK="$TOP/tests/docs_check.py"
MAN="$TOP/$B/man"
if [ ! -x "$IPT" ] || [ ! -f "$MAN/ipitrace.1" ] || [ ! -f "$MAN/ipitrace-filter.7" ]; then
	fail docs "no $B/ipitrace or $B/man pages: run make"
	finish
fi

# ---- 1-4: the docs as they are ----
"$PY" "$CHK" "$TOP" "$IPT" "$MAN/ipitrace.1" "$MAN/ipitrace-filter.7" > "$TMP/v" 2>&1 ||
	echo "F docs-check: docs_check.py failed: $(tail -n 2 "$TMP/v" | tr '\n' ' ')" >> "$TMP/v"
verdicts "$TMP/v"
[ "$(grep -c '^[PF] docs-' "$TMP/v")" -ge 4 ] && pass "docs: the four checks ran" ||
	fail docs "the checker gave $(grep -c '^[PF] docs-' "$TMP/v") verdicts, not 4"

# ---- 5: the checker on a copy, then on doctored copies ----
# fresh: a copy of README.md, docs/, the Makefile and the man pages as
# they are, and links to the tree's other files (which the docs link to)
fresh() {
	rm -rf "$TMP/c"
	mkdir -p "$TMP/c/man"
	cp "$TOP/README.md" "$TOP/Makefile" "$TMP/c/"
	cp -R "$TOP/docs" "$TMP/c/docs"
	cp "$MAN/ipitrace.1" "$MAN/ipitrace-filter.7" "$TMP/c/man/"
	for f in "$TOP"/*; do
		[ -e "$TMP/c/${f##*/}" ] || ln -s "$f" "$TMP/c/${f##*/}"
	done
}
# expect_fail NAME KIND WHAT: the checker, run for KIND on the copy, fails
# KIND and its reason names WHAT (a fixed string)
expect_fail() {
	"$PY" "$CHK" --only "$2" "$TMP/c" "$IPT" "$TMP/c/man/ipitrace.1" "$TMP/c/man/ipitrace-filter.7" > "$TMP/o" 2>&1
	if grep -q "^F docs-" "$TMP/o" && grep "^F docs-" "$TMP/o" | grep -qF -- "$3"; then
		pass "docs checker catches $1"
	else
		fail "docs checker misses $1" "$(head -c 300 "$TMP/o")"
	fi
}
fresh
"$PY" "$CHK" "$TMP/c" "$IPT" "$TMP/c/man/ipitrace.1" "$TMP/c/man/ipitrace-filter.7" > "$TMP/o" 2>&1
[ "$(grep -c '^P docs-' "$TMP/o")" = 4 ] && pass "docs checker: a copy of the docs passes all four checks" ||
	fail "docs checker on a copy" "$(grep -v '^P' "$TMP/o" | head -c 300)"

fresh
printf '\nTry `ipitrace report --no-such-option` on it.\n' >> "$TMP/c/docs/commands.md"
expect_fail "a made-up option in a code span (ipitrace report --no-such-option)" commands "ipitrace report has no option --no-such-option"

fresh
printf '\n```sh\n./build/ipitrace report -Q ../shared/traces/recorded/idle.dat   # -Q: made up\n```\n' >> "$TMP/c/README.md"
expect_fail "a made-up short option in a README sh block" commands "ipitrace report has no option -Q"

fresh
printf '\n```sh\n./build/ipitrace frobnicate demo/pingpong.dat\n```\n' >> "$TMP/c/docs/formats.md"
expect_fail "a made-up command in a docs sh block" commands 'no command "ipitrace frobnicate"'

fresh
printf '\nThen `convert --made-up-flag` writes it.\n' >> "$TMP/c/docs/formats.md"
expect_fail "a made-up option after a bare command name" commands "ipitrace convert has no option --made-up-flag"

fresh
printf '\n| `-x`, `--made-up-row N` | not an option |\n' > "$TMP/row"
# into the option table of dump's section (its first row)
awk -v row="$(cat "$TMP/row")" '{ print } /^## `ipitrace dump/ { d = 1 } d && /^\|---/ { print row; d = 0 }' \
	"$TOP/docs/commands.md" > "$TMP/c/docs/commands.md"
expect_fail "a made-up row in a command's option table" commands "ipitrace dump has no option -x"

fresh
# a made-up option in the man page's EXAMPLES (roff, as mkman.py writes them)
awk '{ print } /^\.SH EXAMPLES/ { print ".PP\n.RS 4\n.nf\n\\fBipitrace top \\-\\-no\\-such\\-flag\\fP\n.fi\n.RE" }' \
	"$MAN/ipitrace.1" > "$TMP/c/man/ipitrace.1"
expect_fail "a made-up option in ipitrace(1)'s EXAMPLES" commands "ipitrace top has no option --no-such-flag"

fresh
grep -v '^\.SH EXAMPLES' "$MAN/ipitrace-filter.7" > "$TMP/c/man/ipitrace-filter.7"
expect_fail "a man page without EXAMPLES" commands "ipitrace-filter.7: no EXAMPLES section"

fresh
printf '\nSee [the missing page](no-such-page.md).\n' >> "$TMP/c/docs/python.md"
expect_fail "a link to a missing file" links "no-such-page.md: no such file"

fresh
printf '\nSee [convert](commands.md#no-such-heading).\n' >> "$TMP/c/docs/python.md"
expect_fail "a link to a missing heading" links "no heading #no-such-heading"

fresh
printf '\nRun `make no-such-target` first.\n' >> "$TMP/c/docs/testing.md"
expect_fail "a made-up make target" make "make no-such-target: no such target"

fresh
n=$(wc -l < "$TOP/README.md")
while [ "$n" -lt 400 ]; do echo >> "$TMP/c/README.md"; n=$((n + 1)); done
expect_fail "a README of 400 lines" length "README.md has 400 lines"

# ---- the man pages carry the examples file's examples ----
# every "$ " line of docs/man-examples.txt is in the EXAMPLES of a built page
# (roff: every hyphen escaped), so what is checked above is what man shows
miss=$(sed -n 's/^\$ //p' "$TOP/docs/man-examples.txt" | while IFS= read -r l; do
	r=$(printf '%s' "$l" | sed 's/\\/\\e/g; s/-/\\-/g')
	grep -qF -- "\\fB$r\\fP" "$MAN/ipitrace.1" "$MAN/ipitrace-filter.7" || echo "$l"
done)
total=$(grep -c '^\$ ' "$TOP/docs/man-examples.txt")
[ -z "$miss" ] && [ "$total" -gt 0 ] && pass "man pages: the $total examples of docs/man-examples.txt are in their EXAMPLES" ||
	fail "man examples" "not in the pages: $miss"

# ---- --help fits a terminal: no line over 80 columns ----
long=""
for c in "" record report diff dump count convert explode top serve "help filters"; do
	# shellcheck disable=SC2086
	"$IPT" $c --help 2> /dev/null | awk -v c="${c:-ipitrace}" 'length > 80 { printf " %s:%d(%d)", c, NR, length }' > "$TMP/long"
	long="$long$(cat "$TMP/long")"
done
[ -z "$long" ] && pass "--help of every command: no line over 80 columns" ||
	fail "--help line length" "over 80 columns (command:line(length)):$long"
finish
