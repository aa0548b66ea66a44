#!/bin/sh
# test_parquet.sh - `ipitrace convert` to Parquet, checked by independent
# readers: DuckDB (npm @duckdb/node-api) and the Rust parquet crate (npm
# parquet-wasm), installed at test time into build/js-cache (never
# committed), and, when /usr/bin/python3 has it, pyarrow.
#
# For every real trace in ../shared/traces/recorded and a few synthetic ones
# (x86, arm64 with reason strings, 300 CPUs with wide masks): the Parquet
# file must have the CSV's row count, the expected column types and the
# CSV's values in every row, exploded and --no-explode (whose targets lists
# unnested must equal the exploded rows), zstd and uncompressed, in one row
# group or many; its statistics must agree with the data.  A directory
# written with --partition-by from several traces must read as one
# hive-partitioned table whose partitions hold exactly their traces' rows.
# Without DuckDB these checks are SKIPped (never passed); the checks of the
# files themselves (magic, atomic creation, options, memory) still run.
# The ASan pass writes the four variants and the two CSVs of one trace of
# each kind (lib.sh `inputs`) and checks that they are byte for byte what
# the plain build writes (whose files the readers check, every trace, in
# the plain pass); the readers then read its other files (row groups, an
# empty file, a filter, the dataset).
#
#   sh tests/test_parquet.sh [BUILD_DIR]      (default build)
#
# One line per check: "PASS name", "FAIL name: why", "SKIP name: why";
# the last line is "RESULT <passed> <failed>".
# seconds: 60
. "$(dirname "$0")/lib.sh"

GEN="$TOP/$B/tools/gen-synth"
PLAIN="$TOP/build/ipitrace"	# the plain build (the ASan pass compares with it)
SPEC="$TMP/spec.txt"
: > "$SPEC"

if [ ! -x "$IPT" ]; then
	fail build "$IPT is missing (run make)"
	finish
fi

