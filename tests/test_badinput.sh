#!/bin/sh
# test_badinput.sh - bad inputs each get a one-line error naming the file
# (and the offset where it applies), a non-zero exit, and never a crash or
# a sanitizer report: empty, truncated at many cut points, wrong magic,
# sizes past the end, garbage formats, a __data_loc outside its record, a
# compressed chunk that does not decompress, a directory, a missing file,
# 10 GB sparse files with bogus headers (fast, small memory).
# seconds: 40
. "$(dirname "$0")/lib.sh"

R="$TRACES/recorded"
[ -f "$R/pingpong.dat" ] || { skip badinput "no recorded traces under $TRACES"; finish; }

# expect_error NAME FILE [OFFSET-REQUIRED]: dump must fail with one clean line
# run_dump FILE: ipitrace dump FILE; with RSS_FILE set, its peak RSS (KB)
# is written there (the same run: the sparse files take seconds each)
run_dump() {
	if [ -z "${RSS_FILE:-}" ]; then
		"$IPT" dump "$1"
		return
	fi
	"$PY" -c '
import resource, subprocess, sys
r = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL)
open(sys.argv[1], "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(128 - r.returncode if r.returncode < 0 else r.returncode)' "$RSS_FILE" "$IPT" dump "$1"
}
expect_error() {
	name=$1 file=$2 want_off=${3:-}
	run_dump "$file" > /dev/null 2> "$TMP/err"
	rc=$?
	lines=$(wc -l < "$TMP/err")
	if [ $rc -eq 0 ]; then
		fail "$name" "exit 0"
	elif [ $rc -ge 128 ]; then
		fail "$name" "killed by signal $((rc - 128))"
	elif grep -q -E 'Sanitizer|runtime error' "$TMP/err"; then
		fail "$name" "sanitizer: $(grep -m1 -E 'Sanitizer|runtime error' "$TMP/err")"
	elif [ "$lines" -ne 1 ]; then
		fail "$name" "$lines lines on stderr"
	elif ! grep -qF "$file" "$TMP/err"; then
		fail "$name" "message does not name the file: $(cat "$TMP/err")"
	elif [ -n "$want_off" ] && ! grep -q 'offset [0-9]' "$TMP/err"; then
		fail "$name" "message gives no offset: $(cat "$TMP/err")"
	else
		pass "$name"
	fi
}

: > "$TMP/empty.dat"
expect_error "empty file" "$TMP/empty.dat" off
printf 'GARBAGE\0\0\0\0\0\0\0\0\0' > "$TMP/magic.dat"
expect_error "wrong magic" "$TMP/magic.dat" off
printf '\027\010Dtracing9\0' > "$TMP/version.dat"
expect_error "unknown version" "$TMP/version.dat" off
mkdir -p "$TMP/adir"
expect_error "directory" "$TMP/adir"
expect_error "missing file" "$TMP/does-not-exist.dat"

# truncations at 40 cut points of each file variant (the ASan pass: the six
# inside the file header and every fourth of the others, 15 of a variant;
# each cut renders the trace up to it, a second under ASan for the large
# ones; the plain pass cuts at all 40)
cuts=$(seq 1 40)
# (make check-fast too: FAST=1)
[ "$ASAN" = 1 ] || [ "${FAST:-0}" = 1 ] && cuts="1 2 3 4 5 6 8 12 16 20 24 28 32 36 40"
for f in pingpong.dat pingpong.v6.dat pingpong.v7-none.dat; do
	size=$(stat -c %s "$R/$f")
	bad=0 total=0
	for i in $cuts; do
		cut=$(( (size * i) / 41 ))
		[ $i -le 6 ] && cut=$(( i * 7 ))	# inside the file header too
		head -c "$cut" "$R/$f" > "$TMP/cut.dat"
		"$IPT" dump "$TMP/cut.dat" > /dev/null 2> "$TMP/err"
		rc=$?
		total=$((total + 1))
		if [ $rc -eq 0 ] || [ $rc -ge 128 ] || [ "$(wc -l < "$TMP/err")" -ne 1 ] ||
		   grep -q -E 'Sanitizer|runtime error' "$TMP/err" || ! grep -q "offset [0-9]" "$TMP/err"; then
			bad=$((bad + 1))
			echo "  cut $cut of $f: rc=$rc: $(head -c 300 "$TMP/err")"
		fi
	done
	[ $bad -eq 0 ] && pass "$f truncated at $total points" || fail "$f truncated" "$bad of $total cut points not cleanly rejected"
