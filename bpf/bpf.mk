# Capture (eBPF probes, symbols): included by the top-level Makefile.
# The recorder pieces that need libbpf/libelf live in userspace/capture and
# are linked into the vsc command only (libvsc itself stays free of them).
#
# BPF objects and skeletons are generated into $(BUILD)/bpf, never committed:
#   vmlinux.h      bpftool btf dump of $(VMLINUX_BTF)
#   NAME.bpf.o     clang -target bpf, CO-RE, -D__TARGET_ARCH_$(BPF_ARCH)
#   NAME.skel.h    bpftool gen skeleton
# For another architecture set BPF_ARCH (x86, arm64) and VMLINUX_BTF (a BTF
# file of a kernel of that architecture).

BPF_CLANG   ?= clang
BPFTOOL     ?= bpftool
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
BPF_ARCH    ?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
BPF_OUT     := $(BUILD)/bpf
# usdt.bpf.h includes <linux/errno.h>, whose <asm/...> is per architecture
BPF_MULTIARCH ?= $(shell $(CC) -print-multiarch 2>/dev/null)
BPF_CFLAGS  := -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Werror \
	-I$(BPF_OUT) -Ibpf $(if $(BPF_MULTIARCH),-idirafter /usr/include/$(BPF_MULTIARCH))

