/* SPDX-License-Identifier: MIT */
/*
 * vsc gen sc: an execution that is sequentially consistent with at most P
 * preemptions by construction. We draw a schedule (runs of consecutive
 * events of one thread, exactly P of them cut short), run it against a
 * simulated memory, and write each event with the value it actually read.
 * Memory use is O(threads + vars + P) plus at most 64 MiB of events,
 * whatever the number of events: per-thread order is obtained by replaying
 * the (deterministic) simulation once per batch of threads whose events fit
 * in those 64 MiB (a thread with more is written as it is replayed), so
 * 10^4 threads of 10^7 events in all take 5 replays, not 10^4.
 */
#include <stdlib.h>
#include <string.h>

#include "userspace/gen/gen.h"
#include "userspace/gen/run_pool.h"
#include "userspace/util/diag.h"

struct sc_params {
	uint64_t threads, events, total, vars, values, writers;
	uint64_t preemptions, stale, seed;
	double reads, rmw;
	bool at_most, interleaved, timestamps, total_given;
	enum gen_init init;
	const char *outpath; /* -o */
};

/* One run of the schedule: `len` consecutive events of `thread`. */
struct sc_run {
	uint32_t thread;
	uint64_t len;
};

struct sc_memory {
	int64_t *cur, *prev, *init_value;
	uint64_t *counter; /* unique values: writes so far */
	uint8_t *defined, *prev_defined, *init_kind;
	uint64_t *defined_list;
	uint64_t ndefined;
	int64_t *seen; /* threads x vars, value last seen (guaranteed stale) */
};

struct sc_state {
	const struct sc_params *p;
	struct gen_writers gw;
	struct sc_memory mem;
	struct sc_run *runs;
	uint64_t nruns;
	uint64_t *stale_at; /* sorted positions where a stale read is due */
	bool stale_guaranteed;
};

/* ---- the schedule ------------------------------------------------------------ */

/* After taking one run of thread c (leaving left[c] - 1 of it, `after` in
 * all), can the rest be laid out with no two equal neighbours and not
 * starting with c? Only the largest count of the other threads matters:
 * max1 (of thread arg1) and max2, the largest count of any thread but arg1. */
static bool layout_possible(uint64_t left_c, uint64_t after, uint64_t c, uint64_t arg1,
			    uint64_t max1, uint64_t max2)
{
	uint64_t other = c == arg1 ? max2 : max1;
	return other <= after - other + 1 && 2 * left_c <= after;
}

/* Spread P preemptions over the threads: thread t gets runs[t] >= 1 runs,
 * at most events[t], and the runs must admit a layout without two equal
 * neighbours (else two runs would merge and a preemption vanish). */
static int sc_spread_preemptions(const struct sc_params *p, struct gen_rng *rng,
				 const uint64_t *events, uint64_t *nruns, uint64_t preemptions)
{
	uint64_t k = p->threads, total = k;
	uint64_t *cand = malloc(k * sizeof(*cand));
	if (!cand)
		return -1;
	for (uint64_t t = 0; t < k; t++)
		nruns[t] = 1;
	for (uint64_t i = 0; i < preemptions; i++) {
		uint64_t ncand = 0;
		for (uint64_t t = 0; t < k; t++)
			if (nruns[t] < events[t] && 2 * (nruns[t] + 1) <= total + 2)
				cand[ncand++] = t;
		if (!ncand) {
			free(cand);
			diag("gen sc",
			     "cannot place %llu preemptions (threads too short or too few threads)",
			     (unsigned long long)preemptions);
			return -1;
		}
		nruns[cand[gen_rng_below(rng, ncand)]]++;
		total++;
	}
	free(cand);
	return 0;
}

