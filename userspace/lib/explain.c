/* SPDX-License-Identifier: MIT */
/* Explanations: a minimal inconsistent core in which every read keeps a
 * write it could read from, and the cycle of forced orders behind it.
 *
 * At any trace length: localize.c first finds a cycle of forced orders in
 * the whole program, in linear time, and hands over the few events that
 * make it hold; that set is checked to be inconsistent on its own and then
 * shrunk, so the cost grows with the core, not with the trace. Only when
 * no such cycle exists (the reason is the preemption bound, or choices no
 * forced order captures) is the whole execution shrunk by deletion: whole
 * threads, then halving chunks, then single events.
 *
 * Deletion keeps the rule that every read of the set keeps a possible
 * source in it (a write of its value, or an initial value that may be it):
 * a core is never "a read whose writes were removed". Consistency is not
 * monotone, so single events are tried again until no single deletion
 * keeps the set inconsistent under that rule: then the core is 1-minimal. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "explain.h"
#include "opts.h"
#include "solver.h"

#define CYCLE_SEARCH_LIMIT 300 /* events; beyond, no forced-order story */

static int compare_refs(const void *a, const void *b)
{
	const struct vsc_event_ref *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}
struct vsc_program *vsc_program_subset(const struct vsc_program *p,
				       const struct vsc_event_ref *events, size_t count)
{
	struct vsc_program *sub = vsc_program_new();
	struct vsc_event_ref *sorted = malloc((count ? count : 1) * sizeof(*sorted));
	int err = 0;

	if (!sub || !sorted)
		goto fail;
	memcpy(sorted, events, count * sizeof(*sorted));
	qsort(sorted, count, sizeof(*sorted), compare_refs);
	for (uint32_t v = 0; v < program_vars(p) && !err; v++) {
		const char *name = p->var_names.names[v];
		err = program_var(sub, name, strlen(name)) < 0;
		if (!err)
			sub->inits[v] = p->inits[v];
	}
	for (size_t i = 0; i < count && !err; i++) {
		const struct vsc_event_ref *r = &sorted[i];
		const struct vsc_thread *th;
		const char *name;
		int t;
		if (r->thread >= program_threads(p) || r->index >= p->threads[r->thread].length ||
		    (i > 0 && compare_refs(r, &sorted[i - 1]) == 0)) {
			errno = EINVAL;
			free(sorted);
			vsc_program_free(sub);
			return NULL;
		}
		th = &p->threads[r->thread];
		name = p->thread_names.names[r->thread];
		t = program_thread(sub, name, strlen(name));
		err = t < 0 || program_append(sub, (uint32_t)t, &th->events[r->index],
					      th->ts ? th->ts[r->index] : 0,
					      th->lines ? th->lines[r->index] : 0);
	}
	free(sorted);
	if (!err)
		return sub;
fail:
	vsc_program_free(sub);
	errno = ENOMEM;
	return NULL;
}

/* Shrinking state: the candidate set as a mask over the events in `all`. */
struct shrink {
	const struct vsc_program *p;
	const struct analysis *a;
	struct vsc_check_opts opts;
	struct timespec deadline; /* tv_sec 0: none */
	struct vsc_event_ref *all;
	size_t n;
	unsigned char *keep;
	struct vsc_event_ref *scratch;
	struct written *written; /* scratch for admissible() */
	bool gave_up;            /* a check ended unknown: minimality not proven */
};

struct written {
	uint32_t var;
	int64_t value;
};

static int compare_written(const void *a, const void *b)
{
	const struct written *x = a, *y = b;
	if (x->var != y->var)
		return x->var < y->var ? -1 : 1;
	return (x->value > y->value) - (x->value < y->value);
}

static const struct vsc_event *event_of(const struct vsc_program *p, struct vsc_event_ref r)
{
	return &p->threads[r.thread].events[r.index];
}

static int init_may_be(const struct vsc_program *p, const struct vsc_event *e)
{
	const struct vsc_var_init *init = &p->inits[e->var];
	return init->kind == VSC_INIT_UNKNOWN ||
	       (init->kind == VSC_INIT_KNOWN && init->value == e->value);
}

