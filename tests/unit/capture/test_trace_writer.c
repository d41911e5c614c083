/* SPDX-License-Identifier: MIT */
/* The streaming trace writer: lines in arrival order with each thread's
 * program order kept, init lines at first use, names, segments that hold
 * every thread's events of an execution, holes and late events counted as
 * lost, header counts and trailer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tw_test.h"

static int name_cb(void *ctx, uint32_t pid, uint64_t addr, uint32_t size, char *buf, size_t len)
{
	(void)ctx, (void)pid, (void)size;
	if (addr == 0x1000)
		return snprintf(buf, len, "flag"), 0;
	if (addr == 0x1008)
		return snprintf(buf, len, "data+8 bad@chars"), 0;
	if (addr == 0x2000)
		return snprintf(buf, len, "flag"), 0; /* a clash: must not merge */
	return -1;
}

static int init_cb(void *ctx, uint32_t pid, uint64_t addr, uint32_t size, int64_t *value)
{
	(void)ctx, (void)pid, (void)size;
	if (addr == 0x1000) {
		*value = 0;
		return 1;
	}
	return 0;
}

static struct trace_writer *open_null(const struct trace_writer_opts *opts)
{
	struct trace_writer *w = NULL;
	assert_int_equal(trace_writer_open(&w, NULL, opts), 0);
	return w;
}

static void add_all(struct trace_writer *w, const struct vsc_capture_event *evs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_int_equal(trace_writer_add(w, &evs[i]), 0);
}

static void expect_body(struct trace_writer *w, const char *want)
{
	char *text = tw_finish_text(w), *body = tw_body(text);
	assert_string_equal(body, want);
	free(body);
	free(text);
}

/* Lines in arrival order; a read's `init VAR ?` comes where the first
 * read is (valid anywhere in its execution). */
static void test_arrival_order(void **state)
{
	(void)state;
	VSC_OPTS(trace_writer_opts, opts, .what = "unit test");
	struct trace_writer *w = open_null(&opts);
	struct vsc_capture_event evs[] = {
		tw_event(12, 0, VSC_CAP_STORE, 0x10, 1, 0, 8),
		tw_event(13, 0, VSC_CAP_LOAD, 0x10, 1, 0, 8),
		tw_event(12, 1, VSC_CAP_STORE, 0x10, 2, 0, 8),
	};
	add_all(w, evs, 3);
	expect_body(w, "12 w 0x10 1 @112\n"
		       "init 0x10 ?\n"
		       "13 r 0x10 1 @113\n"
		       "12 w 0x10 2 @122\n");
}

static void test_exact_output(void **state)
{
	(void)state;
	VSC_OPTS(trace_writer_opts, opts, .naming = { .var_name = name_cb, .init_value = init_cb },
		 .no_timestamps = true);
	struct trace_writer *w = open_null(&opts);
	struct vsc_capture_event evs[] = {
		tw_event(12, 0, VSC_CAP_STORE, 0x1008, -1, 0, 4),
		tw_event(13, 0, VSC_CAP_LOAD, 0x1000, 1, 0, 8),
		tw_event(13, 2, VSC_CAP_LOAD, 0x2000, 3, 0, 1), /* early: waits for 1 */
		tw_event(12, 1, VSC_CAP_STORE, 0x1000, 1, 0, 8),
		tw_event(13, 1, VSC_CAP_LOAD, 0x1008, 0xffffffff, 0, 4),
		tw_event(12, 2, VSC_CAP_RMW, 0x3000, 0xfffe, 6, 2),
	};
	add_all(w, evs, 6);
	expect_body(w, "12 w data_8_bad_chars -1\n"
		       "init flag 0\n"
		       "13 r flag 1\n"
		       "12 w flag 1\n"
		       "init data_8_bad_chars ?\n"
		       "13 r data_8_bad_chars -1\n"
		       "init 0x2000 ?\n"
		       "13 r 0x2000 3\n"
		       "init 0x3000 ?\n"
		       "12 u 0x3000 -2 6\n");
}

static uint32_t next_random(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return *seed >> 8;
}

