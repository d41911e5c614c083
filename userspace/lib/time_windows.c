/* SPDX-License-Identifier: MIT */
/* A witness by the recorded times, repaired in windows (time_windows.h).
 *
 * A probe dates a store just before it is done and a load just after, so
 * an event took effect between two of its thread's times: a write after
 * its own and before its thread's next one (its deadline), a read after
 * its thread's previous time and before its own. On a recorded seq_cst
 * Peterson's lock of 4.9 M events, running every event at its deadline,
 * the earliest deadline first, gives all but about 150 reads their value:
 * there a thread was taken off its CPU between a time and the access, and
 * the access happened well before its deadline.
 *
 * So the events run earliest deadline first, and when the next one is a
 * read that memory does not give its value, the last WINDOW steps are
 * taken back and searched again (depth first, the earliest deadline first
 * among the threads that may run, states seen once) until that read runs:
 * each thread may run the events taken back and those that may have
 * begun by the read's deadline. A window without a way through is tried
 * again four times wider, up to WINDOW_MOST; then the run gives up.
 *
 * Nothing here is trusted: every read runs only when memory holds its
 * value, and the interleaving is verified before it is returned. The
 * times only choose the order tried. */
#include "time_windows.h"
#include "hint_run.h"
#include "program.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 32u
#define WINDOW_MOST (WINDOW << 6)
/* Search nodes a window may take, per step taken back. */
#define NODES_PER_STEP 64u
/* Work in all: per event, plus a floor. */
#define WORK_PER_EVENT 16ul
#define WORK_FLOOR (1ul << 20)
#define POLL 65536u
/* Repairs allowed: this many, plus one per REPAIR_EVENTS events. */
#define REPAIRS_BASE 64u
#define REPAIR_EVENTS 64u

struct frame {
	uint64_t tried; /* threads tried from this state */
	uint32_t at;    /* the depth after its reads settled */
};

struct tw {
	const struct vsc_program *p;
	const struct analysis *a;
	uint32_t k, n;
	uint32_t *pos, *limit, *mem;
	uint32_t stuck, need_pos, need_depth; /* what a repair must reach */
	unsigned long repairs;                /* left */
	uint32_t *trail, *trail_old, *redo;
	uint32_t depth;
	uint64_t mem_hash;
	uint64_t *seen; /* a window's states (hashes), open addressing */
	uint32_t seen_mask;
	struct frame *frames;
	unsigned long work, most;
};

/* The time by which thread t's event i had taken effect. */
static uint64_t deadline(const struct tw *w, uint32_t t, uint32_t i)
{
	const struct vsc_thread *th = &w->p->threads[t];

	if (th->events[i].kind != VSC_READ && i + 1 < th->length && th->ts[i + 1] > th->ts[i])
		return th->ts[i + 1] - 1;
	return th->ts[i];
}

/* The time after which thread t's event i took effect. */
static uint64_t start(const struct tw *w, uint32_t t, uint32_t i)
{
	const struct vsc_thread *th = &w->p->threads[t];

	if (th->events[i].kind != VSC_READ)
		return th->ts[i];
	return i ? th->ts[i - 1] : 0;
}

/* The times between which thread t's event i took effect whichever way
 * its probe dated it: after its thread's previous time, before its next
 * one. The eBPF probes date an RMW, and a failed compare-and-swap (a read
 * in the trace), before the access, LTTng's after it: on a recorded
 * reader-writer lock the writer's failed CAS saw a reader's CAS dated
 * after it, and the window by start() and deadline() never let them meet.
 * A repair's window only; the run's order keeps start() and deadline(). */
static uint64_t start_wide(const struct tw *w, uint32_t t, uint32_t i)
{
	return i ? w->p->threads[t].ts[i - 1] : 0;
}

static uint64_t deadline_wide(const struct tw *w, uint32_t t, uint32_t i)
{
	const struct vsc_thread *th = &w->p->threads[t];

	if (i + 1 < th->length && th->ts[i + 1] > th->ts[i])
		return th->ts[i + 1] - 1;
	return i + 1 < th->length ? th->ts[i] : UINT64_MAX;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x9e3779b97f4a7c15ULL;
	x ^= x >> 29;
	return x;
}

