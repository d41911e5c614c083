/* SPDX-License-Identifier: MIT */
/* Store buffering, the litmus test, plain and logged with <vsc/lab.h>:
 *
 *   T0: x[i] = 1; r0 = y[i]        T1: y[i] = 1; r1 = x[i]
 *
 * with fresh variables in every iteration i. Under SC at least one of r0,
 * r1 is 1; x86-64 (TSO) and ARM64 also allow r0 = r1 = 0 (the weak
 * outcome), which vsc must report as inconsistent. The plain test keeps r in
 * rows of an array of its own; the lab.h test keeps it in the log: the same
 * one store (the same loop, lab_driver.h; docs/lab.md).
 * Usage: lab_sb ITERATIONS OUTCOMES_FILE [BLOCK]; the file gets one line
 * "i r0 r1" per lab.h iteration. */
#define TEST_NAME "lab_sb"
#define TEST_SLOTS 2 /* slot 0: the store, slot 1: the load */

#include "lab_driver.h"

static inline void test_describe(int me, struct vsc_lab *lab)
{
	volatile int32_t *mine = me ? y : x, *other = me ? x : y;

	vsc_lab_describe(lab, 0, VSC_LAB_STORE, mine, sizeof(*mine), sizeof(*mine));
	vsc_lab_fill(lab, 0, 1);
	vsc_lab_describe(lab, 1, VSC_LAB_LOAD, other, sizeof(*other), sizeof(*other));
}

static inline void test_run(int me, long i, int64_t *row, volatile int32_t *x, volatile int32_t *y)
{
	volatile int32_t *mine = me ? y : x, *other = me ? x : y;

	mine[i] = 1;
	row[1] = other[i];
}

static int test_weak(const struct vsc_lab *logs, long i)
{
	return !vsc_lab_row(&logs[0], i)[1] && !vsc_lab_row(&logs[1], i)[1];
}

static void test_print(FILE *out, const struct vsc_lab *logs, long i)
{
	fprintf(out, "%ld %d %d\n", i, (int)vsc_lab_row(&logs[0], i)[1],
		(int)vsc_lab_row(&logs[1], i)[1]);
}
