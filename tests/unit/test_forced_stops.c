/* SPDX-License-Identifier: MIT */
/* The forced orders' stops (saturate_unique.c, saturate_stops.c) against
 * the exact search and brute force. On small flag-lock programs (each
 * thread raises its flag, writes a turn variable, spins reading another
 * thread's flag and the turn, then reads and writes a counter inside the
 * simulated lock and lowers its flag; some with a wrong read, an unknown
 * initial value, a repeated counter value or the counter by RMW) and on
 * plain random programs (one writer or several, RMWs, both kinds of init):
 * a program the orders refute has no SC interleaving; at every prefix of a
 * least witness of the exact search, the stops the own and forced
 * intervals say the threads must still make are at most what the witness
 * still makes; and auto's --min (verified witness), -p least - 1 and
 * -p least agree with exact and with brute force. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis.h"
#include "brute.h"
#include "least_check.h"
#include "own_stops.h"
#include "random_program.h"
#include "saturate.h"
#include "solver.h"
#include "testutil.h"

#define LOCK_PROGRAMS 2500
#define RANDOM_PROGRAMS 2500
#define BRUTE_NODES 2000000ULL
#define TURN 4
#define COUNTER 5

struct tally {
	int raised;  /* programs where the forced intervals raise the bound */
	int meets;   /* ... to the least */
	int refuted; /* programs the forced orders refute */
	int brute;   /* programs brute force answered too */
};

/* A thread of a flag lock: state 0 raises the flag, 1 writes the turn, 2
 * spins, 3 reads the counter, 4 writes it, 5 lowers the flag. */
struct locker {
	unsigned state, rounds;
	int64_t seen; /* the counter value read */
};

/* One step of thread t. mem: flags 0-3, turn, counter; inside: the thread
 * in its critical section, or -1. odd: the program's oddity (0: none). */
static void lock_step(struct vsc_program *p, uint64_t *s, unsigned k, unsigned t, struct locker *l,
		      int64_t *mem, int *inside, unsigned odd)
{
	unsigned other = (t + 1 + random_below(s, k - 1)) % k;

	switch (l->state) {
	case 0:
		append_event(p, t, VSC_WRITE, t, mem[t] = 1 + random_below(s, 2), 0);
		l->state = 1;
		break;
	case 1:
		append_event(p, t, VSC_WRITE, TURN, mem[TURN] = t, 0);
		l->state = 2;
		break;
	case 2: {
		int wrong = odd == 1 && random_below(s, 100) < 15;
		append_event(p, t, VSC_READ, other, wrong ? 3 : mem[other], 0);
		if (random_below(s, 2))
			append_event(p, t, VSC_READ, TURN, mem[TURN], 0);
		if ((*inside < 0 || (odd == 2 && random_below(s, 4) == 0)) && random_below(s, 2)) {
			*inside = (int)t;
			l->state = 3;
		}
		break;
	}
	case 3:
		if (odd == 3) { /* the counter by RMW */
			append_event(p, t, VSC_RMW, COUNTER, mem[COUNTER], mem[COUNTER] + 1);
			mem[COUNTER]++;
			l->state = 5;
			break;
		}
		append_event(p, t, VSC_READ, COUNTER, l->seen = mem[COUNTER], 0);
		l->state = 4;
		break;
	case 4:
		append_event(p, t, VSC_WRITE, COUNTER, mem[COUNTER] = l->seen + 1, 0);
		l->state = 5;
		break;
	default:
		append_event(p, t, VSC_WRITE, t, mem[t] = 0, 0);
		if (*inside == (int)t)
			*inside = -1;
		l->state = --l->rounds ? 0 : 6;
		break;
	}
}

/* 2-4 threads, 1-3 rounds each, at most `events` events, a random
 * scheduler; odd (0-5): a wrong spin read, two threads inside at once, the
 * counter by RMW, an unknown initial counter, an unknown initial flag. */
static struct vsc_program *lock_program(uint64_t *s, unsigned events, unsigned odd)
{
	unsigned k = 2 + random_below(s, 3), alive = k;
	struct vsc_program *p = named_program(k, 6);
	struct locker l[4];
	int64_t mem[6] = { 0 };
	int inside = -1;

	assert_non_null(p);
	for (unsigned x = 0; x < 6; x++)
		vsc_program_set_init(p, x, VSC_INIT_KNOWN, 0);
	if (odd == 4)
		vsc_program_set_init(p, COUNTER, VSC_INIT_UNKNOWN, 0);
	if (odd == 5)
		vsc_program_set_init(p, 0, VSC_INIT_UNKNOWN, 0);
	for (unsigned t = 0; t < k; t++)
		l[t] = (struct locker){ 0, 1 + random_below(s, 3), 0 };
	while (alive && vsc_program_event_count(p) < events) {
		unsigned t = random_below(s, k);
		if (l[t].state == 6)
			continue;
		lock_step(p, s, k, t, &l[t], mem, &inside, odd);
		alive -= l[t].state == 6;
	}
	return p;
}

