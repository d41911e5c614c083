/* SPDX-License-Identifier: MIT */
/* A witness guided by the recorded times (hint_run.h).
 *
 * On a recorded Peterson's lock (plain stores) the bounded search at the
 * own and forced stops' least, and the search without a bound, wander at a
 * few million events with 4 threads: no witness at all in minutes. Yet the
 * least interleavings there are plain: each thread runs until it spins on
 * a value another thread has to write. So this run does that:
 *
 * - The running thread goes on while its next event may run: a read (or
 *   an RMW) whose value is in memory, inside the epochs the forced orders
 *   allow for it (saturate.h), and a write no read forced before it still
 *   waits for. Running a read whose value is in memory never loses an SC
 *   interleaving (it changes no memory); only writes can be wrong.
 * - A write waits while another thread's next access of its variable came
 *   first in the recording (even a write of the value memory holds: the
 *   order of two writes decides what stays). The times are those the
 *   probes took: a store is logged just before it is done, a load just
 *   after, so a write is dated by its thread's next event (a thread taken
 *   off its CPU between the log and the store would date it far too early
 *   otherwise).
 * - When the running thread cannot go on, the thread whose next event may
 *   run and came first in the recording runs next; when only a waiting
 *   write may run, it runs.
 * - When no event may run at all, some write ran too early: a thread waits
 *   to read a value that a write W in the run replaced. A repair makes W
 *   wait for that read, or the write W replaced wait for W (repair()), and
 *   goes back to before the write that now waits; at most REPAIRS_BASE
 *   plus one per REPAIR_EVENTS events, at most 4 steps per event in all
 *   and LOOK_PER_EVENT looks back, then the run gives up.
 *
 * Nothing here is trusted: the interleaving is verified before it is
 * returned, and its count is only an upper bound on the least. */
#include "hint_run.h"
#include "program.h"
#include "saturate.h"
#include "time_windows.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
/* Repairs allowed: this many, plus one per REPAIR_EVENTS events. */
#define REPAIRS_BASE 64u
#define REPAIR_EVENTS 64u
#define POLL_STEPS 65536u
/* Locks of plain stores have few threads; the run keeps a word per thread
 * and variable (the next access of each). */
#define HINT_THREADS 64u
#define HINT_CELLS (1u << 22)
/* How far back a repair looks for the write to hold back. */
#define SCAN_BACK (1u << 16)
/* The repairs' looks back and undos in all: this many per event, plus
 * LOOK_FLOOR, then the run gives up. Each repair may look SCAN_BACK steps
 * back for every waiting thread: with 6 threads waiting on a variable read
 * at most steps, 6,000 repairs of 400,000 events looked 2 x 10^9 steps
 * (5.3 s; 16,000 repairs of 10^6 events with up to 62 waiting, minutes),
 * and without a deadline nothing stopped them. Lock recordings look 4 an
 * event at most (test_hint_run's 11,000 programs), a repair a block of
 * reads walked and undone 2. */
#define LOOK_PER_EVENT 64ul
#define LOOK_FLOOR (1ul << 22)

/* A repair: the write it is kept on waits until thread u has run past r. */
struct hold {
	uint32_t u, r, next;
};

struct run {
	const struct vsc_program *p;
	const struct analysis *a;
	const struct forced *f;
	uint32_t k, nv;
	size_t n;
	uint32_t *base;      /* per thread + 1: flat number of its event 0 */
	uint32_t *pos, *mem; /* positions, memory (pairs) */
	uint32_t *wait;      /* per flat event: reads forced before it still to run */
	uint32_t *next_same; /* per flat event: its thread's next access of its variable */
	uint32_t *cursor;    /* per thread x variable: its next access of it, or NONE */
	uint32_t *trail, *trail_at, *trail_old; /* per step: thread, its event, old value */
	/* per step: the step before it on its variable, and per variable its
	 * last step (NONE: none): a repair looks back along one variable */
	uint32_t *prev_on_var, *last_on_var;
	size_t depth;
	uint32_t *hold_head; /* per flat event: its repairs (struct hold), or NONE */
	struct hold *holds;
	uint32_t nholds, holds_cap;
	/* the repairs' looks back along the trail and undos: not steps of the
	 * run (its limit is in steps), but work the deadline must see */
	unsigned long looked;
};

static const struct vsc_event *event_at(const struct run *r, uint32_t t, uint32_t i)
{
	return &r->p->threads[t].events[i];
}

/* When the recording saw thread t's event i done (see the top). */
static uint64_t done_at(const struct run *r, uint32_t t, uint32_t i)
{
	const struct vsc_thread *th = &r->p->threads[t];

	if (th->events[i].kind == VSC_WRITE && i + 1 < th->length)
		return th->ts[i + 1] - 1;
	return th->ts[i];
}

