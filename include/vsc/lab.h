/* SPDX-License-Identifier: MIT */
/*
 * vsc lab capture: record a litmus-style test without disturbing it.
 *
 * A probe that traps (a uprobe is an int3 on x86-64), a system call, a
 * locked instruction, or even a few dozen extra instructions between a store
 * and a later load drain the store buffer or shift the timing, and the weak
 * behaviours a lab run looks for vanish while they are traced. So with this
 * header a logged access costs what the plain test spends on remembering a
 * result: one plain store of the value to a fixed slot of a log that holds
 * the whole run. Everything else is known before the run and said once:
 *
 * - each thread owns one `struct vsc_lab`, whose log has one row per
 *   iteration and one slot per access (int64_t values), allocated and
 *   touched by vsc_lab_init(), so no page fault happens during the run;
 * - the address, size and kind of access k are described once: in
 *   iteration i it touches `first + i * stride` (stride 0: the same
 *   variable every time, sizeof the variable: fresh variables per iteration);
 * - a store whose value never changes is filled in once (vsc_lab_fill())
 *   and costs nothing during the run; a load (or an RMW's old value) is
 *   logged with one plain store: row[k] = value;
 * - nothing is emitted during the run: after it, each thread fires the
 *   probes of <vsc/probe.h> (eBPF by default, LTTng with -DVSC_PROBE_LTTNG)
 *   for its log, iteration by iteration, each preceded by
 *   VSC_PROBE_SEGMENT(first_segment + i): in chunks of VSC_LAB_EMIT_CHUNK
 *   iterations with a barrier between them (vsc_lab_emit_range()), so a
 *   recorder that streams gets every thread's part of an iteration while
 *   that segment is still open.
 *
 *   static int32_t x[N], y[N];                  // fresh variables, zero
 *   struct vsc_lab lab;                         // one per thread
 *   if (vsc_lab_init(&lab, N, 2))               // N rows of 2 slots
 *           fail();
 *   vsc_lab_describe(&lab, 0, VSC_LAB_STORE, &x[0], sizeof(x[0]), sizeof(x[0]));
 *   vsc_lab_fill(&lab, 0, 1);                   // slot 0 always writes 1
 *   vsc_lab_describe(&lab, 1, VSC_LAB_LOAD, &y[0], sizeof(y[0]), sizeof(y[0]));
 *   for (long i = 0; i < N; i++) {
 *           int64_t *row = vsc_lab_row(&lab, i); // before the start barrier
 *           barrier_wait();
 *           x[i] = 1;                           // the test's own accesses
 *           row[1] = y[i];                      // logged: one plain store
 *           barrier_wait();
 *   }
 *   for (long i = 0; i < N; i += VSC_LAB_EMIT_CHUNK) { // the same thread, after the run
 *           vsc_lab_emit_range(&lab, 0, i, i + VSC_LAB_EMIT_CHUNK);
 *           barrier_wait();
 *   }
 *   vsc_lab_free(&lab);
 *
 * Each iteration becomes one `segment` of the trace (named by its number)
 * holding every thread's events of it. The log also is the test's record of
 * what it saw: vsc_lab_row(&lab, i)[k] after the run.
 *
 * An RMW takes two slots, k (the value read) and k + 1 (the value written;
 * vsc_lab_fill() it when it is constant, as for an exchange).
 *
 * The header does not perform the test's accesses: the test does them its
 * own way (volatile accesses, relaxed atomics or inline assembly, whatever
 * the plain test does), so the instructions between two test accesses are
 * the plain test's plus at most one store per logged value.
 *
 * To compare a lab.h test with its plain version, run both through one copy
 * of the loop's code (the variables and the rows as arguments, as
 * tests/targets/lab_driver.h does): with a spin barrier, SB's weak rate
 * swings by up to 8x with where a loop's code lies alone (docs/lab.md).
 */
#ifndef VSC_LAB_H
#define VSC_LAB_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <vsc/probe.h>

