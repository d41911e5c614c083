/* SPDX-License-Identifier: MIT */
/* Orders forced by the writes a read can see (source_orders.h).
 *
 * For every event e and thread w, row(e)[w] is a number of w's first events
 * that precede e in every SC interleaving (w's own entry: e's position).
 * Rows only grow, by these rules, each true in every SC interleaving given
 * the rows so far:
 *
 *  - program order: e's row is at least its predecessor's;
 *  - transitivity: if w's first m events precede e, so does all that
 *    precedes w's event m - 1 (its row);
 *  - sources: let t read x with value v at position i (an RMW: its old
 *    value), and let t's previous access of x be at j, after which x holds
 *    v' for t (what it wrote, else what it read); or let there be none and
 *    x have a known initial value other than v, or no initial value. When
 *    v' != v (or there is no j), the write the read sees, s, is another
 *    thread's write of (x, v), made after t's event j: it is the last write
 *    of x before the read, t does not access x in between, and what x held
 *    after j (or at first) was not v. So s is some w != t's write of (x, v)
 *    at a position a where
 *      a >= row(t's event j)[w]  (s follows that event),
 *      a >= the position of w's last write of x among the first
 *           row(read)[w] events of w (those precede the read, and s is
 *           the last write before it),
 *      a >= row(e)[w] for each other thread z's last write e of x among
 *           its first row(read)[z] events (e precedes the read, so s
 *           follows e), and
 *      row(w's event a)[t] <= i  (else the read precedes s).
 *    The last test only fails more for later a (rows grow along program
 *    order), so the candidates of w, if any, begin at the first a passing
 *    the three others, a0(w); the read follows w's event a0(w) whichever
 *    write of w it sees. Hence the read's row is at least the least, entry
 *    by entry, of the rows of the w's events a0(w) (with w's own entry
 *    a0(w) + 1), over the threads w that have candidates; and when no
 *    thread has one, no SC interleaving exists.
 *  - overwritten sources: the same when v' == v (or the initial value is
 *    v or unknown) but another thread's write e of x with another value is
 *    known to follow t's event j (row(e)[t] > j; with no j, any) and to
 *    precede the read: e is not the last write before the read, so a later
 *    one is, of (x, v), after e, hence after event j and not t's.
 *
 * A row whose own entry exceeds the event's position says the event
 * follows itself: a cycle, no SC interleaving. Rounds over every event in
 * program order repeat until nothing grows. Every step is sound on its own,
 * so stopping at any point (the budget) only loses strength; no bound is
 * involved anywhere, so a refutation holds for every bound. After the
 * fixpoint, source_splits.c splits on the write each read sees. */
#include "source_orders.h"
#include "source_orders_int.h"
#include "userspace/util/sorted.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The key of thread t's event i in runs by variable or by pair, or NO_POS
 * when it writes nothing. */
static uint32_t write_key(const struct vsc_program *p, const struct analysis *a, uint32_t t,
			  uint32_t i, int by_var)
{
	uint32_t pair = a->pairs[t][i].write;

	if (pair == PAIR_NONE)
		return NO_POS;
	return by_var ? p->threads[t].events[i].var : pair;
}

static void runs_free(struct write_runs *r)
{
	free(r->first_run);
	free(r->run_thread);
	free(r->run_start);
	free(r->pos);
	memset(r, 0, sizeof(*r));
}

/* Fill r from the writes; keys: how many keys there are; last and cursor:
 * keys words of scratch. Three passes: runs per key, writes per run, the
 * positions. */