static int forced_allows(const struct run *r, uint32_t t, uint32_t i, uint32_t x)
{
	uint32_t flat = r->base[t] + i, after, before, w;

	if (!r->f || !r->f->after)
		return 1;
	if (r->wait[flat])
		return 0;
	after = r->f->after[flat];
	before = r->f->before[flat];
	if (after == FORCED_NONE)
		return 1;
	w = r->pos[r->a->writer[x]];
	return (after == FORCED_START || w > after) && (before == FORCED_NONE || w <= before);
}

static int repairs_allow(const struct run *r, uint32_t flat)
{
	for (uint32_t h = r->hold_head[flat]; h != NONE; h = r->holds[h].next)
		if (r->pos[r->holds[h].u] <= r->holds[h].r)
			return 0;
	return 1;
}

/* Does another thread's next access of x come first in the recording? */
static int earlier_access(const struct run *r, uint32_t t, uint32_t i, uint32_t x)
{
	uint64_t mine = done_at(r, t, i);

	for (uint32_t u = 0; u < r->k; u++) {
		uint32_t c = r->cursor[(size_t)u * r->nv + x];
		if (u != t && c != NONE && done_at(r, u, c) < mine)
			return 1;
	}
	return 0;
}

/* May thread t's next event run now (by the times too, when timed)? */
static int may_run(const struct run *r, uint32_t t, int timed)
{
	uint32_t i = r->pos[t], x;
	const struct event_pairs *ep;

	if (i == r->p->threads[t].length)
		return 0;
	x = event_at(r, t, i)->var;
	ep = &r->a->pairs[t][i];
	if (ep->read != PAIR_NONE && r->mem[x] != ep->read && r->mem[x] != VALUE_UNDECIDED)
		return 0;
	if (!forced_allows(r, t, i, x) || !repairs_allow(r, r->base[t] + i))
		return 0;
	return !timed || ep->write == PAIR_NONE || !earlier_access(r, t, i, x);
}

static void wait_step(struct run *r, uint32_t t, uint32_t i, uint32_t x, int dir)
{
	uint32_t flat = r->base[t] + i;

	if (r->f && r->f->after && r->f->after[flat] != FORCED_NONE &&
	    r->f->before[flat] != FORCED_NONE)
		r->wait[r->base[r->a->writer[x]] + r->f->before[flat]] -= (uint32_t)dir;
}

static void step(struct run *r, uint32_t t)
{
	uint32_t i = r->pos[t], x = event_at(r, t, i)->var;
	const struct event_pairs *ep = &r->a->pairs[t][i];

	r->trail[r->depth] = t;
	r->trail_at[r->depth] = i;
	r->prev_on_var[r->depth] = r->last_on_var[x];
	r->last_on_var[x] = (uint32_t)r->depth;
	r->trail_old[r->depth++] = r->mem[x];
	wait_step(r, t, i, x, 1);
	if (ep->write != PAIR_NONE)
		r->mem[x] = ep->write;
	else if (r->mem[x] == VALUE_UNDECIDED)
		r->mem[x] = ep->read;
	r->cursor[(size_t)t * r->nv + x] = r->next_same[r->base[t] + i];
	r->pos[t]++;
}

static void undo(struct run *r)
{
	uint32_t t = r->trail[--r->depth], i = --r->pos[t], x = event_at(r, t, i)->var;

	r->mem[x] = r->trail_old[r->depth];
	r->last_on_var[x] = r->prev_on_var[r->depth];
	wait_step(r, t, i, x, -1);
	r->cursor[(size_t)t * r->nv + x] = i;
}

/* The thread whose next event may run and came first, or NONE. */
static uint32_t first_ready(const struct run *r, int timed)
{
	uint32_t best = NONE;
	uint64_t when = UINT64_MAX;

	for (uint32_t t = 0; t < r->k; t++)
		if (may_run(r, t, timed) && r->p->threads[t].ts[r->pos[t]] < when) {
			when = r->p->threads[t].ts[r->pos[t]];
			best = t;
		}
	return best;
}

/* The latest step of the run, no further back than SCAN_BACK steps nor
 * below floor, that wrote x over the value pair: its depth + 1, or 0.
 * Only x's steps are looked at (a waiting thread's flag may not have been
 * written for a long time). */
static size_t replaced_at(struct run *r, uint32_t x, uint32_t pair, size_t floor)
{
	size_t stop = r->depth > SCAN_BACK ? r->depth - SCAN_BACK : 0;

	if (stop < floor)
		stop = floor;
	for (uint32_t d = r->last_on_var[x]; d != NONE && d >= stop; d = r->prev_on_var[d]) {
		r->looked++;
		if (r->trail_old[d] == pair &&
		    r->a->pairs[r->trail[d]][r->trail_at[d]].write != PAIR_NONE)
			return (size_t)d + 1;
	}
	return 0;
}

