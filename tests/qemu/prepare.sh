#!/bin/sh
# prepare.sh ARCH DIR - everything one qemu guest of tests/test_qemu.sh needs,
# cached under DIR (build/qemu): Debian's own cloud kernel for ARCH (x86_64 or
# arm64; x86_64-rt: Debian's PREEMPT_RT kernel, linux-image-rt-amd64, with
# the osnoise and timerlat tracers, for tests/test_qemu_spikes.sh, with
# Debian's rtla, libtracefs1, libtraceevent1 and libc6) and busybox-static fetched with `apt-get download` and unpacked, a
# static ipitrace, ipi-workload and irq-snap built for ARCH, and an initramfs
# (DIR/ARCH/initrd.gz) holding them, the virtio disk modules and
# tests/qemu/init.sh as /init.  Prints "kernel PATH" and "initrd PATH".
# Exit 3 with one line on stderr when the machine cannot (no package, no
# cross compiler): the test says SKIP with that line.
set -e
arch=$1
dir=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
case $arch in
x86_64) darch=amd64 flavour=cloud cc=${CC:-cc} ldir= virtio="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk" ;;
x86_64-rt) darch=amd64 flavour=rt cc=${CC:-cc} ldir= virtio="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk" ;;
arm64) darch=arm64 flavour=cloud cc=aarch64-linux-gnu-gcc ldir=-L/usr/lib/aarch64-linux-gnu virtio="virtio_ring virtio virtio_mmio virtio_blk" ;;
*) echo "prepare.sh: unknown arch '$arch'" >&2; exit 2 ;;
esac
cannot() { echo "$*" >&2; exit 3; }
mkdir -p "$dir/deb" "$dir/$arch"
cd "$dir"

# ---- packages (downloaded once) ----
if [ ! -s "$arch/kernel.name" ]; then
	meta=linux-image-$flavour-$darch
	[ $darch = amd64 ] || meta=$meta:$darch
	k=$(apt-cache depends "$meta" 2>/dev/null | sed -n 's/.*Depends: \(linux-image-[0-9][^ :]*\).*/\1/p' | head -n 1)
	[ -n "$k" ] || cannot "apt-cache knows no $meta (dpkg --add-architecture arm64; apt-get update)"
	echo "$k" > "$arch/kernel.name"
fi
k=$(cat "$arch/kernel.name")
get() {	# get PKG[:ARCH]: the .deb into deb/ unless there
	n=${1%%:*}
	ls deb/"${n}"_*_"$2".deb > /dev/null 2>&1 && return 0
	(cd deb && apt-get download "$1" > /dev/null 2>&1) || cannot "apt-get download $1 failed"
}
if [ $darch = amd64 ]; then get "$k-unsigned" amd64; else get "$k-unsigned:arm64" arm64; fi
[ $darch = amd64 ] || get busybox-static:arm64 arm64
# the PREEMPT_RT guest runs Debian's rtla (tests/qemu/spikes.sh): it and
# the libraries it links, unpacked into the initramfs below
guestdebs=
[ $arch = x86_64-rt ] && guestdebs="rtla libtracefs1 libtraceevent1 libc6"
for p in $guestdebs; do get $p amd64; done
if [ ! -d "$arch/root/boot" ]; then
	rm -rf "$arch/root"
	mkdir -p "$arch/root"
	dpkg-deb -x deb/"$k"-unsigned_*_"$darch".deb "$arch/root"
	[ $darch = amd64 ] || dpkg-deb -x deb/busybox-static_*_arm64.deb "$arch/root"
fi
kernel=$(ls "$dir/$arch"/root/boot/vmlinuz-* | head -n 1)
if [ $darch = amd64 ]; then
	bb=$(command -v busybox) || cannot "no busybox (apt-get install busybox-static)"
	file -L "$bb" 2>/dev/null | grep -q 'statically linked' || cannot "$bb is not static (apt-get install busybox-static)"
else
	bb=$dir/$arch/root/bin/busybox
fi

# ---- static binaries for the guest ----
command -v "$cc" > /dev/null 2>&1 || cannot "no $cc (apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross)"
if [ $arch = arm64 ] && [ ! -f /usr/lib/aarch64-linux-gnu/libzstd.a ]; then
	cannot "no arm64 libzstd (dpkg --add-architecture arm64; apt-get install libzstd-dev:arm64 zlib1g-dev:arm64)"
fi
bd=$dir/$arch/bin
make -s -C "$top" B="$bd" CC="$cc" HAVE_BPF=0 HAVE_DW=0 PY_OK= LDFLAGS="-static $ldir" \
	"$bd/ipitrace" "$bd/tools/ipi-workload" "$bd/tools/irq-snap" > "$dir/$arch/make.log" 2>&1 ||
	{ tail -n 5 "$dir/$arch/make.log" >&2; exit 1; }

# ---- the initramfs ----
r=$dir/$arch/initrd
rm -rf "$r"
mkdir -p "$r/bin" "$r/modules" "$r/proc" "$r/sys" "$r/dev" "$r/out" "$r/tmp"
cp "$bb" "$r/bin/busybox"
cp "$bd/ipitrace" "$bd/tools/ipi-workload" "$bd/tools/irq-snap" "$r/bin/"
cp "$top/tests/qemu/init.sh" "$r/init"
cp "$top/tests/qemu/spikes.sh" "$r/spikes.sh"
chmod 755 "$r/init"
for p in $guestdebs; do dpkg-deb -x deb/"$p"_*_amd64.deb "$r"; done
rm -rf "$r/usr/share" "$r/usr/lib/x86_64-linux-gnu/gconv"
: > "$r/modules.order"
for m in $virtio; do
	f=$(find "$dir/$arch/root/lib/modules" -name "$m.ko" | head -n 1)
	[ -n "$f" ] || continue		# built in
	cp "$f" "$r/modules/"
	echo "$m.ko" >> "$r/modules.order"
done
(cd "$r" && find . | cpio -o -H newc 2>/dev/null | gzip -1) > "$dir/$arch/initrd.gz"
echo "kernel $kernel"
echo "initrd $dir/$arch/initrd.gz"