static int runs_fill(struct write_runs *r, const struct vsc_program *p, const struct analysis *a,
		     uint32_t keys, int by_var, uint32_t *last, uint32_t *cursor)
{
	uint32_t k = a->k, nruns = 0;

	for (int pass = 0; pass < 3; pass++) {
		for (uint32_t b = 0; b < keys; b++) {
			last[b] = NO_POS;
			cursor[b] = pass ? r->first_run[b] : 0;
		}
		if (pass == 1) {
			nruns = r->first_run[keys];
			r->run_thread = malloc(((size_t)nruns + 1) * sizeof(uint32_t));
			r->run_start = calloc((size_t)nruns + 2, sizeof(uint32_t));
			if (!r->run_thread || !r->run_start)
				return -ENOMEM;
		} else if (pass == 2) {
			r->pos = malloc(((size_t)r->run_start[nruns] + 1) * sizeof(uint32_t));
			if (!r->pos)
				return -ENOMEM;
		}
		for (uint32_t t = 0; t < k; t++)
			for (uint32_t i = 0; i < p->threads[t].length; i++) {
				uint32_t b = write_key(p, a, t, i, by_var);
				if (b == NO_POS)
					continue;
				if (last[b] != t) { /* t's run of key b begins */
					last[b] = t;
					if (pass == 0)
						r->first_run[b + 1]++;
					else
						r->run_thread[cursor[b]++] = t;
				}
				if (pass == 1)
					r->run_start[cursor[b]]++; /* shifted by one: sums below */
				else if (pass == 2)
					r->pos[r->run_start[cursor[b] - 1]++] = i;
			}
		if (pass == 0)
			for (uint32_t b = 0; b < keys; b++)
				r->first_run[b + 1] += r->first_run[b];
		if (pass == 1) /* run_start[x + 1] held run x's count: starts */
			for (uint32_t x = 0; x < nruns; x++)
				r->run_start[x + 1] += r->run_start[x];
	}
	/* pass 2 moved each run's start to its end: shift back */
	memmove(r->run_start + 1, r->run_start, (size_t)nruns * sizeof(uint32_t));
	r->run_start[0] = 0;
	return 0;
}

static int runs_build(struct write_runs *r, const struct vsc_program *p, const struct analysis *a,
		      uint32_t keys, int by_var)
{
	size_t kk = keys ? keys : 1;
	uint32_t *last = malloc(kk * sizeof(uint32_t)), *cursor = malloc(kk * sizeof(uint32_t));
	int err = -ENOMEM;

	memset(r, 0, sizeof(*r));
	r->first_run = calloc(kk + 1, sizeof(uint32_t));
	if (last && cursor && r->first_run)
		err = runs_fill(r, p, a, keys, by_var, last, cursor);
	free(last);
	free(cursor);
	return err;
}

uint32_t sources_first_from(const struct write_runs *r, uint32_t x, uint32_t m)
{
	uint32_t at = first_at_least(r->pos, r->run_start[x], r->run_start[x + 1], m);

	return at < r->run_start[x + 1] ? r->pos[at] : NO_POS;
}

/* The last position < m of run x, or NO_POS. */
static uint32_t last_before(const struct write_runs *r, uint32_t x, uint32_t m)
{
	uint32_t at = first_at_least(r->pos, r->run_start[x], r->run_start[x + 1], m);

	return at > r->run_start[x] ? r->pos[at - 1] : NO_POS;
}

void sources_forced_writes(struct sources *s, uint32_t t, const uint32_t *row, uint32_t v0,
			   uint32_t v1)
{
	const struct write_runs *bv = &s->by_var;

	for (uint32_t g = v0; g < v1; g++) {
		uint32_t z = bv->run_thread[g];
		s->forced[g - v0] = z == t ? NO_POS : last_before(bv, g, row[z]);
	}
}

uint32_t sources_first_candidate(const struct sources *s, uint32_t run, uint32_t w, uint32_t t,
				 uint32_t i, uint32_t j, uint32_t v0, uint32_t v1)
{
	const struct write_runs *bv = &s->by_var;
	uint32_t m = j != NO_POS ? row_of(s, t, j)[w] : 0, a0;

	for (uint32_t g = v0; g < v1; g++) {
		uint32_t z = bv->run_thread[g], e = s->forced[g - v0], after;
		if (e == NO_POS)
			continue;
		after = z == w ? e : row_of(s, z, e)[w];
		if (after > m)
			m = after;
	}
	a0 = sources_first_from(&s->by_pair, run, m);
	if (a0 == NO_POS || row_of(s, w, a0)[t] > i)
		return NO_POS;
	return a0;
}

static void close_row(const struct sources *s, uint32_t t, uint32_t *next);

/* Suppose the read t[i] sees a write of thread w (run `run` of the pair):
 * then it follows w's first candidate a0, so its row is at least s->next
 * raised by a0's row and closed (into s->probe); under that row more
 * writes of x are known to precede it, which may move a0 on: repeated
 * until a0 stays. Returns 0 when w cannot be the one (no candidate left,
 * or the read would follow itself), else 1 with s->probe the row. */
