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
	size_t len, cap;
	struct watch_log_entry *v;
};

static inline void watch_log_init(struct watch_log *log, size_t cap)
{
	log->tid = (pid_t)syscall(SYS_gettid);
	log->len = 0;
	log->cap = cap;
	log->v = calloc(cap, sizeof(*log->v));
	if (!log->v)
		abort();
}

static inline void watch_log_add(struct watch_log *log, char kind, const char *var,
				 int64_t value, int64_t new_value)
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

#endif /* WATCH_LOG_H */
