#!/bin/sh
# test_python.sh - the Python module (build/python/ipitrace, issue 21) with
# Debian's python3, numpy and pandas, against the CLI as an independent
# consumer of the same library (tests/python_check.py):
#  - on every trace of ../shared/traces/recorded, tests/data and synthetic
#    ones (x86, arm64 with reasons, 300 CPUs with wide masks): rows() equals
#    `convert -f csv` read by pandas.read_csv in every column both have and
#    every row (exploded, --no-explode with targets/cpumask, a filter), its
#    dtypes are the documented ones, threads and iter_rows chunks give the
#    same frame; the matching columns add up to the report's per-CPU counts;
#    report() agrees with `report --format json`; events() with `dump -R`;
#    the first send of pingpong.dat as `trace-cmd report -t` prints it;
#  - spikes() and spike_parts() on the timerlat texts of tests/data/spikes
#    against the test's own join of each text (tests/spikes_join.py, as
#    explain_check.py), and against `explain -f json` as a consistency
#    check (tests/python_spikes_check.py); docs/python.md's spikes example
#    prints what it shows;
#  - bad inputs (tests/fuzz-regress, truncated and corrupted traces) raise
#    ipitrace.Error through every entry point, in a separate interpreter so
#    that a crash is a failure, not the end of the test.
#
# Under build/asan the module is built with ASan+UBSan; the interpreter is
# not, so libasan is preloaded (LD_PRELOAD, as the ASan runtime must come
# first).  Python's own allocator stays (PYTHONMALLOC=malloc made the pass
# 133 s instead of 73): ASan sees every block the module and the library
# allocate, and numpy's arrays (malloc'd), which is what the module writes
# into; Python's small objects come from the interpreter's arenas, which
# the plain pass's reference counts check.  Leak checking stays on, with suppressions for the interpreter's
# own allocations that live until exit (interned strings, modules, numpy
# and pandas caches): allocation stacks keep only the allocating frame
# (malloc_context_size=2) and tests/python-lsan.supp names python3.11,
# numpy and pandas, so a block that the module or the library allocated
# (its frame is in ipitrace/_ext*.so) is still reported.  Python objects
# the module would fail to release are the interpreter's allocations, so
# those are checked apart, in the plain pass: repeated calls must not grow
# tracemalloc's count (python_check.py --leaks; 30 s under ASan, and a count
# of the interpreter's objects, the same in both builds; the ASan pass
# leak-checks the C side at the exit of every interpreter).
#
# The live recording (big-stacks) runs in the live lane, the rest beside it
# (tests/run.sh, "run: split"; the setup's verdicts are the offline part's).
# The ASan pass reads one trace of each kind (lib.sh `inputs`, less the v6
# and v7 uncompressed layouts; the plain pass reads every trace) and
# compares the large trace's rows with the CSV on a sample of 18k of its
# 528k rows (python_check.py --big-sample: 11 CPU-s instead of 33; its
# rows(threads=1) is still compared whole). Both passes give all the bad inputs to one
# interpreter first and, only if it fails, each to an interpreter of its
# own, so that each still gets its own verdict.
#
#   sh tests/test_python.sh [BUILD_DIR]      (default build)
# run: split
# fast: no - a live script (run: split); make check runs it
# seconds: 61
. "$(dirname "$0")/lib.sh"
# say CMD...: pass, fail or skip said once, in the offline part
say() { offline_part && "$@"; }

MOD_DIR="$TOP/$B/python"
GEN="$TOP/$B/tools/gen-synth"

if [ ! -x "$IPT" ]; then
	say fail build "$IPT is missing (run make)"
	finish
