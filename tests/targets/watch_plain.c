/* SPDX-License-Identifier: MIT */
/*
 * Plain loads and stores of volatile globals of 1, 2, 4 and 8 bytes: a
 * producer hands rounds of data to a consumer through `flag` (message
 * passing), the main thread touches them before and after. No atomics, no
 * vsc headers. Watch: flag, data, small, tiny. (history is there for the
 * limit tests: 32 bytes, more than one watchpoint covers.)
 */
#include <sched.h>

#include "watch_log.h"

volatile int32_t flag;
volatile int64_t data = 7;
volatile int16_t small = -2;
volatile int8_t tiny;
int64_t history[4]; /* never touched: too big for one watchpoint */

#define ROUNDS 200

static void *producer(struct watch_log *log)
{
	for (int i = 1; i <= ROUNDS; i++) {
		data = (int64_t)i * 1000003;
		LOG_W(log, data, (int64_t)i * 1000003);
		small = (int16_t)-i;
		LOG_W(log, small, (int16_t)-i);
		tiny = (int8_t)i;
		LOG_W(log, tiny, (int8_t)i);
		flag = i;
		LOG_W(log, flag, i);
		int f;
		while ((f = flag) != 0) { /* the consumer hands the turn back */
			LOG_R(log, flag, f);
			sched_yield();
		}
		LOG_R(log, flag, f);
	}
	return NULL;
}

static void *consumer(struct watch_log *log)
{
	for (int i = 1; i <= ROUNDS; i++) {
		int f;
		while ((f = flag) != i) {
			LOG_R(log, flag, f);
			sched_yield();
		}
		LOG_R(log, flag, f);
		int64_t d = data;
		LOG_R(log, data, d);
		int16_t s = small;
		LOG_R(log, small, s);
		int8_t t = tiny;
		LOG_R(log, tiny, t);
		flag = 0;
		LOG_W(log, flag, 0);
	}
	return NULL;
}

static void *role(struct watch_log *log)
{
	return log->index == 1 ? producer(log) : consumer(log);
}

int main(void)
{
	static struct watch_log logs[3];
	static struct watch_thread_arg args[2];
	pthread_t th[2];

	watch_start(th, args, 2, role, logs);
	watch_go();
	int64_t d = data;
	LOG_R(&logs[0], data, d);
	tiny = 1;
	LOG_W(&logs[0], tiny, 1);
	watch_join(th, 2);
	int8_t t = tiny;
	LOG_R(&logs[0], tiny, t);
	watch_log_print(logs, 3);
	return 0;
}
