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
