/* SPDX-License-Identifier: MIT */
/*
 * The access helpers of <vsc/probe.h> (eBPF backend) without a kernel: the
 * values they return and leave behind at every width, that their
 * read-modify-writes stay atomic when threads race on them, and what they
 * write into the thread-local log when the USDT semaphore is set (the test
 * sets it by hand; with no uprobe attached, vsc:batch is a nop). Built for
 * the native machine and, by `make check-arm64`, for AArch64 under qemu,
 * where the atomics are LSE or load/store-exclusive instructions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>

#include <vsc/probe.h>

#include "bpf/record.h"

/* The recorder reads logs with bpf/record.h's layout: both must agree on
 * every architecture we build for. */
_Static_assert(sizeof(struct vsc_probe_entry) == 48, "entry is 48 bytes");
_Static_assert(sizeof(struct vsc_probe_entry) == sizeof(struct vsc_record_entry), "entry");
_Static_assert(sizeof(struct vsc_probe_log) == sizeof(struct vsc_record_log), "log");
_Static_assert(offsetof(struct vsc_probe_log, entries) == offsetof(struct vsc_record_log, entries),
	       "log header");
_Static_assert(VSC_PROBE_LOG_CAP == VSC_RECORD_LOG_CAP, "log capacity");

/* ---- values ----------------------------------------------------------- */

static void test_values_every_width(void **state)
{
	(void)state;
	volatile int8_t b = 0;
	volatile int16_t h = 0;
	volatile int32_t w = 0;
	volatile int64_t d = 0;
	int8_t eb;
	int64_t ed;

	vsc_store8(&b, 127);
	assert_int_equal(vsc_fetch_add8(&b, 1), 127);
	assert_int_equal(vsc_load8(&b), -128); /* wraps at the width */
	assert_int_equal(vsc_xchg8(&b, 5), -128);
	eb = 4;
	assert_int_equal(vsc_cas8(&b, &eb, 9), 0);
	assert_int_equal(eb, 5); /* the value seen */
	assert_int_equal(vsc_cas8(&b, &eb, 9), 1);
	assert_int_equal(b, 9);

	vsc_store16(&h, -2);
	assert_int_equal(vsc_fetch_add16(&h, 3), -2);
	assert_int_equal(vsc_load16(&h), 1);
	assert_int_equal(vsc_xchg16(&h, 0x7fff), 1);
	assert_int_equal(vsc_load16(&h), 0x7fff);

	vsc_store32(&w, INT32_MIN);
	assert_int_equal(vsc_fetch_add32(&w, -1), INT32_MIN);
	assert_int_equal(vsc_load32(&w), INT32_MAX);

	vsc_store64(&d, INT64_C(0x123456789abcdef0));
	assert_true(vsc_load64(&d) == INT64_C(0x123456789abcdef0));
	ed = INT64_C(0x123456789abcdef0);
	assert_int_equal(vsc_cas64(&d, &ed, -1), 1);
	assert_true(vsc_xchg64(&d, 7) == -1);
	assert_true(vsc_fetch_add64(&d, INT64_C(1) << 40) == 7);
	assert_true(d == (INT64_C(1) << 40) + 7);
}

/* ---- atomicity under contention ---------------------------------------- */

#define RACERS 4
#define ROUNDS 200000

struct shared {
	pthread_barrier_t start; /* all racers begin each phase together */
	volatile int32_t add32;
	volatile int64_t add64;
	volatile int16_t add16;
	volatile int64_t cas_loop;
	volatile int64_t xchg_slot; /* each xchg takes out what the last one put in */
	int64_t taken[RACERS];
};

struct racer {
	struct shared *s;
	int id;
};