/* How many times key is in the sorted array w[0..nw). */
static size_t count_written(const struct written *w, size_t nw, const struct written *key)
{
	const struct written *at = bsearch(key, w, nw, sizeof(*key), compare_written);
	const struct written *lo = at, *hi = at;

	if (!at)
		return 0;
	while (lo > w && compare_written(lo - 1, key) == 0)
		lo--;
	while (hi + 1 < w + nw && compare_written(hi + 1, key) == 0)
		hi++;
	return (size_t)(hi - lo) + 1;
}

/* Every read of scratch[0..m) keeps a possible source in it: a write of its
 * value, or the initial value. A read of a value nothing in the whole
 * program writes is the one exception (it is a core on its own). */
static int admissible(struct shrink *s, size_t m)
{
	size_t nw = 0;

	for (size_t i = 0; i < m; i++) {
		const struct vsc_event *e = event_of(s->p, s->scratch[i]);
		if (e->kind != VSC_READ)
			s->written[nw++] =
				(struct written){ e->var,
						  e->kind == VSC_RMW ? e->new_value : e->value };
	}
	qsort(s->written, nw, sizeof(*s->written), compare_written);
	for (size_t i = 0; i < m; i++) {
		struct vsc_event_ref r = s->scratch[i];
		const struct vsc_event *e = event_of(s->p, r);
		struct written key = { e->var, e->value };
		const struct event_pairs *ep = &s->a->pairs[r.thread][r.index];
		size_t self = ep->write == ep->read; /* an RMW writing what it read */
		if (e->kind == VSC_WRITE || init_may_be(s->p, e) ||
		    s->a->writes_of[ep->read] == self || count_written(s->written, nw, &key) > self)
			continue;
		return 0;
	}
	return 1;
}

/* 1 when the kept events (with `drop` events from `from` removed) are
 * admissible and inconsistent, 0 when not or undecided, -errno on failure. */
static int still_inconsistent(struct shrink *s, size_t from, size_t drop)
{
	struct vsc_check_opts opts = s->opts;
	struct vsc_program *sub;
	struct vsc_result *res;
	size_t m = 0;
	int err, verdict;

	for (size_t i = 0; i < s->n; i++)
		if (s->keep[i] && (i < from || i >= from + drop))
			s->scratch[m++] = s->all[i];
	if (s->deadline.tv_sec) {
		opts.timeout_s = seconds_until(&s->deadline);
		if (opts.timeout_s <= 0) {
			s->gave_up = true;
			return 0;
		}
	}
	if (!admissible(s, m))
		return 0;
	opts.want_witness = false;
	opts.minimize = false;
	opts.progress = false;
	sub = vsc_program_subset(s->p, s->scratch, m);
	if (!sub)
		return -errno;
	err = vsc_check(sub, &opts, &res);
	vsc_program_free(sub);
	if (err)
		return err;
	verdict = vsc_result_verdict(res);
	vsc_result_free(res);
	if (verdict == VSC_UNKNOWN)
		s->gave_up = true;
	return verdict == VSC_INCONSISTENT;
}

/* Try to drop kept events in [from, from + len); keep the drop if the rest
 * stays inconsistent. */
static int try_drop(struct shrink *s, size_t from, size_t len)
{
	size_t kept = 0;
	int r;

	for (size_t i = from; i < from + len; i++)
		kept += s->keep[i];
	if (kept == 0)
		return 0;
	r = still_inconsistent(s, from, len);
	if (r > 0)
		memset(s->keep + from, 0, len);
	return r;
}

/* Whole threads, then halving chunks: for the whole-execution fallback. */
static int shrink_chunks(struct shrink *s)
{
	const struct vsc_program *p = s->p;
	size_t start = 0;
	int r;

	for (uint32_t t = 0; t < program_threads(p); t++) {
		if ((r = try_drop(s, start, p->threads[t].length)) < 0)
			return r;
		start += p->threads[t].length;
	}
	for (size_t len = s->n / 2; len >= 2; len /= 2)
		for (size_t from = 0; from < s->n; from += len)
			if ((r = try_drop(s, from, from + len > s->n ? s->n - from : len)) < 0)
				return r;
	return 0;
}

/* Single events, until no single removal keeps the set inconsistent. */
static int shrink_single(struct shrink *s)
{
	int r, changed;

	do {
		changed = 0;
		for (size_t i = 0; i < s->n && !s->gave_up; i++) {
			if (!s->keep[i])
				continue;
			if ((r = try_drop(s, i, 1)) < 0)
				return r;
			changed |= r;
		}
	} while (changed && !s->gave_up);
	return 0;
}