static uint64_t cell_hash(uint32_t x, uint32_t value)
{
	return mix((uint64_t)x << 32 | value);
}

/* May thread t's next event run now (below its limit in a window)? */
static int may_run(const struct tw *w, uint32_t t)
{
	uint32_t i = w->pos[t], x;
	const struct event_pairs *ep;

	if (i >= w->limit[t])
		return 0;
	x = w->p->threads[t].events[i].var;
	ep = &w->a->pairs[t][i];
	return ep->read == PAIR_NONE || w->mem[x] == ep->read || w->mem[x] == VALUE_UNDECIDED;
}

static void set_mem(struct tw *w, uint32_t x, uint32_t value)
{
	w->mem_hash ^= cell_hash(x, w->mem[x]) ^ cell_hash(x, value);
	w->mem[x] = value;
}

static void step(struct tw *w, uint32_t t)
{
	uint32_t i = w->pos[t]++, x = w->p->threads[t].events[i].var;
	const struct event_pairs *ep = &w->a->pairs[t][i];

	w->trail[w->depth] = t;
	w->trail_old[w->depth++] = w->mem[x];
	if (ep->write != PAIR_NONE)
		set_mem(w, x, ep->write);
	else if (w->mem[x] == VALUE_UNDECIDED)
		set_mem(w, x, ep->read);
	w->work++;
}

static void undo(struct tw *w)
{
	uint32_t t = w->trail[--w->depth], i = --w->pos[t];

	set_mem(w, w->p->threads[t].events[i].var, w->trail_old[w->depth]);
	w->work++;
}

/* The thread that may run, not in `tried`, whose next event's deadline is
 * earliest; NONE when none. */
static uint32_t earliest(const struct tw *w, uint64_t tried)
{
	uint32_t best = UINT32_MAX;
	uint64_t when = UINT64_MAX;

	for (uint32_t t = 0; t < w->k; t++)
		if (!(tried >> t & 1) && may_run(w, t) && deadline(w, t, w->pos[t]) < when) {
			when = deadline(w, t, w->pos[t]);
			best = t;
		}
	return best;
}

/* Marks the state seen: 1 when it was already (or the table is full, which
 * only makes the search give up sooner). */
static int seen_before(struct tw *w)
{
	uint64_t h = w->mem_hash;
	uint32_t s;

	for (uint32_t t = 0; t < w->k; t++)
		h = mix(h ^ ((uint64_t)t << 32 | w->pos[t]));
	h |= 1; /* 0: an empty slot */
	for (uint32_t probe = 0; probe <= w->seen_mask; probe++) {
		s = (uint32_t)(h + probe) & w->seen_mask;
		if (w->seen[s] == h)
			return 1;
		if (!w->seen[s]) {
			w->seen[s] = h;
			return 0;
		}
	}
	return 1;
}

/* Has the stuck thread run its read, and the run come as far as before? */
static int needs_met(const struct tw *w)
{
	return w->pos[w->stuck] >= w->need_pos && w->depth >= w->need_depth;
}

/* Every thread runs its next reads while memory holds their values (an
 * `init ?` not yet read excepted), below its limit. That never loses an
 * SC interleaving: a read changes no memory, so in any order from here
 * that runs it later, it can run first and the others see the same. */
static void settle(struct tw *w)
{
	for (uint32_t t = 0; t < w->k; t++)
		for (;;) {
			uint32_t i = w->pos[t];
			const struct event_pairs *ep = &w->a->pairs[t][i];
			if (i >= w->limit[t] || ep->write != PAIR_NONE ||
			    ep->read != w->mem[w->p->threads[t].events[i].var])
				break;
			step(w, t);
		}
}

/* From the current state, a search until needs_met(), each thread below
 * its limit, at most `nodes` states: the reads
 * settled at each state, a choice among the other events that may run,
 * the earliest deadline first. 1 when found (the steps stay), 0 when not
 * (every step it took is taken back). */
