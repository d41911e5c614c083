/* SPDX-License-Identifier: MIT */
/* At most k preemptions over the order of events without slots
 * (encode_events.h): a totalizer over the gaps' literals.
 *
 * gap(a) says that a and a + 1 (of one thread) run together: no event of
 * another thread between them. A preemption is exactly a gap that does
 * not run together (event a is followed by another thread's, and a is not
 * its thread's last), so an interleaving's preemptions are its false gap
 * literals. The totalizer counts them: each node's outputs r_j ("at least
 * j of my leaves are false") follow from its children's by
 * a_i and b_j -> r_(i+j), up to the cutoff; the leaves are the negated gap
 * literals. Only that direction is needed: assuming not r_(k+1) at the
 * root forbids k + 1 false gaps, and an interleaving with at most k sets
 * every output to its exact count. */
#include <errno.h>
#include <stdlib.h>

#include "encode_events.h"

struct count_node {
	int *out; /* out[j - 1]: at least j of the leaves below are false */
	uint32_t size;
};

/* A parent of a and b, outputs up to cutoff; a's and b's outputs are
 * freed. 0, -ENOMEM, -ETIME. */
static int merge(struct event_encoding *e, struct count_node *a, struct count_node *b,
		 uint32_t cutoff, struct count_node *to, struct budget *budget)
{
	uint32_t size = a->size + b->size < cutoff ? a->size + b->size : cutoff;
	int *out = malloc(size * sizeof(*out));
	int err = 0;

	if (!out) {
		err = -ENOMEM;
		size = 0;
	}
	for (uint32_t j = 0; j < size; j++)
		out[j] = ++e->nvars;
	for (uint32_t i = 0; i <= a->size && i <= size; i++)
		for (uint32_t j = 0; j <= b->size && i + j <= size; j++) {
			int lits[3], n = 0;
			if (i + j == 0)
				continue;
			if (i)
				lits[n++] = -a->out[i - 1];
			if (j)
				lits[n++] = -b->out[j - 1];
			lits[n++] = out[i + j - 1];
			event_clause(e, lits, n);
		}
	if (!err && budget_spend(budget, (unsigned long)(a->size + 1) * (b->size + 1)))
		err = -ETIME;
	free(a->out);
	free(b->out);
	*to = (struct count_node){ out, size }; /* to may be a */
	return err;
}

/* Room for the counter's variables: each level has at most cutoff outputs
 * per node and no more than the leaves below it. */
static int reserve(struct event_encoding *e, uint32_t leaves, uint32_t cutoff)
{
	uint64_t vars = 0;

	for (uint64_t width = 2; width / 2 < leaves; width *= 2)
		vars += (leaves + width - 1) / width * (width < cutoff ? width : cutoff);
	return events_reserve(e, vars);
}

/* The leaves: each gap literal, negated (a preemption). */
static uint32_t leaves(const struct cycle_order *o, struct count_node *level, int *err)
{
	uint32_t count = 0;

	for (uint32_t a = 0; a < o->e->n && !*err; a++) {
		if (!o->gap[a])
			continue;
		if (!(level[count].out = malloc(sizeof(int)))) {
			*err = -ENOMEM;
			break;
		}
		level[count].size = 1;
		level[count++].out[0] = -o->gap[a];
	}
	return count;
}

int gap_counter(struct cycle_order *o, uint32_t cutoff, int **out, uint32_t *outputs,
		struct budget *b)
{
	struct event_encoding *e = o->e;
	struct count_node *level = malloc((e->n + 1) * sizeof(*level));
	uint32_t count;
	int err = 0;

	*out = NULL;
	*outputs = 0;
	if (!level)
		return -ENOMEM;
	count = leaves(o, level, &err);
	if (!err)
		err = reserve(e, count, cutoff);
	while (count > 1) { /* pairwise, level by level */
		uint32_t next = 0;
		for (uint32_t i = 0; i < count; i += 2) {
			if (i + 1 == count) {
				level[next++] = level[i];
			} else if (err) {
				free(level[i].out);
				free(level[i + 1].out);
			} else {
				err = merge(e, &level[i], &level[i + 1], cutoff, &level[next++], b);
			}
		}
		count = next;
	}
	if (count == 1 && !err) {
		*out = level[0].out; /* out[j - 1]: at least j, j = 1..outputs */
		*outputs = level[0].size;
	} else if (count == 1) {
		free(level[0].out);
	}
	free(level);
	return err;
}