static int add_hold(struct run *r, uint32_t flat, uint32_t u, uint32_t at)
{
	if (r->nholds == r->holds_cap) {
		uint32_t cap = r->holds_cap ? 2 * r->holds_cap : 256;
		struct hold *h = realloc(r->holds, (size_t)cap * sizeof(*h));
		if (!h)
			return -ENOMEM;
		r->holds = h;
		r->holds_cap = cap;
	}
	r->holds[r->nholds] = (struct hold){ u, at, r->hold_head[flat] };
	r->hold_head[flat] = r->nholds++;
	return 0;
}

/* The step before depth `below` (a step on a variable x) that wrote pair
 * into x: its depth + 1, or 0. The walk starts at the step on x before `below`:
 * the steps on x above it cannot be the one (a spin's reads after the
 * write W at `below` were thousands, walked at every repair). */
static size_t wrote_at(struct run *r, uint32_t pair, size_t below)
{
	size_t stop = below > SCAN_BACK ? below - SCAN_BACK : 0;

	for (uint32_t d = r->prev_on_var[below]; d != NONE && d >= stop; d = r->prev_on_var[d]) {
		r->looked++;
		if (r->a->pairs[r->trail[d]][r->trail_at[d]].write == pair)
			return (size_t)d + 1;
	}
	return 0;
}

static uint32_t flat_of(const struct run *r, size_t d)
{
	return r->base[r->trail[d]] + r->trail_at[d];
}

/* Nothing may run: some thread waits to read a value pair of x that a
 * write W in the run replaced. Two ways out: W waits until that read has
 * run, or the write P of pair that W replaced waits until W has run (the
 * two writes swapped). The one the recording's order of W and P says is
 * taken (its logs: a store is logged just before it is done), for the
 * latest such W; the run goes back to before the write that now waits.
 * Returns 0, 1 when there is no such write, or -ENOMEM. */
static int repair(struct run *r)
{
	size_t latest = 0, put;
	uint32_t reader = NONE, pair = 0, flat;

	for (uint32_t t = 0; t < r->k; t++) {
		uint32_t i = r->pos[t];
		size_t d;
		if (i == r->p->threads[t].length || r->a->pairs[t][i].read == PAIR_NONE)
			continue;
		d = replaced_at(r, event_at(r, t, i)->var, r->a->pairs[t][i].read, latest);
		if (d > latest) {
			latest = d;
			reader = t;
			pair = r->a->pairs[t][i].read;
		}
	}
	if (reader == NONE)
		return 1;
	put = wrote_at(r, pair, latest - 1);
	if (put && r->p->threads[r->trail[latest - 1]].ts[r->trail_at[latest - 1]] <
			   r->p->threads[r->trail[put - 1]].ts[r->trail_at[put - 1]]) {
		flat = flat_of(r, put - 1); /* P waits for W */
		if (add_hold(r, flat, r->trail[latest - 1], r->trail_at[latest - 1]))
			return -ENOMEM;
		latest = put;
	} else {
		flat = flat_of(r, latest - 1); /* W waits for the read */
		if (add_hold(r, flat, reader, r->pos[reader]))
			return -ENOMEM;
	}
	while (r->depth >= latest) {
		undo(r);
		r->looked++;
	}
	return 0;
}

static void run_free(struct run *r)
{
	free(r->base);
	free(r->pos);
	free(r->mem);
	free(r->wait);
	free(r->next_same);
	free(r->cursor);
	free(r->trail);
	free(r->trail_at);
	free(r->trail_old);
	free(r->prev_on_var);
	free(r->last_on_var);
	free(r->hold_head);
	free(r->holds);
}

int hint_run_applies(const struct vsc_program *p)
{
	if (program_threads(p) > HINT_THREADS ||
	    (uint64_t)program_threads(p) * program_vars(p) > HINT_CELLS)
		return 0;
	for (uint32_t t = 0; t < program_threads(p); t++)
		if (!p->threads[t].ts && p->threads[t].length)
			return 0;
	return 1;
}

