# Benchmarks (make bench). Each part adds its own target to BENCH_EXTRA and
# makes `bench` depend on it; results are appended under bench/results/.
BENCH_EXTRA ?=

# eBPF probe path: cost per probe in the target, highest rate with 0 lost.
.PHONY: bench-probe
BENCH_EXTRA += bench-probe
bench-probe: $(BUILD)/vsc
	@bench/probe_cost.sh $(BUILD)

# eBPF probe path on stress programs: events/s with 0 lost and with --lossy,
# recorder CPU per event, peak RSS; then the long stress and fault tests,
# and the kill tests 10 times (tests/system/kill.sh; make check runs once).
.PHONY: bench-record-stress
BENCH_EXTRA += bench-record-stress
bench-record-stress: $(BUILD)/vsc probe-targets $(BUILD)/targets/lab_sb
	@bench/record_stress.sh $(BUILD)

# Solvers on `vsc gen` families, 10^3 ... 10^7 events (bench/solver.sh);
# `make bench BENCH_QUICK=1` (or `make bench-solver BENCH_QUICK=1`) keeps
# to the small sizes. Tables: bench/results/solver*.md, bench/RESULTS.md.
.PHONY: bench-solver
BENCH_QUICK ?= 0
BENCH_EXTRA += bench-solver
bench-solver: $(BUILD)/vsc
	@BENCH_QUICK=$(BENCH_QUICK) bench/solver.sh $(BUILD)

# Memory (peak RSS per event) and time beside `wc -l` at 10^7 events for
# every family `vsc gen` makes at that size (bench/solver_memory.sh,
# bench/results/solver-memory.md).
.PHONY: bench-solver-memory
BENCH_EXTRA += bench-solver-memory
bench-solver-memory: $(BUILD)/vsc
	@bench/solver_memory.sh $(BUILD)

# Peers on multi-writer traces: Z3 on the SMT encoding a user would write
# (bench/sc_smt.awk; z3 comes from scripts/deps.sh) beside vsc at
# 10^3-10^4 events, and vsc on the peer axe's class at 10^6
# (bench/peers.sh, bench/results/peers.md).
.PHONY: bench-peers
BENCH_EXTRA += bench-peers
bench-peers: $(BUILD)/vsc
	@BENCH_QUICK=$(BENCH_QUICK) bench/peers.sh $(BUILD)

# Explanations: --explain time against the verdict's, core sizes, lab files
# of many segments (bench/explain.sh); BENCH_QUICK=1 keeps to 10^5 events.
.PHONY: bench-explain
BENCH_EXTRA += bench-explain
bench-explain: $(BUILD)/vsc
	@BENCH_QUICK=$(BENCH_QUICK) bench/explain.sh $(BUILD)

# Every output at length: plain, --witness, --json, --min, --svg, --html,
# -j 2, --summary on every generated family at 10^6 and 10^7 events, each
# output checked usable (witnesses replayed); recorded traces as
# BENCH_RECORDED="NAME=FILE ..." (bench/outputs.sh, bench/results/outputs.md).
.PHONY: bench-outputs
BENCH_EXTRA += bench-outputs
BENCH_RECORDED ?=
bench-outputs: $(BUILD)/vsc
	@BENCH_QUICK=$(BENCH_QUICK) bench/outputs.sh $(BUILD) $(BENCH_RECORDED)

# The trace writer alone: events/s and peak RSS up to 10^7 events and 2 M
# segments (bench/trace_writer.sh, bench/results/trace_writer.txt).
.PHONY: bench-trace-writer
BENCH_EXTRA += bench-trace-writer
$(BUILD)/bench/trace_writer_bench: bench/trace_writer_bench.c $(TRACE_WRITER_SRC) \
		$(TRACE_WRITER_SRC:.c=.h) userspace/util/hash.h bpf/vsc_event.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(TRACE_WRITER_SRC)
bench-trace-writer: $(BUILD)/bench/trace_writer_bench
	@bench/trace_writer.sh $<

# The parser alone: MB/s, events/s and peak RSS per event at 10^6 and 10^7
# events beside wc -l (bench/parse.sh, bench/results/parse.md).
.PHONY: bench-parse
BENCH_EXTRA += bench-parse
$(BUILD)/bench/parse_bench: bench/parse_bench.c $(BUILD)/libvsc.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libvsc.a $(LDLIBS_LIB) $(LDLIBS_LIB_SAT) -lpthread
bench-parse: $(BUILD)/bench/parse_bench $(BUILD)/vsc
	@bench/parse.sh $< $(BUILD)

bench: $(BENCH_EXTRA)

# Lab runs: lab.h against the plain test, recording time against the plain
# run, vsc litmus per test (bench/lab.sh, bench/results/lab.md; root).
.PHONY: bench-lab
BENCH_EXTRA += bench-lab
bench: bench-lab
bench-lab: all
	@BENCH_QUICK=$(BENCH_QUICK) bench/lab.sh $(BUILD)