static void *race(void *arg)
{
	struct racer *r = arg;
	struct shared *s = r->s;
	int64_t taken = 0;

	/* one operation at a time, everyone on the same variable at once */
	pthread_barrier_wait(&s->start);
	for (int i = 0; i < ROUNDS; i++)
		vsc_fetch_add32(&s->add32, 1);
	pthread_barrier_wait(&s->start);
	for (int i = 0; i < ROUNDS; i++)
		vsc_fetch_add64(&s->add64, 3);
	pthread_barrier_wait(&s->start);
	for (int i = 0; i < ROUNDS; i++)
		vsc_fetch_add16(&s->add16, 1);
	pthread_barrier_wait(&s->start);
	for (int i = 0; i < ROUNDS; i++) {
		int64_t seen = vsc_load64(&s->cas_loop);
		while (!vsc_cas64(&s->cas_loop, &seen, seen + 1))
			;
	}
	pthread_barrier_wait(&s->start);
	for (int64_t i = 0; i < ROUNDS; i++)
		taken += vsc_xchg64(&s->xchg_slot, (int64_t)r->id * ROUNDS + i + 1);
	s->taken[r->id] = taken;
	return NULL;
}

static void test_rmw_atomic_under_contention(void **state)
{
	(void)state;
	static struct shared s;
	struct racer r[RACERS];
	pthread_t t[RACERS];
	int64_t taken = 0;

	assert_int_equal(pthread_barrier_init(&s.start, NULL, RACERS), 0);
	for (int i = 0; i < RACERS; i++) {
		r[i] = (struct racer){ &s, i };
		assert_int_equal(pthread_create(&t[i], NULL, race, &r[i]), 0);
	}
	for (int i = 0; i < RACERS; i++) {
		pthread_join(t[i], NULL);
		taken += s.taken[i];
	}
	pthread_barrier_destroy(&s.start);
	assert_int_equal(s.add32, RACERS * ROUNDS);
	assert_true(s.add64 == (int64_t)3 * RACERS * ROUNDS);
	assert_int_equal(s.add16, (int16_t)(RACERS * ROUNDS));
	assert_true(s.cas_loop == (int64_t)RACERS * ROUNDS);
	/* every value put in (1 .. RACERS * ROUNDS, each once) is taken out
	 * once, except the one still there */
	const int64_t puts = (int64_t)RACERS * ROUNDS;
	assert_true(taken + s.xchg_slot == puts * (puts + 1) / 2);
}

/* ---- the thread-local log ---------------------------------------------- */

/* Each check runs in a thread of its own, so its log starts empty. */
static void run_in_thread(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, fn, arg), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
}

struct logged {
	struct vsc_probe_log log; /* a copy taken before the thread ends */
	volatile int32_t x;
	volatile int64_t y;
};

static void *log_some(void *arg)
{
	struct logged *l = arg;
	int32_t seen = 0;

	vsc_store32(&l->x, 5);
	(void)vsc_load32(&l->x);
	(void)vsc_xchg64(&l->y, -3);
	(void)vsc_fetch_add32(&l->x, 2);
	(void)vsc_cas32(&l->x, &seen, 1); /* fails: x is 7 */
	VSC_PROBE_SEGMENT(42, "part");
	l->log = vsc_probe_tls_log;
	return NULL;
}

static void test_log_holds_each_access(void **state)
{
	(void)state;
	static struct logged l;
	const struct {
		uint16_t kind, size;
		const volatile void *addr;
		int64_t value, new_value;
	} want[] = {
		{ VSC_PROBE_KIND_STORE, 4, &l.x, 5, 0 },
		{ VSC_PROBE_KIND_LOAD, 4, &l.x, 5, 0 },
		{ VSC_PROBE_KIND_RMW, 8, &l.y, 0, -3 },
		{ VSC_PROBE_KIND_RMW, 4, &l.x, 5, 7 },
		{ VSC_PROBE_KIND_LOAD, 4, &l.x, 7, 0 }, /* the failed CAS is a read */
		{ VSC_PROBE_KIND_SEGMENT, 0, "part", 42, 0 },
	};
	const size_t n = sizeof(want) / sizeof(want[0]);

	vsc_batch_semaphore = 1;
	run_in_thread(log_some, &l);
	vsc_batch_semaphore = 0;

	assert_true(l.log.magic == VSC_PROBE_LOG_MAGIC);
	assert_int_equal(l.log.announced, 1);
	assert_true(l.log.tid != 0);
	assert_true(l.log.seq == 0);
	assert_int_equal(l.log.count, n);
	for (size_t i = 0; i < n; i++) {
		const struct vsc_probe_entry *e = &l.log.entries[i];
		assert_int_equal(e->kind, want[i].kind);
		assert_int_equal(e->size, want[i].size);
		if (want[i].kind != VSC_PROBE_KIND_SEGMENT)
			assert_true(e->addr == (uint64_t)(uintptr_t)want[i].addr);
		assert_true(e->value == want[i].value);
		assert_true(e->new_value == want[i].new_value);
#if defined(__x86_64__) || defined(__aarch64__)
		assert_true(e->ip != 0);
#endif
		if (i > 0)
			assert_true(e->ts_ns >= l.log.entries[i - 1].ts_ns);
	}
}

