#!/bin/sh
# test_manycpus.sh - the text report stays readable at any CPU count (lines
# of at most 160 characters, at most 200 lines, CPU ranges, roles, the
# busiest CPUs and pairs) and its numbers are right: checked against a
# second count made from `trace-cmd report` text by tests/manycpus_check.py
# (per target CPU IPIs, role totals and senders by comm, the per-CPU rows
# and the busiest-selection, lost events per CPU, the matrix groups, roles x
# roles, the busiest pairs).  Synthetic traces made here by gen-synth: 2
# CPUs, 256, 1024 with masks of every width, 8192 x86_64 and arm64; each
# report by default and with --isolated a range (2 CPUs: --isolated 1);
# -t 0 at 256 CPUs: every CPU its own row.  The listing of the IPIs that
# reached the isolated CPUs, at the end, is bounded on its own (the first
# 20 and the 20 slowest) and not counted in the 200 lines: cut off.
# ASan pass: the 2- and 256-CPU traces only (the ASan ipitrace takes long
# on 8192 CPUs; the plain pass runs them all).
# seconds: 15
. "$(dirname "$0")/lib.sh"

GEN="$TOP/$B/tools/gen-synth"
CHECK="$TOP/tests/manycpus_check.py"
command -v trace-cmd > /dev/null 2>&1 || { skip manycpus "no trace-cmd (the second count reads its text)"; finish; }
[ -x "$GEN" ] || { skip manycpus "no $GEN (make all builds it)"; finish; }

# report OUT ARGS...: `ipitrace report ARGS` into OUT, cut before the
# listing of the IPIs that reached the isolated CPUs; false (and a FAIL) if
# ipitrace does not exit 0
report() {
	out=$1
	shift
	{ "$IPT" report "$@" 2> "$out.err"; echo $? > "$out.rc"; } |
		awk '/^(IPIs that reached isolated CPUs|IPI interrupts on isolated CPUs)/ { cut = 1 } !cut' > "$out"
	rc=$(cat "$out.rc")
	[ "$rc" = 0 ] && return 0
	fail "ipitrace report $*" "exit $rc: $(head -c 300 "$out.err")"
	return 1
}

# trace TAG "GEN-SYNTH ARGS" RUN...: make the trace, report it once per RUN
# (ISOLATED:TOP, either empty for the default), check every report against
# the trace-cmd text; manycpus_check.py's PASS/FAIL lines are counted here
trace() {
	tag=$1 gen=$2
	shift 2
	f="$TMP/$tag.dat"
	# shellcheck disable=SC2086
	if ! "$GEN" $gen -o "$f" > /dev/null 2> "$TMP/gen.err"; then
		fail "$tag: gen-synth $gen" "$(head -c 300 "$TMP/gen.err")"
		return
	fi
	if ! trace-cmd report "$f" > "$TMP/$tag.tc" 2> "$TMP/tc.err" ||
	   ! trace-cmd dump --options "$f" > "$TMP/$tag.opts" 2>&1; then
		fail "$tag: trace-cmd report" "$(head -c 300 "$TMP/tc.err")"
		return
	fi
	: > "$TMP/$tag.specs"
	k=0
	for r in "$@"; do
		iso=${r%%:*} top=${r#*:}
		k=$((k + 1))
		name="$tag${iso:+ -i $iso}${top:+ -t $top}"
		# shellcheck disable=SC2086
		report "$TMP/$tag.$k.txt" ${iso:+--isolated $iso} ${top:+-t $top} "$f" || continue
		echo "$name:$iso:$top:$TMP/$tag.$k.txt" >> "$TMP/$tag.specs"
	done
	"$PY" "$CHECK" "$TMP/$tag.tc" "$TMP/$tag.opts" < "$TMP/$tag.specs" > "$TMP/check.out" 2>&1 ||
		fail "$tag: manycpus_check.py runs" "$(tail -n 3 "$TMP/check.out" | tr '\n' ';')"
	while IFS= read -r l; do
		case $l in
		"PASS "*) pass "${l#PASS }" ;;
		"FAIL "*)
			x=${l#FAIL }
			n1=${x%%: *} r=${x#*: }
			fail "$n1: ${r%%: *}" "${r#*: }" ;;
		esac
	done < "$TMP/check.out"
	rm -f "$TMP/$tag".*
}

trace x86-2 "-n 2 -e 5000" ":" "1:"
trace x86-256 "-n 256 -e 200000" ":" "3-200:" ":0"
if [ "$ASAN" = 1 ]; then
	echo "ASan pass: the 2- and 256-CPU traces (the plain pass reads 1024 and 8192 CPUs too)"
else
	trace x86-1024 "-n 1024 -e 100000 -s 3" ":" "100-900:"
	trace x86-8192 "-n 8192 -e 12000" ":" "1000-7000:"
	trace arm64-8192 "-a arm64 -n 8192 -e 12000" ":" "1000-7000:"
fi
finish
