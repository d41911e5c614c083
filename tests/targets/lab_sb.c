/* SPDX-License-Identifier: MIT */
/* Store buffering, the litmus test, plain and logged with <vsc/lab.h>:
 *
 *   T0: x[i] = 1; r0 = y[i]        T1: y[i] = 1; r1 = x[i]
 *
 * with fresh variables in every iteration i. Under SC at least one of r0,
 * r1 is 1; x86-64 (TSO) and ARM64 also allow r0 = r1 = 0 (the weak
 * outcome), which vsc must report as inconsistent. The plain test keeps r in
 * an array of its own; the lab.h test keeps it in the log: the same one
 * store (objdump -d shows the two loops alike, docs/lab.md).
 * Usage: lab_sb ITERATIONS OUTCOMES_FILE [BLOCK]; the file gets one line
 * "i r0 r1" per lab.h iteration. */
#define TEST_NAME "lab_sb"
#define TEST_SLOTS 2 /* slot 0: the store, slot 1: the load */
#define MAX_VARS 1000000

#include "lab_driver.h"

static volatile int32_t x[MAX_VARS], y[MAX_VARS];   /* the lab.h test's */
static volatile int32_t px[MAX_VARS], py[MAX_VARS]; /* the plain test's */
static int32_t plain_seen[2][MAX_VARS];

static inline void test_describe(int me, struct vsc_lab *lab)
{
	volatile int32_t *mine = me ? y : x, *other = me ? x : y;

	vsc_lab_describe(lab, 0, VSC_LAB_STORE, mine, sizeof(*mine), sizeof(*mine));
	vsc_lab_fill(lab, 0, 1);
	vsc_lab_describe(lab, 1, VSC_LAB_LOAD, other, sizeof(*other), sizeof(*other));
}

static inline void test_touch(void)
{
	for (long i = 0; i < iterations; i++)
		x[i] = y[i] = px[i] = py[i] = 0;
}

static inline void test_plain(int me, long i)
{
	volatile int32_t *mine = me ? py : px, *other = me ? px : py;

	mine[i] = 1;
	plain_seen[me][i] = other[i];
}

static inline void test_lab(int me, long i, int64_t *row)
{
	volatile int32_t *mine = me ? y : x, *other = me ? x : y;

	mine[i] = 1;
	row[1] = other[i];
}

static int test_plain_weak(long i)
{
	return !plain_seen[0][i] && !plain_seen[1][i];
}

static int test_lab_weak(const struct vsc_lab *logs, long i)
{
	return !vsc_lab_row(&logs[0], i)[1] && !vsc_lab_row(&logs[1], i)[1];
}

static void test_print(FILE *out, const struct vsc_lab *logs, long i)
{
	fprintf(out, "%ld %d %d\n", i, (int)vsc_lab_row(&logs[0], i)[1],
		(int)vsc_lab_row(&logs[1], i)[1]);
}
