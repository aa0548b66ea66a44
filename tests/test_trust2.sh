# test_trust2.sh - no answer that quietly drops what it cannot explain
# (issue "Trust II"), on live recordings: each expected value comes from the
# kernel (its /proc/interrupts counters, read by this script) or from how
# the recording was made, never from ipitrace's own output.
# run: live
# seconds: 20
. "$(dirname "$0")/lib.sh"

WL="$TOP/$B/tools/ipi-workload"
if [ "$(id -u)" != 0 ] || ! mount_tracefs; then
	skip trust2 "needs root and tracefs"
	finish
fi
[ "$(nproc)" -ge 2 ] || { skip trust2 "needs 2 CPUs"; finish; }

# cal CPU: the kernel's function-call interrupt count on CPU (/proc/interrupts CAL)
cal() { awk -v c=$(($1 + 2)) '$1 == "CAL:" { print $c }' /proc/interrupts; }

# 3. a recording's own --cpus in the kernel counters: record only what
# targets CPU 1 while membarrier sends function calls from CPU 1 to CPU 0.
# CPU 0's counters must say "not recorded", with the number the kernel
# counted, not "unexplained" and a footnote that blames lost events.
before=$(cal 0)
"$IPT" record -c 1 -o "$TMP/c1.dat" -- "$WL" --cpus 1,0 membarrier 3000 > "$TMP/rec.out" 2>&1
rc=$?
after=$(cal 0)
if [ $rc != 0 ]; then
	fail "record -c 1" "exit $rc: $(tail -n 3 "$TMP/rec.out" | tr '\n' ';')"
else
	"$IPT" report -f json "$TMP/c1.dat" > "$TMP/c1.json" && "$IPT" report "$TMP/c1.dat" > "$TMP/c1.txt"
	$PY - "$TMP/c1.json" "$TMP/c1.txt" "$before" "$after" > "$TMP/check" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1])); text = open(sys.argv[2]).read()
before, after = int(sys.argv[3]), int(sys.argv[4])
rows = [k for k in d["kernel_counters"] if k["cpu"] == 0 and k["kernel"] is not None and not k["within"]]
cal0 = [k for k in rows if k["row"] == "CAL"]
bad = [k for k in rows if k["note"] != "not_recorded" or k["unexplained"] != 0]
total = sum(k["kernel"] for k in rows)
m = re.search(r"not recorded: (\d+) interrupts on CPUs that the recording's --cpus 1 left out", text)
problems = []
if not cal0 or cal0[0]["kernel"] < 100:
    problems.append("CPU 0 took too few function calls to tell: %s" % cal0)
elif cal0[0]["kernel"] > after - before:
    problems.append("the file's CAL count %d exceeds the kernel's delta around the run %d" % (cal0[0]["kernel"], after - before))
if bad:
    problems.append("CPU 0 rows not marked not_recorded: %s" % bad)
if not m or int(m.group(1)) != total:
    problems.append("footnote %s, want %d" % (m.group(0) if m else None, total))
if re.search(r"^\s+0 CAL .*\s\d+\s+Function call interrupts$", text, re.M):
    problems.append("CPU 0's CAL counted as unexplained in the text")
print("; ".join(problems) if problems else "ok %d %d" % (cal0[0]["kernel"], after - before))
PY
	res=$(cat "$TMP/check")
	case $res in
	ok*) pass "record -c 1: CPU 0's counters say not recorded, by the number (kernel CAL, delta around the run: ${res#ok })" ;;
	*) fail "record -c 1: CPU 0's counters" "$res" ;;
	esac
fi
finish