static int every_event(const struct vsc_program *p, struct vsc_event_ref **all, size_t *n)
{
	size_t m = 0;

	*all = malloc((p->event_count ? p->event_count : 1) * sizeof(**all));
	if (!*all)
		return -ENOMEM;
	for (uint32_t t = 0; t < program_threads(p); t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++)
			(*all)[m++] = (struct vsc_event_ref){ t, i };
	*n = m;
	return 0;
}

static int shrink_prepare(struct shrink *s)
{
	size_t n = s->n ? s->n : 1;

	free(s->keep);
	free(s->scratch);
	free(s->written);
	s->keep = malloc(n);
	s->scratch = malloc(n * sizeof(*s->scratch));
	s->written = malloc(n * sizeof(*s->written));
	if (!s->keep || !s->scratch || !s->written)
		return -ENOMEM;
	memset(s->keep, 1, s->n);
	return 0;
}

/* The events to shrink: the localized set when it is inconsistent on its
 * own, else the whole execution (chunks first). */
static int choose_start(struct shrink *s, struct vsc_core *core)
{
	int err = localize_refutation(s->p, s->a, &s->all, &s->n);

	if (err < 0)
		return err;
	if (err == 0) {
		if ((err = shrink_prepare(s)))
			return err;
		err = still_inconsistent(s, 0, 0);
		if (err != 0) {
			core->localized = err > 0;
			return err < 0 ? err : 0;
		}
		free(s->all);
		s->all = NULL;
	}
	if ((err = every_event(s->p, &s->all, &s->n)) || (err = shrink_prepare(s)))
		return err;
	err = still_inconsistent(s, 0, 0);
	if (err <= 0)
		return err < 0 ? err : s->gave_up ? -ETIME : -EINVAL;
	return shrink_chunks(s);
}

int vsc_explain(const struct vsc_program *p, const struct vsc_check_opts *opts,
		struct vsc_core **out)
{
	struct shrink s = { .p = p };
	struct analysis a;
	struct vsc_core *core = NULL;
	int err;

	if (!p || !out || !opts)
		return -EINVAL;
	*out = NULL;
	if (OPTS_LOAD(s.opts, opts))
		return -EINVAL;
	s.deadline = deadline_after(s.opts.timeout_s);
	if ((err = analysis_build(&a, p)))
		return err;
	s.a = &a;
	core = calloc(1, sizeof(*core));
	err = -ENOMEM;
	if (!core)
		goto out;
	if ((err = choose_start(&s, core)) || (err = shrink_single(&s)))
		goto out;
	core->events = malloc((s.n ? s.n : 1) * sizeof(*core->events));
	err = -ENOMEM;
	if (!core->events)
		goto out;
	for (size_t i = 0; i < s.n; i++)
		if (s.keep[i])
			core->events[core->count++] = s.all[i];
	core->minimal = !s.gave_up;
	err = core->count <= CYCLE_SEARCH_LIMIT ? core_find_cycle(p, core) : 0;
out:
	analysis_free(&a);
	free(s.all);
	free(s.scratch);
	free(s.keep);
	free(s.written);
	if (err) {
		vsc_core_free(core);
		return err;
	}
	*out = core;
	return 0;
}

size_t vsc_core_events(const struct vsc_core *core, const struct vsc_event_ref **events)
{
	if (events)
		*events = core->events;
	return core->count;
}

size_t vsc_core_context(const struct vsc_core *core, const struct vsc_event_ref **events)
{
	return vsc_core_events(core, events); /* every read keeps its sources now */
}

size_t vsc_core_cycle(const struct vsc_core *core, const struct vsc_order **orders)
{
	if (orders)
		*orders = core->pool;
	return core->cycle_length;
}

size_t vsc_core_order_why(const struct vsc_core *core, const struct vsc_order *order,
			  const struct vsc_order **why)
{
	size_t i;

	if (why)
		*why = NULL;
	if (!core || !order || order < core->pool || order >= core->pool + core->pool_length)
		return 0;
	i = (size_t)(order - core->pool);
	if (why)
		*why = core->pool + core->why_first[i];
	return core->why_count[i];
}

bool vsc_core_is_minimal(const struct vsc_core *core)
{
	return core->minimal;
}

void vsc_core_free(struct vsc_core *core)
{
	if (!core)
		return;
	free(core->events);
	free(core->pool);
	free(core->why_first);
	free(core->why_count);
	free(core);
}