static int search(struct tw *w, uint32_t nodes)
{
	uint32_t base = w->depth, d = 0;
	int fresh = 1;

	for (w->seen_mask = 1; w->seen_mask < 2 * nodes;)
		w->seen_mask *= 2;
	w->seen_mask--;
	memset(w->seen, 0, ((size_t)w->seen_mask + 1) * sizeof(*w->seen));
	for (;;) {
		struct frame *f = &w->frames[d];
		uint32_t u = UINT32_MAX;
		if (fresh) {
			settle(w);
			f->at = w->depth;
			f->tried = 0;
			if (needs_met(w))
				return 1;
		} else {
			while (w->depth > f->at)
				undo(w);
		}
		if (nodes && !(fresh && seen_before(w)))
			u = earliest(w, f->tried);
		if (u == UINT32_MAX) {
			if (d == 0 || !nodes) {
				while (w->depth > base)
					undo(w);
				return 0;
			}
			d--;
			fresh = 0;
			continue;
		}
		f->tried |= (uint64_t)1 << u;
		step(w, u);
		nodes--;
		d++;
		fresh = 1;
	}
}

/* Takes back the steps from `from` on and sets each thread's limit for a
 * window around thread t's stuck event (until): the events taken back,
 * and up to WINDOW more of each thread's that may have begun by the latest
 * time the stuck event may have taken effect (not the stuck thread's
 * own); wide: by the latest time of any event taken back, and the stuck
 * thread's too. A reader's CAS that a writer's failed CAS saw may be dated
 * after both it and the writer's next events, as may the reader's release
 * that the writer's CAS after it needs: the narrow window cannot hold
 * them. */
static void take_back(struct tw *w, uint32_t t, uint32_t until, uint32_t from, int wide)
{
	uint64_t by = deadline_wide(w, t, until);

	for (uint32_t u = 0; u < w->k; u++)
		w->limit[u] = u == t ? until + 1 : w->pos[u];
	while (w->depth > from) {
		uint32_t u = w->trail[w->depth - 1];
		undo(w);
		if (wide && deadline_wide(w, u, w->pos[u]) > by)
			by = deadline_wide(w, u, w->pos[u]);
	}
	for (uint32_t u = 0; u < w->k; u++) {
		uint32_t len = w->p->threads[u].length, l = w->limit[u], most = l + WINDOW;
		while ((u != t || wide) && l < len && l < most && start_wide(w, u, l) <= by)
			l++;
		w->limit[u] = l;
	}
}

/* Thread t's next event, a read, cannot run: the last steps taken back and
 * searched again, windows growing (each narrow, then wide: take_back()),
 * until it has run and as many events as before. 0 when they ran, 1 when
 * no window let them. */
static int repair(struct tw *w, uint32_t t)
{
	uint32_t until = w->pos[t];

	w->stuck = t;
	w->need_pos = until + 1;
	w->need_depth = w->depth;

	for (uint32_t size = WINDOW; size <= WINDOW_MOST; size *= 4) {
		for (int wide = 0; wide < 2; wide++) {
			uint32_t back = size < w->depth ? size : w->depth, from = w->depth - back;
			memcpy(w->redo, w->trail + from, back * sizeof(*w->redo));
			take_back(w, t, until, from, wide);
			if (search(w, back * NODES_PER_STEP + NODES_PER_STEP))
				return 0;
			for (uint32_t j = 0; j < back; j++)
				step(w, w->redo[j]);
		}
		if (size >= w->depth)
			break; /* the window held every step already */
	}
	return 1;
}

/* The thread whose next event has the earliest deadline (blocked or not),
 * and into *ready the one that may run with the earliest deadline among
 * those whose event may have begun by then (NONE: none). */
