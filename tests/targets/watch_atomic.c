/* SPDX-License-Identifier: MIT */
/*
 * __atomic read-modify-writes, no vsc headers. Watch: counter (8 bytes),
 * word (4), slot (8), bits (2).
 *
 * Phase 1, one thread at a time (the others wait at a barrier nobody
 * watches): lock add/sub/or/xor/and whose result the code does not use, so
 * the compiler emits `lock add` and friends; the thread knows the values
 * because nobody else touches the variables meanwhile.
 * Phase 2, all threads at once: fetch_add (lock xadd), exchange (xchg),
 * compare_exchange (lock cmpxchg, successes and failures), relaxed loads
 * and release stores; each thread logs what the operations returned.
 */
#include "watch_log.h"

int64_t counter;
int32_t word = 5;
int64_t slot;
int16_t bits;

#define THREADS 3
#define ROUNDS 100

static pthread_barrier_t phase;

static void exclusive_ops(struct watch_log *log)
{
	int64_t c = __atomic_load_n(&counter, __ATOMIC_SEQ_CST);
	LOG_R(log, counter, c);
	for (int i = 0; i < 10; i++) {
		__atomic_add_fetch(&counter, 3, __ATOMIC_SEQ_CST);
		LOG_U(log, counter, c, c + 3);
		c += 3;
		__atomic_sub_fetch(&counter, 1, __ATOMIC_RELAXED);
		LOG_U(log, counter, c, c - 1);
		c -= 1;
	}
	int16_t b = __atomic_load_n(&bits, __ATOMIC_ACQUIRE);
	LOG_R(log, bits, b);
	/* `lock or` and `lock and` leave no trace of the old value (the
	 * watchpoint fires after the access; docs/watch.md): the recorder
	 * writes them as stores of the new value, and so does this log. */
	__atomic_or_fetch(&bits, (int16_t)(1 << log->index), __ATOMIC_SEQ_CST);
	b |= (int16_t)(1 << log->index);
	LOG_W(log, bits, b);
	__atomic_xor_fetch(&bits, (int16_t)0x100, __ATOMIC_SEQ_CST);
	LOG_U(log, bits, b, (int16_t)(b ^ 0x100));
	b ^= 0x100;
	__atomic_and_fetch(&bits, (int16_t)0x0fff, __ATOMIC_SEQ_CST);
	b &= 0x0fff;
	LOG_W(log, bits, b);
}

static void shared_ops(struct watch_log *log)
{
	for (int i = 0; i < ROUNDS; i++) {
		int64_t old = __atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST);
		LOG_U(log, counter, old, old + 1);

		int64_t mine = (int64_t)log->index * 1000 + i;
		int64_t prev = __atomic_exchange_n(&slot, mine, __ATOMIC_ACQ_REL);
		LOG_U(log, slot, prev, mine);

		int32_t expected = __atomic_load_n(&word, __ATOMIC_RELAXED);
		LOG_R(log, word, expected);
		int32_t desired = expected + log->index;
		int32_t seen = expected;
		if (__atomic_compare_exchange_n(&word, &seen, desired, 0, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			LOG_U(log, word, expected, desired);
		else
			LOG_R(log, word, seen);

		/* A release store is a plain mov. (A seq_cst store is an xchg on
		 * x86-64, which does read: the recorder says `u`.) */
		__atomic_store_n(&slot, -mine, __ATOMIC_RELEASE);
		LOG_W(log, slot, -mine);
	}
}

static void *worker(struct watch_log *log)
{
	/* phase 1: thread 1, then 2, then 3, alone */
	for (int turn = 1; turn <= THREADS; turn++) {
		if (turn == log->index)
			exclusive_ops(log);
		pthread_barrier_wait(&phase);
	}
	shared_ops(log);
	return NULL;
}

int main(void)
{
	static struct watch_log logs[THREADS + 1];
	static struct watch_thread_arg args[THREADS];
	pthread_t th[THREADS];

	if (pthread_barrier_init(&phase, NULL, THREADS))
		return 1;
	watch_start(th, args, THREADS, worker, logs);
	watch_go();
	watch_join(th, THREADS);
	int64_t c = __atomic_load_n(&counter, __ATOMIC_SEQ_CST);
	LOG_R(&logs[0], counter, c);
	watch_log_print(logs, THREADS + 1);
	return 0;
}
