# test_qemu_spikes.sh - latency spikes on Debian's PREEMPT_RT kernel under
# qemu (issue 39): tests/qemu/prepare.sh fetches linux-image-rt-amd64 (6.1,
# with the osnoise and timerlat tracers; cached in build/qemu, never
# committed) and builds the initramfs; tests/qemu/boot.sh boots it (TCG, 4
# CPUs, CPUs 2-3 isolcpus, nohz_full and rcu_nocbs; about 50 s here, of
# which 45 in the guest, 22 of them the two rtla phases); tests/qemu/spikes.sh
# records in the guest
# (`record --timerlat` while ipi-workload on CPUs 0-1 sends IPIs to 2-3,
# then `--timerlat=1000`, then tracefs's own text of a timerlat instance and
# a recording refused beside it, then `record --osnoise` and an osnoise
# instance's text); tests/qemu/spikes_check.py checks on the
# host, against trace-cmd's report of the guest's files, the guest's
# /proc/interrupts and osnoise/ settings and tracefs's text, each parsed
# there: the samples (every one, on CPUs 2-3 only), the irq_noise entries
# of the IPIs and the sends, dump's lines of them against trace-cmd's, the
# settings restored, the threshold ending the recording, the refusal, the
# osnoise summaries, and `explain` against a join of its own over
# `trace-cmd report -t`; then three recordings with an injected sender
# (the workload binary copied as `injipi`, membarrier IPIs from CPU 0 to
# its spinners on 2-3, a pingpong decoy beside it), each checked: `explain
# -f json` names injipi the top IPI sender by spike time, with the spike
# time our own join gives it, and each spike's IPI interrupts, their
# handler times, first senders and irq_noise ties agree with that join.
# Then Debian's rtla 6.1 in the guest (`rtla timerlat top -t` with -e for
# irq_vectors, osnoise and the recorder's probes, made again by hand under
# the group spikeprobes) while injipi runs: its saved text read by
# `explain`, checked by the same join (microseconds: tracefs's text) and
# injipi its top sender; and the observer cost, `rtla timerlat hist` on
# 2-3 under the same load without and with `ipitrace record` (max, p99);
# and osnoise's samples as spikes: `explain` of the osnoise recording lists
# every sample_threshold over 1 ms of trace-cmd's report, [ts - duration,
# ts], with the IPI interrupts our join finds in it.
# Latencies under TCG are figures without a target.  The guest's results
# stay in build/qemu/out/x86_64-rt-spikes.  make check-qemu runs it.
# run: live
# suite: qemu
# seconds: 70
# asan: no - the guest runs a static non-ASan build; make check-qemu runs it
. "$(dirname "$0")/lib.sh"
Q=$TOP/build/qemu
case $B in
*asan*) echo "(the qemu guest runs once, in the plain build's pass: it runs a static non-ASan build)"; finish ;;
esac
for c in trace-cmd cpio gzip dpkg-deb apt-get qemu-system-x86_64; do
	command -v $c > /dev/null 2>&1 || { skip qemu-spikes "no $c"; finish; }
done
t_start=$(date +%s)
sh "$TOP/tests/qemu/prepare.sh" x86_64-rt "$Q" > "$TMP/prep" 2> "$TMP/prep.err"
rc=$?
if [ $rc = 3 ]; then
	skip qemu-spikes "$(head -n 1 "$TMP/prep.err")"
	finish
elif [ $rc != 0 ]; then
	fail qemu-spikes-prepare "$(tail -n 3 "$TMP/prep.err" | tr '\n' ';')"
	finish
fi
echo "FIGURE qemu-spikes-prepare-s $(($(date +%s) - t_start))"
kernel=$(sed -n 's/^kernel //p' "$TMP/prep")
initrd=$(sed -n 's/^initrd //p' "$TMP/prep")
out=$Q/out/x86_64-rt-spikes
rm -rf "$out"
# one host thread for the 4 vCPUs (see test_qemu.sh); once more with the
# other mode if qemu hangs or dies
for thread in ${QEMU_TCG_THREAD:-single} multi; do
	QEMU_CPUS=4 QEMU_TIMEOUT=${QEMU_TIMEOUT:-240} QEMU_TCG_THREAD=$thread sh "$TOP/tests/qemu/boot.sh" x86_64 \
		"$kernel" "$initrd" "$out" ipitest=spikes isolcpus=2,3 nohz_full=2,3 rcu_nocbs=2,3 2> "$TMP/boot.err" && break
	grep -q -E 'timed out|died of signal' "$TMP/boot.err" || break
	echo "NOTE qemu $(cat "$TMP/boot.err") with TCG thread=$thread; booting again"
	cp "$out/console.log" "$Q/out/x86_64-rt-spikes.failed-console.log" 2> /dev/null
	rm -rf "$out"
done
if [ ! -f "$out/times" ]; then
	fail qemu-spikes-boot "$(head -n 2 "$TMP/boot.err" | tr '\n' ';') $(tail -n 3 "$out/console.log" 2>/dev/null | tr '\n' ';')"
	finish
fi
echo "FIGURE qemu-spikes-boot-to-init-s $(sed -n 's/^init //p' "$out/times")"
echo "FIGURE qemu-spikes-qemu-wall-s $(cat "$out/wall")"
echo "FIGURE qemu-spikes-kernel $(cat "$out/uname")"
$PY "$TOP/tests/qemu/spikes_check.py" "$out" "$IPT" > "$TMP/check.out" 2>&1
rc=$?
grep -v '^PASS\|^FAIL' "$TMP/check.out"
if [ $rc != 0 ] && ! grep -q '^FAIL' "$TMP/check.out"; then
	fail qemu-spikes-check "spikes_check.py exit $rc: $(tail -n 1 "$TMP/check.out")"
fi
while read -r word rest; do
	case $word in
	PASS) pass "qemu-$rest" ;;
	FAIL) fail "qemu-${rest%%:*}" "${rest#*: }" ;;
	esac
done < "$TMP/check.out"
echo "FIGURE qemu-spikes-total-s $(($(date +%s) - t_start))"
finish
