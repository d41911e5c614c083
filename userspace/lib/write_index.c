/* SPDX-License-Identifier: MIT */
/* Choosing and making the form of a write index (write_index.h). */
#include "write_index.h"
#include "value_span.h"

#include <errno.h>
#include <stdlib.h>

/* wi->least, start and span for the dense form; false when its entries
 * would pass limit. */
static bool lay_out_spans(struct write_index *wi, const struct value_span *spans, uint32_t nvars,
			  uint64_t limit)
{
	uint64_t total = 0;

	for (uint32_t x = 0; x < nvars; x++) {
		uint64_t d = value_span_width(&spans[x]);
		wi->least[x] = spans[x].least;
		wi->start[x] = total;
		wi->span[x] = 0;
		if (!spans[x].seen)
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
	struct value_span *spans = malloc(((size_t)nvars + 1) * sizeof(*spans));
	size_t nwrites = 0;
	int r = 0;

	*wi = (struct write_index){
		.start = malloc(((size_t)nvars + 1) * sizeof(uint64_t)),
		.span = malloc(((size_t)nvars + 1) * sizeof(uint64_t)),
		.least = malloc(((size_t)nvars + 1) * sizeof(int64_t)),
	};
	if (!spans || !wi->start || !wi->span || !wi->least) {
		free(spans);
		return -ENOMEM;
	}
	value_spans_find(spans, p, VALUES_WRITTEN);
	for (uint32_t x = 0; x < nvars; x++)
		nwrites += spans[x].seen;
	/* the whole program's entries by value_span.h's rule (plus one per
	 * variable) */
	if (lay_out_spans(wi, spans, nvars,
			  VALUE_SPAN_ENTRIES_PER_VALUE * (uint64_t)nwrites + nvars)) {
		wi->dense = calloc(wi->start[nvars] + 1, sizeof(uint32_t));
		r = wi->dense ? 0 : -ENOMEM;
	} else {
		r = pair_table_init(&wi->hash, nwrites);
	}
	free(spans);
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
