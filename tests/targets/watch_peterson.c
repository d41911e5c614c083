/* SPDX-License-Identifier: MIT */
/*
 * Peterson's lock between two threads guarding a plain (non-atomic)
 * counter. No vsc headers. Watch: flag0, flag1, turn, count (4 bytes each).
 *
 * Entering uses __atomic_exchange_n, which is the xchg a seq_cst store
 * becomes on x86-64 anyway, so each thread knows the old values it read;
 * leaving is a release store (a plain mov).
 */
#include "watch_log.h"

int32_t flag0, flag1, turn;
volatile int32_t count;

#define ROUNDS 150

static void lock(struct watch_log *log, int me)
{
	int other = 1 - me;
	int32_t *mine = me ? &flag1 : &flag0, *theirs = me ? &flag0 : &flag1;
	int32_t old;

	old = __atomic_exchange_n(mine, 1, __ATOMIC_SEQ_CST);
	if (me)
		LOG_U(log, flag1, old, 1);
	else
		LOG_U(log, flag0, old, 1);
	old = __atomic_exchange_n(&turn, other, __ATOMIC_SEQ_CST);
	LOG_U(log, turn, old, other);
	for (;;) {
		int32_t f = __atomic_load_n(theirs, __ATOMIC_SEQ_CST);
		if (me)
			LOG_R(log, flag0, f);
		else
			LOG_R(log, flag1, f);
		if (!f)
			break;
		int32_t t = __atomic_load_n(&turn, __ATOMIC_SEQ_CST);
		LOG_R(log, turn, t);
		if (t != other)
			break;
	}
}

static void unlock(struct watch_log *log, int me)
{
	if (me) {
		__atomic_store_n(&flag1, 0, __ATOMIC_RELEASE);
		LOG_W(log, flag1, 0);
	} else {
		__atomic_store_n(&flag0, 0, __ATOMIC_RELEASE);
		LOG_W(log, flag0, 0);
	}
}

static void *worker(struct watch_log *log)
{
	int me = log->index - 1;
	for (int i = 0; i < ROUNDS; i++) {
		lock(log, me);
		int32_t v = count;
		LOG_R(log, count, v);
		count = v + 1;
		LOG_W(log, count, v + 1);
		unlock(log, me);
	}
	return NULL;
}

int main(void)
{
	static struct watch_log logs[3];
	static struct watch_thread_arg args[2];
	pthread_t th[2];

	watch_start(th, args, 2, worker, logs);
	watch_go();
	watch_join(th, 2);
	int32_t v = count;
	LOG_R(&logs[0], count, v);
	watch_log_print(logs, 3);
	return v == 2 * ROUNDS ? 0 : 1; /* the lock worked */
}
