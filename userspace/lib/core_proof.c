/* SPDX-License-Identifier: MIT */
/* Whether a core proves the trace inconsistent: the core with every source
 * the trace offers its reads put back.
 *
 * A core keeps, for each read, one source that the trace offers it
 * (core_sources.c); with several writes of one value, the trace offers
 * more, and the core may then be inconsistent only for the ones it kept.
 * Its closure C' adds every candidate of every read (the read's own
 * thread's last write of the variable before it, if it writes the value,
 * and each write of the value by another thread) that the orders every SC
 * interleaving keeps do not rule out (source_narrow.c), again for the RMWs
 * it adds. Then C' inconsistent implies the trace inconsistent: if the
 * trace had an SC interleaving, each read of C' would see in it one of its
 * candidates that the narrowing keeps (or the initial value, only when its
 * thread has not written the variable before it), all in C', and no write
 * of the variable in
 * between, so the interleaving cut down to C' would be one of C', with no
 * more preemptions. So a core whose closure is inconsistent is a proof;
 * one whose closure is consistent is said to hold only for the writes it
 * keeps. The closure is checked only up to PROOF_EVENTS events, within
 * PROOF_SECONDS (and the deadline). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "solver.h"
#include "source_narrow.h"
#include "userspace/util/array.h"
#include "userspace/util/sorted.h"

#define PROOF_EVENTS 200000      /* closures past this are not checked */
#define PROOF_SECONDS 10.0       /* time for the check of the closure */
#define PROOF_QUICK_EVENTS 1024  /* cores looked at pair by pair first */
#define NARROW_READS 4096        /* reads of C' whose candidates are narrowed */
#define NARROW_WORK_PER_EVENT 16 /* orders the walks may look at, per event */
#define NONE UINT32_MAX

struct proof_closure {
	const struct vsc_program *p;
	const struct analysis *a;
	const struct source_rule *rule;
	uint32_t *writers_off, *writers;   /* per pair (CSR): flat writes of it */
	uint8_t *in;                       /* per flat event: in C' */
	uint32_t *pair_in;                 /* per pair: its writes in C' */
	struct source_narrow *narrow;      /* orders every SC interleaving keeps, */
	struct source_narrow narrow_store; /* found when first needed */
	size_t narrowed;                   /* reads narrowed by this closure */
	uint64_t work_before;              /* narrow->work when it began */
	struct vsc_event_ref *refs;        /* C' */
	size_t count, cap;
	size_t most; /* events of C' at most */
};

static struct vsc_event_ref ref_of(const struct proof_closure *c, uint32_t f)
{
	uint32_t t = last_at_most(c->rule->base, 0, program_threads(c->p), f);
	return (struct vsc_event_ref){ t, f - c->rule->base[t] };
}

static int index_writers(struct proof_closure *c)
{
	uint32_t np = c->a->npairs, *off;

	off = c->writers_off = calloc((size_t)np + 2, sizeof(uint32_t));
	c->writers = malloc((c->p->event_count ? c->p->event_count : 1) * sizeof(uint32_t));
	if (!off || !c->writers)
		return -ENOMEM;
	for (uint32_t t = 0; t < program_threads(c->p); t++)
		for (uint32_t i = 0; i < c->p->threads[t].length; i++)
			if (c->a->pairs[t][i].write != PAIR_NONE)
				off[c->a->pairs[t][i].write + 2]++;
	for (uint32_t q = 0; q < np; q++)
		off[q + 2] += off[q + 1];
	for (uint32_t t = 0; t < program_threads(c->p); t++)
		for (uint32_t i = 0; i < c->p->threads[t].length; i++)
			if (c->a->pairs[t][i].write != PAIR_NONE)
				c->writers[off[c->a->pairs[t][i].write + 1]++] =
					c->rule->base[t] + i;
	return 0;
}

static int add(struct proof_closure *c, uint32_t f)
{
	uint32_t q;

	if (c->in[f])
		return 0;
	if (c->count >= c->most)
		return 1;
	if (ARRAY_RESERVE(c->refs, c->cap, c->count + 1))
		return -ENOMEM;
	c->in[f] = 1;
	c->refs[c->count] = ref_of(c, f);
	q = c->a->pairs[c->refs[c->count].thread][c->refs[c->count].index].write;
	if (q != PAIR_NONE)
		c->pair_in[q]++;
	c->count++;
	return 0;
}

/* Narrow the candidates of the read r (the orders are found the first
 * time: a core that has every candidate already never pays for them). */
