/* SPDX-License-Identifier: MIT */
/* The timestamp replay (userspace/lib/ts_replay.c): on thousands of small
 * random programs with @ts hints (the generating order, a little shuffled,
 * so that some replays fail), every answer it gives agrees with the exact
 * search for the same bound (and --min), and its witness passes the
 * verifier with the count it claims; it must answer a good share. On
 * worker pools of 200 short threads (more than auto's threshold), auto
 * must decide through it, with a witness that verifies, and a pool with a
 * stale read must not be called consistent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "random_program.h"
#include "step_alone.h"
#include "testutil.h"
#include "ts_replay.h"

static unsigned below(uint64_t *s, unsigned n)
{
	return (unsigned)(random_next(s) % n);
}

/* The replay alone on p for (bound, minimize): the verdict, or -1 when it
 * answers nothing; its witness checked with the verifier. */
static int replay_verdict(const struct vsc_program *p, long bound, int minimize, long *pre)
{
	return step_alone_verdict(ts_replay_solve, TS_REPLAY_DECIDED, TS_REPLAY_OPEN, p, bound,
				  minimize, pre);
}

static void replay_agrees_with_exact(void **state)
{
	uint64_t seed = 0x75ad0e11ULL;
	int answered = 0, asked = 0, programs = 3000;

	(void)state;
	for (int i = 0; i < programs; i++) {
		struct random_shape shape = {
			.threads = 2 + below(&seed, 4),
			.events = 2 + below(&seed, 11),
			.vars = 1 + below(&seed, 3),
			.values = 2 + below(&seed, 4),
			.write_pct = 50,
			.rmw_pct = below(&seed, 2) ? 20 : 0,
			.wrong_pct = below(&seed, 3) ? 0 : 10,
			.init_pct = 40,
			.timestamps = 1,
		};
		struct vsc_program *p = random_program(&seed, &shape);
		long bounds[] = { -1, 0, 1, 2, 3 };

		assert_non_null(p);
		for (unsigned j = 0; j < 6; j++) {
			long bound = j < 5 ? bounds[j] : -1, pre = -1;
			int minimize = j == 5, v = replay_verdict(p, bound, minimize, &pre);
			asked++;
			if (v < 0)
				continue;
			answered++;
			step_alone_agrees(p, bound, minimize, pre);
		}
		vsc_program_free(p);
	}
	print_message("replay answered %d of %d questions\n", answered, asked);
	assert_true(answered > asked / 10);
}

/* A pool: k threads of 1-4 events on 4 shared variables, run one after
 * the other in a random order (every write a fresh value), the order given
 * as hints. bad: the last read of the last thread sees -1, which nothing
 * writes (so no interleaving is SC). */
static struct vsc_program *pool(uint64_t *s, unsigned k, int bad)
{
	struct vsc_program *p = vsc_program_new();
	unsigned *order = malloc(k * sizeof(*order));
	int64_t mem[4] = { 0, 0, 0, 0 }, next = 1;
	uint64_t ts = 1;
	char name[16];

	assert_non_null(p);
	assert_non_null(order);
	for (unsigned t = 0; t < k; t++) {
		snprintf(name, sizeof(name), "T%u", t);
		vsc_program_add_thread(p, name);
		order[t] = t;
	}
	for (unsigned v = 0; v < 4; v++) {
		snprintf(name, sizeof(name), "x%u", v);
		vsc_program_add_var(p, name);
		vsc_program_set_init(p, v, VSC_INIT_KNOWN, 0);
	}
	for (unsigned t = k; t-- > 1;) { /* a random order */
		unsigned j = below(s, t + 1), x = order[t];
		order[t] = order[j];
		order[j] = x;
	}
	for (unsigned i = 0; i < k; i++) {
		unsigned n = 1 + below(s, 4);
		for (unsigned e = 0; e < n; e++) {
			struct vsc_event ev = { .var = below(s, 4) };
			if (below(s, 2) && !(bad && i == k - 1 && e == n - 1)) {
				ev.kind = VSC_WRITE;
				ev.value = next++;
				mem[ev.var] = ev.value;
			} else {
				ev.kind = VSC_READ;
				ev.value = bad && i == k - 1 && e == n - 1 ? -1 : mem[ev.var];
			}
			assert_int_equal(vsc_program_append(p, order[i], &ev, ts++), 0);
		}
	}
	free(order);
	return p;
}

static void auto_decides_pools_by_replay(void **state)
{
	uint64_t seed = 0x9001ULL;

	(void)state;
	for (int i = 0; i < 40; i++) {
		struct vsc_program *p = pool(&seed, 200, 0), *bad = pool(&seed, 200, 1);
		struct vsc_result *res = decide(p, "auto", 0, 0);
		const uint32_t *w;
		size_t n = vsc_result_witness(res, &w);
		long pre = -1;
		char why[200] = "";

		/* one thread after the other: no preemption, and the replay says so */
		assert_int_equal(vsc_result_verdict(res), VSC_CONSISTENT);
		assert_int_equal(vsc_witness_verify(p, w, n, &pre, why, sizeof(why)), 0);
		assert_int_equal(pre, 0);
		assert_int_equal(replay_verdict(p, 0, 0, &pre), VSC_CONSISTENT);
		vsc_result_free(res);
		/* a read of -1, never written: the replay must not answer */
		assert_int_equal(replay_verdict(bad, -1, 0, &pre), -1);
		res = decide(bad, "auto", -1, 0);
		assert_int_not_equal(vsc_result_verdict(res), VSC_CONSISTENT);
		vsc_result_free(res);
		vsc_program_free(p);
		vsc_program_free(bad);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(replay_agrees_with_exact),
		cmocka_unit_test(auto_decides_pools_by_replay),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
