#!/bin/sh
# test_faults.sh - faults injected into `ipitrace record` (needs root and
# tracefs; SKIP lines otherwise).  For each: what the user sees (exit status,
# one line on stderr saying what went wrong), and what is left behind (no
# tracefs instance, never an incomplete file under the output name).
#
#  1 SIGKILL at random moments over many runs (setup, recording, writing):
#    the output name is absent or names a complete file that trace-cmd and
#    dump read; nothing else is left in the directory; the next run removes
#    every stale instance
#  2 SIGKILL while the file is written (stopped there by IPITRACE_TEST_STOP)
#  3 a read-only output directory
#  4 -o - into a pipe whose reader has gone, and into /dev/full
#  5 tracefs mounted read-only (a private mount namespace)
#  6 tracefs missing and not mountable (a user namespace with tmpfs over it)
#  7 an event that disappears between probe and enable (a kprobe or uprobe
#    event removed while the recorder is stopped at IPITRACE_TEST_STOP=probed)
# run: live
. "$(dirname "$0")/lib.sh"
LIVE_NAME=faults
KPROBE="" PFILE=""
. "$(dirname "$0")/live.sh"
trap 'fault_cleanup; cleanup' EXIT
fault_cleanup() {
	[ -n "$KPROBE" ] && echo "-:$KPROBE" >> "$PFILE" 2>/dev/null
}

