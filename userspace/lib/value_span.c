/* SPDX-License-Identifier: MIT */
/* The spans of the variables' values (value_span.h). */
#include "value_span.h"

void value_spans_start(struct value_span *span, const struct vsc_program *p,
		       enum value_span_kind kind)
{
	for (uint32_t x = 0; x < program_vars(p); x++) {
		span[x] = (struct value_span){ INT64_MAX, INT64_MIN, 0 };
		if (kind == VALUES_ALL && p->inits[x].kind == VSC_INIT_KNOWN)
			value_span_see(&span[x], p->inits[x].value);
	}
}

void value_spans_find(struct value_span *span, const struct vsc_program *p,
		      enum value_span_kind kind)
{
	value_spans_start(span, p, kind);
	for (uint32_t t = 0; t < program_threads(p); t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++)
			value_spans_see_event(span, &p->threads[t].events[i], kind);
}
