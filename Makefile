# vsc: top-level build. `make` builds build/vsc, build/libvsc.a, build/libvsc.so.
# Parts owned by other folders add themselves through the *.mk fragments
# included at the end (capture, LTTng, tests, bench, arm64).

CC        ?= cc
BUILD     ?= build
PREFIX    ?= /usr/local
DESTDIR   ?=
VERSION   := 0.1.0
SONAME    := libvsc.so.0

WARN      := -Wall -Wextra -Werror
CFLAGS    ?= -O2 -g
ALL_CFLAGS = -std=c11 $(WARN) $(CFLAGS) -D_GNU_SOURCE -I. -Iinclude -Iuserspace/lib $(EXTRA_CFLAGS)
LDFLAGS   ?=
LDLIBS_LIB = -lm
LDLIBS_LIB_SAT ?=

LIB_SRC   := $(wildcard userspace/lib/*.c)
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
# The command: its shells (cli/), the `vsc gen` generators (gen/), and the
# toolkit's compiled parts (util/*.c: the message printer and the option
# parser; they print, so they are the command's, not the library's). The
# toolkit's headers-only parts (array.h, clock.h) serve the library too.
CLI_SRC   := $(wildcard userspace/cli/*.c) $(wildcard userspace/gen/*.c) \
	     $(wildcard userspace/util/*.c)
CLI_OBJ   := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)

# Fragments append to these.
CLI_EXTRA_OBJ  :=
CLI_EXTRA_LIBS :=
LIB_EXTRA_OBJ  :=
ALL_EXTRA      :=
CHECK_EXTRA    :=
INSTALL_EXTRA  :=
UNINSTALL_EXTRA :=
CLEAN_EXTRA    :=

.PHONY: all check demo install uninstall clean format fuzz bench
.DEFAULT_GOAL := all

# ---- fragments (they append to the lists above) ---------------------------
# arm64.mk comes first: with ARCH=arm64 it sets CC and PKG_CONFIG, which the
# other fragments may probe while they are read.
-include scripts/arm64.mk
-include bpf/bpf.mk
-include userspace/lttng/lttng.mk
-include bench/bench.mk
-include userspace/lib/sat.mk
-include docs/docs.mk
-include userspace/litmus/litmus.mk
include tests/tests.mk # last: it tests what the others build


all: $(BUILD)/vsc $(BUILD)/libvsc.a $(BUILD)/libvsc.so all-extra

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -MMD -MP -c $< -o $@

$(BUILD)/libvsc.a: $(LIB_OBJ) $(LIB_EXTRA_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The library's objects hide every symbol but the API (include/vsc/vsc.h sets
# default visibility for what it declares); the version script also keeps
# the SAT backend's C++ symbols local.
LIB_MAP := userspace/lib/libvsc.map
$(LIB_OBJ): ALL_CFLAGS += -fvisibility=hidden

$(BUILD)/libvsc.so: $(LIB_OBJ) $(LIB_EXTRA_OBJ) $(LIB_MAP)
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=$(LIB_MAP) $(LDFLAGS) \
		-o $@ $(LIB_OBJ) $(LIB_EXTRA_OBJ) $(LDLIBS_LIB) $(LDLIBS_LIB_SAT)
	ln -sf libvsc.so $(BUILD)/$(SONAME)

$(BUILD)/vsc: $(CLI_OBJ) $(CLI_EXTRA_OBJ) $(BUILD)/libvsc.a
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(CLI_EXTRA_OBJ) $(BUILD)/libvsc.a \
		$(CLI_EXTRA_LIBS) $(LDLIBS_LIB) $(LDLIBS_LIB_SAT) -lpthread

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)

# ---- demo: decide the bundled examples -----------------------------------
demo: all
	@scripts/demo.sh $(BUILD)/vsc

# ---- install ----------------------------------------------------------------
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/include/vsc $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/vsc $(DESTDIR)$(PREFIX)/bin/vsc
	install -m 644 $(BUILD)/libvsc.a $(DESTDIR)$(PREFIX)/lib/libvsc.a
	install -m 755 $(BUILD)/libvsc.so $(DESTDIR)$(PREFIX)/lib/libvsc.so.$(VERSION)
	ln -sf libvsc.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libvsc.so
	install -m 644 include/vsc/*.h $(DESTDIR)$(PREFIX)/include/vsc/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
		-e 's|@LIBS_PRIVATE@|$(LDLIBS_LIB) $(LDLIBS_LIB_SAT)|g' \
		docs/libvsc.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/libvsc.pc
	install -m 644 docs/vsc*.1 $(DESTDIR)$(PREFIX)/share/man/man1/

uninstall: $(UNINSTALL_EXTRA)
	rm -f $(DESTDIR)$(PREFIX)/bin/vsc $(DESTDIR)$(PREFIX)/lib/libvsc.a \
		$(DESTDIR)$(PREFIX)/lib/libvsc.so $(DESTDIR)$(PREFIX)/lib/$(SONAME) \
		$(DESTDIR)$(PREFIX)/lib/libvsc.so.$(VERSION) \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig/libvsc.pc
	rm -rf $(DESTDIR)$(PREFIX)/include/vsc
	for f in docs/vsc*.1; do rm -f $(DESTDIR)$(PREFIX)/share/man/man1/$${f#docs/}; done

clean:
	rm -rf $(BUILD) $(CLEAN_EXTRA)

# The whole tree follows the root .clang-format (clang-format 14, Debian's):
# `make format` applies it, `make check-format` (part of `make check`) fails
# on any git-tracked C file that differs.
C_FILES = $(shell git ls-files '*.c' '*.h' 2>/dev/null)
format:
	clang-format -i $(C_FILES)

CHECK_EXTRA += check-format
.PHONY: check-format
check-format:
	@if [ -z "$(C_FILES)" ]; then echo "check-format: not a git checkout, no files to check" >&2; exit 1; fi
	@clang-format --dry-run -Werror $(C_FILES) || \
		{ echo "check-format: run 'make format' (see .clang-format)" >&2; exit 1; }
	@echo "format: $(words $(C_FILES)) files clean"

# libvsc.so exports exactly the functions the public headers declare.
CHECK_EXTRA += check-exports
.PHONY: check-exports
check-exports: $(BUILD)/libvsc.so
	@tests/lib/exports.sh $(BUILD)/libvsc.so

all-extra: $(ALL_EXTRA)
.PHONY: all-extra
# The hardware-watchpoint suite last: on a machine whose debug registers
# never fire it fails under VSC_REQUIRE_ALL=1, and every other suite has
# run and told its result by then.
LAST_CHECKS := check-watch
check: all $(filter-out $(LAST_CHECKS),$(CHECK_EXTRA)) $(filter $(LAST_CHECKS),$(CHECK_EXTRA))
install: $(INSTALL_EXTRA)
