/* SPDX-License-Identifier: MIT */
/* A program whose SC interleaving, if any, is forced step by step.
 *
 * Call a thread enabled after an SC prefix when its next event can come
 * next: a write always, a read when memory holds its value (or the variable
 * has `init x ?` and nothing fixed it yet). The SC interleavings extending a
 * prefix are exactly those that go on with an enabled thread. So if along
 * a run exactly one thread is enabled at every step, every SC interleaving
 * has that run's prefixes, by induction: when the run completes it is the
 * only SC interleaving (its preemptions are the least, and the only count:
 * every bound is answered by it); when it stops with no thread enabled and
 * events left, there is no SC interleaving. A token ring of 10^4 threads is
 * such a program: the search's state key has a word per thread, and the
 * saturations keep threads x events vectors, where this is one pass.
 *
 * Most programs have two threads enabled at once, often at the start: then
 * this costs a look at each thread's first event. A thread whose next read
 * waits is filed under (variable, value), so a write finds the threads it
 * enables without a look at the others. */
#include "unique_run.h"

#include <errno.h>
#include <stdlib.h>

#include "userspace/util/hash.h"

#define UNIQUE_RUN_CHUNK 4096 /* steps between looks at the budget */

struct wait_key { /* zeroed whole: the map compares keys as bytes */
	int64_t value;
	uint32_t var, zero;
};

struct waiting {
	uint32_t count, thread; /* threads waiting for the key; the last one */
};

struct unique_run {
	const struct vsc_program *p;
	uint32_t *pos; /* per thread: its next event */
	int64_t *mem;  /* per variable: its value, when has[x] */
	uint8_t *has;  /* per variable: 1 value known, 0 none yet, 2 init ? not fixed */
	struct hash_map wait;
	uint32_t enabled[2], nenabled;
};

static const struct vsc_event *next_event(const struct unique_run *u, uint32_t t)
{
	const struct vsc_thread *th = &u->p->threads[t];

	return u->pos[t] < th->length ? &th->events[u->pos[t]] : NULL;
}

static int is_enabled(const struct unique_run *u, const struct vsc_event *e)
{
	if (e->kind == VSC_WRITE || u->has[e->var] == 2)
		return 1;
	return u->has[e->var] == 1 && u->mem[e->var] == e->value;
}

/* Thread t's next event: enabled (counted), or filed as waiting. */
static int look_at(struct unique_run *u, uint32_t t)
{
	const struct vsc_event *e = next_event(u, t);
	struct wait_key key = { .value = 0 };
	struct waiting *w;
	bool added;

	if (!e)
		return 0;
	if (is_enabled(u, e)) {
		if (u->nenabled < 2)
			u->enabled[u->nenabled] = t;
		u->nenabled++;
		return 0;
	}
	key.value = e->value;
	key.var = e->var;
	w = hash_map_put(&u->wait, &key, &added);
	if (!w)
		return -ENOMEM;
	w->count++;
	w->thread = t;
	return 0;
}

/* Run thread t's next event; then t and the threads waiting for what it
 * wrote are looked at again. */
static int step(struct unique_run *u, uint32_t t)
{
	const struct vsc_event *e = next_event(u, t);
	struct wait_key key = { .value = 0 };
	const struct waiting *w;
	uint32_t x = e->var;

	u->pos[t]++;
	u->nenabled = 0;
	if (e->kind == VSC_READ && u->has[x] != 1) { /* init x ?: fixed now */
		u->has[x] = 1;
		u->mem[x] = e->value;
	}
	if (e->kind != VSC_READ) {
		u->has[x] = 1;
		u->mem[x] = e->kind == VSC_RMW ? e->new_value : e->value;
		key.value = u->mem[x];
		key.var = x;
		w = hash_map_get(&u->wait, &key);
		if (w) {
			u->nenabled = w->count;
			u->enabled[0] = w->thread;
			hash_map_remove(&u->wait, &key);
		}
	}
	return u->nenabled < 2 ? look_at(u, t) : 0;
}

static void answer(const struct vsc_program *p, const struct query *q, struct vsc_result *res,
		   uint32_t *witness)
{
	long pre = count_preemptions(p, witness, p->event_count);

	if (q->bound >= 0 && pre > q->bound) {
		res->verdict = VSC_INCONSISTENT;
		free(witness);
		return;
	}
	res->verdict = VSC_CONSISTENT;
	res->witness = witness;
	res->witness_length = p->event_count;
	res->preemptions = res->lower = pre;
}

/* The run itself, into witness. UNIQUE_RUN_DECIDED with *complete set,
 * UNIQUE_RUN_CHOICE or -errno. */
static int run(struct unique_run *u, struct budget *b, uint32_t *witness, int *complete)
{
	const struct vsc_program *p = u->p;
	size_t done = 0;
	int r = 0;

	for (uint32_t t = 0; t < program_threads(p) && u->nenabled < 2; t++)
		if (p->threads[t].length && is_enabled(u, &p->threads[t].events[0]))
			u->nenabled++;
	if (u->nenabled != 1) /* most programs: two threads can start */
		return u->nenabled ? UNIQUE_RUN_CHOICE : (*complete = 0, UNIQUE_RUN_DECIDED);
	u->nenabled = 0;
	for (uint32_t t = 0; !r && t < program_threads(p); t++)
		r = look_at(u, t);
	while (!r && u->nenabled == 1 && done < p->event_count) {
		witness[done++] = u->enabled[0];
		r = step(u, u->enabled[0]);
		if (!r && done % UNIQUE_RUN_CHUNK == 0 && budget_spend(b, UNIQUE_RUN_CHUNK))
			r = -ETIME;
	}
	if (r)
		return r;
	*complete = done == p->event_count;
	return *complete || u->nenabled == 0 ? UNIQUE_RUN_DECIDED : UNIQUE_RUN_CHOICE;
}

int unique_run_solve(const struct vsc_program *p, const struct query *q, struct budget *b,
		     struct vsc_result *res)
{
	uint32_t k = program_threads(p), nvars = program_vars(p);
	struct unique_run u = { .p = p };
	uint32_t *witness = NULL;
	int r = -ENOMEM, complete = 0;

	if (p->event_count == 0 || p->event_count > UINT32_MAX)
		return UNIQUE_RUN_CHOICE;
	hash_map_init(&u.wait, sizeof(struct wait_key), sizeof(struct waiting));
	u.pos = calloc((size_t)k + 1, sizeof(*u.pos));
	u.mem = calloc((size_t)nvars + 1, sizeof(*u.mem));
	u.has = calloc((size_t)nvars + 1, 1);
	witness = malloc(p->event_count * sizeof(*witness));
	if (u.pos && u.mem && u.has && witness) {
		for (uint32_t x = 0; x < nvars; x++) {
			const struct vsc_var_init *in = &p->inits[x];
			u.has[x] = in->kind == VSC_INIT_KNOWN     ? 1
				   : in->kind == VSC_INIT_UNKNOWN ? 2
								  : 0;
			u.mem[x] = in->kind == VSC_INIT_KNOWN ? in->value : 0;
		}
		r = run(&u, b, witness, &complete);
	}
	if (r == UNIQUE_RUN_DECIDED && complete) {
		answer(p, q, res, witness);
		witness = NULL;
	} else if (r == UNIQUE_RUN_DECIDED) {
		res->verdict = VSC_INCONSISTENT;
	}
	free(witness);
	free(u.pos);
	free(u.mem);
	free(u.has);
	hash_map_free(&u.wait);
	return r;
}
