/* SPDX-License-Identifier: MIT */
/* A greedy run, before anything else (auto.c): most 1-Writer traces that a
 * program produced are decided by it in three linear passes, without the
 * reductions, the analysis, the forced orders and the search's set-up.
 *
 * The run is a simulation: a read runs only when memory holds its value,
 * so a run that completes is an SC interleaving, whatever else is true of
 * the program, and its preemptions (switches away from a thread with
 * events left) answer every bound at or above them. What makes it find
 * one: a write runs only when no read still to come anywhere reads the
 * value it overwrites (a count per (variable, value)). When each variable
 * has one writer thread and values identify its writes, those are exactly
 * the orders every SC interleaving keeps (the value's reads come after its
 * write and before the next one), so the run completes whenever the
 * program is SC. It runs the current thread as far as it can go and, when
 * that thread stops, switches to the next thread after it that can go on.
 * This need not give the least preemptions: so it answers a bound only
 * when it stays within it, --min only with no preemption, and otherwise
 * (stuck, too many preemptions, several writers, `init x ?`, values too
 * scattered for a table) leaves the program to the usual way, which
 * decides it exactly. */
#include "greedy_run.h"

#include <errno.h>
#include <stdlib.h>

#define GREEDY_RUN_CHUNK 4096 /* events between looks at the budget */
#define GREEDY_RUN_LOOK 4096  /* events a look ahead runs at most */
#define GREEDY_RUN_LOOKS_PER_EVENT 2
#define GREEDY_RUN_ENTRIES_PER_EVENT 4 /* the count table's size at most */

/* A variable's state in the run. */
struct cell {
	/* what memory holds; before the variable has a value (no init line,
	 * no write yet), the value just below its span, which no event reads
	 * and whose entry in the table stays 0 (make_table) */
	int64_t value;
	uint64_t offset;  /* reads[offset + (uint64_t)v]: the count of reads of v */
	uint64_t writers; /* bit t: thread t writes it (at most 64 threads) */
};

struct greedy_run {
	const struct vsc_program *p;
	enum packing packed; /* program_read_begin(p): the form of the events it runs */
	struct cell *cells;
	uint32_t *reads;   /* per (variable, value): reads still to come */
	uint64_t entries;  /* in reads */
	uint32_t *pos;     /* per thread: its next event */
	uint32_t *witness; /* NULL when the caller wants none: 4 bytes an event less */
	struct cell *undo; /* GREEDY_RUN_LOOK cells: a look ahead's writes */
	size_t done, looked;
	long preemptions;
};

/* The cells from the initial values. False when some is `init x ?`. */
static bool start_cells(struct greedy_run *g)
{
	const struct vsc_program *p = g->p;

	for (uint32_t x = 0; x < program_vars(p); x++) {
		if (p->inits[x].kind == VSC_INIT_UNKNOWN)
			return false;
		g->cells[x].value = p->inits[x].value; /* none: make_table() sets it */
	}
	return true;
}

/* The count table: one run of entries per variable, from the spans the
 * program keeps (program.h), and one entry before it for "no value yet",
 * with at most GREEDY_RUN_ENTRIES_PER_EVENT entries an event in all.
 * False when the values are too scattered for it, or no memory (*err). */
static bool make_table(struct greedy_run *g, int *err)
{
	const struct vsc_program *p = g->p;
	uint64_t room = GREEDY_RUN_ENTRIES_PER_EVENT * (uint64_t)p->event_count + 64;

	g->entries = 0;
	for (uint32_t x = 0; x < program_vars(p); x++) {
		const struct vsc_var_init *in = &p->inits[x];
		int64_t least = in->least, most = in->most;
		uint64_t width;
		if (in->kind == VSC_INIT_KNOWN) {
			least = in->value < least ? in->value : least;
			most = in->value > most ? in->value : most;
		}
		if (least > most)
			continue; /* no value: nothing indexes it */
		width = (uint64_t)most - (uint64_t)least;
		if (width >= room - g->entries - 1)
			return false;
		/* the entry before the span: the value least - 1, which lies
		 * outside it (the span is narrower than all of int64_t) */
		g->cells[x].offset = g->entries + 1 - (uint64_t)least;
		g->entries += width + 2;
		if (in->kind != VSC_INIT_KNOWN)
			g->cells[x].value = (int64_t)((uint64_t)least - 1);
	}
	g->reads = zeroed_array(g->entries * sizeof(*g->reads));
	if (!g->reads)
		*err = -ENOMEM;
	return g->reads != NULL;
}

