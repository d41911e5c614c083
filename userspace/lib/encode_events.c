/* SPDX-License-Identifier: MIT */
/* What the orders over events share (encode_events.h): the events, the
 * writes of each variable, and "each read sees one write":
 *
 *  - each read r of x with value v (a read, or the read of an RMW) sees
 *    one write: one selector s(r,w) per write w of x with the value v
 *    (not r itself, not a write of r's thread after r, and of r's own
 *    thread only its last write of x before r), or s0(r) for the initial
 *    value (when v is it, or x has `init x ?`, and r's thread has not
 *    written x before r). s(r,w) -> o(w,r), and for every other write w'
 *    of x: s(r,w) and o(w,w') -> o(r,w'); s0(r) -> o(r,w') for every
 *    write w' of x. The reads of an `init x ?` variable that see its
 *    initial value agree on it: s0(r) -> i(x,v), at most one i(x,v) per x.
 *
 * With o a total order of the events that keeps program order, these
 * hold exactly when every read sees the value of the last write of its
 * variable before it (or the initial value): the order is an SC
 * interleaving. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "encode_events.h"

/* Beyond this many events every order is past any memory limit worth
 * having (n^2 pair variables, or n x threads slot variables). */
#define MAX_EVENTS 30000

const struct vsc_event *event_at(const struct event_encoding *e, uint32_t a)
{
	uint32_t t = e->thread[a];
	return &e->p->threads[t].events[a - e->start[t]];
}

static int64_t written(const struct vsc_event *ev)
{
	return ev->kind == VSC_RMW ? ev->new_value : ev->value;
}

void event_clause(struct event_encoding *e, const int *lits, int n)
{
	e->lits += (size_t)n + 1;
	if (e->lits <= e->max_lits)
		sat_clause(e->s, lits, n);
}

void event_clause2(struct event_encoding *e, int a, int b)
{
	int lits[2] = { a, b };
	event_clause(e, lits, 2);
}

void event_clause3(struct event_encoding *e, int a, int b, int c)
{
	int lits[3] = { a, b, c };
	event_clause(e, lits, 3);
}

int events_done(const struct event_encoding *e)
{
	return e->lits > e->max_lits ? -E2BIG : 0;
}

int events_reserve(struct event_encoding *e, uint64_t vars)
{
	uint64_t room = vars * (SAT_BYTES_PER_VAR / SAT_BYTES_PER_LIT);

	if (vars >= INT32_MAX / 2 - (uint64_t)e->nvars || room >= e->max_lits)
		return -E2BIG;
	e->max_lits -= room;
	return 0;
}

static int list_writes(struct event_encoding *e, struct write_lists *w)
{
	uint32_t nv = program_vars(e->p), *last = malloc((nv + 1) * sizeof(*last));
	uint32_t *seen = calloc(nv + 1, sizeof(*seen)); /* thread + 1 that set last[x] */

	w->wstart = calloc(nv + 2, sizeof(*w->wstart));
	w->writes = malloc((e->n + 1) * sizeof(*w->writes));
	w->own = malloc((e->n + 1) * sizeof(*w->own));
	w->windex = malloc((e->n + 1) * sizeof(*w->windex));
	if (!last || !seen || !w->wstart || !w->writes || !w->own || !w->windex) {
		free(last);
		free(seen);
		return -ENOMEM;
	}
	for (uint32_t a = 0; a < e->n; a++) {
		const struct vsc_event *ev = event_at(e, a);
		uint32_t x = ev->var;
		w->own[a] = seen[x] == e->thread[a] + 1 ? last[x] : NONE;
		if (ev->kind != VSC_READ) {
			seen[x] = e->thread[a] + 1;
			last[x] = a;
			w->wstart[x + 2]++;
		}
	}
	for (uint32_t x = 0; x < nv; x++)
		w->wstart[x + 2] += w->wstart[x + 1];
	for (uint32_t a = 0; a < e->n; a++)
		if (event_at(e, a)->kind != VSC_READ)
			w->writes[w->wstart[event_at(e, a)->var + 1]++] = a;
	for (uint32_t x = 0; x < nv; x++)
		for (uint32_t i = w->wstart[x]; i < w->wstart[x + 1]; i++)
			w->windex[w->writes[i]] = i - w->wstart[x];
	free(last);
	free(seen);
	return 0;
}

