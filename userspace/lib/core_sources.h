/* SPDX-License-Identifier: MIT */
/* The source rule of a core (core_sources.c): which reads of a set of
 * events keep in it a source that the whole trace offers them. */
#ifndef VSC_CORE_SOURCES_H
#define VSC_CORE_SOURCES_H

#include "analysis.h"

struct source_rule {
	const struct vsc_program *p;
	const struct analysis *a;
	uint32_t gen;                     /* stamps of the counts below */
	uint32_t *all_stamp, *all_count;  /* per pair: writes of it in the set */
	uint32_t *own_stamp, *own_count;  /* per pair: ... by the thread being scanned */
	uint32_t *last_stamp, *last_pair; /* per var: the thread's last write so far, */
	uint32_t *last_flat;              /* its pair and its flat number */
	uint32_t *base;                   /* per thread + 1: flat number of its event 0 */
	uint32_t *hider;       /* per flat event: its thread's last write of its var before it */
	uint32_t *pair_writer; /* per pair: the one thread writing it, or NONE / several */
};

/* The rule for p with its analysis a (two passes over p). 0 or -ENOMEM. */
int source_rule_init(struct source_rule *r, const struct vsc_program *p, const struct analysis *a);
void source_rule_free(struct source_rule *r);

/* Whether the initial value of e's variable may be the value e reads. */
bool init_may_be(const struct vsc_program *p, const struct vsc_event *e);

/* The source rule for one read r and one write w (NULL: the initial
 * value), given hider, the index of r's thread's last write of r's
 * variable before r (NONE_HIDER when there is none): the one definition
 * behind vsc_read_may_see, the proof's closure and the rule on sets. */
#define NONE_HIDER UINT32_MAX
bool source_may_see(const struct vsc_program *p, struct vsc_event_ref r, uint32_t hider,
		    const struct vsc_event_ref *w);

/* Whether the read e has no candidate source in the whole trace (then the
 * trace is inconsistent, and e with h and a write of its value shows it). */
bool source_rule_unsourced(const struct source_rule *r, struct vsc_event_ref e);
/* The index of e's thread's last write of e's variable before e (h), or
 * NONE_HIDER when there is none. */
uint32_t source_rule_hider(const struct source_rule *r, struct vsc_event_ref e);

/* The reads of refs[0..m) (sorted by thread, then index) that keep no
 * candidate source among refs (nor, if they have none in the whole program,
 * what shows that): their positions in refs
 * go to bad (room for m), at most `most` of them. Returns how many. */
size_t source_rule_lacking(struct source_rule *r, const struct vsc_event_ref *refs, size_t m,
			   uint32_t *bad, size_t most);

#endif