static int look_at(struct proof_closure *c, struct vsc_event_ref r)
{
	int err;

	if (!c->narrow) {
		if ((err = source_narrow_init(&c->narrow_store, c->p, c->a, c->rule)))
			return err;
		c->narrow = &c->narrow_store;
	}
	source_narrow_read(c->narrow, r);
	c->narrowed++;
	return 0;
}

/* Whether the next read is narrowed: with the clocks (source_clocks.c),
 * every one; with the walks, NARROW_READS of them at most, and walks over
 * NARROW_WORK_PER_EVENT orders an event (each walk is linear in the
 * orders, so a closure of many reads would be quadratic). A read not
 * narrowed keeps every candidate: C' only grows, which is sound. */
static bool may_narrow(const struct proof_closure *c)
{
	uint64_t budget = (uint64_t)NARROW_WORK_PER_EVENT * c->p->event_count + (1u << 20);

	if (c->narrow && c->narrow->in_clock)
		return true;
	return c->narrowed < NARROW_READS &&
	       (!c->narrow || c->narrow->work - c->work_before < budget);
}

/* The candidates of the read r (hider h) among writers[lo, hi) that the
 * narrowing keeps (all of them when not narrow), into C'. */
static int add_kept(struct proof_closure *c, struct vsc_event_ref r, uint32_t h, uint32_t lo,
		    uint32_t hi, bool narrow)
{
	bool looked = c->narrow && c->narrow->in_clock; /* looked at before */
	int err = 0;

	for (uint32_t j = lo; j < hi && !err; j++) {
		struct vsc_event_ref w;
		if (c->in[c->writers[j]])
			continue;
		w = ref_of(c, c->writers[j]);
		if (!source_may_see(c->p, r, h, &w))
			continue;
		if (narrow && !looked && (err = look_at(c, r)))
			break;
		looked = true;
		if (!narrow || source_narrow_keeps(c->narrow, w))
			err = add(c, c->writers[j]);
	}
	return err;
}

/* With the clocks: only where each thread may hold a kept candidate (its
 * span, from its last write of the pair at or before it), and of the
 * read's own thread only the hiding write; so a read of a value written a
 * million times costs what it keeps, not what was written. */
static int add_kept_in_spans(struct proof_closure *c, struct vsc_event_ref r, uint32_t q,
			     uint32_t h)
{
	const uint32_t *base = c->rule->base;
	uint32_t lo = c->writers_off[q], hi = c->writers_off[q + 1];
	int err = 0;

	for (uint32_t u = 0; u < program_threads(c->p) && !err; u++) {
		uint32_t ulo = first_at_least(c->writers, lo, hi, base[u]);
		uint32_t uhi = first_at_least(c->writers, ulo, hi, base[u + 1]), from, to, j;
		if (ulo == uhi)
			continue;
		if (u == r.thread) {
			if (h == NONE_HIDER)
				continue;
			j = first_at_least(c->writers, ulo, uhi, base[u] + h);
			err = j < uhi ? add_kept(c, r, h, j, j + 1, true) : 0;
			continue;
		}
		source_narrow_span(c->narrow, u, &from, &to);
		j = first_at_least(c->writers, ulo, uhi, base[u] + from + 1);
		err = add_kept(c, r, h, j > ulo ? j - 1 : ulo,
			       first_at_least(c->writers, ulo, uhi, base[u] + to), true);
	}
	return err;
}

/* Every candidate of each read of refs that the narrowing keeps (while
 * may_narrow; the later ones keep all), the added ones' too: 0, 1 when
 * there are too many, or -errno. */
static int close_sources(struct proof_closure *c)
{
	int err = 0;

	for (size_t i = 0; i < c->count && !err; i++) {
		struct vsc_event_ref r = c->refs[i];
		uint32_t q = c->a->pairs[r.thread][r.index].read;
		uint32_t h = c->rule->hider[c->rule->base[r.thread] + r.index];
		bool narrow = may_narrow(c);
		/* a pair whose writes are all in C' already costs nothing: else a
		 * closure of many reads of few values costs reads x writes */
		if (q == PAIR_NONE || c->pair_in[q] == c->writers_off[q + 1] - c->writers_off[q])
			continue;
		h = h == NONE ? NONE_HIDER : h - c->rule->base[r.thread];
		if (narrow && c->narrow && c->narrow->in_clock) {
			source_narrow_read(c->narrow, r);
			c->narrowed++;
			err = add_kept_in_spans(c, r, q, h);
		} else {
			err = add_kept(c, r, h, c->writers_off[q], c->writers_off[q + 1], narrow);
		}
	}
	return err;
}

/* C' decided into *proof (CORE_PROOF_*): 0 or -errno. Apart, because
 * CORE_PROOF_UNKNOWN is -1, which is also -EPERM: returned as one value,
 * a check of C' stopped by the time limit lost the whole explanation. */
