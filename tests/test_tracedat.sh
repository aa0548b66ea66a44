#!/bin/sh
# test_tracedat.sh - `ipitrace dump` against `trace-cmd report` (the reference
# decoder) on every real trace.dat available: same number of events; lines
# identical for ipi, csd and irq_vectors events; the header columns
# (comm-pid [cpu] timestamp: event:) identical for every event; and
# `dump --raw` against `trace-cmd report -R`, identical but for mask fields.
. "$(dirname "$0")/lib.sh"

command -v trace-cmd >/dev/null || { skip tracedat "trace-cmd not installed"; finish; }
ipi_re='^[^=].*: (ipi_[a-z_]+|csd_[a-z_]+|[a-z_]+_(entry|exit)):'

files=$(ls "$TRACES"/recorded/*.dat "$TRACES"/public/*/*.dat 2>/dev/null)
[ -n "$files" ] || { skip tracedat "no traces under $TRACES"; finish; }
for f in $files; do
	n=$(basename "$(dirname "$f")")/$(basename "$f")
	trace-cmd report "$f" 2>/dev/null | squeeze > "$TMP/ref" || { fail "$n report" "trace-cmd failed"; continue; }
	if ! "$IPT" dump "$f" 2>"$TMP/err" | squeeze > "$TMP/got"; then
		fail "$n dump" "$(cat "$TMP/err")"; continue
	fi
	[ -s "$TMP/err" ] && { fail "$n dump" "$(cat "$TMP/err")"; continue; }
	# events = lines that are not stack continuations
	a=$(grep -vc '^=>' "$TMP/ref"); b=$(grep -vc '^=>' "$TMP/got")
	[ "$a" = "$b" ] && pass "$n events ($a)" || fail "$n events" "trace-cmd $a, ipitrace $b"
	grep -E "$ipi_re" "$TMP/ref" > "$TMP/ref.ipi"; grep -E "$ipi_re" "$TMP/got" > "$TMP/got.ipi"
	if cmp -s "$TMP/ref.ipi" "$TMP/got.ipi"; then
		pass "$n ipi/csd/irq_vectors lines ($(wc -l < "$TMP/ref.ipi"))"
	else
		fail "$n ipi/csd/irq_vectors lines" "$(diff "$TMP/ref.ipi" "$TMP/got.ipi" | head -n 3 | tr '\n' '|')"
	fi
	# stacks: the => lines
	grep '^=>' "$TMP/ref" > "$TMP/ref.st"; grep '^=>' "$TMP/got" > "$TMP/got.st"
	if [ -s "$TMP/ref.st" ]; then
		cmp -s "$TMP/ref.st" "$TMP/got.st" && pass "$n stack lines ($(wc -l < "$TMP/ref.st"))" ||
			fail "$n stack lines" "$(diff "$TMP/ref.st" "$TMP/got.st" | head -n 3 | tr '\n' '|')"
	fi
	# beyond the requirement: every line of every event identical
	cmp -s "$TMP/ref" "$TMP/got" && pass "$n all lines identical" ||
		fail "$n all lines" "$(diff "$TMP/ref" "$TMP/got" | head -n 3 | tr '\n' '|')"
	hdr='s/^(.*\] [0-9.]+: [^ :]+:).*/\1/'
	sed -E "$hdr" "$TMP/ref" | grep -v '^=>' > "$TMP/ref.h"; sed -E "$hdr" "$TMP/got" | grep -v '^=>' > "$TMP/got.h"
	cmp -s "$TMP/ref.h" "$TMP/got.h" && pass "$n header columns" ||
		fail "$n header columns" "$(diff "$TMP/ref.h" "$TMP/got.h" | head -n 3 | tr '\n' '|')"
	# raw mode: masks differ on purpose (cpulist instead of the __data_loc word)
	trace-cmd report -R "$f" 2>/dev/null | squeeze | sed -E 's/(cpumask|target_cpus)=[^ ]*/\1=MASK/' > "$TMP/rref"
	"$IPT" dump --raw "$f" 2>/dev/null | squeeze | sed -E 's/(cpumask|target_cpus)=[^ ]*/\1=MASK/' > "$TMP/rgot"
	grep -E "$ipi_re" "$TMP/rref" > "$TMP/rref.ipi"; grep -E "$ipi_re" "$TMP/rgot" > "$TMP/rgot.ipi"
	cmp -s "$TMP/rref.ipi" "$TMP/rgot.ipi" && pass "$n raw ipi/csd/irq_vectors lines" ||
		fail "$n raw lines" "$(diff "$TMP/rref.ipi" "$TMP/rgot.ipi" | head -n 3 | tr '\n' '|')"
done

# the stored reports beside the recorded traces were made by trace-cmd 3.1.6
for r in "$TRACES"/recorded/*.report.txt; do
	[ -f "$r" ] || continue
	f=${r%.report.txt}.dat
	n=$(basename "$r")
	"$IPT" dump "$f" 2>/dev/null | squeeze | grep -E "$ipi_re" > "$TMP/got"
	squeeze < "$r" | grep -E "$ipi_re" > "$TMP/ref"
	cmp -s "$TMP/ref" "$TMP/got" && pass "$n stored report ipi lines" ||
		fail "$n stored report" "$(diff "$TMP/ref" "$TMP/got" | head -n 3 | tr '\n' '|')"
done
finish
