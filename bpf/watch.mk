# Hardware-watchpoint capture (vsc record --watch): included from bpf/bpf.mk,
# whose pattern rules build bpf/watch.bpf.c into $(BPF_OUT)/watch.skel.h.

$(BUILD)/obj/userspace/capture/watch.o: $(BPF_OUT)/watch.skel.h
# Capstone is loaded by the first decoder (userspace/capture/capstone_lazy.c),
# not linked: its relocations cost every vsc command's start ~4 ms.
CLI_EXTRA_LIBS += -ldw -ldl

# ---- uninstrumented targets and the system tests ----------------------------
# Each target is built twice: as a PIE (the default) and as a fixed-address
# executable, so symbol lookup is tested with and without load offsets.
WATCH_TARGETS := plain atomic peterson seqlock hammer contended traps runon
WATCH_TARGET_BINS := $(foreach t,$(WATCH_TARGETS),$(BUILD)/targets/watch_$(t) $(BUILD)/targets/watch_$(t).nopie)
WATCH_TARGET_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -pthread

$(BUILD)/targets/watch_%: tests/targets/watch_%.c tests/targets/watch_log.h
	@mkdir -p $(dir $@)
	$(CC) $(WATCH_TARGET_CFLAGS) -fPIE -pie -o $@ $<

$(BUILD)/targets/watch_%.nopie: tests/targets/watch_%.c tests/targets/watch_log.h
	@mkdir -p $(dir $@)
	$(CC) $(WATCH_TARGET_CFLAGS) -fno-pie -no-pie -o $@ $<

# ARMv8.0 atomics (inline load/store-exclusive loops, no LSE): what a
# watchpoint livelocks; the ARM64 system test checks the recorder notices.
# On ARM64, loads are seen before they happen (values not exact) and the
# atomics tests need LSE: the ARM64 watch test replaces tests/system/watch.sh.
WATCH_SYSTEM_TEST := tests/system/watch.sh
ifneq ($(filter aarch64%,$(shell $(CC) -dumpmachine 2>/dev/null)),)
WATCH_SYSTEM_TEST := tests/system/arm64/watch.sh
WATCH_TARGET_BINS += $(BUILD)/targets/watch_atomic.llsc
$(BUILD)/targets/watch_atomic.llsc: tests/targets/watch_atomic.c tests/targets/watch_log.h
	@mkdir -p $(dir $@)
	$(CC) $(WATCH_TARGET_CFLAGS) -march=armv8-a -mno-outline-atomics -fPIE -pie -o $@ $<
endif

# The pages' own cases (x86-64: --watch-by pages, tests/system/watch_pages.sh).
WATCH_PAGES_TARGETS := pagecalls
WATCH_PAGES_TARGET_BINS := $(foreach t,$(WATCH_PAGES_TARGETS),$(BUILD)/targets/watch_$(t))

.PHONY: check-watch
CHECK_EXTRA += check-watch
check-watch: $(BUILD)/vsc $(WATCH_TARGET_BINS) $(WATCH_PAGES_TARGET_BINS) \
		$(BUILD)/targets/stress_pool $(BUILD)/targets/probe_shm
	@tests/system/watch_limits.sh $(BUILD)/vsc $(BUILD)/targets
	@$(WATCH_SYSTEM_TEST) $(BUILD)/vsc $(BUILD)/targets
	@tests/system/watch_traps.sh $(BUILD)/vsc $(BUILD)/targets
	@tests/system/watch_shared.sh $(BUILD)/vsc $(BUILD)/targets
	@tests/system/watch_pages.sh $(BUILD)/vsc $(BUILD)/targets

# The decoder on known machine code (no kernel needed).
.PHONY: check-watch-decode
DECODE_SRC := $(addprefix userspace/capture/,decode.c decode_x86.c decode_arm64.c)
CHECK_EXTRA += check-watch-decode
$(BUILD)/tests/watch_test_decode: tests/unit/watch/test_decode.c $(DECODE_SRC) \
		userspace/capture/decode.h userspace/capture/decode_arch.h \
		userspace/capture/llsc_guard.c userspace/capture/llsc_guard.h bpf/watch.h bpf/vsc_event.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Iuserspace/capture -o $@ tests/unit/watch/test_decode.c \
		$(DECODE_SRC) userspace/capture/llsc_guard.c $(LDFLAGS) -lcapstone -lcmocka
# The decoder with Capstone loaded at its first use: the library of the
# build, then a fake of another version first in the search path (under
# each name the loader may ask for).
FAKE_CAPSTONE := $(BUILD)/tests/fake-capstone
$(FAKE_CAPSTONE)/libcapstone.so: tests/unit/watch/fake_capstone.c
	@mkdir -p $(dir $@)
	$(CC) -shared -fPIC -o $@ $<
	@for v in 3 4 5 6 7; do ln -sf libcapstone.so $(dir $@)libcapstone.so.$$v; done
$(BUILD)/tests/watch_test_capstone_lazy: tests/unit/watch/test_capstone_lazy.c $(DECODE_SRC) \
		userspace/capture/capstone_lazy.c userspace/capture/decode.h \
		userspace/capture/llsc_guard.c userspace/capture/llsc_guard.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Iuserspace/capture -o $@ tests/unit/watch/test_capstone_lazy.c \
		$(DECODE_SRC) userspace/capture/capstone_lazy.c userspace/capture/llsc_guard.c \
		$(LDFLAGS) -ldl -lpthread -lcmocka
check-watch-decode: $(BUILD)/tests/watch_test_decode $(BUILD)/tests/watch_test_capstone_lazy \
		$(FAKE_CAPSTONE)/libcapstone.so
	@echo "== $<"; $<
	@echo "== $(BUILD)/tests/watch_test_capstone_lazy"; $(BUILD)/tests/watch_test_capstone_lazy
	@echo "== $(BUILD)/tests/watch_test_capstone_lazy (another version)"; \
		VSC_FAKE_CAPSTONE=1 LD_LIBRARY_PATH=$(FAKE_CAPSTONE) $(BUILD)/tests/watch_test_capstone_lazy