/* Threads interleaved at random, each thread's events scrambled within
 * blocks of 32 (the first stays first): program order comes out exact,
 * extreme values are printed exactly, nothing is lost. */
static void test_scrambled_within_window(void **state)
{
	(void)state;
	enum {
		THREADS = 5,
		PER = 4000,
		BLOCK = 32
	};
	VSC_OPTS(trace_writer_opts, opts, .no_timestamps = true, .reorder_window = 64);
	struct trace_writer *w = open_null(&opts);
	struct vsc_capture_event *evs = calloc(THREADS * PER, sizeof(*evs));
	size_t next[THREADS] = { 0 }, left = THREADS * PER;
	uint32_t seed = 12345;
	assert_non_null(evs);
	for (int t = 0; t < THREADS; t++) {
		struct vsc_capture_event *e = evs + t * PER;
		for (int k = 0; k < PER; k++) {
			int64_t v = k == 1 ? INT64_MIN : k == 2 ? INT64_MAX : k;
			e[k] = tw_event((uint32_t)(50 - t), (uint64_t)k, VSC_CAP_STORE, 0x40, v, 0,
					8);
		}
		for (int b = 1; b < PER; b += BLOCK)
			for (int i = (b + BLOCK < PER ? b + BLOCK : PER) - 1; i > b; i--) {
				int j = b + (int)(next_random(&seed) % (uint32_t)(i - b + 1));
				struct vsc_capture_event tmp = e[i];
				e[i] = e[j];
				e[j] = tmp;
			}
	}
	while (left) {
		int t = (int)(next_random(&seed) % THREADS);
		if (next[t] == PER)
			continue;
		assert_int_equal(trace_writer_add(w, &evs[t * PER + next[t]++]), 0);
		left--;
	}
	char *text = tw_finish_text(w);
	int seen[THREADS] = { 0 };
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned tid;
		char value[32], want[32];
		if (sscanf(line, "%u w 0x40 %31s", &tid, value) != 2)
			continue;
		int t = 50 - (int)tid, k = seen[t]++;
		snprintf(want, sizeof(want), "%lld",
			 k == 1   ? (long long)INT64_MIN
			 : k == 2 ? (long long)INT64_MAX
				  : (long long)k);
		assert_string_equal(value, want);
	}
	for (int t = 0; t < THREADS; t++)
		assert_int_equal(seen[t], PER);
	free(text);
	free(evs);
}

static void test_lost_and_gaps(void **state)
{
	(void)state;
	struct trace_writer *w = open_null(NULL);
	struct vsc_capture_event a = tw_event(5, 0, VSC_CAP_STORE, 0x10, 1, 0, 8);
	struct vsc_capture_event b = tw_event(5, 4, VSC_CAP_STORE, 0x10, 2, 0, 8);
	struct vsc_capture_event bad = tw_event(5, 5, VSC_CAP_STORE, 0x10, 2, 0, 3);
	assert_int_equal(trace_writer_add(w, &a), 0);
	assert_int_equal(trace_writer_add(w, &b), 0);
	assert_int_equal(trace_writer_add(w, &bad), -EINVAL);
	trace_writer_add_lost(w, 2);
	char *text = tw_finish_text(w);
	/* three holes in the sequence beat the two the capture reported */
	assert_int_equal(tw_header(text, "lost events"), 3);
	assert_int_equal(tw_header(text, "events"), 2);
	assert_non_null(strstr(text, "\n# WARNING: events were lost"));
	const char *trailer = "# end of trace: events=2 lost=3 uncertain=0\n";
	assert_string_equal(text + strlen(text) - strlen(trailer), trailer);
	free(text);
}

/* A second copy of an event is dropped; an event before the place of its
 * thread's first one, or after its hole was given up, is lost. */