CAPTURE_SRC := $(wildcard userspace/capture/*.c)
CAPTURE_OBJ := $(CAPTURE_SRC:%.c=$(BUILD)/obj/%.o)

CLI_EXTRA_OBJ  += $(CAPTURE_OBJ)
CLI_EXTRA_LIBS += -lbpf -lelf -lz

# make ARCH=arm64 without an arm64 VMLINUX_BTF sets BPF_VMLINUX_H to a
# stand-in made of arm64 UAPI types (scripts/arm64.mk, bpf/vmlinux_arm64.h).
$(BPF_OUT)/vmlinux.h: $(BPF_VMLINUX_H)
	@mkdir -p $(dir $@)
ifneq ($(BPF_VMLINUX_H),)
	cp $(BPF_VMLINUX_H) $@
else
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@
endif

$(BPF_OUT)/%.bpf.o: bpf/%.bpf.c bpf/vsc_event.h bpf/%.h bpf/forks.bpf.h bpf/foreign.bpf.h \
		bpf/foreign.h $(BPF_OUT)/vmlinux.h
	$(BPF_CLANG) $(BPF_CFLAGS) -c $< -o $@

.PRECIOUS: $(BPF_OUT)/%.bpf.o
$(BPF_OUT)/%.skel.h: $(BPF_OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $* > $@.tmp && mv $@.tmp $@

# The skeletons are headers of the objects that include them.
$(BUILD)/obj/userspace/capture/probe_source.o: $(BPF_OUT)/record.skel.h
$(CAPTURE_OBJ): EXTRA_CFLAGS += -I$(BPF_OUT) -Ibpf

-include $(CAPTURE_OBJ:.o=.d)
-include bpf/watch.mk


# ---- bundled probe targets and the system tests of vsc record -------------
PROBE_TARGET_SRC := $(wildcard tests/targets/probe_*.c)
PROBE_TARGETS := $(PROBE_TARGET_SRC:tests/targets/%.c=$(BUILD)/targets/%) \
	$(BUILD)/targets/probe_mp_nopie $(BUILD)/targets/uses_lib \
	$(BUILD)/targets/uses_plugin $(BUILD)/targets/liblib_plugin_dl.so
TARGET_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -Iinclude

$(BUILD)/targets/probe_%: tests/targets/probe_%.c tests/targets/expect.h include/vsc/probe.h
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) $< -o $@ -lpthread
# the same program as a non-PIE executable (ET_EXEC: no load offset)
$(BUILD)/targets/probe_mp_nopie: tests/targets/probe_mp.c tests/targets/expect.h include/vsc/probe.h
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -fno-pie -no-pie $< -o $@ -lpthread

# probes in a shared library only (the executable has none)
$(BUILD)/targets/liblib_counter.so: tests/targets/lib_counter.c include/vsc/probe.h
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -fPIC -shared $< -o $@ -lpthread
$(BUILD)/targets/uses_lib: tests/targets/uses_lib.c $(BUILD)/targets/liblib_counter.so
	$(CC) $(TARGET_CFLAGS) $< -o $@ -L$(BUILD)/targets -llib_counter -Wl,-rpath,'$$ORIGIN'

# a library with its own probe log (hidden visibility), linked (uses_plugin
# split) and, a copy, loaded by dlopen (uses_plugin late)
$(BUILD)/targets/liblib_plugin.so $(BUILD)/targets/liblib_plugin_dl.so: tests/targets/lib_plugin.c \
		include/vsc/probe.h
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) -fPIC -shared -fvisibility=hidden $< -o $@ -lpthread
$(BUILD)/targets/uses_plugin: tests/targets/uses_plugin.c $(BUILD)/targets/liblib_plugin.so
	$(CC) $(TARGET_CFLAGS) $< -o $@ -L$(BUILD)/targets -llib_plugin -Wl,-rpath,'$$ORIGIN' \
		-ldl -lpthread

# stress targets: real-shaped programs run long, one set for both paths
# (tests/system/stress.sh here, tests/system/lttng_stress.sh builds them
# with -DVSC_PROBE_LTTNG)
STRESS_TARGET_SRC := $(wildcard tests/targets/stress_*.c)
STRESS_TARGETS := $(STRESS_TARGET_SRC:tests/targets/%.c=$(BUILD)/targets/%)
$(BUILD)/targets/stress_%: tests/targets/stress_%.c include/vsc/probe.h
	@mkdir -p $(dir $@)
	$(CC) $(TARGET_CFLAGS) $< -o $@ -lpthread

.PHONY: check-record probe-targets check-stress
probe-targets: $(PROBE_TARGETS) $(STRESS_TARGETS)
ALL_EXTRA += probe-targets
CHECK_EXTRA += check-record
check-record: $(BUILD)/vsc $(PROBE_TARGETS)
	@tests/system/record.sh $(BUILD)/vsc $(BUILD)/targets
CHECK_EXTRA += check-stress
check-stress: $(BUILD)/vsc $(STRESS_TARGETS) $(BUILD)/targets/lab_sb
	@tests/system/stress.sh $(BUILD)/vsc $(BUILD)/targets short

# A target killed or ended by exit_group while its threads run: every
# increment in the trace, or the loss counted (about 1 min).
.PHONY: check-kill
CHECK_EXTRA += check-kill
check-kill: $(BUILD)/vsc $(PROBE_TARGETS)
	@tests/system/kill.sh $(BUILD)/vsc $(BUILD)/targets

# Memory shared with processes outside the target's family (shared_maps.h).
.PHONY: check-record-shared
CHECK_EXTRA += check-record-shared
check-record-shared: $(BUILD)/vsc $(PROBE_TARGETS)
	@tests/system/record_shared.sh $(BUILD)/vsc $(BUILD)/targets

# The recorder's output handling: -o first, refusals, write errors, pipes.
.PHONY: check-recorder
CHECK_EXTRA += check-recorder
check-recorder: $(BUILD)/vsc $(PROBE_TARGETS)
	@tests/system/recorder.sh $(BUILD)/vsc $(BUILD)/targets

# The libelf symbolizer on its own test program (cmocka), PIE and not.
.PHONY: check-capture-symbols
CHECK_EXTRA += check-capture-symbols
$(BUILD)/tests/capture_test_symbols: tests/unit/capture/test_symbols.c \
		userspace/capture/symbols.c userspace/capture/symbols.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Iuserspace/capture -o $@ $< userspace/capture/symbols.c \
		$(LDFLAGS) -lelf -lcmocka
$(BUILD)/tests/capture_test_symbols_nopie: tests/unit/capture/test_symbols.c \
		userspace/capture/symbols.c userspace/capture/symbols.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fno-pie -no-pie -Iuserspace/capture -o $@ $< \
		userspace/capture/symbols.c $(LDFLAGS) -lelf -lcmocka
check-capture-symbols: $(BUILD)/tests/capture_test_symbols $(BUILD)/tests/capture_test_symbols_nopie
	@echo "== $<"; $(BUILD)/tests/capture_test_symbols && $(BUILD)/tests/capture_test_symbols_nopie

# The trace writer on its own (cmocka): order, segments, loss, destinations,
# write errors, bounded memory.
.PHONY: check-trace-writer
CHECK_EXTRA += check-trace-writer
TRACE_WRITER_SRC := $(addprefix userspace/capture/,trace_writer.c trace_names.c trace_text.c \
	trace_map.c)
TRACE_WRITER_TESTS := $(BUILD)/tests/capture_test_trace_writer \
	$(BUILD)/tests/capture_test_trace_writer_special
$(BUILD)/tests/capture_test_%: tests/unit/capture/test_%.c tests/unit/capture/tw_test.c \
		tests/unit/capture/tw_test.h $(TRACE_WRITER_SRC) $(TRACE_WRITER_SRC:.c=.h) userspace/util/hash.h \
		bpf/vsc_event.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< tests/unit/capture/tw_test.c $(TRACE_WRITER_SRC) \
		$(LDFLAGS) -lcmocka
check-trace-writer: $(TRACE_WRITER_TESTS)
	@set -e; for t in $^; do echo "== $$t"; $$t; done

# The shared-memory watch on its own (cmocka): which objects a recorded
# address falls in.
.PHONY: check-shared-maps
CHECK_EXTRA += check-shared-maps
$(BUILD)/tests/capture_test_shared_maps: tests/unit/capture/test_shared_maps.c \
		userspace/capture/shared_maps.c userspace/capture/shared_maps.h \
		userspace/capture/shared_notify.c userspace/capture/shared_notify.h $(TRACE_WRITER_SRC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Iuserspace/capture -o $@ $< userspace/capture/shared_maps.c \
		userspace/capture/shared_notify.c \
		$(TRACE_WRITER_SRC) $(LDFLAGS) -lcmocka
check-shared-maps: $(BUILD)/tests/capture_test_shared_maps
	@echo "== $<"; $<
