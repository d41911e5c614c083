/* SPDX-License-Identifier: MIT */
/* Refuting a program by its writer groups (writer_groups.h).
 *
 * A writer group is a set S of threads that is the set of writers of some
 * variable. Its program keeps the variables every write of which is made
 * by a thread of S (V_S), and of those only the events of the threads of
 * S, in program order; every other event is left out (the reads of V_S by
 * other threads, every event of the other variables).
 *
 * Exact for refutation: take an SC interleaving of p, with any number of
 * preemptions, and keep the group's events in that order. Each thread's
 * kept events stay in program order. A kept read (or RMW) of x in V_S saw
 * in p's interleaving the last write of x before it (or the initial
 * value, when none); every write of x is kept (all are made by threads of
 * S), so the same write is the last before it among the kept events (or
 * there is none, and the same initial value is read). So the kept order is
 * an SC interleaving of the group's program: when that has none, p has
 * none, whatever the bound.
 *
 * Why it helps: a stale read with several writers is refuted by how the
 * writers of its variable interleave, which their other variables pin
 * (vsc gen sc --writers 2: threads write variables in pairs). The search
 * over every thread branches on all of them at once, and the source orders
 * keep one number per thread where the writers' windows of each value
 * matter; the group's own search has two threads and a fraction of the
 * events (a 10^4-event trace the whole search leaves open after 60 s: its
 * group of 1,770 events is refuted in 0.56 s). */
#include "writer_groups.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct writer_group {
	uint64_t threads; /* one bit per thread of S */
	size_t events;    /* events of the group's program */
};

/* The threads that write each variable, one bit each. */
static void writer_masks(const struct vsc_program *p, uint64_t *masks)
{
	for (uint32_t t = 0; t < program_threads(p); t++) {
		const struct vsc_thread *th = &p->threads[t];
		for (uint32_t i = 0; i < th->length; i++)
			if (th->events[i].kind != VSC_READ)
				masks[th->events[i].var] |= (uint64_t)1 << t;
	}
}

/* Is variable x's every write made by a thread of s (and is there one)? */
static int var_in_group(const uint64_t *masks, uint32_t x, uint64_t s)
{
	return masks[x] && !(masks[x] & ~s);
}

static size_t group_events(const struct vsc_program *p, const uint64_t *masks, uint64_t s)
{
	size_t n = 0;

	for (uint32_t t = 0; t < program_threads(p); t++) {
		const struct vsc_thread *th = &p->threads[t];
		if (!(s >> t & 1))
			continue;
		for (uint32_t i = 0; i < th->length; i++)
			n += var_in_group(masks, th->events[i].var, s);
	}
	return n;
}

/* The distinct writer sets of two threads or more whose programs leave
 * some event out, into groups. Returns how many. */
static uint32_t collect_groups(const struct vsc_program *p, const uint64_t *masks,
			       struct writer_group *groups)
{
	uint32_t n = 0;

	for (uint32_t x = 0; x < program_vars(p); x++) {
		uint64_t s = masks[x];
		uint32_t seen = 0;
		size_t events;
		if (__builtin_popcountll(s) < 2)
			continue;
		while (seen < n && groups[seen].threads != s)
			seen++;
		if (seen < n)
			continue;
		events = group_events(p, masks, s);
		if (events < p->event_count)
			groups[n++] = (struct writer_group){ s, events };
	}
	return n;
}

static int smaller_first(const void *a, const void *b)
{
	const struct writer_group *x = a, *y = b;

	if (x->events != y->events)
		return x->events < y->events ? -1 : 1;
	return x->threads < y->threads ? -1 : x->threads > y->threads;
}

/* Append thread t's events of the group's variables to out (as thread
 * *nt, interned at its first kept event); local: p's variables to out's. */
