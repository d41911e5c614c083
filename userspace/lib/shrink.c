/* SPDX-License-Identifier: MIT */
/* Shrinking an inconsistent set of events to a 1-minimal core.
 *
 * The rule every step keeps: each read of the set keeps a source that the
 * whole trace offers it, program order taken into account (core_sources.c).
 *
 * A long execution is first cut to a short inconsistent prefix
 * (shrink_prefix.c), then cut down in large steps (shrink_groups): whole
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "shrink.h"
#include "solver.h"

static const struct vsc_event *event_of(const struct vsc_program *p, struct vsc_event_ref r)
{
	return &p->threads[r.thread].events[r.index];
}

static const struct event_pairs *pairs_at(const struct shrink *s, size_t i)
{
	return &s->a->pairs[s->all[i].thread][s->all[i].index];
}

/* The events of mask into scratch (and their positions into pos). */
static size_t gather(struct shrink *s, const unsigned char *mask)
{
	size_t m = 0;

	for (size_t i = 0; i < s->n; i++)
		if (mask[i]) {
			s->pos[m] = (uint32_t)i;
			s->scratch[m++] = s->all[i];
		}
	return m;
}

/* Every read of scratch[0..m) keeps a possible source in it. */
static bool admissible(struct shrink *s, size_t m)
{
	return source_rule_lacking(s->rule, s->scratch, m, s->bad, 1) == 0;
}

void shrink_progress(struct shrink *s, const char *phase)
{
	struct timespec now;
	char line[160];
	size_t kept = 0;

	if (!s->opts.progress || !s->opts.on_progress)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (s->last_progress.tv_sec && now.tv_sec - s->last_progress.tv_sec < 1)
		return;
	s->last_progress = now;
	for (size_t i = 0; i < s->n; i++)
		kept += s->keep[i];
	snprintf(line, sizeof(line), "%lds, explain: %s, %zu events kept, %lu checks",
		 (long)(now.tv_sec - s->started.tv_sec), phase, kept, s->checks);
	s->opts.on_progress(s->opts.progress_ctx, line);
}

/* When a proof is asked for: 1 when C' of scratch[0..m), the set with
 * every source its reads may see (core_proof.c), is inconsistent too. A C'
 * that is the set itself costs no second check. */
static int closure_inconsistent(struct shrink *s, size_t m, const struct vsc_check_opts *opts,
				bool limited)
{
	const struct vsc_event_ref *closed;
	size_t count;
	int r = proof_closure_of(s->closure, s->scratch, m, &closed, &count), verdict;

	if (r != 0)
		return r < 0 ? r : 0; /* past what is checked: not a proof */
	if (count == m)
		return 1;
	s->checks++;

	if ((verdict = verdict_of_events(s->p, closed, count, *opts)) < 0)
		return verdict;
	if (verdict == VSC_UNKNOWN && !limited)
		s->gave_up = true;
	s->undecided += verdict == VSC_UNKNOWN;
	return verdict == VSC_INCONSISTENT;
}

/* The options of a check within limit_s seconds (0: none but the
 * deadline) into *opts, *limited when limit_s is what bounds it: false
 * when the deadline has passed (s->gave_up is then set). */
static bool check_opts(struct shrink *s, double limit_s, struct vsc_check_opts *opts, bool *limited)
{
	*opts = s->opts;
	*limited = false;
	if (s->deadline.tv_sec) {
		opts->timeout_s = seconds_until(&s->deadline);
		if (opts->timeout_s <= 0) {
			s->gave_up = true;
			return false;
		}
	}
	if (limit_s > 0 && (opts->timeout_s <= 0 || opts->timeout_s > limit_s)) {
		opts->timeout_s = limit_s;
		*limited = true;
	}
	return true;
}

/* 1 when refs[0..m) are inconsistent, 0 when not or undecided (a limit
 * that is not limit_s gives the shrinking up), -errno on failure. */