static void test_late_and_duplicate(void **state)
{
	(void)state;
	VSC_OPTS(trace_writer_opts, opts, .no_timestamps = true, .reorder_window = 4);
	struct trace_writer *w = open_null(&opts);
	struct vsc_capture_event evs[] = {
		tw_event(5, 3, VSC_CAP_STORE, 0x10, 3, 0, 8),
		tw_event(5, 4, VSC_CAP_STORE, 0x10, 4, 0, 8),
		tw_event(5, 3, VSC_CAP_STORE, 0x10, 3, 0, 8), /* the same again */
		tw_event(5, 1, VSC_CAP_STORE, 0x10, 1, 0, 8), /* before seq 3: lost */
		tw_event(6, 0, VSC_CAP_STORE, 0x20, 0, 0, 8),
		tw_event(6, 2, VSC_CAP_STORE, 0x20, 2, 0, 8),
		tw_event(6, 3, VSC_CAP_STORE, 0x20, 3, 0, 8),
		tw_event(6, 4, VSC_CAP_STORE, 0x20, 4, 0, 8),
		tw_event(6, 5, VSC_CAP_STORE, 0x20, 5, 0, 8),
		tw_event(6, 6, VSC_CAP_STORE, 0x20, 6, 0, 8), /* window full: 1 is lost */
		tw_event(6, 1, VSC_CAP_STORE, 0x20, 1, 0, 8), /* too late */
	};
	add_all(w, evs, sizeof(evs) / sizeof(evs[0]));
	char *text = tw_finish_text(w), *body = tw_body(text);
	assert_string_equal(body, "5 w 0x10 3\n5 w 0x10 4\n6 w 0x20 0\n6 w 0x20 2\n6 w 0x20 3\n"
				  "6 w 0x20 4\n6 w 0x20 5\n6 w 0x20 6\n");
	assert_int_equal(tw_header(text, "events"), 8);
	assert_int_equal(tw_header(text, "lost events"), 2);
	free(body);
	free(text);
}

/* A thread id used again (pid_max): the new thread's sequence numbers start
 * again. Its events are another thread's (TID.1), never taken for copies of
 * the old one's; the hole the old one still waited for is lost; an older
 * instance after a newer one is refused (1) for the caller to count. */
static void test_thread_id_reused(void **state)
{
	(void)state;
	VSC_OPTS(trace_writer_opts, opts, .no_timestamps = true);
	struct trace_writer *w = open_null(&opts);
	struct vsc_capture_event old[] = {
		tw_event(5, 0, VSC_CAP_STORE, 0x10, 1, 0, 8),
		tw_event(5, 1, VSC_CAP_STORE, 0x10, 2, 0, 8),
		tw_event(5, 3, VSC_CAP_STORE, 0x10, 4, 0, 8), /* waits for seq 2 */
	};
	struct vsc_capture_event fresh[] = {
		tw_event(5, 0, VSC_CAP_STORE, 0x10, 5, 0, 8),
		tw_event(5, 1, VSC_CAP_STORE, 0x10, 6, 0, 8),
	};
	assert_int_equal(trace_writer_thread_instance(w, 7, 5, 0), 0);
	add_all(w, old, 3);
	assert_int_equal(trace_writer_thread_instance(w, 7, 5, 1), 0);
	add_all(w, fresh, 2);
	assert_int_equal(trace_writer_thread_instance(w, 7, 5, 0), 1);
	char *text = tw_finish_text(w), *body = tw_body(text);
	assert_string_equal(body,
			    "5 w 0x10 1\n5 w 0x10 2\n5 w 0x10 4\n5.1 w 0x10 5\n5.1 w 0x10 6\n");
	assert_int_equal(tw_header(text, "threads"), 2);
	assert_int_equal(tw_header(text, "lost events"), 1);
	free(body);
	free(text);
}

/* Thread 1 runs two executions ahead of thread 2: each segment still
 * holds both threads' events; the ELF init value goes to the first
 * execution that uses the variable, `?` to the later ones that read it. */
