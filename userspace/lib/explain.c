/* SPDX-License-Identifier: MIT */
/* Explanations: a minimal inconsistent core in which every read keeps a
 * write it could read from, and the cycle of forced orders behind it.
 *
 * At any trace length: localize.c first finds a cycle of forced orders in
 * the whole program, in linear time, and hands over the few events that
 * make it hold; that set is checked to be inconsistent on its own and then
 * shrunk, so the cost grows with the core, not with the trace. Only when
 * no such cycle exists (the reason is the preemption bound, or choices no
 * forced order captures) is the whole execution shrunk (shrink.c): whole
 * variables, whole threads and halving chunks, each with the reads it
 * leaves without a source, then single events.
 *
 * Deletion keeps the rule that every read of the set keeps a possible
 * source in it (a write of its value, or an initial value that may be it):
 * a core is never "a read whose writes were removed". Consistency is not
 * monotone, so single events are tried again until no single deletion
 * keeps the set inconsistent under that rule: then the core is 1-minimal. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "explain.h"
#include "opts.h"
#include "shrink.h"
#include "solver.h"
#include "userspace/util/clock.h"

#define CYCLE_SEARCH_LIMIT 300 /* events; beyond, no forced-order story */
#define AGAIN_FACTOR 10        /* shrinking for a proof: at most this many times */
#define AGAIN_MIN_S 120.0      /* the first shrinking's time, at least this many */
#define AGAIN_MAX_S 300.0      /* seconds and at most this many (CPU time) */
#define AGAIN_STRETCH_MOST 8.0 /* times the clock may stretch them on a loaded machine */
#define PROVEN_MOST 1024       /* events of a proof taken that is not minimal */
/* past SCAN_LONG events (shrink_window.c) a trace is shrunk for a proof
 * from a read without a source, a writer group or windows, never from
 * prefixes (on a 2.3 M-event recording they cost 454 s CPU and 6.2 GB,
 * against 20 s for the first core, and found nothing), and all of it
 * within this many times the verdict's time (plus TRIAL_MIN_S) */
#define AGAIN_LONG_WHOLES 1
#define AGAIN_MEMORY (256u << 20) /* bytes of search state a check may hold, */
#define AGAIN_MEMORY_PER_EVENT 64 /* and this many more per event of the trace */

static int compare_refs(const void *a, const void *b)
{
	const struct vsc_event_ref *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}
static bool in_order(const struct vsc_event_ref *refs, size_t count)
{
	for (size_t i = 1; i < count; i++)
		if (compare_refs(&refs[i - 1], &refs[i]) > 0)
			return false;
	return true;
}

