/* SPDX-License-Identifier: MIT */
/* The violating prefix of an inconsistent execution, for --html: an SC
 * interleaving of as many of its events as a greedy schedule reaches, and
 * where it stops (each unfinished thread's next event, which no order of
 * what is left lets run).
 *
 * The schedule takes the threads in turn, one event each: a read when
 * memory holds its value (running such a read at once never costs an
 * interleaving: it changes nothing), a write only when no read of the
 * value memory holds is still to run (the write would hide it from them;
 * when values identify writes, exactly what SC needs). It stops after a
 * round in which no thread moved. This is not
 * the longest SC prefix (that is as hard as the verdict), but it is found
 * in time linear in the trace (times the threads), and what it shows is
 * checked: the interleaving is verified by vsc_witness_verify, which
 * shares nothing with the solvers, before it is kept. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "userspace/util/clock.h"
#include "userspace/util/hash.h"

#define ROUNDS_PER_POLL 64 /* rounds of the schedule between looks at the clock */

enum cell {
	CELL_EMPTY,
	CELL_ANY,
	CELL_KNOWN
}; /* no value yet; init x ?, unread */

struct memory {
	int64_t *value;
	uint8_t *state; /* enum cell */
};

/* Reads still to run, per (variable, value): size_t values of a hash map. */
struct read_key {
	uint64_t var;
	int64_t value;
};

static size_t *pending_of(struct hash_map *pd, uint32_t var, int64_t value)
{
	struct read_key key = { var, value };

	return hash_map_get(pd, &key);
}

/* Count every read (an RMW's old value too). */
static int pending_fill(struct hash_map *pd, const struct vsc_program *p)
{
	hash_map_init(pd, sizeof(struct read_key), sizeof(size_t));
	for (size_t t = 0; t < vsc_program_thread_count(p); t++) {
		const struct vsc_event *ev = vsc_program_events(p, t);
		for (size_t i = 0; i < vsc_program_thread_length(p, t); i++) {
			struct read_key key = { ev[i].var, ev[i].value };
			size_t *reads =
				ev[i].kind == VSC_WRITE ? NULL : hash_map_put(pd, &key, NULL);
			if (ev[i].kind != VSC_WRITE && !reads)
				return -ENOMEM;
			if (reads)
				++*reads;
		}
	}
	return 0;
}

struct schedule {
	const struct vsc_program *p;
	struct hash_map pd;
	size_t k;
	uint32_t *next; /* per thread: its next event */
	struct memory mem;
	uint32_t *steps;
	size_t nsteps;
};

static const struct vsc_event *next_event(const struct schedule *s, size_t t)
{
	if (s->next[t] >= vsc_program_thread_length(s->p, t))
		return NULL;
	return &vsc_program_events(s->p, t)[s->next[t]];
}

/* Memory serves read e now (an unknown initial value is fixed by its first
 * read). */
static bool serves(const struct memory *m, const struct vsc_event *e)
{
	return e->kind != VSC_WRITE &&
	       (m->state[e->var] == CELL_ANY ||
		(m->state[e->var] == CELL_KNOWN && m->value[e->var] == e->value));
}

/* Write e now would hide memory's value from a read still to run (an RMW
 * reads it itself first). */
static bool hides_a_value(struct schedule *s, const struct vsc_event *e)
{
	size_t own = e->kind == VSC_RMW;
	size_t *reads = s->mem.state[e->var] == CELL_KNOWN
				? pending_of(&s->pd, e->var, s->mem.value[e->var])
				: NULL;

	return reads && *reads > own;
}

/* Run thread t's next event if the rule lets it; whether it ran. */
static bool step(struct schedule *s, size_t t)
{
	const struct vsc_event *e = next_event(s, t);
	struct memory *m = &s->mem;

	if (!e || (e->kind != VSC_WRITE && !serves(m, e)) ||
	    (e->kind != VSC_READ && hides_a_value(s, e)))
		return false;
	if (e->kind != VSC_WRITE)
		--*pending_of(&s->pd, e->var, e->value); /* counted by pending_fill */
	m->state[e->var] = CELL_KNOWN;                   /* a read of init x ? fixes it */
	m->value[e->var] = e->kind == VSC_RMW ? e->new_value : e->value;
	s->steps[s->nsteps++] = (uint32_t)t;
	s->next[t]++;
	return true;
}

