/* SPDX-License-Identifier: MIT */
/* The trace writer: program order from sequence numbers whatever the arrival
 * order, names and initial values through callbacks, segments, loss, 0600. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_writer.h"

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

static struct vsc_capture_event event(uint32_t tid, uint64_t seq, int kind, uint64_t addr,
				      int64_t value, int64_t new_value, unsigned size)
{
	return (struct vsc_capture_event){ .seq = seq, .addr = addr, .value = value,
					   .new_value = new_value, .ts_ns = 100 + seq * 10 + tid,
					   .pid = 7, .tid = tid, .kind = (uint16_t)kind,
					   .size = (uint16_t)size };
}

/* The output without its comment lines. */
static char *body(struct vsc_trace_writer *w)
{
	char *text = NULL, *out = calloc(1, 4096);
	size_t len = 0, used = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(vsc_trace_writer_write(w, f), 0);
	fclose(f);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *hash = strstr(line, " #");
		if (line[0] == '#')
			continue;
		if (hash)
			*hash = '\0';
		used += (size_t)snprintf(out + used, 4096 - used, "%s\n", line);
	}
	free(text);
	return out;
}

static void test_threads_by_first_time(void **state)
{
	(void)state;
	struct vsc_trace_writer_opts opts = { .sz = sizeof(opts), .what = "unit test" };
	struct vsc_trace_writer *w = vsc_trace_writer_new(&opts);
	assert_non_null(w);
	struct vsc_capture_event evs[] = {
		event(12, 0, VSC_CAP_STORE, 0x10, 1, 0, 8),
		event(12, 1, VSC_CAP_STORE, 0x10, 2, 0, 8),
		event(13, 0, VSC_CAP_LOAD, 0x10, 1, 0, 8),
	};
	evs[2].ts_ns = 1; /* thread 13 is seen first: its lines come first */
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
		assert_int_equal(vsc_trace_writer_add(w, &evs[i]), 0);
	char *text = body(w);
	assert_string_equal(text, "vsc 1\n"
				  "init 0x10 ?\n"
				  "13 r 0x10 1 @1\n"
				  "12 w 0x10 1 @112\n"
				  "12 w 0x10 2 @122\n");
	free(text);
	vsc_trace_writer_free(w);
}

static void test_exact_output(void **state)
{
	(void)state;
	struct vsc_trace_writer_opts opts = { .sz = sizeof(opts), .name_var = name_cb,
					      .init_value = init_cb, .no_timestamps = true };
	struct vsc_trace_writer *w = vsc_trace_writer_new(&opts);
	struct vsc_capture_event evs[] = {
		event(13, 1, VSC_CAP_LOAD, 0x1008, 0xffffffff, 0, 4),
		event(12, 1, VSC_CAP_STORE, 0x1000, 1, 0, 8),
		event(13, 0, VSC_CAP_LOAD, 0x1000, 1, 0, 8),
		event(12, 0, VSC_CAP_STORE, 0x1008, -1, 0, 4),
		event(12, 2, VSC_CAP_RMW, 0x3000, 0xfffe, 6, 2),
		event(13, 2, VSC_CAP_LOAD, 0x2000, 3, 0, 1),
	};
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
		assert_int_equal(vsc_trace_writer_add(w, &evs[i]), 0);
	char *text = body(w);
	/* init lines first (in order of first use), then thread 12, then 13 */
	assert_string_equal(text, "vsc 1\n"
				  "init data_8_bad_chars ?\n"
				  "init flag 0\n"
				  "init 0x3000 ?\n"
				  "init 0x2000 ?\n"
				  "12 w data_8_bad_chars -1\n"
				  "12 w flag 1\n"
				  "12 u 0x3000 -2 6\n"
				  "13 r flag 1\n"
				  "13 r data_8_bad_chars -1\n"
				  "13 r 0x2000 3\n");
	assert_int_equal(vsc_trace_writer_lost(w), 0);
	free(text);
	vsc_trace_writer_free(w);
}

/* Many threads, events arriving in a scrambled order (and out of program
 * order within threads): each thread's lines come out in sequence order,
 * threads by first time; extreme values are printed exactly. */