struct vsc_program *vsc_program_subset(const struct vsc_program *p,
				       const struct vsc_event_ref *events, size_t count)
{
	struct vsc_program *sub = vsc_program_new();
	struct vsc_event_ref *sorted = malloc((count ? count : 1) * sizeof(*sorted));
	int err = 0;

	if (!sub || !sorted || program_unpack(p)) {
		free(sorted);
		goto fail;
	}
	memcpy(sorted, events, count * sizeof(*sorted));
	if (!in_order(sorted, count)) /* the shrinking's sets already are */
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

int verdict_of_events(const struct vsc_program *p, const struct vsc_event_ref *refs, size_t n,
		      struct vsc_check_opts opts)
{
	struct vsc_program *sub = vsc_program_subset(p, refs, n);
	struct vsc_result *res;
	int err, verdict;

	if (!sub)
		return -errno;
	opts.want_witness = false;
	opts.minimize = false;
	opts.progress = false;
	opts.keep_for_explain = false;
	err = vsc_check(sub, &opts, &res);
	vsc_program_free(sub);
	if (err)
		return err;
	verdict = vsc_result_verdict(res);
	vsc_result_free(res);
	return verdict;
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

/* Seconds of CPU this thread used (the others may decide other files). */
static double thread_cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* -ETIME once s's deadline has passed, else 0: before a step as long as
 * a pass over the execution, which looks at no clock (a 10^7-event trace
 * whose verdict left 0.4 s of --timeout: 1.2 s CPU of passes past it). */
static int past_deadline(const struct shrink *s)
{
	return s->deadline.tv_sec && seconds_until(&s->deadline) <= 0 ? -ETIME : 0;
}

/* The localized set, closed under the source rule, when it is
 * inconsistent on its own: 1; 0 when not, or -errno. */
static int start_localized(struct shrink *s)
{
	int err = s->localized_err;

	if (err != 0)
		return err < 0 ? err : 0;
	s->all = malloc((s->nlocalized ? s->nlocalized : 1) * sizeof(*s->all));
	if (!s->all)
		return -ENOMEM;
	memcpy(s->all, s->localized, s->nlocalized * sizeof(*s->all));
	s->n = s->nlocalized;
	if ((err = shrink_prepare(s)))
		return err;
	memcpy(s->trial, s->keep, s->n);
	if (shrink_close_trial(s) == 0)
		return 0;
	memcpy(s->keep, s->trial, s->n);
	return shrink_check_kept(s);
}

/* The events to shrink: the localized set when it is inconsistent on its
 * own, else (looking for a proof) a read without a source, else a writer
 * group's events that are, else (looking for a proof) a window, else a
 * short inconsistent prefix of the whole execution (not past SCAN_LONG
 * events when looking for a proof); then cut down in large steps. */
static int choose_start(struct shrink *s, struct vsc_core *core)
{
	int err = s->not_localized ? 0 : start_localized(s);

	if (err != 0) {
		core->localized = err > 0;
		return err < 0 ? err : 0;
	}
	s->not_localized = true;
	free(s->all);
	s->all = NULL;
	/* each step from here is a pass over the whole execution at least */
	if ((err = past_deadline(s)) || (err = every_event(s->p, &s->all, &s->n)) ||
	    (err = shrink_prepare(s)))
		return err;
	/* a read without a source first: one pass, where the whole
	 * execution's closure (shrink_whole) is several */
	if ((err = shrink_unsourced(s)) < 0)
		return err;
	if (err == 0 && ((err = shrink_whole(s)) || (err = shrink_writer_group(s)) < 0))
		return err;
	if (err == 0 && (err = shrink_scan(s)) < 0)
		return err;
	if (err == 0 && s->closure && shrink_scan_long(s))
		return -ETIME; /* no proof looked for past the windows */
	if (err == 0) {
		if ((err = shrink_prefix(s)))
			return err;
		/* looking for a proof: the prefix's reason is near its end */
		if (s->closure && (err = shrink_tail(s)) < 0)
			return err;
	}
	return shrink_groups(s);
}

/* Shrink from the start to a 1-minimal set, into core->events. */
static int shrink_to_core(struct shrink *s, struct vsc_core *core)
{
	int err;

	if ((err = choose_start(s, core)) || (err = shrink_single(s)))
		return err;
	core->events = malloc((s->n ? s->n : 1) * sizeof(*core->events));
	if (!core->events)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++)
		if (s->keep[i])
			core->events[core->count++] = s->all[i];
	core->minimal = !s->gave_up;
	return 0;
}

/* Whether core is a proof, within what is left of the deadline. */
static int check_proof(struct shrink *s, struct vsc_core *core)
{
	if (s->deadline.tv_sec)
		s->opts.timeout_s =
			seconds_until(&s->deadline) > 0 ? seconds_until(&s->deadline) : 1e-9;
	shrink_progress(s, "is the core a proof");
	return core_proof(s->p, s->a, s->rule, core, &s->opts);
}

/* Every set the shrinking for a proof kept passed with its C', the core
 * too: it is a proof, though a limit may have stopped it before it was
 * minimal (then it is taken only when small: a limit in the first steps
 * leaves most of the trace). Its C' is made again for its size. */
static int proven_by_construction(struct shrink *s, struct vsc_core *core)
{
	const struct vsc_event_ref *closed;
	int err;

	if (core->count > PROVEN_MOST && !core->minimal)
		return 0;
	err = proof_closure_of(s->closure, core->events, core->count, &closed, &core->proof_events);
	if (err == 0)
		core->proof = CORE_PROOF_YES;
	return err < 0 ? err : 0;
}

/* The core was not a proof: its C' is consistent, so what the shrinking
 * dropped held the trace's reason (a relaxed Peterson trace: the counter
 * reads that order the lock's handshakes went with the prefix). Shrink
 * again from the start keeping only sets whose C' is inconsistent too:
 * the core found then is a proof by construction, 1-minimal under that
 * rule. *core becomes it when it is; else (a limit, an error) the first
 * core stays, said not to be a proof. Within the deadline, and at most
 * AGAIN_FACTOR times the first shrinking's time (AGAIN_MIN_S at least,
 * AGAIN_MAX_S at most: wall time, which a loaded machine stretches); past
 * SCAN_LONG events at most AGAIN_LONG_WHOLES times the verdict's. */
static int shrink_for_proof(const struct shrink *first, struct vsc_core **core)
{
	struct shrink s = { .p = first->p,
			    .a = first->a,
			    .opts = first->opts,
			    .deadline = first->deadline,
			    .rule = first->rule,
			    .started = first->started,
			    .checks = first->checks,
			    .whole_s = first->whole_s,
			    .not_localized = first->not_localized,
			    .localized = first->localized,
			    .nlocalized = first->nlocalized,
			    .localized_err = first->localized_err };
	struct vsc_core *proven = calloc(1, sizeof(*proven));
	int err = proven ? proof_closure_new(&s.closure, s.p, s.a, s.rule, SIZE_MAX) : -ENOMEM;
	struct timespec now;
	double took, cpu, stretch, again;
	size_t cap;

	/* without --timeout, a bound of its own: a proof is worth some
	 * multiple of the first core's time, not any time; in CPU seconds,
	 * as a deadline stretched by how much longer the first core took on
	 * the clock (at load 22 on 2 cores the 120 s bound was 15 s of CPU) */
	clock_gettime(CLOCK_MONOTONIC, &now);
	took = (double)(now.tv_sec - s.started.tv_sec) + (now.tv_nsec - s.started.tv_nsec) / 1e9;
	cpu = thread_cpu_s() - first->cpu_started;
	stretch = cpu > 0 ? fmin(fmax(took / cpu, 1), AGAIN_STRETCH_MOST) : 1;
	again = fmin(fmax(AGAIN_FACTOR * cpu, AGAIN_MIN_S), AGAIN_MAX_S);
	if (shrink_scan_long(&s) && s.whole_s > 0)
		again = fmin(again, AGAIN_LONG_WHOLES * s.whole_s + TRIAL_MIN_S);
	again *= stretch;
	if (!s.deadline.tv_sec || seconds_until(&s.deadline) > again)
		s.deadline = deadline_after(again);
	/* and of memory: a consistent closure of a million events can fill
	 * gigabytes of failed states (6.2 GB on a 2.3 M-event recording) */
	cap = AGAIN_MEMORY + (size_t)AGAIN_MEMORY_PER_EVENT * s.p->event_count;
	if (!s.opts.memory_limit || s.opts.memory_limit > cap)
		s.opts.memory_limit = cap;

	shrink_progress(&s, "a core that is a proof");
	if (!err)
		err = shrink_to_core(&s, proven);
	if (!err)
		err = proven_by_construction(&s, proven);
	if (!err && proven->proof == CORE_PROOF_YES) {
		vsc_core_free(*core);
		*core = proven;
		proven = NULL;
	}
	proof_closure_free(s.closure);
	shrink_release(&s);
	vsc_core_free(proven);
	return err == -ENOMEM ? err : 0;
}

/* The core of p, with the analysis a of p (made here when a is NULL);
 * verdict_s: what p's inconsistent verdict took (0: not known), for the
 * check of the whole execution that is then not made again. */
static int explain(const struct vsc_program *p, const struct vsc_check_opts *opts,
		   const struct analysis *given, double verdict_s, struct vsc_core **out)
{
	struct shrink s = { .p = p, .a = given, .whole_s = verdict_s };
	struct source_rule rule = { 0 };
	struct analysis a;
	struct vsc_core *core = NULL;
	struct vsc_event_ref *localized = NULL;
	int err;

	if (!p || !out || !opts)
		return -EINVAL;
	*out = NULL;
	if (OPTS_LOAD(s.opts, opts))
		return -EINVAL;
	err = program_unpack(p);
	if (err)
		return err;
	s.opts.keep_for_explain = false; /* the shrinking's checks keep nothing */
	s.deadline = deadline_after(s.opts.timeout_s);
	if (!given) {
		struct budget b;
		budget_init(&b, &s.opts); /* its deadline: the same as s.deadline */
		if ((err = analysis_build_within(&a, p, &b)))
			return err;
		s.a = &a;
	}
	clock_gettime(CLOCK_MONOTONIC, &s.started);
	s.cpu_started = thread_cpu_s();
	s.rule = &rule;
	s.localized_err = localize_refutation(p, s.a, &s.deadline, &localized, &s.nlocalized);
	s.localized = localized;
	core = calloc(1, sizeof(*core));
	err = -ENOMEM;
	if (!core || (err = past_deadline(&s)) || (err = source_rule_init(&rule, p, s.a)))
		goto out;
	if ((err = shrink_to_core(&s, core)) || (err = check_proof(&s, core)))
		goto out;
	if (core->proof == CORE_PROOF_NO && (err = shrink_for_proof(&s, &core)))
		goto out;
	err = core->count <= CYCLE_SEARCH_LIMIT ? core_find_cycle(p, core) : 0;
out:
	if (!given)
		analysis_free(&a);
	free(localized);
	source_rule_free(&rule);
	shrink_release(&s);
	if (err) {
		vsc_core_free(core);
		return err;
	}
	*out = core;
	return 0;
}

int vsc_explain(const struct vsc_program *p, const struct vsc_check_opts *opts,
		struct vsc_core **out)
{
	return explain(p, opts, NULL, 0, out);
}

int vsc_explain_result(const struct vsc_program *p, struct vsc_result *res,
		       const struct vsc_check_opts *opts, struct vsc_core **out)
{
	bool kept;
	int err;

	if (out)
		*out = NULL;
	if (!res || res->verdict != VSC_INCONSISTENT)
		return -EINVAL;
	/* the analysis kept says the result is p's (the API allows another) */
	kept = res->analysis_of == p;
	err = explain(p, opts, kept ? res->analysis : NULL, kept ? fmax(res->time_s, 1e-9) : 0,
		      out);
	result_drop_analysis(res);
	return err;
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

int vsc_core_proof(const struct vsc_core *core, size_t *events)
{
	if (events)
		*events = core->proof_events;
	return core->proof;
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
