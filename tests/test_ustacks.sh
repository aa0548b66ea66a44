#!/bin/sh
# test_ustacks.sh - record --user-stacks (issue 16, item 5) on the live
# kernel: the workload (built with frame pointers) sends membarrier IPIs
# from run_membarrier(); the report's stacks must name that function as
# often as the raw user addresses trace-cmd prints fall inside it, at the
# place the workload itself says it was loaded (tests/ustacks_check.py:
# trace-cmd's text, nm -S, the workload's own printout; needs root,
# tracefs, trace-cmd; SKIP lines otherwise).  libdw is opened only when
# the user stacks start: where it cannot be loaded (hidden in a mount
# namespace of the test's), record says so in one line and leaves no
# instance behind.
# run: live
. "$(dirname "$0")/lib.sh"
LIVE_NAME=ustacks
. "$(dirname "$0")/live.sh"
if [ $HAVE_TC = 0 ]; then
	skip ustacks "trace-cmd not installed (the independent reader)"
	finish
fi
if [ ! -e $T/options/userstacktrace ]; then
	skip ustacks "this kernel has no userstacktrace option"
	finish
fi
if ! command -v nm >/dev/null 2>&1; then
	skip ustacks "nm (binutils) not installed"
	finish
fi
D=$TMP/us.dat

# usage errors and the build's support first
"$IPT" record --help | grep -q -- "--user-stacks" && pass "help names --user-stacks" ||
	fail "help" "record --help does not name --user-stacks"

# two runs: two processes, loaded at other addresses, one code path
IPI_WORKLOAD_PRINT_ADDR=1 "$IPT" record --user-stacks -o "$D" -- sh -c \
	"'$WL' --cpus 0,1 --rate 2000 membarrier 1000 && '$WL' --cpus 0,1 --rate 2000 membarrier 1000" \
	> "$TMP/wl.out" 2> "$TMP/rec.err"
rc=$?
if grep -q "built without elfutils" "$TMP/rec.err"; then
	skip ustacks "this ipitrace was built without elfutils (libdw)"
	finish
fi
[ $rc = 0 ] && pass "record --user-stacks exit 0" ||
	{ fail "record --user-stacks" "exit $rc: $(tail -n 2 "$TMP/rec.err")"; finish; }
grep "user stacks:" "$TMP/rec.err" | sed 's/^/# /'
grep -q "user stacks: [1-9][0-9]* recorded" "$TMP/rec.err" && pass "recorder says what it resolved" ||
	fail "recorder note" "no 'user stacks: N recorded' line"

size=$(nm -S "$WL" | awk '$4 == "run_membarrier" { print $2 }' | head -n 1)
if [ "$(grep -c '^addr run_membarrier 0x' "$TMP/rec.err")" != 2 ] || [ -z "$size" ]; then
	fail "workload" "no run_membarrier addresses, or no size ($size)"
	finish
fi

trace-cmd report -l "$D" > "$TMP/tc.txt" 2> "$TMP/tc.err" && pass "trace-cmd reads the file" ||
	fail "trace-cmd report" "$(head -n 2 "$TMP/tc.err")"
"$IPT" report --format folded "$D" > "$TMP/folded" 2> "$TMP/folded.err" ||
	fail "report --format folded" "$(head -n 1 "$TMP/folded.err")"
"$IPT" report -g stack -t 0 -f json "$D" > "$TMP/groups.json" 2> "$TMP/groups.err" ||
	fail "report -g stack" "$(head -n 1 "$TMP/groups.err")"
$PY "$TOP/tests/ustacks_check.py" "$TMP/tc.txt" "$TMP/rec.err" "$size" "$TMP/folded" "$TMP/groups.json" > "$TMP/v"
verdicts "$TMP/v"

# the text report names the function, its file, and reaches main's caller
"$IPT" report "$D" > "$TMP/rep.txt" 2>&1
grep -q "run_membarrier+0x[0-9a-f]* \[ipi-workload\]" "$TMP/rep.txt" &&
	pass "text report: run_membarrier [ipi-workload] in the stacks" ||
	fail "text report" "no run_membarrier frame"
grep -q "go on into the sender's user stack" "$TMP/rep.txt" && pass "text report: user stack counts" ||
	fail "text report" "no user stack counts"