done

# byte patches (python3 writes them; offsets found from the file itself)
if command -v "$PY" >/dev/null; then
	"$PY" - "$R" "$TMP" <<'PY'
import struct, sys, re
R, T = sys.argv[1], sys.argv[2]
v6 = bytearray(open(R + "/pingpong.v6.dat", "rb").read())
# 1. header_page size (u64 after "header_page\0") claims far past the end
i = v6.index(b"header_page\0") + 12
b = bytearray(v6); b[i:i+8] = struct.pack("<Q", 1 << 40); open(T + "/hp_size.dat", "wb").write(b)
# 2. a format file with garbage: overwrite the first "field:" line of the ipi_send_cpu format
i = v6.index(b"name: ipi_send_cpu\n")
j = v6.index(b"field:", i)
b = bytearray(v6); b[j:j+40] = b"field:@@@ garbage garbage garbage garbage"[:40]
open(T + "/fmt_garbage.dat", "wb").write(b)
# 3. event format: ID line garbage
i = v6.index(b"ID: ", v6.index(b"name: ipi_send_cpumask"))
b = bytearray(v6); b[i:i+6] = b"ID: x1"; open(T + "/fmt_id.dat", "wb").write(b)
# 4. kallsyms size past the end: kallsyms comes after the formats; find "ffffffff81000000 T"
k = v6.index(b"ffffffff81000000 ")
b = bytearray(v6); b[k-4:k] = struct.pack("<I", 0xfffffff0); open(T + "/ksyms_size.dat", "wb").write(b)
# 5. flyrecord CPU offset past the end
f = v6.index(b"flyrecord\0") + 10
b = bytearray(v6); b[f:f+8] = struct.pack("<Q", len(v6) * 4); open(T + "/cpu_off.dat", "wb").write(b)
# 6. a page commit size past its page: first page of CPU 0
off, = struct.unpack("<Q", v6[f:f+8])
b = bytearray(v6); b[off+8:off+16] = struct.pack("<Q", 0x7ffffff); open(T + "/commit.dat", "wb").write(b)
# 7. an event length past the page data: first event header of CPU 0 -> type_len 0, huge length
b = bytearray(v6); b[off+16:off+24] = struct.pack("<II", 0, 0x7fffffff); open(T + "/evlen.dat", "wb").write(b)
# 8. __data_loc pointing outside its record: needs a cpumask event; make one from the
#    first ipi_send_cpu record by patching its type to ipi_send_cpumask (id 353) and
#    its cpu field to a data_loc (len 8, offset 200)
m = re.search(rb"name: ipi_send_cpumask\nID: (\d+)", v6); mask_id = int(m.group(1))
m = re.search(rb"name: ipi_send_cpu\nID: (\d+)", v6); cpu_id = int(m.group(1))
b = bytearray(v6)
p = off + 16
end = off + 16 + (struct.unpack("<Q", v6[off+8:off+16])[0] & ((1 << 27) - 1))
done = False
while p < end and not done:
    h, = struct.unpack("<I", b[p:p+4]); tl = h & 31
    if tl == 0:
        ln = struct.unpack("<I", b[p+4:p+8])[0] - 4; d = p + 8
    elif tl <= 28:
        ln = tl * 4; d = p + 4
    elif tl == 29:
        p += 4 + struct.unpack("<I", b[p+4:p+8])[0]; continue
    else:
        p += 8; continue
    if struct.unpack("<H", b[d:d+2])[0] == cpu_id:
        b[d:d+2] = struct.pack("<H", mask_id)
        b[d+8:d+12] = struct.pack("<I", (8 << 16) | 200)
        done = True
    p = d + ((ln + 3) & ~3)
