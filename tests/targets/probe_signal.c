/* SPDX-License-Identifier: MIT */
/*
 * Probes used in a signal handler (tests/system/record.sh, lttng.sh).
 *   probe_signal fault N   N stores to a read-only page: each faults
 *                          INSIDE its probe; the SIGSEGV handler reads the
 *                          page and stores the value to `seen` (two probes
 *                          inside a probe: 2N accesses that cannot be
 *                          placed), then makes the page writable
 *   probe_signal usr1 N    the main thread stores x = 1..N and loads it back
 *                          while another thread sends it SIGUSR1 every
 *                          ~20 us; the handler reads x, stores it to `seen`
 *                          and counts itself (nsig)
 * One thread and its handler: every execution is sequentially consistent.
 * Prints `nested-at-most K` (the handlers' probed accesses) on stderr.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vsc/probe.h>

static int64_t *page;
static int64_t x, seen, nsig;
static volatile sig_atomic_t done;
static pthread_t main_thread;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	vsc_store64(&seen, vsc_load64(&page[0]));
	mprotect(page, 4096, PROT_READ | PROT_WRITE);
}

static void on_usr1(int sig)
{
	(void)sig;
	vsc_store64(&seen, vsc_load64(&x));
	vsc_fetch_add64(&nsig, 1);
}

static void *signaller(void *arg)
{
	(void)arg;
	for (int k = 0; k < 5000 && !done; k++) {
		pthread_kill(main_thread, SIGUSR1);
		usleep(20);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "fault") && strcmp(argv[1], "usr1"))) {
		fprintf(stderr, "usage: probe_signal fault|usr1 N\n");
		return 2;
	}
	long n = atol(argv[2]);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	if (strcmp(argv[1], "fault") == 0) {
		page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (page == MAP_FAILED)
			return 1;
		sa.sa_sigaction = on_fault;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGSEGV, &sa, NULL);
		for (long i = 1; i <= n; i++) {
			mprotect(page, 4096, PROT_READ);
			vsc_store64(&page[0], i); /* faults inside its probe */
		}
		fprintf(stderr, "nested-at-most %ld\n", 2 * n);
		return vsc_load64(&page[0]) == n ? 0 : 1;
	}
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	main_thread = pthread_self();
	pthread_t t;
	if (pthread_create(&t, NULL, signaller, NULL))
		return 1;
	long bad = 0;
	for (long i = 1; i <= n; i++) {
		vsc_store64(&x, i);
		bad += vsc_load64(&x) != i;
	}
	done = 1;
	pthread_join(t, NULL);
	fprintf(stderr, "nested-at-most %lld\n", 3 * (long long)nsig);
	return bad != 0;
}
