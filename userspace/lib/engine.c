/* SPDX-License-Identifier: MIT */
/* The auto solver's search. Exact, and fast because it rarely branches.
 *
 * Each thread's next event is, in the current state, one of:
 *  - DISABLED: a read of a value memory does not hold, or a write that would
 *    overwrite a value some pending read still needs while no pending write
 *    can bring that value back (the state after it is dead);
 *  - SAFE: running it now can never hurt. A read of the value memory holds
 *    changes nothing, so moving it earlier in any SC interleaving keeps the
 *    interleaving SC; a write whose variable no other pending event touches
 *    (no pending read of the value it overwrites, no pending write by
 *    another thread) is invisible to everything that runs between now and
 *    its place. Moving an event of the running thread earlier never adds a
 *    preemption (its old place either shrinks a later slice of the thread or
 *    removes it, merging two neighbours);
 *  - CHOICE: enabled, but running it now may be wrong.
 * So the running thread runs its SAFE events at once (with no bound on
 * preemptions every thread does), and the search only branches at CHOICE
 * events and where the running thread is blocked or finished. For 1-Writer
 * programs whose values identify writes there are no CHOICE events at all:
 * a switch happens only where a read must wait for a write or a write for a
 * read, which is the paper's algorithm restricted to the preemption points
 * that can help.
 *
 * States (thread positions, the running thread when it is not finished, and
 * the memory of variables whose value the positions do not imply) are
 * remembered with the largest number of preemptions left that is known not
 * to be enough; a state reached again with no more left is cut. */
#include "engine.h"
#include "userspace/util/array.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum step_kind {
	STEP_DONE,
	STEP_DISABLED,
	STEP_SAFE,
	STEP_CHOICE
};

/* A node on the search's path. Its state is not stored: undoing the trail
 * to depth with last running gives it back (24 bytes a node: the path of a
 * search that goes straight to a witness is a node per few events). */
struct engine_frame {
	size_t depth;          /* steps run when the node was entered */
	uint32_t last;         /* running thread at the node */
	uint32_t cost;         /* preemptions used to get there */
	uint32_t next;         /* candidates tried so far */
	uint32_t tried_thread; /* with @ts hints: the last one tried */
};

static int is_pair(uint32_t value)
{
	return value < VALUE_UNDECIDED;
}

static const struct event_pairs *next_pairs(const struct engine *g, uint32_t t)
{
	return &g->a->pairs[t][g->pos[t]];
}

static uint32_t next_var(const struct engine *g, uint32_t t)
{
	return g->p->threads[t].events[g->pos[t]].var;
}

static int finished(const struct engine *g, uint32_t t)
{
	return g->pos[t] == g->p->threads[t].length;
}

/* With forced orders: may thread t's next event run now? A read waits for
 * the write opening its first possible epoch and is dead once the write
 * closing its last one ran; a write waits for the reads forced before it. */
static int forced_ready(const struct engine *g, uint32_t t, uint32_t x)
{
	uint32_t flat = g->forced->base[t] + g->pos[t];
	uint32_t after = g->forced->after[flat], before = g->forced->before[flat];

	if (after != FORCED_NONE) {
		uint32_t w = g->pos[g->a->writer[x]];
		if ((after != FORCED_START && w <= after) || (before != FORCED_NONE && w > before))
			return 0;
	}
	return g->must_wait[flat] == 0;
}

/* Pending reads that may still see the value cur of x (which t overwrites).
 * With one writer, t is it, and its own reads come after this write: they
 * see it or a later one, never cur (writer_reads counts them; without it
 * they can only be this event's own read, in an RMW). */
static uint32_t readers_left(const struct engine *g, uint32_t t, uint32_t x, uint32_t cur)
{
	const struct event_pairs *ep = next_pairs(g, t);

	if (g->a->writers[x] == 1 && g->forced)
		return g->open_reads[cur]; /* reads of later epochs do not count */
	if (g->a->writers[x] == 1 && g->writer_reads)
		return g->pending_reads[cur] - g->writer_reads[cur];
	return g->pending_reads[cur] - (ep->read == cur);
}

static enum step_kind classify(const struct engine *g, uint32_t t)
{
	const struct event_pairs *ep;
	uint32_t x, c, cur, reads_left;
	int safe = 1;