static int probe_thread(struct sources *s, uint32_t run, uint32_t w, uint32_t t, uint32_t i,
			uint32_t j, uint32_t v0, uint32_t v1)
{
	uint32_t k = s->k, a0 = sources_first_candidate(s, run, w, t, i, j, v0, v1), seen = NO_POS;

	while (a0 != NO_POS && a0 != seen) {
		const uint32_t *row = row_of(s, w, a0);
		for (uint32_t z = 0; z < k; z++) {
			uint32_t need = z == w ? a0 + 1 : row[z];
			s->probe[z] = need > s->next[z] ? need : s->next[z];
		}
		close_row(s, t, s->probe);
		if (s->probe[t] > i)
			return 0; /* it follows itself: so would any later write of w */
		seen = a0;
		sources_forced_writes(s, t, s->probe, v0, v1);
		a0 = sources_first_candidate(s, run, w, t, i, j, v0, v1);
	}
	return a0 != NO_POS;
}

/* s->least becomes the meet of the rows the read t[i] of pair (variable
 * x) has for each other thread whose write it may see. Returns how many
 * threads may. */
static uint32_t meet_sources(struct sources *s, uint32_t t, uint32_t i, uint32_t x, uint32_t pair,
			     uint32_t j)
{
	const struct write_runs *bv = &s->by_var, *bp = &s->by_pair;
	uint32_t v0 = bv->first_run[x], v1 = bv->first_run[x + 1], found = 0;

	for (uint32_t run = bp->first_run[pair]; run < bp->first_run[pair + 1]; run++) {
		uint32_t w = bp->run_thread[run];
		if (w == t)
			continue;
		sources_forced_writes(s, t, s->next, v0, v1);
		if (!probe_thread(s, run, w, t, i, j, v0, v1))
			continue;
		for (uint32_t z = 0; z < s->k; z++)
			if (!found || s->probe[z] < s->least[z])
				s->least[z] = s->probe[z];
		found++;
	}
	return found;
}

/* Raise next (a row of thread t's event) by what its entries precede. */
static void close_row(const struct sources *s, uint32_t t, uint32_t *next)
{

	for (int grew = 1; grew;) {
		grew = 0;
		for (uint32_t w = 0; w < s->k; w++) {
			const uint32_t *before;
			if (w == t || next[w] == 0)
				continue;
			before = row_of(s, w, next[w] - 1);
			for (uint32_t z = 0; z < s->k; z++)
				if (before[z] > next[z]) {
					next[z] = before[z];
					grew = 1;
				}
		}
	}
}

int sources_needs_source_after(const struct sources *s, uint32_t x, uint32_t pair, uint32_t before)
{
	if (before != PAIR_NONE)
		return before != pair;
	return s->a->init[x] != VALUE_UNDECIDED && s->a->init[x] != pair;
}

/* The same, with the previous access the round keeps (s->last_pair). */
static int needs_source(const struct sources *s, uint32_t x, uint32_t pair)
{
	return sources_needs_source_after(s, x, pair, s->last_pair[x]);
}

/* Is the value t's read of pair (variable x) would keep from its previous
 * access at j (NO_POS: the initial value) gone? So it is when another
 * thread's write of x with another value is known to follow t's event j
 * and to precede the read (row s->next): that write is not the one the
 * read sees, so the read sees a later one, none of t's (they all precede
 * event j or follow the read). */
static int overwritten(struct sources *s, uint32_t t, uint32_t x, uint32_t pair, uint32_t j)
{
	const struct write_runs *bv = &s->by_var;
	uint32_t v0 = bv->first_run[x], v1 = bv->first_run[x + 1];

	sources_forced_writes(s, t, s->next, v0, v1);
	for (uint32_t g = v0; g < v1; g++) {
		uint32_t z = bv->run_thread[g], e = s->forced[g - v0];
		if (e == NO_POS || s->a->pairs[z][e].write == pair)
			continue;
		if (j == NO_POS || row_of(s, z, e)[t] > j)
			return 1;
	}
	return 0;
}

/* Settle thread t's event i. Returns SOURCE_ORDERS_REFUTED or 0; *grew
 * when its row grew. */
static int settle(struct sources *s, uint32_t t, uint32_t i, int *grew)
{
	const struct event_pairs *ep = &s->a->pairs[t][i];
	uint32_t x = s->p->threads[t].events[i].var, k = s->k, *row = row_of(s, t, i);
	uint32_t j = s->last_pair[x] != PAIR_NONE ? s->last_pos[x] : NO_POS;

	memcpy(s->next, row, k * sizeof(uint32_t));
	if (i > 0) {
		const uint32_t *prev = row_of(s, t, i - 1);
		for (uint32_t w = 0; w < k; w++)
			if (w != t && prev[w] > s->next[w])
				s->next[w] = prev[w];
	}
	if (ep->read != PAIR_NONE &&
	    (needs_source(s, x, ep->read) || overwritten(s, t, x, ep->read, j))) {
		if (!meet_sources(s, t, i, x, ep->read, j))
			return SOURCE_ORDERS_REFUTED;
		for (uint32_t w = 0; w < k; w++)
			if (s->least[w] > s->next[w])
				s->next[w] = s->least[w];
	}
	close_row(s, t, s->next);
	if (s->next[t] > i)
		return SOURCE_ORDERS_REFUTED; /* it follows itself */
	if (memcmp(s->next, row, k * sizeof(uint32_t))) {
		memcpy(row, s->next, k * sizeof(uint32_t));
		*grew = 1;
	}
	return 0;
}

