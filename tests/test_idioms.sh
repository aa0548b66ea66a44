# test_idioms.sh - one way to do each small thing (tests/idioms.py): no
# array grown, hash table probed, JSON string escaped or options size read
# by hand in lib/ and src/, and negative cases that the checker must catch
# asan: no - it reads the sources: the same for any build
# seconds: 2
. "$(dirname "$0")/lib.sh"

if "$PY" "$TOP/tests/idioms.py" "$TOP" > "$TMP/out" 2>&1; then
	pass "idioms: $(tail -n 1 "$TMP/out")"
else
	fail "idioms" "$(head -n 5 "$TMP/out" | tr '\n' ';')"
fi

# must_catch NAME PATTERN CODE: a file of lib/ with CODE makes the checker
# fail and say PATTERN
must_catch() {
	rm -rf "$TMP/x"
	mkdir -p "$TMP/x/lib/core" "$TMP/x/src"
	printf '%s\n' "$3" > "$TMP/x/lib/core/zz.c"
	if "$PY" "$TOP/tests/idioms.py" "$TMP/x" > "$TMP/out" 2>&1; then
		fail "idioms: $1" "the checker passed"
	elif grep -q "$2" "$TMP/out"; then
		pass "idioms: $1"
	else
		fail "idioms: $1" "$(head -n 3 "$TMP/out" | tr '\n' ';')"
	fi
}
must_catch "a realloc by hand" 'an array grown by hand' \
	'int f(int **v, size_t n) { int *p = realloc(*v, (n + 1) * sizeof(*p)); return !p; }'
must_catch "a doubling by hand" 'a capacity doubled by hand' \
	'void f(size_t *capx) { size_t cap = *capx ? *capx * 2 : 16; *capx = cap; }'
must_catch "a doubling loop by hand" 'a capacity doubled by hand' \
	'void f(size_t need) { size_t cap = 16; while (cap < need) cap *= 2; }'
must_catch "a probe by hand" 'a hash table probed by hand' \
	'size_t f(const int *t, size_t cap, size_t i) { while (t[i]) i = (i + 1) & (cap - 1); return i; }'
must_catch "a JSON escape by hand" 'a JSON string escaped by hand' \
	'int f(char *o, unsigned char c) { return sprintf(o, "\\u%04x", c); }'
must_catch "JSON written by hand" 'JSON written by hand' \
	'void f(int c) { printf("{\"cpu\":%d}", c); }'
must_catch "an options size read by hand" "an options struct's sz read by hand" \
	'struct o { size_t sz; }; int f(const struct o *o) { return o->sz < sizeof(*o); }'
# an exception says why, and passes
rm -rf "$TMP/x"; mkdir -p "$TMP/x/lib/core"
printf '%s\n' '/* not ipt_grow: a test of the marker */' \
	'int f(int **v, size_t n) { int *p = realloc(*v, n); return !p; }' > "$TMP/x/lib/core/zz.c"
if "$PY" "$TOP/tests/idioms.py" "$TMP/x" > "$TMP/out" 2>&1; then
	pass "idioms: an exception that says why passes"
else
	fail "idioms: an exception that says why passes" "$(head -n 2 "$TMP/out" | tr '\n' ';')"
fi
finish
