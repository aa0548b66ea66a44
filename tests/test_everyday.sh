#!/bin/sh
# test_everyday.sh - what every user meets in the first minute (issue 17).
# Usage: sh tests/test_everyday.sh [BUILD]
#
#  1 the option table: every command's --help is read; no short letter means
#    two things; every documented letter is accepted and every other one is
#    refused; the table in `ipitrace --help`, docs/commands.md and the man page agree
#  2 usage errors are one line naming the command's --help
#  3 '-' and FIFOs: standard input for report, dump, convert, count, checked
#    against the file itself and trace-cmd's own counts
#  4 hints for perf.data and compressed files
#  5 report --cpus / convert --cpus against trace-cmd's lines; --html says
#    where it wrote and refuses --format; output files are mode 0600
#  6 live (root + tracefs): the default command with -d, -o, -c, -s, -i,
#    --html, -q keeps its trace under a new name and never over a file;
#    -d units; the status line on a terminal only; record --comm
#  7 without FILE, report, dump, convert and count read the newest of
#    ipitrace.dat and ipitrace-*.dat here and say which; every writer keeps
#    an existing file (exit 1) unless --force, record too (live)
# Part 6 runs in the live lane, parts 1-5 and 7 beside it (tests/run.sh, "run:
# split"). The ASan pass leaves to the plain one the letter-by-letter runs
# of part 1 (each command's options parsed 62 times).
# run: split
# fast: no - a live script (run: split); make check runs it
# seconds: 40
. "$(dirname "$0")/lib.sh"

PP="$TRACES/recorded/pingpong.dat"
WL="$TOP/$B/tools/ipi-workload"
HAVE_TC=0
command -v trace-cmd > /dev/null 2>&1 && HAVE_TC=1
[ -x "$IPT" ] || { fail build "$IPT is missing"; finish; }
umask 022

if offline_part; then	# parts 1-5 (the body is not indented)
# ---- 1: one table of short options ----
CMDS="record report diff dump count convert explode top serve"
: > "$TMP/opts"
for c in $CMDS; do
	# "  -X, --long ..." lines of the help: command letter long
	"$IPT" $c --help | sed -n 's/^  *-\([A-Za-z0-9]\), --\([a-z0-9-]*\).*/\1 \2/p' |
		sed "s/^/$c /" >> "$TMP/opts"
done
# the table of ipitrace --help
"$IPT" --help | sed -n '/^Options mean/,/^Long only/p' |
	sed -n 's/^  *-\([A-Za-z0-9]\), --\([a-z0-9-]*\).*/\1 \2/p' > "$TMP/table"
if [ "$(wc -l < "$TMP/opts")" -lt 30 ] || [ "$(wc -l < "$TMP/table")" -lt 15 ]; then
	fail option-lists "too few options read: $(wc -l < "$TMP/opts") from the commands, $(wc -l < "$TMP/table") from the table"
fi
clash=$(awk '{ if ($2 in m && m[$2] != $3) print $2 ": --" m[$2] " (" w[$2] ") and --" $3 " (" $1 ")"; m[$2] = $3; w[$2] = $1 }' "$TMP/opts")
if [ -z "$clash" ]; then
	pass "options: no short letter means two things in $(wc -l < "$TMP/opts") options of $CMDS"
else
	fail options-clash "$clash"
fi
# every command's letter is in the table with the same long name
bad=""
while read -r c l long; do
	grep -q "^$l $long\$" "$TMP/table" || bad="$bad $c:-$l/--$long"
done < "$TMP/opts"
[ -z "$bad" ] && pass "options: every command's letter is in ipitrace --help's table" ||
	fail options-table "not in the table as in the command:$bad"
# the table itself gives each letter one name
clash=$(awk '{ if ($1 in m && m[$1] != $2) print $1; m[$1] = $2 }' "$TMP/table")
[ -z "$clash" ] && pass "options: the table gives each letter one name" || fail options-table-clash "$clash"
# every letter of the alphabet and digit, to each command and to the default
# one (434 runs; under ASan 2 minutes of option parsing, the same in both
# builds: the plain pass does it, the ASan pass reads each --help above)
if [ "$ASAN" = 1 ]; then
	echo "options: every letter to every command: in the plain build's pass"