/* The entry of v in x's run; entries (past the table) when the span the
 * program keeps does not hold it. */
static inline uint64_t entry(const struct greedy_run *g, uint32_t x, int64_t v)
{
	uint64_t i = g->cells[x].offset + (uint64_t)v;

	return i < g->entries ? i : g->entries;
}

/* count_reads() on thread t, its events packed as k (a constant where it
 * is inlined). Returns nonzero when a value has no entry. */
static inline __attribute__((always_inline)) uint64_t count_thread(struct greedy_run *g, uint32_t t,
								   enum packing k)
{
	const struct vsc_thread *th = &g->p->threads[t];
	uint64_t outside = 0;

	for (uint32_t i = 0; i < th->length; i++) {
		struct vsc_event e = thread_event(th, k, i);
		struct cell *c = &g->cells[e.var];
		uint64_t at = c->offset + (uint64_t)e.value;
		outside |= at >= g->entries;
		g->reads[at < g->entries ? at : 0] += e.kind != VSC_WRITE;
		c->writers |= (uint64_t)(e.kind != VSC_READ) << t;
		if (e.kind == VSC_RMW)
			outside |= entry(g, e.var, e.new_value) == g->entries;
	}
	return outside;
}

/* One pass: how many reads (and RMWs) read each (variable, value); that
 * each variable has one writer thread; that every value has its entry (so
 * the run indexes inside the table). False when the run does not apply.
 * Branch-free but for RMWs (kinds alternate at random). */
static bool count_reads(struct greedy_run *g)
{
	const struct vsc_program *p = g->p;
	uint64_t outside = 0;

	for (uint32_t t = 0; t < program_threads(p); t++)
		outside |= g->packed == PACKING_NARROW ? count_thread(g, t, PACKING_NARROW)
			   : g->packed == PACKING_WIDE ? count_thread(g, t, PACKING_WIDE)
						       : count_thread(g, t, PACKING_NONE);
	for (uint32_t x = 0; x < program_vars(p); x++)
		if (g->cells[x].writers & (g->cells[x].writers - 1))
			return false; /* several writers */
	return !outside;
}

/* May e run now? A read when memory holds its value; a write when no read
 * still to come reads the value it overwrites; an RMW both (its own read
 * the only one left). Without branches on the kind, which alternates at
 * random in a trace: a cell with no value yet holds the value before its
 * span, whose entry is 0 and which no event reads (make_table). */
static inline bool can_run(const struct greedy_run *g, struct vsc_event e)
{
	const struct cell *c = &g->cells[e.var];
	uint32_t left = g->reads[c->offset + (uint64_t)c->value], kind = e.kind;
	unsigned match = c->value == e.value;
	unsigned write_ok = left == 0;
	/* (a write's read_ok is not looked at: asking `!= VSC_RMW`, not
	 * `== VSC_READ`, lets the packed forms, which hold no RMW, drop it) */
	unsigned read_ok = match & ((kind != VSC_RMW) | (left == 1));

	/* selected by a shift: GCC made `kind == VSC_WRITE ? write_ok :
	 * read_ok` a branch on the kind, mispredicted on every other event */
	return (write_ok << 1 | read_ok) >> (kind == VSC_WRITE) & 1;
}

