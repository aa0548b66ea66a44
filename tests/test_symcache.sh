#!/bin/sh
# test_symcache.sh - the kallsyms indexes the CLI keeps (IPITRACE_CACHE_DIR,
# $XDG_CACHE_HOME/ipitrace, ~/.cache/ipitrace): on every recorded trace,
# `report -f json` and `convert` (whose columns name symbols) are byte for
# byte what they are without a cache (IPITRACE_CACHE_DIR empty), when the
# index is written (the first run), when it is read (the second) and when
# the answers kept from the second are (kallsyms-KEY.hot, the third); a
# trace leaves one index, named by its kallsyms section (compressed or
# text: told apart), shared by the traces with the same section; an index damaged
# (a byte changed, cut short, another file's bytes) is not used, the
# answers stay the same and a sound one takes its place; a directory that
# cannot be made is no error and nothing is said; where the files go when
# IPITRACE_CACHE_DIR is unset, and none at all when it is empty; refs, by
# which a trace file found again is not read, and a file changed in place;
# kept answers damaged (a byte changed, cut short, another's bytes) are
# not used, the answers stay the same and sound ones take their place.
# (unit_symcache checks the file format's checks byte by byte.)
# ASan pass: one input of each kind (tests/lib.sh `inputs`).
# seconds: 14
. "$(dirname "$0")/lib.sh"

