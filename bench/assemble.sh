#!/bin/sh
# bench/RESULTS.md is bench/notes.md followed by the tables the bench
# scripts wrote into bench/results/ (solver.sh, peers.sh, explain.sh);
# solver-mw.md is solver.sh run on the multi-writer families alone
# (BENCH_OUT=solver-mw), solver-threads.md on the many-thread rows alone
# (BENCH_OUT=solver-threads); solver-memory.md is bench/solver_memory.sh's.
top=$(cd "$(dirname "$0")/.." && pwd)
{
	cat "$top/bench/notes.md"
	for f in solver.md solver-quick.md solver-mw.md solver-threads.md solver-memory.md peers.md peers-quick.md explain.md; do
		[ -f "$top/bench/results/$f" ] && { echo; cat "$top/bench/results/$f"; }
	done
} > "$top/bench/RESULTS.md"