	if (finished(g, t))
		return STEP_DONE;
	ep = next_pairs(g, t);
	x = next_var(g, t);
	c = g->mem[x];
	if (g->forced && !forced_ready(g, t, x))
		return STEP_DISABLED;
	if (ep->read != PAIR_NONE) {
		if (c != ep->read && c != VALUE_UNDECIDED)
			return STEP_DISABLED;
		if (c == VALUE_UNDECIDED)
			safe = 0; /* it decides the unknown initial value */
	}
	if (ep->write == PAIR_NONE)
		return safe ? STEP_SAFE : STEP_CHOICE;
	cur = ep->read != PAIR_NONE ? ep->read : c; /* the value overwritten */
	if (is_pair(cur) && cur != ep->write) {
		reads_left = g->pending_reads[cur] - (ep->read == cur);
		if (reads_left > 0 && g->pending_writes[cur] == 0)
			return STEP_DISABLED;
		if (reads_left > 0 && readers_left(g, t, x, cur) > 0)
			safe = 0;
	} else if (cur == VALUE_UNDECIDED && g->var_pending_reads[x] > 0) {
		safe = 0;
	}
	if (g->a->writers[x] > 1 && g->var_pending_writes[x] > 1)
		safe = 0;
	return safe ? STEP_SAFE : STEP_CHOICE;
}

/* Keep the forced-order counters in step: dir 1 when thread t's next
 * event runs, -1 when it is undone. */
static void forced_step(struct engine *g, uint32_t t, int dir)
{
	const struct forced *f = g->forced;
	uint32_t flat = f->base[t] + g->pos[t];
	uint32_t before = f->before[flat];

	if (f->after[flat] != FORCED_NONE) {
		uint32_t w = g->a->writer[g->p->threads[t].events[g->pos[t]].var];
		if (before != FORCED_NONE)
			g->must_wait[f->base[w] + before] -= (uint32_t)dir;
		g->open_reads[g->a->pairs[t][g->pos[t]].read] -= (uint32_t)dir;
	}
	for (uint32_t i = f->opens_off[flat]; i < f->opens_off[flat + 1]; i++)
		g->open_reads[f->opens[i]] += (uint32_t)dir;
}

/* Run thread t's next event (classify said it is enabled). */
static void run_step(struct engine *g, uint32_t t)
{
	const struct event_pairs *ep = next_pairs(g, t);
	uint32_t x = next_var(g, t);

	g->steps++;
	if (g->forced)
		forced_step(g, t, 1);
	g->trail[g->depth] = t;
	g->trail_old[g->depth] = g->mem[x];
	g->depth++;
	if (ep->read != PAIR_NONE) {
		g->pending_reads[ep->read]--;
		g->var_pending_reads[x]--;
		g->mem[x] = ep->read;
		if (g->writer_reads && g->a->writers[x] == 1 && g->a->writer[x] == t)
			g->writer_reads[ep->read]--;
	}
	if (ep->write != PAIR_NONE) {
		g->pending_writes[ep->write]--;
		g->var_pending_writes[x]--;
		g->mem[x] = ep->write;
	}
	g->pos[t]++;
	g->last = t;
}

static void undo_to(struct engine *g, size_t depth)
{
	while (g->depth > depth) {
		uint32_t t = g->trail[--g->depth];
		g->pos[t]--;
		const struct event_pairs *ep = next_pairs(g, t);
		uint32_t x = next_var(g, t);
		if (g->forced)
			forced_step(g, t, -1);
		g->mem[x] = g->trail_old[g->depth];
		if (ep->read != PAIR_NONE) {
			g->pending_reads[ep->read]++;
			g->var_pending_reads[x]++;
			if (g->writer_reads && g->a->writers[x] == 1 && g->a->writer[x] == t)
				g->writer_reads[ep->read]++;
		}
		if (ep->write != PAIR_NONE) {
			g->pending_writes[ep->write]++;
			g->var_pending_writes[x]++;
		}
	}
}

/* Run SAFE events: the running thread's, or every thread's without a bound.
 * Without a bound g->last stays the thread whose step led here, so that the
 * node tries it first (candidate()): only the order in which the switches
 * are tried, the search is as exhaustive. Going on with one thread makes
 * long slices, as real runs do; trying the threads in turn from the first
 * at every node interleaved them finely and drove the search into deep
 * dead ends (few values, several writers: unknown at 10^4 events). */