/* 1 when the stops at some prefix of the least witness exceed what it
 * still makes. */
static int stops_exceed(const struct vsc_program *p, const struct own_stops *s,
			const struct vsc_result *exact)
{
	size_t k = vsc_program_thread_count(p), n;
	const uint32_t *w;
	uint32_t *pos = calloc(k + 1, sizeof(*pos)), *left = calloc(k + 1, sizeof(*left));
	long *after;
	int bad = 0;

	n = vsc_result_witness(exact, &w);
	after = calloc(n + 2, sizeof(*after));
	assert_true(pos && left && after);
	preemptions_after(p, w, n, left, after);
	for (size_t m = 0; m <= n && !bad; m++) {
		if (m > 0)
			pos[w[m - 1]]++;
		bad = (long)own_stops_needed(s, pos) > after[m];
	}
	free(pos);
	free(left);
	free(after);
	return bad;
}

/* Brute force agrees with exact where it answers within its nodes. */
static int brute_agrees(const struct vsc_program *p, int consistent, long least,
			struct tally *tally)
{
	struct brute_answer b;

	if (brute_solve(p, BRUTE_NODES, &b))
		return 1;
	tally->brute++;
	return b.consistent == consistent && (!consistent || b.least == least);
}

/* The bound of p with and without the forced intervals, checked. */
static int check_bound(const struct vsc_program *p, const struct analysis *a, int consistent,
		       long least, const struct vsc_result *exact, struct tally *tally)
{
	struct budget b;
	struct forced f;
	struct own_stops s;
	int r, bad = 0;

	memset(&b, 0, sizeof(b));
	r = forced_build(&f, p, a, &b, FORCED_BOUND);
	assert_true(r == 0 || r == 1);
	if (r == 0 && f.refuted) {
		tally->refuted++;
		forced_free(&f);
		return consistent;
	}
	assert_int_equal(own_stops_build(&s, p, a, r == 0 ? &f : NULL), 0);
	if (consistent) {
		bad = (long)s.total > least || stops_exceed(p, &s, exact);
		tally->raised += s.total > s.own;
		tally->meets += s.total > s.own && (long)s.total == least;
	}
	own_stops_free(&s);
	if (r == 0)
		forced_free(&f);
	return bad;
}

/* 1 when something is wrong on p. */
static int check_program(const struct vsc_program *p, struct tally *tally)
{
	struct vsc_result *exact = decide(p, "exact", -1, 1);
	int consistent = vsc_result_verdict(exact) == VSC_CONSISTENT;
	long least = consistent ? vsc_result_preemptions(exact) : -1;
	struct analysis a;
	int bad = 0;

	assert_int_equal(analysis_build(&a, p), 0);
	if (check_bound(p, &a, consistent, least, exact, tally))
		bad = 1, dump_program("forced stops exceed the least, or refute an SC program", p);
	else if (!brute_agrees(p, consistent, least, tally))
		bad = 1, dump_program("brute force disagrees with exact", p);
	else if (!auto_agrees_with_least(p, consistent, least, 0))
		bad = 1, dump_program("auto disagrees with exact", p);
	analysis_free(&a);
	vsc_result_free(exact);
	return bad;
}

static void forced_stops_within_least(void **state)
{
	uint64_t seed = 0xf05ced5ULL;
	struct tally tally = { 0, 0, 0, 0 };
	int bad = 0;
	int locks = (int)test_share(LOCK_PROGRAMS), randoms = (int)test_share(RANDOM_PROGRAMS);

	(void)state;
	for (int i = 0; i < locks; i++) {
		struct vsc_program *p = lock_program(&seed, 14 + random_below(&seed, 26),
						     i % 2 ? 0 : random_below(&seed, 6));
		bad += check_program(p, &tally);
		vsc_program_free(p);
	}
	for (int i = 0; i < randoms; i++) {
		struct random_shape shape = small_shape(&seed, 14, 1, 4);

		shape.one_writer = i % 2;
		shape.rmw_pct = i % 3 == 0 ? 50 : 0;
		shape.init_pct = i % 4 ? 80 : 30;
		struct vsc_program *p = random_program(&seed, &shape);
		assert_non_null(p);
		bad += check_program(p, &tally);
		vsc_program_free(p);
	}
	assert_int_equal(bad, 0);
	printf("forced stops: raise the bound on %d programs (to the least on %d), refute %d; "
	       "brute force answered %d\n",
	       tally.raised, tally.meets, tally.refuted, tally.brute);
	assert_true(tally.raised > locks / 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(forced_stops_within_least),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
