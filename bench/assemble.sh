#!/bin/sh
# bench/RESULTS.md is bench/notes.md followed by the tables the bench
# scripts wrote into bench/results/ (solver.sh, peers.sh, explain.sh);
# solver-memory.md is bench/solver_memory.sh's. A subset run of solver.sh
# (BENCH_OUT=NAME) goes into NAME.md and is not assembled: the full run's
# solver.md has every family.
top=$(cd "$(dirname "$0")/.." && pwd)
{
	cat "$top/bench/notes.md"
	for f in solver.md solver-quick.md solver-memory.md peers.md peers-quick.md explain.md; do
		[ -f "$top/bench/results/$f" ] && { echo; cat "$top/bench/results/$f"; }
	done
} > "$top/bench/RESULTS.md"
