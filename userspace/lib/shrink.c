/* SPDX-License-Identifier: MIT */
/* Shrinking an inconsistent set of events to a 1-minimal core.
 *
 * The rule every step keeps: each read of the set keeps a possible source
 * in it (a write of its value, or an initial value that may be it), except
 * a read of a value that nothing in the whole program writes.
 *
 * A long execution is first cut down in large steps (shrink_groups): whole
 * variables (the events of some variables are an execution of their own,
 * consistent whenever the whole one is, so a violation on a few variables
 * stays when the others go), then whole threads, then halving chunks of
 * each thread. Dropping a group of events also drops every read it leaves
 * without a possible source (and what such an RMW wrote, and so on), so a
 * step that cuts the writes a far read needs drops that read too instead of
 * failing: in a trace where every read reads a recent write, a chunk can go
 * with the reads of its values, and the set halves at each step. Then
 * single events (shrink_single), until no single deletion keeps the set
 * inconsistent: consistency is not monotone, so it is tried again until
 * nothing changes. Each try is one call of the solver on the set. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "shrink.h"
#include "solver.h"

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

static const struct event_pairs *pairs_at(const struct shrink *s, size_t i)
{
	return &s->a->pairs[s->all[i].thread][s->all[i].index];
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

/* Every read of scratch[0..m) keeps a possible source in it. */
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

/* 1 when the events of mask are inconsistent (and, if asked, admissible),
 * 0 when not or undecided, -errno on failure. A trial of the large steps
 * (trial) gets at most s->trial_limit seconds: one that runs out is not
 * taken, and costs nothing but the events it would have dropped. */
static int check_mask(struct shrink *s, const unsigned char *mask, bool need_admissible, bool trial)
{
	struct vsc_check_opts opts = s->opts;
	struct vsc_program *sub;
	struct vsc_result *res;
	size_t m = 0;
	int err, verdict;
	bool limited = false;

	for (size_t i = 0; i < s->n; i++)
		if (mask[i])
			s->scratch[m++] = s->all[i];
	if (s->deadline.tv_sec) {
		opts.timeout_s = seconds_until(&s->deadline);
		if (opts.timeout_s <= 0) {
			s->gave_up = true;
			return 0;
		}
	}
	if (trial && s->trial_limit > 0 &&
	    (opts.timeout_s <= 0 || opts.timeout_s > s->trial_limit)) {
		opts.timeout_s = s->trial_limit;
		limited = true;
	}
	if (need_admissible && !admissible(s, m))
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
	if (verdict == VSC_UNKNOWN && !limited)
		s->gave_up = true;
	return verdict == VSC_INCONSISTENT;
}

int shrink_check_kept(struct shrink *s)
{
	return check_mask(s, s->keep, true, false);
}

/* ---- the closure: drop reads left without a possible source ------------ */

/* Whether the kept read at position i keeps a possible source, by wcount. */
static int sourced(const struct shrink *s, size_t i)
{
	const struct event_pairs *ep = pairs_at(s, i);
	uint32_t self = ep->write != PAIR_NONE && ep->write == ep->read;

	if (ep->read == PAIR_NONE || init_may_be(s->p, event_of(s->p, s->all[i])))
		return 1;
	return s->a->writes_of[ep->read] == self || s->wcount[ep->read] > self;
}

/* Drop from s->trial every read left without a source, transitively.
 * Returns how many events stay. */
static size_t close_trial(struct shrink *s)
{
	size_t nwork = 0, m = 0;

	memset(s->wcount, 0, (s->a->npairs ? s->a->npairs : 1) * sizeof(*s->wcount));
	for (size_t i = 0; i < s->n; i++)
		if (s->trial[i] && pairs_at(s, i)->write != PAIR_NONE)
			s->wcount[pairs_at(s, i)->write]++;
	for (size_t i = 0; i < s->n; i++) {
		if (s->trial[i] && !sourced(s, i)) {
			s->trial[i] = 0;
			s->work[nwork++] = (uint32_t)i;
		}
	}
	while (nwork) {
		uint32_t pw = pairs_at(s, s->work[--nwork])->write;
		if (pw == PAIR_NONE)
			continue;
		s->wcount[pw]--;
		for (uint32_t j = s->readers_off[pw]; j < s->readers_off[pw + 1]; j++) {
			uint32_t r = s->readers[j];
			if (s->trial[r] && !sourced(s, r)) {
				s->trial[r] = 0;
				s->work[nwork++] = r;
			}
		}
	}
	for (size_t i = 0; i < s->n; i++)
		m += s->trial[i];
	return m;
}

/* s->trial holds keep minus a group: close it and keep it if the rest is
 * still inconsistent. */
static int try_trial(struct shrink *s)
{
	size_t m = close_trial(s);
	int r;

	if (m == 0)
		return 0;
	r = check_mask(s, s->trial, false, true);
	if (r > 0)
		memcpy(s->keep, s->trial, s->n);
	return r;
}

/* Keep only the kept events in `all` (positions change), so that later
 * steps cost what is left, not the whole execution. */
static int compact(struct shrink *s)
{
	size_t m = 0;

	for (size_t i = 0; i < s->n; i++)
		m += s->keep[i];
	if (m * 2 > s->n)
		return 0;
	m = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->keep[i])
			s->all[m++] = s->all[i];
	s->n = m;
	return shrink_prepare(s);
}

