/* SPDX-License-Identifier: MIT */
/* The source rule of cores and its narrowing (core_sources.c,
 * source_narrow.c), against narrow_ref.c and against every SC
 * interleaving of small random programs:
 *  - vsc_read_may_see is the rule, for every read and every write;
 *  - the narrowing keeps every source some SC interleaving gives a read
 *    (all interleavings enumerated here), and is the reference's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis.h"
#include "narrow_ref.h"
#include "random_program.h"
#include "source_narrow.h"
#include "vsc/vsc.h"

#define INIT_SOURCE NARROW_REF_MAX /* "the read saw the initial value" */
#define MEMO_SIZE (1u << 18)

/* 2-4 threads, 4-20 events, 1-3 variables of 2-5 values; in half of
 * them the last variable is a counter whose values identify writes (its
 * reads have one source: the forced orders the narrowing uses). */
static struct vsc_program *program_of(uint64_t *seed, unsigned wrong_pct)
{
	struct random_shape shape = {
		.threads = 2 + random_below(seed, 3),
		.events = 4 + random_below(seed, 17),
		.vars = 1 + random_below(seed, 3),
		.values = 2 + random_below(seed, 4),
		.unique_last = (int)random_below(seed, 2),
		.one_writer = (int)random_below(seed, 2),
		.write_pct = 45,
		.rmw_pct = 15,
		.wrong_pct = wrong_pct,
		.init_pct = 60,
	};
	return random_program(seed, &shape);
}

struct state {
	uint8_t next[8];
	uint8_t last[4];  /* per variable: the last write's number + 1, 0 none */
	uint8_t fixed[4]; /* init x ?: the value read + 1, 0 not yet */
};

/* Every SC interleaving, by a search over states (each thread's next
 * event, each variable's last write and, for init x ?, the value it took),
 * each state once: used[read][source] for the steps of runs that end. */
struct runs {
	const struct narrow_ref *r;
	const struct vsc_program *p;
	unsigned char used[NARROW_REF_MAX][NARROW_REF_MAX + 1];
	struct state *memo_state;      /* MEMO_SIZE of them */
	unsigned char memo[MEMO_SIZE]; /* 0 free, 1 ends, 2 does not */
	size_t states;
	int64_t written[NARROW_REF_MAX]; /* per event: the value it writes */
};

static uint32_t slot_of(const struct state *s)
{
	uint64_t k = 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < sizeof(*s); i++)
		k = (k ^ ((const uint8_t *)s)[i]) * 0x100000001b3ULL;
	return (uint32_t)(k >> 20) % MEMO_SIZE;
}

static bool state_ends(struct runs *u, const struct state *s);

/* Whether thread t's next event can run in s (the read sees its value);
 * into *to the state after it, and into *src what the read saw. */
static bool can_step(struct runs *u, const struct state *s, uint32_t t, struct state *to,
		     size_t *src)
{
	const int64_t *written = u->written;
	const struct vsc_event *e = &vsc_program_events(u->p, t)[s->next[t]];
	int64_t init_value = 0, seen;
	int init = vsc_program_var_init(u->p, e->var, &init_value);

	*to = *s;
	to->next[t]++;
	*src = INIT_SOURCE;
	if (e->kind != VSC_WRITE) {
		if (s->last[e->var]) {
			*src = s->last[e->var] - 1u;
			seen = written[*src];
		} else if (init == VSC_INIT_KNOWN) {
			seen = init_value;
		} else if (init == VSC_INIT_UNKNOWN) {
			assert_true(e->value >= 0 && e->value < 250);
			seen = s->fixed[e->var] ? s->fixed[e->var] - 1 : e->value;
			to->fixed[e->var] = (uint8_t)(seen + 1);
		} else {
			return false;
		}
		if (seen != e->value)
			return false;
	}
	if (e->kind != VSC_READ)
		to->last[e->var] =
			(uint8_t)(narrow_ref_number(u->r, (struct vsc_event_ref){ t, s->next[t] }) +
				  1);
	return true;
}

static bool state_ends(struct runs *u, const struct state *s)
{
	uint32_t slot = slot_of(s);
	bool ends, done = true;

	while (u->memo[slot] && memcmp(&u->memo_state[slot], s, sizeof(*s)) != 0)
		slot = (slot + 1) % MEMO_SIZE;
	if (u->memo[slot])
		return u->memo[slot] == 1;
	ends = false;
	for (uint32_t t = 0; t < vsc_program_thread_count(u->p); t++) {
		struct state to;
		size_t src;
		if (s->next[t] == vsc_program_thread_length(u->p, t))
			continue;
		done = false;
		if (!can_step(u, s, t, &to, &src) || !state_ends(u, &to))
			continue;
		ends = true;
		if (vsc_program_events(u->p, t)[s->next[t]].kind != VSC_WRITE)
			u->used[u->r->first[t] + s->next[t]][src] = 1;
	}
	ends |= done;
	assert_true(++u->states < MEMO_SIZE / 2);
	u->memo_state[slot] = *s;
	u->memo[slot] = ends ? 1 : 2;
	return ends;
}

/* The library's narrowing of p, set up on its own analysis. */
struct lib_narrow {
	struct analysis a;
	struct source_rule rule;
	struct source_narrow n;
};

static void lib_narrow_init(struct lib_narrow *l, const struct vsc_program *p)
{
	assert_int_equal(analysis_build(&l->a, p), 0);
	assert_int_equal(source_rule_init(&l->rule, p, &l->a), 0);
	assert_int_equal(source_narrow_init(&l->n, p, &l->a, &l->rule), 0);
}

