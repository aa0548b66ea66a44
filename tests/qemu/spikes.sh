# spikes.sh - sourced by init.sh (busybox sh) in the PREEMPT_RT guest of
# tests/test_qemu_spikes.sh (ipitest=spikes; 4 CPUs, 2-3 isolated,
# nohz_full and rcu_nocbs).  Uses init.sh's T, say, uptime_s.
#
# 1. `ipitrace record --timerlat --tracer-period 10000`: the timerlat
#    tracer on the isolated CPUs while ipi-workload on the housekeeping
#    CPUs 0-1 sends IPIs to threads on 2-3 (membarrier: function calls;
#    mprotect: TLB shootdowns; pipe wakeups), the osnoise settings and
#    /proc/interrupts read before, during and after.
# 2. `--timerlat=1000`: the kernel stops tracing at the first thread
#    latency over 1 ms (TCG has many; some boots none over 3 ms in 20 s)
#    and the recording ends there.
# 3. tracefs's own text of a timerlat instance made by hand, and, while
#    that instance runs the tracer, a recording with --timerlat that must
#    refuse in one line.
# 4. `record --osnoise` (100 ms periods, half of each busy) for 1.5 s, and
#    tracefs's own text of an osnoise instance made by hand.
# 5. Four recordings (`record --timerlat -- injipi ...`) with a known
#    injected sender: the workload binary copied as /bin/injipi, so that
#    its command name is the test's own, sends membarrier IPIs from CPU 0
#    to its spinner threads on 2-3 (4000 a second, for 0.5 s; timerlat's
#    period 2 ms, so that many windows hold one), while a decoy
#    (ipi-workload pingpong between CPUs 1 and 3, 20 round trips a second:
#    a wakeup's handler is many times a membarrier's) sends beside it.
# 6. Debian's rtla 6.1 (`timerlat top -t -e irq_vectors -e osnoise -e
#    spikeprobes`, the recorder's probes of phase 1 made again by hand)
#    while injipi runs as in 5: its saved text, which explain must read.
# 7. The observer cost: `rtla timerlat hist` on 2-3 for 4 s under the same
#    membarrier load, without and with `ipitrace record`.
# Everything goes as a tar onto /dev/vda, then power off.
WL=/bin/ipi-workload
for f in isolated nohz_full online possible; do
	cat /sys/devices/system/cpu/$f > /out/$f 2>/dev/null
done
cat /proc/cmdline > /out/cmdline
uname -r > /out/uname
cat $T/available_tracers > /out/available_tracers
# the global osnoise settings (and what else a tracer touches), to compare
osnoise_state() {
	for f in cpus period_us runtime_us stop_tracing_us stop_tracing_total_us timerlat_period_us print_stack; do
		[ -f $T/osnoise/$f ] && echo "$f=$(cat $T/osnoise/$f)"
	done
	echo "tracing_thresh=$(cat $T/tracing_thresh)"
	echo "current_tracer=$(cat $T/current_tracer)"
	echo "tracing_on=$(cat $T/tracing_on)"
}
# wait_on PID ERRFILE: until the recorder says it records (60 s at most)
wait_on() {
	i=0
	while ! grep -q "recording on" $2 && kill -0 $1 2> /dev/null && [ $i -lt 600 ]; do
		sleep 0.1; i=$((i + 1))
	done
}

