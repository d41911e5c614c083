/* SPDX-License-Identifier: MIT */
/* One variable: a refutation from the orders every SC interleaving must
 * have (docs/solvers.md, "One hot variable": refutations). The witness
 * (hot_var.c) guesses each read's source; a refutation may not guess, so
 * it keeps, for each read, every write it may still see, and draws only
 * orders that hold whichever of them it sees:
 *
 *  - a source is ruled out when the read must come before it, or when
 *    another write must come after it and before the read;
 *  - with one source s left: s before the read, every write that must
 *    come before the read before s, every write that must come after s
 *    after the read (an RMW's one source is its own: no other RMW reads s);
 *  - with sources left in one thread only: the first of them before the
 *    read, and the same two rules for the last of them.
 *
 * Repeated to a fixpoint (or a cap): a read with no source left, or a
 * cycle among the orders, is a proof. The orders are kept as, per event
 * and thread, the events of that thread that must come before it (lo) and
 * the first one that must come after it (hi): a pass over the graph of
 * program order and the drawn orders each round. */
#include "hot_refute.h"

#include "writes_by_value.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define SOURCE_CAP 64 /* writes of a value looked at; a read of a more written value is left out */
#define ROUNDS 16     /* passes at most: each draws orders the one before could not */
#define READS_PER_LOOK 4096 /* events of a pass between looks at the budget */
/* and their work at most this many passes over every event and thread,
 * past a floor that lets small programs have every round */
#define ROUND_WORK 4
#define ROUND_WORK_FLOOR (1UL << 22)
#define EDGE_CAP 8                   /* drawn orders per event at most */
#define MEMORY_CAP ((size_t)1 << 28) /* k = 4: 2.4 M events */

struct drawn {
	uint32_t from, to;
};

struct refute {
	const struct vsc_program *p;
	uint32_t k;
	size_t n;
	size_t *base;         /* per thread + 1: its first event */
	uint32_t *thread;     /* per event */
	uint32_t *last_write; /* per event: place of its thread's last write at or before it */
	uint32_t *next_write; /* per event: place of its thread's first write at or after it */
	uint32_t *lo;         /* per event x thread: that thread's events that must come before */
	uint32_t *hi; /* per event x thread: the first place of it that must come after (length) */
	uint32_t *topo;     /* the events in an order of the graph */
	uint32_t *indegree; /* per event, while ordering */
	uint32_t *start;    /* per event + 1: its first drawn order in to */
	uint32_t *to;
	uint32_t *taken; /* per event, and n for the initial value: the RMW that reads it */
	struct writes_by_value w;
	struct drawn *edge;
	size_t edges, cap;
	size_t fresh; /* orders drawn in this round */
	int init_fixed;
	int64_t init_value;
	uint32_t cand[SOURCE_CAP]; /* the sources a read may still see */
};

static int64_t value_after(const struct vsc_event *e)
{
	return e->kind == VSC_RMW ? e->new_value : e->value;
}

static const struct vsc_event *event_of(const struct refute *r, uint32_t g)
{
	uint32_t t = r->thread[g];
	return &r->p->threads[t].events[g - r->base[t]];
}

static uint32_t place(const struct refute *r, uint32_t g)
{
	return (uint32_t)(g - r->base[r->thread[g]]);
}

static uint32_t length(const struct refute *r, uint32_t t)
{
	return (uint32_t)(r->base[t + 1] - r->base[t]);
}

/* Place of thread t's last write before place x, NONE. */
static uint32_t write_before(const struct refute *r, uint32_t t, uint32_t x)
{
	return x ? r->last_write[r->base[t] + x - 1] : NONE;
}

/* Place of thread t's first write at or after place x, NONE. */
static uint32_t write_from(const struct refute *r, uint32_t t, uint32_t x)
{
	return x < length(r, t) ? r->next_write[r->base[t] + x] : NONE;
}