struct batches {
	struct vsc_probe_log log;
	volatile int64_t v;
};

static void *log_many(void *arg)
{
	struct batches *b = arg;
	for (int64_t i = 0; i < 2 * VSC_PROBE_LOG_CAP + 10; i++)
		vsc_store64(&b->v, i);
	b->log = vsc_probe_tls_log;
	return NULL;
}

/* A full log is handed to vsc:batch and starts again; the sequence number
 * of its first entry counts what went before. */
static void test_log_flushes_full_batches(void **state)
{
	(void)state;
	static struct batches b;

	vsc_batch_semaphore = 1;
	run_in_thread(log_many, &b);
	vsc_batch_semaphore = 0;

	assert_true(b.log.seq == 2 * VSC_PROBE_LOG_CAP);
	assert_int_equal(b.log.count, 10);
	assert_int_equal(b.log.pending, 0);
	for (int i = 0; i < 10; i++)
		assert_true(b.log.entries[i].value == 2 * VSC_PROBE_LOG_CAP + i);
}

static void *log_nothing(void *arg)
{
	struct batches *b = arg;
	vsc_store64(&b->v, 1);
	(void)vsc_load64(&b->v);
	b->log = vsc_probe_tls_log;
	return NULL;
}

/* Not traced: the helpers only do their accesses. */
static void test_untraced_logs_nothing(void **state)
{
	(void)state;
	static struct batches b;

	vsc_batch_semaphore = 0;
	run_in_thread(log_nothing, &b);
	assert_int_equal(b.log.count, 0);
	assert_int_equal(b.log.announced, 0);
	assert_true(b.v == 1);
}

static void *log_nested(void *arg)
{
	struct batches *b = arg;
	vsc_store64(&b->v, 1);
	/* as a signal handler that interrupts a probe: the flag is set */
	vsc_probe_tls_busy = 1;
	assert_true(vsc_load64(&b->v) == 1);
	vsc_store64(&b->v, 2);
	assert_true(vsc_fetch_add64(&b->v, 3) == 2);
	VSC_PROBE_STORE(&b->v, 5);
	vsc_probe_tls_busy = 0;
	(void)vsc_load64(&b->v); /* ends as the interrupted probe would */
	b->log = vsc_probe_tls_log;
	return NULL;
}

/* Probes inside a probe (a signal handler) perform their accesses, log
 * nothing, and the next probe to end logs their count (kind NESTED). */
static void test_nested_probes_counted(void **state)
{
	(void)state;
	static struct batches b;

	vsc_batch_semaphore = 1;
	run_in_thread(log_nested, &b);
	vsc_batch_semaphore = 0;

	assert_true(b.v == 5);
	assert_int_equal(b.log.count, 3);
	assert_int_equal(b.log.entries[0].kind, VSC_PROBE_KIND_STORE);
	assert_int_equal(b.log.entries[1].kind, VSC_PROBE_KIND_LOAD);
	assert_true(b.log.entries[1].value == 5);
	assert_int_equal(b.log.entries[2].kind, VSC_PROBE_KIND_NESTED);
	assert_true(b.log.entries[2].value == 4);
	assert_int_equal(b.log.pending, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values_every_width),
		cmocka_unit_test(test_rmw_atomic_under_contention),
		cmocka_unit_test(test_log_holds_each_access),
		cmocka_unit_test(test_log_flushes_full_batches),
		cmocka_unit_test(test_untraced_logs_nothing),
		cmocka_unit_test(test_nested_probes_counted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
