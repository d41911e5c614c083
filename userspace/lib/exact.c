/* SPDX-License-Identifier: MIT */
/* The exact solver: the reference every other solver is tested against.
 *
 * A state is (position in each thread, the thread that ran last if it is not
 * finished, the value each read variable holds). From a state, a thread may
 * run its next event when that event is enabled; switching away from an
 * unfinished thread costs one preemption. Two searches share that model:
 *  - depth-first, for "is there one within the bound", remembering for each
 *    state the fewest preemptions it was reached with;
 *  - 0-1 breadth-first (a deque), for the least number of preemptions.
 * Nothing clever: no reductions beyond memoisation. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "solver.h"
#include "state_table.h"

#define NO_VALUE 0u    /* variable without an initial value, never written */
#define UNDECIDED 1u   /* init x ?: one value, not yet seen by a read */
#define FIRST_VALUE 2u /* value ids start here */
#define NOBODY UINT32_MAX

struct exact {
	const struct vsc_program *p;
	uint32_t k;          /* threads */
	uint32_t *length;    /* events per thread */
	uint32_t **read_id;  /* per event: value id it reads (RMW: old) */
	uint32_t **write_id; /* per event: value id it writes */
	int32_t *slot;       /* per variable: word in the state, -1 if never read */
	uint32_t width;      /* words per state: k positions, last, read vars */
	uint32_t *key;       /* the current state */
	struct state_table table;
};

/* Value ids per variable: sorted distinct values, id = FIRST_VALUE + rank. */
struct value_set {
	int64_t *values;
	uint32_t count;
};

static int compare_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static uint32_t value_id(const struct value_set *set, int64_t v)
{
	uint32_t lo = 0, hi = set->count;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (set->values[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return FIRST_VALUE + lo;
}

static int build_value_sets(const struct vsc_program *p, struct value_set *sets)
{
	uint32_t nvars = program_vars(p);
	uint32_t *fill = calloc(nvars ? nvars : 1, sizeof(*fill));

	if (!fill)
		return -ENOMEM;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t v = 0; v < nvars; v++) {
			if (p->inits[v].kind == VSC_INIT_KNOWN) {
				if (pass)
					sets[v].values[fill[v]] = p->inits[v].value;
				fill[v]++;
			}
		}
		for (uint32_t t = 0; t < program_threads(p); t++) {
			const struct vsc_thread *th = &p->threads[t];
			for (uint32_t i = 0; i < th->length; i++) {
				const struct vsc_event *e = &th->events[i];
				if (pass) {
					sets[e->var].values[fill[e->var]] = e->value;
					if (e->kind == VSC_RMW)
						sets[e->var].values[fill[e->var] + 1] =
							e->new_value;
				}
				fill[e->var] += e->kind == VSC_RMW ? 2 : 1;
			}
		}
		for (uint32_t v = 0; v < nvars && !pass; v++) {
			sets[v].values = malloc((fill[v] ? fill[v] : 1) * sizeof(int64_t));
			if (!sets[v].values) {
				free(fill);
				return -ENOMEM;
			}
			fill[v] = 0;
		}
	}
	for (uint32_t v = 0; v < nvars; v++) {
		uint32_t n = 0;
		qsort(sets[v].values, fill[v], sizeof(int64_t), compare_i64);
		for (uint32_t i = 0; i < fill[v]; i++)
			if (n == 0 || sets[v].values[n - 1] != sets[v].values[i])
				sets[v].values[n++] = sets[v].values[i];
		sets[v].count = n;
	}
	free(fill);
	return 0;
}

static void exact_free(struct exact *x)
{
	for (uint32_t t = 0; t < x->k; t++) {
		if (x->read_id)
			free(x->read_id[t]);
		if (x->write_id)
			free(x->write_id[t]);
	}
	free(x->read_id);
	free(x->write_id);
	free(x->length);
	free(x->slot);
	free(x->key);
	state_table_free(&x->table);
}

/* Thread t's events as value ids (read and written); each variable read
 * gets a slot of the key (words counts them). */