# folded lines through run_membarrier run from libc's start through main
bad=$(grep ';run_membarrier;' "$TMP/folded" | grep -vc '^ipi-workload;__libc_start_call_main;main;run_membarrier;')
[ "$bad" = 0 ] && pass "run_membarrier stacks root at __libc_start_call_main;main" ||
	fail "folded roots" "$bad lines through run_membarrier do not start at __libc_start_call_main;main"
# JSON: the frames as "function+0xoff"
"$IPT" report -f json "$D" > "$TMP/rep.json" 2>&1
grep -q '"run_membarrier+0x' "$TMP/rep.json" && pass "json report: run_membarrier frame" ||
	fail "json report" "no run_membarrier frame"
# provenance, and offline: the symbols come from the file, not the machine
grep -q "user_stacks: yes\|user_stacks=yes\|--user-stacks" "$TMP/rep.txt" && pass "provenance: user stacks" ||
	fail "provenance" "the report does not say user stacks were recorded"

# a frame the frame-pointer walk skips says so: a program (frame pointers)
# calls write(2) through libc (whose __write keeps no frame pointer: its
# caller g_libc cannot be seen) and through an inline syscall instruction
# (every frame seen).  Expected: from the program's own call structure,
# and from libc's unwind table as readelf prints it (CFA from rsp at
# __write's syscall).
if command -v cc > /dev/null 2>&1 && [ "$(uname -m)" = x86_64 ] && [ "$(nproc)" -ge 2 ]; then
	cat > "$TMP/skip.c" <<'C'
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
static int fds[2];
static void *reader(void *arg)
{
	char c;
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(1, &s);
	pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
	while (read(fds[0], &c, 1) == 1)
		;
	return arg;
}
__attribute__((noinline)) void g_libc(void) { char c = 1; if (write(fds[1], &c, 1) != 1) exit(1); }
__attribute__((noinline)) void f_libc(void) { g_libc(); }
__attribute__((noinline)) void g_inline(void)
{
	char c = 2;
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "a"(1L), "D"((long)fds[1]), "S"(&c), "d"(1L) : "rcx", "r11", "memory");
	if (r != 1)
		exit(1);
}
__attribute__((noinline)) void f_inline(void) { g_inline(); }
int main(void)
{
	pthread_t t;
	cpu_set_t s;
	if (pipe(fds))
		return 1;
	CPU_ZERO(&s);
	CPU_SET(0, &s);
	sched_setaffinity(0, sizeof(s), &s);
	pthread_create(&t, NULL, reader, NULL);
	for (int i = 0; i < 300; i++) {
		f_libc();
		usleep(100);
		f_inline();
		usleep(100);
	}
	close(fds[1]);
	pthread_join(t, NULL);
	return 0;
}
C
	if cc -O1 -g -fno-omit-frame-pointer -pthread -o "$TMP/skip" "$TMP/skip.c" 2> "$TMP/cc.err"; then
		# the writes wake the reader on CPU 1 with an IPI only while that
		# CPU is free enough (on a machine busy with other jobs a run can
		# draw none through a path): then up to twice more
		tries=0
		while [ $tries -lt 3 ]; do
		tries=$((tries + 1))
		"$IPT" record --user-stacks --force -o "$TMP/skip.dat" -- "$TMP/skip" > /dev/null 2>&1
		"$IPT" convert -f csv --force -o "$TMP/skip.csv" "$TMP/skip.dat" 2> /dev/null
		M='[a caller is missing: the function before keeps no frame pointer]'
		$PY - "$TMP/skip.csv" "$M" > "$TMP/skip.v" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]))); mark = sys.argv[2]
def user(st):
    f = st.split(";")
    i = max([k for k, x in enumerate(f) if x.startswith("entry_SYSCALL_64")] or [-1])
    return [x.split("+")[0] for x in f[i + 1:]]
