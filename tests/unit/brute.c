/* SPDX-License-Identifier: MIT */
#include "brute.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 16
#define MAX_VARS 64

/* Memory of one variable during a replay or a search. */
enum cell_state {
	EMPTY,
	UNREAD_UNKNOWN,
	HOLDS
};

struct cell {
	enum cell_state state;
	int64_t value;
};

struct search {
	const struct vsc_program *prog;
	size_t nthreads, total;
	size_t length[MAX_THREADS];
	const struct vsc_event *events[MAX_THREADS];
	size_t pos[MAX_THREADS];
	struct cell mem[MAX_VARS];
	long best;
	unsigned long long nodes, max_nodes;
	int gave_up;
};

static void init_memory(const struct vsc_program *prog, struct cell *mem)
{
	for (size_t v = 0; v < vsc_program_var_count(prog); v++) {
		int64_t value = 0;
		int kind = vsc_program_var_init(prog, v, &value);
		mem[v].state = kind == VSC_INIT_KNOWN     ? HOLDS
			       : kind == VSC_INIT_UNKNOWN ? UNREAD_UNKNOWN
							  : EMPTY;
		mem[v].value = value;
	}
}

/* Can e run on mem? */
static int readable(const struct cell *c, const struct vsc_event *e)
{
	if (e->kind == VSC_WRITE)
		return 1;
	return c->state == UNREAD_UNKNOWN || (c->state == HOLDS && c->value == e->value);
}

static void apply(struct cell *c, const struct vsc_event *e)
{
	c->state = HOLDS;
	c->value = e->kind == VSC_RMW ? e->new_value : e->value;
}

/* done: events placed; last: thread of the last one; pre: preemptions so far. */
static void explore(struct search *s, size_t done, size_t last, long pre)
{
	if (s->gave_up)
		return;
	if (++s->nodes > s->max_nodes) {
		s->gave_up = 1;
		return;
	}
	if (done == s->total) {
		if (s->best < 0 || pre < s->best)
			s->best = pre;
		return;
	}
	for (size_t t = 0; t < s->nthreads; t++) {
		if (s->pos[t] == s->length[t])
			continue;
		const struct vsc_event *e = &s->events[t][s->pos[t]];
		long cost = done > 0 && t != last && s->pos[last] < s->length[last] ? 1 : 0;
		if (s->best >= 0 && pre + cost >= s->best)
			continue; /* cannot beat the best already found */
		struct cell saved = s->mem[e->var];
		if (!readable(&s->mem[e->var], e))
			continue;
		apply(&s->mem[e->var], e);
		s->pos[t]++;
		explore(s, done + 1, t, pre + cost);
		s->pos[t]--;
		s->mem[e->var] = saved;
	}
}

int brute_solve(const struct vsc_program *prog, unsigned long long max_nodes,
		struct brute_answer *out)
{
	struct search *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	if (vsc_program_thread_count(prog) > MAX_THREADS ||
	    vsc_program_var_count(prog) > MAX_VARS) {
		free(s);
		return -E2BIG;
	}
	s->prog = prog;
	s->nthreads = vsc_program_thread_count(prog);
	for (size_t t = 0; t < s->nthreads; t++) {
		s->length[t] = vsc_program_thread_length(prog, t);
		s->events[t] = vsc_program_events(prog, t);
		s->total += s->length[t];
	}
	init_memory(prog, s->mem);
	s->best = -1;
	s->max_nodes = max_nodes;
	explore(s, 0, 0, 0);
	out->consistent = s->best >= 0;
	out->least = s->best;
	out->nodes = s->nodes;
	int gave_up = s->gave_up;
	free(s);
	return gave_up ? -E2BIG : 0;
}

int brute_replay(const struct vsc_program *prog, const uint32_t *threads, size_t length,
		 long *preemptions, char *why, size_t why_len)
{
	struct cell mem[MAX_VARS];
	size_t pos[MAX_THREADS] = { 0 }, n = vsc_program_thread_count(prog), total = 0;
	long pre = 0;

	if (n > MAX_THREADS || vsc_program_var_count(prog) > MAX_VARS)
		return snprintf(why, why_len, "program too big for the replay"), -1;
	for (size_t t = 0; t < n; t++)
		total += vsc_program_thread_length(prog, t);
	if (length != total)
		return snprintf(why, why_len, "%zu steps for %zu events", length, total), -1;
	init_memory(prog, mem);
	for (size_t j = 0; j < length; j++) {
		uint32_t t = threads[j];
		if (t >= n || pos[t] >= vsc_program_thread_length(prog, t))
			return snprintf(why, why_len, "step %zu: thread %u has no event left", j,
					t),
			       -1;
		const struct vsc_event *e = &vsc_program_events(prog, t)[pos[t]];
		if (!readable(&mem[e->var], e))
			return snprintf(why, why_len, "step %zu: %s[%zu] cannot read %lld", j,
					vsc_program_thread_name(prog, t), pos[t],
					(long long)e->value),
			       -1;
		apply(&mem[e->var], e);
		pos[t]++;
		if (j + 1 < length && threads[j + 1] != t &&
		    pos[t] < vsc_program_thread_length(prog, t))
			pre++;
	}
	*preemptions = pre;
	return 0;
}
