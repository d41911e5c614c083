# AArch64 cross-build and tests under qemu-user (docs/arm64.md).
#
#   make ARCH=arm64        build $(BUILD)/vsc, libvsc.{a,so} and the BPF
#                          objects for AArch64 with Debian's cross toolchain
#   make check-arm64       build into $(BUILD)/arm64 and run the unit and CLI
#                          tests there under qemu-aarch64
#   make check-arm64-system
#                          boot an arm64 Debian 12 kernel and root under
#                          qemu-system-aarch64 and run the system tests
#                          (record, watch, LTTng, lab) in it as root
#                          (tests/system/arm64/run.sh)
#
# `make check` runs check-arm64 when the cross toolchain, qemu-user and the
# arm64 cmocka library are installed (scripts/deps.sh installs them); without
# them it says so and skips, unless VSC_REQUIRE_ALL=1, where it fails.
#
# This fragment is included before the others so that the compiler and
# pkg-config they probe at parse time are already the arm64 ones.

ARM64_CROSS     ?= aarch64-linux-gnu-
ARM64_QEMU      ?= qemu-aarch64
# The arm64 programs run with Debian's multiarch libc6:arm64 (its loader is
# /lib/ld-linux-aarch64.so.1), which the arm64 -dev packages pull in. Do not
# point qemu at the cross toolchain's copy (QEMU_LD_PREFIX=/usr/aarch64-linux-gnu)
# while multiarch libraries are installed: qemu then takes ld.so from there
# and libc.so.6 from /lib/aarch64-linux-gnu, two different glibc builds, and
# the first pthread_create never returns. Set ARM64_LD_PREFIX only on a
# machine without libc6:arm64.
ARM64_LD_PREFIX ?=
ARM64_BUILD     ?= $(BUILD)/arm64
ARM64_MULTIARCH := /usr/lib/aarch64-linux-gnu
# What the cross build needs besides the compiler: checked by check-arm64.
ARM64_NEEDS     := $(ARM64_CROSS)gcc $(ARM64_QEMU) $(ARM64_MULTIARCH)/libcmocka.so \
		   /opt/vsc-arm64/usr/lib/aarch64-linux-gnu/libcadical.a \
		   $(if $(ARM64_LD_PREFIX),,/lib/ld-linux-aarch64.so.1)

.PHONY: check-arm64 check-arm64-run check-arm64-skip arm64-build
.PHONY: check-arm64-system check-arm64-system-skip

# The test programs that need no kernel feature: the cmocka suites of
# tests/tests.mk and the watchpoint decoder's (bpf/watch.mk).
ARM64_TEST_BINS = $(UNIT_BIN) \
	$(if $(wildcard tests/unit/watch/test_decode.c),$(BUILD)/tests/watch_test_decode)

ifneq ($(filter arm64 aarch64,$(ARCH)),)
# ---- cross mode: everything below builds for AArch64 -----------------------
VSC_TARGET_ARCH := arm64
ifneq ($(origin CC),command line)
CC  := $(ARM64_CROSS)gcc
endif
ifneq ($(origin CXX),command line)
CXX := $(ARM64_CROSS)g++
endif
# bpf/bpf.mk compiles the BPF objects with -D__TARGET_ARCH_$(BPF_ARCH).
# This machine's kernel BTF is x86-64's: unless VMLINUX_BTF names an arm64
# kernel's BTF, the objects get the arm64 UAPI types instead
# (bpf/vmlinux_arm64.h, from linux-libc-dev:arm64).
BPF_ARCH := arm64
ifeq ($(origin VMLINUX_BTF),undefined)
BPF_VMLINUX_H := bpf/vmlinux_arm64.h
endif
# Fragments look libraries up with $(PKG_CONFIG); make 4.3 does not pass
# exported variables to $(shell), so the search path rides in the command.
PKG_CONFIG_LIBDIR := $(ARM64_MULTIARCH)/pkgconfig:/usr/share/pkgconfig
export PKG_CONFIG_LIBDIR
PKG_CONFIG := PKG_CONFIG_LIBDIR=$(PKG_CONFIG_LIBDIR) pkg-config
# libcadical-dev cannot be installed for arm64 beside the native one (not
# Multi-Arch: same); scripts/deps.sh unpacks its arm64 libcadical.a here.
# userspace/lib/sat.mk appends -l:libcadical.a to LDLIBS_LIB_SAT.
ARM64_CADICAL_DIR ?= /opt/vsc-arm64/usr/lib/aarch64-linux-gnu
LDLIBS_LIB_SAT := -L$(ARM64_CADICAL_DIR) $(LDLIBS_LIB_SAT)
ifeq ($(wildcard $(ARM64_CADICAL_DIR)/libcadical.a),)
ifeq ($(filter clean,$(MAKECMDGOALS)),)
$(error no arm64 libcadical.a in $(ARM64_CADICAL_DIR): run scripts/deps.sh)
endif
endif
# userspace/lttng/lttng.mk installs the babeltrace2 plugin into babeltrace2's
# own libdir, which for arm64 is the multiarch one.
BT2_PLUGIN_DIR := $(shell env -u PKG_CONFIG_PATH -u PKG_CONFIG_SYSROOT_DIR \
	PKG_CONFIG_LIBDIR=$(ARM64_MULTIARCH)/pkgconfig pkg-config --variable=libdir babeltrace2 \
	2>/dev/null || echo $(ARM64_MULTIARCH))/babeltrace2/plugins