/* Threads, places of writes, the writes by value. 0 or -ENOMEM. */
static int refute_index(struct refute *r)
{
	size_t n = r->n, k = r->k;

	r->base = malloc((k + 1) * sizeof(size_t));
	r->thread = malloc(n * sizeof(uint32_t));
	r->last_write = malloc(n * sizeof(uint32_t));
	r->next_write = malloc(n * sizeof(uint32_t));
	r->lo = malloc(n * k * sizeof(uint32_t));
	r->hi = malloc(n * k * sizeof(uint32_t));
	r->topo = malloc(n * sizeof(uint32_t));
	r->indegree = malloc(n * sizeof(uint32_t));
	r->start = malloc((n + 1) * sizeof(uint32_t));
	r->taken = malloc((n + 1) * sizeof(uint32_t));
	if (!r->base || !r->thread || !r->last_write || !r->next_write || !r->lo || !r->hi ||
	    !r->topo || !r->indegree || !r->start || !r->taken)
		return -ENOMEM;
	memset(r->taken, 0xff, (n + 1) * sizeof(uint32_t));
	r->base[0] = 0;
	for (uint32_t t = 0; t < k; t++) {
		const struct vsc_thread *th = &r->p->threads[t];
		size_t b = r->base[t];
		uint32_t last = NONE, next = NONE;
		r->base[t + 1] = b + th->length;
		for (uint32_t i = 0; i < th->length; i++) {
			r->thread[b + i] = t;
			if (th->events[i].kind != VSC_READ)
				last = i;
			r->last_write[b + i] = last;
		}
		for (uint32_t i = th->length; i-- > 0;) {
			if (th->events[i].kind != VSC_READ)
				next = i;
			r->next_write[b + i] = next;
		}
	}
	memset(r->lo, 0, n * k * sizeof(uint32_t)); /* no order yet (first_writer) */
	return writes_by_value_build(&r->w, r->p);
}

/* The drawn orders by their first event (start, to). */
static void index_edges(struct refute *r)
{
	memset(r->start, 0, (r->n + 1) * sizeof(uint32_t));
	for (size_t e = 0; e < r->edges; e++)
		r->start[r->edge[e].from + 1]++;
	for (size_t g = 0; g < r->n; g++)
		r->start[g + 1] += r->start[g];
	for (size_t e = 0; e < r->edges; e++)
		r->to[r->start[r->edge[e].from]++] = r->edge[e].to;
	for (size_t g = r->n; g > 0; g--) /* the fill moved each start to the next */
		r->start[g] = r->start[g - 1];
	r->start[0] = 0;
}

/* s follows g: what must come before g must come before s. */
static void pass_before(struct refute *r, uint32_t g, uint32_t s)
{
	uint32_t *from = r->lo + (size_t)g * r->k, *into = r->lo + (size_t)s * r->k;
	uint32_t t = r->thread[g], at = place(r, g) + 1;

	for (uint32_t j = 0; j < r->k; j++)
		into[j] = from[j] > into[j] ? from[j] : into[j];
	into[t] = at > into[t] ? at : into[t];
}

static void reach(struct refute *r, uint32_t g, uint32_t s, size_t *tail)
{
	pass_before(r, g, s);
	if (--r->indegree[s] == 0)
		r->topo[(*tail)++] = s;
}

/* lo, by Kahn's algorithm over program order and the drawn orders, and
 * topo. Returns 0, or 1 when they have a cycle. */
static int order_forward(struct refute *r)
{
	size_t tail = 0;

	for (size_t g = 0; g < r->n; g++)
		r->indegree[g] = place(r, (uint32_t)g) > 0;
	for (size_t e = 0; e < r->edges; e++)
		r->indegree[r->edge[e].to]++;
	memset(r->lo, 0, r->n * r->k * sizeof(uint32_t));
	for (uint32_t t = 0; t < r->k; t++)
		if (length(r, t) && r->indegree[r->base[t]] == 0)
			r->topo[tail++] = (uint32_t)r->base[t];
	for (size_t head = 0; head < tail; head++) {
		uint32_t g = r->topo[head];
		if (place(r, g) + 1 < length(r, r->thread[g]))
			reach(r, g, g + 1, &tail);
		for (uint32_t e = r->start[g]; e < r->start[g + 1]; e++)
			reach(r, g, r->to[e], &tail);
	}
	return tail != r->n;
}