# ---- traces ----
mkdir -p "$TMP/tr" "$TMP/out"
# (the ASan pass: one recorded trace of each kind, lib.sh `inputs`, and the
# synthetic ones; the plain pass every recorded trace)
TR=$(inputs "$TRACES"/recorded/*.dat)
if [ -x "$GEN" ]; then
	"$GEN" -o "$TMP/tr/synth-x86.dat" -e 20000 -s 3 -n 8 &&
	"$GEN" -o "$TMP/tr/synth-arm64.dat" -a arm64 -e 20000 -s 4 -n 8 &&
	"$GEN" -o "$TMP/tr/synth-wide.dat" -n 300 -e 20000 -s 5 -c zstd ||
		fail gen-synth "could not write synthetic traces"
	for f in "$TMP"/tr/*.dat; do
		[ -f "$f" ] && TR="$TR $f"
	done
else
	skip gen-synth "$GEN is missing: synthetic traces not checked"
fi
[ -n "$TR" ] || { fail traces "no trace found in $TRACES/recorded and no gen-synth"; finish; }

magic_ok() {	# the file starts and ends with PAR1
	[ "$(head -c 4 "$1")" = PAR1 ] && [ "$(tail -c 4 "$1")" = PAR1 ]
}

# ---- conversions: CSV (the reference) and four Parquet variants ----
for t in $TR; do
	n=$(basename "$t" .dat)
	o="$TMP/out/$n"
	ok=1
	"$IPT" convert "$t" -o "$o.csv" 2> "$TMP/err" &&
	"$IPT" convert "$t" --no-explode -o "$o.ne.csv" 2>> "$TMP/err" &&
	"$IPT" convert "$t" -o "$o.parquet" 2>> "$TMP/err" &&
	"$IPT" convert "$t" --compression none -o "$o.none.parquet" 2>> "$TMP/err" &&
	"$IPT" convert "$t" --no-explode -o "$o.ne.parquet" 2>> "$TMP/err" &&
	"$IPT" convert "$t" --no-explode --compression none -o "$o.ne.none.parquet" 2>> "$TMP/err" ||
		ok=0
	if [ $ok = 0 ]; then
		fail "convert-$n" "$(head -n 1 "$TMP/err")"
		continue
	fi
	bad=""
	for p in "$o.parquet" "$o.none.parquet" "$o.ne.parquet" "$o.ne.none.parquet"; do
		magic_ok "$p" || bad="$bad $(basename "$p")"
	done
	if [ -n "$bad" ]; then
		fail "convert-$n" "no PAR1 magic at both ends of:$bad"
		continue
	fi
	pass "convert-$n"
	if [ "$ASAN" = 1 ] && [ -x "$PLAIN" ]; then
		# the ASan build's files are the plain build's, byte for byte: the
		# readers check those in the plain pass
		bad=""
		for v in csv ne.csv parquet none.parquet ne.parquet ne.none.parquet; do
			case $v in
			csv) set -- ;; ne.csv) set -- --no-explode ;; parquet) set -- ;;
			none.parquet) set -- --compression none ;; ne.parquet) set -- --no-explode ;;
			ne.none.parquet) set -- --no-explode --compression none ;;
			esac
			"$PLAIN" convert "$t" "$@" -o "$o.plain.$v" 2> /dev/null
			cmp -s "$o.$v" "$o.plain.$v" || bad="$bad $v"
			rm -f "$o.plain.$v"
		done
		[ -z "$bad" ] && pass "asan-same-bytes-$n: the 6 files as the plain build writes them" ||
			fail "asan-same-bytes-$n" "differ from the plain build's:$bad"
		continue
	fi
	printf '%s\texplode\t%s\t%s\tTIMESTAMP_NS\n' "duckdb-zstd-$n" "$o.parquet" "$o.csv" >> "$SPEC"
	printf '%s\texplode\t%s\t%s\tTIMESTAMP_NS\n' "duckdb-none-$n" "$o.none.parquet" "$o.csv" >> "$SPEC"
	printf '%s\tnoexplode\t%s\t%s\t%s\tTIMESTAMP_NS\n' "duckdb-noexplode-zstd-$n" "$o.ne.parquet" "$o.ne.csv" "$o.csv" >> "$SPEC"
	printf '%s\tnoexplode\t%s\t%s\t%s\tTIMESTAMP_NS\n' "duckdb-noexplode-none-$n" "$o.ne.none.parquet" "$o.ne.csv" "$o.csv" >> "$SPEC"
	printf '%s\tmeta\t%s\tZSTD\t1\n' "duckdb-meta-zstd-$n" "$o.parquet" >> "$SPEC"
	printf '%s\tarrowrs\t%s\t%s\texplode\n' "arrowrs-zstd-$n" "$o.parquet" "$o.csv" >> "$SPEC"
	printf '%s\tarrowrs\t%s\t%s\texplode\n' "arrowrs-none-$n" "$o.none.parquet" "$o.csv" >> "$SPEC"
	printf '%s\tarrowrs\t%s\t%s\tnoexplode\n' "arrowrs-noexplode-$n" "$o.ne.parquet" "$o.ne.csv" >> "$SPEC"
	printf '%s\tmeta\t%s\tUNCOMPRESSED\t1\n' "duckdb-meta-none-$n" "$o.none.parquet" >> "$SPEC"
done

# many row groups and pages (dictionaries restart in every row group)
if [ -f "$TMP/tr/synth-x86.dat" ]; then
	o="$TMP/out/small-groups"
	if IPITRACE_PARQUET_ROW_GROUP_ROWS=1000 IPITRACE_PARQUET_PAGE_ROWS=100 \
		"$IPT" convert "$TMP/tr/synth-x86.dat" -o "$o.parquet" 2> "$TMP/err" &&
	   IPITRACE_PARQUET_ROW_GROUP_ROWS=500 IPITRACE_PARQUET_PAGE_ROWS=37 \
		"$IPT" convert "$TMP/tr/synth-wide.dat" --no-explode -o "$o.ne.parquet" 2>> "$TMP/err"; then
		pass convert-small-groups
		printf '%s\texplode\t%s\t%s\tTIMESTAMP_NS\n' duckdb-small-groups "$o.parquet" "$TMP/out/synth-x86.csv" >> "$SPEC"
		printf '%s\tmeta\t%s\tZSTD\t5\n' duckdb-meta-small-groups "$o.parquet" >> "$SPEC"
		printf '%s\tnoexplode\t%s\t%s\t%s\tTIMESTAMP_NS\n' duckdb-small-groups-noexplode "$o.ne.parquet" \
			"$TMP/out/synth-wide.ne.csv" "$TMP/out/synth-wide.csv" >> "$SPEC"
		printf '%s\tmeta\t%s\tZSTD\t5\n' duckdb-meta-small-groups-noexplode "$o.ne.parquet" >> "$SPEC"
		printf '%s\tarrowrs\t%s\t%s\texplode\n' arrowrs-small-groups "$o.parquet" "$TMP/out/synth-x86.csv" >> "$SPEC"
		printf '%s\tarrowrs\t%s\t%s\tnoexplode\n' arrowrs-small-groups-noexplode "$o.ne.parquet" \
			"$TMP/out/synth-wide.ne.csv" >> "$SPEC"
	else
		fail convert-small-groups "$(head -n 1 "$TMP/err")"
	fi
fi

# a filter that keeps nothing: a valid file with the schema and no rows
t1=$(echo $TR | cut -d' ' -f1)
if "$IPT" convert "$t1" -F 'target_cpu == 8191' -o "$TMP/out/empty.parquet" 2> "$TMP/err" &&
   "$IPT" convert "$t1" -F 'target_cpu == 8191' -o "$TMP/out/empty.csv" 2>> "$TMP/err" &&
   magic_ok "$TMP/out/empty.parquet"; then
	pass convert-empty
	printf '%s\texplode\t%s\t%s\tTIMESTAMP_NS\n' duckdb-empty "$TMP/out/empty.parquet" "$TMP/out/empty.csv" >> "$SPEC"
	printf '%s\tarrowrs\t%s\t%s\texplode\n' arrowrs-empty "$TMP/out/empty.parquet" "$TMP/out/empty.csv" >> "$SPEC"
else
	fail convert-empty "$(head -n 1 "$TMP/err")"
fi

# a filter that keeps some rows
if "$IPT" convert "$t1" -F 'kind == "resched" || target_cpu == 1' -o "$TMP/out/filtered.parquet" 2> "$TMP/err" &&
   "$IPT" convert "$t1" -F 'kind == "resched" || target_cpu == 1' -o "$TMP/out/filtered.csv" 2>> "$TMP/err"; then
	pass convert-filtered
	printf '%s\texplode\t%s\t%s\tTIMESTAMP_NS\n' duckdb-filtered "$TMP/out/filtered.parquet" "$TMP/out/filtered.csv" >> "$SPEC"
else
	fail convert-filtered "$(head -n 1 "$TMP/err")"
fi

# --format parquet, standard output: the same bytes as the file
if "$IPT" convert "$t1" --format parquet -o - > "$TMP/out/stdout.parquet" 2> "$TMP/err" &&
   "$IPT" convert "$t1" --format parquet -o "$TMP/out/fmt.pq" 2>> "$TMP/err" &&
   cmp -s "$TMP/out/stdout.parquet" "$TMP/out/fmt.pq" &&
   cmp -s "$TMP/out/fmt.pq" "$TMP/out/$(basename "$t1" .dat).parquet"; then
	pass format-option-and-stdout
else
	fail format-option-and-stdout "stdout / --format parquet output differs from OUT.parquet"
fi

# no temporary files are left behind, and none appear on failure
if ls -a "$TMP/out" | grep -q 'tmp'; then
	fail no-temp-files "$(ls -a "$TMP/out" | grep tmp | head -n 3)"
else
	pass no-temp-files
fi
if "$IPT" convert "$TMP/missing.dat" -o "$TMP/out/missing.parquet" 2> /dev/null ||
   [ -e "$TMP/out/missing.parquet" ]; then
	fail bad-input "a missing trace gave a file or exit 0"
else
	pass bad-input
fi

# usage errors: exit 2
usage_ok=1
for args in "--compression lz4 -o $TMP/x.parquet" "--compression zstd -o $TMP/x.csv" \
	    "--partition-by host,colour -o $TMP/ds" "--partition-by host,host -o $TMP/ds" \
	    "--partition-by host -o -" "--format csv --partition-by host -o $TMP/ds"; do
	# shellcheck disable=SC2086
	"$IPT" convert "$t1" $args > /dev/null 2>&1
	rc=$?
	if [ $rc -ne 2 ]; then
		usage_ok=0
		fail usage-errors "convert $args: exit $rc, expected 2"
	fi
done
[ $usage_ok = 1 ] && pass usage-errors
if "$IPT" convert --help | grep -q -- '--partition-by' && "$IPT" convert --help | grep -q parquet; then
	pass help-text
else
	fail help-text "convert --help does not describe parquet / --partition-by"
fi

# ---- partitioned dataset: every trace into one directory ----
# A trace already in the dataset is refused (its rows would count twice):
# which traces are the same one (pingpong.dat, .v6.dat, .v7-none.dat) is
# told by trace-cmd's first event lines, not by ipitrace.
DS="$TMP/ds"
dsargs=""
ds_ok=1
seen=""
ntr=0
for t in $TR; do
	n=$(basename "$t" .dat)
	key=$(trace-cmd report "$t" 2> /dev/null | sed -n 2,3p | md5sum | cut -c1-16)
	case " $seen " in
	*" $key "*)
		if "$IPT" convert "$t" -o "$DS/" --partition-by host,date 2> "$TMP/err"; then
			ds_ok=0
			fail "partition-$n" "a trace already in the dataset was added again"
		elif grep -q "in the dataset already" "$TMP/err"; then
			pass "partition-$n refused: the same trace is in the dataset"
		else
			ds_ok=0
			fail "partition-$n" "refused, but not as a duplicate: $(head -n 1 "$TMP/err")"
		fi
		continue ;;
	esac
	seen="$seen $key"
	ntr=$((ntr + 1))
	if ! "$IPT" convert "$t" -o "$DS/" --partition-by host,date 2> "$TMP/err"; then
		ds_ok=0
		fail "partition-$n" "$(head -n 1 "$TMP/err")"
		continue
	fi
	host=$("$IPT" report --format json "$t" 2> /dev/null | sed -n 's/.*"kernel":"[^ "]* \([^ "]*\).*/\1/p')
	[ -n "$host" ] || host=unknown
	day=$(date -u -r "$t" +%Y-%m-%d)
	dsargs="$dsargs $TMP/out/$n.csv=$host|$day"
	[ -d "$DS/host=$host/date=$day" ] || { ds_ok=0; fail "partition-$n" "no directory $DS/host=$host/date=$day"; }
done
nfiles=$(find "$DS" -name 'part-*.parquet' | wc -l)
if [ $ds_ok = 1 ] && [ "$nfiles" -eq "$ntr" ] && ! find "$DS" -name '*tmp*' | grep -q .; then
	pass partition-layout
else
	fail partition-layout "$nfiles part files for $ntr traces (or temporary files left): $(find "$DS" | head -n 5 | tr '\n' ' ')"
fi
# shellcheck disable=SC2086
printf '%s\tdataset\t%s\thost,date%s\n' duckdb-dataset-host-date "$DS" \
	"$(for a in $dsargs; do printf '\t%s' "$a"; done)" >> "$SPEC"

# a second trace of the same host into the same partition adds part-<n+1>;
# the same trace again is refused, and accepted once its part file is gone
DS2="$TMP/ds2"
t2=$(echo $TR | cut -d' ' -f2)
if "$IPT" convert "$t1" -o "$DS2" --partition-by host 2> "$TMP/err" &&
   ! "$IPT" convert "$t1" -o "$DS2" --partition-by host 2>> "$TMP/err" &&
   "$IPT" convert "$t2" -o "$DS2" --partition-by host 2>> "$TMP/err" &&
   [ "$(find "$DS2" -name 'part-*.parquet' | sort | sed 's|.*/||' | tr '\n' ' ')" = "part-0.parquet part-1.parquet " ]; then
	pass partition-no-clobber
	h=$(find "$DS2" -mindepth 1 -maxdepth 1 -type d | sed 's|.*/host=||')
	printf '%s\tdataset\t%s\thost\t%s\t%s\n' duckdb-dataset-host "$DS2" \
		"$TMP/out/$(basename "$t1" .dat).csv=$h" "$TMP/out/$(basename "$t2" .dat).csv=$h" >> "$SPEC"
else
	fail partition-no-clobber "$(find "$DS2" | tr '\n' ' ') $(head -n 1 "$TMP/err")"
fi
DS3="$TMP/ds3"
if "$IPT" convert "$t1" -o "$DS3" --partition-by host 2> "$TMP/err" &&
   rm "$DS3"/host=*/part-0.parquet &&
   "$IPT" convert "$t1" -o "$DS3" --partition-by host 2>> "$TMP/err" &&
   [ "$(find "$DS3" -name 'part-*.parquet' | wc -l)" = 1 ]; then
	pass "partition-again: converted again once its part file was removed"
else
	fail partition-again "$(find "$DS3" | tr '\n' ' ') $(head -n 1 "$TMP/err")"
fi

# ---- memory stays flat: 4x the rows, same peak (small row groups) ----
# (the writer's memory, so --no-match: the matching keeps 32 bytes per row;
# --threads 2 in both: the 2M trace is past the size where the threads'
# rings, a fixed 8 MiB, would otherwise start)
case "$B" in
*asan*) skip memory-flat "not measured under AddressSanitizer" ;;
*)
	if [ -x "$GEN" ] && [ -x /usr/bin/time ]; then
		"$GEN" -o "$TMP/m1.dat" -e 500000 -s 9 && "$GEN" -o "$TMP/m4.dat" -e 2000000 -s 9
		k1=$(IPITRACE_PARQUET_ROW_GROUP_ROWS=16384 /usr/bin/time -f %M "$IPT" convert --threads 2 --no-match "$TMP/m1.dat" -o "$TMP/m1.parquet" 2>&1 | tail -n 1)
		k4=$(IPITRACE_PARQUET_ROW_GROUP_ROWS=16384 /usr/bin/time -f %M "$IPT" convert --threads 2 --no-match "$TMP/m4.dat" -o "$TMP/m4.parquet" 2>&1 | tail -n 1)
		if [ -n "$k1" ] && [ -n "$k4" ] && [ "$k4" -le $((k1 + 8192)) ]; then
			pass "memory-flat (peak ${k1} KB for 500k events, ${k4} KB for 2M)"
		else
			fail memory-flat "peak ${k1} KB for 500k events but ${k4} KB for 2M"
		fi
		rm -f "$TMP"/m1.* "$TMP"/m4.*
	else
		skip memory-flat "needs gen-synth and /usr/bin/time"
	fi ;;