else
# getopt accepts exactly the documented letters (options with an argument get
# one; "--help" then ends before any work: nothing is recorded)
bad=""
for c in $CMDS; do
	"$IPT" $c --help > "$TMP/h"
	for l in a b c d e f g h i j k l m n o p q r s t u v w x y z A B C D E F G H I J K L M N O P Q R S T U V W X Y Z 0 1 2 3 4 5 6 7 8 9; do
		line=$(grep -E "^  +-$l, --" "$TMP/h" | head -n 1)
		if [ -n "$line" ]; then
			if echo "$line" | grep -qE "^  +-$l, --[a-z0-9-]+ [A-Z]"; then
				"$IPT" $c -$l x --help > /dev/null 2> "$TMP/e" < /dev/null
			else
				"$IPT" $c -$l --help > /dev/null 2> "$TMP/e" < /dev/null
			fi
			grep -q "unknown option" "$TMP/e" && bad="$bad $c:-$l(documented,refused)"
		else
			# (record: a bad -d after it, so that nothing is ever recorded)
			if [ $c = record ]; then "$IPT" $c -$l -d bad > /dev/null 2> "$TMP/e" < /dev/null
			else "$IPT" $c -$l > /dev/null 2> "$TMP/e" < /dev/null; fi
			rc=$?
			[ $rc = 2 ] && grep -q "unknown option -$l" "$TMP/e" || bad="$bad $c:-$l(undocumented,rc=$rc)"
		fi
	done
done
[ -z "$bad" ] && pass "options: each command takes exactly the letters its --help lists" ||
	fail options-getopt "$bad"
# the default command (no command): its usage line, the table, getopt
dl=$("$IPT" --help | sed -n 's/^  ipitrace \(\[-.*\)/\1/p' | grep -oE '\[-[A-Za-z0-9]' | cut -c3 | tr -d '\n')
bad=""
[ ${#dl} -ge 6 ] || bad="usage-line:'$dl'"
"$IPT" --help | sed -n '/^Options mean/,/^Long only/p' > "$TMP/tabletext"
for l in $(echo "$dl" | sed 's/./& /g'); do
	# its row (with the continuation line) names "default"
	awk -v l="$l" '$1 == "-" l "," { on = 1; t = $0; next } on && /^   +[a-z(]/ { t = t $0; next } on { print t; exit }' "$TMP/tabletext" |
		grep -q default || bad="$bad -$l:not-default-in-table"
done
for l in a b c d e f g h i j k l m n o p q r s t u v w x y z A B C D E F G H I J K L M N O P Q R S T U V W X Y Z 0 1 2 3 4 5 6 7 8 9; do
	case $l in h|V) continue ;; esac	# main's own --help and --version
	case "$dl" in
	*$l*)
		case $l in s|q) "$IPT" -$l -h > /dev/null 2> "$TMP/e" < /dev/null ;;
		*) "$IPT" -$l x -h > /dev/null 2> "$TMP/e" < /dev/null ;; esac
		grep -q "unknown option" "$TMP/e" && bad="$bad -$l(documented,refused)" ;;
	*)
		"$IPT" -$l -d bad > /dev/null 2> "$TMP/e" < /dev/null	# never records
		rc=$?
		[ $rc = 2 ] && grep -q "unknown option -$l" "$TMP/e" || bad="$bad -$l(undocumented,rc=$rc)" ;;
	esac
done
[ -z "$bad" ] && pass "options: ipitrace with no command takes exactly -$dl, each a 'default' row of the table" ||
	fail options-default "$bad"
fi
# the option lists of docs/commands.md (the README's depth) and the man
# page say what --help says
bad=""
while read -r c l long; do
	grep -qE -- "\`-$l\`, \`--$long|\`-$l\` *\| *\`--$long" "$TOP/docs/commands.md" || bad="$bad docs:$c:-$l/--$long"
done < "$TMP/opts"
if [ -f "$TOP/$B/man/ipitrace.1" ]; then
	for c in $CMDS; do
		"$IPT" $c --help | sed -n 's/^  *\(-[A-Za-z0-9], \)*--\([a-z0-9-]*\).*/\2/p' | while read -r long; do
			# roff escapes every hyphen: --buffer-kb is \-\-buffer\-kb
			grep -qF -- "$(printf '%s' "--$long" | sed 's/-/\\-/g')" "$TOP/$B/man/ipitrace.1" ||
				echo "man:$c:--$long"
		done
	done > "$TMP/manbad"
	bad="$bad $(tr '\n' ' ' < "$TMP/manbad")"