fi
# the packages the module needs; installed when missing (root), as make deps does
need=""
for p in python3-dev python3-numpy python3-pandas; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
if [ -n "$need" ] && [ "$(id -u)" = 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $need > /dev/null 2>&1 ||
		{ apt-get update -q > /dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $need > /dev/null 2>&1; }
fi
if ! ls "$MOD_DIR"/ipitrace/_ext*.so > /dev/null 2>&1 && [ "$B" = build ]; then
	make -C "$TOP" -s python > /dev/null 2>&1
fi
if ! ls "$MOD_DIR"/ipitrace/_ext*.so > /dev/null 2>&1; then
	if ! [ -f "$($PY -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)/Python.h" ]; then
		say skip python "no Python.h for $PY (python3-dev could not be installed): module not built"
	elif ! $PY -c 'import numpy' 2>/dev/null; then
		say skip python "no numpy for $PY (python3-numpy could not be installed): module not built"
	else
		say fail python "$MOD_DIR/ipitrace/_ext*.so is missing (make python)"
	fi
	finish
fi
if ! $PY -c 'import pandas' 2>/dev/null; then
	say skip python "no pandas for $PY (python3-pandas could not be installed)"
	finish
fi

# ---- how to run the interpreter on this build ----
RUNPY="env PYTHONPATH=$MOD_DIR PYTHONDONTWRITEBYTECODE=1"
PYIPT=$IPT	# the CLI, as the Python scripts run it
case "$B" in
*asan*)
	asan=$(${CC:-cc} -print-file-name=libasan.so)
	if [ ! -f "$asan" ]; then
		say skip python "ASan build: libasan.so not found to preload into $PY"
		finish
	fi
	RUNPY="$RUNPY LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=1:malloc_context_size=2:exitcode=99"
	RUNPY="$RUNPY LSAN_OPTIONS=suppressions=$TOP/tests/python-lsan.supp:print_suppressions=0"
	RUNPY="$RUNPY UBSAN_OPTIONS=halt_on_error=1:exitcode=98"
	# the scripts run the CLI too: its programs carry their own runtime
	# (make asan: -static-libasan), which a preloaded one would meet
	printf '#!/bin/sh\nunset LD_PRELOAD\nexec "%s" "$@"\n' "$IPT" > "$TMP/ipitrace-cli"
	chmod +x "$TMP/ipitrace-cli"
	PYIPT="$TMP/ipitrace-cli"
	;;
esac

# tally LOG: its PASS/FAIL/SKIP lines into this test's counts
tally() {
	while IFS= read -r line; do
		case "$line" in
		"PASS "*) pass "${line#PASS }" ;;
		"FAIL "*) n=${line#FAIL }; fail "${n%%: *}" "${n#*: }" ;;
		"SKIP "*) n=${line#SKIP }; skip "${n%%: *}" "${n#*: }" ;;
		esac
	done < "$1"
}

if ! $RUNPY $PY -c 'import ipitrace, sys; sys.exit(0 if ipitrace.version else 1)' > "$TMP/imp" 2>&1; then
	say fail import "$(head -c 600 "$TMP/imp")"
	finish
fi

if offline_part; then	# (the body is not indented: heredocs)
pass import
# the module exports its init function alone (the library is linked in)
exp=$(nm -D --defined-only "$MOD_DIR"/ipitrace/_ext*.so 2>/dev/null | awk '$2 ~ /^[TDB]$/ { print $3 }' | grep -v '^_' | tr '\n' ' ')
if [ "$exp" = "PyInit__ext " ]; then pass exports; else fail exports "exported: $(echo "$exp" | head -c 300)"; fi
# make install puts it where Debian's python3 finds it (PREFIX=/usr and /usr/local)
if [ "$B" = build ]; then
	for prefix in /usr /usr/local; do
		D="$TMP/dest$(echo $prefix | tr / _)"
		if make -C "$TOP" -s install DESTDIR="$D" PREFIX=$prefix > "$TMP/inst" 2>&1; then
			dir=$(ls -d "$D$prefix"/lib/python3*/dist-packages 2>/dev/null | head -n 1)
			got=$(cd / && env PYTHONPATH="$dir" $PY -c 'import ipitrace; print(ipitrace.__file__)' 2>&1)
			case "$prefix:$dir" in
			/usr:*/usr/lib/python3/dist-packages | /usr/local:*/usr/local/lib/python3.*/dist-packages) ok=1 ;;
			*) ok=0 ;;
			esac
			if [ $ok = 1 ] && [ "$got" = "$dir/ipitrace/__init__.py" ]; then
				pass "install:$prefix"
			else
				fail "install:$prefix" "installed in '$dir', imported '$got'"
			fi
			make -C "$TOP" -s uninstall DESTDIR="$D" PREFIX=$prefix > /dev/null 2>&1
			left=$(find "$D" -path '*python*' -type f | head -n 3)
			[ -z "$left" ] && pass "uninstall:$prefix" || fail "uninstall:$prefix" "left $left"
		else
			fail "install:$prefix" "$(tail -n 3 "$TMP/inst")"
		fi
	done
