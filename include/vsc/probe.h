/* SPDX-License-Identifier: MIT */
/*
 * vsc probes for target programs (C and C++), header-only.
 *
 *   #include <vsc/probe.h>
 *   long v = vsc_load64(&flag);            // relaxed atomic load, recorded
 *   vsc_store64(&data, 42);                // relaxed atomic store, recorded
 *   VSC_PROBE_STORE(&x, 1);                // record an access you made yourself
 *
 * Record with `vsc record -- ./prog` or `vsc record -p PID` (eBPF, default
 * backend below) or, compiled with -DVSC_PROBE_LTTNG, with LTTng-UST.
 *
 * The recorded value is exactly the value read or written. Macros take a
 * typed pointer (the access size is sizeof(*addr)); the *_N forms take the
 * size explicitly.
 *
 * How the eBPF backend is cheap and lossless (docs/record.md has numbers):
 * - Not traced: every probe is one load of a USDT semaphore and a branch.
 *   The kernel sets the semaphore while `vsc record` has its uprobe attached,
 *   and clears it when the recorder detaches or dies.
 * - Traced: each access is appended to a thread-local log (address, value,
 *   time, instruction pointer); one USDT probe `vsc:batch` fires per full
 *   log, at thread exit and at process exit, and the BPF program copies the
 *   whole log into its ring buffer as one record. Entries keep their
 *   per-thread sequence numbers, so program order survives batching.
 * - Back-pressure: when the recorder blocks (its default), it acknowledges
 *   each batch it has read by writing `acked` into the log, and the thread
 *   waits for that before reusing its log; a batch that did not fit into the
 *   ring buffer is fired again after a short wait: the program slows down
 *   instead of losing events. The thread waits only while the recorder
 *   holds the `vsc:block` semaphore, so a recorder that dies or detaches
 *   never leaves a target waiting.
 * - `vsc:log` fires at the start of each batch so the recorder can find a
 *   log that is not full yet when the recording stops (it reads it with the
 *   threads stopped, or the kernel hands it over when a thread exits).
 * - A store or read-modify-write of the helpers is announced in `pending`
 *   before it is performed and published after, so a log read at any
 *   moment never lacks a store other threads may have seen, nor holds one
 *   that was never performed (a thread killed between the two: the
 *   recorder counts the loss as unknown).
 *
 * One rule for programs that also use <sys/sdt.h> themselves: include this
 * header first (or define _SDT_HAS_SEMAPHORES and give your own probes
 * semaphores), because the eBPF backend needs a USDT semaphore.
 */
#ifndef VSC_PROBE_H
#define VSC_PROBE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Kinds, as in bpf/vsc_event.h (enum vsc_capture_kind). */
#define VSC_PROBE_KIND_LOAD 0
#define VSC_PROBE_KIND_STORE 1
#define VSC_PROBE_KIND_RMW 2
#define VSC_PROBE_KIND_SEGMENT 3
/* value: probe accesses this thread made in a signal handler that
 * interrupted one of its probes (performed, not logged: see below) */
#define VSC_PROBE_KIND_NESTED 4

/* ---- the eBPF backend's thread-local log (read by `vsc record`) ------- */
#define VSC_PROBE_LOG_CAP 256                     /* entries per batch; bpf/record.h agrees */
#define VSC_PROBE_PAUSE_NS 50000000ull            /* 50 ms without events: announce again */
#define VSC_PROBE_LOG_MAGIC 0x7673632d6c6f6732ULL /* "vsc-log2" */

/* One logged access: 48 bytes. Same layout as struct vsc_probe_entry in
 * bpf/record.h (the recorder checks). */
struct vsc_probe_entry {
	uint64_t addr;
	int64_t value;
	int64_t new_value;
	uint64_t ts_ns; /* CLOCK_MONOTONIC */
	uint64_t ip;
	uint16_t kind;
	uint16_t size;
	uint32_t flags; /* VSC_PROBE_F_* */
};

/* The probe was off before the access and on after it: the recording began
 * around it, so it may have been performed before the recording began (a
 * thread stopped between the two while the recorder attached). */
#define VSC_PROBE_F_AT_START 1u

