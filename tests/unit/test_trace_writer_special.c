/* SPDX-License-Identifier: MIT */
/*
 * vsc_trace_writer_write_file() makes the files it writes 0600, but only
 * regular files: a FIFO or device (`vsc record -o /dev/null` as root) keeps
 * its mode. Found when a benchmark made /dev/null 0600 for the machine.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "trace_writer.h"

static void test_fifo_keeps_its_mode(void **state)
{
	(void)state;
	char dir[] = "/tmp/vsc-tw-special.XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_int_equal(chmod(path, 0644), 0); /* whatever the umask */
	int reader = open(path, O_RDONLY | O_NONBLOCK);
	assert_true(reader >= 0);

	struct vsc_trace_writer *w = vsc_trace_writer_new(NULL);
	assert_non_null(w);
	struct vsc_capture_event ev = { .seq = 0, .addr = 0x1000, .value = 1, .tid = 7,
					.pid = 7, .kind = VSC_CAP_STORE, .size = 8 };
	assert_int_equal(vsc_trace_writer_add(w, &ev), 0);
	assert_int_equal(vsc_trace_writer_write_file(w, path), 0);

	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0644);

	char buf[4096];
	assert_true(read(reader, buf, sizeof(buf)) > 0); /* the trace went through */
	close(reader);
	vsc_trace_writer_free(w);
	unlink(path);
	rmdir(dir);
}

static void test_regular_file_is_0600(void **state)
{
	(void)state;
	char path[] = "/tmp/vsc-tw-regular.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(fchmod(fd, 0644), 0);
	close(fd);
	struct vsc_trace_writer *w = vsc_trace_writer_new(NULL);
	assert_non_null(w);
	assert_int_equal(vsc_trace_writer_write_file(w, path), 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	vsc_trace_writer_free(w);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fifo_keeps_its_mode),
		cmocka_unit_test(test_regular_file_is_0600),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