static void closure(struct engine *g, int unbounded)
{
	uint32_t led = g->last;

	if (!unbounded) {
		if (led != ENGINE_NOBODY)
			while (classify(g, led) == STEP_SAFE)
				run_step(g, led);
		return;
	}
	for (int progress = 1; progress;) {
		progress = 0;
		for (uint32_t t = 0; t < g->k; t++)
			while (classify(g, t) == STEP_SAFE) {
				run_step(g, t);
				progress = 1;
			}
	}
	g->last = led;
}

static uint32_t running(const struct engine *g)
{
	return g->last != ENGINE_NOBODY && !finished(g, g->last) ? g->last : ENGINE_NOBODY;
}

/* Are more preemptions needed from here than left? Needed: the running
 * thread is blocked, and every thread the forced orders make stop again
 * (forced_stops), or, when more, the stops the threads' own accesses and
 * the forced orders force (own_stops.c, saturate_stops.c: intervals wholly
 * ahead, which the running thread's stop now is in none of). The cheaper
 * count first (a binary search a thread); the forced orders' (threads
 * squared) only when it does not decide. */
static int bound_exceeds(const struct engine *g, uint32_t left)
{
	uint32_t r = running(g);
	uint32_t now = r != ENGINE_NOBODY && classify(g, r) == STEP_DISABLED;

	if (now + own_stops_needed(&g->stops, g->pos) > left)
		return 1;
	return g->bound && now + forced_stops(g->bound, g->p, g->pos) > left;
}

/* The current state into g->key, packed: each field in the bits its
 * largest value needs (engine_key()), so that a state of 8 threads and 8
 * variables of 3 values takes 4 words, not 17. Packing is one-to-one, and
 * the table only compares and hashes keys. */
static void make_key(struct engine *g, int unbounded)
{
	uint64_t acc = 0;
	uint32_t w = 0, used = 0, field = 0, r = unbounded ? ENGINE_NOBODY : running(g);

#define PUT(value)                                   \
	do {                                         \
		acc |= (uint64_t)(value) << used;    \
		used += g->key_bits[field++];        \
		if (used >= 32) {                    \
			g->key[w++] = (uint32_t)acc; \
			acc >>= 32;                  \
			used -= 32;                  \
		}                                    \
	} while (0)
	for (uint32_t t = 0; t < g->k; t++)
		PUT(g->pos[t]);
	PUT(r == ENGINE_NOBODY ? g->k : r);
	for (uint32_t i = 0; i < g->nkey_vars; i++) {
		uint32_t v = g->mem[g->key_vars[i]];
		PUT(v == VALUE_UNDECIDED ? g->var_codes[i]
		    : v == VALUE_NONE    ? g->var_codes[i] + 1
					 : g->pair_code[v]);
	}
#undef PUT
	if (used > 0 || w == 0)
		g->key[w++] = (uint32_t)acc;
}

void engine_state_key(struct engine *g, int unbounded)
{
	make_key(g, unbounded);
}

/* The most preemptions left known not to suffice from the current state,
 * plus 1 (0: nothing known). */
static uint32_t known_failing(struct engine *g, int unbounded)
{
	struct state_table *t = &g->table[!unbounded];
	int64_t id;

	make_key(g, unbounded);
	id = state_table_find(t, g->key);
	return id < 0 ? 0 : t->records[id].cost;
}

/* The current state's record in the table of its kind (bounded or not),
 * added when absent. Its index, or -ENOMEM. */
static int64_t current_state(struct engine *g, int unbounded)
{
	int added;

	make_key(g, unbounded);
	return state_table_get(&g->table[!unbounded], g->key, &added);
}

/* The current state fails with left preemptions left: remember it. Only
 * failed states are kept (a state is never met again below itself: every
 * step advances a thread), so a search that goes straight to a witness
 * keeps none. 0 or -ENOMEM. */
static int remember_failed(struct engine *g, int unbounded, uint32_t left)
{
	struct state_table *t = &g->table[!unbounded];
	int64_t id = current_state(g, unbounded);

	if (id < 0)
		return (int)id;
	if (t->records[id].cost < left + 1)
		t->records[id].cost = left + 1;
	return 0;
}

