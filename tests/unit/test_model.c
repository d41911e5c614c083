/* SPDX-License-Identifier: MIT */
/* The program model through its public API: building, accessors at and past
 * their ends, writers, timestamps and lines, and the text writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static void test_build(void **state)
{
	(void)state;
	struct vsc_program *p = vsc_program_new();
	struct vsc_event w = { .kind = VSC_WRITE, .var = 0, .value = 5 };
	struct vsc_event r = { .kind = VSC_READ, .var = 1, .value = -1 };
	struct vsc_event u = { .kind = VSC_RMW, .var = 0, .value = 5, .new_value = 6 };
	int64_t v = 0;

	assert_non_null(p);
	assert_int_equal(vsc_program_thread_count(p), 0);
	assert_int_equal(vsc_program_event_count(p), 0);
	assert_int_equal(vsc_program_writers(p), 0);
	assert_null(vsc_program_name(p));
	assert_int_equal(vsc_program_add_thread(p, "A"), 0);
	assert_int_equal(vsc_program_add_thread(p, "B"), 1);
	assert_int_equal(vsc_program_add_thread(p, "A"), 0); /* the same name, the same thread */
	assert_int_equal(vsc_program_add_thread(p, ""), -EINVAL);
	assert_int_equal(vsc_program_add_thread(p, NULL), -EINVAL);
	assert_int_equal(vsc_program_add_thread(NULL, "C"), -EINVAL);
	assert_int_equal(vsc_program_add_var(p, "x"), 0);
	assert_int_equal(vsc_program_add_var(p, "y"), 1);
	assert_int_equal(vsc_program_add_var(p, "x"), 0);
	assert_int_equal(vsc_program_add_var(p, ""), -EINVAL);
	assert_int_equal(vsc_program_thread_count(p), 2);
	assert_int_equal(vsc_program_var_count(p), 2);

	assert_int_equal(vsc_program_set_init(p, 0, VSC_INIT_KNOWN, 5), 0);
	assert_int_equal(vsc_program_set_init(p, 1, VSC_INIT_UNKNOWN, 99), 0);
	assert_int_equal(vsc_program_set_init(p, 2, VSC_INIT_KNOWN, 1), -EINVAL);
	assert_int_equal(vsc_program_set_init(p, 0, (enum vsc_init)7, 1), -EINVAL);
	assert_int_equal(vsc_program_var_init(p, 0, &v), VSC_INIT_KNOWN);
	assert_int_equal(v, 5);
	assert_int_equal(vsc_program_var_init(p, 1, NULL), VSC_INIT_UNKNOWN);
	assert_int_equal(vsc_program_var_init(p, 2, &v), -EINVAL);

	assert_int_equal(vsc_program_append(p, 0, &w, 10), 0);
	assert_int_equal(vsc_program_append(p, 1, &r, 0), 0);
	assert_int_equal(vsc_program_append(p, 0, &u, 30), 0);
	assert_int_equal(vsc_program_append(p, 2, &w, 0), -EINVAL); /* no such thread */
	struct vsc_event bad_var = { .kind = VSC_WRITE, .var = 2 };
	assert_int_equal(vsc_program_append(p, 0, &bad_var, 0), -EINVAL);
	struct vsc_event bad_kind = { .kind = 3, .var = 0 };
	assert_int_equal(vsc_program_append(p, 0, &bad_kind, 0), -EINVAL);
	assert_int_equal(vsc_program_append(p, 0, NULL, 0), -EINVAL);

	assert_int_equal(vsc_program_event_count(p), 3);
	assert_int_equal(vsc_program_thread_length(p, 0), 2);
	assert_int_equal(vsc_program_thread_length(p, 1), 1);
	assert_int_equal(vsc_program_thread_length(p, 2), 0);
	assert_null(vsc_program_thread_name(p, 2));
	assert_null(vsc_program_var_name(p, 2));
	assert_null(vsc_program_events(p, 2));
	assert_int_equal(vsc_program_events(p, 0)[1].new_value, 6);
	assert_int_equal(vsc_program_event_ts(p, 0, 0), 10);
	assert_int_equal(vsc_program_event_ts(p, 0, 1), 30);
	assert_int_equal(vsc_program_event_ts(p, 1, 0), 0);
	assert_int_equal(vsc_program_event_ts(p, 0, 2), 0);
	assert_int_equal(vsc_program_event_ts(p, 5, 0), 0);
	assert_int_equal(vsc_program_event_line(p, 0, 0), 0); /* built by the API */
	assert_int_equal(vsc_program_event_line(p, 9, 9), 0);
	assert_int_equal(vsc_program_writers(p), 1);
	vsc_program_free(p);
	vsc_program_free(NULL);
	vsc_trace_free(NULL);
}

static void test_writers(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		size_t writers;
	} cases[] = {
		{ "", 0 },
		{ "T1 r x 1\nT2 r x 1\n", 0 },
		{ "init x 0\nT1 r x 0\n", 0 },           /* init is not a writer */
		{ "T1 w x 1\nT1 w x 2\nT2 r x 1\n", 1 }, /* one thread, many writes */
		{ "T1 w x 1\nT2 w y 1\nT3 w z 1\n", 1 }, /* one writer per variable */
		{ "T1 w x 1\nT2 w x 2\n", 2 },
		{ "T1 w x 1\nT2 u x 1 2\nT3 r x 2\n", 2 }, /* an RMW writes */
		{ "T1 w x 1\nT2 w x 1\nT3 w x 1\nT4 w y 1\nT5 w y 1\n", 3 },
		{ "T1 w x 1\nT1 w y 1\nT2 w y 2\nT2 w x 2\nT3 w y 3\n", 3 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vsc_trace *trace = parse_text(cases[i].text, NULL);
		assert_non_null(trace);
		if (vsc_program_writers(only_program(trace)) != cases[i].writers)
			fail_msg("'%s': %zu writers, expected %zu", cases[i].text,
				 vsc_program_writers(only_program(trace)), cases[i].writers);
		vsc_trace_free(trace);
	}
}

static void test_lines(void **state)
{
	(void)state;
	struct vsc_trace *trace = parse_text("# c\n\nT1 w x 1\r\nT2 r x 1\n# c\nT1 w x 2\n", NULL);
	const struct vsc_program *p = only_program(trace);
	assert_int_equal(vsc_program_event_line(p, 0, 0), 3);
	assert_int_equal(vsc_program_event_line(p, 1, 0), 4);
	assert_int_equal(vsc_program_event_line(p, 0, 1), 6);
	vsc_trace_free(trace);
	/* lines count from the top of the file, across segments */
	trace = parse_text("segment a\nT1 w x 1\nsegment b\n\nT1 w x 1\n", NULL);
	assert_int_equal(vsc_program_event_line(vsc_trace_program(trace, 1), 0, 0), 5);
	vsc_trace_free(trace);
}

static void test_write(void **state)
{
	(void)state;
	const char *text = "vsc 1\n"
			   "init x -9223372036854775808\n"
			   "init y ?\n"
			   "T1 w x 1 @5\n"
			   "T1 u x 1 9223372036854775807\n"
			   "tid:2 r y 7\n";
	struct vsc_trace *trace = parse_text(text, NULL);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(vsc_program_write(only_program(trace), f), 0);
	fclose(f);
	assert_string_equal(out, text);
	free(out);
	vsc_trace_free(trace);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_writers),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_write),
	};
	return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
