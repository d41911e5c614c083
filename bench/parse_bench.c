/* SPDX-License-Identifier: MIT */
/* The parser alone: parse FILE (vsc_trace_parse_file, as `vsc check` reads
 * it) RUNS times and print the fastest and the median run: wall and CPU
 * seconds, MB/s and events/s of the median CPU time, and the peak RSS
 * over the file's events, as key=value words on one line.
 * Usage: parse_bench FILE [RUNS] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "vsc/vsc.h"

static double now_s(int clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int runs = argc > 2 ? atoi(argv[2]) : 5;
	double wall[64], cpu[64];
	size_t events = 0;
	struct rusage ru;
	struct stat st;

	if (argc < 2 || runs < 1 || runs > 64 || stat(argv[1], &st)) {
		fprintf(stderr, "usage: parse_bench FILE [RUNS (1-64)]\n");
		return 2;
	}
	for (int r = 0; r < runs; r++) {
		double w0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
		struct vsc_trace *trace = vsc_trace_parse_file(argv[1], NULL);

		if (!trace) {
			perror(argv[1]);
			return 2;
		}
		wall[r] = now_s(CLOCK_MONOTONIC) - w0;
		cpu[r] = now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
		events = 0;
		for (size_t i = 0; i < vsc_trace_program_count(trace); i++)
			events += vsc_program_event_count(vsc_trace_program(trace, i));
		vsc_trace_free(trace);
	}
	qsort(wall, (size_t)runs, sizeof(double), by_value);
	qsort(cpu, (size_t)runs, sizeof(double), by_value);
	getrusage(RUSAGE_SELF, &ru);
	printf("file=%s mb=%.1f events=%zu wall_best_s=%.4f wall_median_s=%.4f cpu_best_s=%.4f "
	       "cpu_median_s=%.4f mb_per_s=%.0f mevents_per_s=%.1f peak_rss_mb=%.1f "
	       "rss_b_per_event=%.0f\n",
	       argv[1], (double)st.st_size / 1e6, events, wall[0], wall[runs / 2], cpu[0],
	       cpu[runs / 2], (double)st.st_size / 1e6 / cpu[runs / 2],
	       (double)events / 1e6 / cpu[runs / 2], (double)ru.ru_maxrss / 1024,
	       events ? ru.ru_maxrss * 1024.0 / (double)events : 0);
	return 0;
}
