# live.sh - sourced by the tests that drive the live kernel (test_record.sh,
# test_faults.sh) after lib.sh: root, tracefs (mounted here if it is not, and
# unmounted at the end), the ipi events, 2 CPUs and the built binaries, or
# SKIP lines (named $LIVE_NAME) and an early finish; cleanup on exit; helpers
# to run recorders.
case $B in /*) BD=$B ;; *) BD=$TOP/$B ;; esac
IPT=$BD/ipitrace
WL=$BD/tools/ipi-workload
T=/sys/kernel/tracing
PIDS=""
MNT=""
CNT=""

cleanup() {
	for p in $PIDS; do kill -KILL "$p" 2>/dev/null; done
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	[ -n "$CNT" ] && [ -d "$CNT" ] && rmdir "$CNT" 2>/dev/null
	[ -n "$TFS" ] && umount "$TFS" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- preconditions ----
if [ "$(id -u)" != 0 ]; then
	skip "$LIVE_NAME" "needs root"
	finish
fi
if ! mount_tracefs; then
	skip "$LIVE_NAME" "no tracefs at $T (and it cannot be mounted)"
	finish
fi
if [ ! -d $T/events/ipi ]; then
	skip "$LIVE_NAME" "this kernel has no ipi events"
	finish
fi
if [ ! -x "$IPT" ] || [ ! -x "$WL" ]; then
	fail "$LIVE_NAME" "missing $IPT or $WL (build first)"
	finish
fi
if [ "$(nproc)" -lt 2 ]; then
	skip "$LIVE_NAME" "needs 2 CPUs"
	finish
fi
HAVE_TC=1
command -v trace-cmd >/dev/null 2>&1 || HAVE_TC=0
HAVE_DUMP=1
"$IPT" dump --help >/dev/null 2>&1 || HAVE_DUMP=0

# bg_record LOG ARGS...: start a recorder in the background; sets RPID
bg_record() {
	log=$1; shift
	"$IPT" record "$@" 2> "$log" &
	RPID=$!
	PIDS="$PIDS $RPID"
}
# wait_recording LOG: until the recorder says it records (10 s at most)
wait_recording() {
	i=0
	while [ $i -lt 100 ]; do
		grep -q "recording on" "$1" 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# stop PID [SIG]: signal a background recorder and wait (30 s at most); sets RC
stop() {
	kill -${2:-INT} "$1" 2>/dev/null
	i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -0 "$1" 2>/dev/null && kill -KILL "$1"
	wait "$1"
	RC=$?
}
# no_instance PID: the recorder's instance is gone
no_instance() { [ ! -e "$T/instances/ipitrace-$1" ]; }
