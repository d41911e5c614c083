/* SPDX-License-Identifier: MIT */
/* SAT encoding of "an SC interleaving with no preemption": every thread then
 * runs whole, so an interleaving is an order of the threads.
 *
 *  - o(a,b), a < b: thread a runs before thread b; transitivity forbids the
 *    two kinds of 3-cycles, which makes the tournament a total order;
 *  - inside a thread, a read after the thread's own write of the variable
 *    must see that write (checked here: a mismatch is the empty clause), and
 *    the reads before it all see one outside value;
 *  - for that outside read of x with value v by thread t: one of the
 *    selectors s(W) (W another thread whose last write of x is v) or s0 (the
 *    initial value is v, or x has `init x ?`) holds; s(W) -> W before t;
 *    s(W) and W before W' -> t before W' for every other writer W' of x;
 *    s0 -> t before every writer W' of x; two s0 of one `init x ?` variable
 *    that need different values exclude each other. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cnf.h"
#include "encode_events.h"
#include "solver.h"

#define MAX_ORDER_THREADS 1500 /* the transitivity clauses grow as the cube */

struct access {
	uint32_t var, thread; /* thread: index into the encoding's threads */
	int64_t value;
	int selector; /* for reads from the initial value: s0 */
};

static int compare_access(const void *a, const void *b)
{
	const struct access *x = a, *y = b;
	if (x->var != y->var)
		return x->var < y->var ? -1 : 1;
	return (x->thread > y->thread) - (x->thread < y->thread);
}

int order_lit(const struct order_encoding *o, uint32_t a, uint32_t b)
{
	/* variables 1.. are the pairs a < b in row order */
	uint32_t lo = a < b ? a : b, hi = a < b ? b : a, m = o->count;
	int var = (int)((uint64_t)lo * (2 * m - lo - 1) / 2 + (hi - lo - 1)) + 1;
	return a < b ? var : -var;
}

static void transitivity(struct cnf *f, const struct order_encoding *o)
{
	for (uint32_t a = 0; a < o->count; a++)
		for (uint32_t b = a + 1; b < o->count; b++)
			for (uint32_t c = b + 1; c < o->count; c++) {
				int ab = order_lit(o, a, b), bc = order_lit(o, b, c),
				    ac = order_lit(o, a, c);
				cnf_clause3(f, -ab, -bc, ac);
				cnf_clause3(f, ab, bc, -ac);
			}
}

/* The walk of collect(): per variable, what the current thread did. */
struct collector {
	uint32_t *stamp; /* thread + 1 seen */
	uint8_t *state;  /* 1: read outside, 2: own write */
	int64_t *value;
	size_t *entry; /* its write in writes */
	struct access *reads, *writes;
	size_t nreads, nwrites;
	int unsat;
};

/* Event e of thread i (in encoding order). */
static void collect_event(struct collector *c, uint32_t i, const struct vsc_event *e)
{
	uint32_t x = e->var;

	if (c->stamp[x] != i + 1) {
		c->stamp[x] = i + 1;
		c->state[x] = 0;
	}
	if (e->kind != VSC_WRITE) {
		if (c->state[x] == 0)
			c->reads[c->nreads++] = (struct access){ x, i, e->value, 0 };
		else if (c->value[x] != e->value)
			c->unsat = 1;
		if (c->state[x] == 0)
			c->state[x] = 1;
		c->value[x] = e->value;
	}
	if (e->kind != VSC_READ) {
		if (c->state[x] != 2) {
			c->entry[x] = c->nwrites;
			c->writes[c->nwrites++] = (struct access){ x, i, 0, 0 };
		}
		c->state[x] = 2;
		c->value[x] = e->kind == VSC_RMW ? e->new_value : e->value;
		c->writes[c->entry[x]].value = c->value[x];
	}
}

/* Outside reads and last writes of each thread; 0, or -errno. *unsat is
 * set when a thread's own accesses already contradict each other. */
static int collect(const struct vsc_program *p, const struct order_encoding *o,
		   struct access **reads, size_t *nreads, struct access **writes, size_t *nwrites,
		   int *unsat)
{
	size_t nv = program_vars(p) ? program_vars(p) : 1;
	size_t n = p->event_count ? p->event_count : 1;
	struct collector c = {
		.stamp = calloc(nv, sizeof(*c.stamp)),
		.state = calloc(nv, 1),
		.value = calloc(nv, sizeof(*c.value)),
		.entry = calloc(nv, sizeof(*c.entry)),
		.reads = malloc(n * sizeof(*c.reads)),
		.writes = malloc(n * sizeof(*c.writes)),
	};
	int err = -ENOMEM;

	if (c.stamp && c.state && c.value && c.entry && c.reads && c.writes) {
		for (uint32_t i = 0; i < o->count; i++) {
			const struct vsc_thread *th = &p->threads[o->threads[i]];
			for (uint32_t j = 0; j < th->length; j++)
				collect_event(&c, i, &th->events[j]);
		}
		qsort(c.reads, c.nreads, sizeof(*c.reads), compare_access);
		qsort(c.writes, c.nwrites, sizeof(*c.writes), compare_access);
		err = 0;
	}
	free(c.stamp);
	free(c.state);
	free(c.value);
	free(c.entry);
	*reads = c.reads;
	*writes = c.writes;
	*nreads = c.nreads;
	*nwrites = c.nwrites;
	if (c.unsat)
		*unsat = 1;
	return err;
}

