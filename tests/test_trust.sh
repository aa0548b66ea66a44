# test_trust.sh - numbers right, or a clear word why not, off the happy path
# (issue "Trust"): each case is built by hand from a real trace, and the
# expected value comes from that construction, not from ipitrace.
. "$(dirname "$0")/lib.sh"
V6="$TRACES/recorded/pingpong.v6.dat"

# 1. v6 files of trace-cmd before 3.0: the clock only after the CPU table
# (the TRACECLOCK option empty).  Made from pingpong.v6.dat: the option's
# text blanked, the copy after the table set to "[boot]" (or cut).
if [ -f "$V6" ]; then
	$PY - "$V6" "$TMP" <<'PY'
import sys
src, tmp = sys.argv[1], sys.argv[2]
d = bytearray(open(src, 'rb').read())
o = d.find(b'[local] global counter'); e = d.find(b'\n', o)
d[o:e] = bytes(e - o)                       # the option says nothing
f = d.find(b'flyrecord\x00') + 10 + 2 * 16  # after the 2-CPU table
assert d[f:f + 8] == (7).to_bytes(8, 'little') and d[f + 8:f + 15] == b'[local]'
boot = bytearray(d); boot[f:f + 8] = (6).to_bytes(8, 'little'); boot[f + 8:f + 15] = b'[boot]\x00'
open(tmp + '/old-boot.dat', 'wb').write(boot)
bad = bytearray(d); bad[f:f + 8] = (1 << 40).to_bytes(8, 'little')
open(tmp + '/old-badclock.dat', 'wb').write(bad)
PY
	clock_of() { "$IPT" report --format json "$1" | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d["clock"], d["cross_cpu_latency"])'; }
	got=$(clock_of "$TMP/old-boot.dat")
	[ "$got" = "boot True" ] && pass "v6 clock stored after the CPU table is read (boot, cross-CPU latencies on)" ||
		fail "v6 clock after the CPU table" "got '$got', want 'boot True'"
	got=$(clock_of "$TMP/old-badclock.dat")
	[ "$got" = "local False" ] && pass "v6 clock after the table unreadable: local, as trace-cmd assumes" ||
		fail "v6 unreadable clock" "got '$got', want 'local False'"
	n=$(trace-cmd report "$TMP/old-boot.dat" 2>/dev/null | grep -c ': ipi_send_cpu:')
	m=$("$IPT" dump "$TMP/old-boot.dat" | grep -c ': ipi_send_cpu:')
	[ "$n" = "$m" ] && [ "$n" -gt 0 ] && pass "the changed v6 file reads in trace-cmd and ipitrace alike ($n sends)" ||
		fail "changed v6 file" "trace-cmd $n sends, ipitrace $m"
else
	skip "v6 clock" "no $V6"
fi
finish