# one_line NAME ERRFILE PATTERN: stderr is exactly one line matching PATTERN
# (and no sanitizer report)
one_line() {
	n=$(wc -l < "$2")
	if grep -q -E 'Sanitizer|runtime error' "$2"; then
		echo "  $1: sanitizer report: $(grep -m1 -E 'Sanitizer|runtime error' "$2")"
		return 1
	fi
	[ "$n" -eq 1 ] && grep -q -E "$3" "$2" && return 0
	echo "  $1: stderr ($n lines): $(head -c 400 "$2")"
	return 1
}
# stopped PID: wait (10 s at most) until PID is stopped (state T)
stopped() {
	i=0
	while [ $i -lt 100 ]; do
		[ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = T ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# readable FILE: dump (and trace-cmd, if installed) read FILE without error
readable() {
	"$IPT" dump "$1" > /dev/null 2>&1 || return 1
	[ $HAVE_TC = 0 ] || trace-cmd report "$1" > /dev/null 2>&1
}
# rand_ms MAX: a random number of milliseconds below MAX
rand_ms() { echo $(( $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % $1 )); }
# ms_to_s MS: "0.123"
ms_to_s() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

# ---- 1: SIGKILL at random moments ----
test_kill_random() {
	D=$TMP/kill
	mkdir -p "$D"
	"$WL" pingpong 100000000 > /dev/null 2>&1 &	# IPIs all along
	wl=$!
	PIDS="$PIDS $wl"
	runs=${FAULT_KILL_RUNS:-16}
	killed="" bad=0 setup=0 rec=0 done=0 delays="" removed=0
	for i in $(seq 1 "$runs"); do
		ms=$(rand_ms 1500)
		delays="$delays $ms"
		"$IPT" record -d 0.5 -o "$D/out.dat" 2> "$D/err" &
		p=$!
		sleep "$(ms_to_s "$ms")"
		kill -KILL $p 2>/dev/null
		{ wait $p; } 2>/dev/null
		rc=$?
		if [ $rc = 0 ]; then
			done=$((done + 1))
		else
			killed="$killed $p"
			grep -q "recording on" "$D/err" && rec=$((rec + 1)) || setup=$((setup + 1))
		fi
		if [ -e "$D/out.dat" ] && ! readable "$D/out.dat"; then
			echo "  run $i (kill after $ms ms, rc $rc): out.dat exists but is not readable"
			bad=$((bad + 1))
		fi
		removed=$((removed + $(grep -c "left by a recorder that no longer runs" "$D/err")))
		rm -f "$D/out.dat" "$D/err"
		if [ -n "$(ls -A "$D")" ]; then
			echo "  run $i (kill after $ms ms): left in the directory: $(ls -A "$D")"
			bad=$((bad + 1))
			rm -f "$D"/* "$D"/.[!.]*
		fi
	done
	kill -KILL $wl 2>/dev/null
	wait $wl 2>/dev/null
	echo "  kill delays (ms):$delays; killed in setup $setup, while recording or writing $rec; finished $done"
	"$IPT" record -d 0.2 -o "$D/final.dat" 2> "$D/final.err"
	rc=$?
	left=0
	for p in $killed; do
		no_instance $p || left=$((left + 1))
	done
	removed=$((removed + $(grep -c "left by a recorder that no longer runs" "$D/final.err")))
	echo "  later runs removed $removed stale instance(s) of the $((setup + rec)) killed; $left left"
	if [ $bad = 0 ] && [ $rc = 0 ] && [ $left = 0 ] && readable "$D/final.dat"; then
		pass "faults-sigkill-random ($runs runs)"
	else
		fail "faults-sigkill-random" "$bad runs left a bad file or debris, $left stale instances, final run rc $rc"
	fi
}

# ---- 2: SIGKILL while the file is written ----
test_kill_writing() {
	D=$TMP/killw
	mkdir -p "$D"
	IPITRACE_TEST_STOP=writing "$IPT" record -d 0.3 -o "$D/out.dat" 2> "$D/err" &
	p=$!
	PIDS="$PIDS $p"
	if ! stopped $p; then
		fail faults-sigkill-writing "the recorder never stopped at 'writing': $(tail -n 1 "$D/err")"
		kill -KILL $p 2>/dev/null
		return
	fi
	kill -KILL $p
	{ wait $p; } 2>/dev/null
	rm -f "$D/err"
	"$IPT" record -q -d 0.1 -o "$TMP/next.dat" 2> /dev/null
	if [ -z "$(ls -A "$D")" ] && no_instance $p; then
		pass faults-sigkill-writing
	else
		fail faults-sigkill-writing "left: $(ls -A "$D") instance: $(ls "$T/instances" | grep "ipitrace-$p")"
	fi
}

# ---- 3: read-only output directory ----
test_readonly_dir() {
	MNT=$TMP/ro
	mkdir -p "$MNT"
	if ! mount -t tmpfs -o ro,size=1m tmpfs "$MNT" 2>/dev/null; then
		skip faults-readonly-dir "cannot mount a tmpfs"
		MNT=""
		return
	fi
	"$IPT" record -q -d 0.2 -o "$MNT/x.dat" > /dev/null 2> "$TMP/ro.err" &
	p=$!
	wait $p
	rc=$?
	if [ $rc = 1 ] && one_line faults-readonly-dir "$TMP/ro.err" "Read-only file system" &&
	   no_instance $p && [ -z "$(ls -A "$MNT")" ]; then
		pass faults-readonly-dir
	else
		fail faults-readonly-dir "rc $rc"
	fi
	umount "$MNT"
	MNT=""
}

# ---- 4: standard output that fails ----
test_stdout() {
	{ "$IPT" record -q -d 0.3 -o - 2> "$TMP/pipe.err"; echo $? > "$TMP/pipe.rc"; } | true
	rc=$(cat "$TMP/pipe.rc")
	if [ "$rc" = 1 ] && one_line faults-closed-pipe "$TMP/pipe.err" "standard output.*Broken pipe"; then
		pass faults-closed-pipe
	else
		fail faults-closed-pipe "rc $rc"
	fi
	"$IPT" record -q -d 0.3 -o - > /dev/full 2> "$TMP/full.err"
	rc=$?
	if [ "$rc" = 1 ] && one_line faults-dev-full "$TMP/full.err" "standard output.*No space left"; then
		pass faults-dev-full
	else
		fail faults-dev-full "rc $rc"
	fi
	# a left instance is one whose recorder is gone (others' live recorders
	# on this machine have theirs)
	left=0
	for d in "$T"/instances/ipitrace-*; do
		p=${d##*/ipitrace-}
		case $p in ''|*[!0-9]*) continue ;; esac
		kill -0 "$p" 2>/dev/null || left=$((left + 1))
	done
	check "faults-stdout: no instance left ($left)" [ "$left" = 0 ]
}