static void test_segments(void **state)
{
	(void)state;
	VSC_OPTS(trace_writer_opts, opts, .naming = { .init_value = init_cb },
		 .no_timestamps = true);
	struct trace_writer *w = open_null(&opts);
	struct vsc_capture_event evs[] = {
		tw_event(1, 0, VSC_CAP_STORE, 0x1000, 9, 0, 8), /* before any marker */
		tw_event(1, 1, VSC_CAP_SEGMENT, 0, 0, 0, 0),
		tw_event(1, 2, VSC_CAP_STORE, 0x1000, 1, 0, 8),
		tw_event(1, 3, VSC_CAP_SEGMENT, 0, 1, 0, 0),
		tw_event(1, 4, VSC_CAP_STORE, 0x1000, 2, 0, 8),
		tw_event(2, 0, VSC_CAP_SEGMENT, 0, 0, 0, 0),
		tw_event(2, 1, VSC_CAP_LOAD, 0x1000, 1, 0, 8),
		tw_event(2, 2, VSC_CAP_SEGMENT, 0, 1, 0, 0),
		tw_event(2, 3, VSC_CAP_LOAD, 0x1000, 1, 0, 8),
	};
	add_all(w, evs, sizeof(evs) / sizeof(evs[0]));
	expect_body(w, "init 0x1000 0\n"
		       "1 w 0x1000 9\n"
		       "segment 0\n"
		       "init 0x1000 ?\n"
		       "1 w 0x1000 1\n"
		       "2 r 0x1000 1\n"
		       "segment 1\n"
		       "init 0x1000 ?\n"
		       "1 w 0x1000 2\n"
		       "2 r 0x1000 1\n");
}

/* Finish w: segments 0 .. count-1 in order, each with `per` event lines of
 * threads 1 and 2, nothing lost. */
static void expect_segments(struct trace_writer *w, long count, long per)
{
	char *text = tw_finish_text(w);
	long segment = -1, events = 0;
	assert_int_equal(tw_header(text, "lost events"), 0);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		long n;
		if (sscanf(line, "segment %ld", &n) == 1) {
			assert_true(segment < 0 || events == per);
			assert_int_equal(n, segment + 1);
			segment = n;
			events = 0;
		} else if (line[0] == '1' || line[0] == '2') {
			events++;
		}
	}
	assert_int_equal(segment, count - 1);
	assert_int_equal(events, per);
	free(text);
}

/* A lab run: 200,000 executions of two threads, the second thread a few
 * thousand executions behind at times. Every segment comes out once, in
 * order, with both threads' two events. */
static void test_many_segments(void **state)
{
	(void)state;
	enum {
		SEGMENTS = 200000
	};
	VSC_OPTS(trace_writer_opts, opts, .no_timestamps = true);
	struct trace_writer *w = open_null(&opts);
	long done[2] = { 0, 0 };
	uint32_t seed = 99;
	while (done[0] < SEGMENTS || done[1] < SEGMENTS) {
		int t = done[0] == SEGMENTS   ? 1
			: done[1] == SEGMENTS ? 0
					      : (int)(next_random(&seed) % 2);
		/* thread 1 may fall up to 3000 executions behind, not ahead */
		if (t == 1 && done[1] >= done[0])
			t = 0;
		if (t == 0 && done[0] - done[1] > 3000)
			t = 1;
		long i = done[t]++;
		struct vsc_capture_event evs[] = {
			tw_event((uint32_t)t + 1, (uint64_t)i * 3, VSC_CAP_SEGMENT, 0, i, 0, 0),
			tw_event((uint32_t)t + 1, (uint64_t)i * 3 + 1, VSC_CAP_STORE,
				 0x100 + (uint64_t)t * 8, i, 0, 8),
			tw_event((uint32_t)t + 1, (uint64_t)i * 3 + 2, VSC_CAP_LOAD,
				 0x108 - (uint64_t)t * 8, 0, 0, 8),
		};
		add_all(w, evs, 3);
	}
	expect_segments(w, SEGMENTS, 4);
}

/* A lab run whose threads each send their whole log after the run, one
 * after the other: every segment still holds both threads' events. */