static int check_refs(struct shrink *s, const struct vsc_event_ref *refs, size_t m,
		      const struct vsc_check_opts *opts, bool limited)
{
	int verdict;

	s->checks++;
	if ((verdict = verdict_of_events(s->p, refs, m, *opts)) < 0)
		return verdict;
	if (verdict == VSC_UNKNOWN && !limited)
		s->gave_up = true;
	s->undecided += verdict == VSC_UNKNOWN;
	return verdict == VSC_INCONSISTENT;
}

/* 1 when the events of mask are inconsistent (and, if asked, admissible),
 * 0 when not or undecided, -errno on failure. A trial of the large steps
 * gets at most limit_s seconds (0: none but the deadline): one that runs
 * out is not taken, and costs nothing but the events it would have dropped. */
static int check_mask(struct shrink *s, const unsigned char *mask, bool need_admissible,
		      double limit_s)
{
	struct vsc_check_opts opts;
	size_t m = gather(s, mask);
	bool limited;
	int r;

	if (!check_opts(s, limit_s, &opts, &limited))
		return 0;
	if (need_admissible && !admissible(s, m))
		return 0;
	if ((r = check_refs(s, s->scratch, m, &opts, limited)) <= 0)
		return r;
	return s->closure ? closure_inconsistent(s, m, &opts, limited) : 1;
}

int shrink_check_kept(struct shrink *s)
{
	return check_mask(s, s->keep, true, 0);
}

int shrink_check_trial(struct shrink *s, double limit_s)
{
	return check_mask(s, s->trial, false, limit_s);
}

/* The position of r in `all` (sorted by thread, then index), or SIZE_MAX. */
static size_t position_of(const struct shrink *s, struct vsc_event_ref r)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct vsc_event_ref *m = &s->all[mid];
		if (m->thread < r.thread || (m->thread == r.thread && m->index < r.index))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->all[lo].thread == r.thread && s->all[lo].index == r.index ? lo
											 : SIZE_MAX;
}

static int by_thread_then_index(const void *a, const void *b)
{
	const struct vsc_event_ref *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

int shrink_check_closure_of(struct shrink *s, const struct vsc_event_ref *events, size_t m,
			    double limit_s)
{
	const struct vsc_event_ref *closed;
	struct vsc_check_opts opts;
	size_t count;
	bool limited;
	int r = proof_closure_of(s->closure, events, m, &closed, &count);

	if (r != 0)
		return r < 0 ? r : 0;
	if (count > s->n || !check_opts(s, limit_s, &opts, &limited))
		return 0;
	memmove(s->scratch, closed, count * sizeof(*closed));
	qsort(s->scratch, count, sizeof(*s->scratch), by_thread_then_index);
	if (!admissible(s, count) || (r = check_refs(s, s->scratch, count, &opts, limited)) <= 0)
		return r;
	memset(s->trial, 0, s->n);
	for (size_t j = 0; j < count; j++) {
		size_t at = position_of(s, s->scratch[j]);
		if (at == SIZE_MAX)
			return 0; /* past what is left to shrink */
		s->trial[at] = 1;
	}
	return 1;
}

int shrink_check_closed_trial(struct shrink *s, double limit_s)
{
	size_t m = gather(s, s->trial);

	return shrink_check_closure_of(s, s->scratch, m, limit_s);
}

/* ---- the closure: drop reads left without a possible source ------------ */

/* Whether the kept read at position i may keep a source, by wcount: a
 * quick first cut, more lenient than the rule (program order aside); the
 * rule itself is applied after it (close_by_order). */
static int sourced(const struct shrink *s, size_t i)
{
	const struct event_pairs *ep = pairs_at(s, i);
	uint32_t self = ep->write != PAIR_NONE && ep->write == ep->read;

	if (ep->read == PAIR_NONE || init_may_be(s->p, event_of(s->p, s->all[i])))
		return 1;
	return s->a->writes_of[ep->read] == self || s->wcount[ep->read] > self;
}

/* The rule on s->trial: drop each read it leaves without a source; again
 * while a dropped one was an RMW (its write may have been another's
 * source). Returns how many events stay. */
static size_t close_by_order(struct shrink *s)
{
	size_t m, nbad;
	bool wrote;

	do {
		if (s->deadline.tv_sec && seconds_until(&s->deadline) <= 0) {
			s->gave_up = true;
			return 0; /* not closed: not a set to try */
		}
		m = gather(s, s->trial);
		nbad = source_rule_lacking(s->rule, s->scratch, m, s->bad, m);
		wrote = false;
		for (size_t j = 0; j < nbad; j++) {
			s->trial[s->pos[s->bad[j]]] = 0;
			wrote |= pairs_at(s, s->pos[s->bad[j]])->write != PAIR_NONE;
		}
		m -= nbad;
	} while (wrote);
	return m;
}

/* Drop from s->trial every read left without a source, transitively:
 * first by counts of written pairs (a chain of RMWs in one go), then by
 * the rule. Returns how many events stay. */
size_t shrink_close_trial(struct shrink *s)
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
	return m ? close_by_order(s) : 0;
}

