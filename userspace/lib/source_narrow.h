/* SPDX-License-Identifier: MIT */
/* Narrowing a read's candidate sources by orders that every SC interleaving
 * of the whole trace keeps (source_narrow.c): what the proof check of a
 * core puts back. */
#ifndef VSC_SOURCE_NARROW_H
#define VSC_SOURCE_NARROW_H

#include "core_sources.h"

/* The last event of each thread forced before an event, or the first
 * forced after it: per thread, valid where stamp == gen. */
struct frontier {
	uint32_t *at, *stamp, *ptr;
	uint32_t gen;
};

struct source_narrow {
	const struct vsc_program *p;
	const struct analysis *a;
	const struct source_rule *rule;
	uint32_t *in_off, *in_at, *in_from;  /* per thread (CSR): reads with one source, */
	uint32_t *out_off, *out_at, *out_to; /* by index, and that source's flat number */
	uint32_t *next_write; /* per flat event: its thread's next write of its var */
	uint32_t *in_clock;   /* per incoming order x thread: events forced before */
	uint32_t *out_clock;  /* per outgoing order x thread: first forced after */
	uint32_t *queue;      /* threads whose frontier moved, */
	uint8_t *queued;      /* and whether each is in it */
	struct frontier before_read, before_hider, after_read;
	uint64_t work;        /* orders looked at by the walks so far */
	uint32_t read_thread; /* the read the frontiers are about */
	bool has_hider;
};

/* The forced orders of p (program order, and each read whose candidates,
 * by the source rule, are one write of another thread after that write):
 * 0 or -ENOMEM. */
int source_narrow_init(struct source_narrow *n, const struct vsc_program *p,
		       const struct analysis *a, const struct source_rule *rule);
void source_narrow_free(struct source_narrow *n);

/* The clocks of the orders (source_clocks.c), which stand in for the
 * walks: 0, 1 when not built (a cycle, or too many words), or -ENOMEM. */
int source_clocks_build(struct source_narrow *n);
/* With them: how many events of thread v are forced before or at (t, i),
 * and the first event of v forced at or after it (UINT32_MAX: none). */
uint32_t source_clock_before(const struct source_narrow *n, uint32_t t, uint32_t i, uint32_t v);
uint32_t source_clock_after(const struct source_narrow *n, uint32_t t, uint32_t i, uint32_t v);

/* The indices of thread u (not the read's) where the read of the last
 * source_narrow_read may find a kept candidate: [*from, *to). Past the
 * last write of u before `from` none is kept, nor from `to` on. */
void source_narrow_span(const struct source_narrow *n, uint32_t u, uint32_t *from, uint32_t *to);

/* Look at the read r: the frontiers of r and of its hiding write. */
void source_narrow_read(struct source_narrow *n, struct vsc_event_ref r);

/* Whether w, another thread's write of the value the read of the last
 * source_narrow_read reads, may still be its source: not forced after the
 * read, not forced before its hiding write, and not overwritten by its own
 * thread before something forced before the read. */
bool source_narrow_keeps(const struct source_narrow *n, struct vsc_event_ref w);

#endif