int events_number(const struct vsc_program *p, struct event_encoding *e, struct sat_backend *s,
		  struct budget *b)
{
	uint32_t k = program_threads(p), a = 0;

	*e = (struct event_encoding){ .p = p,
				      .s = s,
				      .max_lits = b->memory_limit / SAT_BYTES_PER_LIT };
	if (p->event_count > MAX_EVENTS)
		return -E2BIG;
	e->n = (uint32_t)p->event_count;
	e->thread = malloc((e->n + 1) * sizeof(*e->thread));
	e->end = malloc((e->n + 1) * sizeof(*e->end));
	e->start = malloc((k + 1) * sizeof(*e->start));
	if (!e->thread || !e->end || !e->start)
		return -ENOMEM;
	for (uint32_t t = 0; t < k; t++) {
		e->start[t] = a;
		e->threads += p->threads[t].length > 0;
		for (uint32_t i = 0; i < p->threads[t].length; i++, a++) {
			e->thread[a] = t;
			e->end[a] = e->start[t] + p->threads[t].length;
		}
	}
	return list_writes(e, &e->wl);
}

void event_encoding_free(struct event_encoding *e)
{
	free(e->thread);
	free(e->end);
	free(e->start);
	free(e->wl.wstart);
	free(e->wl.writes);
	free(e->wl.own);
	free(e->wl.windex);
	memset(e, 0, sizeof(*e));
}

static int is_write(const struct event_encoding *e, uint32_t a)
{
	return event_at(e, a)->kind != VSC_READ;
}

int pair_rows_init(struct pair_rows *r, const struct event_encoding *e)
{
	uint64_t total = 0;

	*r = (struct pair_rows){ NULL, NULL, 0 };
	if (!(r->row = malloc((e->n + 1) * sizeof(*r->row))))
		return -ENOMEM;
	for (uint32_t a = 0; a < e->n; a++) {
		uint32_t x = event_at(e, a)->var;
		r->row[a] = total;
		total += e->wl.wstart[x + 1] - e->wl.wstart[x];
	}
	r->total = total;
	if (total > e->max_lits)
		return -E2BIG;
	r->pair = calloc(total + 1, sizeof(*r->pair));
	return r->pair ? 0 : -ENOMEM;
}

void pair_rows_free(struct pair_rows *r)
{
	free(r->row);
	free(r->pair);
	r->row = NULL;
	r->pair = NULL;
}

int pair_rows_lit(const struct pair_rows *r, const struct event_encoding *e, uint32_t a, uint32_t b,
		  int (*make)(void *ctx, uint32_t row, uint32_t col), void *ctx)
{
	uint32_t row = a, col = b;
	int *at;

	if (e->thread[a] == e->thread[b])
		return a < b ? LIT_TRUE : LIT_FALSE;
	if (is_write(e, a) && (!is_write(e, b) || b < a)) {
		row = b;
		col = a;
	}
	at = &r->pair[r->row[row] + e->wl.windex[col]];
	if (!*at)
		*at = make(ctx, row, col);
	if (*at == LIT_TRUE)
		return LIT_TRUE; /* made none: out of memory */
	return row == a ? *at : -*at;
}

/* s(r,w): w comes before r, and no other write of x between them. Of a
 * thread's writes after w only its first needs a clause (the others come
 * after it), and of r's own thread only its last write before r. */
static void encode_source(struct event_encoding *e, uint32_t r, uint32_t w, int s)
{
	uint32_t x = event_at(e, r)->var, tw = e->thread[w], tr = e->thread[r];
	uint32_t first_after_w = NONE;

	event_clause2(e, -s, e->order(e->order_ctx, w, r));
	for (uint32_t i = e->wl.wstart[x]; i < e->wl.wstart[x + 1]; i++) {
		uint32_t v = e->wl.writes[i];
		if (v == w || v == r || (e->thread[v] == tr && v != e->wl.own[r]))
			continue;
		if (e->thread[v] == tw && tw != tr) {
			if (v < w || first_after_w != NONE)
				continue;
			first_after_w = v;
		}
		event_clause3(e, -s, -e->order(e->order_ctx, w, v), e->order(e->order_ctx, r, v));
	}
}

/* s0(r): r comes before every write of x (of each other thread its first
 * write is enough; r's own thread has none before r). */
