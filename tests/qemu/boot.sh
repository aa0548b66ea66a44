#!/bin/sh
# boot.sh ARCH KERNEL INITRD OUTDIR [APPEND...] - boot one guest under qemu
# (TCG, QEMU_CPUS CPUs, default 8; 1 GiB, niced), its console into
# OUTDIR/console.log, and unpack the tar the guest wrote onto its second
# disk into OUTDIR.  Extra kernel command-line words after OUTDIR (e.g.
# isolcpus=2,3).  Gives up after
# QEMU_TIMEOUT seconds (default 240).  QEMU_TCG_THREAD: single (default) runs
# every vCPU on one host thread, multi one host thread per vCPU (qemu 7.2's
# multi-threaded TCG died of SIGSEGV in memory_region_dispatch_write, and its
# guests locked up, on this 2-CPU host: see test_qemu.sh).  Exit 0 if the
# guest wrote its results; on a qemu crash say so ("qemu died of signal N").
arch=$1 kernel=$2 initrd=$3 out=$4
shift 4
mkdir -p "$out"
img=$out/disk.img
rm -f "$img"
dd if=/dev/zero of="$img" bs=1M count=64 2> /dev/null
cpus=${QEMU_CPUS:-8}
case $arch in
x86_64)
	set -- qemu-system-x86_64 -accel tcg,thread=${QEMU_TCG_THREAD:-single} -cpu max -smp "$cpus" -m 1024 -nographic -no-reboot \
		-kernel "$kernel" -initrd "$initrd" -append "console=ttyS0 panic=-1 quiet ${QEMU_APPEND:-} $*" \
		-drive file="$img",format=raw,if=virtio ;;
arm64)
	# the virt board's default GICv2 takes at most 8 CPUs; GICv3 more
	machine=virt
	[ "$cpus" -gt 8 ] && machine=virt,gic-version=3
	set -- qemu-system-aarch64 -accel tcg,thread=${QEMU_TCG_THREAD:-single} -M $machine -cpu cortex-a57 -smp "$cpus" -m 1024 -nographic -no-reboot \
		-kernel "$kernel" -initrd "$initrd" -append "console=ttyAMA0 panic=-1 quiet ${QEMU_APPEND:-} $*" \
		-drive file="$img",format=raw,if=none,id=out -device virtio-blk-device,drive=out ;;
esac
t0=$(date +%s.%N)
timeout "${QEMU_TIMEOUT:-240}" nice -n 10 "$@" < /dev/null > "$out/console.log" 2>&1
rc=$?
t1=$(date +%s.%N)
echo "$t0 $t1" | awk '{ printf "%.1f\n", $2 - $1 }' > "$out/wall"
[ $rc = 124 ] && echo "boot.sh: qemu timed out after ${QEMU_TIMEOUT:-240} s" >&2
# timeout(1) passes on the signal that killed qemu: the shell sees 128+N
if [ $rc -gt 128 ] && [ $rc -lt 160 ]; then
	echo "boot.sh: qemu died of signal $((rc - 128)) (TCG thread=${QEMU_TCG_THREAD:-single})" >&2
	exit 1
fi
tar -xf "$img" -C "$out" 2> /dev/null || { echo "boot.sh: no results on the disk (qemu rc $rc)" >&2; exit 1; }
rm -f "$img"
exit 0
