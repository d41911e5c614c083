/* SPDX-License-Identifier: MIT */
/* For programs whose values identify writes (coherence.c): a run under a
 * coherence order guessed from the values, and a lower bound on the
 * preemptions read from the witness it finds (coherence_guess.c;
 * docs/solvers.md, "Worker pools: a coherence order from the values"). */
#ifndef VSC_COHERENCE_GUESS_H
#define VSC_COHERENCE_GUESS_H

#include "solver.h"

#define COH_NONE UINT32_MAX       /* rf: the event reads nothing */
#define COH_INIT (UINT32_MAX - 1) /* rf: it reads the initial value */

/* What coherence.c found: each read's one source. */
struct coh_sources {
	const struct vsc_program *p;
	uint32_t k, n, nvars;
	const uint32_t *base; /* per thread + 1: flat number of its event 0 */
	const uint32_t *rf;   /* per flat event: the write it reads, COH_INIT or COH_NONE */
};

/* Each write's readers: rlist[roff[w], roff[w + 1]) (roff: n + 2 words,
 * filled here). 0 or -ENOMEM. */
int coh_list_readers(const struct coh_sources *s, uint32_t *roff, uint32_t **rlist);

/* Each variable's writes ordered by value (ascending, then descending;
 * plain writes nobody reads in that order, or floating), and runs that
 * keep program order, sources, that order and the reads before the next
 * write, until one has at most `enough` preemptions. 1: the best SC
 * interleaving found, in steps (thread per step) with *pre preemptions;
 * 0: every order holds a cycle; -errno. */
int coherence_guess_run(const struct coh_sources *s, struct budget *b, long enough, uint32_t *steps,
			long *pre);

/* Fewer preemptions in steps (an SC interleaving with *pre) by joining
 * preempted threads' pieces where the witness's own orders allow it
 * (coherence_repair.c): steps and *pre rewritten when it finds some. 0 or
 * -ENOMEM (steps untouched then). */
int coh_repair_witness(const struct coh_sources *s, uint32_t *steps, long *pre, struct budget *b);

/* A lower bound on the preemptions of every SC interleaving, computed
 * along steps, an SC interleaving: >= 0, or -errno. */
long coherence_path_bound(const struct coh_sources *s, const uint32_t *steps, struct budget *b);

/* Coherence chains (coherence_chains.c): each variable's writes in the
 * order of a witness, and which steps of it (a write and the one before
 * it) every SC interleaving keeps. */
struct coh_chains {
	const struct coh_sources *s;
	uint32_t *conext, *coprev; /* per flat event: the next/previous write of its variable */
	uint32_t *cofirst;         /* per variable: its first write (then nvars words of scratch) */
	uint64_t *proven;          /* bit per flat event: its step from coprev holds in every run */
};

/* Prove what it can of the coherence order of steps (an SC interleaving);
 * roff, rlist: each write's readers (coh_list_readers). 0, -ETIME or
 * -ENOMEM (nothing to free then). */
int coh_chains_prove(const struct coh_sources *s, const uint32_t *steps, const uint32_t *roff,
		     const uint32_t *rlist, struct budget *b, struct coh_chains *ch);
void coh_chains_free(struct coh_chains *ch);

/* visit(ctx, g) for each g that event f (thread t) precedes in every SC
 * interleaving by one order: program order, sources, a read of the
 * initial value before the first write, and the proven steps (a write
 * before the next, and each reader of the write before it). */
void coh_chains_successors(const struct coh_chains *ch, const uint32_t *roff, const uint32_t *rlist,
			   uint32_t f, uint32_t t, void (*visit)(void *ctx, uint32_t to),
			   void *ctx);

/* The threads steps (an SC interleaving) switches away from with events
 * left, each once, at most `most` of them, into out; pos: k words of
 * scratch. No other thread is forced to stop anywhere. */
uint32_t coh_preempted_threads(const struct coh_sources *s, const uint32_t *steps, uint32_t *pos,
			       uint32_t *out, uint32_t most);

/* Threads run whole (coherence_blocks.c): with the stops charged along a
 * witness summing to L, every thread but those charged (charged[0,
 * ncharged)) runs whole in an interleaving of L preemptions. 1 when the
 * threads with an event in steps[lo, hi) cannot all run whole (so the
 * least is above L); 0 when they can as far as shown; COH_TOO_MANY_BLOCKS
 * when more than max_blocks threads are there; -ETIME or -ENOMEM. */
#define COH_TOO_MANY_BLOCKS 2
int coh_whole_threads_refuted(const struct coh_sources *s, const uint32_t *steps, uint32_t lo,
			      uint32_t hi, const uint32_t *charged, uint32_t ncharged,
			      uint32_t max_blocks, struct budget *b);

/* The same for the threads threads[0, nb) (distinct, none charged): 1
 * when they cannot all run whole, 0 when they can as far as shown,
 * -ETIME or -ENOMEM. */
int coh_blocks_refuted(const struct coh_sources *s, const uint32_t *threads, uint32_t nb,
		       struct budget *b);

/* Threads around u, a thread steps switches away from unfinished, tried
 * whole (coherence_window.c): at most max_blocks of them, charged[0,
 * ncharged) aside. 1: they cannot all run whole; 0: not shown; -ETIME or
 * -ENOMEM. */
int coh_whole_around(const struct coh_sources *s, const uint32_t *steps, uint32_t u,
		     const uint32_t *charged, uint32_t ncharged, uint32_t max_blocks,
		     struct budget *b);

#endif