else
	bad="$bad no-man-page"
fi
bad=$(echo $bad)
[ -z "$bad" ] && pass "options: docs/commands.md and ipitrace(1) list every option of every --help" ||
	fail options-docs "$bad"

# ---- 2: usage errors are one line ----
one_line() {	# one_line NAME CMD ARGS...: exit 2, one line naming `ipitrace CMD --help`
	n=$1; shift
	"$IPT" "$@" > "$TMP/o" 2> "$TMP/e" < /dev/null
	rc=$?
	want="see \`ipitrace $1 --help\`"
	[ "$1" = "-x" ] && want="see \`ipitrace --help\`"
	if [ $rc = 2 ] && [ "$(wc -l < "$TMP/e")" = 1 ] && grep -qF "$want" "$TMP/e" && [ ! -s "$TMP/o" ]; then
		pass "usage: $n: $(cat "$TMP/e")"
	else
		fail "usage-$n" "rc $rc, $(wc -l < "$TMP/e") lines: $(head -n 3 "$TMP/e" | tr '\n' '|')"
	fi
}
one_line "report a b" report a b
one_line "convert without -o" convert "$PP"
one_line "dump two files" dump a b
one_line "count two files" count a b
one_line "explode without -o" explode "$PP"
one_line "unknown option" report -x "$PP"
one_line "missing argument" report "$PP" -F
one_line "unknown long option" dump --bogus "$PP"
one_line "bad duration" record -d 5x
one_line "old record -f" record -f x
one_line "bad --cpus" report -c x "$PP"
one_line "default command, unknown option" -x
one_line "html with json" report --html "$TMP/no.html" -f json "$PP"
[ -e "$TMP/no.html" ] && fail html-json "a file was written"

# ---- 3: standard input and FIFOs ----
if [ -f "$PP" ]; then
	"$IPT" report -f json "$PP" | sed 's/"file":"[^"]*"//' > "$TMP/r.file"
	gzip -c "$PP" > "$TMP/pp.dat.gz"
	zcat "$TMP/pp.dat.gz" | "$IPT" report -f json - 2> "$TMP/e" | sed 's/"file":"[^"]*"//' > "$TMP/r.stdin"
	[ -s "$TMP/r.file" ] && cmp -s "$TMP/r.file" "$TMP/r.stdin" &&
		pass "stdin: zcat | report - gives the file's report" ||
		fail stdin-report "$(head -c 200 "$TMP/e")"
	"$IPT" dump "$PP" > "$TMP/d.file"
	rm -f "$TMP/fifo"; mkfifo "$TMP/fifo"
	cat "$PP" > "$TMP/fifo" &
	"$IPT" dump "$TMP/fifo" > "$TMP/d.fifo" 2> "$TMP/e"
	wait
	[ -s "$TMP/d.file" ] && cmp -s "$TMP/d.file" "$TMP/d.fifo" &&
		pass "stdin: dump of a FIFO equals the dump of the file" || fail stdin-fifo "$(head -c 200 "$TMP/e")"
	"$IPT" convert "$PP" -o "$TMP/c.file.csv"
	cat "$PP" | "$IPT" convert - -o "$TMP/c.stdin.csv" 2> "$TMP/e"
	cmp -s "$TMP/c.file.csv" "$TMP/c.stdin.csv" &&
		pass "stdin: cat | convert - writes the file's rows" || fail stdin-convert "$(head -c 200 "$TMP/e")"
	if [ $HAVE_TC = 1 ]; then
		tc_report "$PP" 2> /dev/null > "$TMP/tc.txt"
		# trace-cmd's own count: its event lines (after the cpus= header)
		want=$(grep -cE '^ *.*\[[0-9]+\] +[0-9.]+: ' "$TMP/tc.txt")
		got=$(tc_report "$PP" 2> /dev/null | "$IPT" count - 2> "$TMP/e" | sed -n 's/^total: \([0-9]*\) events/\1/p')
		[ -n "$got" ] && [ "$got" = "$want" ] &&
			pass "stdin: trace-cmd report | count - counts trace-cmd's $want events" ||
			fail stdin-text "count - says '$got', trace-cmd printed $want events: $(head -c 200 "$TMP/e")"
	else
		skip stdin-text "trace-cmd is missing"
	fi
	: | "$IPT" report - > /dev/null 2> "$TMP/e"
	[ $? = 1 ] && grep -q "empty" "$TMP/e" && pass "stdin: empty input is an error naming it" ||
		fail stdin-empty "$(cat "$TMP/e")"