static uint32_t left_after(long bound, uint32_t cost, int unbounded)
{
	return unbounded ? UINT32_MAX - 1 : (uint32_t)(bound - (long)cost);
}

/* Threads to switch to are tried by the @ts hint of their next event, then
 * by number. */
static int ranked_before(uint64_t ra, uint32_t a, uint64_t rb, uint32_t b)
{
	return ra < rb || (ra == rb && a < b);
}

/* The next thread to try at node f whose running thread is r: r itself
 * first, then the others, by rank when there are ranks, else in turn. */
static uint32_t candidate(const struct engine *g, uint32_t r, struct engine_frame *f)
{
	uint32_t i = f->next++, best = ENGINE_NOBODY;
	uint64_t best_rank = UINT64_MAX, tried_rank;

	if (r != ENGINE_NOBODY && i == 0)
		return r;
	if (!g->ranked) {
		if (i >= g->k)
			return ENGINE_NOBODY;
		return r == ENGINE_NOBODY ? i : (r + i) % g->k;
	}
	/* the last one tried is unfinished at the node: its rank is back */
	tried_rank = f->next > 1 + (r != ENGINE_NOBODY)
			     ? g->p->threads[f->tried_thread].ts[g->pos[f->tried_thread]]
			     : 0;
	for (uint32_t u = 0; u < g->k; u++) {
		uint64_t rank;
		if (u == r || finished(g, u))
			continue;
		rank = g->p->threads[u].ts[g->pos[u]];
		if (f->next > 1 + (r != ENGINE_NOBODY) &&
		    !ranked_before(tried_rank, f->tried_thread, rank, u))
			continue;
		if (best == ENGINE_NOBODY || ranked_before(rank, u, best_rank, best)) {
			best_rank = rank;
			best = u;
		}
	}
	f->tried_thread = best;
	return best;
}

static int push_frame(struct engine *g, size_t *top, uint32_t cost)
{
	if (ARRAY_RESERVE_FROM(g->frames, g->frames_cap, *top + 1, 256))
		return -ENOMEM;
	g->frames[(*top)++] = (struct engine_frame){ g->depth, g->last, cost, 0, 0 };
	return 0;
}

/* enter() with wide keys (thousands of threads): the state is recorded on
 * entry, as failing with what is left, and unmarked if its path succeeds
 * or is stopped (unmark_path()). A node costs as much as its key there,
 * and the records' memory is what stops, under a memory limit, a search
 * that cannot finish: recording only failures let one run on with none
 * (10^5 threads in a chain, each reading the next one's write: unknown in
 * 0.06 s under a 400 MB address-space cap, and still running at 20 s). */
static int enter_marking(struct engine *g, size_t *top, uint32_t cost, uint32_t left, int unbounded)
{
	struct state_table *t = &g->table[!unbounded];
	int64_t id = current_state(g, unbounded);

	if (id < 0)
		return (int)id;
	if (t->records[id].cost > left)
		return 0;
	t->records[id].cost = left + 1;
	if (!unbounded && (g->bound || g->stops.total) && bound_exceeds(g, left))
		return 0; /* and the record says so for later */
	g->nodes++;
	if (push_frame(g, top, cost) || ARRAY_RESERVE_FROM(g->path_state, g->path_cap, *top, 256))
		return -ENOMEM;
	g->path_state[*top - 1] = (uint32_t)id;
	return 1;
}

/* The states recorded on the path (wide keys) did not fail: forget that. */
static void unmark_path(struct engine *g, size_t top, int unbounded)
{
	if (g->eager)
		for (size_t i = 0; i < top; i++)
			g->table[!unbounded].records[g->path_state[i]].cost = 0;
}

/* Enter the node reached now with cost used. Returns 1 when it is new enough
 * to explore (pushed), 0 when it is cut, 2 when it completes the
 * interleaving, or a negative errno. */
static int enter(struct engine *g, size_t *top, uint32_t cost, long bound, int unbounded)
{
	uint32_t left = left_after(bound, cost, unbounded);

	closure(g, unbounded);
	if (g->depth == g->n)
		return 2;
	if (g->eager)
		return enter_marking(g, top, cost, left, unbounded);
	/* a state the lower bound cuts is not kept: such states outnumbered
	 * the searched ones 6 to 1 (8 threads, 3 values, 10^4 events, -p 18:
	 * 4.2 M states, 0.7 M searched), crowding them out of a table at its
	 * limit. The bound goes first: it works on what is in cache, where
	 * the look-up misses it at random */
	if (!unbounded && (g->bound || g->stops.total) && bound_exceeds(g, left))
		return 0;
	if (known_failing(g, unbounded) > left)
		return 0;
	g->nodes++;
	return push_frame(g, top, cost) ? -ENOMEM : 1;
}