static inline void run_event(struct greedy_run *g, struct vsc_event e)
{
	struct cell *c = &g->cells[e.var];
	uint32_t kind = e.kind;
	int64_t written = kind == VSC_RMW ? e.new_value : e.value;

	/* a write's own value has its entry too (count_reads): it takes 0 */
	g->reads[c->offset + (uint64_t)e.value] -= kind != VSC_WRITE;
	c->value = kind == VSC_READ ? c->value : written;
}

/* run_event() for a read or a write (the packed forms hold no RMW) that
 * can_run() let run: a read reads the value memory holds, so its count is
 * the entry can_run() looked at, and memory holds e's value after either
 * (no select on the kind). */
static inline void run_plain(struct greedy_run *g, struct vsc_event e)
{
	struct cell *c = &g->cells[e.var];

	g->reads[c->offset + (uint64_t)c->value] -= e.kind == VSC_READ;
	c->value = e.value;
}

/* go() with the events packed as k (a constant where it is inlined). */
static inline __attribute__((always_inline)) uint32_t
go_events(struct greedy_run *g, uint32_t t, uint32_t most, struct cell *undo, enum packing k)
{
	const struct vsc_thread *th = &g->p->threads[t];
	uint32_t i = g->pos[t], end = th->length - i > most ? i + most : th->length, w = 0;
	struct vsc_event e;

	while (i < end && can_run(g, e = thread_event(th, k, i))) {
		if (undo && e.kind != VSC_READ)
			undo[w++] = g->cells[e.var];
		if (k == PACKING_NONE)
			run_event(g, e);
		else
			run_plain(g, e);
		i++;
	}
	most = i - g->pos[t];
	g->pos[t] = i;
	return most;
}

/* Thread t from its next event as far as it can go, at most `most`
 * events; with undo, each write's old cell is kept there (undo_thread()
 * takes the run back). Returns the events run. */
static inline __attribute__((always_inline)) uint32_t go(struct greedy_run *g, uint32_t t,
							 uint32_t most, struct cell *undo)
{
	return g->packed == PACKING_NARROW ? go_events(g, t, most, undo, PACKING_NARROW)
	       : g->packed == PACKING_WIDE ? go_events(g, t, most, undo, PACKING_WIDE)
					   : go_events(g, t, most, undo, PACKING_NONE);
}

/* Take back the last `ran` events of t that go() ran with undo. */
static void undo_thread(struct greedy_run *g, uint32_t t, uint32_t ran, const struct cell *undo)
{
	const struct vsc_thread *th = &g->p->threads[t];
	uint32_t w = 0;

	for (uint32_t i = g->pos[t] - ran; i < g->pos[t]; i++)
		w += thread_event(th, g->packed, i).kind != VSC_READ;
	while (ran--) {
		struct vsc_event e = thread_event(th, g->packed, --g->pos[t]);
		if (e.kind != VSC_READ)
			g->cells[e.var] = undo[--w];
		if (e.kind != VSC_WRITE)
			g->reads[g->cells[e.var].offset + (uint64_t)e.value]++;
	}
}

/* Thread t as far as it can go, at most `most` events, into the witness. */
static uint32_t run_thread(struct greedy_run *g, uint32_t t, uint32_t most)
{
	uint32_t ran = go(g, t, most, NULL);

	for (uint32_t j = 0; j < ran && g->witness; j++)
		g->witness[g->done + j] = t;
	g->done += ran;
	return ran;
}

static bool can_go_on(const struct greedy_run *g, uint32_t t)
{
	const struct vsc_thread *th = &g->p->threads[t];

	return g->pos[t] < th->length && can_run(g, thread_event(th, g->packed, g->pos[t]));
}

/* How far t can go from here, up to GREEDY_RUN_LOOK events (the state is
 * as before). */