else
	skip stdin "no $PP"
fi

# ---- 4: hints ----
hint() {	# hint NAME FILE TEXT
	"$IPT" report "$2" > /dev/null 2> "$TMP/e"
	rc=$?
	[ $rc = 1 ] && grep -qF "$3" "$TMP/e" && pass "hint: $1: $(cat "$TMP/e")" ||
		fail "hint-$1" "rc $rc: $(cat "$TMP/e")"
}
if [ -f "$PP" ]; then
	hint gzip "$TMP/pp.dat.gz" "decompress it first"
	if command -v xz > /dev/null; then xz -c "$PP" > "$TMP/pp.xz"; hint xz "$TMP/pp.xz" "decompress it first"
	else skip hint-xz "no xz"; fi
	if command -v zstd > /dev/null; then zstd -q -c "$PP" > "$TMP/pp.zst"; hint zstd "$TMP/pp.zst" "decompress it first"
	else skip hint-zstd "no zstd"; fi
fi
if command -v perf > /dev/null && perf record -q -o "$TMP/perf.data" -- true > /dev/null 2>&1 && [ -s "$TMP/perf.data" ]; then
	hint perf.data "$TMP/perf.data" "perf script"
else
	# the perf.data header as tools/perf/Documentation/perf.data-file-format.txt
	# describes it: the magic "PERFILE2", then the header and attribute sizes
	printf 'PERFILE2\150\0\0\0\0\0\0\0\210\0\0\0\0\0\0\0' > "$TMP/perf.data"
	head -c 4096 /dev/zero >> "$TMP/perf.data"
	hint "perf.data (header only: no perf here)" "$TMP/perf.data" "perf script"
fi

# ---- 5: --cpus, --html, modes ----
if [ -f "$PP" ] && [ $HAVE_TC = 1 ]; then
	# IPIs to CPU 1 by trace-cmd: ipi_send_cpu cpu=1 lines (+ masks naming CPU 1)
	single=$(grep -c 'ipi_send_cpu: *cpu=1 ' "$TMP/tc.txt")
	masks=$(grep 'ipi_send_cpumask:' "$TMP/tc.txt" | grep -c 'cpumask=\(0*,\)*0*[2367abef] ')
	want=$((single + masks))
	got=$("$IPT" report -c 1 -f json "$PP" | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d["ipis_counted"], d["per_cpu"][0]["ipis"])')
	[ "$got" = "$want 0" ] && pass "report --cpus 1: $want IPIs, as trace-cmd lists, none to CPU 0" ||
		fail report-cpus "report says '$got', trace-cmd $want"
	rows=$("$IPT" convert -c 1 -o - "$PP" | awk -F, 'NR > 1 { n++; if ($4 != 1) bad++ } END { print n + 0, bad + 0 }')
	[ "$rows" = "$want 0" ] && pass "convert --cpus 1: $want rows, all to CPU 1" ||
		fail convert-cpus "rows, rows not to CPU 1: '$rows', trace-cmd $want"
	rows=$("$IPT" convert -c 1 -F 'src_cpu == 0' -o - "$PP" | awk -F, 'NR > 1 { n++ } END { print n + 0 }')
	want=$(grep 'ipi_send_cpu: *cpu=1 ' "$TMP/tc.txt" | grep -c '\[000\]')
	[ "$rows" = "$want" ] && pass "convert --cpus 1 -F 'src_cpu == 0': both apply ($want rows)" ||
		fail convert-cpus-filter "$rows rows, trace-cmd $want"
