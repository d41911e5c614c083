/* SPDX-License-Identifier: MIT */
/*
 * Plain loads and stores of volatile globals of 1, 2, 4 and 8 bytes from
 * three threads (message passing through `flag`), no atomics, no vsc
 * headers. Watch: flag, data, small, tiny.
 */
#include <sched.h>

#include "watch_log.h"

volatile int32_t flag;
volatile int64_t data = 7;
volatile int16_t small = -2;
volatile int8_t tiny;

#define ROUNDS 200

static struct watch_log logs[3];

static void *producer(void *arg)
{
	struct watch_log *log = arg;
	watch_log_init(log, 1u << 20);
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

static void *consumer(void *arg)
{
	struct watch_log *log = arg;
	watch_log_init(log, 1u << 20);
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

/* The main thread also touches the variables, before and after. */
int main(void)
{
	pthread_t p, c;
	watch_log_init(&logs[0], 16);
	int64_t d = data;
	LOG_R(&logs[0], data, d);
	tiny = 1;
	LOG_W(&logs[0], tiny, 1);
	if (pthread_create(&p, NULL, producer, &logs[1]) || pthread_create(&c, NULL, consumer, &logs[2]))
		return 1;
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	int8_t t = tiny;
	LOG_R(&logs[0], tiny, t);
	watch_log_print(logs, 3);
	return 0;
}