# ns_case NAME PATTERN WHY UNSHARE-OPTS SETUP: record inside `unshare
# UNSHARE-OPTS`, after the shell commands SETUP ($1 is tracefs; they exit 99
# when the namespace cannot be set up: SKIP with WHY).  It must fail with
# exit status 1, one line on stderr matching PATTERN, and no file.
ns_case() {
	name=$1 pat=$2 why=$3 opts=$4 setup=$5
	if ! command -v unshare > /dev/null; then
		skip "$name" "unshare (util-linux) missing"
		return
	fi
	unshare $opts sh -c "$setup"'
		"$2" record -q -d 0.2 -o "$3"' sh "$T" "$IPT" "$TMP/$name.dat" > /dev/null 2> "$TMP/$name.err"
	rc=$?
	if [ $rc = 99 ]; then
		skip "$name" "$why"
	elif [ $rc = 1 ] && one_line "$name" "$TMP/$name.err" "$pat" && [ ! -e "$TMP/$name.dat" ]; then
		pass "$name"
	else
		fail "$name" "rc $rc"
	fi
}

# ---- 5: tracefs read-only (a private mount namespace) ----
test_tracefs_readonly() {
	ns_case faults-tracefs-readonly "instances.*Read-only file system" \
		"cannot remount tracefs read-only in a mount namespace" "-m --propagation private" '
		mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || exit 99'
}

# ---- 6: tracefs missing ----
test_tracefs_missing() {
	# a user namespace may mount tmpfs but not tracefs: tracefs is hidden
	# and ipitrace's attempt to mount it fails
	ns_case faults-tracefs-missing "no tracefs" "no user namespaces here" "-Urm" '
		mount -t tmpfs none "$1" || exit 99
		[ ! -d /sys/kernel/debug ] || mount -t tmpfs none /sys/kernel/debug || exit 99'
}

# ---- 7: an event removed between probe and enable ----
test_event_removed() {
	# a kprobe event where kprobes are offered, else a uprobe on /bin/true
	PFILE=""
	if [ -w "$T/kprobe_events" ]; then
		for s in do_sys_openat2 ksys_read vfs_read; do
			grep -q " [Tt] $s$" /proc/kallsyms && { PFILE=$T/kprobe_events; PDEF=$s; break; }
		done
	fi
	if [ -z "$PFILE" ] && [ -w "$T/uprobe_events" ] && [ -f /bin/true ]; then
		PFILE=$T/uprobe_events PDEF=/bin/true:0x1000
	fi
	if [ -z "$PFILE" ]; then
		skip faults-event-removed "no kprobe or uprobe events in this kernel"
		return
	fi
	if ! echo "p:ipitrace_fault/probe $PDEF" >> "$PFILE" 2>/dev/null; then
		skip faults-event-removed "cannot make a probe event in $PFILE"
		return
	fi
	KPROBE=ipitrace_fault/probe
	IPITRACE_TEST_STOP=probed "$IPT" record -q -e ipitrace_fault:probe -d 0.3 -o "$TMP/ev.dat" \
		> /dev/null 2> "$TMP/ev.err" &
	p=$!
	PIDS="$PIDS $p"
	if ! stopped $p; then
		fail faults-event-removed "the recorder never stopped at 'probed': $(tail -n 1 "$TMP/ev.err")"
		kill -KILL $p 2>/dev/null
		return
	fi
	if ! echo "-:$KPROBE" >> "$PFILE"; then
		fail faults-event-removed "could not remove the kprobe event"
		kill -KILL $p
		return
	fi
	KPROBE=""
	kill -CONT $p
	wait $p
	rc=$?
	if [ $rc = 1 ] && one_line faults-event-removed "$TMP/ev.err" \
		"ipitrace_fault:probe: the event was removed from the kernel after it was found" &&
	   no_instance $p && [ ! -e "$TMP/ev.dat" ]; then
		pass faults-event-removed
	else
		fail faults-event-removed "rc $rc"
	fi
}

test_kill_random
test_kill_writing
test_readonly_dir
test_stdout
test_tracefs_readonly
test_tracefs_missing
test_event_removed
finish