struct vsc_probe_log {
	uint64_t magic;
	uint64_t seq;   /* sequence number of entries[0] */
	uint32_t count; /* entries published */
	uint32_t tid;
	uint32_t announced; /* magic, tid and the exit hook are set */
	/* 1 + index of an entry whose store or RMW may be performed but is
	 * not yet published (index >= count); 0: none */
	uint32_t pending;
	uint64_t acked; /* written by the recorder: every seq below is read */
	struct vsc_probe_entry entries[VSC_PROBE_LOG_CAP];
};

#ifdef VSC_PROBE_LAYOUT_ONLY
/* the recorder wants the layout only */
#else
#if !defined(VSC_PROBE_DISABLE)
/* ---- the reentrancy guard (eBPF and LTTng) ------------------------------
 * A probe spans its access and its event: the log entry (or tracepoint)
 * and the load, store or RMW it records. A signal handler that runs inside
 * that span and uses a probe itself cannot be placed in the thread's order
 * (its access may come before or after the interrupted one's, and the log
 * slot is in use), so its probe performs the access only and counts it in
 * vsc_probe_tls_nested; the interrupted probe reports the count when it
 * ends (an event of kind VSC_PROBE_KIND_NESTED, or vsc:nested), and the
 * recorder counts those accesses as lost. Async-signal-safe: a per-thread
 * flag and counter, ordered by compiler barriers, no locks. */
__attribute__((weak)) __thread uint32_t vsc_probe_tls_busy;
__attribute__((weak)) __thread uint32_t vsc_probe_tls_nested;
void vsc_probe_report_nested_(void);

/* 1: this probe holds the guard; 0: inside another probe of this thread
 * (a signal handler interrupted it): counted, log nothing. */
static inline int vsc_probe_enter_(void)
{
	if (__builtin_expect(vsc_probe_tls_busy != 0, 0)) {
		__atomic_fetch_add(&vsc_probe_tls_nested, 1, __ATOMIC_RELAXED);
		return 0;
	}
	vsc_probe_tls_busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return 1;
}

static inline void vsc_probe_leave_(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	vsc_probe_tls_busy = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(__atomic_load_n(&vsc_probe_tls_nested, __ATOMIC_RELAXED) != 0, 0))
		vsc_probe_report_nested_();
}
#endif