/* The schedule until a round moves no thread: 0, or -ETIME past deadline
 * (a round costs a step of every thread: 10^5 threads make it long). */
static int run(struct schedule *s, double deadline)
{
	bool moved = true;

	for (unsigned long round = 1; moved; round++) {
		moved = false;
		for (size_t t = 0; t < s->k; t++)
			moved |= step(s, t);
		if (deadline > 0 && round % ROUNDS_PER_POLL == 0 && clock_now_s() > deadline)
			return -ETIME;
	}
	return 0;
}

static void start_memory(const struct vsc_program *p, struct memory *m)
{
	for (size_t v = 0; v < vsc_program_var_count(p); v++) {
		int64_t value = 0;
		int init = vsc_program_var_init(p, v, &value);
		m->state[v] = init == VSC_INIT_KNOWN     ? CELL_KNOWN
			      : init == VSC_INIT_UNKNOWN ? CELL_ANY
							 : CELL_EMPTY;
		m->value[v] = value;
	}
}

/* The interleaving passes the verifier on the prefix's own program. */
static bool verified(const struct schedule *s)
{
	struct vsc_event_ref *refs = malloc((s->nsteps ? s->nsteps : 1) * sizeof(*refs));
	struct vsc_program *sub = NULL;
	uint32_t *map = malloc((s->k ? s->k : 1) * sizeof(*map));
	uint32_t *w = malloc((s->nsteps ? s->nsteps : 1) * sizeof(*w));
	size_t m = 0, j = 0;
	long preemptions;
	bool ok = false;

	if (refs && map && w) {
		for (size_t t = 0; t < s->k; t++)
			for (uint32_t i = 0; i < s->next[t]; i++)
				refs[m++] = (struct vsc_event_ref){ (uint32_t)t, i };
		sub = vsc_program_subset(s->p, refs, m);
	}
	if (sub) { /* sub has the threads that ran, in order */
		for (size_t t = 0; t < s->k; t++)
			map[t] = s->next[t] ? (uint32_t)j++ : UINT32_MAX;
		for (size_t i = 0; i < s->nsteps; i++)
			w[i] = map[s->steps[i]];
		ok = vsc_witness_verify(sub, w, s->nsteps, &preemptions, NULL, 0) == 0;
	}
	vsc_program_free(sub);
	free(refs);
	free(map);
	free(w);
	return ok;
}

int prefix_find(const struct item *it, double deadline, struct html_prefix **out)
{
	const struct vsc_program *p = it->prog;
	size_t k = vsc_program_thread_count(p), nv = vsc_program_var_count(p);
	size_t n = vsc_program_event_count(p);
	struct schedule s = { .p = p, .k = k };
	struct html_prefix *pre = NULL;
	int err = -ENOMEM;

	*out = NULL;
	s.next = calloc(k ? k : 1, sizeof(*s.next));
	s.mem.value = calloc(nv ? nv : 1, sizeof(*s.mem.value));
	s.mem.state = calloc(nv ? nv : 1, sizeof(*s.mem.state));
	s.steps = malloc((n ? n : 1) * sizeof(*s.steps));
	if (s.next && s.mem.value && s.mem.state && s.steps && !pending_fill(&s.pd, p) &&
	    (pre = calloc(1, sizeof(*pre)))) {
		start_memory(p, &s.mem);
		err = run(&s, deadline);
		if (!err) /* never show what does not verify */
			err = verified(&s) ? 0 : -EPROTO;
	}
	if (!err) {
		pre->cut = s.next;
		pre->witness = s.steps;
		pre->steps = s.nsteps;
		*out = pre;
	} else {
		free(s.next);
		free(s.steps);
		free(pre);
	}
	free(s.mem.value);
	free(s.mem.state);
	hash_map_free(&s.pd);
	return err;
}

void prefix_free(struct html_prefix *pre)
{
	if (!pre)
		return;
	free(pre->cut);
	free(pre->witness);
	free(pre);
}