static void test_logs_one_after_another(void **state)
{
	(void)state;
	enum {
		SEGMENTS = 20000
	};
	VSC_OPTS(trace_writer_opts, opts, .no_timestamps = true);
	struct trace_writer *w = open_null(&opts);
	for (uint32_t t = 1; t <= 2; t++)
		for (long i = 0; i < SEGMENTS; i++) {
			struct vsc_capture_event evs[] = {
				tw_event(t, (uint64_t)i * 2, VSC_CAP_SEGMENT, 0, i, 0, 0),
				tw_event(t, (uint64_t)i * 2 + 1, VSC_CAP_STORE, 0x100 + t * 8, i, 0,
					 8),
			};
			add_all(w, evs, 2);
		}
	expect_segments(w, SEGMENTS, 2);
}

/* Thread 1 stays in segment 0 while thread 2 runs on: past the held limit,
 * segment 0 is written without the rest of thread 1's events, which are
 * counted as lost, and so are its events after a marker for a segment
 * already written: never moved into another execution. */
static void test_stuck_thread(void **state)
{
	(void)state;
	VSC_OPTS(trace_writer_opts, opts, .no_timestamps = true, .held_limit = 4096);
	struct trace_writer *w = open_null(&opts);
	uint64_t seq2 = 0;
	struct vsc_capture_event a[] = {
		tw_event(1, 0, VSC_CAP_SEGMENT, 0, 0, 0, 0),
		tw_event(1, 1, VSC_CAP_STORE, 0x10, 1, 0, 8),
	};
	add_all(w, a, 2);
	for (long i = 0; i < 2000; i++) {
		struct vsc_capture_event b[] = {
			tw_event(2, seq2++, VSC_CAP_SEGMENT, 0, i, 0, 0),
			tw_event(2, seq2++, VSC_CAP_LOAD, 0x10, 0, 0, 8),
		};
		add_all(w, b, 2);
	}
	struct vsc_capture_event late[] = {
		tw_event(1, 2, VSC_CAP_STORE, 0x10, 2, 0, 8),   /* segment 0 is written: lost */
		tw_event(1, 3, VSC_CAP_SEGMENT, 0, 1, 0, 0),    /* written too */
		tw_event(1, 4, VSC_CAP_STORE, 0x10, 3, 0, 8),   /* lost */
		tw_event(1, 5, VSC_CAP_SEGMENT, 0, 1999, 0, 0), /* still open */
		tw_event(1, 6, VSC_CAP_STORE, 0x10, 4, 0, 8),
	};
	add_all(w, late, 5);
	char *text = tw_finish_text(w);
	assert_int_equal(tw_header(text, "lost events"), 2);
	assert_int_equal(tw_header(text, "events"), 2000 + 2);
	assert_non_null(
		strstr(text, "\nsegment 0\ninit 0x10 ?\n1 w 0x10 1\n2 r 0x10 0\nsegment 1\n"));
	assert_non_null(strstr(text, "\nsegment 1999\ninit 0x10 ?\n2 r 0x10 0\n1 w 0x10 4\n"));
	assert_null(strstr(text, "1 w 0x10 2"));
	assert_null(strstr(text, "1 w 0x10 3"));
	size_t segments = 0;
	for (const char *p = strstr(text, "\nsegment "); p; p = strstr(p + 1, "\nsegment "))
		segments++;
	assert_int_equal(segments, 2000); /* none split in two */
	free(text);
}

/* Addresses from 0x100000 have a known initial value, 5 (as globals of
 * the executable have). */
static int init_five(void *ctx, uint32_t pid, uint64_t addr, uint32_t size, int64_t *value)
{
	(void)ctx, (void)pid, (void)size;
	*value = 5;
	return addr >= 0x100000;
}

/* A lab run with fresh variables in every execution: the writer forgets
 * the variables of written executions, yet each still gets its initial
 * value where it is first used, and one used again after it was forgotten
 * gets `?` (memory may hold anything by then), never the file's value. */