fi
if [ -f "$PP" ]; then
	"$IPT" report --html "$TMP/r.html" "$PP" > "$TMP/o" 2> "$TMP/e"
	[ -s "$TMP/r.html" ] && grep -qF "$TMP/r.html" "$TMP/e" && [ ! -s "$TMP/o" ] &&
		pass "report --html says where it wrote: $(cat "$TMP/e")" || fail html-wrote "$(cat "$TMP/e")"
	"$IPT" convert "$PP" -o "$TMP/m.csv" && "$IPT" convert "$PP" -o "$TMP/m.jsonl" &&
		"$IPT" convert "$PP" -o "$TMP/m.parquet" && "$IPT" explode "$PP" -o "$TMP/m.dat" 2> /dev/null &&
		"$IPT" convert "$PP" -o "$TMP/mds" --partition-by host
	bad=""
	for f in "$TMP/m.csv" "$TMP/m.jsonl" "$TMP/m.parquet" "$TMP/m.dat" "$TMP/r.html" "$TMP"/mds/*/part-0.parquet; do
		m=$(stat -c %a "$f" 2> /dev/null)
		[ "$m" = 600 ] || bad="$bad $(basename "$f"):$m"
	done
	[ -z "$bad" ] && pass "mode 0600 (umask 022) for csv, jsonl, parquet, a dataset part, trace.dat, html" ||
		fail modes "$bad"
fi

# ---- smaller: counts from 1 up, dump's -c, the library's usage errors ----
T1=$TRACES/recorded/idle.dat
if [ -f "$T1" ]; then
	for a in "dump -n -3" "dump -n 0" "dump -n 3x" "dump -c 1" "report -F cpu==" "convert -o - -F nope==1" \
		 "diff -F nope==1 $T1"; do
		# shellcheck disable=SC2086
		"$IPT" $a "$T1" > /dev/null 2> "$TMP/small.err"
		rc=$?
		cmd=${a%% *}
		if [ $rc = 2 ] && [ "$(wc -l < "$TMP/small.err")" = 1 ] &&
		   grep -q "^ipitrace $cmd: .*(see \`ipitrace $cmd --help\`)\$" "$TMP/small.err"; then
			pass "usage error: '$a': exit 2, $(cat "$TMP/small.err")"
		else
			fail "usage error: '$a'" "exit $rc: $(cat "$TMP/small.err")"
		fi
	done
	"$IPT" dump -c 1 "$T1" 2>&1 | grep -q -- "--on-cpus LIST" && pass "dump -c points to --on-cpus" ||
		fail "dump -c" "$("$IPT" dump -c 1 "$T1" 2>&1)"
	n=$("$IPT" dump --no-header -n 3 "$T1" | wc -l)
	[ "$n" = 3 ] && pass "dump -n 3: 3 lines" || fail "dump -n 3" "$n lines"
fi

# ---- 7: no FILE reads the newest trace here; no file is replaced without --force ----
if [ -f "$T1" ] && [ -f "$PP" ]; then
	W="$TMP/cwd"
	mkdir -p "$W"
	for c in report dump convert count; do
		o=; [ $c = convert ] && o="-o $TMP/none.csv"
		# shellcheck disable=SC2086
		(cd "$W" && "$IPT" $c $o > /dev/null 2> "$TMP/nofile.err"); rc=$?
		[ $rc = 1 ] && [ "$(wc -l < "$TMP/nofile.err")" = 1 ] && grep -q 'ipitrace-\*\.dat' "$TMP/nofile.err" &&
			pass "$c without FILE in an empty directory: exit 1, $(cat "$TMP/nofile.err")" ||
			fail "$c-no-file" "exit $rc: $(cat "$TMP/nofile.err")"
	done
	cp "$T1" "$W/ipitrace.dat"
	cp "$PP" "$W/ipitrace-20261205-101010.dat"
	cp "$T1" "$W/ipitrace-notes.txt"	# not a trace name
	touch -d '2026-01-01 10:00' "$W/ipitrace.dat"
	touch -d '2026-01-02 10:00' "$W/ipitrace-20261205-101010.dat"
	touch -d '2026-01-03 10:00' "$W/ipitrace-notes.txt"
	# the newest by modification time, whatever its name; what it reads is that file's
	pick() {	# pick CMD ARGS: "NAME SAME" (the file it said, whether its output is that file's)
		(cd "$W" && "$IPT" "$@" > "$TMP/pick.out" 2> "$TMP/pick.err")
		name=$(sed -n 's/^ipitrace [a-z]*: reading \([^ ]*\) (the newest ipitrace\*.dat here)$/\1/p' "$TMP/pick.err")
		(cd "$W" && "$IPT" "$@" "$name" > "$TMP/pick.want" 2> /dev/null)
		cmp -s "$TMP/pick.out" "$TMP/pick.want" && echo "$name same" || echo "$name differs"
	}
	got=$(pick count)
	[ "$got" = "ipitrace-20261205-101010.dat same" ] &&
		pass "count without FILE: the newer ipitrace-*.dat, named on stderr" || fail newest-1 "$got"
	touch -d '2026-01-04 10:00' "$W/ipitrace.dat"
	got="$(pick report -f json) / $(pick dump -n 5)"
	[ "$got" = "ipitrace.dat same / ipitrace.dat same" ] &&
		pass "report, dump without FILE: ipitrace.dat once it is the newest" || fail newest-2 "$got"
	(cd "$W" && "$IPT" convert -o "$TMP/nf.csv" 2> /dev/null)
	"$IPT" convert -o "$TMP/nf2.csv" "$W/ipitrace.dat" 2> /dev/null
	cmp -s "$TMP/nf.csv" "$TMP/nf2.csv" && pass "convert without FILE: the same rows as with it" ||
		fail newest-convert "$(wc -l < "$TMP/nf.csv") vs $(wc -l < "$TMP/nf2.csv") lines"
	# every writer: an existing OUT is kept and said (exit 1), --force replaces it
	for w in "convert $T1 -o @.csv" "convert $T1 -o @.parquet" "explode $T1 -o @.dat" \
		 "report --html @.html $T1" "diff --html @.html $T1 $T1"; do
		ext=${w#*@}; ext=${ext%% *}
		f="$TMP/keep$ext"
		echo keep > "$f"
		a=$(echo "$w" | sed "s|@$ext|$f|")
		# shellcheck disable=SC2086
		"$IPT" $a > /dev/null 2> "$TMP/keep.err"; rc=$?
		k=$(cat "$f")
		# shellcheck disable=SC2086
		"$IPT" $a --force > /dev/null 2> /dev/null; rcf=$?
		if [ $rc = 1 ] && [ "$k" = keep ] && grep -q "^ipitrace: $f: the file exists; --force replaces it\$" "$TMP/keep.err" &&
		   [ $rcf = 0 ] && [ "$(head -c 4 "$f")" != keep ] && [ "$(wc -c < "$f")" -gt 100 ]; then
			pass "${w%% *} ${ext}: an existing file is kept (exit 1) and --force replaces it"
		else
			fail "keep-$w" "rc $rc/$rcf: $(head -n 2 "$TMP/keep.err" | tr '\n' ';')"
		fi
		rm -f "$f"
	done
fi
fi	# offline_part

live_part || finish
# ---- 6: live ----
if [ "$(id -u)" != 0 ]; then
	skip live "needs root"
	finish
fi
if ! mount_tracefs; then
	skip live "no tracefs"
	finish
fi
D="$TMP/live"
mkdir -p "$D"
# background IPIs for 20 s, from a copy of the workload under another name
# (other tests select ipi-workload's own sends), killed on any exit
cp "$WL" "$D/bg-ipis"
trap 'kill "$(cat "$D/wl.pid" 2> /dev/null)" 2> /dev/null; rm -rf "$TMP"; [ -n "$TFS" ] && umount "$TFS" 2> /dev/null' EXIT
# the default command: a short -d, every option; the trace is kept
( cd "$D" && "$D/bg-ipis" --rate 2000 pingpong 40000 > /dev/null 2>&1 & echo $! > "$D/wl.pid"
  cd "$D" && t0=$(date +%s.%N) &&
  "$IPT" -d 1.5s -c 1 -s -i 1 --html "$D/d.html" > "$D/d.out" 2> "$D/d.err"; echo $? > "$D/d.rc"
  t1=$(date +%s.%N); echo "$t0 $t1" > "$D/d.time" )
dat=$(ls "$D"/ipitrace-*.dat 2> /dev/null)
if [ "$(cat "$D/d.rc")" = 0 ] && [ "$(echo "$dat" | wc -w)" = 1 ] && [ -s "$D/d.html" ]; then
	pass "default: kept $(basename "$dat"), wrote the HTML"
else
	fail default "rc $(cat "$D/d.rc"), files: $(ls "$D" | tr '\n' ' '): $(tail -n 2 "$D/d.err")"
fi
if [ -n "$dat" ]; then
	grep -qF "$(basename "$dat")" "$D/d.err" && pass "default: says where the trace is" || fail default-where "$(tail -n 1 "$D/d.err")"
	[ "$(stat -c %a "$dat")" = 600 ] && pass "default: the trace is mode 0600" || fail default-mode "$(stat -c %a "$dat")"
	el=$(awk '{ print $2 - $1 }' "$D/d.time")
	awk -v e="$el" 'BEGIN { exit !(e >= 1.5 && e < 6) }' && pass "default: -d 1.5s recorded for 1.5 s (wall $el s)" ||
		fail default-duration "wall time $el s"
	grep -q "wrote the HTML report to $D/d.html" "$D/d.err" && pass "default: --html says where" || fail default-html "$(grep -i html "$D/d.err")"
	if [ $HAVE_TC = 1 ]; then
		tc_report "$dat" 2> /dev/null > "$D/d.tc"
		s1=$(grep -c 'ipi_send_cpu: *cpu=1 ' "$D/d.tc")
		so=$(grep 'ipi_send_cpu:' "$D/d.tc" | grep -vc 'ipi_send_cpu: *cpu=1 ')
		st=$(grep -c 'kernel_stack:' "$D/d.tc")
		[ "$s1" -gt 0 ] && [ "$so" = 0 ] && pass "default: -c 1 reached record ($s1 sends to CPU 1, none elsewhere)" ||
			fail default-cpus "$s1 sends to CPU 1, $so to others"
		[ "$st" -gt 0 ] && pass "default: -s reached record ($st kernel stacks)" || fail default-stacks "no kernel_stack event"
	else
		skip default-tc "trace-cmd is missing"
	fi
fi
# -i went to report (the HTML instead of the text); without --html, the text
"$IPT" -d 0.5 -q -i 1 -o "$D/i.dat" > "$D/i.out" 2> "$D/i.err"
grep -q "IPIs that reached isolated CPUs 1" "$D/i.out" && pass "default: -i reached report" ||
	fail default-isolated "$(head -c 300 "$D/i.out") $(cat "$D/i.err")"
grep -q "events in" "$D/i.err" && fail default-quiet "-q did not reach record: $(cat "$D/i.err")" ||
	pass "default: -q reached record"
# never over an existing file
echo keep > "$D/exists.dat"
"$IPT" -d 0.5 -q -o "$D/exists.dat" > /dev/null 2> "$D/x.err"
rc=$?
[ $rc != 0 ] && [ "$(cat "$D/exists.dat")" = keep ] && grep -q "exists" "$D/x.err" &&
	pass "default: -o of an existing file is refused, the file kept" || fail default-exists "rc $rc: $(cat "$D/x.err")"
# --force on a file, and the recording fails: the old file is kept and not
# reported on as if it were the new trace
echo keep > "$D/forced.dat"
"$IPT" -q --force -c 9999 -o "$D/forced.dat" > "$D/f.out" 2> "$D/f.err"
rc=$?
[ $rc != 0 ] && [ "$(cat "$D/forced.dat")" = keep ] && [ ! -s "$D/f.out" ] &&
	pass "default: --force with a failed recording keeps the file and reports nothing (exit $rc)" ||
	fail default-force-failed "rc $rc: $(head -c 200 "$D/f.out") $(cat "$D/f.err")"
# record too, before it records (no wait for -d); --force replaces the file with a trace
t0=$(date +%s.%N)
"$IPT" record -q -d 5 -o "$D/exists.dat" > /dev/null 2> "$D/x.err"
rc=$?
el=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
[ $rc = 1 ] && [ "$(cat "$D/exists.dat")" = keep ] && awk -v e="$el" 'BEGIN { exit !(e < 2) }' &&
	grep -q "exists; --force replaces it" "$D/x.err" &&
	pass "record: -o of an existing file is refused before recording ($el s), the file kept" ||
	fail record-exists "rc $rc after $el s: $(cat "$D/x.err")"
"$IPT" record -q -d 0.3 --force -o "$D/exists.dat" > /dev/null 2> "$D/x.err"
rc=$?
n=$("$IPT" count "$D/exists.dat" 2> /dev/null | grep -c '^cpu ')
[ $rc = 0 ] && [ "$n" -gt 0 ] && pass "record --force: the existing file replaced by a trace ($n CPUs)" ||
	fail record-force "rc $rc, $n CPUs: $(cat "$D/x.err")"
# two at once in one directory: two names
rm -f "$D"/ipitrace-*.dat
( cd "$D" && "$IPT" -d 1 -q > /dev/null 2>&1 & cd "$D" && "$IPT" -d 1 -q > /dev/null 2>&1; wait )
n=$(ls "$D"/ipitrace-*.dat 2> /dev/null | wc -l)
[ "$n" = 2 ] && pass "default: two runs at once keep two files" || fail default-two "$n files: $(ls "$D")"
# -d units, through record
t0=$(date +%s.%N)
"$IPT" record -q -d 0.04m -o "$D/u.dat" 2> "$D/u.err"
el=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
awk -v e="$el" 'BEGIN { exit !(e >= 2.4 && e < 7) }' && [ -s "$D/u.dat" ] &&
	pass "record -d 0.04m records 2.4 s (wall $el s)" || fail record-minutes "wall $el s: $(cat "$D/u.err")"
# the status line: on a terminal only, not with -q
if command -v script > /dev/null; then
	script -qc "$IPT record -d 3.5 -o $D/s.dat" /dev/null > "$D/s.tty" 2>&1 < /dev/null
	tr '\r' '\n' < "$D/s.tty" | sed -n 's/^\([0-9]*\) s: \([0-9]*\) events, \([0-9]*\) IPI sends, \([0-9]*\) lost, .* captured.*/\1 \2 \3 \4/p' > "$D/s.lines"
	total=$(sed -n 's/.*: \([0-9]*\) events in .*/\1/p' "$D/s.tty" | tr -d '\r')
	if [ $HAVE_TC = 1 ]; then
		tc_ev=$(trace-cmd report "$D/s.dat" 2> /dev/null | grep -cE '\[[0-9]+\] +[0-9.]+: ')
		tc_send=$(trace-cmd report "$D/s.dat" 2> /dev/null | grep -cE ': +ipi_send_cpu(mask)?: ')
	else
		tc_ev=$total; tc_send=999999999
	fi
	ok=$(awk -v tot="$tc_ev" -v sends="$tc_send" '
		{ if ($2 < pe || $3 < ps || $1 < pt || $2 > tot || $3 > sends || $3 > $2) bad = 1; pt = $1; pe = $2; ps = $3; n++ }
		END { print (n >= 2 && !bad) ? "ok" : "bad " n }' "$D/s.lines")
	[ "$ok" = ok ] && pass "status: $(wc -l < "$D/s.lines") lines on a terminal, growing, within trace-cmd's $tc_ev events and $tc_send sends" ||
		fail status-tty "$ok: $(tr '\r' '\n' < "$D/s.tty" | grep ' s: ' | head -n 3 | tr '\n' '|') (trace-cmd $tc_ev events)"
	script -qc "$IPT record -q -d 2.5 -o $D/q.dat" /dev/null > "$D/q.tty" 2>&1 < /dev/null
	grep -q ' s: .* events' "$D/q.tty" && fail status-quiet "a status line with -q" || pass "status: none with -q"
else
	skip status-tty "no script(1)"
fi
"$IPT" record -d 2.5 -o "$D/n.dat" 2> "$D/n.err"
grep -q ' s: .* events' "$D/n.err" && fail status-notty "a status line into a file" || pass "status: none when stderr is not a terminal"
# record --comm: only the named task's sends
if [ $HAVE_TC = 1 ]; then
	"$IPT" record -q --comm 'ipi-work*' -o "$D/c.dat" -- "$WL" pingpong 2000 > /dev/null 2> "$D/c.err"
	trace-cmd report "$D/c.dat" 2> /dev/null | grep -E ': +ipi_send_cpu(mask)?: ' > "$D/c.sends"
	n=$(wc -l < "$D/c.sends")
	other=$(grep -vc '^ *ipi-work' "$D/c.sends")
	[ "$n" -gt 0 ] && [ "$other" = 0 ] && pass "record --comm: $n sends, all by ipi-workload" ||
		fail record-comm "$n sends, $other by other tasks: $(cat "$D/c.err")"
fi
kill "$(cat "$D/wl.pid")" 2> /dev/null
finish
