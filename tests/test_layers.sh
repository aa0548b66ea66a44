# test_layers.sh - the dependency rules of lib/README.md, on the built objects
# (tests/layers.py), and negative cases that must make the checker fail
. "$(dirname "$0")/lib.sh"

if python3 "$TOP/tests/layers.py" "$TOP/$B" > "$TMP/out" 2>&1; then
	pass "layers: $(tail -n 1 "$TMP/out" | sed 's/^layers: //')"
else
	fail "layers" "$(grep -v ' files, ' "$TMP/out" | head -n 5 | tr '\n' ';')"
fi

# a core/ file that calls up into ipi/ (rank 0 -> 5)
mkdir -p "$TMP/x/lib/core" "$TMP/x/lib/input" "$TMP/x/src"
printf '%s\n' 'const void *ipt_ipi_event_info(const char *, const char *);' \
	'const void *zz_up(void) { return ipt_ipi_event_info("ipi", "ipi_send_cpu"); }' > "$TMP/up.c"
cc -c -o "$TMP/x/lib/core/zz_up.o" "$TMP/up.c"
if python3 "$TOP/tests/layers.py" "$TOP/$B" "$TMP/x/lib/core/zz_up.o" > "$TMP/out" 2>&1; then
	fail "layers: an upward call is found" "a core/ object calling ipi/ passed"
elif grep -q 'lib/core/zz_up calls lib/ipi/catalogue.*calls up' "$TMP/out"; then
	pass "layers: an upward call (core/ -> ipi/) is found"
else
	fail "layers: an upward call is found" "$(head -n 3 "$TMP/out" | tr '\n' ';')"
fi

# two files of one folder that call each other
printf '%s\n' 'int zz_b(int); int zz_a(int x) { return x ? zz_b(x - 1) : 0; }' > "$TMP/a.c"
printf '%s\n' 'int zz_a(int); int zz_b(int x) { return x ? zz_a(x - 1) : 1; }' > "$TMP/b.c"
cc -c -o "$TMP/x/lib/input/zz_a.o" "$TMP/a.c"
cc -c -o "$TMP/x/lib/input/zz_b.o" "$TMP/b.c"
if python3 "$TOP/tests/layers.py" "$TOP/$B" "$TMP/x/lib/input/zz_a.o" "$TMP/x/lib/input/zz_b.o" > "$TMP/out" 2>&1; then
	fail "layers: a call circle is found" "two files calling each other passed"
elif grep -q 'call circle: lib/input/zz_a <-> lib/input/zz_b' "$TMP/out"; then
	pass "layers: a call circle is found"
else
	fail "layers: a call circle is found" "$(head -n 3 "$TMP/out" | tr '\n' ';')"
fi

# a CLI file that calls a library function the public header does not declare
printf '%s\n' 'int ipt_err(const char *, ...); int zz_cli(void) { return ipt_err("x"); }' > "$TMP/cli.c"
cc -c -o "$TMP/x/src/zz_cli.o" "$TMP/cli.c"
if python3 "$TOP/tests/layers.py" "$TOP/$B" "$TMP/x/src/zz_cli.o" > "$TMP/out" 2>&1; then
	fail "layers: a private call from src/ is found" "passed"
elif grep -q 'src/zz_cli calls lib/core/error (ipt_err): not declared' "$TMP/out"; then
	pass "layers: a call from src/ to an undeclared library function is found"
else
	fail "layers: a private call from src/ is found" "$(head -n 3 "$TMP/out" | tr '\n' ';')"
fi

# src/ compiles with -Iinclude only
bad=""
for f in "$TOP"/src/*.c; do
	cc -std=gnu11 -D_GNU_SOURCE -I"$TOP/include" -fsyntax-only "$f" 2> "$TMP/err" || bad="$bad $(basename "$f")"
done
if [ -z "$bad" ]; then
	pass "src/ compiles with -Iinclude only"
else
	fail "src/ compiles with -Iinclude only" "not:$bad"
fi
finish
