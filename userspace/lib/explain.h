/* SPDX-License-Identifier: MIT */
/* Explanations, internal: the core handle, localizing a refutation in a long
 * trace (localize.c), and the justified cycle of a small core (cycle.c). */
#ifndef VSC_EXPLAIN_H
#define VSC_EXPLAIN_H

#include "analysis.h"
#include "core_sources.h"

#define CORE_PROOF_YES 1      /* with every source of its reads: inconsistent */
#define CORE_PROOF_NO 0       /* ... consistent: it holds for its own sources only */
#define CORE_PROOF_UNKNOWN -1 /* not checked (too big) or undecided */

/* An order of the cycle or of a justification. Orders live in one pool;
 * why_first/why_count give the orders that justify pool[i] (none for
 * program order and for reads-from with a single candidate write). */
struct vsc_core {
	struct vsc_event_ref *events;
	size_t count;
	struct vsc_order *pool; /* the cycle is pool[0 .. cycle_length) */
	size_t *why_first, *why_count;
	size_t pool_length, cycle_length;
	bool minimal;
	bool localized;      /* found from a cycle of forced orders of the whole trace */
	int proof;           /* CORE_PROOF_*: core_proof.c */
	size_t proof_events; /* events of the core with every source put back */
};

/* A small set of events around a cycle of forced orders of the whole
 * program (each order's reason inside the set), sorted by thread and index.
 * Returns 0 and the set, 1 when no such cycle is seen (the reason is subtler,
 * or the bound), or -errno (-ETIME past deadline, when it is not NULL and
 * set). Linear in the program. */
int localize_refutation(const struct vsc_program *p, const struct analysis *a,
			const struct timespec *deadline, struct vsc_event_ref **events,
			size_t *count);

/* The verdict on the events refs[0..n) of p alone, under opts (no witness,
 * no --min, no progress): VSC_* or -errno. */
int verdict_of_events(const struct vsc_program *p, const struct vsc_event_ref *refs, size_t n,
		      struct vsc_check_opts opts);

/* Whether the core with every source the trace offers its reads is still
 * inconsistent (core->proof, core->proof_events): 0 or -errno. */
int core_proof(const struct vsc_program *p, const struct analysis *a,
	       const struct source_rule *rule, struct vsc_core *core,
	       const struct vsc_check_opts *opts);

/* C' of any set of events, again and again (the shrinking asks it of
 * each trial when it looks for a core that is a proof): one handle per
 * program, each call costs what the set and its candidates touch. */
struct proof_closure;
int proof_closure_new(struct proof_closure **out, const struct vsc_program *p,
		      const struct analysis *a, const struct source_rule *rule, size_t most);
void proof_closure_free(struct proof_closure *c);
/* C' of events[0..count) into *closed (valid until the next call): 0, 1
 * when it grows past `most` events (proof_closure_new), or -errno. */
int proof_closure_of(struct proof_closure *c, const struct vsc_event_ref *events, size_t count,
		     const struct vsc_event_ref **closed, size_t *closed_count);
/* The last C' decided into *proof (CORE_PROOF_*), within opts and at most
 * the proof check's own time: 0 or -errno. */
int proof_closure_decide(struct proof_closure *c, const struct vsc_check_opts *opts, int *proof);

/* The cycle of forced orders of the core's events, each derived order with
 * its justification, into core->pool. 0 when none is found (core->cycle_length
 * stays 0), or -errno. */
int core_find_cycle(const struct vsc_program *p, struct vsc_core *core);

#endif