static void test_forgotten_variables(void **state)
{
	(void)state;
	enum {
		SEGMENTS = 5000
	};
	VSC_OPTS(trace_writer_opts, opts, .no_timestamps = true, .held_limit = 16384,
		 .naming = { .init_value = init_five });
	struct trace_writer *w = open_null(&opts);
	uint64_t seq[3] = { 0, 0, 0 };
	for (long i = 0; i < SEGMENTS; i++)
		for (uint32_t t = 1; t <= 2; t++) {
			uint64_t mine = 0x100000 + (uint64_t)i * 16 + (t - 1) * 8;
			uint64_t other = 0x100000 + (uint64_t)i * 16 + (2 - t) * 8;
			struct vsc_capture_event evs[] = {
				tw_event(t, seq[t]++, VSC_CAP_SEGMENT, 0, i, 0, 0),
				tw_event(t, seq[t]++, VSC_CAP_STORE, mine, 1, 0, 8),
				tw_event(t, seq[t]++, VSC_CAP_LOAD, other, 5, 0, 8),
			};
			add_all(w, evs, 3);
		}
	struct vsc_capture_event again[] = {
		tw_event(1, seq[1]++, VSC_CAP_SEGMENT, 0, SEGMENTS, 0, 0),
		tw_event(1, seq[1]++, VSC_CAP_LOAD, 0x100000, 1, 0, 8), /* segment 0's x */
		tw_event(1, seq[1]++, VSC_CAP_LOAD, 0x100004, 1, 0, 4), /* inside it */
		tw_event(1, seq[1]++, VSC_CAP_LOAD, 0x180000, 5, 0, 8), /* never used */
	};
	add_all(w, again, 4);
	char *text = tw_finish_text(w);
	assert_int_equal(tw_header(text, "lost events"), 0);
	assert_int_equal(tw_header(text, "events"), 4 * SEGMENTS + 3);
	size_t known = 0, unknown = 0;
	for (const char *p = strstr(text, "\ninit "); p; p = strstr(p + 1, "\ninit ")) {
		const char *end = strchr(p + 1, '\n');
		known += end[-2] == ' ' && end[-1] == '5';
		unknown += end[-2] == ' ' && end[-1] == '?';
	}
	assert_int_equal(known, 2 * SEGMENTS + 1);
	assert_int_equal(unknown, 2);
	assert_non_null(strstr(text, "\nsegment 0\n"));
	const char *last = strstr(text, "\nsegment 5000\n");
	assert_non_null(last);
	assert_non_null(strstr(last, "\ninit 0x100000 ?\n"));
	assert_non_null(strstr(last, "\ninit 0x100004 ?\n"));
	assert_non_null(strstr(last, "\ninit 0x180000 5\n"));
	free(text);
}

static void test_uncertain_counted(void **state)
{
	(void)state;
	struct trace_writer *w = open_null(NULL);
	struct vsc_capture_event a = tw_event(5, 0, VSC_CAP_RMW, 0x10, 0, 1, 8);
	struct vsc_capture_event b = tw_event(5, 1, VSC_CAP_LOAD, 0x10, 1, 0, 8);
	a.flags = VSC_CAP_F_VALUE_UNSURE;
	assert_int_equal(trace_writer_add(w, &a), 0);
	assert_int_equal(trace_writer_add(w, &b), 0);
	assert_int_equal(trace_writer_note(w, "recording stopped by", "a\ntest"), 0);
	char *text = tw_finish_text(w);
	assert_int_equal(tw_header(text, "uncertain values"), 1);
	assert_int_equal(tw_header(text, "events"), 2);
	assert_int_equal(tw_header(text, "threads"), 1);
	assert_non_null(strstr(text, "\n5 u 0x10 0 1 @105 # value unsure\n"));
	assert_non_null(strstr(text, "\n# recording stopped by: a test\n"));
	assert_non_null(strstr(text, "\n# end of trace: events=2 lost=0 uncertain=1\n"));
	free(text);
}

/* Accesses of another size or start than a variable's (trial16: a packed
 * ticket lock's 2-byte read of its 4-byte word; an 8-byte store and a
 * 4-byte read of its upper half) cannot be written as one value per
 * variable: every event of such a variable is uncertain, those written
 * before the overlap was found included; identical ranges stay plain. */