# Run an AArch64 program on this machine.
ARM64_RUN := $(ARM64_QEMU)$(if $(ARM64_LD_PREFIX), -L $(ARM64_LD_PREFIX))

ifneq ($(filter check,$(MAKECMDGOALS)),)
$(error make ARCH=arm64 check cannot run AArch64 tests directly: use `make check-arm64`)
endif

# qemu's default CPU has the LSE atomics, which GCC's outline atomics pick at
# run time; the probe helpers are run once more on an ARMv8.0 CPU, where the
# same calls take the load/store-exclusive loops.
ARM64_LLSC_TESTS = $(filter %/test_probe_helpers,$(UNIT_BIN))

# The unit and CLI tests under qemu, once check-arm64 has built them. The CLI
# golden runner gets a wrapper script in place of vsc, so tests/cli/run.sh
# stays as it is.
# Under emulation (about ten times slower) the unit tests run a tenth of
# their random programs, on the same seeds: what this run checks is that
# the AArch64 build computes what the native one does; the native
# `make check-unit` runs them all (tests/unit/testutil.h: test_share).
ARM64_TEST_PERCENT ?= 10
check-arm64-run: $(BUILD)/vsc-qemu
	@file $(BUILD)/vsc | grep -q 'ARM aarch64' \
		|| { echo "check-arm64: $(BUILD)/vsc is not an AArch64 program" >&2; exit 1; }
	@VSC_TEST_PERCENT=$(ARM64_TEST_PERCENT) tests/unit/run_tests.sh -j $(TEST_JOBS) \
		-r "$(ARM64_RUN)" -l qemu-aarch64 $(ARM64_TEST_BINS)
	@VSC_TEST_PERCENT=$(ARM64_TEST_PERCENT) tests/unit/run_tests.sh -j $(TEST_JOBS) \
		-r "$(ARM64_RUN) -cpu cortex-a57" -l "qemu-aarch64 -cpu cortex-a57 (atomics without LSE)" \
		$(ARM64_LLSC_TESTS)
	@tests/cli/run.sh $(BUILD)/vsc-qemu
	@if [ -x tests/cli/reports.sh ]; then tests/cli/reports.sh $(BUILD)/vsc-qemu; fi

$(BUILD)/vsc-qemu: $(BUILD)/vsc
	@printf '%s\n' '#!/bin/sh' \
		'exec $(ARM64_RUN) "$$(dirname "$$0")/vsc" "$$@"' > $@
	@chmod +x $@

else
# ---- native mode: offer check-arm64 to `make check` ------------------------
ARM64_MISSING := $(shell for n in $(ARM64_NEEDS); do \
	command -v $$n >/dev/null 2>&1 || [ -e $$n ] || printf '%s ' $$n; done)

ARM64_SUBMAKE = ARCH=arm64 BUILD=$(ARM64_BUILD) VSC_NO_ASAN=1 \
	CC=$(ARM64_CROSS)gcc CXX=$(ARM64_CROSS)g++

