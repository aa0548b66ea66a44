#!/bin/sh
# test_tracedat.sh - `ipitrace dump` against `trace-cmd report` (the reference
# decoder) on every real trace.dat available: same number of events; lines
# identical for ipi, csd and irq_vectors events; the header columns
# (comm-pid [cpu] timestamp: event:) identical for every event; and
# `dump --raw` against `trace-cmd report -R`, identical but for mask fields.
# With threads (--threads: slices of time rendered apart): every line
# identical to trace-cmd's on uncompressed synthetic traces; the same output
# for any number of threads on every trace, with each kind of selection; and
# the same output and exit, error message included, for one thread and three
# on traces with bytes broken at random and page times made to go back.
# seconds: 51
. "$(dirname "$0")/lib.sh"

command -v trace-cmd >/dev/null || { skip tracedat "trace-cmd not installed"; finish; }
ipi_re='^[^=].*: (ipi_[a-z_]+|csd_[a-z_]+|[a-z_]+_(entry|exit)):'

# (the ASan pass: one trace of each kind, lib.sh `inputs`: busy-stacks, v6,
# v7 uncompressed, LISA's arm64; the plain pass every one)
files=$(inputs "$TRACES"/recorded/*.dat "$TRACES"/public/*/*.dat)
[ -n "$files" ] || { skip tracedat "no traces under $TRACES"; finish; }
for f in $files; do
	n=$(basename "$(dirname "$f")")/$(basename "$f")
	tc_report "$f" 2>/dev/null | squeeze > "$TMP/ref" || { fail "$n report" "trace-cmd failed"; continue; }
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
	tc_report -R "$f" 2>/dev/null | squeeze | sed -E 's/(cpumask|target_cpus)=[^ ]*/\1=MASK/' > "$TMP/rref"
	"$IPT" dump --raw "$f" 2>/dev/null | squeeze | sed -E 's/(cpumask|target_cpus)=[^ ]*/\1=MASK/' > "$TMP/rgot"
	grep -E "$ipi_re" "$TMP/rref" > "$TMP/rref.ipi"; grep -E "$ipi_re" "$TMP/rgot" > "$TMP/rgot.ipi"
	cmp -s "$TMP/rref.ipi" "$TMP/rgot.ipi" && pass "$n raw ipi/csd/irq_vectors lines" ||
		fail "$n raw lines" "$(diff "$TMP/rref.ipi" "$TMP/rgot.ipi" | head -n 3 | tr '\n' '|')"
done