/* One round over every event. Returns SOURCE_ORDERS_REFUTED, 0, or
 * -ETIME when the budget stopped it. */
static int one_round(struct sources *s, struct budget *b, int *grew)
{
	for (uint32_t t = 0; t < s->k; t++) {
		const struct vsc_thread *th = &s->p->threads[t];
		int r = 0;
		for (uint32_t i = 0; i < th->length && !r; i++) {
			const struct event_pairs *ep = &s->a->pairs[t][i];
			uint32_t x = th->events[i].var;
			r = settle(s, t, i, grew);
			s->last_pair[x] = ep->write != PAIR_NONE ? ep->write : ep->read;
			s->last_pos[x] = i;
			if (!r && b && budget_spend(b, s->k))
				r = -ETIME;
		}
		for (uint32_t i = 0; i < th->length; i++)
			s->last_pair[th->events[i].var] = PAIR_NONE;
		if (r)
			return r;
	}
	return 0;
}

/* The thread whose next event came first by its recorded time, or NO_POS
 * when every thread is done. */
static uint32_t first_by_time(const struct sources *s)
{
	uint32_t best = NO_POS;
	uint64_t when = UINT64_MAX;

	for (uint32_t t = 0; t < s->k; t++) {
		const struct vsc_thread *th = &s->p->threads[t];
		if (s->time_pos[t] < th->length && th->ts[s->time_pos[t]] < when) {
			when = th->ts[s->time_pos[t]];
			best = t;
		}
	}
	return best;
}

/* One round over every event in the order of the recorded times, each
 * thread in program order: a row that grows reaches the other threads'
 * later events in the same round, where a round thread by thread passes
 * it to a thread settled before only in the next round. On a recorded
 * relaxed Peterson's lock of 5.65 M events the rows reach their fixpoint
 * in 2 rounds so (9 thread by thread), and so does each case of the
 * splits (3-4). The steps are the same sound steps; only their order
 * differs. Returns as one_round(). */
static int one_round_by_time(struct sources *s, struct budget *b, int *grew)
{
	size_t vv = s->a->nvars ? s->a->nvars : 1;
	uint32_t *own_pos = s->last_pos, *own_pair = s->last_pair, t;
	int r = 0;

	memset(s->time_pos, 0, s->k * sizeof(*s->time_pos));
	while (!r && (t = first_by_time(s)) != NO_POS) {
		uint32_t i = s->time_pos[t]++, x = s->p->threads[t].events[i].var;
		const struct event_pairs *ep = &s->a->pairs[t][i];
		s->last_pos = s->by_time + (size_t)t * 2 * vv;
		s->last_pair = s->last_pos + vv;
		r = settle(s, t, i, grew);
		s->last_pair[x] = ep->write != PAIR_NONE ? ep->write : ep->read;
		s->last_pos[x] = i;
		if (!r && b && budget_spend(b, s->k))
			r = -ETIME;
	}
	for (t = 0; t < s->k; t++) /* every last access forgotten for the next round */
		for (uint32_t i = 0; i < s->time_pos[t]; i++)
			s->by_time[(size_t)t * 2 * vv + vv + s->p->threads[t].events[i].var] =
				PAIR_NONE;
	s->last_pos = own_pos;
	s->last_pair = own_pair;
	return r;
}

int sources_fixpoint(struct sources *s, struct budget *b)
{
	int r = 0, grew = 1;

	for (int round = 0; round < ROUNDS_MAX && grew && !r; round++) {
		grew = 0;
		r = s->by_time ? one_round_by_time(s, b, &grew) : one_round(s, b, &grew);
	}
	return r;
}

uint32_t sources_var_run(const struct sources *s, uint32_t x, uint32_t w)
{
	const struct write_runs *bv = &s->by_var;

	for (uint32_t g = bv->first_run[x]; g < bv->first_run[x + 1]; g++)
		if (bv->run_thread[g] == w)
			return g;
	return NO_POS;
}