/* Cut n events into r non-empty runs: choose r-1 distinct cut points. */
static int sc_cut(struct gen_rng *rng, uint64_t n, uint64_t r, uint64_t *len)
{
	uint64_t need = r - 1, prev = 0, j = 0;
	if (need * 2 >= n) {
		/* dense: selection sampling over the n-1 possible cuts */
		for (uint64_t c = 1; c < n && j < need; c++)
			if (gen_rng_below(rng, n - c) < need - j) {
				len[j++] = c - prev;
				prev = c;
			}
		len[j] = n - prev;
		return 0;
	}
	uint64_t *cut = malloc((need + 1) * sizeof(*cut));
	if (!cut)
		return -1;
	uint64_t have = 0;
	while (have < need) {
		while (have < need)
			cut[have++] = 1 + gen_rng_below(rng, n - 1);
		for (uint64_t a = 1; a < have; a++) { /* insertion sort is fine: */
			uint64_t v = cut[a], b = a;   /* need is small here */
			while (b > 0 && cut[b - 1] > v) {
				cut[b] = cut[b - 1];
				b--;
			}
			cut[b] = v;
		}
		uint64_t w = 0;
		for (uint64_t a = 0; a < have; a++)
			if (w == 0 || cut[w - 1] != cut[a])
				cut[w++] = cut[a];
		have = w;
	}
	for (j = 0; j < need; j++) {
		len[j] = cut[j] - prev;
		prev = cut[j];
	}
	len[need] = n - prev;
	free(cut);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The thread of run i, drawn among those that can still be laid out
 * (weighted by runs left, so long threads spread out); UINT64_MAX: none. */
static uint64_t layout_pick(const struct sc_state *st, struct gen_rng *rng, const uint64_t *left,
			    uint64_t *cand, uint64_t i, uint64_t total, uint64_t prev)
{
	uint64_t k = st->p->threads, ncand = 0, weight = 0, arg1 = 0, max1 = 0, max2 = 0;
	uint64_t pick, c = 0;

	for (uint64_t t = 0; t < k; t++) {
		if (left[t] > max1) {
			max2 = max1;
			max1 = left[t];
			arg1 = t;
		} else if (left[t] > max2) {
			max2 = left[t];
		}
	}
	for (uint64_t t = 0; t < k; t++) {
		if (t == prev || !left[t])
			continue;
		/* with nothing to read yet, the first event must write */
		if (i == 0 && st->mem.ndefined == 0 && gen_writers_count(&st->gw, t) == 0)
			continue;
		if (layout_possible(left[t] - 1, total - i - 1, t, arg1, max1, max2)) {
			cand[ncand++] = t;
			weight += left[t];
		}
	}
	if (!ncand)
		return UINT64_MAX;
	pick = gen_rng_below(rng, weight);
	while (pick >= left[cand[c]]) {
		pick -= left[cand[c]];
		c++;
	}
	return cand[c];
}

/* Order the runs: random, each thread's runs in program order, no two
 * neighbours from one thread, so exactly (runs - threads) preemptions.
 * The first run is drawn by a pass over the threads (it has a condition of
 * its own), the others from the pool, which draws the same thread.
 * 0; 1: no order found (the caller draws again); -1: out of memory. */
static int sc_layout(struct sc_state *st, struct gen_rng *rng, const uint64_t *nruns,
		     uint64_t **len_of)
{
	uint64_t k = st->p->threads, prev = UINT64_MAX;
	struct run_pool pool;
	int err = -1;
	uint64_t *next = calloc(k, sizeof(*next));
	uint64_t *cand = malloc(k * sizeof(*cand));
	if (run_pool_init(&pool, nruns, k) || !next || !cand)
		goto nomem;
	st->nruns = pool.sum;
	st->runs = malloc(pool.sum * sizeof(*st->runs));
	if (!st->runs)
		goto nomem;
	for (uint64_t i = 0; i < st->nruns; i++) {
		uint64_t t = i ? run_pool_pick(&pool, rng, prev)
			       : layout_pick(st, rng, pool.left, cand, 0, st->nruns, prev);

		if (t == UINT64_MAX) { /* the caller draws again */
			free(st->runs);
			st->runs = NULL;
			err = 1;
			goto fail;
		}
		st->runs[i].thread = (uint32_t)t;
		st->runs[i].len = len_of[t][next[t]++];
		run_pool_take(&pool, t);
		prev = t;
	}
	err = 0;
	goto fail;
nomem:
	diag("gen sc", "out of memory");
fail:
	run_pool_free(&pool);
	free(next);
	free(cand);
	return err;
}

/* Where the stale reads go: p->stale positions among total events,
 * sorted. 0 or -1 (out of memory). */
static int sc_draw_stale(struct sc_state *st, struct gen_rng *rng, uint64_t total)
{
	const struct sc_params *p = st->p;

	if (!p->stale)
		return 0;
	st->stale_at = malloc(p->stale * sizeof(*st->stale_at));
	if (!st->stale_at)
		return -1;
	for (uint64_t i = 0; i < p->stale; i++)
		st->stale_at[i] = gen_rng_below(rng, total);
	qsort(st->stale_at, p->stale, sizeof(*st->stale_at), cmp_u64);
	return 0;
}

/* Runs per thread, their lengths and their order. A thread that writes
 * nothing cannot go first when nothing has a value yet: draw again (a few
 * times) if the layout put one there. 0 or -1 (said why). */
static int sc_draw_runs(struct sc_state *st, struct gen_rng *rng, const uint64_t *events,
			uint64_t *nruns, uint64_t **len_of, uint64_t preemptions)
{
	const struct sc_params *p = st->p;

	for (int attempt = 0;; attempt++) {
		int r;

		if (sc_spread_preemptions(p, rng, events, nruns, preemptions))
			return -1;
		for (uint64_t t = 0; t < p->threads; t++) {
			free(len_of[t]);
			len_of[t] = malloc(nruns[t] * sizeof(**len_of));
			if (!len_of[t] || sc_cut(rng, events[t], nruns[t], len_of[t])) {
				diag("gen sc", "out of memory");
				return -1;
			}
		}
		r = sc_layout(st, rng, nruns, len_of);
		if (r <= 0)
			return r;
		if (attempt == 100) {
			diag("gen sc",
			     "no thread that writes can start the schedule: use more --vars or --init known");
			return -1;
		}
	}
}

static int sc_schedule(struct sc_state *st, uint64_t *preemptions)
{
	const struct sc_params *p = st->p;
	uint64_t k = p->threads, total = 0;
	struct gen_rng rng;
	int err = -1;
	gen_rng_seed(&rng, p->seed ^ 0x5c4ed01eULL);
	uint64_t *events = malloc(k * sizeof(*events));
	uint64_t *nruns = malloc(k * sizeof(*nruns));
	uint64_t **len_of = calloc(k, sizeof(*len_of));
	*preemptions = 0;
	if (!events || !nruns || !len_of) {
		diag("gen sc", "out of memory");
		goto out;
	}
	for (uint64_t t = 0; t < k; t++)
		events[t] = p->total_given ? p->total / k + (t < p->total % k) : p->events;
	for (uint64_t t = 0; t < k; t++) {
		if (!events[t]) {
			diag("gen sc", "every thread needs an event");
			goto out;
		}
		total += events[t];
	}
	*preemptions = p->at_most ? gen_rng_below(&rng, p->preemptions + 1) : p->preemptions;
	if (sc_draw_runs(st, &rng, events, nruns, len_of, *preemptions))
		goto out;
	err = sc_draw_stale(st, &rng, total);
	if (err)
		diag("gen sc", "out of memory");
out:
	for (uint64_t t = 0; len_of && t < k; t++)
		free(len_of[t]);
	free(len_of);
	free(events);
	free(nruns);
	return err;
}

/* ---- memory and events ---------------------------------------------------- */

static int sc_memory_alloc(struct sc_state *st)
{
	const struct sc_params *p = st->p;
	struct sc_memory *m = &st->mem;
	uint64_t v = p->vars;
	m->cur = calloc(v, sizeof(*m->cur));
	m->prev = calloc(v, sizeof(*m->prev));
	m->init_value = calloc(v, sizeof(*m->init_value));
	m->counter = calloc(v, sizeof(*m->counter));
	m->defined = calloc(v, 1);
	m->prev_defined = calloc(v, 1);
	m->init_kind = calloc(v, 1);
	m->defined_list = calloc(v, sizeof(*m->defined_list));
	if (!m->cur || !m->prev || !m->init_value || !m->counter || !m->defined ||
	    !m->prev_defined || !m->init_kind || !m->defined_list)
		return -1;
	if (st->stale_guaranteed) {
		m->seen = calloc(p->threads * v, sizeof(*m->seen));
		if (!m->seen)
			return -1;
	}
	/* initial values come from a stream of their own */
	struct gen_rng rng;
	gen_rng_seed(&rng, p->seed ^ 0x1417ULL);
	for (uint64_t x = 0; x < v; x++) {
		enum gen_init kind = p->init;
		if (kind == GEN_INIT_MIX)
			kind = (enum gen_init)gen_rng_below(&rng, 3);
		m->init_kind[x] = (uint8_t)kind;
		m->init_value[x] = p->values ? (int64_t)gen_rng_below(&rng, p->values) : 0;
	}
	return 0;
}

static void sc_memory_free(struct sc_memory *m)
{
	free(m->cur);
	free(m->prev);
	free(m->init_value);
	free(m->counter);
	free(m->defined);
	free(m->prev_defined);
	free(m->init_kind);
	free(m->defined_list);
	free(m->seen);
}

static void sc_memory_reset(struct sc_state *st)
{
	struct sc_memory *m = &st->mem;
	uint64_t v = st->p->vars;
	m->ndefined = 0;
	for (uint64_t x = 0; x < v; x++) {
		m->counter[x] = 0;
		m->prev_defined[x] = 0;
		m->defined[x] = m->init_kind[x] != GEN_INIT_NONE;
		m->cur[x] = m->init_value[x];
		if (m->defined[x])
			m->defined_list[m->ndefined++] = x;
	}
	if (m->seen)
		memset(m->seen, 0, st->p->threads * v * sizeof(*m->seen));
}

static void sc_store(struct sc_state *st, uint64_t t, uint64_t x, int64_t value)
{
	struct sc_memory *m = &st->mem;
	m->prev[x] = m->cur[x];
	m->prev_defined[x] = m->defined[x];
	m->cur[x] = value;
	if (!m->defined[x]) {
		m->defined[x] = 1;
		m->defined_list[m->ndefined++] = x;
	}
	if (m->seen)
		m->seen[t * st->p->vars + x] = value;
}

static int64_t sc_fresh_value(struct sc_state *st, struct gen_rng *rng, uint64_t x)
{
	if (st->p->values)
		return (int64_t)gen_rng_below(rng, st->p->values);
	return (int64_t)++st->mem.counter[x];
}

struct sc_event {
	char kind;
	uint64_t var;
	int64_t value, new_value;
};

/* The next event of thread t, executed against memory. */
static void sc_next_event(struct sc_state *st, struct gen_rng *rng, uint64_t t, struct sc_event *ev)
{
	const struct sc_params *p = st->p;
	struct sc_memory *m = &st->mem;
	uint64_t nw = gen_writers_count(&st->gw, t);
	bool write = nw && !gen_rng_chance(rng, p->reads);
	if (!write && m->ndefined == 0)
		write = true; /* nothing readable yet; nw > 0 was checked */
	if (write) {
		uint64_t x = st->gw.var[st->gw.offset[t] + gen_rng_below(rng, nw)];
		ev->var = x;
		if (m->defined[x] && gen_rng_chance(rng, p->rmw)) {
			ev->kind = 'u';
			ev->value = m->cur[x];
		} else {
			ev->kind = 'w';
		}
		int64_t v = sc_fresh_value(st, rng, x);
		if (ev->kind == 'u')
			ev->new_value = v;
		else
			ev->value = v;
		sc_store(st, t, x, v);
		return;
	}
	uint64_t x = gen_rng_below(rng, p->vars);
	if (!m->defined[x])
		x = m->defined_list[gen_rng_below(rng, m->ndefined)];
	ev->kind = 'r';
	ev->var = x;
	ev->value = m->cur[x];
}

/* Turn the read ev into a stale one if possible; true if done. */
static bool sc_make_stale(struct sc_state *st, struct gen_rng *rng, uint64_t t, struct sc_event *ev)
{
	struct sc_memory *m = &st->mem;
	uint64_t x = ev->var;
	if (st->stale_guaranteed) {
		/* one writer per variable and unique values: values of x appear
		 * in the writer's program order, so reading an older value than
		 * one this thread has already seen is impossible in any
		 * interleaving */
		int64_t seen = m->seen[t * st->p->vars + x];
		/* with `init x ?` the value seen may be the initial one, which
		 * explains any later read of an older write: not guaranteed */
		if (seen < 2 || m->init_kind[x] == GEN_INIT_UNKNOWN)
			return false;
		ev->value = 1 + (int64_t)gen_rng_below(rng, (uint64_t)seen - 1);
		return true;
	}
	if (!m->prev_defined[x] || m->prev[x] == m->cur[x])
		return false;
	ev->value = m->prev[x];
	return true;
}

/* ---- output -------------------------------------------------------------- */

static void sc_write_inits(struct sc_state *st, struct gen_out *out)
{
	const struct sc_memory *m = &st->mem;
	for (uint64_t x = 0; x < st->p->vars; x++) {
		if (m->init_kind[x] == GEN_INIT_NONE)
			continue;
		gen_out_name(out, "init x", x);
		gen_out_char(out, ' ');
		if (m->init_kind[x] == GEN_INIT_UNKNOWN)
			gen_out_char(out, '?');
		else
			gen_out_i64(out, m->init_value[x]);
		gen_out_char(out, '\n');
	}
}

/* The threads whose events a replay writes, [first, end): at once in
 * schedule order (buf NULL), or kept in buf, each thread's events from its
 * slot on, to be written in thread order after the replay. */
struct sc_sink {
	uint64_t first, end;
	struct sc_kept *buf;
	uint64_t *slot; /* per thread of the sink: its next index in buf */
};

/* An event kept by a replay; pos is its place in the schedule. */
struct sc_kept {
	int64_t value, new_value;
	uint64_t pos;
	uint32_t var;
	char kind;
};

static void sc_emit(struct sc_state *st, struct gen_out *out, uint64_t t, const struct sc_event *ev,
		    uint64_t pos)
{
	gen_out_event(out, "T", t, ev->kind, "x", ev->var, ev->value, ev->new_value,
		      st->p->timestamps ? (int64_t)(1000 * (pos + 1)) : -1);
}

/* Replay the schedule; the events of the sink's threads go to it.
 * Returns the number of stale reads injected. */
static uint64_t sc_replay(struct sc_state *st, struct gen_out *out, struct sc_sink *sink)
{
	const struct sc_params *p = st->p;
	struct gen_rng rng;
	uint64_t pos = 0, next_stale = 0, pending = 0, injected = 0;
	gen_rng_seed(&rng, p->seed ^ 0xe7e47ULL);
	sc_memory_reset(st);
	for (uint64_t i = 0; i < st->nruns; i++) {
		uint64_t t = st->runs[i].thread;
		for (uint64_t e = 0; e < st->runs[i].len; e++, pos++) {
			struct sc_event ev = { 0 };
			while (next_stale < p->stale && st->stale_at[next_stale] <= pos) {
				next_stale++;
				pending++;
			}
			sc_next_event(st, &rng, t, &ev);
			if (ev.kind == 'r') {
				if (pending && sc_make_stale(st, &rng, t, &ev)) {
					pending--;
					injected++;
				} else if (st->mem.seen) {
					st->mem.seen[t * p->vars + ev.var] = ev.value;
				}
			}
			if (t < sink->first || t >= sink->end)
				continue;
			if (!sink->buf) {
				sc_emit(st, out, t, &ev, pos);
				continue;
			}
			sink->buf[sink->slot[t - sink->first]++] =
				(struct sc_kept){ ev.value, ev.new_value, pos, (uint32_t)ev.var,
						  ev.kind };
		}
	}
	return injected;
}

static void sc_write_header(struct sc_state *st, struct gen_out *out, uint64_t preemptions,
			    int argc, char **argv)
{
	gen_out_trace_header(out, "sc", argc, argv);
	gen_out_str(out, "# schedule: ");
	gen_out_u64(out, preemptions);
	gen_out_str(out, " preemptions; ");
	if (st->p->stale == 0) {
		gen_out_str(out, "expect: consistent with -p ");
		gen_out_u64(out, preemptions);
	} else if (st->stale_guaranteed) {
		gen_out_str(out, "with stale reads: inconsistent unless none "
				 "could be placed (see the last line)");
	} else {
		gen_out_str(out, "with stale reads: likely, not surely, "
				 "inconsistent (see the last line)");
	}
	gen_out_char(out, '\n');
}

static const char sc_usage[] =
	"usage: vsc gen sc [options]\n"
	"  --threads K        threads (default 4)\n"
	"  --events N         events per thread (default 1000)\n"
	"  --total N          events in all, spread evenly (instead of --events)\n"
	"  --vars V           variables (default 8)\n"
	"  --values D         values drawn from 0..D-1; 0 = every write unique (default 0)\n"
	"  --writers W        at most W writer threads per variable; 0 = all (default 0)\n"
	"  --reads R          fraction of reads (default 0.5)\n"
	"  --rmw R            fraction of writes that are read-modify-writes (default 0)\n"
	"  --init M           none | known | unknown | mix (default none)\n"
	"  -p, --preemptions P  exactly P preemptions in the schedule (default 0)\n"
	"  --at-most          draw the number of preemptions from 0..P\n"
	"  --stale N          inject N stale reads (makes it non-SC, see docs/gen.md)\n"
	"  --order O          thread (default) | interleaved (the witness order)\n"
	"  --timestamps       add @ts hints (the schedule's order)\n"
	"  --seed S, -o FILE\n";

/* The options into p; -1: go on, else the exit status. */
static int sc_parse_args(struct sc_params *p, int argc, char **argv)
{
	const char *init = "none", *order = "thread", *pos[1];
	size_t npos;
	const struct gen_opt opts[] = {
		GEN_SHAPE_OPTS(p, init),
		{ "preemptions", 'p', GEN_OPT_U64, &p->preemptions, NULL },
		{ "at-most", 0, GEN_OPT_FLAG, &p->at_most, NULL },
		{ "stale", 0, GEN_OPT_U64, &p->stale, NULL },
		{ "order", 0, GEN_OPT_STR, &order, NULL },
		{ "timestamps", 0, GEN_OPT_FLAG, &p->timestamps, NULL },
		{ "output", 'o', GEN_OPT_STR, &p->outpath, NULL },
	};
	int r = gen_parse_opts("sc", sc_usage, argc, argv, opts, sizeof(opts) / sizeof(opts[0]),
			       pos, 0, &npos);

	if (r)
		return r > 0 ? 0 : 2;
	if (gen_parse_init(init, &p->init))
		return 2;
	if (strcmp(order, "thread") && strcmp(order, "interleaved")) {
		diag("gen sc", "--order must be thread or interleaved");
		return 2;
	}
	p->interleaved = strcmp(order, "interleaved") == 0;
	if (!p->threads || !p->vars || p->threads > UINT32_MAX || p->vars > UINT32_MAX ||
	    (p->total_given && p->total < p->threads)) {
		diag("gen sc", "need threads >= 1, vars >= 1 and at least one event per thread");
		return 2;
	}
	return -1;
}

/* Events kept per replay in thread order: 64 MiB of them. Threads are
 * written in batches that fit, one replay per batch, so memory stays
 * bounded and 10^4 threads do not mean 10^4 replays. */
#define SC_KEPT_MAX ((uint64_t)1 << 21)

/* Events per thread in the schedule, into events[] (threads entries). */
static void sc_events_per_thread(const struct sc_state *st, uint64_t *events)
{
	memset(events, 0, st->p->threads * sizeof(*events));
	for (uint64_t i = 0; i < st->nruns; i++)
		events[st->runs[i].thread] += st->runs[i].len;
}

/* The events of threads [first, end), n in all, by one replay: a single
 * thread is written as it is replayed, several are kept and written after.
 * Returns the stale reads injected. */
static uint64_t sc_write_batch(struct sc_state *st, struct gen_out *out, const uint64_t *events,
			       uint64_t first, uint64_t end, uint64_t n, struct sc_kept *buf,
			       uint64_t *slot)
{
	struct sc_sink sink = { first, end, end - first > 1 ? buf : NULL, slot };
	uint64_t injected, at = 0, t = first;

	for (t = first; t < end; t++) {
		slot[t - first] = at;
		at += events[t];
	}
	injected = sc_replay(st, out, &sink);
	t = first;
	for (uint64_t i = 0; sink.buf && i < n; i++) {
		const struct sc_kept *k = &buf[i];
		struct sc_event ev = { k->kind, k->var, k->value, k->new_value };

		while (slot[t - first] <= i) /* the slots now mark where threads end */
			t++;
		sc_emit(st, out, t, &ev, k->pos);
	}
	return injected;
}

/* All events, thread by thread: threads batched so a batch keeps at most
 * SC_KEPT_MAX events. Returns the stale reads injected; -1: out of memory. */
static int64_t sc_write_threads(struct sc_state *st, struct gen_out *out)
{
	uint64_t k = st->p->threads, total = 0, injected = 0;
	uint64_t *events = malloc(k * sizeof(*events));
	uint64_t *slot = malloc(k * sizeof(*slot));
	struct sc_kept *buf = NULL;

	if (events && slot) {
		sc_events_per_thread(st, events);
		for (uint64_t t = 0; t < k; t++)
			total += events[t];
		buf = malloc((total < SC_KEPT_MAX ? total : SC_KEPT_MAX) * sizeof(*buf));
	}
	if (!events || !slot || !buf) {
		free(events);
		free(slot);
		return -1;
	}
	for (uint64_t first = 0, end; first < k; first = end) {
		uint64_t n = events[first];

		for (end = first + 1; end < k && n + events[end] <= SC_KEPT_MAX; end++)
			n += events[end];
		injected = sc_write_batch(st, out, events, first, end, n, buf, slot);
	}
	free(events);
	free(slot);
	free(buf);
	return (int64_t)injected;
}

/* The trace of a drawn schedule: header, initial values, the events.
 * 0, or -1 when out of memory (said why). */
static int sc_write(struct sc_state *st, struct gen_out *out, uint64_t preemptions, int argc,
		    char **argv)
{
	int64_t injected = 0;

	sc_write_header(st, out, preemptions, argc, argv);
	sc_write_inits(st, out);
	if (st->p->interleaved) {
		struct sc_sink all = { 0, st->p->threads, NULL, NULL };
		injected = (int64_t)sc_replay(st, out, &all);
	} else {
		injected = sc_write_threads(st, out);
	}
	if (injected < 0) {
		diag("gen sc", "out of memory");
		return -1;
	}
	if (st->p->stale) {
		gen_out_str(out, "# stale reads injected: ");
		gen_out_u64(out, (uint64_t)injected);
		gen_out_str(out, injected ? "\n" : " (so: consistent)\n");
	}
	return 0;
}

int gen_sc(int argc, char **argv)
{
	struct sc_params p = {
		.threads = 4, .events = 1000, .vars = 8, .reads = 0.5, .init = GEN_INIT_NONE
	};
	struct sc_state st = { .p = &p };
	struct gen_out *out = NULL;
	uint64_t preemptions = 0;
	bool written = false;
	int status = sc_parse_args(&p, argc, argv);

	if (status >= 0)
		return status;
	st.stale_guaranteed = p.stale && p.writers == 1 && p.values == 0 &&
			      p.init != GEN_INIT_UNKNOWN && p.threads * p.vars <= (1ULL << 26);
	if (gen_writers_init(&st.gw, p.threads, p.vars, p.writers))
		goto done;
	if (sc_memory_alloc(&st)) {
		diag("gen sc", "out of memory");
		goto done;
	}
	sc_memory_reset(&st);
	if (sc_schedule(&st, &preemptions) || !(out = gen_out_start(p.outpath)))
		goto done;
	written = sc_write(&st, out, preemptions, argc, argv) == 0;
done:
	sc_memory_free(&st.mem);
	gen_writers_free(&st.gw);
	free(st.runs);
	free(st.stale_at);
	status = gen_out_end(out);
	return written ? status : 2;
}