static void encode_initial(struct event_encoding *e, uint32_t r, int s)
{
	uint32_t x = event_at(e, r)->var, prev_thread = NONE;

	for (uint32_t i = e->wl.wstart[x]; i < e->wl.wstart[x + 1]; i++) {
		uint32_t v = e->wl.writes[i];
		if (v == r || e->thread[v] == prev_thread)
			continue;
		prev_thread = e->thread[v];
		event_clause2(e, -s, e->order(e->order_ctx, r, v));
	}
}

/* A read of `init x ?` that may see the initial value: s0 -> i(x, value). */
struct unknown_initial {
	uint32_t var;
	int64_t value;
	int s0;
};

static int compare_unknown(const void *a, const void *b)
{
	const struct unknown_initial *x = a, *y = b;
	if (x->var != y->var)
		return x->var < y->var ? -1 : 1;
	return (x->value > y->value) - (x->value < y->value);
}

/* The initial value of an `init x ?` variable is one value: i(x,v) for
 * each value read from it (u sorted by variable and value, each group
 * given its own i), at most one i per variable. */
static void encode_unknown_initials(struct event_encoding *e, struct unknown_initial *u, size_t n)
{
	size_t group = 0; /* first entry of the current group: its i in u[group].s0 */
	size_t first_of_var = 0;

	qsort(u, n, sizeof(*u), compare_unknown);
	for (size_t i = 0; i < n; i++) {
		int s0 = u[i].s0;
		if (i == 0 || u[i].var != u[i - 1].var || u[i].value != u[i - 1].value) {
			if (i == 0 || u[i].var != u[i - 1].var)
				first_of_var = i;
			group = i;
			u[i].s0 = ++e->nvars; /* i(x,v); entries of earlier groups hold theirs */
			for (size_t j = first_of_var; j < i; j++)
				if (j == first_of_var || u[j].value != u[j - 1].value)
					event_clause2(e, -u[i].s0, -u[j].s0);
		}
		event_clause2(e, -s0, u[group].s0);
	}
}

/* Every read sees one write, or the initial value. */
int encode_reads_from(struct event_encoding *e, struct budget *b)
{
	const struct vsc_program *p = e->p;
	struct unknown_initial *unknown = malloc((e->n + 1) * sizeof(*unknown));
	int *sel = malloc((e->n + 2) * sizeof(*sel));
	size_t nunknown = 0;
	int err = 0;

	if (!unknown || !sel)
		err = -ENOMEM;
	for (uint32_t r = 0; r < e->n && !err; r++) {
		const struct vsc_event *ev = event_at(e, r);
		uint32_t x = ev->var, first = e->wl.wstart[x], last = e->wl.wstart[x + 1];
		const struct vsc_var_init *init = &p->inits[x];
		size_t lits_before = e->lits;
		int nsel = 0;

		if (ev->kind == VSC_WRITE)
			continue;
		if (budget_spend(b, (unsigned long)(last - first) * (last - first + 1))) {
			err = -ETIME;
			break;
		}
		for (uint32_t i = first; i < last; i++) {
			uint32_t w = e->wl.writes[i];
			if (w == r || written(event_at(e, w)) != ev->value ||
			    (e->thread[w] == e->thread[r] && w != e->wl.own[r]))
				continue;
			sel[nsel] = ++e->nvars;
			encode_source(e, r, w, sel[nsel++]);
		}
		if (e->wl.own[r] == NONE &&
		    (init->kind == VSC_INIT_UNKNOWN ||
		     (init->kind == VSC_INIT_KNOWN && init->value == ev->value))) {
			sel[nsel] = ++e->nvars;
			encode_initial(e, r, sel[nsel]);
			if (init->kind == VSC_INIT_UNKNOWN)
				unknown[nunknown++] =
					(struct unknown_initial){ x, ev->value, sel[nsel] };
			nsel++;
		}
		event_clause(e, sel, nsel); /* none: the empty clause */
		if (budget_spend(b, (unsigned long)(e->lits - lits_before))) {
			err = -ETIME; /* what the read's pairs cost (2 clauses a slot each) */
			break;
		}
	}
	if (!err)
		encode_unknown_initials(e, unknown, nunknown);
	free(unknown);
	free(sel);
	return err;
}