/* Per variable + 1, how many kept events the variables before it have. */
static int count_kept_by_var(struct shrink *s, uint32_t **before)
{
	uint32_t nv = program_vars(s->p), *c = calloc((size_t)nv + 1, sizeof(uint32_t));

	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++)
		c[event_of(s->p, s->all[i])->var + 1] += s->keep[i];
	for (uint32_t v = 0; v < nv; v++)
		c[v + 1] += c[v];
	free(*before);
	*before = c;
	return 0;
}

static int drop_vars(struct shrink *s, uint32_t lo, uint32_t hi)
{
	memcpy(s->trial, s->keep, s->n);
	for (size_t i = 0; i < s->n; i++) {
		uint32_t v = event_of(s->p, s->all[i])->var;
		if (v >= lo && v < hi)
			s->trial[i] = 0;
	}
	return try_trial(s);
}

static int drop_range(struct shrink *s, size_t from, size_t len)
{
	bool any = false;

	if (!memchr(s->keep + from, 1, len))
		return 0;
	memcpy(s->trial, s->keep, s->n);
	for (size_t i = from; i < from + len; i++) {
		any |= s->trial[i];
		s->trial[i] = 0;
	}
	return any ? try_trial(s) : 0;
}

static int shrink_vars(struct shrink *s)
{
	uint32_t nv = program_vars(s->p), *before = NULL;
	int r = 0;

	for (uint32_t size = (nv + 1) / 2; nv > 1 && !r; size = (size + 1) / 2) {
		r = count_kept_by_var(s, &before);
		for (uint32_t lo = 0; lo < nv && !s->gave_up && !r; lo += size) {
			uint32_t hi = lo + size < nv ? lo + size : nv;
			if (before[hi] == before[lo] || (r = drop_vars(s, lo, hi)) <= 0)
				continue;
			r = count_kept_by_var(s, &before);
		}
		if (!r)
			r = compact(s);
		if (size == 1 || s->gave_up)
			break;
	}
	free(before);
	return r < 0 ? r : 0;
}

/* Whole threads (runs of equal thread in `all`), then halving chunks. */
static int shrink_chunks(struct shrink *s)
{
	int r;

	for (size_t from = 0, to; from < s->n && !s->gave_up; from = to) {
		for (to = from + 1; to < s->n && s->all[to].thread == s->all[from].thread; to++)
			;
		if ((r = drop_range(s, from, to - from)) < 0)
			return r;
	}
	if ((r = compact(s)) < 0)
		return r;
	for (size_t len = s->n / 2; len >= 2 && !s->gave_up; len /= 2) {
		for (size_t from = 0; from < s->n && !s->gave_up; from += len)
			if ((r = drop_range(s, from, from + len > s->n ? s->n - from : len)) < 0)
				return r;
		if ((r = compact(s)) < 0)
			return r;
		if (len > s->n / 2)
			len = s->n; /* compacted: start again from halves of what is left */
	}
	return 0;
}

int shrink_groups(struct shrink *s)
{
	int r = shrink_vars(s);

	return r ? r : shrink_chunks(s);
}

/* Drop the one kept event at i if the rest stays inconsistent. */
static int try_drop_one(struct shrink *s, size_t i)
{
	int r;

	s->keep[i] = 0;
	r = check_mask(s, s->keep, true, false);
	if (r <= 0)
		s->keep[i] = 1;
	return r;
}

int shrink_single(struct shrink *s)
{
	int r, changed;

	do {
		changed = 0;
		for (size_t i = 0; i < s->n && !s->gave_up; i++) {
			if (!s->keep[i])
				continue;
			if ((r = try_drop_one(s, i)) < 0)
				return r;
			changed |= r;
		}
	} while (changed && !s->gave_up);
	return 0;
}

/* ---- memory ------------------------------------------------------------ */

/* Which positions of `all` read each pair (CSR). */
static int index_readers(struct shrink *s)
{
	uint32_t np = s->a->npairs, *off;

	free(s->readers_off);
	free(s->readers);
	off = s->readers_off = calloc((size_t)np + 2, sizeof(uint32_t));
	s->readers = malloc((s->n ? s->n : 1) * sizeof(uint32_t));
	if (!off || !s->readers)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++)
		if (pairs_at(s, i)->read != PAIR_NONE)
			off[pairs_at(s, i)->read + 2]++;
	for (uint32_t q = 0; q < np; q++)
		off[q + 2] += off[q + 1];
	for (size_t i = 0; i < s->n; i++)
		if (pairs_at(s, i)->read != PAIR_NONE)
			s->readers[off[pairs_at(s, i)->read + 1]++] = (uint32_t)i;
	return 0;
}

int shrink_prepare(struct shrink *s)
{
	size_t n = s->n ? s->n : 1;

	free(s->keep);
	free(s->trial);
	free(s->scratch);
	free(s->written);
	free(s->work);
	s->keep = malloc(n);
	s->trial = malloc(n);
	s->scratch = malloc(n * sizeof(*s->scratch));
	s->written = malloc(n * sizeof(*s->written));
	s->work = malloc(n * sizeof(*s->work));
	if (!s->wcount)
		s->wcount = malloc((s->a->npairs ? s->a->npairs : 1) * sizeof(*s->wcount));
	if (!s->keep || !s->trial || !s->scratch || !s->written || !s->work || !s->wcount)
		return -ENOMEM;
	memset(s->keep, 1, s->n);
	return index_readers(s);
}

void shrink_release(struct shrink *s)
{
	free(s->all);
	free(s->keep);
	free(s->trial);
	free(s->scratch);
	free(s->written);
	free(s->wcount);
	free(s->readers_off);
	free(s->readers);
	free(s->work);
}