static void test_mixed_sizes(void **state)
{
	(void)state;
	VSC_OPTS(trace_writer_opts, opts, .no_timestamps = true);
	struct trace_writer *w = open_null(&opts);
	uint64_t seq = 0;
	struct vsc_capture_event evs[] = {
		/* 4-byte RMWs, then a 2-byte read of the low half: 4 */
		tw_event(1, seq++, VSC_CAP_RMW, 0x40, 0, 1 << 16, 4),
		tw_event(1, seq++, VSC_CAP_RMW, 0x40, 1 << 16, 2 << 16, 4),
		tw_event(1, seq++, VSC_CAP_RMW, 0x40, 2 << 16, 3 << 16, 4),
		tw_event(1, seq++, VSC_CAP_LOAD, 0x40, 0, 0, 2),
		/* an 8-byte store, a 4-byte read of its upper half: 2 */
		tw_event(1, seq++, VSC_CAP_STORE, 0x80, 1ll << 32, 0, 8),
		tw_event(1, seq++, VSC_CAP_LOAD, 0x84, 1, 0, 4),
		/* 2 bytes first, then 4 at the same address: 2 */
		tw_event(1, seq++, VSC_CAP_LOAD, 0xc0, 0, 0, 2),
		tw_event(1, seq++, VSC_CAP_LOAD, 0xc0, 0, 0, 4),
		/* identical and neighbouring ranges: plain */
		tw_event(1, seq++, VSC_CAP_STORE, 0x100, 1, 0, 8),
		tw_event(1, seq++, VSC_CAP_LOAD, 0x100, 1, 0, 8),
		tw_event(1, seq++, VSC_CAP_LOAD, 0x108, 0, 0, 4),
		tw_event(1, seq++, VSC_CAP_LOAD, 0x10c, 0, 0, 4),
		tw_event(1, seq++, VSC_CAP_LOAD, 0xff, 0, 0, 1),
		/* one wide access over two variables: 3 */
		tw_event(1, seq++, VSC_CAP_STORE, 0x200, 1, 0, 2),
		tw_event(1, seq++, VSC_CAP_STORE, 0x202, 1, 0, 2),
		tw_event(1, seq++, VSC_CAP_LOAD, 0x200, 0x10001, 0, 4),
		/* across a 64-byte chunk: 2 */
		tw_event(1, seq++, VSC_CAP_STORE, 0x23c, 1, 0, 8),
		tw_event(1, seq++, VSC_CAP_LOAD, 0x241, 0, 0, 1),
		/* after a variable that starts before it: 2 */
		tw_event(1, seq++, VSC_CAP_STORE, 0x300, 1, 0, 8),
		tw_event(1, seq++, VSC_CAP_LOAD, 0x2fc, 0, 0, 8),
	};
	add_all(w, evs, sizeof(evs) / sizeof(*evs));
	assert_int_equal(trace_writer_mixed(w), 10);
	assert_int_equal(trace_writer_uncertain(w), 15);
	char *text = tw_finish_text(w);
	assert_int_equal(tw_header(text, "uncertain values"), 15);
	assert_non_null(strstr(text, "\n# end of trace: events=20 lost=0 uncertain=15\n"));
	assert_non_null(strstr(text, "\n# values not observed exactly: 10 variables share bytes "
				     "with accesses of another size or start, first 0x40 at 0x40 "
				     "(4 bytes) and a 2-byte access at 0x40; "));
	/* the lines written after the overlap was found are marked */
	assert_non_null(strstr(text, "\n1 r 0x40 0 # value unsure\n"));
	assert_non_null(strstr(text, "\n1 r 0x84 1 # value unsure\n"));
	assert_non_null(strstr(text, "\n1 u 0x40 0 65536\n"));
	assert_non_null(strstr(text, "\n1 r 0x100 1\n"));
	assert_non_null(strstr(text, "\n1 r 0x108 0\n"));
	assert_non_null(strstr(text, "\n1 r 0x10c 0\n"));
	assert_non_null(strstr(text, "\n1 r 0xff 0\n"));
	free(text);

	/* plain: no count, no note */
	w = open_null(&opts);
	seq = 0;
	struct vsc_capture_event plain[] = {
		tw_event(1, seq++, VSC_CAP_STORE, 0x40, 1, 0, 4),
		tw_event(1, seq++, VSC_CAP_LOAD, 0x44, 0, 0, 4),
		tw_event(1, seq++, VSC_CAP_LOAD, 0x40, 1, 0, 4),
	};
	add_all(w, plain, 3);
	assert_int_equal(trace_writer_mixed(w), 0);
	text = tw_finish_text(w);
	assert_int_equal(tw_header(text, "uncertain values"), 0);
	assert_null(strstr(text, "values not observed exactly"));
	free(text);
}