# the stored reports beside the recorded traces were made by trace-cmd 3.1.6
for r in $(inputs "$TRACES"/recorded/*.report.txt); do
	f=${r%.report.txt}.dat
	n=$(basename "$r")
	"$IPT" dump "$f" 2>/dev/null | squeeze | grep -E "$ipi_re" > "$TMP/got"
	squeeze < "$r" | grep -E "$ipi_re" > "$TMP/ref"
	cmp -s "$TMP/ref" "$TMP/got" && pass "$n stored report ipi lines" ||
		fail "$n stored report" "$(diff "$TMP/ref" "$TMP/got" | head -n 3 | tr '\n' '|')"
done
# ---- --threads: slices of time ------------------------------------------
GEN="$TOP/$B/tools/gen-synth"
if [ -x "$GEN" ]; then
	for v in 6 7; do
		"$GEN" -o "$TMP/sl$v.dat" -V $v -e 200000 -n 8 -s 7 -m 2>/dev/null
		trace-cmd report "$TMP/sl$v.dat" 2>/dev/null | squeeze > "$TMP/ref"
		"$IPT" dump -j 3 "$TMP/sl$v.dat" 2>&1 | squeeze > "$TMP/got"
		cmp -s "$TMP/ref" "$TMP/got" && pass "v$v synthetic, 200k events, dump -j 3: every line as trace-cmd's ($(wc -l < "$TMP/ref"))" ||
			fail "v$v synthetic dump -j 3" "$(diff "$TMP/ref" "$TMP/got" | head -n 3 | tr '\n' '|')"
	done
fi
# under ASan (startup is slow there) a lighter load: fewer traces and
# selections, one thread against three.  The plain pass: every selection on
# the first three traces and the synthetic ones, the whole output and -R
# (the selections are applied after the lanes merge) on the others
set -- $files "$TRACES"/recorded/tracefs-text.trace
sels="'' -R '-F cpu==1' '-e ipi:*,sched:*' '--on-cpus 1' '-n 999' --mask-hex"
few_sels="'' -R"
nmut=60
[ "${FAST:-0}" = 1 ] && nmut=24	# make check-fast: the same checks, fewer broken traces
case "$B" in *asan*)
	set -- "$TRACES"/public/lisa/trace.dat "$TRACES"/recorded/pingpong.v6.dat "$TRACES"/recorded/tracefs-text.trace
	sels="'' '-R -F cpu==1' '-e ipi:*,sched:* --on-cpus 1'"
	few_sels=$sels
	nmut=16 ;;
esac
[ -f "$TMP/sl7.dat" ] && set -- "$@" "$TMP/sl7.dat" "$TMP/sl6.dat"
bad="" n=0
for f in "$@"; do
	[ -f "$f" ] || continue
	case "$n:$f" in [012]:* | *"$TMP"/sl*) eval "set -- $sels" ;; *) eval "set -- $few_sels" ;; esac
	for sel in "$@"; do
		case "$B" in
		*asan*)
			"$IPT" dump $sel -j 1 "$f" > "$TMP/agree1" 2>&1
			"$IPT" dump $sel -j 3 "$f" > "$TMP/agreen" 2>&1
			cmp -s "$TMP/agree1" "$TMP/agreen" || bad="$bad $(basename "$f"):'$sel':-j3" ;;
		*)
			threads_agree "$(basename "$f"):'$sel'" dump $sel "$f" ;;
		esac
	done
	n=$((n + 1))
done
check "dump --threads: the same output for any number on $n traces (every selection on three and the synthetic ones, the whole output and -R on the rest):${bad:- ok}" [ $n -ge 3 -a -z "$bad" ]

# broken traces: bytes at random in the CPU data, page headers' times moved
# back or forward (streams whose times go back); seeded, so repeatable
if [ -x "$GEN" ] && command -v python3 > /dev/null; then
	"$GEN" -o "$TMP/m0.dat" -e 20000 -n 4 -s 3 -m 2>/dev/null
	cat > "$TMP/mut.py" <<'PY'
import random, struct, sys
# mut.py SRC DIR N: DIR/m1.dat .. DIR/mN.dat, each broken by its own seed
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
orig = open(src, 'rb').read()
for seed in range(1, n + 1):
    b = bytearray(orig)
    r = random.Random(seed)
    if seed % 2:	# bytes at random past the first tenth (the CPU data is most of it)
        for _ in range(r.randint(1, 6)):
            i = r.randrange(len(b) // 10, len(b))
            for j in range(r.choice([1, 1, 2, 4])):
                if i + j < len(b):
                    b[i + j] = r.randrange(256)
    else:		# a page header's time (pages are 4 KiB aligned in the file)
        for _ in range(r.randint(1, 3)):
            off = r.randrange(len(b) // 4096 // 4, len(b) // 4096) * 4096
            old = struct.unpack_from('<Q', b, off)[0]
            new = max(0, old - r.randrange(1, 10**7)) if r.random() < 0.7 else old + r.randrange(1, 10**8)
            struct.pack_into('<Q', b, off, new)
    open("%s/m%d.dat" % (dst, seed), 'wb').write(b)
PY
	bad="" errs=0 back=0
	mkdir "$TMP/mut" && python3 "$TMP/mut.py" "$TMP/m0.dat" "$TMP/mut" $nmut || bad=" mut.py"
	for seed in $(seq 1 $nmut); do
		[ -f "$TMP/mut/m$seed.dat" ] || continue
		for fl in "" "-R"; do
			"$IPT" dump $fl -j 1 "$TMP/mut/m$seed.dat" > "$TMP/o1" 2>&1; r1=$?
			"$IPT" dump $fl -j 3 "$TMP/mut/m$seed.dat" > "$TMP/o3" 2>&1; r3=$?
			{ cmp -s "$TMP/o1" "$TMP/o3" && [ $r1 = $r3 ]; } || bad="$bad $seed:'$fl'"
		done
		[ $r1 != 0 ] && errs=$((errs + 1))
		# times that go back in the merged output: a stream went back
		awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; if (t < p) d = 1; p = t; break } }
		     END { exit !d }' "$TMP/o1" && back=$((back + 1))
		rm -f "$TMP/mut/m$seed.dat"
	done
	check "$nmut broken traces ($errs with a decode error, $back with times going back): dump -j 1 and -j 3 the same, exit and message included:${bad:- ok}" \
		[ -z "$bad" -a $errs -gt 0 -a $back -gt 0 ]
fi
finish