#ifdef __cplusplus
extern "C" {
#endif

enum vsc_lab_kind {
	VSC_LAB_UNUSED = 0, /* a slot that is emitted as nothing */
	VSC_LAB_LOAD,
	VSC_LAB_STORE,
	VSC_LAB_RMW,     /* slot k: value read, slot k + 1: value written */
	VSC_LAB_RMW_NEW, /* slot k + 1 of an RMW (set by vsc_lab_describe) */
};

/* Where an access goes and what it is, said once per test. */
struct vsc_lab_access {
	uintptr_t first; /* address in iteration 0 */
	size_t stride;   /* bytes from one iteration's variable to the next */
	uint16_t size;   /* 1, 2, 4 or 8 bytes */
	uint16_t kind;   /* enum vsc_lab_kind */
};

struct vsc_lab {
	long iterations;
	unsigned slots;
	int64_t *log;                  /* iterations x slots values, row after row */
	struct vsc_lab_access *access; /* slots entries */
};

/* Allocate (and touch) the log of a run of `iterations` iterations of
 * `slots` logged values each. Returns 0, or -EINVAL / -ENOMEM. */
static inline int vsc_lab_init(struct vsc_lab *lab, long iterations, unsigned slots)
{
	size_t bytes;

	memset(lab, 0, sizeof(*lab));
	if (iterations < 1 || slots < 1 || (size_t)iterations > SIZE_MAX / 8 / slots)
		return -EINVAL;
	bytes = (size_t)iterations * slots * sizeof(int64_t);
	bytes = (bytes + 63) & ~(size_t)63; /* whole cache lines: no false sharing */
	lab->log = (int64_t *)aligned_alloc(64, bytes);
	lab->access = (struct vsc_lab_access *)calloc(slots, sizeof(*lab->access));
	if (!lab->log || !lab->access) {
		free(lab->log);
		free(lab->access);
		lab->log = NULL;
		lab->access = NULL;
		return -ENOMEM;
	}
	memset(lab->log, 0, bytes); /* fault every page in now, not during the run */
	lab->iterations = iterations;
	lab->slots = slots;
	return 0;
}

/* Slot `slot` is an access of `kind` of `size` bytes at `first` in
 * iteration 0 and `first + i * stride` in iteration i. An RMW also takes
 * slot + 1. Returns 0, or -EINVAL. */
static inline int vsc_lab_describe(struct vsc_lab *lab, unsigned slot, enum vsc_lab_kind kind,
				   const volatile void *first, size_t stride, unsigned size)
{
	unsigned need = kind == VSC_LAB_RMW ? 2 : 1;

	if (slot >= lab->slots || lab->slots - slot < need ||
	    (size != 1 && size != 2 && size != 4 && size != 8) ||
	    (kind != VSC_LAB_LOAD && kind != VSC_LAB_STORE && kind != VSC_LAB_RMW))
		return -EINVAL;
	lab->access[slot] = (struct vsc_lab_access){
		.first = (uintptr_t)first,
		.stride = stride,
		.size = (uint16_t)size,
		.kind = (uint16_t)kind,
	};
	if (kind == VSC_LAB_RMW)
		lab->access[slot + 1] = (struct vsc_lab_access){ .kind = VSC_LAB_RMW_NEW };
	return 0;
}

/* Put `value` into slot `slot` of every row (a store of a constant). */
static inline void vsc_lab_fill(struct vsc_lab *lab, unsigned slot, int64_t value)
{
	for (long i = 0; i < lab->iterations; i++)
		lab->log[(size_t)i * lab->slots + slot] = value;
}

/* Row of iteration i: log value k with row[k] = value. */
static inline int64_t *vsc_lab_row(const struct vsc_lab *lab, long i)
{
	return lab->log + (size_t)i * lab->slots;
}

/* Fire the probes for iteration i of the log. */
static inline void vsc_lab_emit_row_(const struct vsc_lab *lab, long i, long segment)
{
	const int64_t *row = vsc_lab_row(lab, i);

	VSC_PROBE_SEGMENT(segment, (const char *)0);
	for (unsigned k = 0; k < lab->slots; k++) {
		const struct vsc_lab_access *a = &lab->access[k];
		const volatile void *addr =
			(const volatile void *)(a->first + (size_t)i * a->stride);

		switch (a->kind) {
		case VSC_LAB_LOAD:
			VSC_PROBE_LOAD_N(addr, a->size, row[k]);
			break;
		case VSC_LAB_STORE:
			VSC_PROBE_STORE_N(addr, a->size, row[k]);
			break;
		case VSC_LAB_RMW:
			VSC_PROBE_RMW_N(addr, a->size, row[k], row[k + 1]);
			break;
		default: /* unused, or the second half of an RMW */
			break;
		}
	}
}

/* A streaming recorder keeps only so many segments open at once (1024 for
 * vsc record): emit at most this many iterations per thread before every
 * thread has emitted the same ones (vsc_lab_emit_range and a barrier). */
#define VSC_LAB_EMIT_CHUNK 256

/* After the run, from the thread that owns the log (the trace names
 * threads by their kernel thread id): fire the probes for iterations
 * [from, to), in program order, iteration i as segment first_segment + i,
 * and flush them out of the thread. */
static inline void vsc_lab_emit_range(const struct vsc_lab *lab, long first_segment, long from,
				      long to)
{
	for (long i = from; i < to && i < lab->iterations; i++)
		vsc_lab_emit_row_(lab, i, first_segment + i);
	VSC_PROBE_FLUSH();
}

/* The whole log at once: for one thread, or when the threads emit one
 * after the other into a recorder that keeps every segment open. */
static inline void vsc_lab_emit(const struct vsc_lab *lab, long first_segment)
{
	vsc_lab_emit_range(lab, first_segment, 0, lab->iterations);
}

static inline void vsc_lab_free(struct vsc_lab *lab)
{
	free(lab->log);
	free(lab->access);
	lab->log = NULL;
	lab->access = NULL;
}

#ifdef __cplusplus
}
#endif
#endif /* VSC_LAB_H */