[ -x "$IPT" ] || { fail build "$IPT is missing (run make)"; finish; }
TR=$(inputs "$TRACES"/recorded/*.dat)
[ -n "$TR" ] || { skip symcache "no recorded traces in $TRACES/recorded"; finish; }

# outputs PREFIX TRACE: the symbol-bearing outputs of one run each, with
# IPITRACE_CACHE_DIR as the caller set it; false if a command fails or
# says anything on standard error
outputs() {
	"$IPT" report -f json "$2" > "$1.json" 2> "$1.err" &&
		"$IPT" convert -f csv "$2" -o - > "$1.csv" 2>> "$1.err" && [ ! -s "$1.err" ]
}
C=$TMP/c
# a trace file of the test's own, to be changed in place once a ref for it
# is kept (refs are written for files changed 2 s before or more)
a=$(echo "$TR" | sed -n 1p) z=$(echo "$TR" | sed -n 2p)
cp "$a" "$TMP/x.dat"
made_x=$(date +%s)
n=0 same=0 text=0 textidx=0
for t in $TR; do
	b=$(basename "$t")
	n=$((n + 1))
	before=$(ls "$C" 2>/dev/null | grep -c '^kallsyms-.*\.idx$')
	if IPITRACE_CACHE_DIR= outputs "$TMP/$b.none" "$t" &&
	   IPITRACE_CACHE_DIR=$C outputs "$TMP/$b.first" "$t" &&
	   IPITRACE_CACHE_DIR=$C outputs "$TMP/$b.second" "$t" &&
	   IPITRACE_CACHE_DIR=$C outputs "$TMP/$b.third" "$t" &&
	   cmp -s "$TMP/$b.none.json" "$TMP/$b.first.json" && cmp -s "$TMP/$b.none.json" "$TMP/$b.second.json" &&
	   cmp -s "$TMP/$b.none.json" "$TMP/$b.third.json" && cmp -s "$TMP/$b.none.csv" "$TMP/$b.third.csv" &&
	   cmp -s "$TMP/$b.none.csv" "$TMP/$b.first.csv" && cmp -s "$TMP/$b.none.csv" "$TMP/$b.second.csv"; then
		same=$((same + 1))
	else
		fail "symcache-same: $b" "the outputs differ with an index, or a run failed: $(cat "$TMP/$b".*.err | head -n 2 | tr '\n' ';')"
	fi
	after=$(ls "$C" 2>/dev/null | grep -c '^kallsyms-.*\.idx$')
	# a section stored as text (v6 and "none" files) is indexed too, at the
	# first symbol looked up; its key is not the compressed one's
	case $b in *.v6.dat|*-none.dat) text=$((text + 1)); [ "$after" -gt "$before" ] && textidx=$((textidx + 1)) ;; esac
done
[ $same = $n ] && pass "symcache-same: $n traces, report -f json and convert alike without an index, writing it, reading it and with the answers kept"
k=$(ls "$C" 2>/dev/null | grep -c '^kallsyms-.*\.idx$')
hot=$(ls "$C" 2>/dev/null | grep -c '^kallsyms-.*\.hot$')
[ "$hot" -ge 1 ] && [ "$hot" -le "$k" ] && pass "symcache-hot: answers kept for $hot of $k indexes" ||
	fail "symcache-hot" "$hot files of kept answers for $k indexes"
if [ "$k" -ge 1 ] && [ "$k" -le "$n" ] && { [ "$text" = 0 ] || [ "$textidx" -ge 1 ]; }; then
	pass "symcache-files: $k index(es) for $n traces (one per distinct section; $textidx new for $text with the text in the file)"
else
	fail "symcache-files" "$k indexes for $n traces, $textidx new for $text stored as text: $(ls -la "$C" 2>&1 | head -n 5 | tr '\n' ';')"
fi
[ -z "$(ls -A "$C" 2>/dev/null | grep -v '^kallsyms-[0-9a-f]\{32\}\.\(idx\|hot\)$' | grep -v '^ref-[0-9a-f]\{32\}$')" ] &&
	pass "symcache-names: only whole index, kept-answer and ref files in the directory (none left half-written)" ||
	fail "symcache-names" "$(ls -A "$C" | head -n 5 | tr '\n' ' ')"

# damage FILE HOW SIZE GOOD HEADER_AT: FILE (SIZE bytes, a copy in GOOD)
# with a byte near its end changed, one of its header (at HEADER_AT), cut
# to half, or another file's bytes
damage() {
	case $2 in
	byte-names) printf 'Z' | dd of="$1" bs=1 seek=$(($3 - 3)) conv=notrunc 2> /dev/null ;;
	byte-header) printf '\377' | dd of="$1" bs=1 seek="$5" conv=notrunc 2> /dev/null ;;
	cut) head -c $(($3 / 2)) "$4" > "$1" ;;
	other) head -c "$3" /dev/urandom > "$1" ;;
	esac
}

# damage: a byte changed, cut short, another index's bytes under its name
# (the first trace with a compressed section and the first with its text)
t=$(for f in $TR; do case $f in *.v6.dat|*-none.dat) ;; *) echo "$f" ;; esac; done | head -n 1)
tt=$(for f in $TR; do case $f in *.v6.dat|*-none.dat) echo "$f" ;; esac; done | head -n 1)
for td in $t $tt; do
	b=$(basename "$td")
	D=$TMP/d-$b
	IPITRACE_CACHE_DIR=$D outputs "$TMP/d0" "$td"
	f=$(ls "$D"/kallsyms-*.idx 2>/dev/null | head -n 1)
	cp "$f" "$TMP/good.idx" 2>/dev/null
	size=$(wc -c < "$f" 2>/dev/null || echo 0)
	ok=0 tries=0
	for how in byte-names byte-header cut other; do
		tries=$((tries + 1))
		damage "$f" $how "$size" "$TMP/good.idx" 40
		rm -f "$D"/kallsyms-*.hot	# else answers kept may leave the index unread
		if IPITRACE_CACHE_DIR=$D outputs "$TMP/d1" "$td" && cmp -s "$TMP/d0.json" "$TMP/d1.json" &&
		   cmp -s "$TMP/d0.csv" "$TMP/d1.csv" && cmp -s "$f" "$TMP/good.idx"; then
			ok=$((ok + 1))
		else
			fail "symcache-damaged: $how" "outputs differ, or the index was not written again whole ($(wc -c < "$f") bytes of $size)"
		fi
	done
	[ $ok = $tries ] && pass "symcache-damaged: $b's index ($size bytes) changed 4 ways: not used, the same answers, a sound index in its place"
done
# the kept answers damaged (they are read through the trace's ref: the
# first run keeps the index and the ref, the next the answers)
if [ -n "$t" ]; then
	D=$TMP/h
	for i in 1 2; do IPITRACE_CACHE_DIR=$D outputs "$TMP/h0" "$t"; done
	f=$(ls "$D"/kallsyms-*.hot 2>/dev/null | head -n 1)
	size=$(wc -c < "$f" 2>/dev/null || echo 0)
	cp "$f" "$TMP/good.hot" 2>/dev/null
	ok=0 tries=0
	for how in byte-names byte-header cut other; do
		tries=$((tries + 1))
		damage "$f" $how "$size" "$TMP/good.hot" 44
		if [ "$size" -gt 64 ] && IPITRACE_CACHE_DIR=$D outputs "$TMP/h1" "$t" &&
		   cmp -s "$TMP/h0.json" "$TMP/h1.json" && cmp -s "$TMP/h0.csv" "$TMP/h1.csv" &&
		   [ "$(wc -c < "$f")" = "$size" ]; then
			ok=$((ok + 1))
		else
			fail "symcache-hot-damaged: $how" "outputs differ, or the answers were not kept again whole ($(wc -c < "$f" 2>/dev/null) bytes of $size)"
		fi
	done
	[ $ok = $tries ] && pass "symcache-hot-damaged: $(basename "$t")'s kept answers ($size bytes) changed 4 ways: not used, the same answers, sound ones in their place"
fi

# refs: a trace found again by where its section lies (its file's device,
# inode, size and times), not read; a file changed in place is not taken
# for what it was (its change time moved), nor is one changed just now
refs=$(ls "$C" 2>/dev/null | grep -c '^ref-')
[ "$refs" -ge 1 ] && [ "$refs" -le "$n" ] && pass "symcache-refs: $refs ref(s) for $n traces" ||
	fail "symcache-refs" "$refs refs for $n traces"
if [ -n "$z" ]; then
	R=$TMP/r F=$TMP/f
	cp "$a" "$TMP/y.dat"
	IPITRACE_CACHE_DIR=$F outputs "$TMP/y0" "$TMP/y.dat"
	fresh=$(ls "$F" 2>/dev/null | grep -c '^ref-')
	left=$((made_x + 3 - $(date +%s)))
	[ "$left" -gt 0 ] && sleep "$left"
	IPITRACE_CACHE_DIR=$R outputs "$TMP/x1" "$TMP/x.dat"
	settled=$(ls "$R" 2>/dev/null | grep -c '^ref-')
	cat "$z" > "$TMP/x.dat"	# the same inode, other bytes
	IPITRACE_CACHE_DIR=$R outputs "$TMP/x2" "$TMP/x.dat"
	IPITRACE_CACHE_DIR= outputs "$TMP/x3" "$TMP/x.dat"
	if [ "$fresh" = 0 ] && [ "$settled" = 1 ] && ! cmp -s "$TMP/x1.json" "$TMP/x2.json" &&
	   cmp -s "$TMP/x2.json" "$TMP/x3.json" && cmp -s "$TMP/x2.csv" "$TMP/x3.csv"; then
		pass "symcache-changed: no ref for a file just written, one 3 s on; $(basename "$a") rewritten in place with $(basename "$z")'s bytes reports as without an index"
	else
		fail "symcache-changed" "refs $fresh fresh, $settled settled; the rewritten file's report against none: $(cmp "$TMP/x2.json" "$TMP/x3.json" 2>&1 | head -n 1)"
	fi
fi

# a directory that cannot be made: no error, nothing said, the same answers
t1=$(echo "$TR" | head -n 1)
if IPITRACE_CACHE_DIR=/proc/1/no/such outputs "$TMP/p" "$t1" && IPITRACE_CACHE_DIR= outputs "$TMP/q" "$t1" &&
   cmp -s "$TMP/p.json" "$TMP/q.json"; then
	pass "symcache-unwritable: exit 0, nothing on standard error, the same report"
else
	fail "symcache-unwritable" "$(head -n 2 "$TMP/p.err" | tr '\n' ';')"
fi

# where the files go without IPITRACE_CACHE_DIR
if [ -n "$t" ]; then
	mkdir -p "$TMP/home" "$TMP/xdg" "$TMP/home2"
	(unset IPITRACE_CACHE_DIR XDG_CACHE_HOME; HOME=$TMP/home "$IPT" report "$t" > /dev/null 2>&1)
	(unset IPITRACE_CACHE_DIR; HOME=$TMP/home XDG_CACHE_HOME=$TMP/xdg "$IPT" report "$t" > /dev/null 2>&1)
	(unset IPITRACE_CACHE_DIR; HOME=$TMP/home2 XDG_CACHE_HOME=relative/dir "$IPT" report "$t" > /dev/null 2>&1)
	(HOME=$TMP/home3 IPITRACE_CACHE_DIR= "$IPT" report "$t" > /dev/null 2>&1)
	a=$(ls "$TMP/home/.cache/ipitrace" 2>/dev/null | grep -c '^kallsyms-.*\.idx$')
	x=$(ls "$TMP/xdg/ipitrace" 2>/dev/null | grep -c '^kallsyms-.*\.idx$')
	r=$(ls "$TMP/home2/.cache/ipitrace" 2>/dev/null | grep -c '^kallsyms-.*\.idx$')
	mode=$(stat -c %a "$TMP/xdg/ipitrace" 2>/dev/null)
	if [ "$a" = 1 ] && [ "$x" = 1 ] && [ "$r" = 1 ] && [ ! -e "$TMP/home3/.cache" ] && [ "$mode" = 700 ]; then
		pass "symcache-where: ~/.cache/ipitrace, \$XDG_CACHE_HOME/ipitrace (mode $mode; a relative one ignored), none with IPITRACE_CACHE_DIR empty"
	else
		fail "symcache-where" "home $a, xdg $x (mode $mode), relative xdg -> home $r, empty: $(ls -A "$TMP/home3" 2>/dev/null | tr '\n' ' ')"
	fi
fi
finish
