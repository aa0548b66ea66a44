# observer.sh - sourced by the BPF tests (test_top.sh, test_serve.sh) after
# live.sh: an independent tracefs instance ($CNT) that counts what a tool's
# task sends to CPU 1 and the irq_work interrupts CPU 1 takes, in 5 s windows.

# wait_for PATTERN FILE: until FILE holds PATTERN (10 s at most)
wait_for() {
	i=0
	while ! grep -q "$1" "$2" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 100 ] && return 1
		sleep 0.1
	done
}
# start_serve NAME SERVE-OPTIONS...: `ipitrace serve` in the background
# (its pid in SP and PIDS, its stderr in $TMP/serve.err) until it counts;
# false after a SKIP NAME (no BPF here) or a FAIL NAME (it did not start)
start_serve() {
	sname=$1
	shift
	"$IPT" serve "$@" 2> "$TMP/serve.err" &
	SP=$!
	PIDS="$PIDS $SP"
	wait_for "counting with BPF" "$TMP/serve.err" && return 0
	if grep -q "BPF is unavailable" "$TMP/serve.err"; then
		skip "$sname" "$(grep -m 1 'BPF is unavailable' "$TMP/serve.err")"
	else
		fail "$sname" "serve did not start: $(head -n 3 "$TMP/serve.err" | tr '\n' ';')"
	fi
	return 1
}
# make_send_counter KB: the instance $CNT recording every send, csd queueing,
# fork and exec into KB KiB per CPU, tracing off (the caller turns it on);
# the fork and exec events say which pids are the workload (top_compare.py)
make_send_counter() {
	mkdir "$CNT"
	echo 0 > "$CNT/tracing_on"
	echo "$1" > "$CNT/buffer_size_kb"
	for e in ipi/ipi_send_cpu ipi/ipi_send_cpumask csd/csd_queue_cpu sched/sched_process_exec sched/sched_process_fork; do
		[ -d "$CNT/events/$e" ] && echo 1 > "$CNT/events/$e/enable"
	done
}
# count_window: one 5 s window of the counting instance; prints "SENDS
# IRQ IRQWORK": IPIs sent to CPU 1 by the task from task context, those sent
# from an interrupt that came while the task was current (the trace's
# context flag h or s: e.g. the scheduler tick's nohz idle-balance kick,
# nohz_csd_func, not the task's doing), irq_work_entry on CPU 1
count_window() {
	echo > "$CNT/trace"
	echo 1 > "$CNT/tracing_on"
	sleep 5
	echo 0 > "$CNT/tracing_on"
	grep -v '^#' "$CNT/trace" > "$TMP/win.txt"
	grep -E 'ipi_send_cpu: cpu=1 |ipi_send_cpumask: cpumask=([^ ]*,)?(1|0-[1-9][0-9]*)[, ]' "$TMP/win.txt" |
		sed 's/^.*\] \(.....\) .*$/\1/' > "$TMP/flags.txt"
	s=$(grep -cv '^..[hsH]' "$TMP/flags.txt")
	h=$(grep -c '^..[hsH]' "$TMP/flags.txt")
	w=$(grep -c '\[001\].*irq_work_entry' "$TMP/win.txt")
	cat "$TMP/win.txt" >> "$TMP/observer.txt"
	grep '\[001\].*irq_work_entry' "$TMP/win.txt" | sed 's/-[0-9]* *\[.*$//; s/^ *//' >> "$TMP/irqwork.txt"
	echo "$s $h $w"
}
# make_counter FILTER: the instance, sends filtered to FILTER, irq_work_entry
make_counter() {
	mkdir "$CNT"
	echo 0 > "$CNT/tracing_on"
	for e in ipi/ipi_send_cpu ipi/ipi_send_cpumask; do
		if [ -d "$CNT/events/$e" ]; then
			echo "$1" > "$CNT/events/$e/filter"
			echo 1 > "$CNT/events/$e/enable"
		fi
	done
	[ -d "$CNT/events/irq_vectors/irq_work_entry" ] && echo 1 > "$CNT/events/irq_vectors/irq_work_entry/enable"
}

# observe_windows PID NAME: six 5 s windows of the instance filtered to
# PID's sends; prints the figures; sets quiet (windows without a send to
# CPU 1 from PID's task) and fig
observe_windows() {
	make_counter "common_pid == $1"
	: > "$TMP/observer.txt"
	: > "$TMP/irqwork.txt"
	quiet=0 fig=""
	for i in 1 2 3 4 5 6; do
		set -- $(count_window) "$1" "$2"
		fig="$fig $1/$2/$3"
		[ "$1" = 0 ] && quiet=$((quiet + 1))
		shift 3
	done
	rmdir "$CNT"
	echo "observer: per 5 s window, IPIs to CPU 1 sent by $2's task / sent in an interrupt while $2 was current / irq_work_entry on CPU 1:$fig"
	grep -E 'ipi_send_cpu: cpu=1 ' "$TMP/observer.txt" | sed 's/^.*ipi_send_cpu: //; s/ callsite=/ /' | sort | uniq -c | head -n 5
	echo "observer: the tasks current on CPU 1 at its irq_work_entry ($2 runs on CPU 0): $(sort "$TMP/irqwork.txt" | uniq -c | sort -rn | head -n 5 | tr -s ' \n' '  ')"
}

# observe_quiet PID NAME: observe_windows; when fewer than 5 of the 6
# windows are quiet, six more (a machine busy with other tests moves tasks
# about: two runs of make check here saw 4 of 6, alone it is 6 of 6), the
# first run's figures in first_fig (else empty) and the task-context sends'
# call sites of the last run in sends_seen
observe_quiet() {
	first_fig=
	observe_windows "$1" "$2"
	if [ $quiet -lt 5 ]; then
		first_fig="$quiet of 6 quiet:$fig"
		observe_windows "$1" "$2"
	fi
	sends_seen=$(grep -E 'ipi_send_cpu: cpu=1 ' "$TMP/observer.txt" | sed 's/^.*ipi_send_cpu: //; s/ callsite=/ /' |
		sort | uniq -c | sort -rn | head -n 3 | tr -s ' \n' '  ')
}