/* s->trial holds keep minus a group: close it and keep it if the rest is
 * still inconsistent. */
static int try_trial(struct shrink *s)
{
	size_t m = shrink_close_trial(s);
	int r;

	shrink_progress(s, "cutting groups");
	if (m == 0)
		return 0;
	r = check_mask(s, s->trial, false, s->trial_limit);
	if (r > 0)
		memcpy(s->keep, s->trial, s->n);
	return r;
}

/* Keep only the kept events in `all` (positions change), so that later
 * steps cost what is left, not the whole execution; unless most stay and
 * not forced. */
static int compact_if(struct shrink *s, bool force)
{
	size_t m = 0;

	for (size_t i = 0; i < s->n; i++)
		m += s->keep[i];
	if (m == s->n || (m * 2 > s->n && !force))
		return 0;
	m = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->keep[i])
			s->all[m++] = s->all[i];
	s->n = m;
	return shrink_prepare(s);
}

static int compact(struct shrink *s)
{
	return compact_if(s, false);
}

int shrink_keep_trial(struct shrink *s)
{
	memcpy(s->keep, s->trial, s->n);
	return compact_if(s, true);
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
	shrink_progress(s, "single events");
	r = check_mask(s, s->keep, true, 0);
	if (r <= 0)
		s->keep[i] = 1;
	return r;
}

int shrink_single(struct shrink *s)
{
	int r = compact_if(s, true), changed;

	if (r)
		return r;
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
	free(s->pos);
	free(s->bad);
	free(s->work);
	s->keep = malloc(n);
	s->trial = malloc(n);
	s->scratch = malloc(n * sizeof(*s->scratch));
	s->pos = malloc(n * sizeof(*s->pos));
	s->bad = malloc(n * sizeof(*s->bad));
	s->work = malloc(n * sizeof(*s->work));
	if (!s->wcount)
		s->wcount = malloc((s->a->npairs ? s->a->npairs : 1) * sizeof(*s->wcount));
	if (!s->keep || !s->trial || !s->scratch || !s->pos || !s->bad || !s->work || !s->wcount)
		return -ENOMEM;
	memset(s->keep, 1, s->n);
	return index_readers(s);
}

#define RELEASE(x) (free(x), (x) = NULL)

void shrink_release(struct shrink *s)
{
	RELEASE(s->all);
	RELEASE(s->keep);
	RELEASE(s->trial);
	RELEASE(s->scratch);
	RELEASE(s->pos);
	RELEASE(s->bad);
	RELEASE(s->wcount);
	RELEASE(s->readers_off);
	RELEASE(s->readers);
	RELEASE(s->work);
	s->n = 0;
}
