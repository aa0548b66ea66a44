# spikes.sh - sourced by init.sh (busybox sh) in the PREEMPT_RT guest of
# tests/test_qemu_spikes.sh (ipitest=spikes; 4 CPUs, 2-3 isolated,
# nohz_full and rcu_nocbs).  The timerlat tracer runs on the isolated CPUs
# while ipi-workload on the housekeeping CPUs 0-1 sends IPIs to threads
# spinning on 2-3 (membarrier: function calls; mprotect: TLB shootdowns),
# and ipitrace records the IPIs with the osnoise events and the timerlat
# samples beside them.  Everything goes as a tar onto /dev/vda, then
# power off.  Uses init.sh's T, say, uptime_s.
WL=/bin/ipi-workload
for f in isolated nohz_full online possible; do
	cat /sys/devices/system/cpu/$f > /out/$f 2>/dev/null
done
cat /proc/cmdline > /out/cmdline
uname -r > /out/uname
cat $T/available_tracers > /out/available_tracers
ls $T/osnoise > /out/osnoise-files 2>/dev/null
# the global osnoise settings before, to compare with after
osnoise_state() {
	for f in cpus period_us runtime_us stop_tracing_us stop_tracing_total_us timerlat_period_us print_stack; do
		[ -f $T/osnoise/$f ] && echo "$f=$(cat $T/osnoise/$f)"
	done
	echo "tracing_thresh=$(cat $T/tracing_thresh)"
	echo "current_tracer=$(cat $T/current_tracer)"
}
osnoise_state > /out/osnoise-before
if grep -q ipitest.discover /proc/cmdline; then
	cat $T/events/ftrace/timerlat/format > /out/timerlat.format 2>&1
	cat $T/events/ftrace/osnoise/format > /out/osnoise.format 2>&1
	ls $T/events/osnoise > /out/osnoise-events 2>&1
	mkdir $T/instances/disc
	echo 2-3 > $T/osnoise/cpus
	echo timerlat > $T/instances/disc/current_tracer 2> /out/disc.err
	echo 1 > $T/instances/disc/events/osnoise/enable
	sleep 1
	cat $T/instances/disc/trace > /out/disc.trace
	echo nop > $T/instances/disc/current_tracer
	rmdir $T/instances/disc
	echo 0-3 > $T/osnoise/cpus
fi
cat /proc/interrupts > /out/irq-a.txt
echo "record-start $(uptime_s)" >> /out/times
# ${SPIKES_RECORD}: the recording's options (the test's choice, on the
# kernel command line as ipitest.record=...), default --timerlat
opts=$(sed -n 's/.*ipitest\.record=\([^ ]*\).*/\1/p' /proc/cmdline | tr ';' ' ')
[ -n "$opts" ] || opts="--timerlat --tracer-period 10000"
ipitrace record --force $opts -o /out/trace.dat 2> /out/record.err &
RP=$!
i=0
while ! grep -q "recording on" /out/record.err && kill -0 $RP 2> /dev/null && [ $i -lt 600 ]; do
	sleep 0.1; i=$((i + 1))
done
echo "recording $(uptime_s)" >> /out/times
osnoise_state > /out/osnoise-during
for d in $T/instances/*; do
	[ -f $d/current_tracer ] && echo "$(basename $d) $(cat $d/current_tracer)"
done > /out/instances-during
# the load: from the housekeeping CPUs, IPIs to threads on the isolated ones
cat /proc/interrupts > /out/irq-w0.txt
$WL --cpus 0,2,3 --rate 400 membarrier 200 > /out/wl.txt
$WL --cpus 1,2,3 --rate 200 tlb 100 >> /out/wl.txt
$WL --cpus 0,3 --rate 400 pingpong 100 >> /out/wl.txt
cat /proc/interrupts > /out/irq-w1.txt
echo "workload-end $(uptime_s)" >> /out/times
kill -INT $RP
wait $RP
echo "rc $?" > /out/record.rc
echo "record-end $(uptime_s)" >> /out/times
cat /proc/interrupts > /out/irq-b.txt
osnoise_state > /out/osnoise-after
ls $T/instances > /out/instances-after 2>/dev/null
cat $T/kprobe_events > /out/kprobes-after 2>/dev/null
tar -cf - -C /out . | dd of=/dev/vda bs=64k conv=fsync 2> /dev/null
sync
say "done"
poweroff -f
