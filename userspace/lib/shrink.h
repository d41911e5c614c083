/* SPDX-License-Identifier: MIT */
/* Shrinking a set of events that is inconsistent on its own to a core:
 * the candidate set is a mask over `all`; every step keeps the rule that
 * each read keeps a possible source in the set (shrink.c). */
#ifndef VSC_SHRINK_H
#define VSC_SHRINK_H

#include <time.h>

#include "analysis.h"

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
	struct written *written; /* scratch for admissible() */
	uint32_t *wcount;        /* per pair: kept events writing it (closure) */
	uint32_t *readers_off;   /* per pair + 1: CSR of positions in `all` */
	uint32_t *readers;       /* that read the pair */
	uint32_t *work;          /* worklist of the closure */
	bool gave_up;            /* a check ended unknown: minimality not proven */
};

/* Allocate the masks and scratch for s->all[0 .. s->n), all kept. */
int shrink_prepare(struct shrink *s);
void shrink_release(struct shrink *s);
/* 1 when the kept events are inconsistent (and every read keeps a possible
 * source), 0 when not or undecided, -errno on failure. */
int shrink_check_kept(struct shrink *s);
/* Large steps for a long execution: whole variables, then whole threads,
 * then halving chunks (each trial within s->trial_limit). Each step drops a group of events and, with them,
 * every read left without a possible source (and, for an RMW, what it
 * wrote), so that the rest stays a set that may be a core. */
int shrink_groups(struct shrink *s);
/* Single events, until no single removal keeps the set inconsistent. */
int shrink_single(struct shrink *s);

#endif