fi

# ---- traces ----
mkdir -p "$TMP/tr"
TR=""
for f in $(inputs "$TRACES"/recorded/*.dat "$TRACES"/recorded/*.trace "$TOP"/tests/data/* "$TOP"/tests/data/qemu/*.dat); do
	# (under ASan not pingpong.v6.dat and pingpong.v7-none.dat: the module's
	# rows and reports are made alike from any file layout, whose decoding
	# the ASan pass of the other scripts reads; 10 s each here under ASan)
	case "$ASAN:$f" in 1:*/recorded/*.v6.dat | 1:*/recorded/*.v7-none.dat) continue ;; esac
	TR="$TR $f"
done
if [ -x "$GEN" ]; then
	"$GEN" -o "$TMP/tr/synth-x86.dat" -e 20000 -s 3 -n 8 &&
	"$GEN" -o "$TMP/tr/synth-arm64.dat" -a arm64 -e 20000 -s 4 -n 8 &&
	"$GEN" -o "$TMP/tr/synth-wide.dat" -n 300 -e 5000 -s 5 -c zstd ||
		fail gen-synth "could not write synthetic traces"
	TR="$TR $TMP/tr/synth-x86.dat $TMP/tr/synth-arm64.dat $TMP/tr/synth-wide.dat"
else
	skip gen-synth "$GEN is missing: synthetic traces not checked"
fi
[ -n "$TR" ] || { fail traces "no trace found in $TRACES/recorded"; finish; }

$RUNPY $PY "$TOP/tests/python_check.py" "$PYIPT" "$TMP" $TR > "$TMP/check.log" 2> "$TMP/check.err"
rc=$?
tally "$TMP/check.log"
[ $rc -eq 0 ] || fail checks "python_check.py exited $rc: $(grep -v '^ *$' "$TMP/check.err" | head -n 8 | tr '\n' ' ' | head -c 900)"

# ---- spikes() and spike_parts(): the spikes texts against our own join ----
$RUNPY $PY "$TOP/tests/python_spikes_check.py" "$PYIPT" "$TMP" "$TOP/tests/data/spikes" > "$TMP/spikes.log" 2> "$TMP/spikes.err"
rc=$?
tally "$TMP/spikes.log"
[ $rc -eq 0 ] || fail spikes "python_spikes_check.py exited $rc: $(grep -v '^ *$' "$TMP/spikes.err" | head -n 8 | tr '\n' ' ' | head -c 900)"
# docs/python.md's spikes example prints what its comments show (it
# imports build/python: in the plain build's pass)
if [ "$B" = build ]; then
	$RUNPY $PY "$TOP/tests/python_spikes_check.py" --doc-example "$TOP" > "$TMP/spikes-doc.log" 2> "$TMP/spikes-doc.err"
	rc=$?
	tally "$TMP/spikes-doc.log"
	[ $rc -eq 0 ] || fail spikes-doc "exited $rc: $(tail -n 3 "$TMP/spikes-doc.err" | tr '\n' ' ' | head -c 600)"
fi

# ---- a trace large enough for rows()'s own threads (faulting ahead, the join) ----
# (under ASan the CSV is compared on a sample of its 528k rows, rows() with
# threads=1 still whole: python_check.py --big-sample)
big=--big
[ "$ASAN" = 1 ] && big=--big-sample
if [ -x "$GEN" ] && "$GEN" -o "$TMP/big.dat" -e 1600000 -s 6 -n 8; then
	$RUNPY $PY "$TOP/tests/python_check.py" $big "$PYIPT" "$TMP" "$TMP/big.dat" > "$TMP/big.log" 2> "$TMP/big.err"
	rc=$?
	tally "$TMP/big.log"
	[ $rc -eq 0 ] || fail big "python_check.py --big exited $rc: $(grep -v '^ *$' "$TMP/big.err" | head -n 8 | tr '\n' ' ' | head -c 900)"
	rm -f "$TMP/big.dat"
else
	skip big "no large synthetic trace (gen-synth missing or failed)"
fi

# ---- references: repeated calls leave no Python objects behind ----
if [ "$ASAN" = 1 ]; then
	echo "leaks (tracemalloc's count): in the plain build's pass"
else
	$RUNPY $PY "$TOP/tests/python_check.py" --leaks "$TRACES/recorded/stacks.dat" > "$TMP/leak.log" 2> "$TMP/leak.err"
	rc=$?
	tally "$TMP/leak.log"
	[ $rc -eq 0 ] || fail leaks "exited $rc: $(grep -m 3 -E 'ERROR|SUMMARY|Error|#1' "$TMP/leak.err" | tr '\n' ' ' | head -c 600)"
fi

# ---- other interpreters: a pyenv python3 is told which one the module is for; a venv works ----
if [ "$ASAN" = 0 ]; then
	built=$(sed -n 's/^PYTHON = "\(.*\)"$/\1/p' "$MOD_DIR/ipitrace/_built.py" 2>/dev/null)
	other=""
	for p in $(which -a python3 2>/dev/null) "$HOME"/.pyenv/shims/python3 /usr/local/bin/python3; do
		[ -x "$p" ] || continue
		x=$("$p" -c 'import sys; print(sys.executable)' 2>/dev/null) || continue
		[ -n "$x" ] && [ "$x" != "$built" ] && ! "$p" -c 'import numpy, pandas' 2>/dev/null && { other=$p; break; }
	done
	if [ -z "$built" ]; then
		fail python-built "$MOD_DIR/ipitrace/_built.py names no interpreter"
	elif [ -n "$other" ]; then
		x=$("$other" -c 'import sys; print(sys.executable)')
		env PYTHONPATH="$MOD_DIR" "$other" -c 'import ipitrace' > /dev/null 2> "$TMP/other.err"; rc=$?
		grep -q "ImportError: ipitrace: this module was built for $built (Python [0-9.]*, with its numpy and pandas); this is $x" "$TMP/other.err" &&
		grep -q "make PYTHON=$x" "$TMP/other.err" && [ $rc != 0 ] &&
			pass "python: $other (no numpy) is told the module is for $built and how to build for it" ||
			fail python-other "rc $rc: $(tail -n 1 "$TMP/other.err")"
	else
		skip python-other "no python3 without numpy other than $built here (pyenv's is where users meet it)"
	fi
	# a venv of the Debian interpreter with its site packages: the module works there
	rm -rf "$TMP/venv"
	if "$built" -m venv --without-pip --system-site-packages "$TMP/venv" 2> "$TMP/venv.err"; then
		want=$("$IPT" convert --no-match -o - "$TRACES/recorded/pingpong.dat" 2> /dev/null | tail -n +2 | wc -l)
		got=$(env PYTHONPATH="$MOD_DIR" "$TMP/venv/bin/python3" -c \
			'import ipitrace, sys; print(len(ipitrace.rows(sys.argv[1])))' "$TRACES/recorded/pingpong.dat" 2> "$TMP/venv.err")
		[ -n "$got" ] && [ "$got" = "$want" ] &&
			pass "python: in a venv of $built (--system-site-packages) rows() has convert's $want rows" ||
			fail python-venv "rows $got, convert $want: $(tail -n 1 "$TMP/venv.err")"
	else
		skip python-venv "$built -m venv failed: $(tail -n 1 "$TMP/venv.err")"
	fi
fi

# ---- bad inputs: the fuzz corpus, and traces cut short or corrupted ----
BAD=""
for f in "$TOP"/tests/fuzz-regress/*; do
	[ -f "$f" ] && BAD="$BAD $f"
done
src="$TRACES/recorded/stacks.dat"
[ -f "$src" ] || src="$TMP/tr/synth-x86.dat"
if [ -f "$src" ]; then
	size=$(wc -c < "$src")
	for cut in 0 1 7 100 1000 4096 5000 $((size / 3)) $((size / 2)) $((size - 1))
	do
		[ "$cut" -lt "$size" ] && head -c "$cut" "$src" > "$TMP/tr/cut-$cut.bad"
	done
	# bytes flipped through the file, deterministically
	$PY - "$src" "$TMP/tr" <<-'EOF'
	import random, sys
	data = open(sys.argv[1], 'rb').read()
	rnd = random.Random(21)
	for k in range(12):
	    b = bytearray(data)
	    for _ in range(1 + k * 3):
	        i = rnd.randrange(len(b))
	        b[i] ^= 1 << rnd.randrange(8)
	    open('%s/flip-%d.bad' % (sys.argv[2], k), 'wb').write(b)
	EOF
	printf 'not a trace at all\n' > "$TMP/tr/text.bad"
	BAD="$BAD $(ls "$TMP"/tr/*.bad)"
fi
# all in one interpreter (about 3 s to start under ASan, with pandas); if it
# fails (an exception, a crash, a sanitizer report, a leak at exit), each
# file again in an interpreter of its own, for each its own verdict
# shellcheck disable=SC2086
if $RUNPY $PY "$TOP/tests/python_check.py" --bad $BAD > "$TMP/bad.log" 2> "$TMP/bad.err"; then
	tally "$TMP/bad.log"
else
	echo "bad inputs: one interpreter for all failed; each file apart"
	for f in $BAD; do
		$RUNPY $PY "$TOP/tests/python_check.py" --bad "$f" > "$TMP/bad.log" 2> "$TMP/bad.err"
		rc=$?
		tally "$TMP/bad.log"
		[ $rc -eq 0 ] || fail "bad:$(basename "$f")" "interpreter exited $rc: $(grep -m 3 -E 'ERROR|SUMMARY|runtime error|Error' "$TMP/bad.err" | tr '\n' ' ' | head -c 600)"
	done
fi
fi	# offline_part

live_part || finish
# ---- a live recording with kernel stacks, large enough that the join
# gives the row results back as it goes: rows with a stack keep theirs for
# the stack pass after ----
WL="$TOP/$B/tools/ipi-workload"
if [ "$(id -u)" != 0 ]; then
	skip big-stacks "needs root to record"
elif ! mount_tracefs; then
	skip big-stacks "no tracefs"
elif ! [ -x "$WL" ]; then
	skip big-stacks "$WL is missing"
elif ! "$IPT" record -s -o "$TMP/stk.dat" -- "$WL" pingpong 30000 > /dev/null 2> "$TMP/stk.err"; then
	if grep -qi "no such event\|not available\|ipi_send_cpu" "$TMP/stk.err"; then
		skip big-stacks "this kernel cannot record IPI sends: $(tail -n 1 "$TMP/stk.err")"
	else
		fail big-stacks "ipitrace record -s: $(tail -n 1 "$TMP/stk.err")"
	fi
else
	$RUNPY $PY "$TOP/tests/python_check.py" --big-stacks "$PYIPT" "$TMP" "$TMP/stk.dat" > "$TMP/bigs.log" 2> "$TMP/bigs.err"
	rc=$?
	tally "$TMP/bigs.log"
	[ $rc -eq 0 ] || fail big-stacks "python_check.py --big-stacks exited $rc: $(grep -v '^ *$' "$TMP/bigs.err" | head -n 8 | tr '\n' ' ' | head -c 900)"
	rm -f "$TMP/stk.dat"
fi

finish