open(T + "/dataloc.dat", "wb").write(b)
# 9. a zstd chunk that does not decompress: flip bytes inside the first CPU's first chunk
z = bytearray(open(R + "/pingpong.dat", "rb").read())
m = z.find(b"\x28\xb5\x2f\xfd", 1100000)   # a zstd frame magic in the flyrecord data
z[m+20:m+60] = b"\xff" * 40
open(T + "/zstd_chunk.dat", "wb").write(z)
# 10. v7: the first options offset past the end
z7 = bytearray(open(R + "/pingpong.v7-none.dat", "rb").read())
i = z7.index(b"none\0") + 5
i = z7.index(b"\0", i) + 1
z7[i:i+8] = struct.pack("<Q", 1 << 50); open(T + "/v7_opts.dat", "wb").write(z7)
PY
	expect_error "header_page size past the end" "$TMP/hp_size.dat" off
	expect_error "format file with garbage" "$TMP/fmt_garbage.dat" off
	expect_error "format file with a bad ID" "$TMP/fmt_id.dat" off
	expect_error "kallsyms size past the end" "$TMP/ksyms_size.dat" off
	expect_error "CPU data offset past the end" "$TMP/cpu_off.dat" off
	expect_error "page commit past its page" "$TMP/commit.dat" off
	expect_error "event length past the page" "$TMP/evlen.dat" off
	expect_error "v7 options offset past the end" "$TMP/v7_opts.dat" off
	expect_error "zstd chunk that does not decompress" "$TMP/zstd_chunk.dat" off
	expect_error "__data_loc outside its record" "$TMP/dataloc.dat" off
else
	skip "byte patches" "python3 missing"
fi

# 10 GB sparse files whose header claims sizes the file seems to back (all
# zeros): clean error, and memory stays small (peak RSS measured by python3's
# getrusage of the child; 256 MB leaves room for the sanitizers' own)
if command -v "$PY" >/dev/null && command -v truncate >/dev/null; then
	"$PY" - "$R" "$TMP" <<'PY2'
import struct, sys
R, T = sys.argv[1], sys.argv[2]
v6 = bytearray(open(R + "/pingpong.v6.dat", "rb").read())
G = 10 << 30
def mk(name, b):
    with open(T + "/" + name, "wb") as f:
        f.write(b)
        f.truncate(G)
# header_page section of 9 GB
i = v6.index(b"header_page\0") + 12
b = bytearray(v6[:i + 8]); b[i:i+8] = struct.pack("<Q", 9 << 30); mk("sparse-hp.dat", b)
# kallsyms of 4 GB (the file goes on with zeros)
k = v6.index(b"ffffffff81000000 ")
b = bytearray(v6[:k]); b[k-4:k] = struct.pack("<I", 0xfffffff0); mk("sparse-ksyms.dat", b)
# both CPUs' ring-buffer data: 9 GB of zeros each
f = v6.index(b"flyrecord\0") + 10
b = bytearray(v6[:f + 32]); b[f:f+32] = struct.pack("<QQQQ", 1 << 20, 9 << 30, 1 << 20, 9 << 30)
mk("sparse-cpu.dat", b)
# nothing but zeros
mk("sparse-zeros.dat", b"")
PY2
	blocks=$(du -k "$TMP/sparse-zeros.dat" | cut -f1)
	if [ "$blocks" -gt 1024 ]; then
		skip "10 GB sparse files" "$TMP does not keep files sparse"
	else
		for f in hp ksyms cpu zeros; do
			RSS_FILE=$TMP/rss expect_error "10 GB sparse file, bogus $f" "$TMP/sparse-$f.dat" off
			kb=$(cat "$TMP/rss")
			check "10 GB sparse file, bogus $f: peak RSS ${kb} KB < 256 MB" [ "$kb" -lt 262144 ]
		done
		unset RSS_FILE	# (a shell may keep an assignment made before a function)
	fi
	rm -f "$TMP"/sparse-*.dat
fi
finish