/* The writers of variable x: [*first, *last) in writes (sorted by var). */
static void writers_of(const struct access *writes, size_t nwrites, uint32_t x, size_t *first,
		       size_t *last)
{
	size_t lo = 0, hi = nwrites;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (writes[mid].var < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (hi < nwrites && writes[hi].var == x)
		hi++;
	*last = hi;
}

static void encode_read(const struct vsc_program *p, struct cnf *f, const struct order_encoding *o,
			struct access *r, const struct access *writes, size_t first, size_t last)
{
	uint8_t init = p->inits[r->var].kind;
	int *sel = malloc((last - first + 1) * sizeof(*sel));
	size_t nsel = 0;

	if (!sel) {
		f->failed = 1;
		return;
	}
	for (size_t w = first; w < last; w++) {
		if (writes[w].thread == r->thread || writes[w].value != r->value)
			continue;
		int s = cnf_new_var(f);
		sel[nsel++] = s;
		cnf_clause2(f, -s, order_lit(o, writes[w].thread, r->thread));
		for (size_t v = first; v < last; v++)
			if (v != w && writes[v].thread != r->thread)
				cnf_clause3(f, -s,
					    -order_lit(o, writes[w].thread, writes[v].thread),
					    order_lit(o, r->thread, writes[v].thread));
	}
	if (init == VSC_INIT_UNKNOWN ||
	    (init == VSC_INIT_KNOWN && p->inits[r->var].value == r->value)) {
		int s = cnf_new_var(f);
		sel[nsel++] = s;
		r->selector = s;
		for (size_t v = first; v < last; v++)
			if (writes[v].thread != r->thread)
				cnf_clause2(f, -s, order_lit(o, r->thread, writes[v].thread));
	}
	for (size_t i = 0; i < nsel; i++)
		cnf_add(f, sel[i]);
	cnf_add(f, 0);
	free(sel);
}

int encode_no_preemption(const struct vsc_program *p, struct cnf *f, struct order_encoding *o,
			 int with_transitivity, struct budget *b)
{
	struct access *reads = NULL, *writes = NULL;
	size_t nreads, nwrites;
	int unsat = 0, err;

	memset(f, 0, sizeof(*f));
	o->count = 0;
	o->threads = malloc((program_threads(p) ? program_threads(p) : 1) * sizeof(uint32_t));
	if (!o->threads)
		return -ENOMEM;
	for (uint32_t t = 0; t < program_threads(p); t++)
		if (p->threads[t].length)
			o->threads[o->count++] = t;
	if (o->count > MAX_ORDER_THREADS)
		return -E2BIG;
	f->nvars = (int)((uint64_t)o->count * (o->count - (o->count > 0)) / 2);
	if ((err = collect(p, o, &reads, &nreads, &writes, &nwrites, &unsat)))
		goto out;
	if (unsat)
		cnf_add(f, 0); /* the empty clause */
	if (with_transitivity)
		transitivity(f, o);
	for (size_t i = 0; i < nreads; i++) {
		size_t first, last, before = f->count;
		writers_of(writes, nwrites, reads[i].var, &first, &last);
		encode_read(p, f, o, &reads[i], writes, first, last);
		if (b && budget_spend(b, f->count - before + 1)) {
			err = -ETIME;
			goto out;
		}
		/* the clauses and the solver they go to past the memory limit,
		 * as encode_events.c counts them: too big, the caller searches
		 * (one variable written by 1,500 threads of 10^6 events makes
		 * billions of literals) */
		if (b && f->count > b->memory_limit / (SAT_BYTES_PER_LIT + sizeof(int))) {
			err = -E2BIG;
			goto out;
		}
	}
	for (size_t i = 0; i < nreads; i++)
		for (size_t j = i + 1; j < nreads && reads[j].var == reads[i].var; j++)
			if (reads[i].selector && reads[j].selector &&
			    reads[i].value != reads[j].value)
				cnf_clause2(f, -reads[i].selector, -reads[j].selector);
	err = f->failed ? -ENOMEM : 0;
out:
	free(reads);
	free(writes);
	return err;
}