static void sources_free(struct sources *s)
{
	free(s->base);
	free(s->rows);
	free(s->next);
	free(s->last_pos);
	free(s->by_time);
	free(s->time_pos);
	runs_free(&s->by_pair);
	runs_free(&s->by_var);
}

/* Per-thread last accesses for the rounds by the times: at most this many
 * words (threads x variables x 2). */
#define BY_TIME_WORDS (1u << 22)

/* May the rounds go by the recorded times: every event timed, and the
 * per-thread last accesses within size? */
static int timed(const struct vsc_program *p, size_t k, size_t vars)
{
	if (k * vars * 2 > BY_TIME_WORDS)
		return 0;
	for (uint32_t t = 0; t < program_threads(p); t++)
		if (p->threads[t].length && !p->threads[t].ts)
			return 0;
	return 1;
}

static int sources_init(struct sources *s, const struct vsc_program *p, const struct analysis *a)
{
	size_t kk = a->k ? a->k : 1, vv = a->nvars ? a->nvars : 1, at = 0;
	int err;

	memset(s, 0, sizeof(*s));
	s->p = p;
	s->a = a;
	s->k = a->k;
	s->base = malloc(kk * sizeof(size_t));
	s->rows = malloc((p->event_count ? p->event_count : 1) * kk * sizeof(uint32_t));
	s->next = malloc(4 * kk * sizeof(uint32_t));     /* next, least, probe, forced */
	s->last_pos = malloc(2 * vv * sizeof(uint32_t)); /* last_pos, last_pair */
	if (!s->base || !s->rows || !s->next || !s->last_pos)
		return -ENOMEM;
	s->least = s->next + kk;
	s->probe = s->least + kk;
	s->forced = s->probe + kk;
	s->last_pair = s->last_pos + vv;
	for (size_t x = 0; x < vv; x++)
		s->last_pair[x] = PAIR_NONE;
	for (uint32_t t = 0; t < a->k; t++) {
		s->base[t] = at;
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			uint32_t *row = row_of(s, t, i);
			memset(row, 0, kk * sizeof(uint32_t));
			row[t] = i;
		}
		at += p->threads[t].length;
	}
	if (timed(p, kk, vv)) { /* out of memory: thread by thread */
		s->by_time = malloc(kk * 2 * vv * sizeof(uint32_t));
		s->time_pos = malloc(kk * sizeof(uint32_t));
		if (!s->by_time || !s->time_pos) {
			free(s->by_time);
			free(s->time_pos);
			s->by_time = s->time_pos = NULL;
		}
		for (size_t c = 0; s->by_time && c < kk * 2 * vv; c++)
			s->by_time[c] = PAIR_NONE;
	}
	if ((err = runs_build(&s->by_pair, p, a, a->npairs, 0)))
		return err;
	return runs_build(&s->by_var, p, a, a->nvars, 1);
}

/* Worth it only with several writers on some variable (with one writer per
 * variable the forced orders of saturate.c serve), and within size. */
static int applies(const struct vsc_program *p, const struct analysis *a, const struct budget *b)
{
	int several = 0;

	for (uint32_t x = 0; x < a->nvars && !several; x++)
		several = a->writers[x] > 1;
	if (!several || a->k > SOURCE_ORDERS_MAX_THREADS || p->event_count >= UINT32_MAX ||
	    p->event_count * a->k > SOURCE_ORDERS_MAX_WORDS)
		return 0;
	return !b || p->event_count * a->k * sizeof(uint32_t) <= b->memory_limit;
}

int source_orders_refute(const struct vsc_program *p, const struct analysis *a, struct budget *b)
{
	struct sources s;
	unsigned long spent = b ? b->steps : 0;
	int r;

	/* the clock looked at now (a phase before may have stopped at the
	 * deadline, and budget_spend() looks only every 4,096 units), and
	 * again after the start, linear but long at 10^7 events */
	if (!applies(p, a, b) || (b && budget_look(b)))
		return SOURCE_ORDERS_OPEN;
	if (sources_init(&s, p, a) || (b && budget_look(b))) {
		sources_free(&s); /* out of memory or time: not tried, the search goes on */
		return SOURCE_ORDERS_OPEN;
	}
	r = sources_fixpoint(&s, b);
	if (!r)
		r = sources_split(&s, b, b ? b->steps - spent : 0);
	sources_free(&s);
	return r == SOURCE_ORDERS_REFUTED ? SOURCE_ORDERS_REFUTED : SOURCE_ORDERS_OPEN;
}
