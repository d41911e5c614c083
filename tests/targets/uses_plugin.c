/* SPDX-License-Identifier: MIT */
/* Probes of the executable and of a library with its own probe log
 * (lib_plugin.c, hidden visibility):
 *   uses_plugin split N
 *     the main thread stores x (the executable's probe) and loads it back
 *     through the linked library (liblib_plugin.so's probe) N times: one
 *     thread, two logs
 *   uses_plugin late LIB N [MS]
 *     the main thread stores x = 0, loads LIB with dlopen (a copy of the
 *     library: mapped after the recording began), waits MS ms, a thread
 *     stores 1..N through it, and the main thread reads x (N) back
 *   uses_plugin wide N
 *     N probes of a 16-byte object (no trace holds them), then x = 1 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vsc/probe.h>

int64_t plugin_load64(volatile int64_t *p);

static volatile int64_t x;
static void (*run)(volatile int64_t *, long);
static long n;

static void *worker(void *arg)
{
	(void)arg;
	run(&x, n);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "split") == 0) {
		n = atol(argv[2]);
		for (long i = 1; i <= n; i++) {
			vsc_store64(&x, i);
			if (plugin_load64(&x) != i)
				return 1;
		}
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "wide") == 0) {
		static volatile int64_t w16[2];
		for (long i = 1; i <= atol(argv[2]); i++) {
			w16[0] = i;
			VSC_PROBE_STORE_N(w16, 16, i);
		}
		vsc_store64(&x, 1);
		return 0;
	}
	if (argc < 4 || strcmp(argv[1], "late") != 0)
		return 2;
	vsc_store64(&x, 0);
	void *h = dlopen(argv[2], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	run = (void (*)(volatile int64_t *, long))dlsym(h, "plugin_run");
	if (!run)
		return 1;
	n = atol(argv[3]);
	long ms = argc > 4 ? atol(argv[4]) : 0;
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };
	nanosleep(&ts, NULL);
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) || pthread_join(t, NULL))
		return 1;
	return vsc_load64(&x) == n ? 0 : 1;
}
