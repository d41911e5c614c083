/* SPDX-License-Identifier: MIT */
/* Message passing, plain and logged with <vsc/lab.h>:
 *
 *   T0: x[i] = 1; y[i] = 1         T1: r0 = y[i]; r1 = x[i]
 *
 * with fresh variables in every iteration i. r0 = 1, r1 = 0 (the weak
 * outcome) is not SC, and x86-64 (TSO: stores in order, loads in order)
 * forbids it; ARM64 allows it. T0 logs nothing during the run (its stores
 * write constants, filled in once); T1 logs its two loads.
 * Usage: lab_mp ITERATIONS OUTCOMES_FILE [BLOCK]; the file gets one line
 * "i r0 r1" per lab.h iteration. */
#define TEST_NAME "lab_mp"
#define TEST_SLOTS 2 /* T0: its two stores; T1: its two loads */

#include "lab_driver.h"

static inline void test_describe(int me, struct vsc_lab *lab)
{
	enum vsc_lab_kind kind = me ? VSC_LAB_LOAD : VSC_LAB_STORE;

	vsc_lab_describe(lab, 0, kind, me ? y : x, sizeof(x[0]), sizeof(x[0]));
	vsc_lab_describe(lab, 1, kind, me ? x : y, sizeof(x[0]), sizeof(x[0]));
	if (!me) {
		vsc_lab_fill(lab, 0, 1);
		vsc_lab_fill(lab, 1, 1);
	}
}

static inline void test_run(int me, long i, int64_t *row, volatile int32_t *x, volatile int32_t *y)
{
	if (!me) {
		x[i] = 1;
		y[i] = 1;
	} else {
		row[0] = y[i];
		row[1] = x[i];
	}
}

static int test_weak(const struct vsc_lab *logs, long i)
{
	const int64_t *row = vsc_lab_row(&logs[1], i);
	return row[0] == 1 && row[1] == 0;
}

static void test_print(FILE *out, const struct vsc_lab *logs, long i)
{
	const int64_t *row = vsc_lab_row(&logs[1], i);
	fprintf(out, "%ld %d %d\n", i, (int)row[0], (int)row[1]);
}
