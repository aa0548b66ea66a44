# lib.sh - helpers for test scripts: sourced, not run.
#   . "$(dirname "$0")/lib.sh"   then   pass NAME / fail NAME WHY / skip NAME WHY
#   and `finish` at the end (prints RESULT and exits).
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-build}
IPT="$TOP/$B/ipitrace"
# ASAN=1 in the ASan+UBSan pass (a build directory whose name has "asan"):
# there a script reads one input of each kind (see `inputs`), not the
# whole set again, and compares fewer thread counts (see `threads_agree`);
# the plain pass runs everything.  A script says in its head what its
# ASan pass leaves to the plain one.
case $B in *asan*) ASAN=1 ;; *) ASAN=0 ;; esac
# A script whose head says "# run: split" puts its sections that drive the
# live kernel under `if live_part; then` and the others under `if
# offline_part; then`: tests/run.sh runs it twice (IPT_PART=live in the live
# lane, one script at a time; IPT_PART=offline beside them); run by hand
# (IPT_PART unset) it does both.  A live script whose head says "# alone:
# part" puts the sections that must run with nothing beside them under `if
# alone_part; then` (IPT_PART=alone, after every other job) and its other
# live sections under `if live_part; then`.
PART=${IPT_PART:-all}
live_part() { [ "$PART" = all ] || [ "$PART" = live ]; }
offline_part() { [ "$PART" = all ] || [ "$PART" = offline ]; }
alone_part() { [ "$PART" = all ] || [ "$PART" = alone ]; }
TRACES="$TOP/../shared/traces"
[ -d "$TRACES" ] || TRACES=${IPITRACE_TRACES:-/work/shared/traces}
T_PASS=0
T_FAIL=0
TMP=$(mktemp -d)
# the kallsyms indexes the CLI keeps (IPITRACE_CACHE_DIR, ipitrace(1)): this
# test's own, so that no test reads another's or the user's, and a trace a
# test opens twice is read from its text once, then from its index
IPITRACE_CACHE_DIR=$TMP/symcache
export IPITRACE_CACHE_DIR
TFS=""		# tracefs mounted by this test (mount_tracefs), unmounted at the end
trap 'rm -rf "$TMP"; [ -n "$TFS" ] && umount "$TFS" 2>/dev/null' EXIT
# mount_tracefs: tracefs at /sys/kernel/tracing, mounted now if it is not
# (as on a fresh machine; unmounted again at the end); false if it cannot be
mount_tracefs() {
	if [ ! -d /sys/kernel/tracing/instances ] && [ "$(id -u)" = 0 ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null && TFS=/sys/kernel/tracing
	fi
	[ -d /sys/kernel/tracing/instances ]
}
# apt_install PKG: install a Debian package now (root with apt-get only;
# apt-get update once if the first try fails); false if it cannot
apt_install() {
	[ "$(id -u)" = 0 ] && command -v apt-get > /dev/null 2>&1 || return 1
	echo "installing $1 (apt-get install -y $1)" >&2
	DEBIAN_FRONTEND=noninteractive timeout 1200 apt-get install -y -q "$1" > "$TMP/apt.log" 2>&1 ||
		{ DEBIAN_FRONTEND=noninteractive timeout 300 apt-get update -q > /dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive timeout 1200 apt-get install -y -q "$1" > "$TMP/apt.log" 2>&1; }
}
# find_chromium: CHROME set to Debian's headless-capable Chromium, installed
# now with apt-get if it is missing and this is root (as on a fresh machine:
# make deps does not install it, only the tests that run it); false if not
find_chromium() {
	for c in chromium chromium-browser; do
		command -v "$c" > /dev/null 2>&1 && { CHROME=$(command -v "$c"); return 0; }
	done
	apt_install chromium || return 1
	CHROME=$(command -v chromium || command -v chromium-browser)
}
pass() { T_PASS=$((T_PASS + 1)); echo "PASS $1"; }
fail() { T_FAIL=$((T_FAIL + 1)); echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }
# verdict_lines NAME FILE: each "PASS what: ..." / "FAIL what: why" line of
# FILE (a checker's output) as a pass or fail of "NAME what"; false, with
# nothing counted, when FILE has none (the checker itself failed)
verdict_lines() {
	grep -q '^PASS\|^FAIL' "$2" || return 1
	while IFS= read -r vl_l; do
		case $vl_l in
		"PASS "*) pass "$1 ${vl_l#PASS }" ;;
		"FAIL "*) vl_l=${vl_l#FAIL }; fail "$1 ${vl_l%%: *}" "${vl_l#*: }" ;;
		esac
	done < "$2"
}
check() {	# check NAME COND-COMMAND... : pass if the command succeeds
	n=$1; shift
	if "$@"; then pass "$n"; else fail "$n" "command failed: $*"; fi
}
finish() { echo "RESULT $T_PASS $T_FAIL"; exit 0; }
# verdicts FILE: a checker's lines into the tallies: "P name: figures"
# passes, "F name: why" fails, "S name: why" skips; others are echoed
verdicts() {
	while IFS= read -r _v_l; do
		case $_v_l in
		"P "*) pass "${_v_l#P }" ;;
		"F "*) _v_l=${_v_l#F }; fail "${_v_l%%: *}" "${_v_l#*: }" ;;
		"S "*) _v_l=${_v_l#S }; skip "${_v_l%%: *}" "${_v_l#*: }" ;;
		*) echo "$_v_l" ;;
		esac
	done < "$1"
}
# tc_report [OPTION...] FILE: `trace-cmd report OPTION... FILE` on standard
# output, its exit status; for a FILE of the shared traces or tests/data
# (never one a test makes) the text is kept in build/tc-cache under the
# options and the identities of FILE and of trace-cmd (device, inode, size,
# change time), so the other pass of make check and later runs read it back
# instead of running the oracle again on the same bytes (trace-cmd's text of
# unchanged input with an unchanged trace-cmd is unchanged); a failing run
# is never kept
tc_report() {
	for _tc_f; do :; done
	case $_tc_f in "$TRACES"/*|"$TOP"/tests/data/*) ;; *) trace-cmd report "$@"; return ;; esac
	_tc_id=$(stat -L -c '%d:%i:%s:%Z' "$_tc_f" "$(command -v trace-cmd)" 2> /dev/null | tr '\n' ' ')
	[ -n "$_tc_id" ] || { trace-cmd report "$@"; return; }
	_tc_d="$TOP/build/tc-cache"
	_tc_k="$_tc_d/$(printf '%s\n' "$_tc_id" "$@" | md5sum | cut -c1-32)"
	if [ ! -f "$_tc_k" ]; then
		mkdir -p "$_tc_d" || { trace-cmd report "$@"; return; }
		trace-cmd report "$@" > "$_tc_k.$$"
		_tc_rc=$?
		if [ $_tc_rc != 0 ]; then
			cat "$_tc_k.$$"
			rm -f "$_tc_k.$$"
			return $_tc_rc
		fi
		mv "$_tc_k.$$" "$_tc_k"
	fi
	cat "$_tc_k"
}
# squeeze: collapse runs of blanks (trace-cmd pads columns)
squeeze() { tr -s ' \t' '  '; }
# Debian's python3 (with python3-pandas), not another one earlier on PATH
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
# inputs FILE...: the FILEs that exist, one a line; under ASan (ASAN=1) only
# the first of each kind: the v7 zstd recordings of recorded/ (busy-stacks.dat,
# the first, has stacks and a busy machine), their `trace-cmd report` texts
# (*.report.txt), the v6 and the v7 uncompressed one; any other file is a
# kind of its own (tracefs text, arm64 LISA, a synthetic trace, ...)
inputs() {
	_in_seen=" "
	for _in_f in "$@"; do
		[ -f "$_in_f" ] || continue
		if [ "$ASAN" = 1 ]; then
			case $_in_f in
			*/recorded/*.v6.dat) _in_k=v6 ;;
			*/recorded/*.v7-none.dat) _in_k=v7-none ;;
			*/recorded/*.dat) _in_k=v7-zstd ;;
			*/recorded/*.report.txt) _in_k=report-text ;;
			*) _in_k=$_in_f ;;
			esac
			case $_in_seen in *" $_in_k "*) continue ;; esac
			_in_seen="$_in_seen$_in_k "
		fi
		printf '%s\n' "$_in_f"
	done
}
# threads_agree TAG ARGS...: `ipitrace ARGS -j N` prints the same for N = 1, 2,
# 3 and 8 (output and errors); else "TAG:-jN" is added to $bad ("TAG:failed"
# if the one-thread run fails).  Under ASan N = 1, 3 and 8 (an odd split, and
# more lanes than the traces have CPUs); make check's plain pass compares
# all four.
# FAST=1 (make check-fast, the inner loop) lightens the same loops, not the
# assertions: -j 1 against 3 and 8 there too; make check's plain pass does
# all four.
AGREE_THREADS="2 3 8"
[ "$ASAN" = 1 ] || [ "${FAST:-0}" = 1 ] && AGREE_THREADS="3 8"
threads_agree() {
	tag=$1; shift
	"$IPT" "$@" -j 1 > "$TMP/agree1" 2>&1 || { bad="$bad $tag:failed"; return; }
	for t in $AGREE_THREADS; do
		"$IPT" "$@" -j $t > "$TMP/agreen" 2>&1
		cmp -s "$TMP/agree1" "$TMP/agreen" || bad="$bad $tag:-j$t"
	done
}

# duckdb_ready: DuckDB's node package (and the other readers of
# tests/js/package.json) installed in $JS, build/js-cache, once, whichever
# script asks first (a lock keeps two npm installs apart); false with $why
# set when it cannot be (no node or npm, no registry)
JS="$TOP/build/js-cache"
duckdb_ready() {
	if ! command -v node > /dev/null 2>&1 || ! command -v npm > /dev/null 2>&1; then
		why="node or npm is not installed (apt-get install nodejs npm)"
		return 1
	fi
	mkdir -p "$JS" || { why="cannot create $JS"; return 1; }
	(
		flock 9
		if ! cmp -s "$TOP/tests/js/package.json" "$JS/package.json" ||
		   [ ! -f "$JS/node_modules/@duckdb/node-api/package.json" ]; then
			cp "$TOP/tests/js/package.json" "$JS/package.json"
			if ! (cd "$JS" && timeout 900 npm install --no-audit --no-fund --loglevel=error) \
				> "$TMP/npm.log" 2>&1; then
				rm -f "$JS/package.json"
				exit 1
			fi
		fi
		cp "$TOP/tests/js/check_parquet.mjs" "$JS/"
	) 9> "$JS.lock" || {
		why="npm install of the readers failed (registry unreachable?): $(tail -n 1 "$TMP/npm.log" 2>/dev/null)"
		return 1
	}
	return 0
}
