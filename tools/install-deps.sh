#!/bin/sh
# install-deps.sh - install the Debian packages ipitrace's build, tests and
# benchmarks need (only those missing).  Needs root for apt-get; without it,
# says which packages to install.  IPITRACE_DEPS=build: only what building
# (and the demo) needs; =bench: the tests' and the benchmarks'.
set -e
pkgs="gcc make libc6-dev libzstd-dev zlib1g-dev trace-cmd python3 python3-pandas python3-dev python3-numpy clang libclang-rt-14-dev pkg-config man-db libbpf-dev bpftool libdw-dev prometheus"
[ "${IPITRACE_DEPS:-}" = "bench" ] && pkgs="$pkgs hyperfine linux-perf valgrind"
[ "${IPITRACE_DEPS:-}" = "build" ] && pkgs="gcc make libc6-dev libzstd-dev zlib1g-dev python3"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "ipitrace: missing Debian packages:$missing" >&2
	echo "ipitrace: install them as root: apt-get install$missing" >&2
	exit 1
fi
echo "ipitrace: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends $missing >/dev/null
