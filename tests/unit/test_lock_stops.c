/* SPDX-License-Identifier: MIT */
/* The lock stops (lock_stops.c) against the exact search: on small spin
 * lock programs (threads taking a lock word with RMWs, counting in a
 * counter inside, spinning on reads of the lock word while another holds
 * it; some with a wrong read, an unknown initial value, a plain write or
 * a repeated counter value) and on plain random programs with RMWs, the
 * own stops plus the lock's extra never pass the least preemptions, the
 * witness along the holds passes the verifier with the count it claims
 * (never below the least), and auto's --min and bounds agree with exact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis.h"
#include "least_check.h"
#include "lock_stops.h"
#include "own_stops.h"
#include "random_program.h"
#include "testutil.h"

#define SPIN_PROGRAMS 3000
#define RANDOM_PROGRAMS 2000
#define LOCK 0
#define COUNTER 1
#define DATA 2

struct tally {
	int extra;         /* programs where the lock stops add something */
	int bound_meets;   /* ... and own + extra is the least */
	int witness_meets; /* the witness along the holds is a least one */
};

/* What a spinning thread does next (state: 0 wants the lock, 1..3 in its
 * critical section, 4 done). */
struct spinner {
	unsigned state, rounds;
};

/* One step of thread t: take or spin, or the next step inside. mem: lock,
 * counter. odd: this program's one oddity (0: none). */
static void spin_step(struct vsc_program *p, uint64_t *s, unsigned t, struct spinner *sp,
		      int64_t *mem, unsigned odd)
{
	switch (sp->state) {
	case 0:
		if (mem[LOCK] == 0 && random_below(s, 3)) {
			append_event(p, t, VSC_RMW, LOCK, 0, 1);
			mem[LOCK] = 1;
			sp->state = 1;
		} else {
			int64_t seen = random_below(s, 100) < (odd == 1 ? 15u : 0u) ? 1 - mem[LOCK]
										    : mem[LOCK];
			append_event(p, t, VSC_READ, LOCK, seen, 0);
		}
		break;
	case 1:
		if (odd == 2 && random_below(s, 2))
			append_event(p, t, VSC_READ, DATA, (int64_t)random_below(s, 2), 0);
		append_event(p, t, VSC_READ, COUNTER, mem[COUNTER], 0);
		sp->state = 2;
		break;
	case 2:
		if (odd == 3)
			append_event(p, t, VSC_WRITE, COUNTER, mem[COUNTER] + 1, 0);
		else if (odd != 4 || random_below(s, 2))
			append_event(p, t, VSC_RMW, COUNTER, mem[COUNTER],
				     odd == 5 ? mem[COUNTER] : mem[COUNTER] + 1);
		mem[COUNTER] += odd == 5 ? 0 : 1;
		if (odd == 2 && random_below(s, 2))
			append_event(p, t, VSC_WRITE, DATA, (int64_t)random_below(s, 2), 0);
		sp->state = 3;
		break;
	default:
		append_event(p, t, odd == 6 && random_below(s, 3) == 0 ? VSC_WRITE : VSC_RMW, LOCK,
			     odd == 6 ? 0 : 1, 0);
		mem[LOCK] = 0;
		sp->state = --sp->rounds ? 0 : 4;
	}
}

/* 2-4 threads, 1-3 rounds each, at most `events` events, a random
 * scheduler; odd (0-8) picks the oddity: a wrong spin read, data accesses
 * inside, a plain counter write, a hold without a counter RMW, a repeated
 * counter value, a plain unlock, an unknown initial lock or counter. */
static struct vsc_program *spin_program(uint64_t *s, unsigned events, unsigned odd)
{
	unsigned k = 2 + random_below(s, 3), alive = k;
	struct vsc_program *p = named_program(k, 3);
	struct spinner sp[4];
	int64_t mem[2] = { 0, (int64_t)random_below(s, 3) };

	assert_non_null(p);
	vsc_program_set_init(p, LOCK, odd == 7 ? VSC_INIT_UNKNOWN : VSC_INIT_KNOWN, 0);
	vsc_program_set_init(p, COUNTER, odd == 8 ? VSC_INIT_UNKNOWN : VSC_INIT_KNOWN,
			     mem[COUNTER]);
	vsc_program_set_init(p, DATA, VSC_INIT_KNOWN, 0);
	for (unsigned t = 0; t < k; t++)
		sp[t] = (struct spinner){ 0, 1 + random_below(s, 3) };
	while (alive && vsc_program_event_count(p) < events) {
		unsigned t = random_below(s, k);
		if (sp[t].state == 4)
			continue;
		spin_step(p, s, t, &sp[t], mem, odd);
		alive -= sp[t].state == 4;
	}
	return p;
}

/* 1 when the lock stops or auto are wrong on p. */
static int check_program(const struct vsc_program *p, struct tally *tally)
{
	struct vsc_result *exact = decide(p, "exact", -1, 1);
	int consistent = vsc_result_verdict(exact) == VSC_CONSISTENT;
	long least = consistent ? vsc_result_preemptions(exact) : -1, count = -1;
	struct lock_stops found;
	struct own_stops own;
	struct analysis a;
	int bad = 0;

	assert_int_equal(analysis_build(&a, p), 0);
	assert_int_equal(own_stops_build(&own, p, &a, NULL), 0);
	lock_stops_find(&found, p, &a, NULL);
	if (consistent && (long)(own.total + found.extra) > least)
		bad = 1, dump_program("own and lock stops exceed the least preemptions", p);
	if (found.witness &&
	    (vsc_witness_verify(p, found.witness, vsc_program_event_count(p), &count, NULL, 0) ||
	     count != found.preemptions || count < least))
		bad = 1, dump_program("the lock's witness is wrong", p);
	if (!bad && !auto_agrees_with_least(p, consistent, least, 1))
		bad = 1, dump_program("auto disagrees with exact on a lock program", p);
	if (consistent && found.extra) {
		tally->extra++;
		tally->bound_meets += (long)(own.total + found.extra) == least;
		tally->witness_meets += found.witness && found.preemptions == least;
	}
	lock_stops_free(&found);
	own_stops_free(&own);
	analysis_free(&a);
	vsc_result_free(exact);
	return bad;
}

static void lock_stops_within_least(void **state)
{
	uint64_t seed = 0x5b1a10cULL;
	struct tally tally = { 0, 0, 0 };
	int bad = 0;

	(void)state;
	for (int i = 0; i < SPIN_PROGRAMS; i++) {
		struct vsc_program *p = spin_program(&seed, 12 + random_below(&seed, 24),
						     i % 2 ? 0 : random_below(&seed, 9));
		bad += check_program(p, &tally);
		vsc_program_free(p);
	}
	for (int i = 0; i < RANDOM_PROGRAMS; i++) {
		struct random_shape shape = small_shape(&seed, 14, 2, 2);

		shape.rmw_pct = 70;
		shape.init_pct = i % 4 ? 90 : 40;
		struct vsc_program *p = random_program(&seed, &shape);
		assert_non_null(p);
		bad += check_program(p, &tally);
		vsc_program_free(p);
	}
	assert_int_equal(bad, 0);
	printf("lock stops: extra on %d programs, least reached by the bound on %d, by the "
	       "witness on %d\n",
	       tally.extra, tally.bound_meets, tally.witness_meets);
	assert_true(tally.extra > SPIN_PROGRAMS / 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lock_stops_within_least),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
