#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Refute a program by where every thread can be when one read happens.

Offline tool for the few-value several-writer traces with a stale read
(docs/solvers.md, "Positions at a read"). Given an anchor read r (thread R,
index i, variable x, value v), every SC interleaving has r see some write
of (x, v): R's own last write of x, the initial value, or another thread
w's write at index a. Each is a case; a case fixes bounds on how many
events of each thread precede r: R exactly i, w at least a + 1 and at most
b (b: w's next write of x after a, which follows r). Per case:

- positions: the bounds grow/shrink by the reads. A read e of thread T at
  index j of variable z with value u, whose source must be a write of one
  or two other threads A, B (T's own last write of z is not u, or T has
  none and the initial value cannot be u), sees in every interleaving the
  last write of A or of B at the positions A and B have then: so A's last
  write of z among its first p_A events has u, or B's among its first p_B.
  T's reads in order take points p that only grow. If T's first L_T events
  precede r, those reads embed with points inside the box (U_A, U_B): the
  least points give lower bounds on A and B; if T's read at j cannot embed
  inside the box, T's event j is not before r (U_T <= j).
- the prefix program: the events surely before r (each thread's first L_t,
  and r) with every read dropped that may see a write of another thread in
  its window [L_w, U_w): its reads see the same writes as in the whole, so
  it is SC whenever the whole is with these bounds; `vsc check` decides it.
- a case neither refutes is split on its widest window, a few levels.
- a case of one point whose prefix program has an SC interleaving: the
  rest of every thread is checked from the memory it leaves; when that has
  one too, the two are a witness of the whole (replayed here).

When every case is refuted the program has no SC interleaving, whatever
the bound. The refutations are exact (each step holds in every SC
interleaving); the tool is incomplete (open cases say nothing).

Usage:
  stale_boxes.py TRACE --read THREAD INDEX     one anchor
  stale_boxes.py TRACE --all                   every read, until one decides
  options: --vsc PATH (default build/vsc), --timeout S (per prefix check),
           --rest-timeout S (the rest after a point case, 120), --witness FILE,
           --nodes N (splits per case), --depth D (levels), --broken (a wrong
           bound, for tests), --self-test COUNT SEED (against the exact solver)
Prints `consistent` (exit 0), `inconsistent` (exit 1) or `open` (exit 3).
"""
import bisect
import os
import re
import subprocess
import sys
import tempfile


def parse(path):
    names, threads, inits = {}, [], {}
    for line in open(path):
        line = line.split('#', 1)[0].split()
        if not line or line[0] == 'vsc':
            continue
        if line[0] == 'segment':
            sys.exit('stale_boxes.py: one execution a file (no segment lines)')
        if line[0] == 'init':
            inits[line[1]] = line[2]
            continue
        if line[-1].startswith('@'):
            line = line[:-1]
        t = names.setdefault(line[0], len(names))
        if t == len(threads):
            threads.append([])
        kind, var = line[1], line[2]
        if kind == 'u':
            threads[t].append(('u', var, line[3], line[4]))
        elif kind == 'r':
            threads[t].append(('r', var, line[3], None))
        else:
            threads[t].append(('w', var, None, line[3]))
    return list(names), threads, inits


class Program:
    def __init__(self, path):
        self.path = path
        self.names, self.th, self.inits = parse(path)
        self.n = [len(ev) for ev in self.th]
        self.writes = {}  # (w, z) -> (indices, values, {value: [k...]})
        self.writers = {}
        for w, ev in enumerate(self.th):
            for i, (kind, z, _, wv) in enumerate(ev):
                if wv is None:
                    continue
                idx, val, by = self.writes.setdefault((w, z), ([], [], {}))
                by.setdefault(wv, []).append(len(idx))
                idx.append(i)
                val.append(wv)
                self.writers.setdefault(z, set()).add(w)
        self.classes = self._classes()

    def init_may_be(self, z, u):
        return z in self.inits and self.inits[z] in ('?', u)

    def _classes(self):
        """Per thread: {writers (A,) or (A, B): [(index, var, value)]}."""
        out = []
        for t, ev in enumerate(self.th):
            own, cls = {}, {}
            for j, (kind, z, rv, wv) in enumerate(ev):
                if rv is not None:
                    others = tuple(sorted(self.writers.get(z, set()) - {t}))
                    if z in own:
                        needs = own[z] != rv
                    else:
                        needs = not self.init_may_be(z, rv)
                    if needs and 1 <= len(others) <= 2:
                        cls.setdefault(others, []).append((j, z, rv))
                if wv is not None:
                    own[z] = wv
            out.append(cls)
        return out

    def next_pos(self, w, c, z, u):
        """Least p >= c with w's last write of z among its first p events of
        value u; None if there is none."""
        rec = self.writes.get((w, z))
        if not rec:
            return None
        idx, val, by = rec
        k = bisect.bisect_left(idx, c)
        if k > 0 and val[k - 1] == u:
            return c
        ks = by.get(u)
        if not ks:
            return None
        m = bisect.bisect_left(ks, k)
        return idx[ks[m]] + 1 if m < len(ks) else None


FRONTIER_CAP = 1 << 14


def embed(p, key, reads, box):
    """Least points (one coordinate per writer in key) after the reads,
    inside box. ([], j): read j cannot embed; (None, None): too many points
    (no conclusion); (points, None) otherwise."""
    if len(key) == 1:
        (a,), c = key, 0
        for j, z, u in reads:
            c = p.next_pos(a, c, z, u)
            if c is None or c > box[0]:
                return [], j
        return [(c,)], None
    a, b = key
    pts = [(0, 0)]
    for j, z, u in reads:
        new = []
        for ca, cb in pts:
            x = p.next_pos(a, ca, z, u)
            if x is not None and x <= box[0]:
                new.append((x, cb))
            y = p.next_pos(b, cb, z, u)
            if y is not None and y <= box[1]:
                new.append((ca, y))
        new.sort()
        pts = []
        for ca, cb in new:
            if not pts or cb < pts[-1][1]:
                pts.append((ca, cb))
        if not pts:
            return [], j
        if len(pts) > FRONTIER_CAP:
            return None, None
    return pts, None


def tighten(p, L, U):
    """The bounds' fixpoint; False when they contradict."""
    changed = True
    while changed:
        changed = False
        for t, cls in enumerate(p.classes):
            for key, reads in cls.items():
                box = [U[w] for w in key]
                pts, j = embed(p, key, [r for r in reads if r[0] < U[t]], box)
                if pts == [] and j < U[t]:
                    U[t] = j
                    changed = True
                pts, j = embed(p, key, [r for r in reads if r[0] < L[t]], box)
                if pts == []:
                    return False
                if pts is None:
                    continue
                for k, w in enumerate(key):
                    low = min(q[k] for q in pts)
                    if low > L[w]:
                        L[w] = low
                        changed = True
        if any(L[t] > U[t] for t in range(len(L))):
            return False
    return True


def event_line(name, event):
    kind, z, rv, wv = event
    values = (rv, wv) if kind == 'u' else (rv,) if kind == 'r' else (wv,)
    return '%s %s %s %s\n' % (name, kind, z, ' '.join(values))


def prefix_program(p, L, U, anchor):
    """The events surely before the anchor read, and it; reads that may see
    a write in another thread's window are dropped (an RMW keeps its write)."""
    window = set()
    for w, ev in enumerate(p.th):
        for kind, z, _, wv in ev[L[w]:U[w]]:
            if wv is not None:
                window.add((w, z, wv))
    lines = ['vsc 1\n'] + ['init %s %s\n' % kv for kv in p.inits.items()]
    R, i = anchor
    for t, ev in enumerate(p.th):
        end = i + 1 if t == R else L[t]
        for kind, z, rv, wv in ev[:end]:
            name = p.names[t]
            if rv is not None and any((w, z, rv) in window for w in p.writers.get(z, ()) if w != t):
                if wv is not None:
                    lines.append('%s w %s %s\n' % (name, z, wv))
                continue
            lines.append(event_line(name, (kind, z, rv, wv)))
    return ''.join(lines)


def check(opts, text, timeout):
    """vsc check --witness on a program: (exit status, [(thread, index)])."""
    with tempfile.NamedTemporaryFile('w', suffix='.vsc', delete=False) as f:
        f.write(text)
    try:
        r = subprocess.run([opts['vsc'], 'check', '--witness', '--timeout', str(timeout), f.name],
                           capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    order = []
    for line in r.stdout.split('\n'):
        m = re.match(r'\s+(\S+)\[(\d+)\] ', line)
        if m:
            order.append((m.group(1), int(m.group(2))))
    return r.returncode, order


def replay(p, order, mem, start):
    """Run the events in order from memory mem (thread t from start[t]);
    False at the first read that does not see its value."""
    for name, k in order:
        t = p.names.index(name)
        kind, z, rv, wv = p.th[t][start[t] + k]
        if rv is not None and mem.get(z) not in (rv, '?'):
            return False
        mem[z] = wv if wv is not None else rv
    return True


class Witness(Exception):
    pass


def complete(p, L, anchor, order, opts):
    """A case whose bounds are one point and whose prefix program has an SC
    interleaving: run the rest of every thread from the memory it leaves
    (as initial values). When that has one too, the two make a witness of
    the whole program, checked here by replaying it."""
    zero = [0] * len(p.n)
    done = L[:]
    done[anchor[0]] = anchor[1] + 1
    mem = dict(p.inits)
    if not replay(p, order, mem, zero):
        return
    lines = ['vsc 1\n'] + ['init %s %s\n' % kv for kv in mem.items()]
    for t, ev in enumerate(p.th):
        lines += [event_line(p.names[t], e) for e in ev[done[t]:]]
    status, rest = check(opts, ''.join(lines), opts['rest_timeout'])
    if status != 0:
        return
    mem = dict(p.inits)
    whole = order + [(name, done[p.names.index(name)] + k) for name, k in rest]
    if replay(p, whole, mem, zero) and len(whole) == sum(p.n):
        raise Witness(whole)


def prefix_refuted(p, L, U, anchor, opts):
    status, order = check(opts, prefix_program(p, L, U, anchor), opts['timeout'])
    if status == 0 and L == U and opts['complete']:
        complete(p, L, anchor, order, opts)
    return status == 1


def case_refuted(p, L, U, anchor, opts, depth):
    opts['nodes'] -= 1
    if not tighten(p, L, U):
        return True
    if prefix_refuted(p, L, U, anchor, opts):
        return True
    wide = max(range(len(L)), key=lambda t: U[t] - L[t])
    if depth == 0 or opts['nodes'] <= 0 or U[wide] == L[wide]:
        return False
    mid = (L[wide] + U[wide]) // 2
    lo_u, hi_l = U[:], L[:]
    lo_u[wide], hi_l[wide] = mid, mid + 1
    return (case_refuted(p, L[:], lo_u, anchor, opts, depth - 1) and
            case_refuted(p, hi_l, U[:], anchor, opts, depth - 1))


def cases(p, R, i, broken):
    """The bounds of each case of the write the anchor read sees; None when
    its own thread's last write may be it."""
    kind, x, v, _ = p.th[R][i]
    own = [wv for _, z, _, wv in p.th[R][:i] if z == x and wv is not None]
    if own and own[-1] == v:
        return None
    out = []
    if not own and p.init_may_be(x, v):
        L, U = [0] * len(p.n), p.n[:]
        for w in p.writers.get(x, ()):
            if w != R:
                U[w] = p.writes[(w, x)][0][0]
        L[R] = U[R] = i
        out.append((L, U))
    for w in sorted(p.writers.get(x, ())):
        if w == R:
            continue
        idx, val, _ = p.writes[(w, x)]
        for k, a in enumerate(idx):
            if val[k] != v:
                continue
            b = idx[k + 1] if k + 1 < len(idx) else p.n[w]
            L, U = [0] * len(p.n), p.n[:]
            L[w], U[w] = a + 1, (a + 1 if broken else b)
            L[R] = U[R] = i
            out.append((L, U))
    return out


def bounds_text(p, L, U):
    return ' '.join('%s:%d-%d' % (p.names[t], L[t], U[t]) for t in range(len(L))
                    if L[t] or U[t] != p.n[t])


def anchor_refuted(p, R, i, opts):
    if p.th[R][i][2] is None:
        return False
    pending = cases(p, R, i, opts['broken'])
    if pending is None:
        return False
    n = 0
    for L, U in pending:
        opts['nodes'] = opts['max_nodes']
        n += 1
        refuted = case_refuted(p, L, U, (R, i), opts, opts['depth'])
        if opts['verbose']:
            print('  case %d of %d (%s): %s after %d nodes' %
                  (n, len(pending), bounds_text(p, L, U), 'refuted' if refuted else 'open',
                   opts['max_nodes'] - opts['nodes']), file=sys.stderr)
        if not refuted:
            return False
    if opts['verbose']:
        print('  %d cases, all refuted' % n, file=sys.stderr)
    return True


def verdict(path, opts):
    """1 when some read's cases are all refuted, 0 with a witness, else 3."""
    p = Program(path)
    try:
        for R, ev in enumerate(p.th):
            for i in range(len(ev)):
                if anchor_refuted(p, R, i, opts):
                    return 1
    except Witness:
        return 0
    return 3


def self_test(count, seed, opts):
    """Random programs (2-4 threads, up to 8 events each, 1-3 variables of
    1-2 writers, 2-3 values, RMWs, every kind of init) and SC ones with a
    stale read or none (two writers a variable): every refutation must
    agree with the exact solver with no bound."""
    import random
    rng = random.Random(seed)
    refuted = inconsistent = witnessed = wrong = 0
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'p.vsc')
        for n in range(count):
            k = rng.randint(2, 4)
            if n % 2:
                args = ['random', '--events', str(rng.randint(3, 8)),
                        '--writers', str(rng.randint(1, 2)), '--rmw', rng.choice(['0', '0.2'])]
            else:
                args = ['sc', '--total', str(rng.randint(3 * k, 8 * k)), '-p', str(k),
                        '--writers', '2', '--stale', str(rng.randint(0, 1))]
            args = [opts['vsc'], 'gen'] + args + [
                '--threads', str(k), '--vars', str(rng.randint(1, 3)),
                '--values', str(rng.randint(2, 3)), '--seed', str(rng.randrange(1 << 30)),
                '-o', path]
            subprocess.run(args, check=True)
            exact = subprocess.run([opts['vsc'], 'check', '--solver', 'exact', path],
                                   capture_output=True).returncode
            inconsistent += exact == 1
            opts['complete'] = False  # refutations alone, on every read
            ours = verdict(path, opts)
            if ours == 3:
                opts['complete'] = True
                ours = verdict(path, opts)
            refuted += ours == 1
            witnessed += ours == 0
            if ours != 3 and ours != exact:
                wrong += 1
                print('WRONG: %s' % ' '.join(args[1:]), file=sys.stderr)
    print('%d programs, %d inconsistent, %d refuted, %d with a witness, %d wrong' %
          (count, inconsistent, refuted, witnessed, wrong))
    return 1 if wrong else 0


def main(argv):
    opts = {'vsc': 'build/vsc', 'timeout': 60, 'max_nodes': 64, 'depth': 12, 'broken': False,
            'verbose': True, 'witness': None,
            'complete': True, 'rest_timeout': 120}
    path, anchors, a = None, None, 0
    while a < len(argv):
        arg = argv[a]
        if arg == '--read':
            anchors = [(argv[a + 1], int(argv[a + 2]))]
            a += 3
            continue
        if arg == '--all':
            anchors = 'all'
        elif arg in ('--vsc', '--timeout', '--nodes', '--depth', '--witness', '--rest-timeout'):
            key = {'--vsc': 'vsc', '--timeout': 'timeout', '--nodes': 'max_nodes',
                   '--depth': 'depth', '--witness': 'witness', '--rest-timeout': 'rest_timeout'}[arg]
            opts[key] = argv[a + 1] if arg in ('--vsc', '--witness') else int(argv[a + 1])
            a += 1
        elif arg == '--self-test':
            opts['verbose'] = False
            return self_test(int(argv[a + 1]), int(argv[a + 2]), opts) if 'vsc' in opts else 2
        elif arg == '--broken':
            opts['broken'] = True
        elif arg == '--quiet':
            opts['verbose'] = False
        else:
            path = arg
        a += 1
    if not path or not anchors:
        print(__doc__, file=sys.stderr)
        return 2
    p = Program(path)
    if anchors == 'all':
        pending = [(R, i) for R, ev in enumerate(p.th) for i in range(len(ev))]
    else:
        pending = [(p.names.index(t), i) for t, i in anchors]
    try:
        for R, i in pending:
            if anchor_refuted(p, R, i, opts):
                print('inconsistent (the read %s[%d] sees no write)' % (p.names[R], i))
                return 1
    except Witness as w:
        order = w.args[0]
        print('consistent (a witness of %d events, %d switches, replayed)' %
              (len(order), sum(a[0] != b[0] for a, b in zip(order, order[1:]))))
        if opts['witness']:
            with open(opts['witness'], 'w') as f:
                f.writelines('%s %d\n' % e for e in order)
        return 0
    print('open')
    return 3


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
