/* SPDX-License-Identifier: MIT */
/* The source rule of a core: every read of a core keeps, among its events,
 * a source that the trace offers it, program order taken into account.
 *
 * The candidates of a read r of x with value v, in thread t, in the trace:
 *  - t's last write of x before r (call it h), if it writes v;
 *  - the initial value, if t writes x nowhere before r and the initial
 *    value may be v (`init x v`, or `init x ?`);
 *  - every write of v to x by another thread.
 * Why these: in any interleaving, r sees the last write of x before it, or
 * the initial value when there is none. t's writes before r come before r,
 * so h hides the initial value and t's earlier writes, and t's writes after
 * r come after it. Another thread's write may fall anywhere. An RMW is a
 * read here (its own write is not its source) and a write for the events
 * after it.
 *
 * A set S keeps a source for r when one of r's candidates is in S (the
 * initial value always is). So every source a core offers a read is one
 * the whole trace offers it: dropping events never makes a new one. That
 * is what a rule by the kept events alone would break: with `init x 0`
 * and a trace T1: w x 0; w x 1; r x 0 ... where another thread writes 0,
 * the set {T1: w x 1, r x 0} would let the initial value (or a dropped h
 * would let T1's older write of 0) stand in for the writes of 0 the
 * shrinking dropped, and be inconsistent only for that.
 *
 * When each read of a core has one candidate in the trace (values that
 * identify writes), the core keeps every source its reads can have, and
 * then any SC interleaving of the trace, cut down to the core, would be
 * one of the core: the core is a proof. With several candidates, it keeps
 * at least one: it shows the contradiction for the kept choices.
 *
 * A read that has no candidate even in the whole trace makes the trace
 * inconsistent on its own; the core then keeps what shows it: h, if there
 * is one, and some write of v, if the trace has one (its own thread's,
 * hidden by h or after it). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core_sources.h"
#include "userspace/util/sorted.h"

#define NONE UINT32_MAX

static const struct vsc_event *event_at(const struct vsc_program *p, struct vsc_event_ref r)
{
	return &p->threads[r.thread].events[r.index];
}

bool init_may_be(const struct vsc_program *p, const struct vsc_event *e)
{
	const struct vsc_var_init *init = &p->inits[e->var];
	return init->kind == VSC_INIT_UNKNOWN ||
	       (init->kind == VSC_INIT_KNOWN && init->value == e->value);
}

static int64_t value_written(const struct vsc_event *w)
{
	return w->kind == VSC_RMW ? w->new_value : w->value;
}

bool source_may_see(const struct vsc_program *p, struct vsc_event_ref r, uint32_t hider,
		    const struct vsc_event_ref *w)
{
	const struct vsc_event *e = event_at(p, r), *we;

	if (!w)
		return hider == NONE_HIDER && init_may_be(p, e);
	we = event_at(p, *w);
	if (we->kind == VSC_READ || we->var != e->var || value_written(we) != e->value)
		return false;
	return w->thread != r.thread || w->index == hider;
}

/* The index of r's thread's last write of r's variable before r. */
static uint32_t hider_of(const struct vsc_program *p, struct vsc_event_ref r)
{
	const struct vsc_event *ev = p->threads[r.thread].events;

	for (uint32_t k = r.index; k-- > 0;)
		if (ev[k].kind != VSC_READ && ev[k].var == ev[r.index].var)
			return k;
	return NONE_HIDER;
}

static bool ref_valid(const struct vsc_program *p, struct vsc_event_ref r)
{
	return r.thread < program_threads(p) && r.index < p->threads[r.thread].length;
}

bool vsc_read_may_see(const struct vsc_program *prog, struct vsc_event_ref read,
		      const struct vsc_event_ref *write)
{
	const struct vsc_event *w;

	if (!prog || !ref_valid(prog, read) || event_at(prog, read)->kind == VSC_WRITE ||
	    (write && !ref_valid(prog, *write)) ||
	    (write && write->thread == read.thread && write->index == read.index))
		return false;
	w = write ? event_at(prog, *write) : NULL;
	if (w && (w->kind == VSC_READ || w->var != event_at(prog, read)->var))
		return false; /* before the walk back to the hiding write: callers ask often */
	return source_may_see(prog, read, hider_of(prog, read), write);
}