esac

# ---- the readers: DuckDB, arrow-rs ----
if duckdb_ready; then
	node "$JS/check_parquet.mjs" "$SPEC" > "$TMP/duck.out" 2>&1
	while IFS= read -r line; do
		case "$line" in
		"PASS "*) pass "${line#PASS }" ;;
		"FAIL "*) n=${line#FAIL }; fail "${n%%:*}" "${n#*: }" ;;
		"SKIP "*) n=${line#SKIP }; skip "${n%%:*}" "${n#*: }" ;;
		esac
	done < "$TMP/duck.out"
	nchecks=$(wc -l < "$SPEC")
	nres=$(grep -c '^\(PASS\|FAIL\|SKIP\) ' "$TMP/duck.out")
	[ "$nres" -eq "$nchecks" ] || fail readers-run "$nres results for $nchecks checks: $(grep -v '^\(PASS\|FAIL\|SKIP\) ' "$TMP/duck.out" | head -n 3 | tr '\n' ' ')"
else
	skip readers "$why"
fi

# ---- pyarrow (optional) ----
if "$PY" -c 'import pyarrow.parquet' > /dev/null 2>&1; then
	for t in $TR; do
		n=$(basename "$t" .dat)
		[ -f "$TMP/out/$n.parquet" ] || continue
		if msg=$("$PY" - "$TMP/out/$n.parquet" "$TMP/out/$n.csv" 2>&1 <<'EOF'
import csv, sys
import pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
rows = list(csv.reader(open(sys.argv[2], newline='')))
head, rows = rows[0], rows[1:]
assert t.column_names == head, (t.column_names, head)
assert t.num_rows == len(rows), (t.num_rows, len(rows))
cols = {c: t.column(c).to_pylist() for c in head}
# the two timestamps (TIMESTAMP(NANOS)) as their ns
for c in ('ts_ns', 'handler_ts_ns'):
    cols[c] = t.column(c).cast('int64').to_pylist()
for i, r in enumerate(rows):
    for j, c in enumerate(head):
        v = cols[c][i]
        v = '' if v is None else str(v)
        assert v == r[j], (i, c, v, r[j])
EOF
		); then
			pass "pyarrow-$n"
		else
			fail "pyarrow-$n" "$(echo "$msg" | tail -n 1)"
		fi
	done
else
	skip pyarrow "$PY has no pyarrow (Debian 12 does not package it)"
fi

finish