/* Everything but the times' and the repairs' checks is set up here. */
static int run_init(struct run *r, const struct vsc_program *p, const struct analysis *a,
		    const struct forced *forced)
{
	size_t cells;

	*r = (struct run){ .p = p,
			   .a = a,
			   .f = forced,
			   .k = a->k,
			   .nv = a->nvars ? a->nvars : 1,
			   .n = p->event_count };
	cells = (size_t)r->k * r->nv;
	r->base = malloc(((size_t)r->k + 1) * sizeof(uint32_t));
	r->pos = calloc(r->k + 1, sizeof(uint32_t));
	r->mem = malloc(r->nv * sizeof(uint32_t));
	r->next_same = malloc((r->n + 1) * sizeof(uint32_t));
	r->cursor = malloc(cells * sizeof(uint32_t));
	r->trail = malloc((r->n + 1) * sizeof(uint32_t));
	r->trail_at = malloc((r->n + 1) * sizeof(uint32_t));
	r->trail_old = malloc((r->n + 1) * sizeof(uint32_t));
	r->prev_on_var = malloc((r->n + 1) * sizeof(uint32_t));
	r->last_on_var = malloc(r->nv * sizeof(uint32_t));
	r->hold_head = malloc((r->n + 1) * sizeof(uint32_t));
	if (forced && forced->after && (r->wait = malloc((r->n + 1) * sizeof(uint32_t))))
		memcpy(r->wait, forced->must_wait, r->n * sizeof(uint32_t));
	if (!r->base || !r->pos || !r->mem || !r->next_same || !r->cursor || !r->trail ||
	    !r->trail_at || !r->trail_old || !r->prev_on_var || !r->last_on_var || !r->hold_head ||
	    (forced && forced->after && !r->wait))
		return -ENOMEM;
	for (uint32_t x = 0; x < r->nv; x++)
		r->last_on_var[x] = NONE;
	for (uint32_t x = 0; x < a->nvars; x++)
		r->mem[x] = a->init[x];
	for (size_t c = 0; c < cells; c++)
		r->cursor[c] = NONE;
	for (size_t e = 0; e < r->n; e++)
		r->hold_head[e] = NONE;
	r->base[0] = 0;
	for (uint32_t t = 0; t < r->k; t++) {
		uint32_t len = p->threads[t].length, *cur = r->cursor + (size_t)t * r->nv;
		r->base[t + 1] = r->base[t] + len;
		for (uint32_t i = len; i-- > 0;) {
			uint32_t x = p->threads[t].events[i].var;
			r->next_same[r->base[t] + i] = cur[x];
			cur[x] = i;
		}
	}
	return 0;
}

/* Run to the end (0), stuck past the repairs or the work (1), -ETIME, or
 * -ENOMEM. */
static int run_all(struct run *r, struct budget *b)
{
	unsigned long repairs = REPAIRS_BASE + r->n / REPAIR_EVENTS, work = 0, polled = 0;
	unsigned long most = 4 * (unsigned long)r->n + (1ul << 20);
	unsigned long looks = LOOK_PER_EVENT * (unsigned long)r->n + LOOK_FLOOR;
	uint32_t cur = first_ready(r, 1);

	if (cur == NONE)
		cur = 0;
	while (r->depth < r->n) {
		uint32_t t;
		int err;
		if (++work > most)
			return 1;
		/* the budget is charged the repairs' looks too: with many
		 * threads waiting, each repair looks up to SCAN_BACK steps
		 * back for every one of them */
		if (work + r->looked - polled >= POLL_STEPS) {
			if (b && budget_spend(b, work + r->looked - polled))
				return -ETIME;
			polled = work + r->looked;
		}
		if (may_run(r, cur, 1)) {
			step(r, cur);
			continue;
		}
		if ((t = first_ready(r, 1)) != NONE) {
			cur = t;
			continue;
		}
		if ((t = first_ready(r, 0)) != NONE) {
			step(r, cur = t); /* a write the times would hold back */
			continue;
		}
		if (!repairs-- || r->looked > looks)
			return 1;
		if ((err = repair(r)))
			return err;
		cur = r->depth ? r->trail[r->depth - 1] : 0;
	}
	return 0;
}

int hint_run(const struct vsc_program *p, const struct analysis *a, const struct forced *forced,
	     struct budget *b, uint32_t **witness, long *preemptions)
{
	struct run r;
	int err;

	*witness = NULL;
	*preemptions = 0;
	if (!p->event_count || !hint_run_applies(p) || program_unpack(p) || (b && budget_look(b)))
		return 0; /* the clock looked at: a phase before may have stopped at the deadline */
	if ((err = run_init(&r, p, a, forced)) == 0 && (err = run_all(&r, b)) == 0 &&
	    vsc_witness_verify(p, r.trail, r.n, preemptions, NULL, 0) == 0) {
		*witness = r.trail;
		r.trail = NULL;
	}
	run_free(&r);
	/* stuck: the times may be close to the order memory saw (seq_cst) */
	if (err == 1 || (!err && !*witness))
		err = time_windows_run(p, a, b, witness, preemptions);
	return err == -ENOMEM ? err : 0;
}