static uint32_t look_ahead(struct greedy_run *g, uint32_t t)
{
	uint32_t ran = go(g, t, GREEDY_RUN_LOOK, g->undo);

	undo_thread(g, t, ran, g->undo);
	g->looked += ran;
	return ran;
}

/* The thread to switch to from t: of those that can go on, the first (in
 * turn after t, from t itself when first is 0) that can finish or go
 * GREEDY_RUN_LOOK events, else the one
 * that goes farthest; t itself when none can go on. A slice that ends
 * soon costs a preemption more, so a few looks ahead pay (up to
 * GREEDY_RUN_LOOKS_PER_EVENT events a run event in all; then the first
 * that can go on). */
static uint32_t next_thread(struct greedy_run *g, uint32_t t, uint32_t first)
{
	uint32_t k = program_threads(g->p), best = t, farthest = 0;

	for (uint32_t d = first; d < k; d++) {
		uint32_t u = (t + d) % k, ran;
		if (!can_go_on(g, u))
			continue;
		if (g->looked > GREEDY_RUN_LOOKS_PER_EVENT * g->p->event_count)
			return u;
		ran = look_ahead(g, u);
		if (ran == GREEDY_RUN_LOOK || g->pos[u] + ran == g->p->threads[u].length)
			return u;
		if (ran > farthest) {
			farthest = ran;
			best = u;
		}
	}
	return best;
}

/* Pass 3: the run itself, with at most `most` preemptions (-1: any).
 * Returns 0 when it completes, GREEDY_RUN_OPEN when it stops, -ETIME. */
static int run(struct greedy_run *g, struct budget *b, long most)
{
	const struct vsc_program *p = g->p;
	uint32_t t = 0;

	t = next_thread(g, t, 0);
	while (g->done < p->event_count) {
		uint32_t ran = run_thread(g, t, GREEDY_RUN_CHUNK);
		uint32_t u;
		if (ran && budget_spend(b, ran))
			return -ETIME;
		if (ran == GREEDY_RUN_CHUNK)
			continue;
		u = next_thread(g, t, 1);
		if (u == t)
			return g->done < p->event_count ? GREEDY_RUN_OPEN : 0;
		if (g->pos[t] < p->threads[t].length && ++g->preemptions > most && most >= 0)
			return GREEDY_RUN_OPEN;
		t = u;
	}
	return 0;
}

static bool applies(const struct vsc_program *p)
{
	return p->event_count > 0 && p->event_count <= UINT32_MAX &&
	       program_threads(p) <= GREEDY_RUN_THREADS;
}

int greedy_run_solve(const struct vsc_program *p, const struct query *q, struct budget *b,
		     struct vsc_result *res)
{
	struct greedy_run g = { .p = p };
	long most = q->minimize ? 0 : q->bound;
	int r = -ENOMEM;

	if (!applies(p))
		return GREEDY_RUN_OPEN;
	g.cells = calloc(program_vars(p) + 1, sizeof(*g.cells));
	g.pos = calloc(program_threads(p), sizeof(*g.pos));
	g.witness = q->want_witness ? malloc(p->event_count * sizeof(*g.witness)) : NULL;
	g.undo = malloc(GREEDY_RUN_LOOK * sizeof(*g.undo));
	if (g.cells && g.pos && (g.witness || !q->want_witness) && g.undo) {
		r = GREEDY_RUN_OPEN;
		g.packed = program_read_begin(p);
		if (start_cells(&g) && make_table(&g, &r) && count_reads(&g))
			r = run(&g, b, most);
		program_read_end(p);
	}
	if (r == 0) {
		res->verdict = VSC_CONSISTENT;
		res->witness = g.witness;
		res->witness_length = g.witness ? p->event_count : 0;
		res->preemptions = res->lower = g.preemptions;
		g.witness = NULL;
	}
	free(g.witness);
	free(g.undo);
	free(g.pos);
	zeroed_array_free(g.reads, g.entries * sizeof(*g.reads));
	free(g.cells);
	return r;
}
