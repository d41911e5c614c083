/* SPDX-License-Identifier: MIT */
/*
 * vsc lab capture: record a litmus-style test without disturbing it.
 *
 * A probe that traps (a uprobe is an int3 on x86-64), a system call, or a
 * locked instruction between a store and a later load drains the store
 * buffer, and the weak behaviours a lab run looks for vanish while they are
 * traced. Here each thread logs its accesses into a log of its own with
 * plain stores only (no clock, no probe, no atomic read-modify-write of
 * ours) during an iteration, and fires the real probes (<vsc/probe.h>:
 * eBPF by default, LTTng with -DVSC_PROBE_LTTNG) for the whole log, in
 * program order, after the iteration's closing barrier:
 *
 *   struct vsc_lab_log log;                 // one per thread
 *   for (long i = 0; i < n; i++) {
 *           vsc_lab_begin(&log, i);
 *           barrier_wait(&start);
 *           vsc_lab_store32(&log, &x[i], 1);
 *           r = vsc_lab_load32(&log, &y[i]);
 *           barrier_wait(&end);
 *           vsc_lab_end(&log);              // segment i: this thread's part
 *   }
 *
 * Each iteration becomes one `segment` of the trace (named by its number),
 * holding every thread's events of it.
 *
 * The log holds VSC_LAB_CAP accesses (define it before including this
 * header to change it). An iteration that does more is not cut short: the
 * log is emitted early (which may disturb that iteration) and
 * vsc_lab_end() returns how many times that happened, so the test can say
 * so. Nothing is ever dropped.
 */
#ifndef VSC_LAB_H
#define VSC_LAB_H

#include <stdint.h>

#include <vsc/probe.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef VSC_LAB_CAP
#define VSC_LAB_CAP 64
#endif

struct vsc_lab_entry {
	const volatile void *addr;
	int64_t value;
	int64_t new_value;
	uint16_t kind; /* VSC_PROBE_KIND_* */
	uint16_t size;
};

struct vsc_lab_log {
	unsigned count;
	unsigned early;  /* times the log was emitted before the end of an iteration */
	long iteration;  /* the segment the entries belong to */
	int started;     /* the segment marker has been emitted */
	struct vsc_lab_entry entries[VSC_LAB_CAP];
};

/* Emit the logged entries through the probes, in program order. */
static inline void vsc_lab_emit_(struct vsc_lab_log *log)
{
	if (!log->started) {
		VSC_PROBE_SEGMENT(log->iteration, (const char *)0);
		log->started = 1;
	}
	for (unsigned i = 0; i < log->count; i++) {
		const struct vsc_lab_entry *e = &log->entries[i];
		switch (e->kind) {
		case VSC_PROBE_KIND_LOAD:
			VSC_PROBE_LOAD_N(e->addr, e->size, e->value);
			break;
		case VSC_PROBE_KIND_STORE:
			VSC_PROBE_STORE_N(e->addr, e->size, e->value);
			break;
		default:
			VSC_PROBE_RMW_N(e->addr, e->size, e->value, e->new_value);
			break;
		}
	}
	log->count = 0;
}

static inline void vsc_lab_log_(struct vsc_lab_log *log, uint16_t kind, const volatile void *addr,
				uint16_t size, int64_t value, int64_t new_value)
{
	struct vsc_lab_entry *e;

	if (log->count == VSC_LAB_CAP) {
		log->early++;
		vsc_lab_emit_(log);
	}
	e = &log->entries[log->count++];
	e->addr = addr;
	e->value = value;
	e->new_value = new_value;
	e->kind = kind;
	e->size = size;
}

/* Start iteration `iteration` of this thread (call before its start barrier). */
static inline void vsc_lab_begin(struct vsc_lab_log *log, long iteration)
{
	log->count = 0;
	log->early = 0;
	log->iteration = iteration;
	log->started = 0;
}

/* End the iteration (call after its closing barrier): fire the probes for
 * the whole log. Returns how many times the log had to be emitted early. */
static inline unsigned vsc_lab_end(struct vsc_lab_log *log)
{
	vsc_lab_emit_(log);
	VSC_PROBE_FLUSH();
	return log->early;
}

/* Plain (relaxed, not locked) accesses of 1, 2, 4 and 8 bytes that log
 * themselves, and atomic read-modify-writes for tests that need them. */
#define VSC_LAB_DEFINE_WIDTH_(BITS)                                                        \
	static inline int##BITS##_t vsc_lab_load##BITS(struct vsc_lab_log *log,            \
						       const volatile int##BITS##_t *p)   \
	{                                                                                  \
		int##BITS##_t v = __atomic_load_n(p, __ATOMIC_RELAXED);                    \
		vsc_lab_log_(log, VSC_PROBE_KIND_LOAD, p, BITS / 8, v, 0);                 \
		return v;                                                                  \
	}                                                                                  \
	static inline void vsc_lab_store##BITS(struct vsc_lab_log *log,                    \
					       volatile int##BITS##_t *p, int##BITS##_t v) \
	{                                                                                  \
		__atomic_store_n(p, v, __ATOMIC_RELAXED);                                  \
		vsc_lab_log_(log, VSC_PROBE_KIND_STORE, p, BITS / 8, v, 0);                \
	}                                                                                  \
	static inline int##BITS##_t vsc_lab_xchg##BITS(struct vsc_lab_log *log,            \
						       volatile int##BITS##_t *p,         \
						       int##BITS##_t v)                   \
	{                                                                                  \
		int##BITS##_t old = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);           \
		vsc_lab_log_(log, VSC_PROBE_KIND_RMW, p, BITS / 8, old, v);                \
		return old;                                                                \
	}                                                                                  \
	static inline int##BITS##_t vsc_lab_fetch_add##BITS(struct vsc_lab_log *log,       \
							    volatile int##BITS##_t *p,    \
							    int##BITS##_t v)              \
	{                                                                                  \
		int##BITS##_t old = __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);            \
		vsc_lab_log_(log, VSC_PROBE_KIND_RMW, p, BITS / 8, old,                    \
			     (int##BITS##_t)(old + v));                                    \
		return old;                                                                \
	}

VSC_LAB_DEFINE_WIDTH_(8)
VSC_LAB_DEFINE_WIDTH_(16)
VSC_LAB_DEFINE_WIDTH_(32)
VSC_LAB_DEFINE_WIDTH_(64)

#ifdef __cplusplus
}
#endif
#endif /* VSC_LAB_H */
