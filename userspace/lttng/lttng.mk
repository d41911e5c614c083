# LTTng path: the `vsc` LTTng-UST tracepoint provider, the CTF converter core
# (shared by `vsc convert` and the babeltrace2 plugin), the plugin itself, and
# the LTTng system tests.

LTTNG_PROVIDER    := $(BUILD)/libvsc-lttng-ust.so
LTTNG_PROVIDER_SO := libvsc-lttng-ust.so.0
BT2_PLUGIN        := $(BUILD)/babeltrace2/plugins/vsc.so
# babeltrace2 looks for system plugins in its own libdir (not under PREFIX).
BT2_PLUGIN_DIR    ?= $(shell env -u PKG_CONFIG_PATH -u PKG_CONFIG_LIBDIR -u PKG_CONFIG_SYSROOT_DIR \
			pkg-config --variable=libdir babeltrace2 2>/dev/null || echo /usr/lib)/babeltrace2/plugins
LTTNG_CORE_OBJ    := $(patsubst %.c,$(BUILD)/obj/%.o,userspace/lttng/ctf_convert.c userspace/lttng/ctf_output.c userspace/lttng/ctf_fields.c \
			userspace/lttng/bt_sink.c userspace/lttng/ctf_graph.c)
# the trace writer lives in capture/ (linked into the vsc command already)
TRACE_WRITER_OBJ  := $(patsubst %.c,$(BUILD)/obj/%.o,userspace/capture/trace_writer.c \
			userspace/capture/trace_names.c userspace/capture/trace_text.c \
			userspace/capture/trace_map.c)
LTTNG_PLUGIN_OBJ  := $(BUILD)/obj/userspace/lttng/plugin.o \
			$(filter-out %/ctf_graph.o,$(LTTNG_CORE_OBJ)) \
			$(BUILD)/obj/userspace/capture/symbols.o \
			$(BUILD)/obj/userspace/util/diag.o $(TRACE_WRITER_OBJ)

CLI_EXTRA_OBJ  += $(LTTNG_CORE_OBJ)
CLI_EXTRA_LIBS += -lbabeltrace2
ALL_EXTRA      += $(LTTNG_PROVIDER) $(BT2_PLUGIN)
CHECK_EXTRA    += check-lttng
INSTALL_EXTRA  += install-lttng
UNINSTALL_EXTRA += uninstall-lttng

# The probes and the tracepoint definitions, in one library that programs
# built with -DVSC_PROBE_LTTNG link (-lvsc-lttng-ust -llttng-ust).
$(BUILD)/obj/userspace/lttng/provider.o: userspace/lttng/provider.c include/vsc/probe-lttng.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -c $< -o $@

$(LTTNG_PROVIDER): $(BUILD)/obj/userspace/lttng/provider.o
	$(CC) -shared -Wl,--no-as-needed -Wl,-soname,$(LTTNG_PROVIDER_SO) $(LDFLAGS) \
		-o $@ $^ -llttng-ust
	ln -sf libvsc-lttng-ust.so $(BUILD)/$(LTTNG_PROVIDER_SO)

# The babeltrace2 plugin carries its own copy of libvsc (static, PIC) and of
# the symbolizer.
$(BT2_PLUGIN): $(LTTNG_PLUGIN_OBJ) $(BUILD)/libvsc.a
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS) -o $@ $(LTTNG_PLUGIN_OBJ) $(BUILD)/libvsc.a \
		-lbabeltrace2 -lelf -lz $(LDLIBS_LIB) $(LDLIBS_LIB_SAT)

-include $(LTTNG_CORE_OBJ:.o=.d) $(BUILD)/obj/userspace/lttng/plugin.d

.PHONY: check-lttng install-lttng uninstall-lttng
check-lttng: $(BUILD)/vsc $(LTTNG_PROVIDER) $(BT2_PLUGIN)
	@tests/system/lttng.sh $(BUILD)
	@tests/system/lttng_stress.sh $(BUILD) short

install-lttng: $(LTTNG_PROVIDER) $(BT2_PLUGIN)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(LTTNG_PROVIDER) $(DESTDIR)$(PREFIX)/lib/libvsc-lttng-ust.so.$(VERSION)
	ln -sf libvsc-lttng-ust.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/$(LTTNG_PROVIDER_SO)
	ln -sf $(LTTNG_PROVIDER_SO) $(DESTDIR)$(PREFIX)/lib/libvsc-lttng-ust.so
	install -d $(DESTDIR)$(BT2_PLUGIN_DIR)
	install -m 644 $(BT2_PLUGIN) $(DESTDIR)$(BT2_PLUGIN_DIR)/babeltrace-plugin-vsc.so
	install -m 755 scripts/vsc-lttng $(DESTDIR)$(PREFIX)/bin/vsc-lttng

uninstall-lttng:
	rm -f $(DESTDIR)$(PREFIX)/lib/libvsc-lttng-ust.so.$(VERSION) \
		$(DESTDIR)$(PREFIX)/lib/$(LTTNG_PROVIDER_SO) \
		$(DESTDIR)$(PREFIX)/lib/libvsc-lttng-ust.so \
		$(DESTDIR)$(BT2_PLUGIN_DIR)/babeltrace-plugin-vsc.so \
		$(DESTDIR)$(PREFIX)/bin/vsc-lttng

.PHONY: bench-lttng
bench: bench-lttng
bench-lttng: $(BUILD)/vsc $(LTTNG_PROVIDER)
	@bench/lttng.sh $(BUILD)