static uint32_t next_gen(struct source_rule *r)
{
	if (++r->gen == 0) { /* wrapped: old stamps could match again */
		uint32_t np = r->a->npairs ? r->a->npairs : 1, nv = r->a->nvars ? r->a->nvars : 1;
		memset(r->all_stamp, 0, np * sizeof(uint32_t));
		memset(r->own_stamp, 0, np * sizeof(uint32_t));
		memset(r->last_stamp, 0, nv * sizeof(uint32_t));
		r->gen = 1;
	}
	return r->gen;
}

/* counts[q] under stamp gen, 0 when stamped otherwise. */
static uint32_t count_of(const uint32_t *stamp, const uint32_t *count, uint32_t q, uint32_t gen)
{
	return stamp[q] == gen ? count[q] : 0;
}

static void count_up(uint32_t *stamp, uint32_t *count, uint32_t q, uint32_t gen)
{
	count[q] = count_of(stamp, count, q, gen) + 1;
	stamp[q] = gen;
}

static const struct event_pairs *pairs_at(const struct source_rule *r, struct vsc_event_ref e)
{
	return &r->a->pairs[e.thread][e.index];
}

/* Whether the read e keeps a source: see the top of the file. own_gen
 * stamps the thread's counts and its last writes so far. */
static bool keeps_source(const struct source_rule *r, struct vsc_event_ref e, uint32_t all_gen,
			 uint32_t own_gen)
{
	const struct vsc_event *ev = event_at(r->p, e);
	uint32_t q = pairs_at(r, e)->read, h = r->hider[r->base[e.thread] + e.index];

	if (h == NONE ? init_may_be(r->p, ev)
		      : r->last_stamp[ev->var] == own_gen && r->last_flat[ev->var] == h &&
				r->last_pair[ev->var] == q)
		return true;
	return count_of(r->all_stamp, r->all_count, q, all_gen) >
	       count_of(r->own_stamp, r->own_count, q, own_gen);
}

/* The pair the event of flat number f writes. */
static uint32_t write_pair_of(const struct source_rule *r, uint32_t f)
{
	uint32_t t = last_at_most(r->base, 0, program_threads(r->p), f);
	return r->a->pairs[t][f - r->base[t]].write;
}

#define MANY_WRITERS (UINT32_MAX - 1) /* pair_writer: two threads or more */

/* Whether the read e (pair q) has a candidate in the whole program: h, if
 * it writes q; the initial value, when there is no h; another thread's
 * write of q. */
static bool candidate_anywhere(const struct source_rule *r, struct vsc_event_ref e, uint32_t q)
{
	uint32_t h = r->hider[r->base[e.thread] + e.index], w = r->pair_writer[q];

	if (w == MANY_WRITERS || (w != NONE && w != e.thread))
		return true;
	if (h == NONE)
		return init_may_be(r->p, event_at(r->p, e));
	return write_pair_of(r, h) == q;
}

bool source_rule_unsourced(const struct source_rule *r, struct vsc_event_ref e)
{
	uint32_t q = pairs_at(r, e)->read;

	return q != PAIR_NONE && !candidate_anywhere(r, e, q);
}

uint32_t source_rule_hider(const struct source_rule *r, struct vsc_event_ref e)
{
	uint32_t h = r->hider[r->base[e.thread] + e.index];

	return h == NONE ? NONE_HIDER : h - r->base[e.thread];
}

/* A read with no candidate in the whole trace: whether the set keeps h
 * and a write of its value (when the trace has them). */
static bool shows_no_source(const struct source_rule *r, struct vsc_event_ref e, uint32_t all_gen,
			    uint32_t own_gen)
{
	const struct event_pairs *ep = pairs_at(r, e);
	uint32_t var = event_at(r->p, e)->var, h = r->hider[r->base[e.thread] + e.index];
	uint32_t self = ep->write == ep->read;

	if (h != NONE && !(r->last_stamp[var] == own_gen && r->last_flat[var] == h))
		return false;
	return r->a->writes_of[ep->read] == self ||
	       count_of(r->all_stamp, r->all_count, ep->read, all_gen) > self;
}