# ---- 1. the recording with the load ----
say "phase $(uptime_s)"
osnoise_state > /out/osnoise-before
cat /proc/interrupts > /out/irq-a.txt
echo "record-start $(uptime_s)" >> /out/times
ipitrace record --force --timerlat --tracer-period 10000 -o /out/trace.dat 2> /out/record.err &
RP=$!
wait_on $RP /out/record.err
echo "recording $(uptime_s)" >> /out/times
osnoise_state > /out/osnoise-during
# the recorder's probes (6.1 has no ipi_send_*): phase 6 makes them again
cat $T/kprobe_events > /out/kprobe-defs
for d in $T/instances/*; do
	[ -f $d/current_tracer ] && echo "$(basename $d) $(cat $d/current_tracer)"
done > /out/instances-during
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

# ---- 2. a threshold: the kernel ends the recording ----
say "phase $(uptime_s)"
ipitrace record --force --timerlat=1000 --tracer-period 10000 -d 30 -o /out/thr.dat \
	-- $WL --cpus 0,2,3 --rate 200 membarrier 4000 > /dev/null 2> /out/thr.err
echo "rc $?" > /out/thr.rc
osnoise_state > /out/osnoise-after-thr
echo "threshold-end $(uptime_s)" >> /out/times

# ---- 3. tracefs's own text; a recording refused beside it ----
say "phase $(uptime_s)"
saved_cpus=$(cat $T/osnoise/cpus) saved_tl=$(cat $T/osnoise/timerlat_period_us)
saved_period=$(cat $T/osnoise/period_us) saved_runtime=$(cat $T/osnoise/runtime_us)
mkdir $T/instances/spiketext
echo 2-3 > $T/osnoise/cpus
echo 10000 > $T/osnoise/timerlat_period_us
echo timerlat > $T/instances/spiketext/current_tracer
echo 1 > $T/instances/spiketext/events/osnoise/enable
osnoise_state > /out/osnoise-hand
ipitrace record --force --timerlat -d 1 -o /out/refused.dat 2> /out/refused.err
echo "rc $?" > /out/refused.rc
osnoise_state > /out/osnoise-hand-after
$WL --cpus 0,2,3 --rate 400 membarrier 200 > /dev/null
cat $T/instances/spiketext/trace > /out/tracefs.txt
echo nop > $T/instances/spiketext/current_tracer
rmdir $T/instances/spiketext
echo $saved_tl > $T/osnoise/timerlat_period_us
echo $saved_cpus > $T/osnoise/cpus
echo "text-end $(uptime_s)" >> /out/times

# ---- 4. the osnoise tracer ----
say "phase $(uptime_s)"
# (half of each period: a whole one busy on the isolated vCPUs hung the
# guest at the recording's end under TCG)
ipitrace record --force --osnoise --tracer-period 100000,50000 -d 1.5 -o /out/osn.dat 2> /out/osn.err
echo "rc $?" > /out/osn.rc
osnoise_state > /out/osnoise-after-osn
mkdir $T/instances/spikeosn
echo 2-3 > $T/osnoise/cpus
echo 50000 > $T/osnoise/runtime_us
echo 100000 > $T/osnoise/period_us
echo osnoise > $T/instances/spikeosn/current_tracer
echo 1 > $T/instances/spikeosn/events/osnoise/enable
sleep 1
cat $T/instances/spikeosn/trace > /out/tracefs-osnoise.txt
echo nop > $T/instances/spikeosn/current_tracer
rmdir $T/instances/spikeosn
echo $saved_period > $T/osnoise/period_us
echo $saved_runtime > $T/osnoise/runtime_us
echo $saved_cpus > $T/osnoise/cpus
osnoise_state > /out/osnoise-end
echo "osnoise-end $(uptime_s)" >> /out/times
# ---- 5. an injected sender, four runs (it must be the top sender in three:
# under TCG one stalled handler of another sender can outweigh it) ----
say "phase $(uptime_s)"
cp $WL /bin/injipi
for run in 1 2 3 4; do
	$WL --cpus 1,3 --rate 20 pingpong 100000 > /dev/null 2>&1 &
	DP=$!
	ipitrace record --force --timerlat --tracer-period 2000 -o /out/inj$run.dat \
		-- /bin/injipi --cpus 0,2,3 --rate 4000 membarrier 2000 > /out/inj$run.wl 2> /out/inj$run.err
	echo "rc $?" > /out/inj$run.rc
	kill $DP 2> /dev/null
	wait $DP 2> /dev/null
done
echo "inject-end $(uptime_s)" >> /out/times

# ---- 6. rtla's saved trace of the injected sender ----
# Debian 12's rtla 6.1 (and libtracefs1, libtraceevent1, libc6 from
# prepare.sh) runs timerlat top on 2-3 with -t and -e for the vector, osnoise
# and send events: the recorder's own probe lines of phase 1, written into
# kprobe_events again under the group spikeprobes.  rtla 6.1 saves the trace
# only when tracing stopped (a -i/-T threshold hit: "rtla timerlat hit stop
# tracing"), never at -d's end; so once injipi is done the script turns
# tracing off in rtla's instances, as the kernel does at a threshold, and
# rtla saves timerlat_trace.txt at its next one-second poll.
say "phase $(uptime_s)"
export LD_LIBRARY_PATH=/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu PATH=/bin:/usr/bin
sed -n 's|^p:ipitrace_[0-9]*/|p:spikeprobes/|p' /out/kprobe-defs > /out/rtla-probes
while read -r l; do echo "$l" >> $T/kprobe_events; done < /out/rtla-probes
cat $T/kprobe_events > /out/rtla-kprobes
$WL --cpus 1,3 --rate 20 pingpong 100000 > /dev/null 2>&1 &
DP=$!
mkdir -p /out/rtla && cd /out/rtla
rtla timerlat top -q -c 2-3 -p 2000 -d 30 -t -e irq_vectors -e osnoise -e spikeprobes > /out/rtla.out 2> /out/rtla.err &
RT=$!
# until rtla's trace instance (osnoise_trace; timerlat_top is its top's)
# holds samples: its setup takes seconds under TCG, and the trace instance
# starts seconds after the top one
i=0
while ! grep -q timer_latency $T/instances/osnoise_trace/trace 2> /dev/null && [ $i -lt 300 ]; do
	sleep 0.1; i=$((i + 1))