static uint32_t next_thread(const struct tw *w, uint32_t *ready)
{
	uint32_t t = UINT32_MAX;
	uint64_t when = UINT64_MAX, first = UINT64_MAX;

	for (uint32_t u = 0; u < w->k; u++)
		if (w->pos[u] < w->p->threads[u].length && deadline(w, u, w->pos[u]) < when) {
			when = deadline(w, u, w->pos[u]);
			t = u;
		}
	*ready = UINT32_MAX;
	for (uint32_t u = 0; u < w->k; u++)
		if (may_run(w, u) && start(w, u, w->pos[u]) <= when &&
		    deadline(w, u, w->pos[u]) < first) {
			first = deadline(w, u, w->pos[u]);
			*ready = u;
		}
	return t;
}

/* Every event run (0), stuck (1), or -ETIME. */
static int run(struct tw *w, struct budget *b)
{
	unsigned long polled = 0;

	for (uint32_t t = 0; t < w->k; t++)
		w->limit[t] = w->p->threads[t].length;
	for (;;) {
		uint32_t t, ready;
		settle(w);
		if (w->depth == w->n)
			return 0;
		if (w->work > w->most)
			return 1;
		if (w->work - polled >= POLL) {
			if (b && budget_spend(b, w->work - polled))
				return -ETIME;
			polled = w->work;
		}
		t = next_thread(w, &ready);
		if (ready != UINT32_MAX) {
			step(w, ready);
			continue;
		}
		if (!w->repairs-- || repair(w, t))
			return 1;
		for (uint32_t u = 0; u < w->k; u++)
			w->limit[u] = w->p->threads[u].length;
	}
}

static void tw_free(struct tw *w)
{
	free(w->pos);
	free(w->limit);
	free(w->mem);
	free(w->trail);
	free(w->trail_old);
	free(w->redo);
	free(w->seen);
	free(w->frames);
}

static int tw_init(struct tw *w, const struct vsc_program *p, const struct analysis *a)
{
	uint32_t nv = a->nvars ? a->nvars : 1, seen = 1;

	while (seen < 2 * (WINDOW_MOST + 1) * NODES_PER_STEP)
		seen *= 2; /* search()'s most nodes, twice */
	*w = (struct tw){ .p = p, .a = a, .k = a->k, .n = (uint32_t)p->event_count };
	w->most = WORK_PER_EVENT * w->n + WORK_FLOOR;
	w->repairs = REPAIRS_BASE + w->n / REPAIR_EVENTS;
	w->pos = calloc(w->k + 1, sizeof(uint32_t));
	w->limit = calloc(w->k + 1, sizeof(uint32_t));
	w->mem = malloc(nv * sizeof(uint32_t));
	w->trail = malloc(((size_t)w->n + 1) * sizeof(uint32_t));
	w->trail_old = malloc(((size_t)w->n + 1) * sizeof(uint32_t));
	w->redo = malloc((WINDOW_MOST + 1) * sizeof(uint32_t));
	w->seen = malloc((size_t)seen * sizeof(uint64_t));
	/* a search is as deep as the steps taken back and the events each
	 * thread may run past where it was (WINDOW at most) */
	w->frames =
		malloc(((size_t)WINDOW_MOST + (size_t)w->k * WINDOW + 1) * sizeof(struct frame));
	if (!w->pos || !w->limit || !w->mem || !w->trail || !w->trail_old || !w->redo || !w->seen ||
	    !w->frames)
		return -ENOMEM;
	for (uint32_t x = 0; x < a->nvars; x++) {
		w->mem[x] = a->init[x];
		w->mem_hash ^= cell_hash(x, w->mem[x]);
	}
	return 0;
}

int time_windows_run(const struct vsc_program *p, const struct analysis *a, struct budget *b,
		     uint32_t **witness, long *preemptions)
{
	struct tw w;
	int err;

	*witness = NULL;
	*preemptions = 0;
	if (!p->event_count || p->event_count >= UINT32_MAX || a->k > 64 || !hint_run_applies(p) ||
	    program_unpack(p) || (b && budget_look(b)))
		return 0;
	if ((err = tw_init(&w, p, a)) == 0 && (err = run(&w, b)) == 0 &&
	    vsc_witness_verify(p, w.trail, w.n, preemptions, NULL, 0) == 0) {
		*witness = w.trail;
		w.trail = NULL;
	}
	tw_free(&w);
	return err == -ENOMEM ? err : 0;
}