size_t source_rule_lacking(struct source_rule *r, const struct vsc_event_ref *refs, size_t m,
			   uint32_t *bad, size_t most)
{
	uint32_t all_gen = next_gen(r);
	size_t nbad = 0;

	for (size_t i = 0; i < m; i++) {
		uint32_t q = pairs_at(r, refs[i])->write;
		if (q != PAIR_NONE)
			count_up(r->all_stamp, r->all_count, q, all_gen);
	}
	for (size_t from = 0, to; from < m && nbad < most; from = to) {
		uint32_t own_gen = next_gen(r);
		for (to = from; to < m && refs[to].thread == refs[from].thread; to++) {
			uint32_t q = pairs_at(r, refs[to])->write;
			if (q != PAIR_NONE)
				count_up(r->own_stamp, r->own_count, q, own_gen);
		}
		for (size_t i = from; i < to && nbad < most; i++) {
			const struct event_pairs *ep = pairs_at(r, refs[i]);
			uint32_t var = event_at(r->p, refs[i])->var;
			if (ep->read != PAIR_NONE && !keeps_source(r, refs[i], all_gen, own_gen) &&
			    (candidate_anywhere(r, refs[i], ep->read) ||
			     !shows_no_source(r, refs[i], all_gen, own_gen)))
				bad[nbad++] = (uint32_t)i;
			if (ep->write != PAIR_NONE) {
				r->last_stamp[var] = own_gen;
				r->last_pair[var] = ep->write;
				r->last_flat[var] = r->base[refs[i].thread] + refs[i].index;
			}
		}
	}
	return nbad;
}

/* For each read of p, its thread's last write of the variable before it. */
static void find_hiders(struct source_rule *r)
{
	const struct vsc_program *p = r->p;

	for (uint32_t t = 0; t < program_threads(p); t++) {
		uint32_t own_gen = next_gen(r);
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			uint32_t var = p->threads[t].events[i].var, f = r->base[t] + i;
			r->hider[f] = r->last_stamp[var] == own_gen ? r->last_flat[var] : NONE;
			if (r->a->pairs[t][i].write != PAIR_NONE) {
				r->last_stamp[var] = own_gen;
				r->last_flat[var] = f;
			}
		}
	}
}

/* Per pair, the one thread that writes it (MANY_WRITERS, NONE). */
static void find_pair_writers(struct source_rule *r)
{
	const struct vsc_program *p = r->p;

	memset(r->pair_writer, 0xff, (r->a->npairs ? r->a->npairs : 1) * sizeof(uint32_t));
	for (uint32_t t = 0; t < program_threads(p); t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			uint32_t q = r->a->pairs[t][i].write;
			if (q == PAIR_NONE || r->pair_writer[q] == t)
				continue;
			r->pair_writer[q] = r->pair_writer[q] == NONE ? t : MANY_WRITERS;
		}
}

int source_rule_init(struct source_rule *r, const struct vsc_program *p, const struct analysis *a)
{
	size_t np = a->npairs ? a->npairs : 1, nv = a->nvars ? a->nvars : 1;
	uint32_t k = program_threads(p);

	*r = (struct source_rule){ .p = p, .a = a };
	r->all_stamp = calloc(np, sizeof(uint32_t));
	r->all_count = malloc(np * sizeof(uint32_t));
	r->own_stamp = calloc(np, sizeof(uint32_t));
	r->own_count = malloc(np * sizeof(uint32_t));
	r->last_stamp = calloc(nv, sizeof(uint32_t));
	r->last_pair = malloc(nv * sizeof(uint32_t));
	r->last_flat = malloc(nv * sizeof(uint32_t));
	r->base = malloc(((size_t)k + 1) * sizeof(uint32_t));
	r->hider = malloc((p->event_count ? p->event_count : 1) * sizeof(uint32_t));
	r->pair_writer = malloc(np * sizeof(uint32_t));
	if (!r->all_stamp || !r->all_count || !r->own_stamp || !r->own_count || !r->last_stamp ||
	    !r->last_pair || !r->last_flat || !r->base || !r->hider || !r->pair_writer) {
		source_rule_free(r);
		return -ENOMEM;
	}
	r->base[0] = 0;
	for (uint32_t t = 0; t < k; t++)
		r->base[t + 1] = r->base[t] + p->threads[t].length;
	find_hiders(r);
	find_pair_writers(r);
	return 0;
}

void source_rule_free(struct source_rule *r)
{
	free(r->all_stamp);
	free(r->all_count);
	free(r->own_stamp);
	free(r->own_count);
	free(r->last_stamp);
	free(r->last_pair);
	free(r->last_flat);
	free(r->hider);
	free(r->pair_writer);
	free(r->base);
	*r = (struct source_rule){ 0 };
}