/* g precedes s: what must come after s must come after g. */
static void pass_after(struct refute *r, uint32_t g, uint32_t s)
{
	uint32_t *from = r->hi + (size_t)s * r->k, *into = r->hi + (size_t)g * r->k;
	uint32_t t = r->thread[s], at = place(r, s);

	for (uint32_t j = 0; j < r->k; j++)
		into[j] = from[j] < into[j] ? from[j] : into[j];
	into[t] = at < into[t] ? at : into[t];
}

/* hi, backwards along topo. */
static void order_backward(struct refute *r)
{
	for (size_t g = 0; g < r->n; g++)
		for (uint32_t t = 0; t < r->k; t++)
			r->hi[g * r->k + t] = length(r, t);
	for (size_t j = r->n; j-- > 0;) {
		uint32_t g = r->topo[j];
		if (place(r, g) + 1 < length(r, r->thread[g]))
			pass_after(r, g, g + 1);
		for (uint32_t e = r->start[g]; e < r->start[g + 1]; e++)
			pass_after(r, g, r->to[e]);
	}
}

static int must_precede(const struct refute *r, uint32_t a, uint32_t b)
{
	return r->lo[(size_t)b * r->k + r->thread[a]] > place(r, a);
}

/* a before b, unless it is known. 0 or -ENOMEM. */
static int draw(struct refute *r, uint32_t a, uint32_t b)
{
	if (must_precede(r, a, b))
		return 0;
	if (r->edges == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 1024;
		struct drawn *e = realloc(r->edge, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		r->edge = e;
		r->cap = cap;
	}
	r->edge[r->edges++] = (struct drawn){ a, b };
	r->fresh++;
	return 0;
}

/* Is write s followed, before read g, by another write that must come
 * after s and before g? */
static int overwritten(const struct refute *r, uint32_t s, uint32_t g)
{
	const uint32_t *before = r->lo + (size_t)g * r->k, *after = r->hi + (size_t)s * r->k;

	for (uint32_t t = 0; t < r->k; t++) {
		uint32_t c = write_before(r, t, before[t]);
		if (c != NONE && r->base[t] + c != s && c >= after[t])
			return 1;
	}
	return 0;
}

/* May read g (of value v) see the initial value? */
static int may_see_init(const struct refute *r, uint32_t g, int64_t v)
{
	const struct vsc_var_init *in = &r->p->inits[0];

	if (in->kind == VSC_INIT_NONE || (in->kind == VSC_INIT_KNOWN && in->value != v) ||
	    (r->init_fixed && r->init_value != v))
		return 0;
	if (event_of(r, g)->kind == VSC_RMW && r->taken[r->n] != NONE && r->taken[r->n] != g)
		return 0;
	for (uint32_t t = 0; t < r->k; t++)
		if (write_before(r, t, r->lo[(size_t)g * r->k + t]) != NONE)
			return 0;
	return 1;
}

/* May read g (of thread u at place i) see write s? */
static int may_see(const struct refute *r, uint32_t s, uint32_t g)
{
	uint32_t u = r->thread[g], ts = r->thread[s], a = place(r, s);

	if (s == g || (ts == u && a != write_before(r, u, place(r, g))))
		return 0;
	if (a >= r->hi[(size_t)g * r->k + ts])
		return 0; /* g must come before it */
	if (event_of(r, g)->kind == VSC_RMW && r->taken[s] != NONE && r->taken[s] != g)
		return 0;
	return !overwritten(r, s, g);
}

/* Place of thread t's first write at or after place x other than read
 * g (an RMW), NONE. */
static uint32_t write_from_but(const struct refute *r, uint32_t t, uint32_t x, uint32_t g)
{
	uint32_t d = write_from(r, t, x);

	return d != NONE && r->base[t] + d == g ? write_from(r, t, d + 1) : d;
}

/* What every source of read g must come after, g comes after: in each
 * thread, the events before all of them. 0 or -ENOMEM. */
static int draw_meet_before(struct refute *r, uint32_t g, uint32_t count)
{
	for (uint32_t t = 0; t < r->k; t++) {
		uint32_t m = UINT32_MAX;
		for (uint32_t j = 0; j < count && m; j++) {
			uint32_t s = r->cand[j];
			uint32_t at =
				r->thread[s] == t ? place(r, s) + 1 : r->lo[(size_t)s * r->k + t];
			m = at < m ? at : m;
		}
		if (m && m != UINT32_MAX) {
			int e = draw(r, (uint32_t)(r->base[t] + m - 1), g);
			if (e)
				return e;
		}
	}
	return 0;
}

/* The writes that must come after every source of read g (init: it may
 * be the initial value, which every write follows) come after g: in each
 * thread, the latest of the first writes after each. 0 or -ENOMEM. */
static int draw_meet_after(struct refute *r, uint32_t g, uint32_t count, int init)
{
	for (uint32_t t = 0; t < r->k; t++) {
		uint32_t m = init ? write_from_but(r, t, 0, g) : 0;
		for (uint32_t j = 0; j < count && m != NONE; j++) {
			uint32_t s = r->cand[j];
			uint32_t d = write_from_but(r, t, r->hi[(size_t)s * r->k + t], g);
			m = d == NONE || d > m ? d : m;
		}
		if (m != NONE && r->hi[(size_t)g * r->k + t] > m) {
			int e = draw(r, g, (uint32_t)(r->base[t] + m));
			if (e)
				return e;
		}
	}
	return 0;
}

/* Every write other than those of thread skip that must come before read
 * g comes before s. 0 or -ENOMEM. */
static int draw_before(struct refute *r, uint32_t g, uint32_t s, uint32_t skip)
{
	for (uint32_t t = 0; t < r->k; t++) {
		uint32_t c = write_before(r, t, r->lo[(size_t)g * r->k + t]);
		int e;
		if (t == skip || c == NONE || r->base[t] + c == s)
			continue;
		if ((e = draw(r, (uint32_t)(r->base[t] + c), s)))
			return e;
	}
	return 0;
}

/* The sources read g (of value v) may still see into r->cand: how many,
 * or SOURCE_CAP + 1 when v has more writes than that. */
static uint32_t sources(struct refute *r, uint32_t g, int64_t v)
{
	size_t at, end;
	uint32_t count = 0;

	writes_of_value(&r->w, v, &at, &end);
	if (end - at > SOURCE_CAP)
		return SOURCE_CAP + 1;
	for (; at < end; at++) { /* by place in a thread */
		const struct value_write *s = &r->w.w[at];
		uint32_t e = (uint32_t)(r->base[s->thread] + s->at);
		if (may_see(r, e, g))
			r->cand[count++] = e;
	}
	return count;
}

/* What read g's possible sources force. Returns 0, 1 (none left:
 * refuted) or -ENOMEM. */
static int look_at_read(struct refute *r, uint32_t g)
{
	int64_t v = event_of(r, g)->value;
	uint32_t count = sources(r, g, v), last, one_thread = 1;
	int init = may_see_init(r, g, v), rmw = event_of(r, g)->kind == VSC_RMW, e = 0;

	if (count > SOURCE_CAP)
		return 0;
	if (!count && !init)
		return 1;
	last = count ? r->cand[count - 1] : NONE;
	for (uint32_t j = 0; j < count; j++)
		one_thread &= r->thread[r->cand[j]] == r->thread[last];
	if (!init && count && one_thread) /* what must precede g precedes the last */
		e = draw_before(r, g, last, count == 1 ? NONE : r->thread[last]);
	if (!count) {
		r->init_fixed = 1;
		r->init_value = v;
	}
	if (rmw && count + init == 1)
		r->taken[count ? last : r->n] = g;
	if (!e && !init)
		e = draw_meet_before(r, g, count);
	if (!e)
		e = draw_meet_after(r, g, count, init);
	return e;
}

/* May thread t, whose first write is at place f, write first of all: do
 * its reads before it (and an RMW's read at f) all see the initial value? */
static int may_write_first(const struct refute *r, uint32_t t, uint32_t f)
{
	const struct vsc_var_init *in = &r->p->inits[0];
	const struct vsc_event *e = r->p->threads[t].events;
	uint32_t reads = f + (e[f].kind == VSC_RMW);

	if (in->kind == VSC_INIT_NONE)
		return reads == 0;
	for (uint32_t i = 0; i < reads; i++)
		if (in->kind == VSC_INIT_KNOWN ? e[i].value != in->value : e[i].value != e[0].value)
			return 0;
	return 1;
}

/* The first write of an interleaving is some thread's first write, and
 * what runs before it sees the initial value: when no thread may write
 * first, there is none (1); when one thread only, its first write comes
 * before every other thread's. 0, 1 or -ENOMEM. */
static int first_writer(struct refute *r)
{
	uint32_t only = NONE, count = 0, writers = 0;
	int e = 0;

	for (uint32_t t = 0; t < r->k; t++) {
		uint32_t f = write_from(r, t, 0);
		if (f == NONE)
			continue;
		writers++;
		if (may_write_first(r, t, f)) {
			only = t;
			count++;
		}
	}
	if (writers && !count)
		return 1;
	for (uint32_t t = 0; count == 1 && t < r->k && !e; t++) {
		uint32_t f = write_from(r, t, 0);
		if (t != only && f != NONE)
			e = draw(r, (uint32_t)(r->base[only] + write_from(r, only, 0)),
				 (uint32_t)(r->base[t] + f));
	}
	return e;
}

struct access {
	int64_t value;
	uint32_t event;
	uint32_t write; /* 0: a read (an RMW's read comes first), 1: a write */
};

static int access_cmp(const void *a, const void *b)
{
	const struct access *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	return (x->write > y->write) - (x->write < y->write);
}

/* The accesses of one value v, by event (so by thread, then place). The
 * first write of v in an interleaving is some thread's first write of v,
 * and before it a read of v sees the initial value: when that cannot be
 * v, a thread that reads v before its first write of v does not write v
 * first. None may: refuted (1); one: its first write of v comes before
 * each other thread's first access of v (a read only when the initial
 * value cannot be v). 0, 1 or -ENOMEM. */
static int value_first_writer(struct refute *r, const struct access *a, size_t len)
{
	const struct vsc_var_init *in = &r->p->inits[0];
	int init = in->kind == VSC_INIT_UNKNOWN ||
		   (in->kind == VSC_INIT_KNOWN && in->value == a[0].value);
	uint32_t only = NONE, count = 0, writers = 0;
	int e = 0;

	for (size_t i = 0, j; i < len; i = j) {
		uint32_t t = r->thread[a[i].event], first = NONE, read_before = 0;
		for (j = i; j < len && r->thread[a[j].event] == t; j++)
			if (first == NONE && a[j].write)
				first = a[j].event;
			else if (first == NONE)
				read_before = 1;
		writers += first != NONE;
		if (first != NONE && (init || !read_before)) {
			only = first;
			count++;
		}
	}
	if (writers && !count)
		return 1;
	for (size_t i = 0, j; count == 1 && i < len && !e; i = j) {
		uint32_t t = r->thread[a[i].event];
		for (j = i; j < len && r->thread[a[j].event] == t; j++)
			if (t != r->thread[only] && (a[j].write || !init)) {
				e = draw(r, only, a[j].event);
				break;
			}
		while (j < len && r->thread[a[j].event] == t)
			j++;
	}
	return e;
}

/* value_first_writer() for each value. 0, 1 or -ENOMEM. */
static int first_writers_of_values(struct refute *r)
{
	struct access *a = malloc(2 * r->n * sizeof(*a));
	size_t m = 0;
	int e = 0;

	if (!a)
		return -ENOMEM;
	for (uint32_t g = 0; g < r->n; g++) {
		const struct vsc_event *ev = event_of(r, g);
		if (ev->kind != VSC_WRITE)
			a[m++] = (struct access){ ev->value, g, 0 };
		if (ev->kind != VSC_READ)
			a[m++] = (struct access){ value_after(ev), g, 1 };
	}
	qsort(a, m, sizeof(*a), access_cmp);
	for (size_t i = 0, j; i < m && !e; i = j) {
		for (j = i; j < m && a[j].value == a[i].value; j++)
			;
		e = value_first_writer(r, a + i, j - i);
	}
	free(a);
	return e;
}

static void refute_free(struct refute *r)
{
	free(r->base);
	free(r->thread);
	free(r->last_write);
	free(r->next_write);
	free(r->lo);
	free(r->hi);
	free(r->topo);
	free(r->indegree);
	free(r->start);
	free(r->to);
	free(r->taken);
	writes_by_value_free(&r->w);
	free(r->edge);
}

/* One round: the orders, then each read. Returns 0 (nothing new), 1
 * (refuted), 2 (new orders), or -errno. */
static int refute_round(struct refute *r, struct budget *b)
{
	uint32_t *to = realloc(r->to, (r->edges ? r->edges : 1) * sizeof(uint32_t));

	if (!to)
		return -ENOMEM;
	r->to = to;
	index_edges(r);
	if (order_forward(r))
		return 1;
	order_backward(r);
	if (budget_spend(b, (r->n + r->edges) * r->k))
		return -ETIME;
	r->fresh = 0;
	for (uint32_t g = 0; g < r->n; g++) {
		int e = event_of(r, g)->kind == VSC_WRITE ? 0 : look_at_read(r, g);
		if (e)
			return e;
		/* a pass over 2.4 M events takes a second or more: the clock is
		 * looked at along the way (--timeout 1 ended at 1.6 s at 10^6) */
		if ((g + 1) % READS_PER_LOOK == 0 && budget_spend(b, READS_PER_LOOK * r->k))
			return -ETIME;
	}
	if (budget_spend(b, (r->n % READS_PER_LOOK) * r->k))
		return -ETIME;
	return r->fresh ? 2 : 0;
}

int hot_refute(const struct vsc_program *p, struct budget *b)
{
	struct refute r = { .p = p, .n = p->event_count, .k = program_threads(p) };
	unsigned long work = 0;
	int e = 0;

	if (program_vars(p) != 1 || !r.n || r.n >= UINT32_MAX / 2 ||
	    (8 * (size_t)r.k + 80) * r.n > MEMORY_CAP)
		return HOT_REFUTE_OPEN;
	e = refute_index(&r);
	if (!e)
		e = first_writer(&r);
	if (!e)
		e = first_writers_of_values(&r);
	for (int round = 0; !e && round < ROUNDS; round++) {
		e = refute_round(&r, b);
		if (e != 2)
			break;
		e = 0;
		work += (r.n + r.edges) * r.k;
		if (r.edges > EDGE_CAP * r.n || work > ROUND_WORK * r.n * r.k + ROUND_WORK_FLOOR)
			break;
	}
	refute_free(&r);
	return e < 0 ? e : e == 1 ? HOT_REFUTED : HOT_REFUTE_OPEN;
}
