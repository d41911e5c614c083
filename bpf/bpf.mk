# Capture (eBPF probes, symbols): included by the top-level Makefile.
# The recorder pieces that need libbpf/libelf live in userspace/capture and
# are linked into the vsc command only (libvsc itself stays free of them).

CAPTURE_SRC := $(wildcard userspace/capture/*.c)
CAPTURE_OBJ := $(CAPTURE_SRC:%.c=$(BUILD)/obj/%.o)

CLI_EXTRA_OBJ  += $(CAPTURE_OBJ)
CLI_EXTRA_LIBS += -lelf -lz

-include $(CAPTURE_OBJ:.o=.d)
-include bpf/watch.mk
