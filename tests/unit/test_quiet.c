/* SPDX-License-Identifier: MIT */
/* The library never prints and never reads the environment: parse errors
 * without a handler and search statistics (even with VSC_STATS set, which
 * only the command reads) leave stderr empty; the statistics are in the
 * result instead. */
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

#include "testutil.h"

/* Consistent with one preemption, not with none: the search has work to do. */
/* two variables: one variable alone is decided before the search
 * (hot_bound.c meets the witness), which counts no steps */
static const char needs_one[] =
	"vsc 1\ninit x 0\ninit y 0\nT1 w x 1\nT1 w y 1\nT1 r x 2\nT2 w x 2\nT2 r y 1\n";

struct captured {
	int saved_fd;
	FILE *file;
};

static void capture_stderr(struct captured *c)
{
	fflush(stderr);
	c->file = tmpfile();
	assert_non_null(c->file);
	c->saved_fd = dup(STDERR_FILENO);
	assert_true(c->saved_fd >= 0);
	assert_int_equal(dup2(fileno(c->file), STDERR_FILENO), STDERR_FILENO);
}

/* Restores stderr; returns how many bytes were written to it meanwhile. */
static long release_stderr(struct captured *c)
{
	struct stat st;

	fflush(stderr);
	assert_int_equal(dup2(c->saved_fd, STDERR_FILENO), STDERR_FILENO);
	close(c->saved_fd);
	assert_int_equal(fstat(fileno(c->file), &st), 0);
	fclose(c->file);
	return (long)st.st_size;
}

static void test_parse_error_unprinted(void **state)
{
	(void)state;
	static const char bad[] = "vsc 1\nT1 q x 1\n";
	struct captured c;
	struct vsc_trace *trace;
	int saved_errno;

	capture_stderr(&c);
	trace = vsc_trace_parse_buffer(bad, sizeof(bad) - 1, NULL);
	saved_errno = errno;
	assert_int_equal(release_stderr(&c), 0);
	assert_null(trace);
	assert_int_equal(saved_errno, EINVAL);
}

static void test_stats_in_result(void **state)
{
	(void)state;
	VSC_OPTS(vsc_check_opts, opts, .minimize = true);
	struct vsc_trace *trace = parse_text(needs_one, NULL);
	struct vsc_result *res = NULL;
	struct captured c;

	assert_non_null(trace);
	assert_int_equal(setenv("VSC_STATS", "1", 1), 0);
	capture_stderr(&c);
	assert_int_equal(vsc_check(only_program(trace), &opts, &res), 0);
	assert_int_equal(release_stderr(&c), 0);
	unsetenv("VSC_STATS");
	assert_string_equal(vsc_result_solver(res), "auto");
	assert_int_equal(vsc_result_verdict(res), VSC_CONSISTENT);
	assert_true(vsc_result_steps(res) > 0);
	vsc_result_free(res);
	vsc_trace_free(trace);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_error_unprinted),
		cmocka_unit_test(test_stats_in_result),
	};
	return cmocka_run_group_tests_name("quiet", tests, NULL, NULL);
}
