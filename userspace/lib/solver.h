/* SPDX-License-Identifier: MIT */
/* What every solver shares: the result it fills in, the limits it obeys, and
 * the small interface the dispatcher in check.c calls. */
#ifndef VSC_SOLVER_H
#define VSC_SOLVER_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "program.h"

struct analysis;

struct vsc_result {
	enum vsc_verdict verdict;
	long preemptions;  /* -1 when there is no witness */
	long lower;        /* --min: least preemptions proven >= this; -1: none */
	uint32_t *witness; /* thread of each step, event_count of them, or NULL */
	size_t witness_length;
	const char *solver;
	double time_s;
	uint64_t nodes, steps;          /* the search's own counts, 0 when not kept */
	uint64_t spins, dropped, parts; /* what the reductions removed (reduce.h) */
	uint64_t parts_out_of_memory;   /* of those parts, taken in (parts.c) */
	/* keep_for_explain: the analysis of analysis_of that an inconsistent
	 * verdict made (auto.c), for vsc_explain_result(); NULL when none */
	struct analysis *analysis;
	const struct vsc_program *analysis_of;
};

/* What the budgets of parts decided at once share (parts.c): the memory
 * their searches hold in all, a stop for the parts whose answer can no
 * longer matter, and the progress line (one a second, from any of them). */
struct budget_share {
	atomic_size_t memory;    /* bytes of search state of every part */
	atomic_uint cancel_from; /* parts from this index on stop, as at the deadline */
	atomic_uint done;        /* parts decided (named in progress lines) */
	uint32_t parts;
	pthread_mutex_t progress_lock;
	struct timespec last_progress;
};

/* Limits checked inside search loops: a deadline and a memory budget. */
struct budget {
	struct timespec deadline; /* tv_sec == 0: none */
	size_t memory_limit;      /* bytes */
	unsigned long steps;      /* work done, in budget_spend() units */
	unsigned long next_look;  /* steps at which to look at the clock next */
	unsigned long work_cap;   /* nonzero: steps at which to stop, as at the deadline */
	int progress;             /* report progress to on_progress */
	vsc_progress_fn on_progress;
	void *progress_ctx;
	struct timespec started, last_progress;
	const char *phase; /* what runs now, named in progress lines (NULL: none) */
	/* nonzero: inside a step's own solves of smaller programs (a cut's
	 * halves, prefix programs, writer groups): their phases are not
	 * named, the step's name stays in the progress lines */
	unsigned inner;
	struct budget_share *share; /* NULL: the only one */
	uint32_t part;              /* with share: the part this budget decides */
	size_t memory_held;         /* with share: bytes counted in share->memory */
	long least_shown;           /* --min: the least preemptions proven (0: none) */
};

void budget_init(struct budget *b, const struct vsc_check_opts *opts);
/* The CLOCK_MONOTONIC time `seconds` from now; tv_sec 0 (no deadline) when
 * seconds is not positive or beyond BUDGET_MAX_TIMEOUT_S. */
struct timespec deadline_after(double seconds);
/* Seconds left until t (negative once it has passed). */
double seconds_until(const struct timespec *t);
/* True when the time is up. Cheap: looks at the clock every 4096 calls. */
int budget_expired(struct budget *b);
/* The same, for a call that stands for `work` simple steps (a pass over
 * every thread, a round over every event): the clock is looked at every
 * 4096 units, so a costly loop is stopped as promptly as a cheap one. */
int budget_spend(struct budget *b, unsigned long work);
/* budget_expired() that looks at the clock now: for a caller asked seldom
 * and far apart (the SAT solver's terminator, asked every few conflicts:
 * on a formula of millions of clauses 4,096 of its calls took 40 s). */
int budget_look(struct budget *b);
void budget_progress(struct budget *b, const char *what, unsigned long long done,
		     unsigned long long total);
/* --min: the least preemptions of the program this budget decides are
 * proven at least `lower`: a progress line now, and the periodic lines say
 * it from now on (with or without an interleaving found). */