static int copy_thread(const struct vsc_program *p, const uint64_t *masks, uint64_t s, uint32_t t,
		       uint32_t *local, struct vsc_program *out)
{
	const struct vsc_thread *th = &p->threads[t];
	int nt = -1, err;

	for (uint32_t i = 0; i < th->length; i++) {
		struct vsc_event e = th->events[i];
		if (!var_in_group(masks, e.var, s))
			continue;
		if (nt < 0) {
			const char *name = p->thread_names.names[t];
			if ((nt = program_thread(out, name, strlen(name))) < 0)
				return nt;
		}
		if (local[e.var] == UINT32_MAX) {
			const char *var = p->var_names.names[e.var];
			int nv = program_var(out, var, strlen(var));
			if (nv < 0)
				return nv;
			out->inits[nv] = p->inits[e.var];
			local[e.var] = (uint32_t)nv;
		}
		e.var = local[e.var];
		if ((err = program_append(out, (uint32_t)nt, &e, th->ts ? th->ts[i] : 0, 0)))
			return err;
	}
	return 0;
}

/* The group's program, or NULL (out of memory). */
static struct vsc_program *group_program(const struct vsc_program *p, const uint64_t *masks,
					 uint64_t s, uint32_t *local)
{
	struct vsc_program *out = vsc_program_new();
	int err = out ? 0 : -ENOMEM;

	for (uint32_t x = 0; x < program_vars(p); x++)
		local[x] = UINT32_MAX;
	for (uint32_t t = 0; t < program_threads(p) && !err; t++)
		if (s >> t & 1)
			err = copy_thread(p, masks, s, t, local, out);
	if (err) {
		vsc_program_free(out);
		return NULL;
	}
	return out;
}

/* Has gp no SC interleaving at all? Asked with no bound, the search
 * stopped at the budget's steps `cap` (or its own cap, when lower). */
static int group_refuted(const struct vsc_program *gp, struct budget *b, unsigned long cap,
			 writer_group_solve_fn solve)
{
	struct query q = { .bound = -1, .minimize = 0, .want_witness = 0, .jobs = 1, .no_cut = 1 };
	struct vsc_result res;
	unsigned long outer = b->work_cap;
	int r;

	memset(&res, 0, sizeof(res));
	res.preemptions = res.lower = -1;
	b->work_cap = outer && outer < cap ? outer : cap;
	r = solve(gp, &q, b, &res);
	b->work_cap = outer;
	free(res.witness);
	result_drop_analysis(&res);
	return r == 0 && res.verdict == VSC_INCONSISTENT;
}

/* Try the groups in order, each under an even share of what work is left
 * (what one leaves goes to those after it). */
static int try_groups(const struct vsc_program *p, const uint64_t *masks,
		      const struct writer_group *groups, uint32_t n, uint32_t *local,
		      struct budget *b, unsigned long work, writer_group_solve_fn solve)
{
	unsigned long end = b->steps + work;

	for (uint32_t g = 0; g < n && b->steps < end && !budget_expired(b); g++) {
		struct vsc_program *gp = group_program(p, masks, groups[g].threads, local);
		int refuted;
		if (!gp)
			return WRITER_GROUPS_OPEN;
		refuted = group_refuted(gp, b, b->steps + (end - b->steps) / (n - g), solve);
		vsc_program_free(gp);
		if (refuted)
			return WRITER_GROUPS_REFUTED;
	}
	return WRITER_GROUPS_OPEN;
}

int writer_groups_refute(const struct vsc_program *p, struct budget *b, unsigned long work,
			 writer_group_solve_fn solve)
{
	uint32_t k = program_threads(p), vars = program_vars(p), n;
	uint64_t *masks;
	uint32_t *local;
	struct writer_group *groups;
	int r = WRITER_GROUPS_OPEN;

	if (k < 3 || k > WRITER_GROUPS_MAX_THREADS || !vars)
		return WRITER_GROUPS_OPEN;
	masks = calloc(vars, sizeof(*masks));
	local = malloc(vars * sizeof(*local));
	groups = malloc(vars * sizeof(*groups));
	if (masks && local && groups) {
		writer_masks(p, masks);
		n = collect_groups(p, masks, groups);
		qsort(groups, n, sizeof(*groups), smaller_first);
		r = try_groups(p, masks, groups, n < WRITER_GROUPS_MAX ? n : WRITER_GROUPS_MAX,
			       local, b, work, solve);
	}
	free(masks);
	free(local);
	free(groups);
	return r;
}
