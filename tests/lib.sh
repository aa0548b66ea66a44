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
# find_chromium: CHROME set to Debian's headless-capable Chromium, installed
# now with apt-get if it is missing and this is root (as on a fresh machine:
# make deps does not install it, only the tests that run it); false if not
find_chromium() {
	for c in chromium chromium-browser; do
		command -v "$c" > /dev/null 2>&1 && { CHROME=$(command -v "$c"); return 0; }
	done
	[ "$(id -u)" = 0 ] && command -v apt-get > /dev/null 2>&1 || return 1
	echo "installing chromium (apt-get install -y chromium)" >&2
	DEBIAN_FRONTEND=noninteractive timeout 1200 apt-get install -y -q chromium > "$TMP/apt.log" 2>&1 ||
		{ DEBIAN_FRONTEND=noninteractive timeout 300 apt-get update -q > /dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive timeout 1200 apt-get install -y -q chromium > "$TMP/apt.log" 2>&1; } ||
		return 1
	CHROME=$(command -v chromium || command -v chromium-browser)
}
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
# threads_agree TAG ARGS...: `ipitrace ARGS -j N` prints the same for N = 1, 2,
# 3, 4 and 8 (output and errors); else "TAG:-jN" is added to $bad ("TAG:failed"
# if the one-thread run fails)
threads_agree() {
	tag=$1; shift
	"$IPT" "$@" -j 1 > "$TMP/agree1" 2>&1 || { bad="$bad $tag:failed"; return; }
	for t in 2 3 4 8; do
		"$IPT" "$@" -j $t > "$TMP/agreen" 2>&1
		cmp -s "$TMP/agree1" "$TMP/agreen" || bad="$bad $tag:-j$t"
	done
}