/* ======================================================================== */
#if defined(VSC_PROBE_LTTNG)
/* ---- LTTng-UST backend (owned by the LTTng path, issue 5) --------------- */
#ifdef __cplusplus
} /* the LTTng headers set their own linkage, and C++ brings templates */
#endif
#include <vsc/probe-lttng.h>
#ifdef __cplusplus
extern "C" {
#endif
/* The count of accesses made inside a probe, as one vsc:nested event. */
__attribute__((weak, noinline)) void vsc_probe_report_nested_(void)
{
	while (!vsc_probe_tls_busy && __atomic_load_n(&vsc_probe_tls_nested, __ATOMIC_RELAXED)) {
		vsc_probe_tls_busy = 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		uint32_t n_ = __atomic_exchange_n(&vsc_probe_tls_nested, 0, __ATOMIC_RELAXED);
		VSC_LTTNG_NESTED(n_);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		vsc_probe_tls_busy = 0;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	}
}
/* The user's probes (the access is the user's own): guarded events. */
#define VSC_PROBE_GUARDED_(event)           \
	do {                                \
		if (vsc_probe_enter_()) {   \
			event;              \
			vsc_probe_leave_(); \
		}                           \
	} while (0)
#define VSC_PROBE_LOAD_N(addr, size, value) VSC_PROBE_GUARDED_(VSC_LTTNG_LOAD(addr, size, value))
#define VSC_PROBE_STORE_N(addr, size, value) VSC_PROBE_GUARDED_(VSC_LTTNG_STORE(addr, size, value))
#define VSC_PROBE_RMW_N(addr, size, old, new) \
	VSC_PROBE_GUARDED_(VSC_LTTNG_RMW(addr, size, old, new))
#define VSC_PROBE_SEGMENT(id, name) VSC_PROBE_GUARDED_(VSC_LTTNG_SEGMENT(id, name))
#define VSC_PROBE_FLUSH() ((void)0)
/* The helpers' events, inside a guard that spans their access too. */
#define VSC_PROBE_GUARD_IN_() vsc_probe_enter_()
#define VSC_PROBE_GUARD_OUT_() vsc_probe_leave_()
#define VSC_PROBE_LOAD_RAW_(addr, size, value) VSC_LTTNG_LOAD(addr, size, value)
#define VSC_PROBE_STORE_RAW_(addr, size, value) VSC_LTTNG_STORE(addr, size, value)
#define VSC_PROBE_RMW_RAW_(addr, size, old, new) VSC_LTTNG_RMW(addr, size, old, new)
/* ---- end of the LTTng-UST backend --------------------------------------- */

/* ======================================================================== */
#elif defined(VSC_PROBE_DISABLE)
/* ---- no probes at all: the helpers still do their atomic accesses ------- */
#define VSC_PROBE_LOAD_N(addr, size, value) ((void)(addr), (void)(size), (void)(value))
#define VSC_PROBE_STORE_N(addr, size, value) ((void)(addr), (void)(size), (void)(value))
#define VSC_PROBE_RMW_N(addr, size, old, new) ((void)(addr), (void)(size), (void)(old), (void)(new))
#define VSC_PROBE_SEGMENT(id, name) ((void)(id), (void)(name))
#define VSC_PROBE_FLUSH() ((void)0)
#define VSC_PROBE_GUARD_IN_() 1
#define VSC_PROBE_GUARD_OUT_() ((void)0)
#define VSC_PROBE_LOAD_RAW_(addr, size, value) VSC_PROBE_LOAD_N(addr, size, value)
#define VSC_PROBE_STORE_RAW_(addr, size, value) VSC_PROBE_STORE_N(addr, size, value)
#define VSC_PROBE_RMW_RAW_(addr, size, old, new) VSC_PROBE_RMW_N(addr, size, old, new)

/* ======================================================================== */
#else
/* ---- eBPF backend: USDT probes (provider vsc) with thread-local batching */
#if defined(_SYS_SDT_H) && !defined(_SDT_HAS_SEMAPHORES)
#error "include <vsc/probe.h> before <sys/sdt.h> (its probes need a USDT semaphore)"
#endif
#ifndef _SDT_HAS_SEMAPHORES
#define _SDT_HAS_SEMAPHORES 1
#endif
#ifdef __cplusplus
} /* <sys/sdt.h> brings C++ templates */
#endif
#include <sys/sdt.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#ifdef __cplusplus
extern "C" {
#endif

/* The semaphores, one log per thread and one flush function per program:
 * weak definitions, so every file that includes this header shares them.
 * vsc_block_semaphore is held by a recorder that acknowledges batches. */
__extension__ __attribute__((weak, section(".probes"))) volatile unsigned short vsc_batch_semaphore;
__extension__ __attribute__((weak, section(".probes"))) volatile unsigned short vsc_log_semaphore;
__extension__ __attribute__((weak, section(".probes"))) volatile unsigned short vsc_block_semaphore;
__attribute__((weak)) __thread struct vsc_probe_log vsc_probe_tls_log;
__attribute__((weak)) pthread_key_t vsc_probe_exit_key;
__attribute__((weak)) pthread_once_t vsc_probe_exit_once = PTHREAD_ONCE_INIT;

/* The recorder copied the batch (it writes `acked` during the probe). */
static inline int vsc_probe_acked_(const struct vsc_probe_log *log)
{
	return __atomic_load_n(&log->acked, __ATOMIC_RELAXED) == log->seq + log->count;
}

/* A blocking recorder is attached (both semaphores drop when it goes). */
static inline int vsc_probe_blocking_(void)
{
	return vsc_block_semaphore != 0 && vsc_batch_semaphore != 0;
}

/* Waiting for the recorder: give it the CPU, then a little time. */
static inline void vsc_probe_backoff_(unsigned tries)
{
	if (tries < 8) {
		sched_yield();
		return;
	}
	struct timespec pause = { 0, tries < 64 ? 20000 : 200000 };
	nanosleep(&pause, NULL);
}

__attribute__((weak, noinline)) void vsc_probe_flush_log_(struct vsc_probe_log *log)
{
	uint32_t n = log->count;
	if (n == 0)
		return;
	/* <sys/sdt.h>'s asm has no memory clobber: entries must be in memory
	 * before the probe, and `acked` is read again after it */
	int blocking = vsc_probe_blocking_();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	STAP_PROBE3(vsc, batch, log, n, blocking);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	for (unsigned tries = 0; blocking && !vsc_probe_acked_(log); tries++) {
		STAP_PROBE1(vsc, block, log);
		vsc_probe_backoff_(tries);
		if (vsc_probe_acked_(log))
			break;
		/* a recorder going away: the last try counts a loss if need be */
		blocking = vsc_probe_blocking_();
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		STAP_PROBE3(vsc, batch, log, n, blocking);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	}
	/* count first: a log read between the two stores holds no entry, never
	 * old entries under new sequence numbers */
	log->count = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	log->seq += n;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* Flush the calling thread's log now (e.g. before a long wait). */
static inline void vsc_probe_flush(void)
{
	if (vsc_probe_tls_busy) /* in a signal handler inside a probe: the log is in use */
		return;
	vsc_probe_tls_busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	vsc_probe_flush_log_(&vsc_probe_tls_log);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	vsc_probe_tls_busy = 0;
}
#define VSC_PROBE_FLUSH() vsc_probe_flush()

__attribute__((weak)) void vsc_probe_thread_exit_(void *arg)
{
	(void)arg;
	vsc_probe_flush();
}

__attribute__((weak)) void vsc_probe_make_key_(void)
{
	pthread_key_create(&vsc_probe_exit_key, vsc_probe_thread_exit_);
}

/* The main thread does not run key destructors when main returns. */
__attribute__((weak, destructor)) void vsc_probe_process_exit_(void)
{
	vsc_probe_flush();
}

/* Tell the recorder where this thread's log is (vsc:log). Fired at the start
 * of every batch and after a pause, so a recorder that attached while the
 * log was part-filled by an earlier recording still learns of it. */
__attribute__((weak, noinline)) void vsc_probe_announce_(struct vsc_probe_log *log)
{
	if (!log->announced) {
		log->magic = VSC_PROBE_LOG_MAGIC;
		log->tid = (uint32_t)syscall(SYS_gettid);
		log->announced = 1;
		pthread_once(&vsc_probe_exit_once, vsc_probe_make_key_);
		pthread_setspecific(vsc_probe_exit_key, log); /* flush at thread exit */
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	STAP_PROBE1(vsc, log, log);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static inline uint64_t vsc_probe_now_(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
#define VSC_PROBE_IP_()                                           \
	__extension__({                                           \
		uint64_t ip_;                                     \
		__asm__ volatile("lea 0(%%rip), %0" : "=r"(ip_)); \
		ip_;                                              \
	})
#elif defined(__aarch64__)
#define VSC_PROBE_IP_()                                    \
	__extension__({                                    \
		uint64_t ip_;                              \
		__asm__ volatile("adr %0, ." : "=r"(ip_)); \
		ip_;                                       \
	})
#else
#define VSC_PROBE_IP_() ((uint64_t)0)
#endif

/* The next free entry, filled but for its values (announces a new batch). */
static inline struct vsc_probe_entry *vsc_probe_begin_(uint16_t kind, const volatile void *addr,
						       uint16_t size, uint64_t ip)
{
	struct vsc_probe_log *log = &vsc_probe_tls_log;
	uint64_t now = vsc_probe_now_();
	if (__builtin_expect(log->count == 0 ||
				     now - log->entries[log->count - 1].ts_ns > VSC_PROBE_PAUSE_NS,
			     0))
		vsc_probe_announce_(log);
	struct vsc_probe_entry *e = &log->entries[log->count];
	e->addr = (uint64_t)(uintptr_t)addr;
	e->ts_ns = now;
	e->ip = ip;
	e->kind = kind;
	e->size = size;
	return e;
}

/* Publish the entry vsc_probe_begin_ gave (and hand over a full log). */
static inline void vsc_probe_publish_(void)
{
	struct vsc_probe_log *log = &vsc_probe_tls_log;
	/* the compiler must not publish count before the entry, nor clear
	 * pending before count: the recorder may read a stopped thread's log */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	log->count++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	log->pending = 0;
	if (log->count == VSC_PROBE_LOG_CAP)
		vsc_probe_flush_log_(log);
}

/* One entry; the caller holds the guard. */
static inline void vsc_probe_append_raw_(uint16_t kind, const volatile void *addr, uint16_t size,
					 int64_t value, int64_t new_value, uint64_t ip,
					 uint32_t flags)
{
	struct vsc_probe_entry *e = vsc_probe_begin_(kind, addr, size, ip);
	e->value = value;
	e->new_value = new_value;
	e->flags = flags;
	vsc_probe_publish_();
}

static inline void vsc_probe_append_(uint16_t kind, const volatile void *addr, uint16_t size,
				     int64_t value, int64_t new_value, uint64_t ip, uint32_t flags)
{
	if (!vsc_probe_enter_())
		return;
	vsc_probe_append_raw_(kind, addr, size, value, new_value, ip, flags);
	vsc_probe_leave_();
}

/* The count of accesses made inside a probe, as one entry. */
__attribute__((weak, noinline)) void vsc_probe_report_nested_(void)
{
	while (!vsc_probe_tls_busy && __atomic_load_n(&vsc_probe_tls_nested, __ATOMIC_RELAXED)) {
		vsc_probe_tls_busy = 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		uint32_t n = __atomic_exchange_n(&vsc_probe_tls_nested, 0, __ATOMIC_RELAXED);
		if (vsc_batch_semaphore != 0)
			vsc_probe_append_raw_(VSC_PROBE_KIND_NESTED, 0, 0, n, 0, 0, 0);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		vsc_probe_tls_busy = 0;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	}
}

/* vsc_probe_rmw_begin_'s answer inside another probe: perform only. */
#define VSC_PROBE_NESTED_ENTRY_ ((struct vsc_probe_entry *)(uintptr_t)1)

/* A store or RMW in three steps: announce (pending), perform, publish.
 * NULL when not traced. */
static inline struct vsc_probe_entry *vsc_probe_rmw_begin_(const volatile void *addr, uint16_t size,
							   uint64_t ip)
{
	if (__builtin_expect(vsc_batch_semaphore == 0, 1))
		return 0;
	if (!vsc_probe_enter_())
		return VSC_PROBE_NESTED_ENTRY_;
	struct vsc_probe_entry *e = vsc_probe_begin_(VSC_PROBE_KIND_RMW, addr, size, ip);
	e->flags = 0;
	vsc_probe_tls_log.pending = vsc_probe_tls_log.count + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return e;
}

static inline void vsc_probe_rmw_end_(struct vsc_probe_entry *e, const volatile void *addr,
				      uint16_t size, uint16_t kind, int64_t value,
				      int64_t new_value, uint64_t ip)
{
	if (!e) {
		/* not announced: the probe came on while the RMW was performed */
		if (__builtin_expect(vsc_batch_semaphore != 0, 0))
			vsc_probe_append_(kind, addr, size, value, new_value, ip,
					  VSC_PROBE_F_AT_START);
		return;
	}
	if (e == VSC_PROBE_NESTED_ENTRY_)
		return;
	e->kind = kind;
	e->value = value;
	e->new_value = new_value;
	vsc_probe_publish_();
	vsc_probe_leave_();
}

/* Before a helper's load: 0 not traced, 1 traced (the guard held until the
 * entry is logged), 2 inside another probe (counted: log nothing). */
static inline int vsc_probe_load_on_(void)
{
	if (__builtin_expect(vsc_batch_semaphore == 0, 1))
		return 0;
	return vsc_probe_enter_() ? 1 : 2;
}

#define VSC_PROBE_ENABLED_() __builtin_expect(vsc_batch_semaphore != 0, 0)
#define VSC_PROBE_EMIT_FLAGS_(kind, addr, size, value, new_value, flags)                      \
	do {                                                                                  \
		if (VSC_PROBE_ENABLED_())                                                     \
			vsc_probe_append_((kind), (addr), (uint16_t)(size), (int64_t)(value), \
					  (int64_t)(new_value), VSC_PROBE_IP_(), (flags));    \
	} while (0)
#define VSC_PROBE_EMIT_(kind, addr, size, value, new_value) \
	VSC_PROBE_EMIT_FLAGS_(kind, addr, size, value, new_value, 0)

#define VSC_PROBE_LOAD_N(addr, size, value) \
	VSC_PROBE_EMIT_(VSC_PROBE_KIND_LOAD, addr, size, value, 0)
#define VSC_PROBE_STORE_N(addr, size, value) \
	VSC_PROBE_EMIT_(VSC_PROBE_KIND_STORE, addr, size, value, 0)
#define VSC_PROBE_RMW_N(addr, size, old, new) \
	VSC_PROBE_EMIT_(VSC_PROBE_KIND_RMW, addr, size, old, new)
/* This thread starts its part of repetition `id` (an integer); `name` (a
 * string that stays valid, or NULL) names the segment in the trace. */
#define VSC_PROBE_SEGMENT(id, name) \
	VSC_PROBE_EMIT_(VSC_PROBE_KIND_SEGMENT, (const void *)(name), 0, (id), 0)
/* The helpers below announce their stores and RMWs before performing them. */
#define VSC_PROBE_RMW_BEGIN_(addr, size) vsc_probe_rmw_begin_((addr), (size), VSC_PROBE_IP_())
#define VSC_PROBE_RMW_END_(entry, kind, addr, size, value, new_value)         \
	vsc_probe_rmw_end_((entry), (addr), (size), (kind), (int64_t)(value), \
			   (int64_t)(new_value), VSC_PROBE_IP_())
/* The helpers' loads and stores: the probe is looked at before and after
 * the access, and an access during which it came on is marked
 * VSC_PROBE_F_AT_START (the recorder makes no verdict depend on its place).
 * A store is announced, performed, published, as an RMW: logged before it
 * is performed, a store of a thread killed (or stopped for good) in
 * between would be in the trace without ever being performed, a value
 * reads could take that nobody wrote. */
#define VSC_PROBE_ON_() vsc_probe_load_on_()
#define VSC_PROBE_LOAD_AFTER_(was_on, addr, size, value)                                     \
	do {                                                                                 \
		if ((was_on) == 1) {                                                         \
			if (VSC_PROBE_ENABLED_())                                            \
				vsc_probe_append_raw_(VSC_PROBE_KIND_LOAD, (addr),           \
						      (uint16_t)(size), (int64_t)(value), 0, \
						      VSC_PROBE_IP_(), 0);                   \
			vsc_probe_leave_();                                                  \
		} else if (!(was_on)) {                                                      \
			VSC_PROBE_EMIT_FLAGS_(VSC_PROBE_KIND_LOAD, addr, size, value, 0,     \
					      VSC_PROBE_F_AT_START);                         \
		}                                                                            \
	} while (0)
#define VSC_PROBE_STORE_AROUND_(addr, size, value, store)                           \
	do {                                                                        \
		struct vsc_probe_entry *e_ = VSC_PROBE_RMW_BEGIN_(addr, size);      \
		store;                                                              \
		VSC_PROBE_RMW_END_(e_, VSC_PROBE_KIND_STORE, addr, size, value, 0); \
	} while (0)
/* ---- end of the eBPF backend -------------------------------------------- */
#endif
/* ======================================================================== */

#ifndef VSC_PROBE_RMW_BEGIN_
/* Backends without announced RMWs nor a start to straddle (LTTng, none):
 * the helpers' access is one event, a load or RMW after it, a store before. */
/* The guard spans the event and the access (a signal handler between the
 * two would be written on the wrong side of the access): inside another
 * probe of the thread, the access is performed and counted, not logged. */
#define VSC_PROBE_ON_() VSC_PROBE_GUARD_IN_()
#define VSC_PROBE_LOAD_AFTER_(was_on, addr, size, value)        \
	do {                                                    \
		if (was_on) {                                   \
			VSC_PROBE_LOAD_RAW_(addr, size, value); \
			VSC_PROBE_GUARD_OUT_();                 \
		}                                               \
	} while (0)
#define VSC_PROBE_STORE_AROUND_(addr, size, value, store)        \
	do {                                                     \
		if (VSC_PROBE_GUARD_IN_()) {                     \
			VSC_PROBE_STORE_RAW_(addr, size, value); \
			store;                                   \
			VSC_PROBE_GUARD_OUT_();                  \
		} else {                                         \
			store;                                   \
		}                                                \
	} while (0)
/* non-NULL: the guard is held */
#define VSC_PROBE_RMW_BEGIN_(addr, size)                                \
	((void)(addr), (void)(size),                                    \
	 VSC_PROBE_GUARD_IN_() ? (struct vsc_probe_entry *)(uintptr_t)1 \
			       : (struct vsc_probe_entry *)0)
#define VSC_PROBE_RMW_END_(entry, kind, addr, size, value, new_value)             \
	do {                                                                      \
		if (entry) {                                                      \
			if ((kind) == VSC_PROBE_KIND_RMW)                         \
				VSC_PROBE_RMW_RAW_(addr, size, value, new_value); \
			else                                                      \
				VSC_PROBE_LOAD_RAW_(addr, size, value);           \
			VSC_PROBE_GUARD_OUT_();                                   \
		}                                                                 \
	} while (0)
#endif

/* The macros every backend serves. addr is a typed pointer. */
#define VSC_PROBE_LOAD(addr, value) VSC_PROBE_LOAD_N(addr, sizeof(*(addr)), value)
#define VSC_PROBE_STORE(addr, value) VSC_PROBE_STORE_N(addr, sizeof(*(addr)), value)
#define VSC_PROBE_RMW(addr, old, new) VSC_PROBE_RMW_N(addr, sizeof(*(addr)), old, new)

/* Relaxed atomic accesses that record themselves. A load is logged after
 * it is performed; a store or RMW is announced before and published after
 * (the recorder respects the announcement), so a recording stopped in
 * between never holds a read of a value whose write it lacks. A failed
 * compare-and-swap is recorded as the read it is. */
#define VSC_PROBE_DEFINE_WIDTH_(BITS)                                                              \
	static inline int##BITS##_t vsc_load##BITS(const volatile int##BITS##_t *p)                \
	{                                                                                          \
		int was_on_ = VSC_PROBE_ON_();                                                     \
		int##BITS##_t v = __atomic_load_n(p, __ATOMIC_RELAXED);                            \
		VSC_PROBE_LOAD_AFTER_(was_on_, p, BITS / 8, v);                                    \
		return v;                                                                          \
	}                                                                                          \
	static inline void vsc_store##BITS(volatile int##BITS##_t *p, int##BITS##_t v)             \
	{                                                                                          \
		VSC_PROBE_STORE_AROUND_(p, BITS / 8, v, __atomic_store_n(p, v, __ATOMIC_RELAXED)); \
	}                                                                                          \
	static inline int##BITS##_t vsc_xchg##BITS(volatile int##BITS##_t *p, int##BITS##_t v)     \
	{                                                                                          \
		struct vsc_probe_entry *e_ = VSC_PROBE_RMW_BEGIN_(p, BITS / 8);                    \
		int##BITS##_t old = __atomic_exchange_n(p, v, __ATOMIC_RELAXED);                   \
		VSC_PROBE_RMW_END_(e_, VSC_PROBE_KIND_RMW, p, BITS / 8, old, v);                   \
		return old;                                                                        \
	}                                                                                          \
	static inline int##BITS##_t vsc_fetch_add##BITS(volatile int##BITS##_t *p,                 \
							int##BITS##_t v)                           \
	{                                                                                          \
		struct vsc_probe_entry *e_ = VSC_PROBE_RMW_BEGIN_(p, BITS / 8);                    \
		int##BITS##_t old = __atomic_fetch_add(p, v, __ATOMIC_RELAXED);                    \
		VSC_PROBE_RMW_END_(e_, VSC_PROBE_KIND_RMW, p, BITS / 8, old,                       \
				   (int##BITS##_t)((uint##BITS##_t)old + (uint##BITS##_t)v));      \
		return old;                                                                        \
	}                                                                                          \
	/* Returns 1 when *p held *expected and now holds desired; otherwise    \
	 * 0, with the value seen in *expected. */                  \
	static inline int vsc_cas##BITS(volatile int##BITS##_t *p, int##BITS##_t *expected,        \
					int##BITS##_t desired)                                     \
	{                                                                                          \
		int##BITS##_t want = *expected;                                                    \
		struct vsc_probe_entry *e_ = VSC_PROBE_RMW_BEGIN_(p, BITS / 8);                    \
		int ok = __atomic_compare_exchange_n(p, expected, desired, 0, __ATOMIC_RELAXED,    \
						     __ATOMIC_RELAXED);                            \
		if (ok)                                                                            \
			VSC_PROBE_RMW_END_(e_, VSC_PROBE_KIND_RMW, p, BITS / 8, want, desired);    \
		else                                                                               \
			VSC_PROBE_RMW_END_(e_, VSC_PROBE_KIND_LOAD, p, BITS / 8, *expected, 0);    \
		return ok;                                                                         \
	}

VSC_PROBE_DEFINE_WIDTH_(8)
VSC_PROBE_DEFINE_WIDTH_(16)
VSC_PROBE_DEFINE_WIDTH_(32)
VSC_PROBE_DEFINE_WIDTH_(64)

#endif /* VSC_PROBE_LAYOUT_ONLY */

#ifdef __cplusplus
}
#endif
#endif /* VSC_PROBE_H */
