/* SPDX-License-Identifier: MIT */
/* Shrinking a set of events that is inconsistent on its own to a core:
 * the candidate set is a mask over `all`; every step keeps the rule that
 * each read keeps a possible source in the set (shrink.c). */
#ifndef VSC_SHRINK_H
#define VSC_SHRINK_H

#include <time.h>

#include "analysis.h"
#include "core_sources.h"

#define TRIAL_MIN_S 0.2 /* seconds a shrinking trial may always take */

struct shrink {
	const struct vsc_program *p;
	const struct analysis *a;
	struct vsc_check_opts opts;
	struct timespec deadline; /* tv_sec 0: none */
	double trial_limit;       /* seconds for one trial of shrink_groups; 0: none */
	double whole_s;           /* the whole execution's check took this; 0: not made */
	struct vsc_event_ref *all;
	size_t n;
	unsigned char *keep;  /* the candidate set */
	unsigned char *trial; /* a candidate being tried */
	struct vsc_event_ref *scratch;
	uint32_t *pos;            /* scratch: the position in `all` of each scratch entry */
	uint32_t *bad;            /* scratch: reads left without a source */
	struct source_rule *rule; /* which reads keep a possible source (core_sources.c) */
	uint32_t *wcount;         /* per pair: kept events writing it (closure) */
	uint32_t *readers_off;    /* per pair + 1: CSR of positions in `all` */
	uint32_t *readers;        /* that read the pair */
	uint32_t *work;           /* worklist of the closure */
	bool gave_up;             /* a check ended unknown: minimality not proven */
	unsigned long checks;     /* solver calls so far (progress lines) */
	unsigned long undecided;  /* of them, stopped by a limit */
	struct timespec started, last_progress;
	double cpu_started; /* the thread's CPU seconds when it started */
	/* the localized set did not hold (no cycle, or not inconsistent on its
	 * own): the shrinking for a proof does not look for it again */
	bool not_localized;
	/* when set, a set is kept only if its C' is inconsistent too (a proof) */
	struct proof_closure *closure;
	/* the localized set (localize_refutation: its result, and its events
	 * when 0), made once by explain() before the source rule, so that its
	 * graph and the rule's table of every event are not held at once, and
	 * shared with the shrinking for a proof; explain() owns it */
	const struct vsc_event_ref *localized;
	size_t nlocalized;
	int localized_err;
};

/* Where events fall in time (shrink_key.c): recorded times (@ts) when
 * every event has one and asked for, else trace lines when they follow
 * time (a recorded trace), else the fraction of the thread before them. */
enum shrink_key_kind {
	KEY_FRACTION,
	KEY_LINE,
	KEY_TIME
};
struct shrink_key {
	const struct vsc_program *p;
	enum shrink_key_kind kind;
	uint64_t first; /* KEY_TIME: the earliest time, key 0 */
	uint64_t last;  /* the largest key */
};
/* by_time: recorded times first (the windows for a proof); else lines or
 * fractions (the prefixes: a recorded trace's prefix by lines, cut
 * between batches, is often inconsistent early, which a first core wants
 * and a proof does not). */
void shrink_key_init(struct shrink_key *k, const struct vsc_program *p, bool by_time);
uint64_t shrink_key_of(const struct shrink_key *k, uint32_t t, uint32_t i);
/* How many events of thread t have a key of at most L. */
uint32_t shrink_key_count_upto(const struct shrink_key *k, uint32_t t, uint64_t L);
/* How many events have a key of at most L. */
size_t shrink_key_prefix_size(const struct shrink_key *k, uint64_t L);
/* The least key whose prefix has at least `size` events. */
uint64_t shrink_key_for_size(const struct shrink_key *k, size_t size);

/* Allocate the masks and scratch for s->all[0 .. s->n), all kept. */
int shrink_prepare(struct shrink *s);
/* Free the arrays (the handle may be prepared again). */
void shrink_release(struct shrink *s);
/* 1 when the kept events are inconsistent (and every read keeps a possible
 * source), 0 when not or undecided, -errno on failure. */
int shrink_check_kept(struct shrink *s);
/* Drop from s->trial every read left without a possible source, and what
 * such an RMW wrote, and so on. Returns how many events stay. */
size_t shrink_close_trial(struct shrink *s);
/* 1 when the events of s->trial are inconsistent, checked within limit_s
 * seconds (0: only the deadline); 0 when not or undecided, or -errno. */
int shrink_check_trial(struct shrink *s, double limit_s);
/* Looking for a proof (s->closure): s->trial becomes its C' (closed
 * under the source rule, its own C'), checked as shrink_check_trial: one
 * check where a set and its C' take two. */
int shrink_check_closed_trial(struct shrink *s, double limit_s);
/* The same for events[0..m) (sorted by thread, then index; they may be
 * s->scratch): when C' of them passes, s->trial becomes it and 1 is
 * returned. Costs what C' does, not what `all` does, until it passes. */
int shrink_check_closure_of(struct shrink *s, const struct vsc_event_ref *events, size_t m,
			    double limit_s);
/* Keep s->trial as the candidate set, and let go of the rest of `all`. */
int shrink_keep_trial(struct shrink *s);
/* A progress line, at most one a second, when asked for. */
void shrink_progress(struct shrink *s, const char *phase);
/* The whole execution (`all` is every event), closed, as the kept set,
 * checked (unless s->whole_s says it was, its closure being itself): 0,
 * or -errno (-EINVAL when it is not inconsistent, -ETIME on a limit). */
int shrink_whole(struct shrink *s);
/* The events of a writer group (shrink_writer_group.c) as the kept set,
 * when one is inconsistent on its own: 1, 0 when none is, or -errno.
 * After shrink_whole: each group is checked within its time. */
int shrink_writer_group(struct shrink *s);
/* Looking for a proof (shrink_unsourced.c): a read that has no candidate
 * source in the whole trace, with its h and a write of its value, as the
 * kept set: 1, 0 when there is none (or its check did not pass), or -errno. */
int shrink_unsourced(struct shrink *s);
/* A short inconsistent prefix of `all` (every event of the program):
 * the kept set becomes the shortest one found, closed (shrink_prefix.c). */
int shrink_prefix(struct shrink *s);
/* Looking for a proof (shrink_window.c): windows of `all` (every event)
 * by key, from the start, until one passes with its C' (then the kept
 * set): 1, 0 when none did in time, or -errno. */
int shrink_scan(struct shrink *s);
/* Whether the trace is long enough that the scan's time is cut and no
 * prefix is tried after it (the scan of windows is all there is). */
bool shrink_scan_long(const struct shrink *s);
/* The kept set (a prefix, its violation near its end) cut to its last
 * events by key: tails of 1024 events, 4 times more each time, until one
 * passes the check (with s->closure: with its C'): 1 when one did (the
 * kept set becomes it), 0 when none did, or -errno. */
int shrink_tail(struct shrink *s);
/* Large steps for a long execution: whole variables, then whole threads,
 * then halving chunks (each trial within s->trial_limit). Each step drops a group of events and, with them,
 * every read left without a possible source (and, for an RMW, what it
 * wrote), so that the rest stays a set that may be a core. */
int shrink_groups(struct shrink *s);
/* Single events, until no single removal keeps the set inconsistent. */
int shrink_single(struct shrink *s);

#endif