mine = [r for r in rows if r["comm"] == "skip"]
libc = [user(r["stack"]) for r in mine if ";__write+" in r["stack"]]
inl = [user(r["stack"]) for r in mine if ";g_inline+" in r["stack"]]
ok_libc = [u for u in libc if u[:4] == ["__write", mark, "f_libc", "main"] and "g_libc" not in u]
ok_inl = [u for u in inl if u[:3] == ["g_inline", "f_inline", "main"] and mark not in u]
print("%d %d %d %d" % (len(libc), len(ok_libc), len(inl), len(ok_inl)))
PY
		set -- $(cat "$TMP/skip.v")
		[ "$1" -gt 0 ] && [ "$3" -gt 0 ] && break
		done
		[ $tries -gt 1 ] && echo "(the skip program ran $tries times: the runs before drew no IPI through a path)"
		[ "$1" -gt 0 ] && [ "$1" = "$2" ] &&
			pass "through libc's __write: marked where its caller is missing ($1 stacks)" ||
			fail "a stack through __write" "$2 of $1 stacks are __write;[missing];f_libc;main"
		[ "$3" -gt 0 ] && [ "$3" = "$4" ] &&
			pass "through an inline syscall: every frame, no mark ($3 stacks)" ||
			fail "a stack through an inline syscall" "$4 of $3 stacks are g_inline;f_inline;main unmarked"
		# the independent fact: libc's unwind table computes __write's frame from rsp
		LIBC=$(ldd "$TMP/skip" | sed -n 's/.*libc.so.6 => \([^ ]*\).*/\1/p')
		if [ -n "$LIBC" ] && command -v readelf > /dev/null 2>&1; then
			nm -D "$LIBC" > "$TMP/nm" 2> /dev/null
			readelf -wF "$LIBC" > "$TMP/frames" 2> /dev/null
			cfa=$($PY - "$TMP/nm" "$TMP/frames" <<'PY'
import re, sys
w = [int(l.split()[0], 16) for l in open(sys.argv[1]) if re.match(r"\S+ \w (__)?write(@|$)", l.strip())]
lo = hi = None
for l in open(sys.argv[2]):
    m = re.search(r"pc=([0-9a-f]+)\.\.([0-9a-f]+)", l)
    if m:
        lo, hi = int(m.group(1), 16), int(m.group(2), 16)
        continue
    m = re.match(r"([0-9a-f]{8,}) (\S+)", l)
    if m and w and lo is not None and lo <= w[0] < hi:
        print(m.group(2)); break
PY
)
			case $cfa in
			rsp*) pass "libc's unwind table: __write's frame from rsp (no frame pointer): $cfa" ;;
			*) skip "libc's unwind table" "readelf gave '$cfa' for __write" ;;
			esac
		fi
	else
		skip "a frame the walk skips" "cc failed: $(head -c 200 "$TMP/cc.err")"
	fi
fi
# libdw opened when the user stacks start: where it cannot be (hidden),
# one line naming it, exit 1, no instance left
DW=$(ldconfig -p 2>/dev/null | sed -n 's/^[[:space:]]*libdw\.so\.1 (.*x86-64.*) => //p; s/^[[:space:]]*libdw\.so\.1 (.*AArch64.*) => //p' | head -n 1)
if ! "$IPT" --version | grep -q '+libdw'; then
	skip ustacks-no-libdw "this build has no libdw"
elif [ -z "$DW" ] || ! command -v unshare > /dev/null 2>&1; then
	skip ustacks-no-libdw "no libdw.so.1 in ldconfig's cache, or no unshare"
else
	unshare -m sh -c 'mount --bind /dev/null "$1" && exec "$2" record --user-stacks -d 0.5 -o "$3"' sh \
		"$(readlink -f "$DW")" "$IPT" "$TMP/nodw.dat" > /dev/null 2> "$TMP/nodw.err"
	rc=$?
	left=$(ls -d "$T"/instances/ipitrace-* 2>/dev/null | wc -l)
	if [ $rc = 1 ] && grep -q "user stacks: elfutils' libdw, which resolves them, cannot be loaded: .*libdw" "$TMP/nodw.err" &&
	   [ "$(grep -c 'libdw' "$TMP/nodw.err")" = 1 ] && [ "$left" = 0 ]; then
		pass "ustacks-no-libdw: $(grep 'libdw' "$TMP/nodw.err")"
	else
		fail ustacks-no-libdw "rc $rc, $left instances left: $(tail -n 2 "$TMP/nodw.err" | tr '\n' ';')"
	fi
fi
finish