static void test_scrambled_arrival(void **state)
{
	(void)state;
	enum { THREADS = 5, PER = 400 };
	struct vsc_trace_writer_opts opts = { .sz = sizeof(opts), .no_timestamps = true };
	struct vsc_trace_writer *w = vsc_trace_writer_new(&opts);
	struct vsc_capture_event *evs = calloc(THREADS * PER, sizeof(*evs));
	assert_non_null(w);
	assert_non_null(evs);
	for (int t = 0; t < THREADS; t++)
		for (int k = 0; k < PER; k++) {
			int64_t v = k == 1 ? INT64_MIN : k == 2 ? INT64_MAX : k;
			evs[t * PER + k] = event((uint32_t)(50 - t), (uint64_t)k, VSC_CAP_STORE,
						 0x40, v, 0, 8);
			evs[t * PER + k].ts_ns = (uint64_t)(t * 100000 + k);
		}
	unsigned seed = 12345; /* a fixed Fisher-Yates scramble */
	for (size_t i = THREADS * PER - 1; i > 0; i--) {
		seed = seed * 1103515245u + 12345u;
		size_t j = (seed >> 8) % (i + 1);
		struct vsc_capture_event tmp = evs[i];
		evs[i] = evs[j];
		evs[j] = tmp;
	}
	for (size_t i = 0; i < THREADS * PER; i++)
		assert_int_equal(vsc_trace_writer_add(w, &evs[i]), 0);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(vsc_trace_writer_write(w, f), 0);
	fclose(f);
	int line_thread = 0, line_k = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned tid;
		char value[32];
		if (sscanf(line, "%u w 0x40 %31s", &tid, value) != 2)
			continue;
		assert_int_equal(tid, 50 - line_thread); /* thread t started first */
		char want[32];
		snprintf(want, sizeof(want), "%lld",
			 line_k == 1 ? (long long)INT64_MIN
			 : line_k == 2 ? (long long)INT64_MAX : (long long)line_k);
		assert_string_equal(value, want);
		if (++line_k == PER) {
			line_k = 0;
			line_thread++;
		}
	}
	assert_int_equal(line_thread, THREADS);
	assert_int_equal(vsc_trace_writer_lost(w), 0);
	free(text);
	free(evs);
	vsc_trace_writer_free(w);
}

static void test_lost_and_gaps(void **state)
{
	(void)state;
	struct vsc_trace_writer *w = vsc_trace_writer_new(NULL);
	struct vsc_capture_event a = event(5, 0, VSC_CAP_STORE, 0x10, 1, 0, 8);
	struct vsc_capture_event b = event(5, 4, VSC_CAP_STORE, 0x10, 2, 0, 8);
	assert_int_equal(vsc_trace_writer_add(w, &a), 0);
	assert_int_equal(vsc_trace_writer_add(w, &b), 0);
	vsc_trace_writer_add_lost(w, 2);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(vsc_trace_writer_write(w, f), 0);
	fclose(f);
	/* three holes in the sequence beat the two the capture reported */
	assert_non_null(strstr(text, "\n# lost events: 3\n"));
	assert_non_null(strstr(text, "\n# events: 2\n"));
	free(text);
	struct vsc_capture_event bad = event(5, 5, VSC_CAP_STORE, 0x10, 2, 0, 3);
	assert_int_equal(vsc_trace_writer_add(w, &bad), -EINVAL);
	vsc_trace_writer_free(w);
}

static void test_segments(void **state)
{
	(void)state;
	struct vsc_trace_writer_opts opts = { .sz = sizeof(opts), .init_value = init_cb,
					      .no_timestamps = true };
	struct vsc_trace_writer *w = vsc_trace_writer_new(&opts);
	struct vsc_capture_event evs[] = {
		event(1, 0, VSC_CAP_STORE, 0x1000, 9, 0, 8), /* before any marker */
		event(1, 1, VSC_CAP_SEGMENT, 0, 0, 0, 0),
		event(1, 2, VSC_CAP_STORE, 0x1000, 1, 0, 8),
		event(1, 3, VSC_CAP_SEGMENT, 0, 1, 0, 0),
		event(1, 4, VSC_CAP_STORE, 0x1000, 2, 0, 8),
		event(2, 0, VSC_CAP_SEGMENT, 0, 0, 0, 0),
		event(2, 1, VSC_CAP_LOAD, 0x1000, 1, 0, 8),
		event(2, 2, VSC_CAP_SEGMENT, 0, 1, 0, 0),
		event(2, 3, VSC_CAP_LOAD, 0x1000, 1, 0, 8),
	};
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
		assert_int_equal(vsc_trace_writer_add(w, &evs[i]), 0);
	char *text = body(w);
	assert_string_equal(text, "vsc 1\n"
				  "segment start\n"
				  "init 0x1000 0\n"
				  "1 w 0x1000 9\n"
				  "segment 0\n"
				  "init 0x1000 ?\n"
				  "1 w 0x1000 1\n"
				  "2 r 0x1000 1\n"
				  "segment 1\n"
				  "init 0x1000 ?\n"
				  "1 w 0x1000 2\n"
				  "2 r 0x1000 1\n");
	free(text);
	vsc_trace_writer_free(w);
}

static void test_file_mode(void **state)
{
	(void)state;
	char path[] = "/tmp/vsc-tw-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	fchmod(fd, 0644);
	close(fd);
	struct vsc_trace_writer *w = vsc_trace_writer_new(NULL);
	struct vsc_capture_event a = event(5, 0, VSC_CAP_STORE, 0x10, 1, 0, 8);
	assert_int_equal(vsc_trace_writer_add(w, &a), 0);
	assert_int_equal(vsc_trace_writer_write_file(w, path), 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	unlink(path);
	vsc_trace_writer_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_by_first_time),
		cmocka_unit_test(test_exact_output),
		cmocka_unit_test(test_scrambled_arrival),
		cmocka_unit_test(test_lost_and_gaps),
		cmocka_unit_test(test_segments),
		cmocka_unit_test(test_file_mode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
