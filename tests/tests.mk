# Tests: unit (cmocka, tests/unit/test_*.c), CLI golden files (tests/cli/),
# the whole suite again under -fsanitize=address,undefined, and fuzzing.
.PHONY: check-unit check-cli check-reductions check-asan check-reports check-distribute check-lab

UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
UNIT_HELP := $(filter-out $(UNIT_SRC),$(wildcard tests/unit/*.c))

CHECK_EXTRA += check-unit check-cli check-reports check-gen check-reductions check-limits \
	check-jobs check-stream
ifneq ($(VSC_NO_ASAN),1)
CHECK_EXTRA += check-distribute
endif
ifneq ($(VSC_NO_ASAN),1)
CHECK_EXTRA += check-asan
endif

# the public headers too: test_probe_helpers compiles <vsc/probe.h>'s
# inline helpers itself, so a change there must rebuild it
UNIT_HDR  := $(wildcard tests/unit/*.h) $(wildcard include/vsc/*.h)

# The shared helpers are compiled once, not into each test program (they
# were two thirds of each one's build).
UNIT_HELP_OBJ := $(UNIT_HELP:tests/unit/%.c=$(BUILD)/tests/obj/%.o)
$(BUILD)/tests/obj/%.o: tests/unit/%.c $(UNIT_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit -MMD -MP -c $< -o $@
-include $(UNIT_HELP_OBJ:.o=.d)
# (kept: not intermediate files to delete after the build)
.SECONDARY: $(UNIT_HELP_OBJ)

$(BUILD)/tests/%: tests/unit/%.c $(UNIT_HELP_OBJ) $(UNIT_HDR) $(BUILD)/libvsc.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit -o $@ $< $(UNIT_HELP_OBJ) $(BUILD)/libvsc.a \
		-lcmocka $(LDLIBS_LIB) $(LDLIBS_LIB_SAT) -lpthread

# test_util compiles the toolkit's sources and headers in itself
$(BUILD)/tests/test_util: $(wildcard userspace/util/*.c userspace/util/*.h)

# The test programs run TEST_JOBS at a time (one per core; each prints
# whole, in order: tests/unit/run_tests.sh).
TEST_JOBS ?= $(shell nproc 2> /dev/null || echo 2)
.PHONY: unit-bins
unit-bins: $(UNIT_BIN)
check-unit: $(UNIT_BIN)
	@tests/unit/run_tests.sh -j $(TEST_JOBS) $(UNIT_BIN)

check-cli: $(BUILD)/vsc
	@tests/cli/run.sh $(BUILD)/vsc

check-reports: $(BUILD)/vsc
	@tests/cli/reports.sh $(BUILD)/vsc

.PHONY: check-gen
check-gen: $(BUILD)/vsc
	@tests/cli/gen.sh $(BUILD)/vsc

# vsc gen families with answers known by construction or brute force,
# decided by every solver that applies
check-reductions: $(BUILD)/vsc
	@tests/cli/reductions.sh $(BUILD)/vsc

# --jobs inside one execution: -j 1 and -j 4 print the same bytes
.PHONY: check-jobs
check-jobs: $(BUILD)/vsc
	@tests/cli/jobs.sh $(BUILD)/vsc

# Lab runs decided segment by segment report what whole-file checks do,
# on whole and damaged traces (tests/cli/stream.sh)
.PHONY: check-stream
check-stream: $(BUILD)/vsc
	@tests/cli/stream.sh $(BUILD)/vsc

# --min stopped before any witness: its proven lower bound, text and JSON
# (tests/cli/least_at_least.sh)
CHECK_EXTRA += check-least
.PHONY: check-least
check-least: $(BUILD)/vsc
	@tests/cli/least_at_least.sh $(BUILD)/vsc

# Hostile inputs under --timeout and a memory cap (tests/cli/limits.sh)
.PHONY: check-limits
check-limits: $(BUILD)/vsc
	@tests/cli/limits.sh $(BUILD)/vsc

# The lab targets: store buffering and message passing, plain and with
# <vsc/lab.h>, recorded with vsc record (and LTTng when built)
LAB_TARGETS := $(BUILD)/targets/lab_sb $(BUILD)/targets/lab_mp
ALL_EXTRA += $(LAB_TARGETS)
ifneq ($(VSC_NO_ASAN),1)
CHECK_EXTRA += check-lab
endif

$(BUILD)/targets/lab_%: tests/targets/lab_%.c tests/targets/lab_driver.h include/vsc/lab.h \
		include/vsc/probe.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -Iinclude -pthread -o $@ $<

# the same targets on the LTTng path, when the provider is built
ifneq ($(LTTNG_PROVIDER),)
ALL_EXTRA += $(LAB_TARGETS:=-lttng)
$(BUILD)/targets/lab_%-lttng: tests/targets/lab_%.c tests/targets/lab_driver.h include/vsc/lab.h \
		include/vsc/probe.h $(LTTNG_PROVIDER)
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -Iinclude -pthread -DVSC_PROBE_LTTNG -o $@ $< \
		-L$(BUILD) -lvsc-lttng-ust -llttng-ust -Wl,-rpath,$(abspath $(BUILD))
check-lab: $(LAB_TARGETS:=-lttng)
endif

check-lab: $(BUILD)/vsc $(LAB_TARGETS)
	@tests/system/lab.sh $(BUILD)/vsc

# Explanations of recorded traces: a relaxed SPSC ring and a lab run
EXPLAIN_TARGETS := $(BUILD)/targets/explain_ring $(BUILD)/targets/explain_ring_sc
ALL_EXTRA += $(EXPLAIN_TARGETS)
ifneq ($(VSC_NO_ASAN),1)
CHECK_EXTRA += check-explain-recorded
endif
.PHONY: check-explain-recorded
$(BUILD)/targets/explain_ring: tests/targets/explain_ring.c include/vsc/probe.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -Iinclude -pthread -o $@ $<
$(BUILD)/targets/explain_ring_sc: tests/targets/explain_ring.c include/vsc/probe.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -Iinclude -pthread -DRING_SEQ_CST -o $@ $<
check-explain-recorded: $(BUILD)/vsc $(EXPLAIN_TARGETS) $(BUILD)/targets/lab_sb
	@tests/system/explain.sh $(BUILD)/vsc

# GNU parallel and a single-node Slurm the test starts itself
check-distribute: $(BUILD)/vsc
	@tests/system/distribute.sh $(BUILD)/vsc

# The same unit and CLI tests, built with the sanitizers into build/asan.
# The unit tests run a tenth of their random programs there (the same
# seeds; the plain check-unit runs them all): the sanitizers look for
# memory and undefined-behaviour errors on the paths, which the sample
# walks, at several times the plain run's cost.
# Its programs are built TEST_JOBS at a time first (unless this make runs
# jobs already: then they share its slots).
ASAN_TEST_PERCENT ?= 10
ASAN_MAKE = $(MAKE) --no-print-directory BUILD=$(BUILD)/asan VSC_NO_ASAN=1 \
	CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	LDFLAGS="-fsanitize=address,undefined"
SUBMAKE_JOBS = $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(TEST_JOBS))
check-asan:
	@$(ASAN_MAKE) $(SUBMAKE_JOBS) $(BUILD)/asan/vsc unit-bins \
		$(patsubst $(BUILD)/%,$(BUILD)/asan/%,$(TRACE_WRITER_TESTS))
	@VSC_TEST_PERCENT=$(ASAN_TEST_PERCENT) $(ASAN_MAKE) check-unit check-cli check-reports check-gen \
		check-jobs check-stream check-trace-writer \
		check-reductions

# ---- fuzzing (not part of `make check`: `make fuzz`) ------------------------
# Two libFuzzer targets built with clang and the sanitizers against the
# library sources: fuzz_parse (the parser, round trips through the writer)
# and fuzz_check (parse, then every solver under a tiny time limit, witnesses
# verified, solvers compared). Each runs FUZZ_SECONDS on a working copy of
# the seed corpus tests/fuzz/corpus/; crashes land in $(BUILD)/fuzz/.
.PHONY: fuzz fuzz-build
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 120
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_CFLAGS  := -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -D_GNU_SOURCE -I. -Iinclude -Iuserspace/lib \
	-DPARSE_PIECE_BYTES=64
FUZZ_BIN     := $(FUZZ_DIR)/fuzz_parse $(FUZZ_DIR)/fuzz_check

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(LIB_SRC) $(LIB_EXTRA_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(LIB_SRC) $(LIB_EXTRA_OBJ) $(LDLIBS_LIB) \
		$(LDLIBS_LIB_SAT) -lpthread

fuzz-build: $(FUZZ_BIN)

fuzz: $(FUZZ_BIN)
	@set -e; for t in parse check; do \
		mkdir -p $(FUZZ_DIR)/corpus-$$t; \
		cp -n tests/fuzz/corpus/* $(FUZZ_DIR)/corpus-$$t/ 2>/dev/null || true; \
		echo "== fuzz_$$t for $(FUZZ_SECONDS)s"; \
		(cd $(FUZZ_DIR) && ./fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
			-dict=$(abspath tests/fuzz/vsc.dict) -print_final_stats=1 \
			corpus-$$t); \
	done

# The pictures of docs/explain.md, remade from the tool's own output
.PHONY: docs-pictures
docs-pictures: $(BUILD)/vsc
	@tests/docs/pictures.sh $(BUILD)/vsc docs
