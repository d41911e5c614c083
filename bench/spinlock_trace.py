#!/usr/bin/env python3
"""A spin lock trace of the shape stress_spinlock records, without root.

    bench/spinlock_trace.py THREADS ITERATIONS SLICE SEED > t.vsc

THREADS threads each take a compare-and-swap lock ITERATIONS times (a take
is `u lock_word 0 1`, a failed CAS a read of 1, then spin loads of the
lock word until it reads 0), read the counter and add 1 to it by an
exchange inside, and give the lock back by an exchange. One random
scheduler runs them: a slice of about SLICE events (exponential), then a
switch to another thread; a spinner that reads the lock taken yields. The
run is one interleaving of the events written, so the trace is
sequentially consistent by construction (docs/solvers.md, "Lock stops on
guarded variables").
"""
import random
import sys


def main():
    threads, iterations, mean_slice, seed = (int(a) for a in sys.argv[1:5])
    rnd = random.Random(seed)
    out = ["vsc 1\ninit lock_word 0\ninit counter 0\n"]
    lock = counter = 0
    # per thread: 0 take, 1 read the counter, 2 add, 3 give, 4 spin
    state, left = [0] * threads, [iterations] * threads
    alive = set(range(threads))
    cur = 0
    while alive:
        for _ in range(int(rnd.expovariate(1.0 / mean_slice)) + 1):
            tid, s = 1000 + cur, state[cur]
            if s == 0 and lock == 0:
                out.append(f"{tid} u lock_word 0 1\n")
                lock, state[cur] = 1, 1
            elif s == 0:  # the CAS fails
                out.append(f"{tid} r lock_word 1\n")
                state[cur] = 4
            elif s == 4:
                out.append(f"{tid} r lock_word {lock}\n")
                if lock:
                    break  # sched_yield()
                state[cur] = 0
            elif s == 1:
                out.append(f"{tid} r counter {counter}\n")
                state[cur] = 2
            elif s == 2:
                out.append(f"{tid} u counter {counter} {counter + 1}\n")
                counter, state[cur] = counter + 1, 3
            else:
                out.append(f"{tid} u lock_word 1 0\n")
                lock, state[cur] = 0, 0
                left[cur] -= 1
                if not left[cur]:
                    alive.discard(cur)
                    break
            if len(out) > 100000:
                sys.stdout.write("".join(out))
                out = []
        others = [t for t in alive if t != cur]
        if others:
            cur = rnd.choice(others)
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