static int number_thread(struct exact *x, uint32_t t, const struct value_set *sets, uint32_t *words)
{
	const struct vsc_thread *th = &x->p->threads[t];

	x->length[t] = th->length;
	x->read_id[t] = malloc((th->length ? th->length : 1) * sizeof(uint32_t));
	x->write_id[t] = malloc((th->length ? th->length : 1) * sizeof(uint32_t));
	if (!x->read_id[t] || !x->write_id[t])
		return -ENOMEM;
	for (uint32_t i = 0; i < th->length; i++) {
		const struct vsc_event *e = &th->events[i];
		const struct value_set *set = &sets[e->var];
		x->read_id[t][i] = value_id(set, e->value);
		x->write_id[t][i] = value_id(set, e->kind == VSC_RMW ? e->new_value : e->value);
		if (e->kind != VSC_WRITE && x->slot[e->var] < 0)
			x->slot[e->var] = (int32_t)(*words)++;
	}
	return 0;
}

/* The key of the start state: every slot holds its variable's initial
 * value; nobody ran last. */
static int initial_key(struct exact *x, const struct value_set *sets)
{
	const struct vsc_program *p = x->p;

	x->key = calloc(x->width, sizeof(*x->key));
	if (!x->key)
		return -ENOMEM;
	for (uint32_t v = 0; v < program_vars(p); v++) {
		if (x->slot[v] < 0)
			continue;
		x->key[x->slot[v]] = p->inits[v].kind == VSC_INIT_KNOWN
					     ? value_id(&sets[v], p->inits[v].value)
				     : p->inits[v].kind == VSC_INIT_UNKNOWN ? UNDECIDED
									    : NO_VALUE;
	}
	x->key[x->k] = NOBODY;
	return 0;
}

static int exact_init(struct exact *x, const struct vsc_program *p)
{
	uint32_t nvars = program_vars(p), k = program_threads(p), words = k + 1;
	struct value_set *sets = calloc(nvars ? nvars : 1, sizeof(*sets));
	int err = -ENOMEM;

	memset(x, 0, sizeof(*x));
	x->p = p;
	x->k = k;
	x->length = calloc(k ? k : 1, sizeof(*x->length));
	x->read_id = calloc(k ? k : 1, sizeof(*x->read_id));
	x->write_id = calloc(k ? k : 1, sizeof(*x->write_id));
	x->slot = malloc((nvars ? nvars : 1) * sizeof(*x->slot));
	if (!sets || !x->length || !x->read_id || !x->write_id || !x->slot)
		goto out;
	if ((err = build_value_sets(p, sets)))
		goto out;
	for (uint32_t v = 0; v < nvars; v++)
		x->slot[v] = -1;
	for (uint32_t t = 0; t < k && !err; t++)
		err = number_thread(x, t, sets, &words);
	x->width = words;
	if (!err)
		err = initial_key(x, sets);
	if (!err)
		err = state_table_init(&x->table, words);
out:
	for (uint32_t v = 0; sets && v < nvars; v++)
		free(sets[v].values);
	free(sets);
	if (err)
		exact_free(x);
	return err;
}

/* The undo record of one move. */
struct move {
	uint32_t thread;
	uint32_t last;      /* key[k] before the move */
	uint32_t old_value; /* the variable's word before the move */
};

/* Run thread t's next event on key when it is enabled; returns 0 if not. */
static int try_move(struct exact *x, uint32_t *key, uint32_t t, struct move *m)
{
	uint32_t i = key[t];
	const struct vsc_event *e;
	int32_t slot;

	if (i >= x->length[t])
		return 0;
	e = &x->p->threads[t].events[i];
	slot = x->slot[e->var];
	m->thread = t;
	m->last = key[x->k];
	m->old_value = slot >= 0 ? key[slot] : 0;
	if (e->kind != VSC_WRITE) {
		uint32_t want = x->read_id[t][i];
		if (key[slot] != want && key[slot] != UNDECIDED)
			return 0;
		key[slot] = want;
	}
	if (e->kind != VSC_READ && slot >= 0)
		key[slot] = x->write_id[t][i];
	key[t] = i + 1;
	key[x->k] = i + 1 < x->length[t] ? t : NOBODY;
	return 1;
}

static void undo_move(struct exact *x, uint32_t *key, const struct move *m)
{
	uint32_t t = m->thread;
	int32_t slot;

	key[t]--;
	slot = x->slot[x->p->threads[t].events[key[t]].var];
	if (slot >= 0)
		key[slot] = m->old_value;
	key[x->k] = m->last;
}