# One cross build for both checks (they may run in parallel under -j),
# TEST_JOBS compilers at a time (tests/tests.mk) unless this make runs jobs.
arm64-build:
	@for n in $(ARM64_NEEDS); do command -v $$n >/dev/null 2>&1 || [ -e $$n ] \
		|| { echo "check-arm64: missing $$n (run scripts/deps.sh)" >&2; exit 1; }; done
	@$(MAKE) --no-print-directory $(ARM64_SUBMAKE) $(SUBMAKE_JOBS) \
		all $(patsubst $(BUILD)/%,$(ARM64_BUILD)/%,$(ARM64_TEST_BINS)) arm64-system-bins

check-arm64: arm64-build
	@$(MAKE) --no-print-directory $(ARM64_SUBMAKE) check-arm64-run

check-arm64-skip:
	@echo "check-arm64: skipped, missing: $(ARM64_MISSING)(scripts/deps.sh installs them)"

ifneq ($(strip $(ARM64_MISSING)),)
ifeq ($(VSC_REQUIRE_ALL),1)
CHECK_EXTRA += check-arm64
else
CHECK_EXTRA += check-arm64-skip
endif
else
CHECK_EXTRA += check-arm64
endif

# The emulated machine's root and kernel are kept here between runs (not
# under $(BUILD): `make clean` keeps them). About 270 MB.
ARM64_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/vsc/arm64-system
ARM64_SYSTEM_NEEDS := qemu-system-aarch64 mmdebstrap cpio
ARM64_SYSTEM_MISSING := $(ARM64_MISSING)$(shell for n in $(ARM64_SYSTEM_NEEDS); do \
	command -v $$n >/dev/null 2>&1 || printf '%s ' $$n; done)

check-arm64-system: arm64-build
	@tests/system/arm64/run.sh $(ARM64_BUILD) $(ARM64_CACHE)

check-arm64-system-skip:
	@echo "check-arm64-system: skipped, missing: $(ARM64_SYSTEM_MISSING)(scripts/deps.sh installs them)"

ifneq ($(strip $(ARM64_SYSTEM_MISSING)),)
ifeq ($(VSC_REQUIRE_ALL),1)
CHECK_EXTRA += check-arm64-system
else
CHECK_EXTRA += check-arm64-system-skip
endif
else
CHECK_EXTRA += check-arm64-system
endif
endif

ifneq ($(filter aarch64%,$(shell $(CC) -dumpmachine 2>/dev/null)),)
# ---- what tests/system/arm64/guest.sh runs besides `all` --------------------
# For any AArch64 build: the cross build that the emulated machine runs, or a
# native build on an ARM64 machine (docs/arm64.md: the same suite there).
# The watch targets of bpf/watch.mk and the LTTng test target (there is no
# compiler in the emulated machine). Listed in a recipe: the fragments that
# define WATCH_TARGET_BINS are read after this one.
ARM64_SYSTEM_BINS = $(BUILD)/targets/lttng_target
arm64-system-bins: $(ARM64_SYSTEM_BINS)
	@$(MAKE) --no-print-directory $(WATCH_TARGET_BINS)
.PHONY: arm64-system-bins

$(BUILD)/targets/lttng_target: tests/system/lttng_target.c include/vsc/probe.h \
		$(BUILD)/libvsc-lttng-ust.so
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -DVSC_PROBE_LTTNG -Iinclude $< -o $@ \
		-L$(BUILD) -lvsc-lttng-ust -llttng-ust -lpthread -Wl,-rpath,'$$ORIGIN/..'
endif

# ---- one target per build folder --------------------------------------------
# Objects of two architectures must not mix in one $(BUILD): the folder
# remembers which it holds, and a build for the other one stops with advice.
ARM64_TARGET := $(if $(VSC_TARGET_ARCH),$(VSC_TARGET_ARCH),native)
ARM64_HELD   := $(shell cat $(BUILD)/.target-arch 2>/dev/null)
ifeq ($(filter clean,$(MAKECMDGOALS)),)
ifeq ($(ARM64_HELD),)
ifeq ($(ARM64_TARGET),arm64)
ifneq ($(wildcard $(BUILD)/obj),)
$(error $(BUILD)/ holds a native build: `make clean` first, or use BUILD=$(BUILD)/arm64)
endif
ARM64_HELD := $(shell mkdir -p $(BUILD) && echo arm64 > $(BUILD)/.target-arch && echo arm64)
endif
else ifneq ($(ARM64_HELD),$(ARM64_TARGET))
$(error $(BUILD)/ holds an $(ARM64_HELD) build, not $(ARM64_TARGET): `make clean` first, or use another BUILD=)
endif
endif
