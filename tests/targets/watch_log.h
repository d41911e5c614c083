/* SPDX-License-Identifier: MIT */
/*
 * For the uninstrumented watch targets: each thread notes what it did in a
 * thread-local log (memory nobody watches) and the program prints the logs
 * at the end as trace lines "TID r|w|u VAR VALUE [NEW]", per thread in
 * program order, so a test can compare them with what `vsc record --watch`
 * saw. Plain C, no vsc headers: the targets know nothing of the recorder.
 */
#ifndef WATCH_LOG_H
#define WATCH_LOG_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

struct watch_log_entry {
	char kind; /* 'r', 'w', 'u' */
	const char *var;
	int64_t value, new_value;
};

struct watch_log {
	pid_t tid;
	int index; /* 0: main thread, 1..n: started threads in order */
	size_t len, cap;
	struct watch_log_entry *v;
};

static inline void watch_log_init(struct watch_log *log, size_t cap)
{
	if (log->v) /* already set up by watch_start */
		return;
	log->tid = (pid_t)syscall(SYS_gettid);
	log->len = 0;
	log->cap = cap;
	log->v = calloc(cap, sizeof(*log->v));
	if (!log->v)
		abort();
}

static inline void watch_log_add(struct watch_log *log, char kind, const char *var, int64_t value,
				 int64_t new_value)
{
	if (log->len == log->cap)
		abort();
	log->v[log->len++] = (struct watch_log_entry){ kind, var, value, new_value };
}

#define LOG_R(log, var, v) watch_log_add(log, 'r', #var, (int64_t)(v), 0)
#define LOG_W(log, var, v) watch_log_add(log, 'w', #var, (int64_t)(v), 0)
#define LOG_U(log, var, o, n) watch_log_add(log, 'u', #var, (int64_t)(o), (int64_t)(n))

/* Print to the file named by $WATCH_EXPECT (or stdout). */
static inline void watch_log_print(struct watch_log *logs, size_t count)
{
	const char *path = getenv("WATCH_EXPECT");
	FILE *out = path ? fopen(path, "w") : stdout;
	if (!out)
		abort();
	for (size_t t = 0; t < count; t++) {
		for (size_t i = 0; i < logs[t].len; i++) {
			const struct watch_log_entry *e = &logs[t].v[i];
			if (e->kind == 'u')
				fprintf(out, "%d u %s %lld %lld\n", (int)logs[t].tid, e->var,
					(long long)e->value, (long long)e->new_value);
			else
				fprintf(out, "%d %c %s %lld\n", (int)logs[t].tid, e->kind, e->var,
					(long long)e->value);
		}
		free(logs[t].v);
	}
	if (out != stdout)
		fclose(out);
}

/* Start n threads running fn(&logs[i + 1]); they wait at a barrier until
 * main calls watch_go(), so a recorder attaching by PID finds them all
 * alive and nothing watched has been touched yet. With WATCH_GO=PATH set,
 * watch_go() first waits until the file PATH exists (the test creates it
 * once the recorder says it is attached). */
static pthread_barrier_t watch_barrier
	__attribute__((unused)); /* not every target starts threads here */

struct watch_thread_arg {
	void *(*fn)(struct watch_log *);
	struct watch_log *log;
};

static inline void *watch_thread_main(void *p)
{
	struct watch_thread_arg *a = p;
	watch_log_init(a->log, 1u << 20);
	pthread_barrier_wait(&watch_barrier);
	a->fn(a->log);
	return NULL;
}

static inline void watch_start(pthread_t *th, struct watch_thread_arg *args, size_t n,
			       void *(*fn)(struct watch_log *), struct watch_log *logs)
{
	watch_log_init(&logs[0], 1u << 20);
	if (pthread_barrier_init(&watch_barrier, NULL, (unsigned)n + 1))
		abort();
	for (size_t i = 0; i < n; i++) {
		logs[i + 1].index = (int)i + 1;
		args[i] = (struct watch_thread_arg){ fn, &logs[i + 1] };
		if (pthread_create(&th[i], NULL, watch_thread_main, &args[i]))
			abort();
	}
}

/* With WATCH_GO=PATH: say "ready PID" and wait until the file PATH exists. */
static inline void watch_wait_go(void)
{
	const char *path = getenv("WATCH_GO");
	if (path) {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		while (access(path, F_OK) != 0)
			usleep(1000);
	}
}

static inline void watch_go(void)
{
	watch_wait_go();
	pthread_barrier_wait(&watch_barrier);
}

static inline void watch_join(pthread_t *th, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pthread_join(th[i], NULL);
}

#endif /* WATCH_LOG_H */
