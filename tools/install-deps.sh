#!/bin/sh
# install-deps.sh - install the Debian packages ipitrace's build, tests and
# benchmarks need (only those missing), and for the qemu guests' test
# (tests/test_qemu.sh) qemu, busybox and the arm64 cross toolchain with
# arm64 libzstd/zlib (dpkg architecture arm64 added for those).  Needs root for apt-get; without it,
# says which packages to install.  IPITRACE_DEPS=build: only what building
# (and the demo) needs; =bench: the tests' and the benchmarks'.
set -e
pkgs="gcc make libc6-dev libzstd-dev zlib1g-dev trace-cmd python3 python3-pandas python3-dev python3-numpy python3-scipy python3-jsonschema clang libclang-rt-14-dev pkg-config man-db libbpf-dev bpftool libdw-dev prometheus curl linux-perf strace"
qemu="qemu-system-x86 qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross busybox-static cpio libzstd-dev:arm64 zlib1g-dev:arm64"
[ "${IPITRACE_DEPS:-}" = "build" ] || pkgs="$pkgs $qemu"
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
case $missing in
*:arm64*) dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64 ;;
esac
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends $missing >/dev/null
