/* SPDX-License-Identifier: MIT */
/* Orders from values written once, for the forced-order saturation.
 *
 * Let x have several writers, a known initial value other than v, and one
 * write of v. A read of v (or the read half of an RMW) sees the last write
 * of x before it, and its value is v, so that write is the one write of v:
 * it comes before the read in every SC interleaving. A counter incremented
 * under a lock (read K - 1, then write K, each value written once) is such
 * a variable: its edges and program order chain every increment after the
 * one before, so they order the critical sections in every SC interleaving,
 * and the saturation carries that order to the reads of the lock's own
 * variables (a spin read of a flag falls within one critical section of
 * the flag's writer instead of anywhere it holds that value).
 *
 * Variables with one writer are left to the epochs (saturate.c). A read
 * that would have to see a later write of its own thread gets an edge
 * against program order: a cycle, which refutes, as it should. */
#include "saturate_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NO_WRITE UINT32_MAX

/* Is pair (of x) written once by a variable of several writers, with an
 * initial value that is not it? */
static int written_once(const struct sat_state *s, uint32_t x, uint32_t pair)
{
	return s->a->writers[x] > 1 && s->a->writes_of[pair] == 1 && !init_matches(s, x, pair);
}

/* Is some pair written_once()? Else there is nothing to add (and no room
 * to take: a word per event on the one-writer traces of 10^7 events). */
static int any_written_once(const struct sat_state *s)
{
	for (uint32_t t = 0; t < s->k; t++)
		for (uint32_t i = 0; i < s->p->threads[t].length; i++) {
			uint32_t w = s->a->pairs[t][i].write, x = s->p->threads[t].events[i].var;
			if (w != PAIR_NONE && written_once(s, x, w))
				return 1;
		}
	return 0;
}

/* once[pair]: the flat write of each pair written_once(), else NO_WRITE. */
static uint32_t *find_single_writes(const struct sat_state *s)
{
	uint32_t *once = malloc(((size_t)s->a->npairs + 1) * sizeof(uint32_t));

	if (!once)
		return NULL;
	memset(once, 0xff, ((size_t)s->a->npairs + 1) * sizeof(uint32_t));
	for (uint32_t t = 0, f = 0; t < s->k; t++)
		for (uint32_t i = 0; i < s->p->threads[t].length; i++, f++) {
			uint32_t w = s->a->pairs[t][i].write, x = s->p->threads[t].events[i].var;
			if (w != PAIR_NONE && written_once(s, x, w))
				once[w] = f;
		}
	return once;
}

/* The single write a read at (t, i) must follow, or NO_WRITE. */
static uint32_t source_of(const struct sat_state *s, const uint32_t *once, uint32_t t, uint32_t i)
{
	uint32_t q = s->a->pairs[t][i].read;

	return q == PAIR_NONE ? NO_WRITE : once[q];
}

/* s->ue_off / s->ue: per flat write, the reads that must follow it (CSR by
 * source; both NULL when there are none). Returns 0 or -ENOMEM. */
int saturate_unique_edges(struct sat_state *s)
{
	uint32_t *once;

	if (!any_written_once(s))
		return 0;
	once = find_single_writes(s);
	s->ue_off = calloc((size_t)s->n + 2, sizeof(uint32_t));
	if (!once || !s->ue_off) {
		free(once);
		return -ENOMEM;
	}
	for (int fill = 0; fill < 2; fill++) {
		for (uint32_t t = 0, f = 0; t < s->k; t++)
			for (uint32_t i = 0; i < s->p->threads[t].length; i++, f++) {
				uint32_t w = source_of(s, once, t, i);
				if (w == NO_WRITE)
					continue;
				if (fill)
					s->ue[s->ue_off[w]++] = f;
				else
					s->ue_off[w + 1]++;
			}
		if (fill)
			break;
		for (uint32_t f = 0; f < s->n; f++)
			s->ue_off[f + 1] += s->ue_off[f];
		s->ue = malloc(((size_t)s->ue_off[s->n] + 1) * sizeof(uint32_t));
		if (!s->ue) {
			free(once);
			return -ENOMEM;
		}
	}
	for (uint32_t f = s->n; f > 0; f--) /* the fill moved each start to the next */
		s->ue_off[f] = s->ue_off[f - 1];
	s->ue_off[0] = 0;
	free(once);
	return 0;
}