static int decide_closure(struct proof_closure *c, const struct vsc_check_opts *given, int *proof)
{
	struct vsc_check_opts opts = *given;
	int verdict;

	if (opts.timeout_s <= 0 || opts.timeout_s > PROOF_SECONDS)
		opts.timeout_s = PROOF_SECONDS;
	verdict = verdict_of_events(c->p, c->refs, c->count, opts);
	if (verdict < 0)
		return verdict;
	*proof = verdict == VSC_INCONSISTENT ? CORE_PROOF_YES
		 : verdict == VSC_CONSISTENT ? CORE_PROOF_NO
					     : CORE_PROOF_UNKNOWN;
	return 0;
}

/* Whether every write of the pairs the core's reads read is in the core
 * already (values that identify writes): then C' is the core. */
static bool closed_already(const struct analysis *a, const struct vsc_core *core)
{
	for (size_t i = 0; i < core->count; i++) {
		struct vsc_event_ref r = core->events[i];
		uint32_t q = a->pairs[r.thread][r.index].read, kept = 0;
		if (q == PAIR_NONE)
			continue;
		for (size_t j = 0; j < core->count; j++) /* cores are small here */
			kept += a->pairs[core->events[j].thread][core->events[j].index].write == q;
		if (kept != a->writes_of[q])
			return false;
	}
	return true;
}

/* Empty C' again, touching only what the last closure set. */
static void closure_reset(struct proof_closure *c)
{
	for (size_t i = 0; i < c->count; i++) {
		struct vsc_event_ref r = c->refs[i];
		uint32_t q = c->a->pairs[r.thread][r.index].write;
		c->in[c->rule->base[r.thread] + r.index] = 0;
		if (q != PAIR_NONE)
			c->pair_in[q] = 0;
	}
	c->count = 0;
	c->narrowed = 0;
	c->work_before = c->narrow ? c->narrow->work : 0;
}

int proof_closure_new(struct proof_closure **out, const struct vsc_program *p,
		      const struct analysis *a, const struct source_rule *rule, size_t most)
{
	struct proof_closure *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (!c)
		return -ENOMEM;
	*c = (struct proof_closure){ .p = p, .a = a, .rule = rule, .most = most };
	c->in = calloc(p->event_count ? p->event_count : 1, 1);
	c->pair_in = calloc(a->npairs ? a->npairs : 1, sizeof(uint32_t));
	if (!c->in || !c->pair_in || index_writers(c)) {
		proof_closure_free(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

void proof_closure_free(struct proof_closure *c)
{
	if (!c)
		return;
	if (c->narrow)
		source_narrow_free(c->narrow);
	free(c->in);
	free(c->pair_in);
	free(c->writers_off);
	free(c->writers);
	free(c->refs);
	free(c);
}

int proof_closure_of(struct proof_closure *c, const struct vsc_event_ref *events, size_t count,
		     const struct vsc_event_ref **closed, size_t *closed_count)
{
	int err = 0;

	closure_reset(c);
	for (size_t i = 0; i < count && !err; i++)
		err = add(c, c->rule->base[events[i].thread] + events[i].index);
	if (!err)
		err = close_sources(c);
	*closed = c->refs;
	*closed_count = c->count;
	return err;
}

int proof_closure_decide(struct proof_closure *c, const struct vsc_check_opts *opts, int *proof)
{
	return decide_closure(c, opts, proof);
}

int core_proof(const struct vsc_program *p, const struct analysis *a,
	       const struct source_rule *rule, struct vsc_core *core,
	       const struct vsc_check_opts *opts)
{
	struct proof_closure *c;
	const struct vsc_event_ref *closed;
	size_t count;
	int err;

	core->proof = CORE_PROOF_UNKNOWN;
	core->proof_events = 0;
	if (core->count <= PROOF_QUICK_EVENTS && closed_already(a, core)) {
		core->proof = CORE_PROOF_YES; /* the core was checked inconsistent */
		core->proof_events = core->count;
		return 0;
	}
	if ((err = proof_closure_new(&c, p, a, rule, PROOF_EVENTS)))
		return err;
	err = proof_closure_of(c, core->events, core->count, &closed, &count);
	if (err == 1) {
		core->proof_events = PROOF_EVENTS;
		err = 0;
	} else if (!err && count == core->count) {
		core->proof_events = count; /* nothing to put back: the core itself */
		core->proof = CORE_PROOF_YES;
	} else if (!err) {
		core->proof_events = count;
		err = decide_closure(c, opts, &core->proof);
	}
	proof_closure_free(c);
	return err;
}