done
echo "rtla-tracing $(uptime_s)" >> /out/times
ls $T/instances > /out/rtla-instances
/bin/injipi --cpus 0,2,3 --rate 4000 membarrier 2000 > /out/rtla-inj.wl 2>&1
for d in $T/instances/*; do echo 0 > $d/tracing_on; done
wait $RT
echo "rc $?" > /out/rtla.rc
cd /
kill $DP 2> /dev/null
wait $DP 2> /dev/null
sed -n 's|^p:\([^ ]*\) .*|-:\1|p' /out/rtla-probes | while read -r l; do echo "$l" >> $T/kprobe_events; done
cat $T/kprobe_events > /out/rtla-kprobes-after
echo "rtla-end $(uptime_s)" >> /out/times

# ---- 7. the observer cost: rtla timerlat hist on 2-3, 4 s, the same load
# (membarrier IPIs from CPU 0 to 2-3, 1000 a second) without and with an
# ipitrace recording (its readers on the housekeeping CPUs) ----
say "phase $(uptime_s)"
for mode in without with; do
	if [ $mode = with ]; then
		ipitrace record --force -o /tmp/cost.dat 2> /out/cost-record.err &
		RP=$!
		wait_on $RP /out/cost-record.err
	fi
	$WL --cpus 0,2,3 --rate 1000 membarrier 5000 > /dev/null 2>&1 &
	LP=$!
	rtla timerlat hist -c 2-3 -p 1000 -d 4 -b 10 -E 400 > /out/cost-$mode.txt 2> /out/cost-$mode.err
	kill $LP 2> /dev/null
	wait $LP 2> /dev/null
	if [ $mode = with ]; then
		kill -INT $RP
		wait $RP
		rm -f /tmp/cost.dat
	fi
done
echo "cost-end $(uptime_s)" >> /out/times
tar -cf - -C /out . | dd of=/dev/vda bs=64k conv=fsync 2> /dev/null
sync
say "done"
poweroff -f
