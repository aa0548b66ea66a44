# test_install.sh - make install into a DESTDIR: the exported symbols are
# exactly the declared functions, the SONAME, pkg-config (shared and
# static), man pages, the completion, and one version everywhere.
# Runs on the plain build only (an install of the ASan build is not made).
# asan: no - it checks what make install lays out, not what the code does
# seconds: 20
. "$(dirname "$0")/lib.sh"
if [ "$B" != build ]; then
	echo "(install is checked on the plain build only)"
	finish
fi
D=$TMP/dest
if ! make -C "$TOP" -s install DESTDIR="$D" PREFIX=/usr > "$TMP/inst" 2>&1; then
	fail "make install" "$(tail -n 3 "$TMP/inst" | tr '\n' ';')"
	finish
fi
pass "make install DESTDIR PREFIX=/usr"
for f in usr/bin/ipitrace usr/lib/libipitrace.a usr/lib/libipitrace.so usr/lib/libipitrace.so.0 \
	 usr/include/ipitrace.h usr/lib/pkgconfig/ipitrace.pc usr/share/man/man1/ipitrace.1 \
	 usr/share/man/man3/libipitrace.3 usr/share/man/man7/ipitrace-filter.7 \
	 usr/share/bash-completion/completions/ipitrace usr/lib/systemd/system/ipitrace-serve.service \
	 usr/share/ipitrace/prometheus/ipitrace-rules.yml; do
	[ -e "$D/$f" ] || missing="$missing $f"
done
if [ -z "${missing:-}" ]; then pass "installed: binary, libraries, header, pc, 3 man pages, completion, systemd unit, Prometheus rules"
else fail "installed files" "missing:$missing"; fi

# the private tier stays in the tree, and nothing of it is exported
if [ -e "$D/usr/include/ipitrace-private.h" ]; then
	fail "the private header is not installed" "usr/include/ipitrace-private.h"
else
	pass "the private header is not installed"
fi
priv_exported=$("$PY" "$TOP/tools/api.py" "$TOP/include/ipitrace-private.h" | while read -r s; do
	nm -D --defined-only "$D/usr/lib/libipitrace.so" | awk '{print $3}' | grep -qx "$s" && echo "$s"; done | tr '\n' ' ')
[ -z "$priv_exported" ] && pass "no function of the private tier is exported" ||
	fail "no function of the private tier is exported" "$priv_exported"

# exported = declared (the declared list from the header by tools/api.py)
# the systemd unit runs the installed binary
grep -q '^ExecStart=/usr/bin/ipitrace serve' "$D/usr/lib/systemd/system/ipitrace-serve.service" &&
	pass "systemd unit: ExecStart=/usr/bin/ipitrace serve" || fail "systemd unit" "$(grep ExecStart "$D/usr/lib/systemd/system/ipitrace-serve.service")"
if command -v systemd-analyze > /dev/null 2>&1; then
	# (in a DESTDIR the binary and the man page are not where the unit says)
	systemd-analyze verify "$D/usr/lib/systemd/system/ipitrace-serve.service" 2>&1 |
		grep -i 'ipitrace-serve' | grep -v 'is not executable\|Command .man ' > "$TMP/sa"
	if [ ! -s "$TMP/sa" ]; then
		pass "systemd-analyze verify ipitrace-serve.service"
	else
		fail "systemd-analyze verify" "$(head -n 2 "$TMP/sa" | tr '\n' ';')"
	fi
fi
"$PY" "$TOP/tools/api.py" "$D/usr/include/ipitrace.h" | sort > "$TMP/declared"
nm -D --defined-only "$D/usr/lib/libipitrace.so" | awk '$2 == "T" || $2 == "D" || $2 == "B" || $2 == "R" {print $3}' |
	sed 's/@.*//' | sort > "$TMP/exported"
if cmp -s "$TMP/declared" "$TMP/exported"; then
	pass "nm -D: exactly the $(wc -l < "$TMP/declared") declared functions are exported"
else
	fail "exported = declared" "$(diff "$TMP/declared" "$TMP/exported" | grep '^[<>]' | head -n 8 | tr '\n' ' ')"
fi
# independent of tools/api.py: every exported name appears as a declaration in the header
nodecl=""
for s in $(cat "$TMP/exported"); do
	grep -Eq "[ *]$s\(" "$D/usr/include/ipitrace.h" || nodecl="$nodecl $s"
