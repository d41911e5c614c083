#!/bin/sh
# Build (once) what the emulated ARM64 machine boots: an arm64 Kernel and a
# minimal arm64 Debian 12 root packed as an initramfs.
#
#   tests/system/arm64/root.sh CACHE_DIR
#
# prints the folder holding `vmlinuz` and `root.cpio`. The folder is named
# by a hash of this file (which holds the package list), so editing the list
# builds a new root and an unchanged list reuses the cached one.
#
# The root is unpacked, not installed: mmdebstrap --variant=extract takes the
# listed packages and everything they depend on from Debian's archive and
# unpacks them without running their maintainer scripts, so this x86-64
# machine needs no arm64 emulation (binfmt_misc) to build it. The few things
# those scripts would do (passwd and group files, the library cache) are
# done here or by the guest's /init.
set -eu

cache=${1:?usage: root.sh CACHE_DIR}
here=$(cd "$(dirname "$0")" && pwd)

# What the tests run inside: a shell and the tools the test scripts call,
# the libraries the arm64 build links against (readelf -d on build/arm64),
# LTTng's session daemon and babeltrace2, nm (watch.sh), python3 (lab.sh).
packages="dash bash coreutils grep sed mawk findutils diffutils procps
  util-linux mount libc-bin base-passwd
  libc6 libgcc-s1 libstdc++6 zlib1g libbpf1 libelf1 libdw1 libcapstone4
  liblttng-ust1 libbabeltrace2-0 lttng-tools babeltrace2
  binutils python3-minimal libpython3.11-stdlib"
suite=bookworm
mirror=${VSC_ARM64_MIRROR:-http://deb.debian.org/debian}
security=${VSC_ARM64_SECURITY:-http://deb.debian.org/debian-security}

key=$(cat "$0" | sha256sum | cut -c1-16)
out=$cache/$key
if [ -s "$out/root.cpio" ] && [ -s "$out/vmlinuz" ]; then
  echo "$out"
  exit 0
fi

# One builder at a time (two checks may start together); the other then
# finds the root built.
mkdir -p "$cache"
exec 8>>"$cache/.lock"
flock -w 900 8 || { echo "root.sh: another build of $cache holds its lock" >&2; exit 1; }
if [ -s "$out/root.cpio" ] && [ -s "$out/vmlinuz" ]; then
  echo "$out"
  exit 0
fi

for tool in mmdebstrap cpio dpkg-deb apt-get; do
  command -v $tool >/dev/null 2>&1 || { echo "root.sh: $tool is missing (scripts/deps.sh)" >&2; exit 1; }
done
work=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf "$work"' EXIT

# 1. The root. Quiet: the caller shows our stderr only on failure.
echo "root.sh: building the arm64 root in $out (mmdebstrap, first run only)" >&2
mmdebstrap --quiet --variant=extract --mode=root --architectures=arm64 \
  --include="$(echo $packages | tr ' ' ',')" \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
  $suite "$work/root" "deb $mirror $suite main" "deb $mirror $suite-updates main" \
  "deb $security $suite-security main" >&2
root=$work/root
rm -rf "$root/usr/share/doc" "$root/usr/share/man" "$root/usr/share/locale" \
  "$root/usr/share/info" "$root/var/cache/apt" "$root/var/lib/apt/lists"
# What base-passwd's and dash's maintainer scripts would have made.
cp "$root/usr/share/base-passwd/passwd.master" "$root/etc/passwd"
cp "$root/usr/share/base-passwd/group.master" "$root/etc/group"
[ -e "$root/bin/sh" ] || ln -s dash "$root/bin/sh"
ln -sf mawk "$root/usr/bin/awk" # update-alternatives' link
mkdir -p "$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/run" "$root/vsc"
cp "$here/init" "$root/init"
chmod 755 "$root/init"

# 2. The kernel: the image of the version linux-image-arm64 points at (it
# has BTF: /sys/kernel/btf/vmlinux). Only /boot/vmlinuz-* is kept: BPF,
# uprobes, perf and hardware watchpoints are built in, and the root is the
# initramfs, so no module is needed.
kpkg=$(apt-cache depends linux-image-arm64:arm64 | sed -n 's/^ *Depends: \(linux-image-[0-9].*-arm64\).*/\1/p' | head -n 1)
[ -n "$kpkg" ] || { echo "root.sh: no linux-image-arm64:arm64 in apt's lists (apt-get update)" >&2; exit 1; }
deb=$(mktemp -d) # not under $cache, which apt's _apt user may not reach
chmod 755 "$deb"
chown _apt "$deb" 2>/dev/null || chmod 777 "$deb" # apt downloads as _apt
(cd "$deb" && apt-get download -q "$kpkg:arm64" >&2)
dpkg-deb --fsys-tarfile "$deb"/*.deb | tar -x -C "$work" --wildcards './boot/vmlinuz-*'
rm -rf "$deb"

# 3. Pack. Uncompressed: the guest unpacks it faster than it would gunzip
# under emulation, and the test files are appended as a second archive.
mkdir -p "$work/out"
mv "$work"/boot/vmlinuz-* "$work/out/vmlinuz"
(cd "$root" && find . | LC_ALL=C sort | cpio --quiet -o -H newc -R 0:0) > "$work/out/root.cpio"
echo "$kpkg" > "$work/out/kernel"
echo $packages > "$work/out/packages"
rm -rf "$out"
mv "$work/out" "$out"
# Roots of older package lists go: the cache holds one.
for old in "$cache"/*/; do
  case $old in "$cache"/build.*) continue ;; esac
  [ "${old%/}" = "$out" ] || rm -rf "${old%/}"
done
echo "$out"
