/* SPDX-License-Identifier: MIT */
/* Narrowing a read's candidate sources by orders every SC interleaving of
 * the whole trace keeps.
 *
 * The forced orders used: program order, and reads-from where the source
 * rule (core_sources.c) leaves a read r one candidate, a write w of
 * another thread (the value's only write in the trace, no own write of it
 * hiding, no initial value that may be it): in every SC interleaving r
 * sees a candidate, so w comes before r. Their transitive closure, e ≺ f,
 * holds in every SC interleaving of the trace (so in every one within a
 * preemption bound).
 *
 * A candidate w (thread u) of a read r of x (thread t != u), with h the
 * last write of x by t before r, is dropped when
 *  (1) r ≺ w: w would come after r;
 *  (2) w ≺ h: h, before r in program order, falls between w and r;
 *  (3) w' ≺ r, where w' is u's next write of x after w: w' falls between
 *      w and r (it comes after w in program order).
 * In each case, in every SC interleaving of the trace, w is not the last
 * write of x before r, so r does not see it. So every source some SC
 * interleaving of the trace gives r is kept (tests/unit/test_explain.c
 * checks that by enumerating the interleavings of random programs).
 *
 * Each look at a read walks the reads-from orders back from it and from h,
 * and forward from it, a thread's frontier at a time (each order at most
 * once per walk): linear in those orders, not in the trace. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "source_narrow.h"
#include "userspace/util/sorted.h"

#define NONE UINT32_MAX
#define MANY (UINT32_MAX - 1)

static struct vsc_event_ref ref_of(const struct source_narrow *n, uint32_t f)
{
	uint32_t t = last_at_most(n->rule->base, 0, program_threads(n->p), f);
	return (struct vsc_event_ref){ t, f - n->rule->base[t] };
}

static uint32_t flat_of(const struct source_narrow *n, struct vsc_event_ref r)
{
	return n->rule->base[r.thread] + r.index;
}

/* Per pair, the flat number of its one write (NONE, MANY). */
static uint32_t *single_writers(const struct source_narrow *n)
{
	const struct vsc_program *p = n->p;
	uint32_t *w = malloc((n->a->npairs ? n->a->npairs : 1) * sizeof(uint32_t));

	if (!w)
		return NULL;
	memset(w, 0xff, (n->a->npairs ? n->a->npairs : 1) * sizeof(uint32_t));
	for (uint32_t t = 0; t < program_threads(p); t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			uint32_t q = n->a->pairs[t][i].write;
			if (q != PAIR_NONE)
				w[q] = w[q] == NONE ? n->rule->base[t] + i : MANY;
		}
	return w;
}

/* The one candidate of the read (t, i), when it is another thread's
 * write: its flat number, else NONE. */
