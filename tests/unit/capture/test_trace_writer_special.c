/* SPDX-License-Identifier: MIT */
/*
 * The trace writer and its destination: a regular file becomes 0600 but a
 * FIFO keeps its mode; a pipe gets the counts at the end; a refused
 * recording leaves an existing file alone; a failed or killed one leaves
 * no trace that looks complete; write errors (device full, file size limit, a
 * closed pipe) are reported; memory stays bounded over a long recording.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tw_test.h"

/* Under AddressSanitizer freed memory waits in a quarantine (up to 256 MB),
 * so RSS says nothing about what the writer keeps once it has freed it. */
#if defined(__SANITIZE_ADDRESS__)
#define RSS_MEANINGFUL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RSS_MEANINGFUL 0
#endif
#endif
#ifndef RSS_MEANINGFUL
#define RSS_MEANINGFUL 1
#endif

static void add_stores(struct trace_writer *w, uint32_t tid, uint64_t from, uint64_t count)
{
	for (uint64_t i = from; i < from + count; i++) {
		struct vsc_capture_event e =
			tw_event(tid, i, VSC_CAP_STORE, 0x1000 + tid * 8, (int64_t)i, 0, 8);
		assert_int_equal(trace_writer_add(w, &e), 0);
	}
}

static void test_fifo_keeps_its_mode(void **state)
{
	(void)state;
	char dir[] = "/tmp/vsc-tw-special.XXXXXX", path[64], buf[4096];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_int_equal(chmod(path, 0644), 0); /* whatever the umask */
	int reader = open(path, O_RDONLY | O_NONBLOCK);
	assert_true(reader >= 0);
	struct trace_writer *w = NULL;
	assert_int_equal(trace_writer_open(&w, path, NULL), 0);
	add_stores(w, 7, 0, 3);
	assert_int_equal(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0644);
	ssize_t n = read(reader, buf, sizeof(buf) - 1);
	assert_true(n > 0); /* the trace went through, counts at its end */
	buf[n] = '\0';
	assert_non_null(strstr(buf, "\n# events: see end of trace\n"));
	assert_non_null(strstr(buf, "\n# end of trace: events=3 lost=0 uncertain=0\n"));
	close(reader);
	unlink(path);
	rmdir(dir);
}

