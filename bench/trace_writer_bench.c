/* SPDX-License-Identifier: MIT */
/*
 * The trace writer under load, without a kernel in the way: a synthetic
 * capture source hands it EVENTS events from THREADS threads, in batches of
 * 256 per thread (as the probe path delivers them), optionally with a
 * segment marker every PER_SEGMENT events of each thread (a lab run), and
 * the trace goes to a file. Prints events/s and the peak RSS.
 *
 *   trace_writer_bench EVENTS THREADS PER_SEGMENT OUTPUT
 *
 * PER_SEGMENT 0: no segments.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "userspace/capture/trace_writer.h"
#include "userspace/util/clock.h"

#define BATCH 256

struct bench_thread {
	uint64_t seq, done, segment;
};

/* The next event of thread t: every PER_SEGMENT events a marker first. */
static struct vsc_capture_event next_event(struct bench_thread *th, uint32_t t,
					   uint64_t per_segment, uint64_t ts)
{
	struct vsc_capture_event e = { .seq = th->seq++,
				       .ts_ns = ts,
				       .pid = 1,
				       .tid = 100 + t,
				       .ip = 0x401000 + (th->done % 16) * 4,
				       .size = 8 };
	if (per_segment && th->done % per_segment == 0 && th->segment * per_segment <= th->done) {
		e.kind = VSC_CAP_SEGMENT;
		e.value = (int64_t)th->segment++;
		return e;
	}
	e.kind = th->done % 3 == 0 ? VSC_CAP_LOAD : th->done % 3 == 1 ? VSC_CAP_STORE : VSC_CAP_RMW;
	e.addr = 0x10000 + ((th->done * 7 + t) % 64) * 8;
	e.value = (int64_t)th->done;
	e.new_value = (int64_t)th->done + 1;
	th->done++;
	return e;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s EVENTS THREADS PER_SEGMENT OUTPUT\n", argv[0]);
		return 2;
	}
	uint64_t events = strtoull(argv[1], NULL, 0), per_segment = strtoull(argv[3], NULL, 0);
	uint32_t threads = (uint32_t)strtoul(argv[2], NULL, 0);
	struct bench_thread *th = calloc(threads, sizeof(*th));
	struct trace_writer *w = NULL;
	VSC_OPTS(trace_writer_opts, opts, .what = "trace writer benchmark");
	if (!threads || !th || trace_writer_open(&w, argv[4], &opts)) {
		fprintf(stderr, "trace_writer_bench: cannot set up\n");
		return 1;
	}
	uint64_t per_thread = events / threads, ts = 1;
	double start = clock_now_s();
	for (uint64_t base = 0; base < per_thread; base += BATCH)
		for (uint32_t t = 0; t < threads; t++)
			while (th[t].done < base + BATCH && th[t].done < per_thread) {
				struct vsc_capture_event e =
					next_event(&th[t], t, per_segment, ts++);
				if (trace_writer_add(w, &e)) {
					fprintf(stderr, "trace_writer_bench: add failed\n");
					return 1;
				}
			}
	double fed = clock_now_s();
	int err = trace_writer_finish(w, NULL);
	double end = clock_now_s();
	uint64_t written = trace_writer_events(w);
	trace_writer_free(w);
	free(th);
	if (err) {
		fprintf(stderr, "trace_writer_bench: finish failed: %d\n", err);
		return 1;
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("events %" PRIu64 " threads %u per_segment %" PRIu64 " feed_s %.2f finish_s %.2f "
	       "events_per_s %.0f peak_rss_mb %.1f\n",
	       written, threads, per_segment, fed - start, end - fed,
	       (double)written / (end - start), (double)ru.ru_maxrss / 1024.0);
	return 0;
}