/* Mixed variables of written executions are forgotten like the others: a
 * lab run with a mixed pair in every execution counts each, and an address
 * used again with one size in a later execution is plain. */
static void test_mixed_forgotten(void **state)
{
	(void)state;
	enum {
		SEGMENTS = 3000
	};
	VSC_OPTS(trace_writer_opts, opts, .no_timestamps = true, .held_limit = 16384);
	struct trace_writer *w = open_null(&opts);
	uint64_t seq[3] = { 0, 0, 0 };
	for (long i = 0; i < SEGMENTS; i++) {
		uint64_t x = 0x100000 + (uint64_t)i * 16;
		struct vsc_capture_event evs[] = {
			tw_event(1, seq[1]++, VSC_CAP_SEGMENT, 0, i, 0, 0),
			tw_event(1, seq[1]++, VSC_CAP_STORE, x, 1ll << 32, 0, 8),
			tw_event(2, seq[2]++, VSC_CAP_SEGMENT, 0, i, 0, 0),
			tw_event(2, seq[2]++, VSC_CAP_LOAD, x + 4, 1, 0, 4),
			tw_event(2, seq[2]++, VSC_CAP_LOAD, x + 8, 0, 0, 2),
		};
		add_all(w, evs, 5);
	}
	struct vsc_capture_event again[] = {
		tw_event(1, seq[1]++, VSC_CAP_SEGMENT, 0, SEGMENTS, 0, 0),
		tw_event(1, seq[1]++, VSC_CAP_LOAD, 0x100004, 1, 0, 4), /* segment 0's half */
		tw_event(1, seq[1]++, VSC_CAP_LOAD, 0x100008, 0, 0, 4), /* 2 bytes there before */
	};
	add_all(w, again, 3);
	assert_int_equal(trace_writer_mixed(w), 2 * SEGMENTS);
	char *text = tw_finish_text(w);
	assert_int_equal(tw_header(text, "lost events"), 0);
	assert_int_equal(tw_header(text, "uncertain values"), 2 * SEGMENTS);
	const char *last = strstr(text, "\nsegment 3000\n");
	assert_non_null(last);
	assert_non_null(strstr(last, "\n1 r 0x100004 1\n"));
	assert_non_null(strstr(last, "\n1 r 0x100008 0\n"));
	free(text);
}

static void test_lost_inexact(void **state)
{
	(void)state;
	struct trace_writer *w = open_null(NULL);
	trace_writer_add_lost(w, 7);
	trace_writer_lost_inexact(w);
	char *text = tw_finish_text(w);
	assert_non_null(strstr(text, "\n# lost events: at least 7\n"));
	assert_non_null(strstr(text, "\n# end of trace: events=0 lost=>=7 uncertain=0\n"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arrival_order),
		cmocka_unit_test(test_exact_output),
		cmocka_unit_test(test_scrambled_within_window),
		cmocka_unit_test(test_lost_and_gaps),
		cmocka_unit_test(test_late_and_duplicate),
		cmocka_unit_test(test_thread_id_reused),
		cmocka_unit_test(test_segments),
		cmocka_unit_test(test_many_segments),
		cmocka_unit_test(test_logs_one_after_another),
		cmocka_unit_test(test_stuck_thread),
		cmocka_unit_test(test_forgotten_variables),
		cmocka_unit_test(test_uncertain_counted),
		cmocka_unit_test(test_lost_inexact),
		cmocka_unit_test(test_mixed_sizes),
		cmocka_unit_test(test_mixed_forgotten),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