static uint32_t move_cost(const uint32_t *key, uint32_t k, uint32_t t)
{
	return key[k] != NOBODY && key[k] != t;
}

static int out_of_memory(struct exact *x, struct budget *b)
{
	return budget_over_memory(b, state_table_bytes(&x->table));
}

/* The i-th thread to try from a state: the running one first. */
static uint32_t candidate(const uint32_t *key, uint32_t k, uint32_t i)
{
	uint32_t last = key[k];
	if (last == NOBODY)
		return i < k ? i : NOBODY;
	if (i == 0)
		return last;
	i--;
	if (i >= last)
		i++;
	return i < k ? i : NOBODY;
}

/* Move thread t at depth: 1 when that reaches a state not seen as cheaply
 * (its cost goes to cost[depth + 1]), 0 when not (the key is as before),
 * or a negative errno. */
static int dfs_enter(struct exact *x, const struct query *q, struct move *moves, uint32_t *cost,
		     size_t depth, uint32_t t)
{
	uint32_t c = cost[depth] + move_cost(x->key, x->k, t);
	int added;
	int64_t id;

	if (q->bound < 0)
		c = 0; /* no bound: any second visit of a state is useless */
	else if (c > (uint64_t)q->bound)
		return 0;
	if (!try_move(x, x->key, t, &moves[depth]))
		return 0;
	id = state_table_get(&x->table, x->key, &added);
	if (id < 0)
		return (int)id;
	if (!added && x->table.records[id].cost <= c) {
		undo_move(x, x->key, &moves[depth]);
		return 0;
	}
	x->table.records[id].cost = c;
	cost[depth + 1] = c;
	return 1;
}

/* The witness: the threads of the moves of a whole interleaving. */
static int witness_of_moves(const struct exact *x, const struct move *moves, struct vsc_result *res)
{
	size_t n = x->p->event_count;

	res->witness = malloc((n ? n : 1) * sizeof(*res->witness));
	if (!res->witness)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		res->witness[i] = moves[i].thread;
	res->witness_length = n;
	res->preemptions = count_preemptions(x->p, res->witness, n);
	return 0;
}

static int search_dfs(struct exact *x, const struct query *q, struct budget *b,
		      struct vsc_result *res)
{
	size_t n = x->p->event_count;
	struct move *moves = malloc((n + 1) * sizeof(*moves));
	uint32_t *next = calloc(n + 1, sizeof(*next)); /* candidate index per depth */
	uint32_t *cost = calloc(n + 1, sizeof(*cost));
	size_t depth = 0;
	int added, err = 0;
	int64_t id;

	if (!moves || !next || !cost) {
		err = -ENOMEM;
		goto out;
	}
	id = state_table_get(&x->table, x->key, &added);
	if (id < 0) {
		err = (int)id;
		goto out;
	}
	res->verdict = VSC_INCONSISTENT;
	for (;;) {
		uint32_t t;
		if (depth == n) {
			res->verdict = VSC_CONSISTENT;
			break;
		}
		if (budget_expired(b) || out_of_memory(x, b)) {
			res->verdict = VSC_UNKNOWN;
			break;
		}
		t = candidate(x->key, x->k, next[depth]++);
		if (t == NOBODY) {
			if (depth == 0)
				break;
			depth--;
			undo_move(x, x->key, &moves[depth]);
			continue;
		}
		if ((err = dfs_enter(x, q, moves, cost, depth, t)) < 0)
			goto out;
		if (err) {
			err = 0;
			next[++depth] = 0;
		}
	}
	if (res->verdict == VSC_CONSISTENT)
		err = witness_of_moves(x, moves, res);
out:
	free(moves);
	free(next);
	free(cost);
	return err;
}

/* A double-ended queue of (state, cost) for the 0-1 breadth-first search. */
struct deque {
	uint64_t *items; /* cost << 32 | state */
	size_t head, count, cap;
};

