/* SPDX-License-Identifier: MIT */
/*
 * libvsc-lttng-ust.so: the probes of the `vsc` tracepoint provider and the
 * tracepoint definitions themselves, so that programs only include the header
 * (through <vsc/probe.h> with -DVSC_PROBE_LTTNG) and link this library.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "vsc/probe-lttng.h"

static __thread int announced;
/* This process's number in vsc:thread (0: not drawn yet). */
static _Atomic uint64_t process_id;

/* A number no other process of the trace has: random, else the clock and
 * the pid (never 0). */
static uint64_t draw_process_id(void)
{
	uint64_t id = 0;
	struct timespec now;

	if (getrandom(&id, sizeof(id), GRND_NONBLOCK) != (ssize_t)sizeof(id)) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		id = ((uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec) ^
		     ((uint64_t)getpid() << 40);
	}
	return id ? id : 1;
}

static uint64_t this_process(void)
{
	uint64_t id = atomic_load_explicit(&process_id, memory_order_relaxed), none = 0;

	if (id)
		return id;
	id = draw_process_id();
	if (!atomic_compare_exchange_strong(&process_id, &none, id))
		id = none; /* another thread drew first */
	return id;
}

/* A forked child is another process: its one thread announces itself again
 * and it draws its own number. Without LTTng-UST's fork wrapper
 * (liblttng-ust-fork.so) its events still carry the parent's vpid and
 * vtid; the pid and tid fields show that to the converter. */
static void forked_child(void)
{
	announced = 0;
	atomic_store_explicit(&process_id, 0, memory_order_relaxed);
}

__attribute__((constructor)) static void watch_forks(void)
{
	pthread_atfork(NULL, NULL, forked_child);
}

/* Before a thread's first vsc event: vsc:thread, once per thread. A thread
 * id used again (the kernel hands ids out again after pid_max of them)
 * belongs to a thread started after the old one ended, whose flag is new,
 * so it says vsc:thread again and the converter writes it as TID.N.
 * Called only while a vsc event is enabled: a thread that ran before the
 * session started says it at its first traced event. */
void vsc_lttng_thread(void)
{
	if (announced || !lttng_ust_tracepoint_enabled(vsc, thread))
		return;
	announced = 1;
	lttng_ust_do_tracepoint(vsc, thread, (int32_t)getpid(), (int32_t)gettid(), this_process(),
				(int32_t)getppid());
}
