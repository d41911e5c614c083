#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Whether a small trace (a core file) has an SC interleaving within a
preemption bound, by walking every interleaving (each state once), apart
from vsc's solvers: the semantics of the contract (docs: CONTRACT section 2),
written again here. Usage: sc_brute.py FILE [BOUND]; prints consistent or
inconsistent; exit 2 when the trace is too large (more than 24 events).
"""
import sys
from functools import lru_cache

UNKNOWN = object()  # init x ?: one value, fixed by the first read that sees it
NONE = object()     # no init: a read needs a write before it


def parse(path):
    init, threads, order = {}, {}, []
    for line in open(path):
        words = line.split("#", 1)[0].split()
        if words and words[-1].startswith("@"):
            words = words[:-1]
        if not words or words[0] == "vsc":
            continue
        if words[0] == "init":
            init[words[1]] = UNKNOWN if words[2] == "?" else int(words[2], 0)
            continue
        t, kind, var, vals = words[0], words[1], words[2], [int(v, 0) for v in words[3:]]
        if t not in threads:
            threads[t] = []
            order.append(t)
        threads[t].append((kind, var, vals))
    return init, [tuple(threads[t]) for t in order]


def least_preemptions(init, threads):
    names = sorted({e[1] for th in threads for e in th} | set(init))
    start = tuple(init.get(v, NONE) for v in names)
    index = {v: i for i, v in enumerate(names)}
    k = len(threads)

    @lru_cache(maxsize=None)
    def best(pos, mem, last):
        """Least preemptions to finish from here, or None."""
        if all(pos[t] == len(threads[t]) for t in range(k)):
            return 0
        least = None
        for t in range(k):
            if pos[t] == len(threads[t]):
                continue
            kind, var, vals = threads[t][pos[t]]
            x, m = index[var], list(mem)
            if kind in ("r", "u"):
                seen = m[x]
                if seen is NONE or (seen is not UNKNOWN and seen != vals[0]):
                    continue
            if kind == "r":
                m[x] = vals[0]  # fixes an unknown initial value; else the same
            elif kind == "w":
                m[x] = vals[0]
            else:
                m[x] = vals[1]
            p = list(pos)
            p[t] += 1
            rest = best(tuple(p), tuple(m), t)
            if rest is None:
                continue
            switch = last is not None and last != t and pos[last] < len(threads[last])
            cost = rest + (1 if switch else 0)
            least = cost if least is None or cost < least else least
        return least

    return best(tuple([0] * k), start, None)


def main():
    init, threads = parse(sys.argv[1])
    bound = int(sys.argv[2]) if len(sys.argv) > 2 else None
    if sum(len(th) for th in threads) > 24:
        print("too large", file=sys.stderr)
        sys.exit(2)
    least = least_preemptions(init, threads)
    ok = least is not None and (bound is None or least <= bound)
    print("consistent" if ok else "inconsistent")


main()
