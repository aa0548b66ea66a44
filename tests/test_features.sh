#!/bin/sh
# test_features.sh - what the build contains is what the machine offers
# (issue 40, item 9):
#  (a) the features `ipitrace --version` lists agree with the machine, asked
#      without the Makefile: libdw (`pkg-config --exists libdw`) and bpf
#      (libbpf, clang and bpftool) are listed "+" exactly when present,
#      unless the build was told otherwise (run it with HAVE_DW=0 or
#      HAVE_BPF=0 in the environment then, as `make check HAVE_DW=0` does),
#      and with BUILD/features, the build's record of what it found;
#  (b) and with what the binary does: `record --user-stacks`, run as user
#      nobody (setpriv; it can never record), says the build has no libdw
#      when -libdw is listed, and gets past that to "needs root" when
#      +libdw is;
#  (c) the stamps: a copy of the sources (no build/) is built with
#      HAVE_DW=0 HAVE_BPF=0, then again without them.  The second `make`
#      must rebuild exactly the objects those answers change (version.o,
#      and ustack.o and counter.o for the parts this machine has: filter.o
#      and the CLI's objects keep their times), and --version must list
#      them; a third `make` must change no file.  (b) runs on the first
#      build too.  SKIP when the machine has neither libdw nor BPF.
# (c) builds build/ipitrace twice (make -j2): it runs in the plain pass
# only, as the ASan pass would build the same thing.
# fast: no - it builds the binary twice in a copy of the tree (45 CPU-seconds); make check runs it
# seconds: 51
. "$(dirname "$0")/lib.sh"
case $B in /*) BD=$B ;; *) BD=$TOP/$B ;; esac
IPT=$BD/ipitrace
[ -x "$IPT" ] || { fail features "no $IPT"; finish; }

# the machine, asked directly (the Makefile's rules, written again)
have_dw=0
pkg-config --exists libdw 2> /dev/null && have_dw=1
have_bpf=0
pkg-config --exists libbpf 2> /dev/null && command -v clang > /dev/null 2>&1 &&
	{ command -v bpftool > /dev/null 2>&1 || [ -x /usr/sbin/bpftool ]; } && have_bpf=1
want_dw=$have_dw want_bpf=$have_bpf why_dw="pkg-config libdw" why_bpf="libbpf, clang, bpftool"
[ -n "${HAVE_DW+set}" ] && { [ "$HAVE_DW" = 1 ] && want_dw=1 || want_dw=0; why_dw="HAVE_DW=$HAVE_DW"; }
[ -n "${HAVE_BPF+set}" ] && { [ "$HAVE_BPF" = 1 ] && want_bpf=1 || want_bpf=0; why_bpf="HAVE_BPF=$HAVE_BPF"; }
sign() { [ "$1" = 1 ] && echo + || echo -; }

# features BINARY: the names of its --version's second line, one "+name" or
# "-name" a line (and the first line must still be "ipitrace M.m.p")
features() {
	"$1" --version > "$TMP/ver" 2>&1 || return 1
	sed -n 1p "$TMP/ver" | grep -qE '^ipitrace [0-9]+\.[0-9]+\.[0-9]+$' || return 1
	sed -n 's/^features: //p' "$TMP/ver" | tr ' ' '\n'
}
# listed BINARY NAME: + or - as its --version lists NAME ("" if it does not)
listed() { features "$1" | sed -n "s/^\([+-]\)$2\$/\1/p"; }

# ---- (a) the build under test and the machine ----
if ! features "$IPT" > "$TMP/feat" || [ "$(tr '\n' ' ' < "$TMP/feat")" = "" ]; then
	fail version "--version: $(tr '\n' '|' < "$TMP/ver")"
else
	got=$(tr '\n' ' ' < "$TMP/feat")
	case $got in
	[+-]bpf\ [+-]libdw\ +zstd\ +zlib\ ) pass "--version: 'ipitrace M.m.p', then 'features: ${got% }'" ;;
	*) fail version-features "'$got': not +/-bpf +/-libdw +zstd +zlib" ;;
	esac
	l=$(listed "$IPT" libdw)
	[ "$l" = "$(sign $want_dw)" ] && pass "libdw: ${l}libdw, as $why_dw says" ||
		fail libdw "--version says '${l}libdw', $why_dw says $(sign $want_dw) (built before libdw-dev was installed, or after it was removed?)"
	l=$(listed "$IPT" bpf)
	[ "$l" = "$(sign $want_bpf)" ] && pass "bpf: ${l}bpf, as $why_bpf say" ||
		fail bpf "--version says '${l}bpf', $why_bpf say $(sign $want_bpf)"
	stamp="bpf=$(listed "$IPT" bpf | sed 's/+/1/; s/-/0/') dw=$(listed "$IPT" libdw | sed 's/+/1/; s/-/0/')"
	[ "$(cat "$BD/features" 2> /dev/null)" = "$stamp" ] && pass "$B/features says the same: $stamp" ||
		fail stamp "$B/features says '$(cat "$BD/features" 2> /dev/null)', --version '$stamp'"
fi

# ---- (b) what record --user-stacks says, as nobody ----
# ustacks_say TAG BINARY: nobody runs `BINARY record --user-stacks`, which
# cannot record (not root): it must refuse for the build when BINARY lists
# -libdw, and get to the root check when it lists +libdw
ustacks_say() {
	tag=$1 bin=$2
	l=$(listed "$bin" libdw)
	if [ "$(id -u)" = 0 ]; then
		if ! command -v setpriv > /dev/null 2>&1; then
			skip "$tag" "root, and no setpriv to run record as nobody (it would record)"
			return
		fi
		as="setpriv --reuid=65534 --regid=65534 --clear-groups --"
	else
		as=""
	fi
	if ! $as test -x "$bin"; then
		skip "$tag" "user nobody cannot run $bin"
		return
	fi
	$as "$bin" record --user-stacks -d 1 -o "$TMP/ustacks.dat" > "$TMP/us.out" 2> "$TMP/us.err" < /dev/null
	rc=$?
	err=$(head -n 2 "$TMP/us.err" | tr '\n' '|')
	if [ "$l" = - ]; then
		[ $rc = 1 ] && grep -q "user-stacks: this ipitrace was built without elfutils (libdw)" "$TMP/us.err" &&
			pass "$tag: -libdw: record --user-stacks says it is not built in (exit 1)" ||
			fail "$tag" "-libdw, record --user-stacks as nobody: exit $rc, '$err'"
	else
		[ $rc = 1 ] && grep -q "needs root" "$TMP/us.err" && ! grep -q "without elfutils" "$TMP/us.err" &&
			pass "$tag: +libdw: record --user-stacks is refused for want of root only" ||
			fail "$tag" "+libdw, record --user-stacks as nobody: exit $rc, '$err'"
	fi
}
ustacks_say user-stacks "$IPT"

# ---- (c) a dependency installed after a build ----
if [ "$ASAN" = 1 ]; then
	echo "(the rebuild is checked in the plain pass: it builds the same objects)"
	finish
fi
if [ $have_dw = 0 ] && [ $have_bpf = 0 ]; then
	skip rebuild "neither libdw-dev nor libbpf-dev, clang and bpftool here: no feature to turn on"
	finish
fi
W=$TMP/tree
mkdir "$W" && chmod 755 "$TMP" "$W" &&		# nobody runs its binary (b)
	cp -r "$TOP/Makefile" "$TOP/include" "$TOP/lib" "$TOP/src" "$W/" || { fail rebuild "cannot copy the sources"; finish; }
# mk ARGS...: make in the copy, as from a shell (nothing of a calling make's
# flags, jobserver or overrides), the binary only
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u HAVE_DW -u HAVE_BPF -u B -u CFLAGS -u CPPFLAGS -u LDFLAGS \
		nice make -s -C "$W" -j2 CFLAGS="-O0 -g0" "$@" build/ipitrace > "$TMP/mk.out" 2>&1
}
# mtimes DIR...: "mtime path" of every file under these folders of the
# copy's build/, sorted by path
mtimes() { (cd "$W/build" && find "$@" -type f -printf '%T@ %p\n') | LC_ALL=C sort -k2; }
# changed OLD NEW: the paths whose time differs, on one line
changed() { LC_ALL=C join -1 2 -2 2 "$1" "$2" | awk '$2 != $3 { printf "%s ", $1 }'; }

t0=$(date +%s)
if ! mk HAVE_DW=0 HAVE_BPF=0; then
	fail rebuild "make HAVE_DW=0 HAVE_BPF=0: $(tail -n 3 "$TMP/mk.out" | tr '\n' '|')"
	finish
fi
t1=$(date +%s)
l="$(listed "$W/build/ipitrace" bpf)bpf $(listed "$W/build/ipitrace" libdw)libdw"
st=$(cat "$W/build/features" 2> /dev/null)
[ "$st" = "bpf=0 dw=0" ] && [ "$l" = "-bpf -libdw" ] &&
	pass "HAVE_DW=0 HAVE_BPF=0: build/features '$st', --version '$l' ($((t1 - t0)) s)" ||
	fail overrides "HAVE_DW=0 HAVE_BPF=0: build/features '$st', --version '$l'"
[ $have_dw = 1 ] && ustacks_say "user-stacks (HAVE_DW=0 build)" "$W/build/ipitrace"
mtimes lib src > "$TMP/t1"

if ! mk; then
	fail rebuild "make after it: $(tail -n 3 "$TMP/mk.out" | tr '\n' '|')"
	finish
fi
t2=$(date +%s)
mtimes lib src > "$TMP/t2"
want="lib/core/version.o "
[ $have_bpf = 1 ] && want="lib/bpf/counter.o $want"
[ $have_dw = 1 ] && want="${want}lib/live/ustack.o "
got=$(changed "$TMP/t1" "$TMP/t2" | tr ' ' '\n' | grep '\.o$' | tr '\n' ' ')
[ "$got" = "$want" ] && pass "make after it rebuilt exactly: $got($((t2 - t1)) s)" ||
	fail rebuild-set "rebuilt '$got', want '$want' (lib/filter/filter.o and src/ unchanged)"
l="$(listed "$W/build/ipitrace" bpf)bpf $(listed "$W/build/ipitrace" libdw)libdw"
st=$(cat "$W/build/features" 2> /dev/null)
[ "$l" = "$(sign $have_bpf)bpf $(sign $have_dw)libdw" ] && [ "$st" = "bpf=$have_bpf dw=$have_dw" ] &&
	pass "then --version lists '$l', build/features '$st'" ||
	fail rebuild-version "--version '$l', build/features '$st'; the machine has bpf=$have_bpf dw=$have_dw"

mtimes . > "$TMP/t2"
if ! mk; then
	fail rebuild "a third make: $(tail -n 3 "$TMP/mk.out" | tr '\n' '|')"
	finish
fi
mtimes . > "$TMP/t3"
got=$(changed "$TMP/t2" "$TMP/t3")
[ -z "$got" ] && cmp -s "$TMP/t2" "$TMP/t3" && pass "a third make changes no file (the stamps neither)" ||
	fail rebuild-again "changed: $got$(diff "$TMP/t2" "$TMP/t3" | grep '^[<>]' | head -n 3 | tr '\n' ' ')"
finish