done
[ -z "$nodecl" ] && pass "every exported symbol is declared in ipitrace.h" || fail "exported but not declared" "$nodecl"
# every declared function documented in libipitrace(3)
undoc=""
MANWIDTH=200 man -l "$D/usr/share/man/man3/libipitrace.3" 2>/dev/null | tr -d '\010' > "$TMP/lib3"
for s in $(cat "$TMP/declared"); do
	# declared in its section and listed under FUNCTIONS
	[ "$(grep -o "$s(" "$TMP/lib3" | wc -l)" -ge 2 ] || undoc="$undoc $s"
done
[ -z "$undoc" ] && pass "libipitrace(3) documents every declared function" || fail "undocumented in libipitrace(3)" "$undoc"
so=$(readelf -d "$D/usr/lib/libipitrace.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$so" = libipitrace.so.0 ] && pass "SONAME libipitrace.so.0" || fail "SONAME" "got '$so'"

# a program built with pkg-config against DESTDIR, shared and static
cat > "$TMP/prog.c" <<'C'
#include <ipitrace.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
	struct ipt_cpuset s = IPT_CPUSET_INIT;
	char buf[64];
	ipt_cpuset_init(&s);
	if (ipt_cpuset_parse_hex(&s, "000000fe", 8))
		return 1;
	ipt_cpuset_format_list(&s, buf, sizeof(buf));
	printf("%s %s %s\n", ipt_version(), IPT_VERSION, buf);
	ipt_cpuset_free(&s);
	if (argc > 1) {
		struct ipt_trace *t = ipt_trace_open(argv[1]);
		if (!t) { fprintf(stderr, "%s\n", ipt_errmsg()); return 1; }
		printf("ncpus %d\n", ipt_trace_ncpus(t));
		ipt_trace_close(t);
	}
	return strcmp(ipt_version(), IPT_VERSION) != 0;
}
C
export PKG_CONFIG_SYSROOT_DIR="$D" PKG_CONFIG_LIBDIR="$D/usr/lib/pkgconfig"
want=$("$D/usr/bin/ipitrace" --version | awk 'NR == 1 {print $2}')
if cc -o "$TMP/prog" "$TMP/prog.c" $(pkg-config --cflags --libs ipitrace) 2> "$TMP/ccerr" &&
   LD_LIBRARY_PATH="$D/usr/lib" "$TMP/prog" "$TRACES/recorded/idle.dat" > "$TMP/out" 2>&1; then
	if [ "$(head -n 1 "$TMP/out")" = "$want $want 1-7" ] && grep -q '^ncpus 2$' "$TMP/out"; then
		pass "pkg-config --libs: a program runs against the .so (ipt_version = --version = $want)"
	else
		fail "pkg-config shared" "printed $(tr '\n' ' ' < "$TMP/out"), want '$want $want 1-7' and ncpus 2"
	fi
	ldd "$TMP/prog" | grep -q 'libipitrace.so.0 => ' && pass "the program needs libipitrace.so.0" ||
		fail "dynamic link" "$(ldd "$TMP/prog" | grep ipitrace)"
else
	fail "pkg-config shared" "$(head -n 3 "$TMP/ccerr" | tr '\n' ' ') $(cat "$TMP/out" 2>/dev/null)"
fi
if cc -static -o "$TMP/prog-static" "$TMP/prog.c" $(pkg-config --static --cflags --libs ipitrace) 2> "$TMP/ccerr" &&
   "$TMP/prog-static" "$TRACES/recorded/idle.dat" > "$TMP/out" 2>&1 && grep -q "^$want $want 1-7" "$TMP/out"; then
	pass "pkg-config --static: a static program runs"
else
	fail "pkg-config static" "$(head -n 3 "$TMP/ccerr" | tr '\n' ' ') $(cat "$TMP/out" 2>/dev/null)"
fi

# man pages render without warnings; ipitrace(1) has every command's options
bad=""
for p in "$D"/usr/share/man/man*/*; do
	MANWIDTH=80 man --warnings -l "$p" > "$TMP/page" 2> "$TMP/warn" && [ -s "$TMP/page" ] && [ ! -s "$TMP/warn" ] ||
		bad="$bad $(basename "$p"): $(head -n 1 "$TMP/warn")"
done
[ -z "$bad" ] && pass "man -l renders every page without a warning" || fail "man pages" "$bad"
MANWIDTH=300 man -l "$D/usr/share/man/man1/ipitrace.1" 2>/dev/null | tr -d '\010' > "$TMP/man1"
miss=""
for c in $("$D/usr/bin/ipitrace" --help | awk '/^Commands:/{on=1; next} on && /^  [a-z]/{print $1} on && !/^  /{on=0}'); do
	grep -q "^IPITRACE $(echo "$c" | tr a-z A-Z)\$" "$TMP/man1" || miss="$miss section:$c"
	for o in $("$D/usr/bin/ipitrace" "$c" --help | grep -oE '^  (-[a-zA-Z], )?--[a-z][a-z-]*' | grep -oE -- '--[a-z-]+'); do
		grep -q -- "$o" "$TMP/man1" || miss="$miss $c:$o"
	done
done
[ -z "$miss" ] && pass "ipitrace(1): a section per command with every option of its --help" || fail "ipitrace(1)" "$miss"
# the completion loads in bash and completes a command and an option
out=$(bash -c ". '$D/usr/share/bash-completion/completions/ipitrace'
COMP_WORDS=(ipitrace rep); COMP_CWORD=1; _ipitrace; echo \"\${COMPREPLY[*]}\"
COMP_WORDS=(ipitrace report --is); COMP_CWORD=2; _ipitrace; echo \"\${COMPREPLY[*]}\"" 2>&1)
[ "$out" = "report
--isolated" ] && pass "bash completion: 'rep' -> report, 'report --is' -> --isolated" || fail "completion" "$out"
if make -C "$TOP" -s uninstall DESTDIR="$D" PREFIX=/usr > /dev/null 2>&1 && [ -z "$(find "$D" -type f -o -type l)" ]; then
	pass "make uninstall removes everything"
else
	fail "make uninstall" "left: $(find "$D" -type f -o -type l | head -n 5 | tr '\n' ' ')"
fi
finish
