/* SPDX-License-Identifier: MIT */
/* The source rule of cores and its narrowing by forced orders, written
 * apart from libvsc (core_sources.c, source_narrow.c) for the tests: the
 * orders by a transitive closure over a matrix, on programs of up to
 * NARROW_REF_MAX events. */
#ifndef VSC_TEST_NARROW_REF_H
#define VSC_TEST_NARROW_REF_H

#include <stdbool.h>
#include <stddef.h>

#include "vsc/vsc.h"

#define NARROW_REF_MAX 64

struct narrow_ref {
	const struct vsc_program *p;
	size_t n;                         /* events, numbered thread by thread */
	size_t first[NARROW_REF_MAX + 1]; /* per thread: the number of its event 0 */
	unsigned char before[NARROW_REF_MAX][NARROW_REF_MAX]; /* a before b in every SC run */
};

/* The forced orders of p: 0, or -1 when p has too many events. */
int narrow_ref_init(struct narrow_ref *r, const struct vsc_program *p);
size_t narrow_ref_number(const struct narrow_ref *r, struct vsc_event_ref e);
/* The value a write (or an RMW) writes. */
int64_t ref_written_value(const struct vsc_event *w);
/* The index of the last write of rd's variable by rd's thread before it,
 * or -1. */
long ref_own_last_write(const struct vsc_program *p, struct vsc_event_ref rd);
/* The source rule: whether w (NULL: the initial value) is a candidate of
 * the read rd, as far as program order goes. */
bool ref_candidate(const struct vsc_program *p, struct vsc_event_ref rd,
		   const struct vsc_event_ref *w);
/* The rule narrowed: a candidate, not ruled out by the forced orders. */
bool narrow_ref_keeps(const struct narrow_ref *r, struct vsc_event_ref rd,
		      const struct vsc_event_ref *w);
/* ev[0..n) with every source narrow_ref_keeps allows each of its reads,
 * again for the RMWs added: into out (room for NARROW_REF_MAX), sorted.
 * Returns the count. */
size_t narrow_ref_close(const struct narrow_ref *r, const struct vsc_event_ref *ev, size_t n,
			struct vsc_event_ref *out);

#endif
