# Benchmarks (make bench). Each part adds its own target to BENCH_EXTRA and
# makes `bench` depend on it; results are appended under bench/results/.
BENCH_EXTRA ?=

# eBPF probe path: cost per probe in the target, highest rate with 0 lost.
.PHONY: bench-probe
BENCH_EXTRA += bench-probe
bench-probe: $(BUILD)/vsc
	@bench/probe_cost.sh $(BUILD)

bench: $(BENCH_EXTRA)
