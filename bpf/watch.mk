# Hardware-watchpoint capture (vsc record --watch): bpf/watch.bpf.c, its
# skeleton, and the decoder's libraries. Included from bpf/bpf.mk.

WATCH_BPF_DIR := $(BUILD)/bpf
WATCH_ARCH    := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
BPF_CLANG     ?= clang
BPFTOOL       ?= bpftool

$(WATCH_BPF_DIR)/watch/vmlinux.h:
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(WATCH_BPF_DIR)/watch.bpf.o: bpf/watch.bpf.c bpf/watch.h bpf/vsc_event.h $(WATCH_BPF_DIR)/watch/vmlinux.h
	$(BPF_CLANG) -O2 -g -Wall -Werror -target bpf -D__TARGET_ARCH_$(WATCH_ARCH) \
		-I$(WATCH_BPF_DIR)/watch -Ibpf -c $< -o $@

$(WATCH_BPF_DIR)/watch.skel.h: $(WATCH_BPF_DIR)/watch.bpf.o
	$(BPFTOOL) gen skeleton $< name watch_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/userspace/capture/watch.o: $(WATCH_BPF_DIR)/watch.skel.h
$(BUILD)/obj/userspace/capture/watch.o: EXTRA_CFLAGS += -I$(WATCH_BPF_DIR)

CLI_EXTRA_LIBS += -lbpf -lcapstone -ldw

# ---- uninstrumented targets and the system tests ----------------------------
# Each target is built twice: as a PIE (the default) and as a fixed-address
# executable, so symbol lookup is tested with and without load offsets.
WATCH_TARGETS := plain atomic peterson seqlock
WATCH_TARGET_BINS := $(foreach t,$(WATCH_TARGETS),$(BUILD)/targets/watch_$(t) $(BUILD)/targets/watch_$(t).nopie)
WATCH_TARGET_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -pthread

$(BUILD)/targets/watch_%: tests/targets/watch_%.c tests/targets/watch_log.h
	@mkdir -p $(dir $@)
	$(CC) $(WATCH_TARGET_CFLAGS) -fPIE -pie -o $@ $<

$(BUILD)/targets/watch_%.nopie: tests/targets/watch_%.c tests/targets/watch_log.h
	@mkdir -p $(dir $@)
	$(CC) $(WATCH_TARGET_CFLAGS) -fno-pie -no-pie -o $@ $<

.PHONY: check-watch
# check-watch joins CHECK_EXTRA with the `vsc record --watch` option.
check-watch: $(BUILD)/vsc $(WATCH_TARGET_BINS)
	@tests/system/watch_limits.sh $(BUILD)/vsc $(BUILD)/targets
	@tests/system/watch.sh $(BUILD)/vsc $(BUILD)/targets

# The decoder on known machine code (no kernel needed).
.PHONY: check-watch-decode
CHECK_EXTRA += check-watch-decode
$(BUILD)/tests/watch_test_decode: tests/unit/watch/test_decode.c userspace/capture/decode.c \
		userspace/capture/decode.h bpf/watch.h bpf/vsc_event.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Iuserspace/capture -o $@ tests/unit/watch/test_decode.c \
		userspace/capture/decode.c $(LDFLAGS) -lcapstone -lcmocka
check-watch-decode: $(BUILD)/tests/watch_test_decode
	@echo "== $<"; $<
