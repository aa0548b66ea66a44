#!/bin/sh
# test_ustacks.sh - record --user-stacks (issue 16, item 5) on the live
# kernel: the workload (built with frame pointers) sends membarrier IPIs
# from run_membarrier(); the report's stacks must name that function as
# often as the raw user addresses trace-cmd prints fall inside it, at the
# place the workload itself says it was loaded (tests/ustacks_check.py:
# trace-cmd's text, nm -S, the workload's own printout; needs root,
# tracefs, trace-cmd; SKIP lines otherwise).
# run: live
. "$(dirname "$0")/lib.sh"
LIVE_NAME=ustacks
. "$(dirname "$0")/live.sh"
if [ $HAVE_TC = 0 ]; then
	skip ustacks "trace-cmd not installed (the independent reader)"
	finish
fi
if [ ! -e $T/options/userstacktrace ]; then
	skip ustacks "this kernel has no userstacktrace option"
	finish
fi
if ! command -v nm >/dev/null 2>&1; then
	skip ustacks "nm (binutils) not installed"
	finish
fi
D=$TMP/us.dat

# usage errors and the build's support first
"$IPT" record --help | grep -q -- "--user-stacks" && pass "help names --user-stacks" ||
	fail "help" "record --help does not name --user-stacks"

# two runs: two processes, loaded at other addresses, one code path
IPI_WORKLOAD_PRINT_ADDR=1 "$IPT" record --user-stacks -o "$D" -- sh -c \
	"'$WL' --cpus 0,1 --rate 2000 membarrier 1000 && '$WL' --cpus 0,1 --rate 2000 membarrier 1000" \
	> "$TMP/wl.out" 2> "$TMP/rec.err"
rc=$?
if grep -q "built without elfutils" "$TMP/rec.err"; then
	skip ustacks "this ipitrace was built without elfutils (libdw)"
	finish
fi
[ $rc = 0 ] && pass "record --user-stacks exit 0" ||
	{ fail "record --user-stacks" "exit $rc: $(tail -n 2 "$TMP/rec.err")"; finish; }
grep "user stacks:" "$TMP/rec.err" | sed 's/^/# /'
grep -q "user stacks: [1-9][0-9]* recorded" "$TMP/rec.err" && pass "recorder says what it resolved" ||
	fail "recorder note" "no 'user stacks: N recorded' line"

size=$(nm -S "$WL" | awk '$4 == "run_membarrier" { print $2 }' | head -n 1)
if [ "$(grep -c '^addr run_membarrier 0x' "$TMP/rec.err")" != 2 ] || [ -z "$size" ]; then
	fail "workload" "no run_membarrier addresses, or no size ($size)"
	finish
fi

trace-cmd report -l "$D" > "$TMP/tc.txt" 2> "$TMP/tc.err" && pass "trace-cmd reads the file" ||
	fail "trace-cmd report" "$(head -n 2 "$TMP/tc.err")"
"$IPT" report --format folded "$D" > "$TMP/folded" 2> "$TMP/folded.err" ||
	fail "report --format folded" "$(head -n 1 "$TMP/folded.err")"
"$IPT" report -g stack -t 0 -f json "$D" > "$TMP/groups.json" 2> "$TMP/groups.err" ||
	fail "report -g stack" "$(head -n 1 "$TMP/groups.err")"
$PY "$TOP/tests/ustacks_check.py" "$TMP/tc.txt" "$TMP/rec.err" "$size" "$TMP/folded" "$TMP/groups.json" > "$TMP/v"
while IFS= read -r l; do
	case $l in
	"P "*) pass "${l#P }" ;;
	"F "*) l=${l#F }; fail "${l%%: *}" "${l#*: }" ;;
	*) echo "$l" ;;
	esac
done < "$TMP/v"

# the text report names the function, its file, and reaches main's caller
"$IPT" report "$D" > "$TMP/rep.txt" 2>&1
grep -q "run_membarrier+0x[0-9a-f]* \[ipi-workload\]" "$TMP/rep.txt" &&
	pass "text report: run_membarrier [ipi-workload] in the stacks" ||
	fail "text report" "no run_membarrier frame"
grep -q "go on into the sender's user stack" "$TMP/rep.txt" && pass "text report: user stack counts" ||
	fail "text report" "no user stack counts"
# folded lines through run_membarrier run from libc's start through main
bad=$(grep ';run_membarrier;' "$TMP/folded" | grep -vc '^ipi-workload;__libc_start_call_main;main;run_membarrier;')
[ "$bad" = 0 ] && pass "run_membarrier stacks root at __libc_start_call_main;main" ||
	fail "folded roots" "$bad lines through run_membarrier do not start at __libc_start_call_main;main"
# JSON: the frames as "function+0xoff"
"$IPT" report -f json "$D" > "$TMP/rep.json" 2>&1
grep -q '"run_membarrier+0x' "$TMP/rep.json" && pass "json report: run_membarrier frame" ||
	fail "json report" "no run_membarrier frame"
# provenance, and offline: the symbols come from the file, not the machine
grep -q "user_stacks: yes\|user_stacks=yes\|--user-stacks" "$TMP/rep.txt" && pass "provenance: user stacks" ||
	fail "provenance" "the report does not say user stacks were recorded"
finish
