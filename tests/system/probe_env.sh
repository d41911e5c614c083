# Sourced by the system tests of the eBPF probe path (record.sh,
# recorder.sh, stress.sh): require_probes SUITE returns when this machine
# can record with eBPF (root, uprobes, BPF); otherwise the suite skips,
# saying why, or fails when VSC_REQUIRE_ALL=1.

skip_all() { # SUITE WHY
  if [ "${VSC_REQUIRE_ALL:-0}" = 1 ]; then
    echo "FAIL: $1 cannot run: $2 (VSC_REQUIRE_ALL=1)"
    exit 1
  fi
  echo "SKIP: $1: $2"
  exit 0
}

require_probes() { # SUITE
  [ "$(id -u)" = 0 ] || skip_all "$1" "not root (BPF and uprobes need it)"
  [ -d /sys/bus/event_source/devices/uprobe ] || skip_all "$1" "kernel without uprobes"
  [ -e /proc/sys/kernel/unprivileged_bpf_disabled ] || skip_all "$1" "kernel without BPF"
}