void budget_least(struct budget *b, long lower);
/* Name what runs from now on (a string that outlives the budget). */
void budget_phase(struct budget *b, const char *phase);
/* True when a search holding `bytes` of state passes the memory limit
 * (with a share: the bytes of every part's search together). */
int budget_over_memory(struct budget *b, size_t bytes);
/* share for `parts` parts decided at once, under parent's limits. */
int budget_share_init(struct budget_share *share, const struct budget *parent, uint32_t parts);
void budget_share_destroy(struct budget_share *share);
/* b: parent's limits (deadline, memory, progress) for part `part` of share,
 * with work counted from 0. */
void budget_for_part(struct budget *b, const struct budget *parent, struct budget_share *share,
		     uint32_t part);
/* The part is done: its search state is no longer counted. */
void budget_part_done(struct budget *b);

/* The question a solver answers, from the options. */
struct query {
	long bound;   /* -1: no bound */
	int minimize; /* least number of preemptions (within bound) */
	int want_witness;
	unsigned jobs; /* independent parts decided by up to this many threads (1: one by one) */
	const struct vsc_program *keep_analysis_of; /* keep_for_explain: the top program */
	int no_cut; /* a part that a cut would not help (stale_cut.c) */
	/* only a witness helps (a cut's half): no writer groups, and no
	 * bounded tries under their full cap (on the 10^5 stale trace of seed
	 * 2 they took 62-66 M of the two first halves' 72-86 M units) */
	int witness_only;
};

struct solver {
	const char *name;
	/* Fill res (verdict, preemptions, witness) or return -errno.
	 * VSC_UNKNOWN only when the budget ran out. */
	int (*solve)(const struct vsc_program *p, const struct query *q, struct budget *b,
		     struct vsc_result *res);
};

extern const struct solver auto_solver; /* analysis + engine: the default */
extern const struct solver exact_solver;
extern const struct solver paper_solver;
extern const struct solver sat_solver;       /* CaDiCaL */
extern const struct solver coherence_solver; /* values identify writes: saturation */
/* -p 0 through SAT (sat.c); fills res, VSC_UNKNOWN when b stops it. */
/* Whether -p 0 and --min go to the order of events (sat_decide_bounded)
 * rather than the order of threads first: SAT_EVENTS_THREADS threads or
 * more and at most SAT_EVENTS_MAX events (the reductions' shape: there the
 * order of threads on 411 threads took 1.7 s and 260 MB for -p 0 where
 * the gaps' counter takes 0.06 s and 9 MB; on 7-9 threads it is the other
 * way round, 0.00 s against 0.03-0.3 s). */
#define SAT_EVENTS_THREADS 64
#define SAT_EVENTS_MAX 30000
int sat_events_first(const struct vsc_program *p);
int sat_decide_no_preemption(const struct vsc_program *p, struct budget *b, struct vsc_result *res);
/* Any bound and --min through SAT over the order of events (sat_bound.c),
 * the least preemptions known to be at least lower: fills res
 * (VSC_UNKNOWN when b stops it, with the least's bounds when --min had a
 * witness); -E2BIG when p is too big to encode within the memory limit. */
int sat_decide_bounded(const struct vsc_program *p, const struct query *q, struct budget *b,
		       struct vsc_result *res, long lower);
/* The same with the encoding of a bound chosen: the gaps (1) or the slots
 * (0); sat_decide_bounded() takes the gaps when sat_events_first(p). */
int sat_decide_bounded_by(const struct vsc_program *p, const struct query *q, struct budget *b,
			  struct vsc_result *res, long lower, int gaps);

/* Free what keep_for_explain kept in res (check.c). */
void result_drop_analysis(struct vsc_result *res);

/* Preemptions of an interleaving given as threads per step; assumes it is
 * a valid interleaving of p. */
long count_preemptions(const struct vsc_program *p, const uint32_t *witness, size_t length);

#endif