static void lib_narrow_free(struct lib_narrow *l)
{
	source_narrow_free(&l->n);
	source_rule_free(&l->rule);
	analysis_free(&l->a);
}

static int clocked;       /* programs narrowed by the clocks (else by the walks) */
static int narrowed_away; /* candidates the narrowing dropped */
static int runs_seen;     /* (read, source) pairs some SC interleaving uses */

/* For each read of p: each candidate the reference keeps, the library
 * keeps (and the other way round), and each source an SC run uses is kept. */
static void check_reads(const struct vsc_program *p, struct runs *u, struct lib_narrow *l)
{
	for (uint32_t t = 0; t < vsc_program_thread_count(p); t++)
		for (uint32_t i = 0; i < vsc_program_thread_length(p, t); i++) {
			struct vsc_event_ref rd = { t, i };
			size_t nr = narrow_ref_number(u->r, rd);
			if (vsc_program_events(p, t)[i].kind == VSC_WRITE)
				continue;
			source_narrow_read(&l->n, rd);
			if (u->used[nr][INIT_SOURCE])
				assert_true(narrow_ref_keeps(u->r, rd, NULL));
			for (uint32_t wt = 0; wt < vsc_program_thread_count(p); wt++)
				for (uint32_t j = 0; j < vsc_program_thread_length(p, wt); j++) {
					struct vsc_event_ref w = { wt, j };
					bool keeps = narrow_ref_keeps(u->r, rd, &w);
					if (!ref_candidate(p, rd, &w))
						continue;
					assert_int_equal(keeps, source_narrow_keeps(&l->n, w));
					narrowed_away += !keeps;
					if (u->used[nr][narrow_ref_number(u->r, w)]) {
						assert_true(keeps);
						runs_seen++;
					}
				}
		}
}

static void test_narrowing_keeps_every_source(void **state)
{
	uint64_t seed = 0xa77041;
	struct runs *u = malloc(sizeof(*u));
	struct narrow_ref *r = malloc(sizeof(*r));
	int consistent = 0;

	(void)state;
	assert_non_null(u);
	assert_non_null(r);
	u->memo_state = malloc(MEMO_SIZE * sizeof(*u->memo_state));
	assert_non_null(u->memo_state);
	for (int round = 0; round < 10000; round++) {
		struct vsc_program *p = program_of(&seed, round % 4 == 3 ? 10 : 0);
		struct lib_narrow l;
		struct state s = { 0 };
		assert_int_equal(narrow_ref_init(r, p), 0);
		memset(u->used, 0, sizeof(u->used));
		memset(u->memo, 0, sizeof(u->memo));
		u->states = 0;
		u->r = r;
		u->p = p;
		for (uint32_t t = 0; t < vsc_program_thread_count(p); t++)
			for (uint32_t i = 0; i < vsc_program_thread_length(p, t); i++) {
				const struct vsc_event *e = &vsc_program_events(p, t)[i];
				u->written[r->first[t] + i] =
					e->kind == VSC_RMW ? e->new_value : e->value;
			}
		consistent += state_ends(u, &s);
		lib_narrow_init(&l, p);
		check_reads(p, u, &l);
		if (l.n.in_clock) { /* and the walks the clocks stand in for, the same */
			uint32_t *in = l.n.in_clock, *out = l.n.out_clock;
			int away = narrowed_away, seen = runs_seen;
			l.n.in_clock = l.n.out_clock = NULL;
			check_reads(p, u, &l);
			l.n.in_clock = in;
			l.n.out_clock = out;
			narrowed_away = away;
			runs_seen = seen;
			clocked++;
		}
		lib_narrow_free(&l);
		vsc_program_free(p);
	}
	print_message("%d consistent programs; %d sources used by SC runs, all kept; %d "
		      "candidates narrowed away; %d programs by the clocks and the walks\n",
		      consistent, runs_seen, narrowed_away, clocked);
	assert_true(consistent > 4000);
	assert_true(clocked > 4000 && clocked < 10000); /* some orders have a cycle */
	assert_true(narrowed_away > 1000);
	free(u->memo_state);
	free(u);
	free(r);
}

/* vsc_read_may_see is the rule, for every read and every event. */
static void test_read_may_see(void **state)
{
	uint64_t seed = 0x5ee;
	int allowed = 0;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		struct vsc_program *p = program_of(&seed, 20);
		for (uint32_t t = 0; t < vsc_program_thread_count(p); t++)
			for (uint32_t i = 0; i < vsc_program_thread_length(p, t); i++) {
				struct vsc_event_ref rd = { t, i };
				bool read = vsc_program_events(p, t)[i].kind != VSC_WRITE;
				assert_int_equal(vsc_read_may_see(p, rd, NULL),
						 read && ref_candidate(p, rd, NULL));
				for (uint32_t wt = 0; wt < vsc_program_thread_count(p); wt++)
					for (uint32_t j = 0; j < vsc_program_thread_length(p, wt);
					     j++) {
						struct vsc_event_ref w = { wt, j };
						bool may = vsc_read_may_see(p, rd, &w);
						assert_int_equal(may,
								 read && ref_candidate(p, rd, &w));
						allowed += may;
					}
			}
		assert_false(vsc_read_may_see(p, (struct vsc_event_ref){ 99, 0 }, NULL));
		vsc_program_free(p);
	}
	print_message("%d (read, write) pairs allowed\n", allowed);
	assert_true(allowed > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_may_see),
		cmocka_unit_test(test_narrowing_keeps_every_source),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