static int deque_push(struct deque *d, uint64_t item, int front)
{
	if (d->count == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 1024;
		uint64_t *items = malloc(cap * sizeof(*items));
		if (!items)
			return -ENOMEM;
		for (size_t i = 0; i < d->count; i++)
			items[i] = d->items[(d->head + i) % d->cap];
		free(d->items);
		d->items = items;
		d->head = 0;
		d->cap = cap;
	}
	if (front) {
		d->head = (d->head + d->cap - 1) % d->cap;
		d->items[d->head] = item;
	} else {
		d->items[(d->head + d->count) % d->cap] = item;
	}
	d->count++;
	return 0;
}

static uint64_t deque_pop(struct deque *d)
{
	uint64_t item = d->items[d->head];
	d->head = (d->head + 1) % d->cap;
	d->count--;
	return item;
}

static int is_final(const struct exact *x, const uint32_t *key)
{
	for (uint32_t t = 0; t < x->k; t++)
		if (key[t] != x->length[t])
			return 0;
	return 1;
}

static int witness_from(struct exact *x, uint32_t final, struct vsc_result *res)
{
	size_t n = x->p->event_count;
	uint32_t s = final;

	res->witness = malloc((n ? n : 1) * sizeof(*res->witness));
	if (!res->witness)
		return -ENOMEM;
	for (size_t i = n; i > 0; i--) {
		res->witness[i - 1] = x->table.records[s].move;
		s = x->table.records[s].parent;
	}
	res->witness_length = n;
	return 0;
}

/* Queue each state one move from state s (key, cost c) that this reaches
 * more cheaply than before; a move without a preemption goes first. */
static int expand_least(struct exact *x, struct deque *d, uint32_t *key, uint32_t s, uint32_t c)
{
	int added, err;

	for (uint32_t t = 0; t < x->k; t++) {
		struct move m;
		uint32_t w = move_cost(key, x->k, t);
		int64_t id;

		if (!try_move(x, key, t, &m))
			continue;
		id = state_table_get(&x->table, key, &added);
		undo_move(x, key, &m);
		if (id < 0)
			return (int)id;
		struct state_record *r = &x->table.records[id];
		if (!added && r->cost <= c + w)
			continue;
		r->cost = c + w;
		r->parent = s;
		r->move = t;
		if ((err = deque_push(d, (uint64_t)(c + w) << 32 | (uint64_t)id, w == 0)))
			return err;
	}
	return 0;
}

static int search_least(struct exact *x, const struct query *q, struct budget *b,
			struct vsc_result *res)
{
	struct deque d = { 0 };
	uint32_t *key = malloc(x->width * sizeof(*key));
	int added, err = 0;
	int64_t id;

	res->verdict = VSC_INCONSISTENT;
	if (!key)
		return -ENOMEM;
	id = state_table_get(&x->table, x->key, &added);
	if (id < 0 || (err = deque_push(&d, (uint64_t)id, 0)))
		goto out;
	x->table.records[id].parent = UINT32_MAX;
	while (d.count) {
		uint64_t item = deque_pop(&d);
		uint32_t s = (uint32_t)item, c = (uint32_t)(item >> 32);
		if (x->table.records[s].cost != c)
			continue; /* reached more cheaply since it was queued */
		if (q->bound >= 0 && c > (uint64_t)q->bound)
			break;
		memcpy(key, state_words(&x->table, s), x->width * sizeof(*key));
		if (is_final(x, key)) {
			res->verdict = VSC_CONSISTENT;
			res->preemptions = c;
			err = witness_from(x, s, res);
			goto out;
		}
		if (budget_expired(b) || out_of_memory(x, b)) {
			res->verdict = VSC_UNKNOWN;
			goto out;
		}
		if ((err = expand_least(x, &d, key, s, c)))
			goto out;
	}
out:
	if (id < 0 && !err)
		err = (int)id;
	free(d.items);
	free(key);
	return err;
}

static int exact_solve(const struct vsc_program *p, const struct query *q, struct budget *b,
		       struct vsc_result *res)
{
	struct exact x;
	int err = exact_init(&x, p);

	if (err)
		return err;
	res->preemptions = -1;
	err = q->minimize ? search_least(&x, q, b, res) : search_dfs(&x, q, b, res);
	if (!err && res->verdict != VSC_CONSISTENT) {
		free(res->witness);
		res->witness = NULL;
		res->witness_length = 0;
		res->preemptions = -1;
	}
	exact_free(&x);
	return err;
}

const struct solver exact_solver = { "exact", exact_solve };