static uint32_t only_source(const struct source_narrow *n, const uint32_t *single, uint32_t t,
			    uint32_t i)
{
	uint32_t q = n->a->pairs[t][i].read, h = n->rule->hider[n->rule->base[t] + i], s;

	if (q == PAIR_NONE)
		return NONE;
	if (h != NONE) {
		struct vsc_event_ref hr = ref_of(n, h);
		if (n->a->pairs[hr.thread][hr.index].write == q)
			return NONE; /* its own write is a candidate */
	} else if (init_may_be(n->p, &n->p->threads[t].events[i])) {
		return NONE;
	}
	s = single[q];
	if (s == NONE || s == MANY || ref_of(n, s).thread == t)
		return NONE;
	return s;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The orders out of each thread, sorted by the source's index. */
static int sort_out_edges(struct source_narrow *n)
{
	uint32_t k = program_threads(n->p), e = n->out_off[k];
	uint64_t *tmp = malloc((e ? e : 1) * sizeof(uint64_t));

	if (!tmp)
		return -ENOMEM;
	for (uint32_t j = 0; j < e; j++)
		tmp[j] = (uint64_t)n->out_at[j] << 32 | n->out_to[j];
	for (uint32_t t = 0; t < k; t++)
		qsort(tmp + n->out_off[t], n->out_off[t + 1] - n->out_off[t], sizeof(uint64_t),
		      compare_u64);
	for (uint32_t j = 0; j < e; j++) {
		n->out_at[j] = (uint32_t)(tmp[j] >> 32);
		n->out_to[j] = (uint32_t)tmp[j];
	}
	free(tmp);
	return 0;
}

/* The reads-from orders, by the thread they go into and out of. */
static int build_edges(struct source_narrow *n, const uint32_t *single)
{
	const struct vsc_program *p = n->p;
	uint32_t k = program_threads(p), e = 0, *fill;

	n->in_off = calloc((size_t)k + 1, sizeof(uint32_t));
	n->out_off = calloc((size_t)k + 2, sizeof(uint32_t));
	if (!n->in_off || !n->out_off)
		return -ENOMEM;
	for (uint32_t t = 0; t < k; t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			uint32_t s = only_source(n, single, t, i);
			if (s == NONE)
				continue;
			n->in_off[t + 1]++;
			n->out_off[ref_of(n, s).thread + 2]++;
			e++;
		}
	for (uint32_t t = 0; t < k; t++) {
		n->in_off[t + 1] += n->in_off[t];
		n->out_off[t + 2] += n->out_off[t + 1];
	}
	n->in_at = malloc((e ? e : 1) * sizeof(uint32_t));
	n->in_from = malloc((e ? e : 1) * sizeof(uint32_t));
	n->out_at = malloc((e ? e : 1) * sizeof(uint32_t));
	n->out_to = malloc((e ? e : 1) * sizeof(uint32_t));
	if (!n->in_at || !n->in_from || !n->out_at || !n->out_to)
		return -ENOMEM;
	fill = n->out_off + 1; /* counts up to its final offsets */
	for (uint32_t t = 0, j = 0; t < k; t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			uint32_t s = only_source(n, single, t, i), o;
			if (s == NONE)
				continue;
			n->in_at[j] = i;
			n->in_from[j++] = s;
			o = fill[ref_of(n, s).thread]++;
			n->out_at[o] = ref_of(n, s).index;
			n->out_to[o] = n->rule->base[t] + i;
		}
	return sort_out_edges(n);
}

/* Per event, its thread's next write of its variable (an index), or NONE. */
static int find_next_writes(struct source_narrow *n)
{
	const struct vsc_program *p = n->p;
	uint32_t nv = program_vars(p) ? program_vars(p) : 1;
	uint32_t *last = malloc(nv * sizeof(uint32_t));

	n->next_write = malloc((p->event_count ? p->event_count : 1) * sizeof(uint32_t));
	if (!last || !n->next_write) {
		free(last);
		return -ENOMEM;
	}
	for (uint32_t t = 0; t < program_threads(p); t++) {
		memset(last, 0xff, nv * sizeof(uint32_t));
		for (uint32_t i = p->threads[t].length; i-- > 0;) {
			uint32_t v = p->threads[t].events[i].var;
			n->next_write[n->rule->base[t] + i] = last[v];
			if (n->a->pairs[t][i].write != PAIR_NONE)
				last[v] = i;
		}
	}
	free(last);
	return 0;
}

static int frontier_init(struct frontier *f, uint32_t k)
{
	f->at = malloc((k ? k : 1) * sizeof(uint32_t));
	f->stamp = calloc(k ? k : 1, sizeof(uint32_t));
	f->ptr = malloc((k ? k : 1) * sizeof(uint32_t));
	f->gen = 0;
	return f->at && f->stamp && f->ptr ? 0 : -ENOMEM;
}

static void frontier_free(struct frontier *f)
{
	free(f->at);
	free(f->stamp);
	free(f->ptr);
}

int source_narrow_init(struct source_narrow *n, const struct vsc_program *p,
		       const struct analysis *a, const struct source_rule *rule)
{
	uint32_t k = program_threads(p), *single;
	int err;

	*n = (struct source_narrow){ .p = p, .a = a, .rule = rule };
	single = single_writers(n);
	err = single ? build_edges(n, single) : -ENOMEM;
	free(single);
	n->queue = malloc((k ? k : 1) * sizeof(uint32_t));
	n->queued = calloc(k ? k : 1, 1);
	if (!err && (!n->queue || !n->queued))
		err = -ENOMEM;
	if (!err)
		err = find_next_writes(n);
	if (!err)
		err = frontier_init(&n->before_read, k);
	if (!err)
		err = frontier_init(&n->before_hider, k);
	if (!err)
		err = frontier_init(&n->after_read, k);
	if (!err && source_clocks_build(n) < 0)
		err = -ENOMEM;
	if (err)
		source_narrow_free(n);
	return err;
}

void source_narrow_free(struct source_narrow *n)
{
	free(n->in_off);
	free(n->in_at);
	free(n->in_from);
	free(n->out_off);
	free(n->out_at);
	free(n->out_to);
	free(n->next_write);
	free(n->in_clock);
	free(n->out_clock);
	free(n->queue);
	free(n->queued);
	frontier_free(&n->before_read);
	frontier_free(&n->before_hider);
	frontier_free(&n->after_read);
	*n = (struct source_narrow){ 0 };
}

static void next_gen(struct frontier *f, uint32_t k)
{
	if (++f->gen == 0) { /* wrapped: old stamps could match again */
		memset(f->stamp, 0, (k ? k : 1) * sizeof(uint32_t));
		f->gen = 1;
	}
}

/* Move thread t's frontier to i when that is further (later before,
 * earlier after); queue t when it moved. */
static void reach(struct source_narrow *n, struct frontier *f, bool back, uint32_t t, uint32_t i,
		  uint32_t *nqueued)
{
	if (f->stamp[t] != f->gen) {
		f->stamp[t] = f->gen;
		f->ptr[t] = back ? n->in_off[t] : n->out_off[t + 1];
	} else if (back ? i <= f->at[t] : i >= f->at[t]) {
		return;
	}
	f->at[t] = i;
	if (!n->queued[t]) {
		n->queued[t] = 1;
		n->queue[(*nqueued)++] = t;
	}
}

/* Everything forced before (back) or after the event e, per thread. A
 * thread is queued again only when its frontier moved, and its pointer
 * into its orders never goes back: each order is looked at once. */
static void walk(struct source_narrow *n, struct frontier *f, bool back, struct vsc_event_ref e)
{
	uint32_t nqueued = 0;

	next_gen(f, program_threads(n->p));
	reach(n, f, back, e.thread, e.index, &nqueued);
	while (nqueued) {
		uint32_t t = n->queue[--nqueued];
		n->queued[t] = 0;
		n->work++;
		if (back) {
			while (f->ptr[t] < n->in_off[t + 1] && n->in_at[f->ptr[t]] <= f->at[t]) {
				struct vsc_event_ref s = ref_of(n, n->in_from[f->ptr[t]++]);
				n->work++;
				reach(n, f, true, s.thread, s.index, &nqueued);
			}
		} else {
			while (f->ptr[t] > n->out_off[t] && n->out_at[f->ptr[t] - 1] >= f->at[t]) {
				struct vsc_event_ref d = ref_of(n, n->out_to[--f->ptr[t]]);
				n->work++;
				reach(n, f, false, d.thread, d.index, &nqueued);
			}
		}
	}
}

/* The frontiers of e from the clocks: what the walks would find. */
static void from_clocks(struct source_narrow *n, struct frontier *f, bool back,
			struct vsc_event_ref e)
{
	uint32_t k = program_threads(n->p);

	next_gen(f, k);
	for (uint32_t v = 0; v < k; v++) {
		uint32_t c = back ? source_clock_before(n, e.thread, e.index, v)
				  : source_clock_after(n, e.thread, e.index, v);
		if (back ? c == 0 : c == NONE)
			continue;
		f->at[v] = back ? c - 1 : c;
		f->stamp[v] = f->gen;
	}
	n->work += k;
}

static void frontier_of(struct source_narrow *n, struct frontier *f, bool back,
			struct vsc_event_ref e)
{
	if (n->in_clock)
		from_clocks(n, f, back, e);
	else
		walk(n, f, back, e);
}

void source_narrow_read(struct source_narrow *n, struct vsc_event_ref r)
{
	uint32_t h = n->rule->hider[flat_of(n, r)];

	n->read_thread = r.thread;
	frontier_of(n, &n->before_read, true, r);
	frontier_of(n, &n->after_read, false, r);
	n->has_hider = h != NONE;
	if (n->has_hider)
		frontier_of(n, &n->before_hider, true, ref_of(n, h));
}

static bool known(const struct frontier *f, uint32_t t)
{
	return f->stamp[t] == f->gen;
}

void source_narrow_span(const struct source_narrow *n, uint32_t u, uint32_t *from, uint32_t *to)
{
	*from = known(&n->before_read, u) ? n->before_read.at[u] : 0;
	*to = known(&n->after_read, u) ? n->after_read.at[u] : n->p->threads[u].length;
}

bool source_narrow_keeps(const struct source_narrow *n, struct vsc_event_ref w)
{
	uint32_t u = w.thread, next = n->next_write[flat_of(n, w)];

	if (u == n->read_thread)
		return true;
	if (known(&n->after_read, u) && w.index >= n->after_read.at[u])
		return false; /* (1) */
	if (n->has_hider && known(&n->before_hider, u) && w.index <= n->before_hider.at[u])
		return false;                                                             /* (2) */
	return next == NONE || !known(&n->before_read, u) || next > n->before_read.at[u]; /* (3) */
}
