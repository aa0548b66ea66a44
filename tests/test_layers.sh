# test_layers.sh - the dependency rules of lib/README.md, on the built objects
# (tests/layers.py), and negative cases that must make the checker fail
# asan: no - it reads the objects with nm: the same graph for any build
# seconds: 8
. "$(dirname "$0")/lib.sh"

if "$PY" "$TOP/tests/layers.py" "$TOP/$B" > "$TMP/out" 2>&1; then
	pass "layers: $(tail -n 1 "$TMP/out" | sed 's/^layers: //')"
else
	fail "layers" "$(grep -v ' files, ' "$TMP/out" | head -n 5 | tr '\n' ';')"
fi

# must_break NAME PATTERN OBJ...: with these extra objects the checker must
# fail and say PATTERN
must_break() {
	n=$1 pat=$2
	shift 2
	if "$PY" "$TOP/tests/layers.py" "$TOP/$B" "$@" > "$TMP/out" 2>&1; then
		fail "layers: $n" "the checker passed"
	elif grep -q "$pat" "$TMP/out"; then
		pass "layers: $n"
	else
		fail "layers: $n" "$(head -n 3 "$TMP/out" | tr '\n' ';')"
	fi
}
mkdir -p "$TMP/x/lib/core" "$TMP/x/lib/input" "$TMP/x/src"
# a core/ file that calls up into ipi/ (rank 0 -> 5)
printf '%s\n' 'const void *ipt_ipi_event_info(const char *, const char *);' \
	'const void *zz_up(void) { return ipt_ipi_event_info("ipi", "ipi_send_cpu"); }' > "$TMP/up.c"
cc -c -o "$TMP/x/lib/core/zz_up.o" "$TMP/up.c"
must_break "an upward call (core/ -> ipi/) is found" 'lib/core/zz_up calls lib/ipi/catalogue.*calls up' \
	"$TMP/x/lib/core/zz_up.o"
# two files of one folder that call each other
printf '%s\n' 'int zz_b(int); int zz_a(int x) { return x ? zz_b(x - 1) : 0; }' > "$TMP/a.c"
printf '%s\n' 'int zz_a(int); int zz_b(int x) { return x ? zz_a(x - 1) : 1; }' > "$TMP/b.c"
cc -c -o "$TMP/x/lib/input/zz_a.o" "$TMP/a.c"
cc -c -o "$TMP/x/lib/input/zz_b.o" "$TMP/b.c"
must_break "a call circle is found" 'call circle: lib/input/zz_a <-> lib/input/zz_b' \
	"$TMP/x/lib/input/zz_a.o" "$TMP/x/lib/input/zz_b.o"
# a CLI file that calls a library function the public header does not declare
printf '%s\n' 'int ipt_err(const char *, ...); int zz_cli(void) { return ipt_err("x"); }' > "$TMP/cli.c"
cc -c -o "$TMP/x/src/zz_cli.o" "$TMP/cli.c"
must_break "a call from src/ to an undeclared library function is found" \
	'src/zz_cli calls lib/core/error (ipt_err): not declared' "$TMP/x/src/zz_cli.o"

# a python/ object that calls a function of the private tier
mkdir -p "$TMP/x/python/obj"
printf '%s\n' 'int ipt_explode(void *, const char *, const void *, void *);' \
	'int zz_py(void) { return ipt_explode(0, 0, 0, 0); }' > "$TMP/py.c"
cc -c -o "$TMP/x/python/obj/zz_py.o" "$TMP/py.c"
must_break "a call from python/ to the private tier is found" \
	'python/zz_py calls lib/output/explode (ipt_explode): not in the stable tier' "$TMP/x/python/obj/zz_py.o"

# the tiers: every function of either header has a user outside lib/ (the
# stable tier: the CLI, python/, the tests or the fuzz targets, so that each is
# exercised; the private tier: src/, tests/, fuzz/ or tools/), and none is
# declared in both
"$PY" "$TOP/tools/api.py" "$TOP/include/ipitrace.h" > "$TMP/stable"
"$PY" "$TOP/tools/api.py" "$TOP/include/ipitrace-private.h" > "$TMP/private"
both=$(sort "$TMP/stable" "$TMP/private" | uniq -d | tr '\n' ' ')
[ -z "$both" ] && pass "no function is in both tiers" || fail "no function is in both tiers" "$both"
unused=""
for f in $(cat "$TMP/stable"); do
	grep -rqw "$f" "$TOP"/src "$TOP"/python "$TOP"/tests/*.c "$TOP"/tests/*.py "$TOP"/fuzz/*.c "$TOP"/tools/*.c 2> /dev/null ||
		unused="$unused $f"
done
[ -z "$unused" ] && pass "every stable function ($(wc -l < "$TMP/stable")) has a caller or a test" ||
	fail "every stable function has a caller or a test" "none for:$unused"
unused=""
for f in $(cat "$TMP/private"); do
	grep -rqw "$f" "$TOP"/src "$TOP"/tests/*.c "$TOP"/fuzz/*.c "$TOP"/tools/*.c 2> /dev/null ||
		unused="$unused $f"
done
[ -z "$unused" ] && pass "every private function ($(wc -l < "$TMP/private")) has a user outside lib/" ||
	fail "every private function has a user outside lib/" "none for:$unused (make it internal to lib/)"
# python/ includes the stable header only
if grep -l 'ipitrace-private.h\|"core/\|"ipi/\|"input/' "$TOP"/python/*.c "$TOP"/python/*.h 2> /dev/null | grep -q .; then
	fail "python/ includes only ipitrace.h" "$(grep -l 'ipitrace-private.h' "$TOP"/python/*.[ch] | tr '\n' ' ')"
else
	pass "python/ includes only ipitrace.h"
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
