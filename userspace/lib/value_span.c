/* SPDX-License-Identifier: MIT */
/* The spans of the variables' values (value_span.h). */
#include "value_span.h"

static inline void see(struct value_span *s, int64_t v)
{
	if (v < s->least)
		s->least = v;
	if (v > s->most)
		s->most = v;
	s->seen++;
}

void value_spans_find(struct value_span *span, const struct vsc_program *p,
		      enum value_span_kind kind)
{
	int all = kind == VALUES_ALL;

	for (uint32_t x = 0; x < program_vars(p); x++) {
		span[x] = (struct value_span){ INT64_MAX, INT64_MIN, 0 };
		if (all && p->inits[x].kind == VSC_INIT_KNOWN)
			see(&span[x], p->inits[x].value);
	}
	for (uint32_t t = 0; t < program_threads(p); t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			const struct vsc_event *e = &p->threads[t].events[i];
			if (e->kind != VSC_WRITE && all)
				see(&span[e->var], e->value);
			if (e->kind != VSC_READ)
				see(&span[e->var], e->kind == VSC_RMW ? e->new_value : e->value);
		}
}
