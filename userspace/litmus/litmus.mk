# vsc litmus: the .litmus reader, the C generator and the outcome model
# (userspace/litmus/), linked into the vsc command; tests/system/litmus.sh
# runs the shipped tests; `make fuzz-litmus` fuzzes the reader.
LITMUS_SRC := $(wildcard userspace/litmus/*.c)
LITMUS_OBJ := $(LITMUS_SRC:%.c=$(BUILD)/obj/%.o)
CLI_EXTRA_OBJ += $(LITMUS_OBJ)
-include $(LITMUS_OBJ:.o=.d)

.PHONY: check-litmus fuzz-litmus
ifneq ($(VSC_NO_ASAN),1)
CHECK_EXTRA += check-litmus
endif
check-litmus: $(BUILD)/vsc
	@tests/system/litmus.sh $(BUILD)/vsc

FUZZ_LITMUS := $(BUILD)/fuzz/fuzz_litmus
$(FUZZ_LITMUS): tests/fuzz/fuzz_litmus.c $(LITMUS_SRC) $(LIB_SRC) $(LIB_EXTRA_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(LITMUS_SRC) $(LIB_SRC) $(LIB_EXTRA_OBJ) \
		$(LDLIBS_LIB) $(LDLIBS_LIB_SAT) -lpthread

fuzz-litmus: $(FUZZ_LITMUS)
	@mkdir -p $(BUILD)/fuzz/corpus-litmus
	@cp -n tests/litmus/*/*.litmus $(BUILD)/fuzz/corpus-litmus/ 2>/dev/null || true
	@echo "== fuzz_litmus for $(FUZZ_SECONDS)s"
	@cd $(BUILD)/fuzz && ./fuzz_litmus -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
		-print_final_stats=1 corpus-litmus
fuzz: fuzz-litmus