/* The bytes the memory limit weighs: both tables of failed states (one
 * search may fill the unbounded one, the next the bounded one) and the
 * path (a frame and a state per depth, up to the events' count); only the
 * table in use was counted. */
static size_t engine_bytes(const struct engine *g)
{
	return state_table_bytes(&g->table[0]) + state_table_bytes(&g->table[1]) +
	       g->frames_cap * sizeof(*g->frames) + g->path_cap * sizeof(*g->path_state);
}

int engine_search(struct engine *g, long bound)
{
	int unbounded = bound < 0, r;
	size_t top = 0;
	uint64_t charged = g->steps;
	/* a node costs its steps, a state key of k words, and the lower bound
	 * (k x k) when it is computed */
	unsigned long node_work = g->k + 1;

	if (!unbounded && g->bound)
		node_work += (unsigned long)g->k * g->k;
	if (!unbounded && g->stops.total)
		node_work += g->k;

	undo_to(g, 0);
	g->last = ENGINE_NOBODY;
	r = enter(g, &top, 0, bound, unbounded);
	while (r >= 0 && r != 2 && top > 0) {
		struct engine_frame *f = &g->frames[top - 1];
		uint32_t t, cost;
		enum step_kind kind;

		if (budget_spend(g->budget, node_work + (unsigned long)(g->steps - charged)) ||
		    budget_over_memory(g->budget, engine_bytes(g))) {
			/* the states on the path are not explored: do not keep
			 * them as failed (a work cap may stop a search that a
			 * later one on this engine goes on from) */
			unmark_path(g, top, unbounded);
			return VSC_UNKNOWN;
		}
		charged = g->steps;
		undo_to(g, f->depth);
		g->last = f->last;
		t = candidate(g, running(g), f);
		if (t == ENGINE_NOBODY) { /* every way on from the node failed */
			if (!g->eager)    /* else recorded on entry */
				r = remember_failed(g, unbounded,
						    left_after(bound, f->cost, unbounded));
			top--;
			continue;
		}
		kind = classify(g, t);
		if (kind != STEP_SAFE && kind != STEP_CHOICE)
			continue;
		cost = f->cost;
		if (!unbounded && running(g) != ENGINE_NOBODY && running(g) != t) {
			if ((long)cost + 1 > bound)
				continue;
			cost++;
		}
		run_step(g, t);
		r = enter(g, &top, cost, bound, unbounded);
	}
	if (r < 0)
		return r;
	if (r == 2) {
		unmark_path(g, top, unbounded);
		return VSC_CONSISTENT;
	}
	return VSC_INCONSISTENT;
}

void engine_free(struct engine *g)
{
	free(g->pos);
	free(g->mem);
	free(g->pending_reads);
	free(g->pending_writes);
	free(g->writer_reads);
	free(g->var_pending_reads);
	free(g->var_pending_writes);
	free(g->trail);
	free(g->trail_old);
	free(g->key_vars);
	free(g->key);
	free(g->key_bits);
	free(g->pair_code);
	free(g->var_codes);
	free(g->frames);
	free(g->path_state);
	free(g->must_wait);
	free(g->open_reads);
	state_table_free(&g->table[0]);
	state_table_free(&g->table[1]);
	own_stops_free(&g->stops);
}

/* Can the writer W of a one-writer variable x read a value cur of x after
 * overwriting it? Only when x holds cur again later: W writes some value
 * twice (more writes than values written), or writes what is (or may be)
 * x's initial value. By the analysis's counts, with no pass over events. */
static int writer_rereads(const struct analysis *a)
{
	for (uint32_t x = 0; x < a->nvars; x++) {
		uint32_t init = a->init[x];
		if (a->writers[x] != 1)
			continue;
		if (a->var_writes[x] > a->written_pairs[x] || init == VALUE_UNDECIDED ||
		    (init != VALUE_NONE && a->writes_of[init] > 0))
			return 1;
	}
	return 0;
}

