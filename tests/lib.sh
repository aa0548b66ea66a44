# lib.sh - helpers for test scripts: sourced, not run.
#   . "$(dirname "$0")/lib.sh"   then   pass NAME / fail NAME WHY / skip NAME WHY
#   and `finish` at the end (prints RESULT and exits).
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-build}
IPT="$TOP/$B/ipitrace"
TRACES="$TOP/../shared/traces"
[ -d "$TRACES" ] || TRACES=${IPITRACE_TRACES:-/work/shared/traces}
T_PASS=0
T_FAIL=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass() { T_PASS=$((T_PASS + 1)); echo "PASS $1"; }
fail() { T_FAIL=$((T_FAIL + 1)); echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }
check() {	# check NAME COND-COMMAND... : pass if the command succeeds
	n=$1; shift
	if "$@"; then pass "$n"; else fail "$n" "command failed: $*"; fi
}
finish() { echo "RESULT $T_PASS $T_FAIL"; exit 0; }
# squeeze: collapse runs of blanks (trace-cmd pads columns)
squeeze() { tr -s ' \t' '  '; }
# Debian's python3 (with python3-pandas), not another one earlier on PATH
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
