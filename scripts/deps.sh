#!/bin/sh
# Install what vsc needs to build and test on Debian 12. Idempotent: it only
# asks apt for what is missing. Runs as root, or through sudo when available.
set -eu

packages="make gcc g++ libc6-dev pkg-config git ca-certificates
  clang clang-format llvm libbpf-dev libelf-dev zlib1g-dev bpftool linux-libc-dev
  systemtap-sdt-dev libcmocka-dev libcadical-dev cadical
  liblttng-ust-dev lttng-tools babeltrace2 libbabeltrace2-dev
  libcapstone-dev libdw-dev librsvg2-bin libxml2-utils chromium
  util-linux procps python3
  parallel munge slurmctld slurmd slurm-client
  gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user file
  qemu-system-arm mmdebstrap cpio
  z3"
# z3: only the solver bench (bench/solver.sh) uses it, as the peer a user
# would reach for (an SMT encoding of SC); make check does not need it.

# The arm64 cross build (scripts/arm64.mk) links against Debian's arm64
# libraries, installed beside the native ones (multiarch). libcadical-dev is
# not co-installable (not Multi-Arch: same), so the arm64 build goes without
# the SAT backend.
arm64_packages="libc6-dev:arm64 libcmocka-dev:arm64 libbpf-dev:arm64
  libelf-dev:arm64 zlib1g-dev:arm64 liblttng-ust-dev:arm64
  libbabeltrace2-dev:arm64 libcapstone-dev:arm64 libdw-dev:arm64
  systemtap-sdt-dev:arm64 libstdc++6:arm64"
packages="$packages $arm64_packages"
# qemu-system-arm (qemu-system-aarch64), mmdebstrap and cpio: make
# check-arm64-system builds an arm64 Debian root with mmdebstrap and boots it
# with Debian's arm64 kernel (tests/system/arm64/); both come from Debian's
# archive at the first run and are kept in ~/.cache/vsc/arm64-system.

# libcadical-dev is not Multi-Arch: same, so its arm64 static library is
# unpacked into a folder of its own instead of installed (scripts/arm64.mk
# links it from there).
arm64_cadical=/opt/vsc-arm64/usr/lib/aarch64-linux-gnu/libcadical.a

unpack_arm64_cadical() {
  [ -e "$arm64_cadical" ] && return 0
  deb_dir=$(mktemp -d)
  chown _apt "$deb_dir" 2>/dev/null || chmod 777 "$deb_dir" # apt downloads as _apt
  (cd "$deb_dir" && apt-get download libcadical-dev:arm64)
  $sudo dpkg-deb -x "$deb_dir"/libcadical-dev_*_arm64.deb /opt/vsc-arm64
  rm -rf "$deb_dir"
}

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing="$missing $p"
done

if [ -z "$missing" ] && [ -e "$arm64_cadical" ]; then
  echo "deps.sh: all packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "deps.sh: run as root (missing:$missing)" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
if [ -z "$missing" ]; then
  unpack_arm64_cadical
  exit 0
fi
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $sudo dpkg --add-architecture arm64
fi
$sudo apt-get update
# shellcheck disable=SC2086
$sudo apt-get install -y --no-install-recommends $missing
unpack_arm64_cadical