/* writer_reads, when W may read a value again after overwriting it (else
 * NULL: its count is 0 whenever readers_left() asks). */
static int count_writer_reads(struct engine *g)
{
	const struct analysis *a = g->a;

	if (!writer_rereads(a))
		return 0;
	g->writer_reads = calloc(a->npairs ? a->npairs : 1, sizeof(uint32_t));
	if (!g->writer_reads)
		return -ENOMEM;
	for (uint32_t t = 0; t < g->k; t++)
		for (uint32_t i = 0; i < g->p->threads[t].length; i++) {
			uint32_t x = g->p->threads[t].events[i].var, pair = a->pairs[t][i].read;
			if (pair != PAIR_NONE && a->writers[x] == 1 && a->writer[x] == t)
				g->writer_reads[pair]++;
		}
	return 0;
}

/* The search's own copies of the analysis's counters, and its trail. */
static int engine_alloc(struct engine *g)
{
	const struct analysis *a = g->a;
	size_t kk = a->k ? a->k : 1, vv = a->nvars ? a->nvars : 1, pp = a->npairs ? a->npairs : 1;
	size_t nn = g->n ? g->n : 1;

	g->pos = calloc(kk, sizeof(uint32_t));
	g->mem = malloc(vv * sizeof(uint32_t));
	g->pending_reads = malloc(pp * sizeof(uint32_t));
	g->pending_writes = malloc(pp * sizeof(uint32_t));
	g->var_pending_reads = malloc(vv * sizeof(uint32_t));
	g->var_pending_writes = malloc(vv * sizeof(uint32_t));
	g->trail = malloc(nn * sizeof(uint32_t));
	g->trail_old = malloc(nn * sizeof(uint32_t));
	g->key_vars = malloc(vv * sizeof(uint32_t));
	if (!g->pos || !g->mem || !g->pending_reads || !g->pending_writes ||
	    !g->var_pending_reads || !g->var_pending_writes || !g->trail || !g->trail_old ||
	    !g->key_vars)
		return -ENOMEM;
	memcpy(g->mem, a->init, a->nvars * sizeof(uint32_t));
	memcpy(g->pending_reads, a->reads_of, a->npairs * sizeof(uint32_t));
	memcpy(g->pending_writes, a->writes_of, a->npairs * sizeof(uint32_t));
	memcpy(g->var_pending_reads, a->var_reads, a->nvars * sizeof(uint32_t));
	memcpy(g->var_pending_writes, a->var_writes, a->nvars * sizeof(uint32_t));
	return count_writer_reads(g);
}

/* The forced orders: which events must wait, which reads are open. */
static int engine_take_forced(struct engine *g, const struct forced *forced)
{
	size_t nn = g->n ? g->n : 1, pp = g->a->npairs ? g->a->npairs : 1;

	g->forced = forced;
	g->must_wait = malloc(nn * sizeof(uint32_t));
	g->open_reads = malloc(pp * sizeof(uint32_t));
	if (!g->must_wait || !g->open_reads)
		return -ENOMEM;
	memcpy(g->must_wait, forced->must_wait, g->n * sizeof(uint32_t));
	memcpy(g->open_reads, forced->open_at_start, g->a->npairs * sizeof(uint32_t));
	return 0;
}

/* Bits that hold 0..max. */
static uint8_t bits_for(uint32_t max)
{
	uint8_t bits = 0;

	while (bits < 32 && (max >> bits) != 0)
		bits++;
	return bits;
}

/* Number the values of the key variables (g->pair_code, g->var_codes):
 * their pairs in the order events meet them, then ? and none. */
