/* SPDX-License-Identifier: MIT */
/* Choosing and making the form of a write index (write_index.h). */
#include "write_index.h"

#include <errno.h>
#include <stdlib.h>

/* The dense form while its entries are at most this many per write (plus
 * one per variable): 4 bytes each, so at most 8 bytes a write where the
 * hash table takes 24. */
#define DENSE_ENTRIES_PER_WRITE 2

static int64_t value_written(const struct vsc_event *e)
{
	return e->kind == VSC_RMW ? e->new_value : e->value;
}

/* wi->least and most: each variable's least and greatest value written
 * (least > most: never written). Returns the number of writes. */
static size_t find_extremes(struct write_index *wi, int64_t *most, const struct vsc_program *p)
{
	size_t nwrites = 0;

	for (uint32_t x = 0; x < program_vars(p); x++) {
		wi->least[x] = INT64_MAX;
		most[x] = INT64_MIN;
	}
	for (uint32_t t = 0; t < program_threads(p); t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			const struct vsc_event *e = &p->threads[t].events[i];
			int64_t v = value_written(e);
			if (e->kind == VSC_READ)
				continue;
			nwrites++;
			if (v < wi->least[e->var])
				wi->least[e->var] = v;
			if (v > most[e->var])
				most[e->var] = v;
		}
	return nwrites;
}

/* wi->start and span for the dense form; false when its entries would
 * pass limit. */
static bool lay_out_spans(struct write_index *wi, const int64_t *most, uint32_t nvars,
			  uint64_t limit)
{
	uint64_t total = 0;

	for (uint32_t x = 0; x < nvars; x++) {
		uint64_t d = (uint64_t)most[x] - (uint64_t)wi->least[x];
		wi->start[x] = total;
		wi->span[x] = 0;
		if (wi->least[x] > most[x])
			continue;
		if (d >= limit - total) /* d + 1 entries would pass limit */
			return false;
		wi->span[x] = d + 1;
		total += d + 1;
	}
	wi->start[nvars] = total;
	return true;
}

int write_index_init(struct write_index *wi, const struct vsc_program *p)
{
	uint32_t nvars = program_vars(p);
	int64_t *most = malloc(((size_t)nvars + 1) * sizeof(int64_t));
	size_t nwrites;
	int r = 0;

	*wi = (struct write_index){
		.start = malloc(((size_t)nvars + 1) * sizeof(uint64_t)),
		.span = malloc(((size_t)nvars + 1) * sizeof(uint64_t)),
		.least = malloc(((size_t)nvars + 1) * sizeof(int64_t)),
	};
	if (!most || !wi->start || !wi->span || !wi->least) {
		free(most);
		return -ENOMEM;
	}
	nwrites = find_extremes(wi, most, p);
	if (lay_out_spans(wi, most, nvars, DENSE_ENTRIES_PER_WRITE * (uint64_t)nwrites + nvars)) {
		wi->dense = calloc(wi->start[nvars] + 1, sizeof(uint32_t));
		r = wi->dense ? 0 : -ENOMEM;
	} else {
		r = pair_table_init(&wi->hash, nwrites);
	}
	free(most);
	return r;
}

void write_index_free(struct write_index *wi)
{
	free(wi->dense);
	free(wi->start);
	free(wi->span);
	free(wi->least);
	pair_table_free(&wi->hash);
	*wi = (struct write_index){ 0 };
}
