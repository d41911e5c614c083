/* SPDX-License-Identifier: MIT */
/* The narrowed source rule by a matrix, for the tests (narrow_ref.h). */
#include <string.h>

#include "narrow_ref.h"

static const struct vsc_event *ev_at(const struct vsc_program *p, struct vsc_event_ref e)
{
	return &vsc_program_events(p, e.thread)[e.index];
}

int64_t ref_written_value(const struct vsc_event *w)
{
	return w->kind == VSC_RMW ? w->new_value : w->value;
}

long ref_own_last_write(const struct vsc_program *p, struct vsc_event_ref rd)
{
	const struct vsc_event *events = vsc_program_events(p, rd.thread);

	for (uint32_t k = rd.index; k-- > 0;)
		if (events[k].kind != VSC_READ && events[k].var == events[rd.index].var)
			return (long)k;
	return -1;
}

bool ref_candidate(const struct vsc_program *p, struct vsc_event_ref rd,
		   const struct vsc_event_ref *w)
{
	const struct vsc_event *e = ev_at(p, rd), *we;
	long h = ref_own_last_write(p, rd);
	int64_t init_value;
	int init;

	if (!w) {
		init = vsc_program_var_init(p, e->var, &init_value);
		return h < 0 && (init == VSC_INIT_UNKNOWN ||
				 (init == VSC_INIT_KNOWN && init_value == e->value));
	}
	we = ev_at(p, *w);
	if ((w->thread == rd.thread && w->index == rd.index) || we->kind == VSC_READ ||
	    we->var != e->var || ref_written_value(we) != e->value)
		return false;
	return w->thread != rd.thread || (long)w->index == h;
}

size_t narrow_ref_number(const struct narrow_ref *r, struct vsc_event_ref e)
{
	return r->first[e.thread] + e.index;
}

/* The write the read rd must see when it is the only write of the value
 * in p, of another thread, and rd has no other candidate: 1 and *w. */
static int only_source(const struct vsc_program *p, struct vsc_event_ref rd,
		       struct vsc_event_ref *w)
{
	const struct vsc_event *e = ev_at(p, rd);
	size_t writes = 0, candidates = 0;

	if (ref_candidate(p, rd, NULL))
		return 0; /* the initial value may be its source */
	for (uint32_t t = 0; t < vsc_program_thread_count(p); t++)
		for (uint32_t k = 0; k < vsc_program_thread_length(p, t); k++) {
			struct vsc_event_ref x = { t, k };
			const struct vsc_event *we = ev_at(p, x);
			if (we->kind == VSC_READ || we->var != e->var ||
			    ref_written_value(we) != e->value)
				continue;
			writes++;
			if (ref_candidate(p, rd, &x)) {
				candidates++;
				*w = x;
			}
		}
	return writes == 1 && candidates == 1 && w->thread != rd.thread;
}

int narrow_ref_init(struct narrow_ref *r, const struct vsc_program *p)
{
	size_t k = vsc_program_thread_count(p);

	memset(r, 0, sizeof(*r));
	r->p = p;
	if (k > NARROW_REF_MAX)
		return -1;
	for (size_t t = 0; t < k; t++)
		r->first[t + 1] = r->first[t] + vsc_program_thread_length(p, t);
	r->n = r->first[k];
	if (r->n > NARROW_REF_MAX)
		return -1;
	for (uint32_t t = 0; t < k; t++)
		for (uint32_t i = 0; i < vsc_program_thread_length(p, t); i++) {
			struct vsc_event_ref rd = { t, i }, w = { 0, 0 };
			if (i > 0)
				r->before[r->first[t] + i - 1][r->first[t] + i] = 1;
			if (ev_at(p, rd)->kind != VSC_WRITE && only_source(p, rd, &w))
				r->before[narrow_ref_number(r, w)][narrow_ref_number(r, rd)] = 1;
		}
	for (size_t m = 0; m < r->n; m++) /* Warshall */
		for (size_t a = 0; a < r->n; a++)
			for (size_t b = 0; a != m && r->before[a][m] && b < r->n; b++)
				r->before[a][b] |= r->before[m][b];
	return 0;
}

bool narrow_ref_keeps(const struct narrow_ref *r, struct vsc_event_ref rd,
		      const struct vsc_event_ref *w)
{
	const struct vsc_program *p = r->p;
	const struct vsc_event *wt;
	long h = ref_own_last_write(p, rd);
	size_t nr = narrow_ref_number(r, rd), nw;

	if (!ref_candidate(p, rd, w))
		return false;
	if (!w || w->thread == rd.thread)
		return true; /* the initial value and its own write are kept */
	nw = narrow_ref_number(r, *w);
	if (r->before[nr][nw]) /* the read comes first */
		return false;
	if (h >= 0 && r->before[nw][r->first[rd.thread] + (size_t)h])
		return false; /* its own write falls between */
	wt = vsc_program_events(p, w->thread);
	for (uint32_t k = w->index + 1; k < vsc_program_thread_length(p, w->thread); k++)
		if (wt[k].kind != VSC_READ && wt[k].var == wt[w->index].var)
			return !r->before[r->first[w->thread] + k]
					 [nr]; /* the next one falls between */
	return true;
}

size_t narrow_ref_close(const struct narrow_ref *r, const struct vsc_event_ref *ev, size_t n,
			struct vsc_event_ref *out)
{
	const struct vsc_program *p = r->p;
	unsigned char in[NARROW_REF_MAX] = { 0 };
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		in[narrow_ref_number(r, ev[i])] = 1;
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint32_t t = 0; t < vsc_program_thread_count(p); t++)
			for (uint32_t k = 0; k < vsc_program_thread_length(p, t); k++) {
				struct vsc_event_ref rd = { t, k };
				if (!in[narrow_ref_number(r, rd)] ||
				    ev_at(p, rd)->kind == VSC_WRITE)
					continue;
				for (uint32_t u = 0; u < vsc_program_thread_count(p); u++)
					for (uint32_t j = 0; j < vsc_program_thread_length(p, u);
					     j++) {
						struct vsc_event_ref w = { u, j };
						size_t nw = narrow_ref_number(r, w);
						if (in[nw] || !narrow_ref_keeps(r, rd, &w))
							continue;
						in[nw] = 1;
						changed = 1;
					}
			}
	}
	for (uint32_t t = 0; t < vsc_program_thread_count(p); t++)
		for (uint32_t k = 0; k < vsc_program_thread_length(p, t); k++)
			if (in[r->first[t] + k])
				out[m++] = (struct vsc_event_ref){ t, k };
	return m;
}
