/* SPDX-License-Identifier: MIT */
/*
 * A seqlock: one writer updates a pair (a, b = -a) under an even/odd
 * sequence number, two readers retry until they see an even, unchanged
 * sequence around their reads. No vsc headers. Watch: seq (4 bytes), a, b
 * (8 bytes each). x86-64 keeps stores in order and loads in order, so the
 * fences are for the compiler only.
 */
#include <sched.h>

#include "watch_log.h"

uint32_t seq;
int64_t a, b;

#define WRITES 100
#define READS 60

static void *writer(struct watch_log *log)
{
	for (int64_t i = 1; i <= WRITES; i++) {
		uint32_t s = __atomic_load_n(&seq, __ATOMIC_RELAXED); /* sole writer */
		LOG_R(log, seq, s);
		__atomic_store_n(&seq, s + 1, __ATOMIC_RELAXED);
		LOG_W(log, seq, s + 1);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		__atomic_store_n(&a, i, __ATOMIC_RELAXED);
		LOG_W(log, a, i);
		__atomic_store_n(&b, -i, __ATOMIC_RELAXED);
		LOG_W(log, b, -i);
		__atomic_store_n(&seq, s + 2, __ATOMIC_RELEASE);
		LOG_W(log, seq, s + 2);
		sched_yield();
	}
	return NULL;
}

static void *reader(struct watch_log *log)
{
	for (int n = 0; n < READS; n++) {
		uint32_t s1, s2;
		int64_t x, y;
		do {
			s1 = __atomic_load_n(&seq, __ATOMIC_ACQUIRE);
			LOG_R(log, seq, s1);
			if (s1 & 1) {
				sched_yield();
				continue;
			}
			x = __atomic_load_n(&a, __ATOMIC_RELAXED);
			LOG_R(log, a, x);
			y = __atomic_load_n(&b, __ATOMIC_RELAXED);
			LOG_R(log, b, y);
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			s2 = __atomic_load_n(&seq, __ATOMIC_RELAXED);
			LOG_R(log, seq, s2);
			if (s1 == s2)
				break;
		} while (1);
		if (x != -y)
			abort(); /* a torn snapshot: the seqlock is broken */
		sched_yield();
	}
	return NULL;
}

static void *role(struct watch_log *log)
{
	return log->index == 1 ? writer(log) : reader(log);
}

int main(void)
{
	static struct watch_log logs[4];
	static struct watch_thread_arg args[3];
	pthread_t th[3];

	watch_start(th, args, 3, role, logs);
	watch_go();
	watch_join(th, 3);
	watch_log_print(logs, 4);
	return 0;
}