static int number_values(struct engine *g)
{
	const struct analysis *a = g->a;
	uint32_t *key_of = malloc((a->nvars ? a->nvars : 1) * sizeof(uint32_t));

	g->pair_code = malloc((a->npairs ? a->npairs : 1) * sizeof(uint32_t));
	g->var_codes = calloc(g->nkey_vars, sizeof(uint32_t));
	if (!key_of || !g->pair_code || !g->var_codes) {
		free(key_of);
		return -ENOMEM;
	}
	memset(key_of, 0xff, a->nvars * sizeof(uint32_t));
	memset(g->pair_code, 0xff, a->npairs * sizeof(uint32_t));
	for (uint32_t i = 0; i < g->nkey_vars; i++) {
		uint32_t x = g->key_vars[i];
		key_of[x] = i;
		if (a->init[x] < VALUE_UNDECIDED)
			g->pair_code[a->init[x]] = g->var_codes[i]++;
	}
	for (uint32_t t = 0; t < g->k; t++)
		for (uint32_t e = 0; e < g->p->threads[t].length; e++) {
			uint32_t i = key_of[g->p->threads[t].events[e].var];
			const struct event_pairs *ep = &a->pairs[t][e];
			if (i == UINT32_MAX)
				continue;
			if (ep->read != PAIR_NONE && g->pair_code[ep->read] == UINT32_MAX)
				g->pair_code[ep->read] = g->var_codes[i]++;
			if (ep->write != PAIR_NONE && g->pair_code[ep->write] == UINT32_MAX)
				g->pair_code[ep->write] = g->var_codes[i]++;
		}
	free(key_of);
	return 0;
}

/* The packed key's fields (make_key()): a thread's position (0..its
 * length), the running thread (0..k, k: none), a key variable's value
 * (number_values(), 0..its pairs + 1). */
static int pack_key(struct engine *g)
{
	uint64_t bits = 0;
	uint32_t f = 0;

	g->key_bits = malloc(g->k + 1 + g->nkey_vars);
	if (!g->key_bits || (g->nkey_vars && number_values(g)))
		return -ENOMEM;
	for (uint32_t t = 0; t < g->k; t++)
		g->key_bits[f++] = bits_for(g->p->threads[t].length);
	g->key_bits[f++] = bits_for(g->k);
	for (uint32_t i = 0; i < g->nkey_vars; i++)
		g->key_bits[f++] = bits_for(g->var_codes[i] + 1);
	for (uint32_t i = 0; i < f; i++)
		bits += g->key_bits[i];
	g->key_words = (uint32_t)((bits + 31) / 32);
	if (!g->key_words)
		g->key_words = 1;
	return 0;
}

/* The state key: the positions, the last thread, and the variables whose
 * value the positions do not give. */
static int engine_key(struct engine *g)
{
	const struct analysis *a = g->a;

	/* With one writer thread, a variable's value follows from that thread's
	 * position, except for an unknown initial value, which a read decides. */
	for (uint32_t v = 0; v < a->nvars; v++)
		if (a->var_reads[v] && (a->writers[v] > 1 || a->init[v] == VALUE_UNDECIDED))
			g->key_vars[g->nkey_vars++] = v;
	g->eager = g->k + 1 + g->nkey_vars > ENGINE_EAGER_WORDS;
	if (pack_key(g))
		return -ENOMEM;
	g->key = malloc(g->key_words * sizeof(uint32_t));
	if (!g->key || state_table_init(&g->table[0], g->key_words) ||
	    state_table_init(&g->table[1], g->key_words))
		return -ENOMEM;
	if (!g->eager) /* there the records' memory is the limit (enter_marking()) */
		engine_limit_tables(g, ENGINE_TABLE_BYTES + ENGINE_TABLE_EVENT_BYTES * g->n);
	return 0;
}

void engine_limit_tables(struct engine *g, size_t bytes)
{
	state_table_limit_bytes(&g->table[0], bytes);
	state_table_limit_bytes(&g->table[1], bytes);
}

int engine_init(struct engine *g, const struct vsc_program *p, const struct analysis *a,
		const struct forced *forced, struct budget *b)
{
	int err;

	memset(g, 0, sizeof(*g));
	g->p = p;
	g->a = a;
	g->budget = b;
	g->k = a->k;
	g->n = p->event_count;
	g->last = ENGINE_NOBODY;
	g->bound = forced && forced->last ? forced : NULL;
	err = engine_alloc(g);
	if (!err)
		err = own_stops_build(&g->stops, p, a, forced);
	if (!err && forced && forced->after)
		err = engine_take_forced(g, forced);
	if (!err)
		err = engine_key(g);
	if (err)
		engine_free(g);
	return err;
}

int engine_rank_by_ts(struct engine *g)
{
	for (uint32_t t = 0; t < g->k; t++)
		if (!g->p->threads[t].ts && g->p->threads[t].length)
			return 0;
	g->ranked = 1;
	return 0;
}
