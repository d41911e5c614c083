/* SPDX-License-Identifier: MIT */
/* The internal toolkit (userspace/util/): growable arrays, monotonic time,
 * the `vsc CMD:` message printer. */
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

#include "userspace/util/array.h"
#include "userspace/util/clock.h"
/* The printer and the option parser belong to the command, not to libvsc:
 * compile them in here. */
#include "userspace/util/diag.c"
#include "userspace/util/options.c"

static void test_array_grows(void **state)
{
	(void)state;
	uint64_t(*pairs)[2] = NULL;
	size_t cap = 0;

	for (size_t n = 0; n < 1000; n++) {
		assert_int_equal(ARRAY_RESERVE(pairs, cap, n + 1), 0);
		assert_true(cap >= n + 1);
		pairs[n][0] = n;
		pairs[n][1] = 2 * n;
	}
	assert_int_equal(cap, 1024); /* 16, doubled: the cost stays linear */
	for (size_t n = 0; n < 1000; n++)
		assert_int_equal(pairs[n][1], 2 * n);
	assert_int_equal(ARRAY_RESERVE(pairs, cap, 10), 0); /* enough room: unchanged */
	assert_int_equal(cap, 1024);
	free(pairs);
}

static void test_array_overflow(void **state)
{
	(void)state;
	int *small = NULL;
	size_t cap = 0;

	/* A byte count past SIZE_MAX is refused, and nothing changes. */
	assert_int_equal(ARRAY_RESERVE(small, cap, SIZE_MAX / 2), -ENOMEM);
	assert_null(small);
	assert_int_equal(cap, 0);
	assert_int_equal(array_reserve((void **)&small, &cap, SIZE_MAX, 1, 16), -ENOMEM);
	assert_int_equal(ARRAY_RESERVE(small, cap, 3), 0);
	assert_int_equal(cap, 16);
	assert_int_equal(array_reserve((void **)&small, &cap, 40, sizeof(*small), 16), 0);
	assert_int_equal(cap, 64);
	free(small);
}

static void test_clock(void **state)
{
	(void)state;
	uint64_t a = clock_now_ns();
	double s = clock_now_s();
	uint64_t b = clock_now_ns();

	assert_true(b >= a);
	assert_true(s * 1e9 >= (double)a - 1e3 && s * 1e9 <= (double)b + 1e3);
}

/* Runs fn with stderr sent to a buffer; returns what was written. */
static char *stderr_of(void (*fn)(void))
{
	static char text[512];
	FILE *file = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t n;

	assert_non_null(file);
	fflush(stderr);
	dup2(fileno(file), STDERR_FILENO);
	fn();
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(file);
	n = fread(text, 1, sizeof(text) - 1, file);
	text[n] = '\0';
	fclose(file);
	return text;
}

static void say_three(void)
{
	diag("gen sc", "need %d threads", 2);
	diag(NULL, "%s: no such file", "t.vsc");
	diag_parse_error(NULL, "t.vsc:2:4: expected 'r'");
}

static void test_diag(void **state)
{
	(void)state;
	assert_string_equal(stderr_of(say_three), "vsc gen sc: need 2 threads\n"
						  "vsc: t.vsc: no such file\n"
						  "t.vsc:2:4: expected 'r'\n");
}

#define SAMPLE_OPTIONS(X)                                               \
	X(OUTPUT, 'o', "output", "FILE", "write to FILE\nor to stdout") \
	X(QUIET, 0, "quiet", NULL, "say less")                          \
	X(HIDDEN, 'h', "help", NULL, NULL)

enum {
	SAMPLE_OPTIONS(OPTION_ID)
};
static const struct option_spec sample[] = { SAMPLE_OPTIONS(OPTION_SPEC) };

static void test_options_parse(void **state)
{
	(void)state;
	char *argv[] = { "cmd", "--quiet", "-o", "a.vsc", "--output=b.vsc", "in", "-h", NULL };
	struct options_parser p;
	const char *last_output = NULL;
	int quiet = 0, help = 0, opt;

	options_start(&p, sample, OPTIONS_COUNT(sample));
	while ((opt = options_next(&p, 7, argv)) != OPTIONS_END) {
		switch (opt) {
		case OPT_OUTPUT:
			last_output = optarg;
			break;
		case OPT_QUIET:
			quiet++;
			break;
		case OPT_HIDDEN:
			help++;
			break;
		default:
			fail();
		}
	}
	assert_int_equal(quiet, 1);
	assert_int_equal(help, 1);
	assert_string_equal(last_output, "b.vsc");
	assert_int_equal(optind, 6); /* getopt moved the operand last */
	assert_string_equal(argv[optind], "in");
}

static void test_options_bad(void **state)
{
	(void)state;
	char *unknown[] = { "cmd", "--bogus", NULL };
	char *missing[] = { "cmd", "-o", NULL };
	struct options_parser p;

	opterr = 0;
	options_start(&p, sample, OPTIONS_COUNT(sample));
	assert_int_equal(options_next(&p, 2, unknown), OPTIONS_BAD);
	options_start(&p, sample, OPTIONS_COUNT(sample));
	assert_int_equal(options_next(&p, 2, missing), OPTIONS_BAD);
	opterr = 1;
}

static void print_sample_usage(void)
{
	options_usage(stderr, sample, OPTIONS_COUNT(sample));
}

static void test_options_usage(void **state)
{
	(void)state;
	assert_string_equal(stderr_of(print_sample_usage), "  -o, --output FILE    write to FILE\n"
							   "                       or to stdout\n"
							   "      --quiet          say less\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_array_grows),   cmocka_unit_test(test_array_overflow),
		cmocka_unit_test(test_clock),         cmocka_unit_test(test_diag),
		cmocka_unit_test(test_options_parse), cmocka_unit_test(test_options_bad),
		cmocka_unit_test(test_options_usage),
	};
	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
