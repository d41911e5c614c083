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
	struct timespec started, last_progress;
	/* when set, a set is kept only if its C' is inconsistent too (a proof) */
	struct proof_closure *closure;
};

/* Allocate the masks and scratch for s->all[0 .. s->n), all kept. */
int shrink_prepare(struct shrink *s);
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
/* Keep s->trial as the candidate set, and let go of the rest of `all`. */
int shrink_keep_trial(struct shrink *s);
/* A progress line, at most one a second, when asked for. */
void shrink_progress(struct shrink *s, const char *phase);
/* A short inconsistent prefix of `all` (every event of the program):
 * the kept set becomes the shortest one found, closed (shrink_prefix.c). */
int shrink_prefix(struct shrink *s);
/* Large steps for a long execution: whole variables, then whole threads,
 * then halving chunks (each trial within s->trial_limit). Each step drops a group of events and, with them,
 * every read left without a possible source (and, for an RMW, what it
 * wrote), so that the rest stays a set that may be a core. */
int shrink_groups(struct shrink *s);
/* Single events, until no single removal keeps the set inconsistent. */
int shrink_single(struct shrink *s);

#endif
