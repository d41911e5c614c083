/* SPDX-License-Identifier: MIT */
/* The one rule for options structs (userspace/lib/opts.h), directly and
 * through every public function that takes one: an older caller's fields are
 * used, a newer caller's unknown fields must be zero, a size too small for
 * the size field is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opts.h"
#include "testutil.h"

/* Consistent with one preemption, not with none. */
static const char needs_one[] = "vsc 1\ninit x 0\nT1 w x 1\nT1 r x 2\nT2 w x 2\n";
static const char bad_line[] = "vsc 1\nT1 q x 1\n";

/* What a caller built against a newer libvsc passes: the struct it knows,
 * then a field this library has never heard of. */
struct newer_check_opts {
	struct vsc_check_opts known;
	uint64_t future;
};
struct newer_parse_opts {
	struct vsc_parse_opts known;
	uint64_t future;
};

/* The vsc_parse_opts of a caller built before max_errors existed. */
static const size_t older_parse_sz = offsetof(struct vsc_parse_opts, max_errors);

struct first_message {
	char text[256];
	int count;
};

static void keep_first(void *ctx, const char *message)
{
	struct first_message *m = ctx;

	if (m->count++ == 0)
		snprintf(m->text, sizeof(m->text), "%s", message);
}

static void test_load_rule(void **state)
{
	(void)state;
	struct vsc_check_opts dst;
	struct newer_check_opts newer = { .known = { .sz = sizeof(newer), .minimize = true } };
	struct vsc_check_opts older = { .sz = offsetof(struct vsc_check_opts, minimize),
					.bounded = true,
					.preemptions = 3,
					.minimize = true };

	assert_int_equal(OPTS_LOAD(dst, NULL), 0);
	assert_int_equal(dst.sz, sizeof(dst));
	assert_false(dst.bounded);

	assert_int_equal(OPTS_LOAD(dst, &older), 0);
	assert_int_equal(dst.sz, sizeof(dst));
	assert_true(dst.bounded);
	assert_int_equal(dst.preemptions, 3);
	assert_false(dst.minimize); /* past the older caller's size: default */

	assert_int_equal(OPTS_LOAD(dst, &newer.known), 0);
	assert_true(dst.minimize);
	assert_int_equal(dst.sz, sizeof(dst));
	newer.future = 1;
	assert_int_equal(OPTS_LOAD(dst, &newer.known), -EINVAL);

	older.sz = sizeof(size_t) - 1;
	assert_int_equal(OPTS_LOAD(dst, &older), -EINVAL);
	older.sz = 0;
	assert_int_equal(OPTS_LOAD(dst, &older), -EINVAL);
}

static int check_with(const struct vsc_check_opts *opts, enum vsc_verdict *verdict)
{
	struct vsc_trace *trace = parse_text(needs_one, NULL);
	struct vsc_result *res = NULL;
	int err;

	assert_non_null(trace);
	err = vsc_check(only_program(trace), opts, &res);
	if (!err)
		*verdict = vsc_result_verdict(res);
	vsc_result_free(res);
	vsc_trace_free(trace);
	return err;
}

static void test_check(void **state)
{
	(void)state;
	enum vsc_verdict verdict = VSC_UNKNOWN;
	struct newer_check_opts newer = {
		.known = { .sz = sizeof(newer), .bounded = true, .preemptions = 0 },
	};
	/* An older caller that knew only the bound: its bound holds, and the
	 * solver name past its size is not read. */
	struct vsc_check_opts older = { .sz = offsetof(struct vsc_check_opts, minimize),
					.bounded = true,
					.preemptions = 0,
					.solver = "no such solver" };

	assert_int_equal(check_with(NULL, &verdict), 0);
	assert_int_equal(verdict, VSC_CONSISTENT);
	assert_int_equal(check_with(&older, &verdict), 0);
	assert_int_equal(verdict, VSC_INCONSISTENT);
	assert_int_equal(check_with(&newer.known, &verdict), 0);
	assert_int_equal(verdict, VSC_INCONSISTENT);
	newer.future = 1;
	assert_int_equal(check_with(&newer.known, &verdict), -EINVAL);
	older.sz = 0;
	assert_int_equal(check_with(&older, &verdict), -EINVAL);
}

static void test_explain(void **state)
{
	(void)state;
	struct vsc_trace *trace = parse_text(needs_one, NULL);
	struct newer_check_opts newer = {
		.known = { .sz = sizeof(newer), .bounded = true, .preemptions = 0 },
	};
	struct vsc_core *core = NULL;

	assert_non_null(trace);
	assert_int_equal(vsc_explain(only_program(trace), &newer.known, &core), 0);
	assert_non_null(core);
	vsc_core_free(core);
	core = NULL;
	newer.future = 7;
	assert_int_equal(vsc_explain(only_program(trace), &newer.known, &core), -EINVAL);
	assert_null(core);
	vsc_trace_free(trace);
}

/* Parse bad_line three ways (buffer, stream, file) with opts; returns how
 * many of them failed with errno EINVAL and no message at all. */
static void parse_three_ways(const struct vsc_parse_opts *opts, struct first_message *m,
			     int *refused)
{
	char path[] = "/tmp/vsc-test-opts-XXXXXX";
	int fd = mkstemp(path);
	FILE *stream = fmemopen((void *)bad_line, sizeof(bad_line) - 1, "r");
	struct vsc_trace *trace;

	assert_true(fd >= 0);
	assert_non_null(stream);
	assert_int_equal(write(fd, bad_line, sizeof(bad_line) - 1),
			 (ssize_t)(sizeof(bad_line) - 1));
	close(fd);
	*refused = 0;

	trace = vsc_trace_parse_buffer(bad_line, sizeof(bad_line) - 1, opts);
	assert_null(trace);
	*refused += errno == EINVAL && m->count == 0;
	trace = vsc_trace_parse_stream(stream, opts);
	assert_null(trace);
	*refused += errno == EINVAL && m->count == 0;
	trace = vsc_trace_parse_file(path, opts);
	assert_null(trace);
	*refused += errno == EINVAL && m->count == 0;
	fclose(stream);
	unlink(path);
}

static void test_parse_older_caller(void **state)
{
	(void)state;
	struct first_message m = { .count = 0 };
	struct vsc_parse_opts older = {
		.sz = older_parse_sz,
		.filename = "old.vsc",
		.on_error = keep_first,
		.error_ctx = &m,
	};
	int refused;

	/* Each of the three entry points reports through the older caller's
	 * handler, under its file name (they were all dropped before). */
	parse_three_ways(&older, &m, &refused);
	assert_int_equal(refused, 0);
	assert_int_equal(m.count, 3);
	assert_memory_equal(m.text, "old.vsc:2:", strlen("old.vsc:2:"));
}

static void test_parse_newer_caller(void **state)
{
	(void)state;
	struct first_message m = { .count = 0 };
	struct newer_parse_opts newer = {
		.known = { .sz = sizeof(newer),
			   .filename = "new.vsc",
			   .on_error = keep_first,
			   .error_ctx = &m },
	};
	int refused;

	parse_three_ways(&newer.known, &m, &refused);
	assert_int_equal(refused, 0);
	assert_int_equal(m.count, 3);
	assert_memory_equal(m.text, "new.vsc:2:", strlen("new.vsc:2:"));

	newer.future = 1;
	m.count = 0;
	parse_three_ways(&newer.known, &m, &refused);
	assert_int_equal(refused, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_rule),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_parse_older_caller),
		cmocka_unit_test(test_parse_newer_caller),
	};
	return cmocka_run_group_tests_name("opts", tests, NULL, NULL);
}
