#!/bin/busybox sh
# init.sh - /init of the qemu guests (tests/test_qemu.sh): busybox, a static
# ipitrace and ipi-workload.  Records the workload with `ipitrace record`,
# takes its own /proc/interrupts snapshots between tracing on and off, and
# writes everything as a tar onto the second disk (/dev/vda), then powers off.
#
# The window: once the recorder runs (and a settling pause), irq-snap writes
# "ipitest-start" into its instance's trace_marker and reads /proc/interrupts
# in one read (snapshot a); the workload runs; after another pause (the
# workload's processes leave IPIs behind as they go), irq-snap reads
# /proc/interrupts again (snapshot b) and writes "ipitest-end".  The test
# counts the events between the markers.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tracefs nodev /sys/kernel/tracing
mkdir -p /out /tmp
mount -t tmpfs tmpfs /out
mount -t tmpfs tmpfs /tmp
T=/sys/kernel/tracing
say() { echo "ipitest: $*" > /dev/console; }
uptime_s() { read up idle < /proc/uptime; echo "$up"; }
echo "init $(uptime_s)" > /out/times

for m in $(cat /modules.order 2>/dev/null); do
	insmod "/modules/$m" 2>> /out/insmod.err
done

# ipitest=spikes on the command line (the PREEMPT_RT guest of
# tests/test_qemu_spikes.sh): its own script, which powers off
grep -q 'ipitest=spikes' /proc/cmdline && . /spikes.sh

# settle: half a second without a fork (read on a FIFO opened read-write)
mkfifo /tmp/settle
settle() { read -t 0.5 x <> /tmp/settle; }
WL=/bin/ipi-workload
ncpu=$(grep -c '^processor' /proc/cpuinfo)
last=$((ncpu - 1))
all=""; for c in $(seq 0 $last); do all="$all${all:+,}$c"; done
# the workload CPUs other than 0: "1,2,...,last"
rest=${all#0,}

for f in isolated nohz_full online possible; do
	cat /sys/devices/system/cpu/$f > /out/$f 2>/dev/null
done
# ipitest=wide on the command line (the many-CPU guests): the wide-mask
# workload below, no fixture recording
wide=0
grep -q 'ipitest=wide' /proc/cmdline && wide=1
cat /proc/cmdline > /out/cmdline
ls $T/events/ipi > /out/ipi-events 2>/dev/null
echo "record-start $(uptime_s)" >> /out/times
ipitrace record --force -o /out/trace.dat 2> /out/record.err &
RP=$!
i=0
while ! grep -q "recording on" /out/record.err && kill -0 $RP 2> /dev/null && [ $i -lt 600 ]; do
	sleep 0.1; i=$((i + 1))
done
echo "recording $(uptime_s)" >> /out/times
INST=$(ls -d $T/instances/ipitrace-* 2>/dev/null | head -n 1)
# the probes as the kernel has them (the test's oracle maps their functions)
cat $T/kprobe_events > /out/kprobe_events 2> /dev/null
if [ -n "$INST" ]; then
	settle
	irq-snap start /out/irq-a.txt "$INST/trace_marker" ipitest-start
	if [ $wide = 1 ]; then
		# masks across every CPU: a process with a thread running on
		# each CPU (spinning with PAUSE/YIELD) unmaps and write-protects
		# pages from CPU 0 (x86: TLB shootdowns to all the others; arm64
		# broadcasts TLB invalidation in hardware and sends none) and
		# calls membarrier (function-call IPIs to all the others); the
		# same from the last CPU (isolated); remote wakeups and
		# reschedules into the isolated CPUs and between two of them
		others=""; for c in $(seq 0 $((last - 1))); do others="$others${others:+,}$c"; done
		[ "$(uname -m)" = x86_64 ] && $WL --cpus $all tlb 100 > /out/wl.txt
		$WL --cpus $all membarrier 100 >> /out/wl.txt
		$WL --cpus $last,$others membarrier 30 >> /out/wl.txt
		[ "$(uname -m)" = x86_64 ] && $WL --cpus $last,$others tlb 30 >> /out/wl.txt
		$WL --cpus 1,$((last - 1)) pingpong 200 >> /out/wl.txt
		$WL --cpus $((last / 2)),$last pingpong 200 >> /out/wl.txt
	else
	# the workload: remote wakeups and reschedules between pinned pairs,
	# function calls to several CPUs at once (membarrier with a spinner on
	# each; few rounds to all 7 others: every IPI waits for 7 vCPUs on 2
	# host CPUs), TLB shootdowns to them (x86)
	$WL --cpus 0,1 pingpong 300 > /out/wl.txt
	$WL --cpus 2,5 pingpong 200 >> /out/wl.txt
	$WL --cpus 0,$rest membarrier 20 >> /out/wl.txt
	$WL --cpus 1,3,4,6 membarrier 150 >> /out/wl.txt
	$WL --cpus 2,0,7,5 tlb 60 >> /out/wl.txt
	$WL --cpus 3,2 membarrier 100 >> /out/wl.txt
	fi
	settle
	irq-snap end /out/irq-b.txt "$INST/trace_marker" ipitest-end
	# the kernel's hit and miss counts of the probes (a kprobe hit while
	# another kprobe runs on that CPU is missed, and counted here)
	cat $T/kprobe_profile > /out/kprobe_profile 2> /dev/null
	echo "$INST" > /out/instance
fi
echo "workload-end $(uptime_s)" >> /out/times
kill -INT $RP
wait $RP
echo "rc $?" > /out/record.rc
echo "record-end $(uptime_s)" >> /out/times
[ $wide = 1 ] ||
# a short recording for the committed fixtures (tests/data/qemu, made
# small on the host with tools/trim-syms): masks to several CPUs, wakeups
ipitrace record -q --force -o /out/fixture.dat -- /bin/sh -c "cat $T/kprobe_events > /out/fixture.kprobe_events; $WL --cpus 0,$rest membarrier 4 > /dev/null;
	$WL --cpus 1,2,3,4 membarrier 25 > /dev/null; $WL --cpus 0,1 pingpong 25 > /dev/null;
	$WL --cpus 2,0,7,5 tlb 8 > /dev/null" 2> /out/fixture.err
echo "fixture-end $(uptime_s)" >> /out/times
# ipitest=pair on the command line (x86_64-iso): two before/after pairs for
# `ipitrace diff` (test_qemu.sh), each recorded as the fixture is.  BEFORE:
# membarrier calls on CPU 0 with a spinner on CPU 1 (ipi_mb IPIs to CPU 1,
# housekeeping).  AFTER: the same, and beside it a second process calling
# from CPU 4 with its spinner on the isolated CPU 2 (ipi_mb IPIs to CPU 2).
# Paced (--rate), so that both last about as long.
if grep -q 'ipitest=pair' /proc/cmdline; then
	kept="$WL --cpus 0,1 --rate 300 membarrier 450"
	added="$WL --cpus 4,2 --rate 300 membarrier 450"
	for run in 1 2; do
		ipitrace record -q --force -o /out/pair$run-before.dat -- /bin/sh -c "$kept" >> /out/pair.txt 2>> /out/pair.err
		ipitrace record -q --force -o /out/pair$run-after.dat -- /bin/sh -c "$added & $kept; wait" >> /out/pair.txt 2>> /out/pair.err
	done
	echo "pair-end $(uptime_s)" >> /out/times
fi
ls $T/instances > /out/instances-after 2>/dev/null
cat $T/kprobe_events > /out/kprobes-after 2>/dev/null
tar -cf - -C /out . | dd of=/dev/vda bs=64k conv=fsync 2> /dev/null
sync
say "done"
poweroff -f
