/* SPDX-License-Identifier: MIT */
/* vsc_witness_verify: accepts good interleavings with the right preemption
 * count, rejects every kind of bad one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "testutil.h"

static struct vsc_trace *trace;

static const struct vsc_program *load(const char *text)
{
	vsc_trace_free(trace);
	trace = parse_text(text, NULL);
	assert_non_null(trace);
	return only_program(trace);
}

static void accept(const struct vsc_program *p, const uint32_t *w, size_t n, long want_pre)
{
	char why[128] = "";
	long pre = -7;
	int err = vsc_witness_verify(p, w, n, &pre, why, sizeof(why));
	if (err)
		fail_msg("rejected: %s", why);
	assert_int_equal(pre, want_pre);
}

static void reject(const struct vsc_program *p, const uint32_t *w, size_t n)
{
	char why[128] = "";
	long pre = -7;
	assert_int_equal(vsc_witness_verify(p, w, n, &pre, why, sizeof(why)), -EINVAL);
	assert_true(why[0] != '\0');
	assert_int_equal(vsc_witness_verify(p, w, n, NULL, NULL, 0), -EINVAL);
}

/* T0: w x 1, w x 2; T1: r x 1 */
static const char *const two_writes = "T0 w x 1\nT0 w x 2\nT1 r x 1\n";

static void test_accepts(void **state)
{
	(void)state;
	const struct vsc_program *p = load(two_writes);
	accept(p, (const uint32_t[]){ 0, 1, 0 }, 3, 1);

	/* leaving a finished thread is no preemption */
	p = load("T0 w x 1\nT1 r x 1\nT1 w x 2\nT0 r y 5\ninit y 5\n");
	accept(p, (const uint32_t[]){ 0, 1, 1, 0 }, 4, 1);
	p = load("T0 w x 1\nT1 r x 1\nT2 r x 1\n");
	accept(p, (const uint32_t[]){ 0, 1, 2 }, 3, 0);
	accept(p, (const uint32_t[]){ 0, 2, 1 }, 3, 0);
	/* the empty program: the empty witness */
	p = load("");
	accept(p, NULL, 0, 0);
	/* unknown initial value: both reads see the same one */
	p = load("init x ?\nT0 r x 5\nT1 r x 5\nT1 w x 6\nT0 r x 6\n");
	accept(p, (const uint32_t[]){ 0, 1, 1, 0 }, 4, 1);
	/* a write before any read: the unknown value is never seen */
	p = load("init x ?\nT0 w x 1\nT1 r x 1\n");
	accept(p, (const uint32_t[]){ 0, 1 }, 2, 0);
	/* an RMW reads the old value and leaves the new one */
	p = load("init x 0\nT0 u x 0 1\nT1 u x 1 2\nT1 r x 2\n");
	accept(p, (const uint32_t[]){ 0, 1, 1 }, 3, 0);
	/* an RMW on an unknown initial value */
	p = load("init x ?\nT0 u x 9 1\nT1 r x 1\n");
	accept(p, (const uint32_t[]){ 0, 1 }, 2, 0);
	/* why may be NULL, preemptions may be NULL */
	assert_int_equal(vsc_witness_verify(p, (const uint32_t[]){ 0, 1 }, 2, NULL, NULL, 0), 0);
	vsc_trace_free(trace);
	trace = NULL;
}

static void test_rejects(void **state)
{
	(void)state;
	const struct vsc_program *p = load(two_writes);
	/* wrong length: short, long, empty */
	reject(p, (const uint32_t[]){ 0, 1 }, 2);
	reject(p, (const uint32_t[]){ 0, 1, 0, 0 }, 4);
	reject(p, NULL, 0);
	/* a thread more often than it has events (and one never) */
	reject(p, (const uint32_t[]){ 0, 0, 0 }, 3);
	reject(p, (const uint32_t[]){ 1, 1, 0 }, 3);
	/* a thread that does not exist */
	reject(p, (const uint32_t[]){ 0, 2, 0 }, 3);
	reject(p, (const uint32_t[]){ 0, UINT32_MAX, 0 }, 3);
	/* stale read: x was overwritten by 2 */
	reject(p, (const uint32_t[]){ 0, 0, 1 }, 3);
	/* read before any write, no initial value */
	reject(p, (const uint32_t[]){ 1, 0, 0 }, 3);
	/* the initial value is 0, the read wants 1 */
	p = load("init x 0\nT0 r x 1\nT1 w x 1\n");
	reject(p, (const uint32_t[]){ 0, 1 }, 2);
	accept(p, (const uint32_t[]){ 1, 0 }, 2, 0);
	/* unknown initial value read twice with different values */
	p = load("init x ?\nT0 r x 5\nT1 r x 6\n");
	reject(p, (const uint32_t[]){ 0, 1 }, 2);
	reject(p, (const uint32_t[]){ 1, 0 }, 2);
	p = load("init x ?\nT0 r x 5\nT0 r x 6\n");
	reject(p, (const uint32_t[]){ 0, 0 }, 2);
	/* an RMW whose old value is not there */
	p = load("init x 0\nT0 u x 0 1\nT1 u x 0 1\n");
	reject(p, (const uint32_t[]){ 0, 1 }, 2);
	reject(p, (const uint32_t[]){ 1, 0 }, 2);
	/* an RMW is a write: a later read sees its new value, not the old */
	p = load("init x 0\nT0 u x 0 1\nT1 r x 0\n");
	reject(p, (const uint32_t[]){ 0, 1 }, 2);
	accept(p, (const uint32_t[]){ 1, 0 }, 2, 0);
	/* variables do not mix */
	p = load("T0 w x 1\nT1 r y 1\n");
	reject(p, (const uint32_t[]){ 0, 1 }, 2);
	vsc_trace_free(trace);
	trace = NULL;
}

static void test_preemption_count(void **state)
{
	(void)state;
	/* T0: 3 events, T1: 3 events, alternating: 5 switches, the last one
	 * leaves T0 finished... count by hand */
	const struct vsc_program *p = load("T0 w a 1\nT0 w b 1\nT0 w c 1\n"
					   "T1 w d 1\nT1 w e 1\nT1 w f 1\n");
	accept(p, (const uint32_t[]){ 0, 1, 0, 1, 0, 1 }, 6, 4);
	accept(p, (const uint32_t[]){ 0, 0, 0, 1, 1, 1 }, 6, 0);
	accept(p, (const uint32_t[]){ 1, 1, 0, 0, 0, 1 }, 6, 1);
	accept(p, (const uint32_t[]){ 1, 0, 0, 0, 1, 1 }, 6, 1);
	accept(p, (const uint32_t[]){ 0, 1, 1, 1, 0, 0 }, 6, 1);
	vsc_trace_free(trace);
	trace = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepts),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_preemption_count),
	};
	return cmocka_run_group_tests_name("witness", tests, NULL, NULL);
}
