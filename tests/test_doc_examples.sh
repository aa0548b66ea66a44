#!/bin/sh
# test_doc_examples.sh - every shell and Python example of README.md, of the
# man pages' EXAMPLES (docs/man-examples.txt) and of --help is run, and what
# it prints checked against trace-cmd's text or tests/oracle.py; an example
# without a check, or a check without its example, fails
# (tests/doc_examples.py has the registry and says how each is run).
# run: split
# asan: no - it checks the docs' examples, which the plain build runs
# seconds: 15
. "$(dirname "$0")/lib.sh"
command -v trace-cmd > /dev/null 2>&1 || { skip doc-examples "no trace-cmd"; finish; }
[ -f "$TRACES/recorded/busy-stacks.dat" ] || { skip doc-examples "no recorded traces in $TRACES"; finish; }
if offline_part; then
	mkdir "$TMP/off"
	# the Parquet examples are read with DuckDB (tests/js, as test_parquet.sh)
	duckdb_ready || echo "(no DuckDB: $why; the Parquet examples need pyarrow then)"
	"$PY" "$TOP/tests/doc_examples.py" offline "$TOP" "$B" "$TRACES" "$TMP/off" > "$TMP/off.v" 2>&1
	verdicts "$TMP/off.v"
fi
if live_part; then
	if [ "$(id -u)" != 0 ]; then
		skip doc-examples-live "not root: the recording examples need it"
	elif ! mount_tracefs; then
		skip doc-examples-live "no tracefs"
	else
		mkdir "$TMP/live"
		"$PY" "$TOP/tests/doc_examples.py" live "$TOP" "$B" "$TRACES" "$TMP/live" > "$TMP/live.v" 2>&1
		verdicts "$TMP/live.v"
	fi
fi
finish