static void test_regular_file_is_0600(void **state)
{
	(void)state;
	char *path = tw_temp_path();
	FILE *f = fopen(path, "w");
	fputs("an old trace\n", f);
	fclose(f);
	assert_int_equal(chmod(path, 0644), 0);
	struct trace_writer *w = NULL;
	assert_int_equal(trace_writer_open(&w, path, NULL), 0);
	add_stores(w, 7, 0, 3);
	assert_int_equal(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	char *text = tw_slurp(path);
	assert_null(strstr(text, "an old trace"));
	assert_int_equal(tw_header(text, "events"), 3);
	free(text);
	unlink(path);
	free(path);
}

/* Refused: a file it created goes, an existing one stays as it was.
 * Failed midway: the file says so, never an old or partial trace. */
static void test_refused_and_failed(void **state)
{
	(void)state;
	char *path = tw_temp_path();
	struct trace_writer *w = NULL;
	assert_int_equal(trace_writer_open(&w, path, NULL), 0);
	assert_int_equal(access(path, F_OK), 0); /* -o is opened up front */
	trace_writer_discard(w);
	trace_writer_free(w);
	assert_int_equal(access(path, F_OK), -1);

	FILE *f = fopen(path, "w");
	fputs("keep me\n", f);
	fclose(f);
	chmod(path, 0644);
	assert_int_equal(trace_writer_open(&w, path, NULL), 0);
	trace_writer_discard(w);
	trace_writer_free(w);
	char *text = tw_slurp(path);
	assert_string_equal(text, "keep me\n");
	free(text);

	assert_int_equal(trace_writer_open(&w, path, NULL), 0);
	add_stores(w, 7, 0, 100);
	trace_writer_free(w); /* a failure: no finish */
	text = tw_slurp(path);
	/* not empty (an empty file is a valid, consistent trace): a header
	 * that promises a trailer, which never comes, and no event */
	assert_non_null(strstr(text, "# events: see end of trace\n"));
	assert_null(strstr(text, "# end of trace"));
	assert_null(strstr(text, " w "));
	assert_null(strstr(text, "keep me"));
	free(text);
	unlink(path);
	free(path);

	assert_int_equal(trace_writer_open(&w, "/nonexistent-dir/x.vsc", NULL), -ENOENT);
	assert_null(w);
}

/* A recorder killed (SIGKILL) while it records into path: opened by the
 * writer, or as standard output the shell sent there (a stream). */
static void kill_while_recording(const char *path, bool as_stream)
{
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct trace_writer *w = NULL;
		FILE *out = as_stream ? fopen(path, "w") : NULL;
		if (as_stream ? !out || trace_writer_open_stream(&w, out, NULL)
			      : trace_writer_open(&w, path, NULL) != 0)
			_exit(1);
		trace_writer_begin(w);
		add_stores(w, 7, 0, 100);
		raise(SIGKILL);
		_exit(1);
	}
	int status;
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

/* Once the recording has begun, a recorder killed before its end
 * (SIGKILL, out of memory) must not leave the trace of an earlier run in
 * the file, which `vsc check` would decide as if it were this one; and a
 * recording that ends well writes its trace from the file's first byte. */
static void test_killed_after_begin(void **state)
{
	(void)state;
	static const char old[] = "vsc 1\n# an old trace\n1 w x 1\n"
				  "# end of trace: events=1 lost=0 uncertain=0\n";
	char *path = tw_temp_path();
	FILE *f = fopen(path, "w");
	fputs(old, f);
	fclose(f);
	kill_while_recording(path, false);
	char *text = tw_slurp(path);
	assert_null(strstr(text, "an old trace"));
	assert_null(strstr(text, "# end of trace"));
	assert_non_null(strstr(text, "# events: see end of trace\n"));
	free(text);

	struct trace_writer *w = NULL;
	assert_int_equal(trace_writer_open(&w, path, NULL), 0);
	trace_writer_begin(w);
	add_stores(w, 7, 0, 3);
	assert_int_equal(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	text = tw_slurp(path);
	assert_int_equal(strncmp(text, "vsc 1\n# vsc trace: observed", 27), 0);
	assert_null(strstr(text, "failed before its end"));
	assert_int_equal(tw_header(text, "events"), 3);
	assert_non_null(strstr(text, "\n# end of trace: events=3 lost=0 uncertain=0\n"));
	free(text);
	unlink(path);
	free(path);
}

/* Standard output sent to a file (`vsc record -o - > run.vsc`, or >>): a
 * recorder killed there left the shell's empty file, a valid empty trace
 * that `vsc check` called consistent. The mark goes where the trace will
 * start, and a recording that ends writes its trace from there. */
static void test_killed_into_stdout_file(void **state)
{
	(void)state;
	static const char before[] = "earlier output\n";
	char *path = tw_temp_path();
	FILE *f = fopen(path, "w");
	fclose(f);
	kill_while_recording(path, true);
	char *text = tw_slurp(path);
	assert_non_null(strstr(text, "# events: see end of trace\n"));
	assert_null(strstr(text, "# end of trace"));
	free(text);

	f = fopen(path, "w");
	fputs(before, f);
	fclose(f);
	/* as the shell's >> opens it: O_APPEND, the offset still 0 */
	FILE *out = fdopen(open(path, O_WRONLY | O_APPEND), "a");
	assert_non_null(out);
	struct trace_writer *w = NULL;
	assert_int_equal(trace_writer_open_stream(&w, out, NULL), 0);
	trace_writer_begin(w);
	add_stores(w, 7, 0, 3);
	assert_int_equal(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	fclose(out);
	text = tw_slurp(path);
	assert_int_equal(strncmp(text, before, strlen(before)), 0);
	assert_int_equal(strncmp(text + strlen(before), "vsc 1\n# vsc trace: observed", 27), 0);
	assert_null(strstr(text, "failed before its end"));
	assert_non_null(strstr(text, "\n# end of trace: events=3 lost=0 uncertain=0\n"));
	free(text);
	unlink(path);
	free(path);
}

/* A pipe cannot take the header at the end: counts say "see end of trace",
 * notes added after the first line come before the trailer. */
static void test_pipe_streams(void **state)
{
	(void)state;
	int fds[2];
	char buf[8192];
	assert_int_equal(pipe(fds), 0);
	FILE *out = fdopen(fds[1], "w");
	struct trace_writer *w = NULL;
	VSC_OPTS(trace_writer_opts, opts, .loss_mode = "block");
	assert_int_equal(trace_writer_open_stream(&w, out, &opts), 0);
	assert_int_equal(trace_writer_note(w, "early", "in the header"), 0);
	add_stores(w, 7, 0, 2);
	add_stores(w, 7, 5, 1);
	assert_int_equal(trace_writer_note(w, "late", "at the end"), 0);
	assert_int_equal(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	fclose(out);
	ssize_t n = read(fds[0], buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	close(fds[0]);
	assert_non_null(strstr(buf, "\n# events: see end of trace\n"));
	assert_non_null(strstr(buf, "\n# lost events: see end of trace\n"));
	assert_non_null(strstr(buf, "\n# loss mode: block\n# early: in the header\n7 w "));
	const char *end = "# late: at the end\n# end of trace: events=3 lost=3 uncertain=0\n";
	assert_string_equal(buf + n - strlen(end), end);
}

/* /dev/full: the error comes back, in the end at the latest. */
static void test_device_full(void **state)
{
	(void)state;
	struct trace_writer *w = NULL;
	assert_int_equal(trace_writer_open(&w, "/dev/full", NULL), 0);
	add_stores(w, 7, 0, 100000); /* more than the stdio buffer */
	assert_int_equal(trace_writer_error(w), -ENOSPC);
	assert_int_equal(trace_writer_finish(w, NULL), -ENOSPC);
	trace_writer_free(w);
}

/* A reader that went away: EPIPE, not a silent end (SIGPIPE ignored as the
 * recorder does). */
static void test_closed_pipe(void **state)
{
	(void)state;
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	close(fds[0]);
	signal(SIGPIPE, SIG_IGN);
	FILE *out = fdopen(fds[1], "w");
	struct trace_writer *w = NULL;
	assert_int_equal(trace_writer_open_stream(&w, out, NULL), 0);
	add_stores(w, 7, 0, 10);
	assert_int_equal(trace_writer_finish(w, NULL), -EPIPE);
	trace_writer_free(w);
	fclose(out);
	signal(SIGPIPE, SIG_DFL);
}

/* A file system that fills up (a file size limit in a child): the trace
 * is refused at the end and holds no trailer. */
static void test_disk_full(void **state)
{
	(void)state;
	char *path = tw_temp_path();
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct rlimit lim = { 1 << 20, 1 << 20 };
		signal(SIGXFSZ, SIG_IGN);
		struct trace_writer *w = NULL;
		if (trace_writer_open(&w, path, NULL))
			_exit(10);
		setrlimit(RLIMIT_FSIZE, &lim);
		for (uint64_t i = 0; i < 200000; i++) {
			struct vsc_capture_event e = tw_event(7, i, VSC_CAP_STORE, 0x10, 1, 0, 8);
			if (trace_writer_add(w, &e))
				_exit(11);
		}
		int err = trace_writer_finish(w, NULL);
		trace_writer_free(w);
		_exit(err == -EFBIG ? 0 : 12);
	}
	int status;
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	char *text = tw_slurp(path);
	assert_null(strstr(text, "# end of trace"));
	free(text);
	unlink(path);
	free(path);
}

static long max_rss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* 4 threads x 500,000 events interleaved, 2 M events (128 MB as capture
 * events): the writer's memory does not grow with them. */
static void test_memory_bounded(void **state)
{
	(void)state;
	enum {
		THREADS = 4,
		PER = 500000,
		CHUNK = 1000
	};
	char *path = tw_temp_path();
	struct trace_writer *w = NULL;
	VSC_OPTS(trace_writer_opts, opts, .no_timestamps = true);
	assert_int_equal(trace_writer_open(&w, path, &opts), 0);
	uint64_t next[THREADS + 1] = { 0 };
	add_stores(w, 1, 0, CHUNK); /* tables and buffers are set up */
	next[1] = CHUNK;
	long before = max_rss_kb();
	while (next[THREADS] < PER)
		for (uint32_t t = 1; t <= THREADS; t++) {
			add_stores(w, t, next[t], CHUNK);
			next[t] += CHUNK;
		}
	assert_int_equal(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	long grown_kb = max_rss_kb() - before;
	print_message("writer: peak RSS grew by %ld KiB over %d events\n", grown_kb, THREADS * PER);
	assert_true(grown_kb < 16 * 1024);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > (off_t)THREADS * PER * 10);
	unlink(path);
	free(path);
}

/* Fresh variables in every execution (a lab run) and a known initial value
 * for each: the variables of written executions are forgotten, so memory
 * does not grow with the number of variables either (it grew by about 250
 * bytes per variable before: 150 MB here). */
static int init_zero(void *ctx, uint32_t pid, uint64_t addr, uint32_t size, int64_t *value)
{
	(void)ctx, (void)pid, (void)addr, (void)size;
	*value = 0;
	return 1;
}

static void test_fresh_variables_bounded(void **state)
{
	(void)state;
	enum {
		SEGMENTS = 300000
	};
	struct trace_writer *w = NULL;
	VSC_OPTS(trace_writer_opts, opts, .no_timestamps = true, .held_limit = 1u << 20,
		 .naming = { .init_value = init_zero });
	assert_int_equal(trace_writer_open(&w, "/dev/null", &opts), 0);
	uint64_t seq[3] = { 0, 0, 0 };
	long before = 0;
	for (long i = 0; i < SEGMENTS; i++) {
		if (i == 100000) /* tables and held executions are at their size */
			before = max_rss_kb();
		for (uint32_t t = 1; t <= 2; t++) {
			uint64_t x = 0x100000 + (uint64_t)i * 8, y = x + (uint64_t)SEGMENTS * 8;
			struct vsc_capture_event evs[] = {
				tw_event(t, seq[t]++, VSC_CAP_SEGMENT, 0, i, 0, 0),
				tw_event(t, seq[t]++, VSC_CAP_STORE, t == 1 ? x : y, 1, 0, 4),
				tw_event(t, seq[t]++, VSC_CAP_LOAD, t == 1 ? y : x, 0, 0, 4),
			};
			for (size_t k = 0; k < 3; k++)
				assert_int_equal(trace_writer_add(w, &evs[k]), 0);
		}
	}
	assert_int_equal(trace_writer_lost(w), 0);
	assert_int_equal(trace_writer_finish(w, NULL), 0);
	trace_writer_free(w);
	long grown_kb = max_rss_kb() - before;
	print_message(
		"writer: peak RSS grew by %ld KiB over %d executions, 2 fresh variables each\n",
		grown_kb, SEGMENTS);
#if RSS_MEANINGFUL
	assert_true(grown_kb < 16 * 1024);
#else
	print_message(
		"writer: RSS not checked: AddressSanitizer keeps freed memory in quarantine\n");
#endif
}

/* Drop mode: every other batch of a thread is lost, so its window of early
 * events is never empty; it must not grow with every event that waited
 * (it did: 261 MB for an SPSC ring recorded with --lossy). */
static void test_holes_bounded(void **state)
{
	(void)state;
	enum {
		BATCH = 256,
		BATCHES = 16000
	};
	struct trace_writer *w = NULL;
	VSC_OPTS(trace_writer_opts, opts, .no_timestamps = true, .reorder_window = 1024);
	assert_int_equal(trace_writer_open(&w, "/dev/null", &opts), 0);
	long before = 0;
	for (uint64_t b = 0; b < BATCHES; b += 2) {
		if (b == 1000)
			before = max_rss_kb();
		for (uint64_t i = b * BATCH; i < (b + 1) * BATCH; i++) {
			struct vsc_capture_event e =
				tw_event(1, i, VSC_CAP_STORE, 0x1000, (int64_t)i, 0, 8);
			assert_int_equal(trace_writer_add(w, &e), 0);
		}
	}
	assert_int_equal(trace_writer_finish(w, NULL), 0);
	assert_int_equal(trace_writer_lost(w), (uint64_t)BATCHES / 2 * BATCH - BATCH);
	trace_writer_free(w);
	long grown_kb = max_rss_kb() - before;
	print_message("writer: peak RSS grew by %ld KiB over %d events with holes\n", grown_kb,
		      BATCHES / 2 * BATCH);
	assert_true(grown_kb < 16 * 1024);
}

/* The options struct's size rule (userspace/lib/opts.h): a newer caller's
 * field this writer does not know is refused, not dropped; no size at all
 * is refused too. */
static void test_opts_size(void **state)
{
	(void)state;
	struct {
		struct trace_writer_opts opts;
		uint64_t newer_field;
	} newer = { .opts = { .sz = sizeof(newer) }, .newer_field = 1 };
	struct trace_writer_opts unsized = { .no_timestamps = true };
	struct trace_writer *w = NULL;

	assert_int_equal(trace_writer_open(&w, "/dev/null", &newer.opts), -EINVAL);
	assert_null(w);
	assert_int_equal(trace_writer_open(&w, "/dev/null", &unsized), -EINVAL);
	newer.newer_field = 0; /* zero past what the writer knows: accepted */
	assert_int_equal(trace_writer_open(&w, "/dev/null", &newer.opts), 0);
	trace_writer_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fifo_keeps_its_mode),
		cmocka_unit_test(test_regular_file_is_0600),
		cmocka_unit_test(test_refused_and_failed),
		cmocka_unit_test(test_killed_after_begin),
		cmocka_unit_test(test_killed_into_stdout_file),
		cmocka_unit_test(test_pipe_streams),
		cmocka_unit_test(test_device_full),
		cmocka_unit_test(test_closed_pipe),
		cmocka_unit_test(test_disk_full),
		cmocka_unit_test(test_memory_bounded),
		cmocka_unit_test(test_fresh_variables_bounded),
		cmocka_unit_test(test_holes_bounded),
		cmocka_unit_test(test_opts_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
