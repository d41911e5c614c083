/* SPDX-License-Identifier: MIT */
/* The text trace parser: every error kind with its FILE:LINE:COL position,
 * and every valid form of CONTRACT.md section 1. */
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

/* Parse text that must fail; the first message must start with prefix
 * ("t.vsc:LINE:COL: ") and contain word. */
static void check_error_bytes(const char *buf, size_t len, const char *prefix, const char *word)
{
	struct messages m;
	struct vsc_trace *trace;

	errno = 0;
	trace = parse_bytes(buf, len, &m);
	if (trace || m.count < 1 || strncmp(m.text[0], prefix, strlen(prefix)) != 0 ||
	    !strstr(m.text[0], word)) {
		fprintf(stderr, "input: '%.*s'\nwanted: %s...%s\ngot %d messages, first: %s\n",
			(int)(len > 200 ? 200 : len), buf, prefix, word, m.count,
			m.count ? m.text[0] : "(none)");
		fail();
	}
	assert_int_equal(errno, EINVAL);
}

static void check_error(const char *text, const char *prefix, const char *word)
{
	check_error_bytes(text, strlen(text), prefix, word);
}

/* Parse bytes that must be fine, with no message. */
static struct vsc_trace *parse_ok_bytes(const char *buf, size_t len)
{
	struct messages m;
	struct vsc_trace *trace = parse_bytes(buf, len, &m);
	if (!trace || m.count) {
		fprintf(stderr, "input: '%.*s'\nfirst message: %s\n", (int)(len > 200 ? 200 : len),
			buf, m.count ? m.text[0] : "(none)");
		fail();
	}
	return trace;
}

static struct vsc_trace *parse_ok(const char *text)
{
	return parse_ok_bytes(text, strlen(text));
}

static void test_valid_basic(void **state)
{
	(void)state;
	struct vsc_trace *trace = parse_ok("vsc 1\n"
					   "# a comment\n"
					   "init x 0\n"
					   "init flag ?\n"
					   "T1 w x 1 @100\n"
					   "\n"
					   "tid:42 r flag 7   # trailing comment\n"
					   "T1\tu\tx\t1\t2\n"
					   "tid:42 r x 0x2a\n");
	const struct vsc_program *p = only_program(trace);
	const struct vsc_event *e;
	int64_t v = 99;

	assert_non_null(p);
	assert_null(vsc_program_name(p));
	assert_int_equal(vsc_program_thread_count(p), 2);
	assert_string_equal(vsc_program_thread_name(p, 0), "T1");
	assert_string_equal(vsc_program_thread_name(p, 1), "tid:42");
	assert_int_equal(vsc_program_thread_length(p, 0), 2);
	assert_int_equal(vsc_program_thread_length(p, 1), 2);
	assert_int_equal(vsc_program_event_count(p), 4);
	assert_int_equal(vsc_program_var_count(p), 2);
	assert_string_equal(vsc_program_var_name(p, 0), "x");
	assert_string_equal(vsc_program_var_name(p, 1), "flag");
	assert_int_equal(vsc_program_var_init(p, 0, &v), VSC_INIT_KNOWN);
	assert_int_equal(v, 0);
	assert_int_equal(vsc_program_var_init(p, 1, NULL), VSC_INIT_UNKNOWN);
	e = vsc_program_events(p, 0);
	assert_int_equal(e[0].kind, VSC_WRITE);
	assert_int_equal(e[0].var, 0);
	assert_int_equal(e[0].value, 1);
	assert_int_equal(e[1].kind, VSC_RMW);
	assert_int_equal(e[1].value, 1);
	assert_int_equal(e[1].new_value, 2);
	e = vsc_program_events(p, 1);
	assert_int_equal(e[0].kind, VSC_READ);
	assert_int_equal(e[0].var, 1);
	assert_int_equal(e[0].value, 7);
	assert_int_equal(e[1].value, 42);
	assert_int_equal(vsc_program_event_ts(p, 0, 0), 100);
	assert_int_equal(vsc_program_event_ts(p, 0, 1), 0);
	assert_int_equal(vsc_program_event_ts(p, 1, 0), 0);
	assert_int_equal(vsc_program_event_line(p, 0, 0), 5);
	assert_int_equal(vsc_program_event_line(p, 1, 0), 7);
	assert_int_equal(vsc_program_event_line(p, 0, 1), 8);
	assert_int_equal(vsc_program_writers(p), 1);
	assert_int_equal(vsc_trace_lost_events(trace), 0);
	vsc_trace_free(trace);
}

static void test_empty_inputs(void **state)
{
	(void)state;
	const char *empties[] = { "",
				  "\n",
				  "# only a comment\n",
				  "  \t \n\n# x\n",
				  "vsc 1\n",
				  "# header\nvsc 1\n",
				  "\r\n",
				  "# no newline at the end" };
	for (size_t i = 0; i < sizeof(empties) / sizeof(empties[0]); i++) {
		struct vsc_trace *trace = parse_ok(empties[i]);
		const struct vsc_program *p = only_program(trace);
		assert_non_null(p);
		assert_int_equal(vsc_program_thread_count(p), 0);
		assert_int_equal(vsc_program_event_count(p), 0);
		assert_int_equal(vsc_program_writers(p), 0);
		vsc_trace_free(trace);
	}
}

static void test_bad_op(void **state)
{
	(void)state;
	check_error("T1 x x 1\n", "t.vsc:1:4: ", "'x'");
	check_error("T1 W x 1\n", "t.vsc:1:4: ", "'W'");
	check_error("T1 rw x 1\n", "t.vsc:1:4: ", "'rw'");
	check_error("T1 w x 1\nT1 read x 1\n", "t.vsc:2:4: ", "'read'");
	check_error("w x 1\n", "t.vsc:1:3: ", "");
	check_error("T1\n", "t.vsc:1:1: ", "");
	check_error("  T1 q\n", "t.vsc:1:6: ", "'q'");
}

static void test_missing_fields(void **state)
{
	(void)state;
	check_error("T1 w x\n", "t.vsc:1:7: ", "variable and a value");
	check_error("T1 r\n", "t.vsc:1:5: ", "variable and a value");
	check_error("T1 u x 1\n", "t.vsc:1:9: ", "old and a new value");
	check_error("T1 u x\n", "t.vsc:1:7: ", "old and a new value");
	check_error("T1 w x @5\n", "t.vsc:1:8: ", "value");
	check_error("init x\n", "t.vsc:1:1: ", "init");
	check_error("init\n", "t.vsc:1:1: ", "init");
	check_error("segment\n", "t.vsc:1:1: ", "segment");
}

static void test_too_many_fields(void **state)
{
	(void)state;
	check_error("T1 w x 1 2\n", "t.vsc:1:10: ", "'2'");
	check_error("T1 r x 1 @5 @6\n", "t.vsc:1:10: ", "'@5'");
	check_error("T1 u x 1 2 3\n", "t.vsc:1:12: ", "'3'");
	check_error("T1 w x 1 2 3 4 5 6\n", "t.vsc:1:", "");
	check_error("init x 1 2\n", "t.vsc:1:1: ", "init");
	check_error("segment a b\n", "t.vsc:1:1: ", "segment");
	check_error("vsc 1 2\n", "t.vsc:1:", "");
}

static void test_bad_names(void **state)
{
	(void)state;
	check_error("T$ w x 1\n", "t.vsc:1:2: ", "thread");
	check_error("T1 w x/y 1\n", "t.vsc:1:7: ", "variable");
	check_error("T1 w x[0] 1\n", "t.vsc:1:7: ", "variable");
	check_error("init a,b 1\n", "t.vsc:1:7: ", "variable");
	check_error("segment r@n\n", "t.vsc:1:10: ", "segment");
	check_error("T1 w x \"1\"\n", "t.vsc:1:8: ", "value");
}

static void test_name_lengths(void **state)
{
	(void)state;
	char line[512], name64[65], name65[66];

	memset(name64, 'a', 64);
	name64[64] = '\0';
	memset(name65, 'b', 65);
	name65[65] = '\0';
	snprintf(line, sizeof(line), "%s w %s 1\nsegment %s\n%s r %s 1\n", name64, name64, name64,
		 name64, name64);
	struct vsc_trace *trace = parse_ok(line);
	assert_int_equal(vsc_trace_program_count(trace), 2);
	assert_string_equal(vsc_program_thread_name(vsc_trace_program(trace, 0), 0), name64);
	assert_string_equal(vsc_program_name(vsc_trace_program(trace, 1)), name64);
	vsc_trace_free(trace);

	snprintf(line, sizeof(line), "%s w x 1\n", name65);
	check_error(line, "t.vsc:1:1: ", "65 characters");
	snprintf(line, sizeof(line), "T1 w %s 1\n", name65);
	check_error(line, "t.vsc:1:6: ", "65 characters");
	snprintf(line, sizeof(line), "init %s 1\n", name65);
	check_error(line, "t.vsc:1:6: ", "65 characters");
	snprintf(line, sizeof(line), "segment %s\n", name65);
	check_error(line, "t.vsc:1:9: ", "65 characters");
}

static int64_t one_value(const char *token)
{
	char line[128];
	snprintf(line, sizeof(line), "T1 w x %s\n", token);
	struct vsc_trace *trace = parse_ok(line);
	int64_t v = vsc_program_events(only_program(trace), 0)[0].value;
	vsc_trace_free(trace);
	return v;
}

static void test_values(void **state)
{
	(void)state;
	assert_true(one_value("0") == 0);
	assert_true(one_value("-0") == 0);
	assert_true(one_value("42") == 42);
	assert_true(one_value("-3") == -3);
	assert_true(one_value("007") == 7);
	assert_true(one_value("9223372036854775807") == INT64_MAX);
	assert_true(one_value("-9223372036854775808") == INT64_MIN);
	assert_true(one_value("0x2a") == 42);
	assert_true(one_value("0X2A") == 42);
	assert_true(one_value("0xfF") == 255);
	assert_true(one_value("-0x2a") == -42);
	assert_true(one_value("0x7fffffffffffffff") == INT64_MAX);
	assert_true(one_value("-0x8000000000000000") == INT64_MIN);
	assert_true(one_value("0x00000000000000000000000001") == 1);
	assert_true(one_value("00000000000000000000000000000000042") == 42);

	check_error("T1 w x 9223372036854775808\n", "t.vsc:1:8: ", "64-bit");
	check_error("T1 w x -9223372036854775809\n", "t.vsc:1:8: ", "64-bit");
	check_error("T1 w x 99999999999999999999999\n", "t.vsc:1:8: ", "64-bit");
	check_error("T1 w x 18446744073709551616\n", "t.vsc:1:8: ", "64-bit");
	check_error("T1 w x 0x8000000000000000\n", "t.vsc:1:8: ", "64-bit");
	check_error("T1 w x -0x8000000000000001\n", "t.vsc:1:8: ", "64-bit");
	check_error("T1 w x 0x10000000000000000\n", "t.vsc:1:8: ", "64-bit");
	check_error("T1 u x 0 9223372036854775808\n", "t.vsc:1:10: ", "64-bit");
	check_error("init x -9223372036854775809\n", "t.vsc:1:8: ", "64-bit");
	check_error("T1 w x 0x\n", "t.vsc:1:8: ", "value");
	check_error("T1 w x -0x\n", "t.vsc:1:8: ", "value");
	check_error("T1 w x -\n", "t.vsc:1:8: ", "value");
	check_error("T1 w x --1\n", "t.vsc:1:8: ", "value");
	check_error("T1 w x +5\n", "t.vsc:1:8: ", "value");
	check_error("T1 w x 0x1g\n", "t.vsc:1:8: ", "value");
	check_error("T1 w x 1e3\n", "t.vsc:1:8: ", "value");
	check_error("T1 w x 1.0\n", "t.vsc:1:8: ", "value");
	check_error("T1 w x x\n", "t.vsc:1:8: ", "value");
	check_error("T1 w x 0b1\n", "t.vsc:1:8: ", "value");
	check_error("T1 u x 1 y\n", "t.vsc:1:10: ", "value");
	check_error("init x ??\n", "t.vsc:1:8: ", "value");
	check_error("init x -?\n", "t.vsc:1:8: ", "value");
}

static void test_timestamps(void **state)
{
	(void)state;
	struct vsc_trace *trace = parse_ok("T1 w x 1 @0\nT1 w x 2 @18446744073709551615\n"
					   "T1 u x 2 3 @7\n");
	const struct vsc_program *p = only_program(trace);
	assert_int_equal(vsc_program_thread_length(p, 0), 3);
	assert_true(vsc_program_event_ts(p, 0, 1) == UINT64_MAX);
	assert_int_equal(vsc_program_event_ts(p, 0, 2), 7);
	vsc_trace_free(trace);

	check_error("T1 w x 1 @\n", "t.vsc:1:10: ", "timestamp");
	check_error("T1 w x 1 @12a\n", "t.vsc:1:13: ", "timestamp");
	check_error("T1 w x 1 @-5\n", "t.vsc:1:11: ", "timestamp");
	check_error("T1 w x 1 @0x10\n", "t.vsc:1:12: ", "timestamp");
	check_error("T1 w x 1 @18446744073709551616\n", "t.vsc:1:10: ", "64");
	check_error("T1 w x 1 @@5\n", "t.vsc:1:11: ", "timestamp");
	/* a u event has room for no timestamp in its value fields */
	check_error("T1 u x 1 @5\n", "t.vsc:1:10: ", "value");
}

static void test_bad_bytes(void **state)
{
	(void)state;
	check_error_bytes("T1 w x 1\0\n", 10, "t.vsc:1:9: ", "NUL");
	check_error_bytes("T1 w x 1\nT1\0 w x 1\n", 19, "t.vsc:2:3: ", "NUL");
	check_error_bytes("\0\0\0\0", 4, "t.vsc:1:1: ", "NUL");
	check_error("T1 w x \xc3\xa9\n", "t.vsc:1:8: ", "0xc3");
	check_error("T\xff w x 1\n", "t.vsc:1:2: ", "0xff");
	check_error("T1 w x 1\x7f\n", "t.vsc:1:9: ", "0x7f");
	check_error("T1 w x 1\rT1 r x 1\n", "t.vsc:1:9: ", "0x0d");
	check_error("T1 w x 1\r \n", "t.vsc:1:9: ", "0x0d");
	check_error("T1\vw x 1\n", "t.vsc:1:3: ", "0x0b");
	check_error("\x1b[31mT1 w x 1\n", "t.vsc:1:1: ", "0x1b");
	/* binary junk stops at the error limit, with no crash */
	char junk[4096];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 131 + 7);
	assert_null(parse_bytes(junk, sizeof(junk), NULL));
	/* non-ASCII in a comment is fine */
	vsc_trace_free(parse_ok("# caf\xc3\xa9 \x01\x7f\nT1 w x 1 # \xff\n"));
}

static void test_line_ends(void **state)
{
	(void)state;
	struct vsc_trace *trace =
		parse_ok("vsc 1\r\ninit x 0\r\n# c\r\n\r\nT1 w x 1\r\nT2 r x 1 @5\r\n"
			 "T2 r x 1");
	const struct vsc_program *p = only_program(trace);
	assert_int_equal(vsc_program_event_count(p), 3);
	assert_int_equal(vsc_program_events(p, 1)[0].value, 1);
	assert_int_equal(vsc_program_event_ts(p, 1, 0), 5);
	vsc_trace_free(trace);
	/* a CR as the very last byte, no LF */
	vsc_trace_free(parse_ok("T1 w x 1\r"));
	/* an error after CRLF lines has the right line */
	check_error("T1 w x 1\r\nT1 w x\r\n", "t.vsc:2:7: ", "variable and a value");
}

static void test_version_line(void **state)
{
	(void)state;
	vsc_trace_free(parse_ok("vsc 1\nT1 w x 1\n"));
	vsc_trace_free(parse_ok("# recorded by x\n\nvsc 1\nT1 w x 1\n"));
	check_error("vsc 2\n", "t.vsc:1:5: ", "version");
	check_error("vsc 01x\n", "t.vsc:1:5: ", "version");
	check_error("vsc 1\nvsc 1\n", "t.vsc:2:1: ", "first line");
	check_error("T1 w x 1\nvsc 1\n", "t.vsc:2:1: ", "first line");
	check_error("init x 0\nvsc 1\n", "t.vsc:2:1: ", "first line");
	/* "vsc" with four fields is a thread named vsc */
	struct vsc_trace *trace = parse_ok("vsc 1\nvsc w x 1\n");
	assert_string_equal(vsc_program_thread_name(only_program(trace), 0), "vsc");
	vsc_trace_free(trace);
}

static void test_init_lines(void **state)
{
	(void)state;
	int64_t v;
	struct vsc_trace *trace = parse_ok("init x ?\ninit y -5\ninit 0x7ffd1234 0x10\n"
					   "init r 3\nT1 r x 4\n");
	const struct vsc_program *p = only_program(trace);
	assert_int_equal(vsc_program_var_count(p), 4);
	assert_int_equal(vsc_program_var_init(p, 0, &v), VSC_INIT_UNKNOWN);
	assert_int_equal(vsc_program_var_init(p, 1, &v), VSC_INIT_KNOWN);
	assert_int_equal(v, -5);
	assert_string_equal(vsc_program_var_name(p, 2), "0x7ffd1234");
	assert_int_equal(vsc_program_var_init(p, 2, &v), VSC_INIT_KNOWN);
	assert_int_equal(v, 16);
	assert_string_equal(vsc_program_var_name(p, 3), "r"); /* "init r 3": variable r */
	assert_int_equal(vsc_program_var_init(p, 3, &v), VSC_INIT_KNOWN);
	assert_int_equal(v, 3);
	assert_int_equal(vsc_program_var_init(p, 4, &v), -EINVAL);
	vsc_trace_free(trace);

	check_error("init x 1\ninit x 2\n", "t.vsc:2:6: ", "line 1");
	check_error("init x 1\ninit x 1\n", "t.vsc:2:6: ", "initial value");
	check_error("init x ?\nT1 w x 1\ninit x 0\n", "t.vsc:3:6: ", "line 1");
	check_error("init x 1 # c\ninit x ?\n", "t.vsc:2:6: ", "initial value");
	/* an init after events of the variable is fine */
	trace = parse_ok("T1 r x 1\ninit x 1\n");
	assert_int_equal(vsc_program_var_init(only_program(trace), 0, &v), VSC_INIT_KNOWN);
	assert_int_equal(v, 1);
	vsc_trace_free(trace);
}

static void test_keyword_threads(void **state)
{
	(void)state;
	/* with an op and a full event, "init", "segment", "vsc" are thread tokens */
	struct vsc_trace *trace = parse_ok("init w x 1\nsegment r x 1\nvsc u x 1 2\n"
					   "init r init 1\n");
	const struct vsc_program *p = only_program(trace);
	assert_non_null(p);
	assert_int_equal(vsc_program_thread_count(p), 3);
	assert_string_equal(vsc_program_thread_name(p, 0), "init");
	assert_string_equal(vsc_program_thread_name(p, 1), "segment");
	assert_string_equal(vsc_program_thread_name(p, 2), "vsc");
	assert_int_equal(vsc_program_thread_length(p, 0), 2);
	assert_string_equal(vsc_program_var_name(p, 1), "init");
	assert_int_equal(vsc_program_var_init(p, 0, NULL), VSC_INIT_NONE);
	vsc_trace_free(trace);
	/* '#' starts a comment even inside a token: a segment named "run" */
	trace = parse_ok("segment run#1\n");
	assert_string_equal(vsc_program_name(only_program(trace)), "run");
	vsc_trace_free(trace);
	/* "segment w" alone is a segment named w */
	trace = parse_ok("segment w\nT1 w x 1\n");
	assert_string_equal(vsc_program_name(only_program(trace)), "w");
	vsc_trace_free(trace);
}

static void test_segments(void **state)
{
	(void)state;
	int64_t v;
	struct vsc_trace *trace = parse_ok("init x 1\n"
					   "init g ?\n"
					   "segment a\n"
					   "init x 2\n" /* a local init may override a global one */
					   "init y 7\n"
					   "T2 r x 2\n"
					   "T1 w y 8\n"
					   "segment b\n"
					   "T1 r x 1\n"
					   "T1 r x 1\n"
					   "segment a\n" /* names need not be unique */
					   "init z 0\n");
	const struct vsc_program *a, *b, *c;

	assert_int_equal(vsc_trace_program_count(trace), 3);
	a = vsc_trace_program(trace, 0);
	b = vsc_trace_program(trace, 1);
	c = vsc_trace_program(trace, 2);
	assert_null(vsc_trace_program(trace, 3));
	assert_string_equal(vsc_program_name(a), "a");
	assert_string_equal(vsc_program_name(b), "b");
	assert_string_equal(vsc_program_name(c), "a");
	/* segment a: x = 2 (local), g ? (global), y 7 (local) */
	assert_int_equal(vsc_program_thread_count(a), 2);
	assert_string_equal(vsc_program_thread_name(a, 0), "T2");
	for (size_t i = 0; i < vsc_program_var_count(a); i++) {
		const char *name = vsc_program_var_name(a, i);
		int kind = vsc_program_var_init(a, i, &v);
		if (strcmp(name, "x") == 0)
			assert_true(kind == VSC_INIT_KNOWN && v == 2);
		else if (strcmp(name, "g") == 0)
			assert_int_equal(kind, VSC_INIT_UNKNOWN);
		else if (strcmp(name, "y") == 0)
			assert_true(kind == VSC_INIT_KNOWN && v == 7);
		else
			fail_msg("unexpected variable %s", name);
	}
	/* segment b: x = 1 again (the global), no y; indices restart at 0 */
	assert_int_equal(vsc_program_thread_count(b), 1);
	assert_string_equal(vsc_program_thread_name(b, 0), "T1");
	assert_int_equal(vsc_program_thread_length(b, 0), 2);
	assert_int_equal(vsc_program_event_count(b), 2);
	for (size_t i = 0; i < vsc_program_var_count(b); i++) {
		const char *name = vsc_program_var_name(b, i);
		int kind = vsc_program_var_init(b, i, &v);
		assert_true(strcmp(name, "y") != 0);
		if (strcmp(name, "x") == 0)
			assert_true(kind == VSC_INIT_KNOWN && v == 1);
	}
	assert_int_equal(vsc_program_event_count(c), 0);
	vsc_trace_free(trace);

	/* events before the first segment form an unnamed execution of their own */
	trace = parse_ok("init x 0\nT1 w x 1\nsegment s\nT1 r x 0\n");
	assert_int_equal(vsc_trace_program_count(trace), 2);
	assert_null(vsc_program_name(vsc_trace_program(trace, 0)));
	assert_int_equal(vsc_program_event_count(vsc_trace_program(trace, 0)), 1);
	assert_string_equal(vsc_program_name(vsc_trace_program(trace, 1)), "s");
	assert_int_equal(vsc_program_var_init(vsc_trace_program(trace, 1), 0, &v), VSC_INIT_KNOWN);
	vsc_trace_free(trace);
	/* an empty segment is a valid empty execution */
	trace = parse_ok("segment only\n");
	assert_int_equal(vsc_trace_program_count(trace), 1);
	assert_int_equal(vsc_program_event_count(only_program(trace)), 0);
	vsc_trace_free(trace);

	check_error("init x 1\nsegment a\ninit x 2\ninit x 3\n", "t.vsc:4:6: ", "line 3");
	check_error("segment a\ninit x ?\nT1 r x 1\ninit x 1\n", "t.vsc:4:6: ", "line 2");
	check_error("segment a\nT1 w x 1\nsegment b\nT1 w x\n", "t.vsc:4:7: ", "variable");
}

/* A trace made of format and line, once with single spaces (the parser's
 * fast path for plain event lines) and once with tabs (the general
 * tokenizer): the same program, or the same first message. */
static void same_as_tokenized(const char *format, const char *line)
{
	char spaced[256], tabbed[256];
	struct messages ms, mt;
	struct vsc_trace *a, *b;

	snprintf(spaced, sizeof(spaced), format, line);
	strcpy(tabbed, spaced);
	for (char *c = tabbed; *c; c++)
		if (*c == ' ')
			*c = '\t';
	a = parse_text(spaced, &ms);
	b = parse_text(tabbed, &mt);
	if (!a || !b) {
		if (a || b || ms.count != mt.count || strcmp(ms.text[0], mt.text[0]) != 0) {
			fprintf(stderr, "line '%s': %s vs %s\n", line, ms.count ? ms.text[0] : "ok",
				mt.count ? mt.text[0] : "ok");
			fail();
		}
		return;
	}
	const struct vsc_program *p = only_program(a), *q = only_program(b);
	assert_int_equal(vsc_program_thread_count(p), vsc_program_thread_count(q));
	assert_int_equal(vsc_program_var_count(p), vsc_program_var_count(q));
	for (size_t v = 0; v < vsc_program_var_count(p); v++)
		assert_string_equal(vsc_program_var_name(p, v), vsc_program_var_name(q, v));
	for (size_t t = 0; t < vsc_program_thread_count(p); t++) {
		const struct vsc_event *e = vsc_program_events(p, t), *f = vsc_program_events(q, t);
		assert_string_equal(vsc_program_thread_name(p, t), vsc_program_thread_name(q, t));
		assert_int_equal(vsc_program_thread_length(p, t), vsc_program_thread_length(q, t));
		for (size_t i = 0; i < vsc_program_thread_length(p, t); i++) {
			assert_int_equal(e[i].kind, f[i].kind);
			assert_int_equal(e[i].var, f[i].var);
			assert_int_equal(e[i].value, f[i].value);
			assert_int_equal(e[i].new_value, f[i].new_value);
			assert_int_equal(vsc_program_event_line(p, t, i),
					 vsc_program_event_line(q, t, i));
		}
	}
	vsc_trace_free(a);
	vsc_trace_free(b);
}

/* A comment line longer than the fast path's look ahead. */
#define PADDING "# ................................................................\n"

static void test_fast_path_same(void **state)
{
	static const char *const lines[] = {
		"T r x 5",
		"T w x -5",
		"T u x 1 2",
		"T u x -1 -2",
		"t.1:a-b_c r x.y 0",
		"T r x 007",
		"T r x -0",
		"T r x 999999999999999999",
		"T r x 9999999999999999999",
		"T r x -9223372036854775808",
		"T r x 9223372036854775808",
		"T r x 0x1f",
		"T r x -",
		"T r x 5 ",
		"T r x 5 6",
		"T u x 5",
		"T u x 5 ",
		"T u x 5 6 ",
		"T u x 5 -",
		"T r x -5-",
		"T r x 5x",
		"T r x @5",
		"T r x 5 @12",
		"T x x 5",
		"T rr x 5",
		"T r x",
		"T r",
		"T",
		"T r x$ 5",
		"T$ r x 5",
		"r r r 1",
		"init r 1",
		"T r 0123456789012345678901234567890123456789012345678901234567890123 1",
		"T r 01234567890123456789012345678901234567890123456789012345678901234 1",
		"abcdefgh r x 1",
		"abcdefghi r x 1",
		"abcdefgh r abcdefgh 1",
		"abcdefg r abcdefghi 1",
		"T r x 12345678",
		"T r x -12345678",
		"T r x 123456789",
		"T r x 1234567890123456",
		"T r x -1234567890123456",
		"T r x 12345678901234567",
		"T r x 123456789012345678",
		"T u x 12345678 1234567890123456",
		"T u x 1234567890123456 -12345678",
		"T r x 1234567 ",
		"T r x 12345678 ",
		"T r x 9 ",
		"T r x 1:",
		"T r x 1/",
		"T r x 1;",
		"T r x --1",
		"T r x 1-",
		"T  r x 1",
		"T r  x 1",
		"T r x  1",
		" T r x 1",
		"T r x\t1",
		"T u x 1  2",
		"T u x 1\t2",
		"T r x. 1",
		"T r x\x7f 1",
		"T\x80 r x 1",
		"T r x 1\xb0",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		same_as_tokenized("A w y 1\n%s\nA r y 1\n", lines[i]);
		same_as_tokenized("A w y 1\n%s", lines[i]); /* no newline at the end */
		same_as_tokenized("A w y 1\n%s\r\nA r y 1\n", lines[i]);
		/* followed by more than a word of input: the fast path reads
		 * whole 8-byte words only, so this is where it runs */
		same_as_tokenized("A w y 1\n%s\n" PADDING, lines[i]);
		same_as_tokenized("A w y 1\n%s\r\n" PADDING, lines[i]);
		same_as_tokenized("A w y 1\n%s\n" PADDING, lines[i]);
		same_as_tokenized("A w y 1\n%s\nA r y 1\nB w x 3\n", lines[i]);
		same_as_tokenized("A w y 1\n%s @7\n" PADDING, lines[i]);
		/* after lines of its own thread and variables the cache knows:
		 * where the thread's own loop (narrow_lines) runs */
		same_as_tokenized("T w x 1\nT w y 1\nT r x 1\n%s\n" PADDING, lines[i]);
		same_as_tokenized("T w x 1\nT w y 1\nT r x 1\n%s\nT r y 1\n" PADDING, lines[i]);
		same_as_tokenized("T w x 1\nT w y 1\nT r x 1\n%s\r\n" PADDING, lines[i]);
	}
}

/* Every byte in the operation's place: the fast path takes the kind from
 * a bit table indexed by the byte's distance from 'r' (no branch on the
 * letter), so the bytes just below and above 'r', 'u' and 'w', and those
 * that wrap around, must be left to the general path as it would. */
static void test_fast_path_op_letters(void **state)
{
	(void)state;
	for (int c = 1; c < 256; c++) {
		char line[16];
		snprintf(line, sizeof(line), "T %c x 5", c);
		same_as_tokenized("A w y 1\n%s\n" PADDING, line);
		snprintf(line, sizeof(line), "T %c x 5 6", c);
		same_as_tokenized("A w y 1\n%s\n" PADDING, line);
		snprintf(line, sizeof(line), "T %c x 5", c);
		same_as_tokenized("T w x 1\nT w x 2\n%s\n" PADDING, line);
	}
}

/* Runs of random event lines of one thread, with now and then one byte
 * changed: the thread's own loop (narrow_lines) takes most of them (a
 * few lines of another thread, RMWs, negative values and values of 7 or
 * 8 digits stop it), and must give the program or the first message the
 * general tokenizer gives. */
static void test_narrow_runs(void **state)
{
	static const char *const names[] = { "x", "y", "v12", "abcdefg", "abcdefgh", "T" };
	static const char bytes[] = { ' ', '\t',       '\n',       '\r', '0',   '9', 'a',
				      '-', '#',        '@',        ':',  '/',   'r', 'w',
				      'u', (char)0x80, (char)0xff, '!',  '\x1f' };
	unsigned seed = 14;

	(void)state;
	for (int round = 0; round < 3000; round++) {
		char text[192];
		size_t len = 0;

		while (len < 110) {
			const char *var = names[rand_r(&seed) % 6];
			unsigned kind = rand_r(&seed) % 48, digits = 1 + rand_r(&seed) % 6;
			long long value = rand_r(&seed) % 100000000;
			for (unsigned d = rand_r(&seed) % 32 ? digits : 8; d < 8; d++)
				value /= 10;
			len += (size_t)snprintf(text + len, sizeof(text) - len,
						"%s %s %s %s%lld%s\n", kind == 0 ? "U" : "T",
						kind == 1  ? "u"
						: kind & 1 ? "r"
							   : "w",
						var, rand_r(&seed) % 32 ? "" : "-", value,
						kind == 1 ? " 3" : "");
		}
		if (rand_r(&seed) % 2)
			text[rand_r(&seed) % len] = bytes[rand_r(&seed) % sizeof(bytes)];
		same_as_tokenized("%s" PADDING, text);
	}
}

/* Bytes the fast path must leave to the general path: a zero byte after
 * a name the cache knows, a zero byte in a value, and the same names
 * again after a segment (ids are per segment). */
static void test_plain_words(void **state)
{
	static const char nul_name[] = "A w x 1\nA\0 w x 1\n" PADDING;
	static const char nul_var[] = "A w x 1\nA w x\0 1\n" PADDING;
	static const char nul_value[] = "A w x 1\nA w x 1\0\n" PADDING;
	struct vsc_trace *trace;

	(void)state;
	check_error_bytes(nul_name, sizeof(nul_name) - 1, "t.vsc:2:2: ", "NUL");
	check_error_bytes(nul_var, sizeof(nul_var) - 1, "t.vsc:2:6: ", "NUL");
	check_error_bytes(nul_value, sizeof(nul_value) - 1, "t.vsc:2:8: ", "NUL");
	trace = parse_ok("A w x 1\nB w y 2\nsegment s\nB w x 3\nA w y 4\n" PADDING);
	assert_int_equal(vsc_trace_program_count(trace), 2);
	const struct vsc_program *p = vsc_trace_program(trace, 1);
	assert_string_equal(vsc_program_thread_name(p, 0), "B");
	assert_string_equal(vsc_program_var_name(p, vsc_program_events(p, 0)[0].var), "x");
	assert_int_equal(vsc_program_events(p, 0)[0].value, 3);
	assert_string_equal(vsc_program_var_name(p, vsc_program_events(p, 1)[0].var), "y");
	vsc_trace_free(trace);
}

/* Runs of lines of one thread: the fast path takes the thread of the
 * line before by its bytes (a name of up to 7 bytes and its space), so
 * names that start alike, names of 7, 8 and 9 bytes, and lines it leaves
 * to the general path between them give the same program as the general
 * tokenizer. */
static void test_plain_thread_runs(void **state)
{
	static const char *const texts[] = {
		"T1 w x 1\nT1 r x 1\nT10 w y 2\nT1 r y 2\nT10 r x 1\nT1 u x 1 3\n",
		"ABCDEFG w x 3\nABCDEFG r x 3\nABCDEFGH w y 4\nABCDEFGH r y 4\nABCDEFG r y 4\n",
		"ABCDEFGHI r x 0\nABCDEFGHI w x 1\nABCDEFG r x 1\nABCDEFGHI r x 1\n",
		"Z r x 0 # new thread, general path\nZ r x 0\nZ w q 1\nZ2 r q 1\nZ r q 1\n",
		"T1 w x 1\nT1 r x 1 @3\nT1 r x 1\nT1r x 1\nT1 r x 1\n",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		same_as_tokenized("%s" PADDING, texts[i]);
		same_as_tokenized("%s" PADDING PADDING, texts[i]);
	}
}

static void test_huge_tokens(void **state)
{
	(void)state;
	size_t n = 1 << 20;
	char *buf = malloc(n + 64);

	assert_non_null(buf);
	/* a 1 MB thread token */
	memset(buf, 'a', n);
	memcpy(buf + n, " w x 1\n", 8);
	check_error_bytes(buf, n + 7, "t.vsc:1:1: ", "characters");
	/* a 1 MB value */
	memcpy(buf, "T1 w x ", 7);
	memset(buf + 7, '1', n);
	buf[n + 7] = '\n';
	check_error_bytes(buf, n + 8, "t.vsc:1:8: ", "64-bit");
	/* a 1 MB run of zeros is the value 0 */
	memset(buf + 7, '0', n);
	struct vsc_trace *trace = parse_bytes(buf, n + 8, NULL);
	assert_non_null(trace);
	assert_int_equal(vsc_program_events(only_program(trace), 0)[0].value, 0);
	vsc_trace_free(trace);
	/* a 1 MB comment */
	memset(buf, 'c', n);
	buf[0] = '#';
	memcpy(buf + n, "\nT1 w x 1\n", 10);
	trace = parse_bytes(buf, n + 10, NULL);
	assert_non_null(trace);
	assert_int_equal(vsc_program_event_count(only_program(trace)), 1);
	vsc_trace_free(trace);
	/* a 1 MB timestamp */
	memcpy(buf, "T1 w x 1 @", 10);
	memset(buf + 10, '9', n);
	buf[n + 10] = '\n';
	check_error_bytes(buf, n + 11, "t.vsc:1:10: ", "64");
	/* a 1 MB line of blanks, then an event */
	memset(buf, ' ', n);
	memcpy(buf + n, "T1 w x 1\n", 9);
	trace = parse_bytes(buf, n + 9, NULL);
	assert_non_null(trace);
	vsc_trace_free(trace);
	free(buf);
}

static void test_many_errors(void **state)
{
	(void)state;
	char text[4096] = "";
	struct messages m;

	for (int i = 0; i < 50; i++)
		strcat(text, "T1 bad x 1\n");
	assert_null(parse_text(text, &m));
	/* at most the limit, plus one line saying it stopped */
	assert_true(m.count >= 2 && m.count <= 21);
	assert_string_equal(m.text[1],
			    "t.vsc:2:4: expected 'r', 'w' or 'u' after the thread, found 'bad'");

	/* one error per bad line, each with its own line number */
	assert_null(parse_text("T1 w x 1\nT1 r\nT1 w x 1\nT1 w x 1 2\n", &m));
	assert_int_equal(m.count, 2);
	assert_true(strncmp(m.text[0], "t.vsc:2:5: ", 11) == 0);
	assert_true(strncmp(m.text[1], "t.vsc:4:10: ", 12) == 0);
}

static void collect_one(void *ctx, const char *message)
{
	struct messages *m = ctx;
	if (m->count < MSG_MAX)
		snprintf(m->text[m->count], MSG_LEN, "%s", message);
	m->count++;
}

/* A file name longer than the message buffer must not overflow it. */
static void test_long_filename(void **state)
{
	(void)state;
	char name[900]; /* longer than any fixed message buffer, shorter than MSG_LEN */
	struct messages m = { .count = 0 };

	memset(name, 'd', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	VSC_OPTS(vsc_parse_opts, opts, .filename = name, .on_error = collect_one, .error_ctx = &m,
		 .max_errors = 1);
	assert_null(vsc_trace_parse_buffer("T1 w x\n", 7, &opts));
	assert_true(m.count >= 1);
	assert_true(strncmp(m.text[0], name, sizeof(name) - 1) == 0);
	assert_string_equal(m.text[0] + sizeof(name) - 1,
			    ":1:7: a 'w' event needs a variable and a value");
}

static void test_max_errors(void **state)
{
	(void)state;
	struct messages m = { .count = 0 };
	VSC_OPTS(vsc_parse_opts, opts, .filename = "f.vsc", .on_error = collect_one,
		 .error_ctx = &m, .max_errors = 3);
	const char *text = "a\nb\nc\nd\ne\nf\n";
	assert_null(vsc_trace_parse_buffer(text, strlen(text), &opts));
	assert_true(m.count >= 3 && m.count <= 4);
	assert_string_equal(m.text[0], "f.vsc:1:1: expected an event, 'init' or 'segment' line");
	assert_true(strncmp(m.text[2], "f.vsc:3:1: ", 11) == 0);
}

static void test_lost_events(void **state)
{
	(void)state;
	struct vsc_trace *trace = parse_ok("# vsc record\n# lost events: 12\nT1 w x 1\n");
	assert_int_equal(vsc_trace_lost_events(trace), 12);
	vsc_trace_free(trace);
}

static void test_files_and_streams(void **state)
{
	(void)state;
	char dir[] = "/tmp/vsc-test-XXXXXX", path[256];
	struct vsc_trace *trace;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/t.vsc", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("T1 w x 1\nT2 r x 1\n", f);
	fclose(f);

	trace = vsc_trace_parse_file(path, NULL);
	assert_non_null(trace);
	assert_int_equal(vsc_program_event_count(only_program(trace)), 2);
	vsc_trace_free(trace);

	errno = 0;
	assert_null(vsc_trace_parse_file(dir, NULL));
	assert_int_equal(errno, EISDIR);
	snprintf(path, sizeof(path), "%s/missing.vsc", dir);
	errno = 0;
	assert_null(vsc_trace_parse_file(path, NULL));
	assert_int_equal(errno, ENOENT);
	errno = 0;
	assert_null(vsc_trace_parse_file(NULL, NULL));
	assert_int_equal(errno, EINVAL);

	/* an empty file is a valid empty program */
	snprintf(path, sizeof(path), "%s/empty.vsc", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	trace = vsc_trace_parse_file(path, NULL);
	assert_non_null(trace);
	assert_int_equal(vsc_program_event_count(only_program(trace)), 0);
	vsc_trace_free(trace);
	unlink(path);

	/* a stream that has no file descriptor of its own (fmemopen) */
	static const char text[] = "T1 w x 1\nT1 r x 1\n";
	f = fmemopen((void *)text, sizeof(text) - 1, "r");
	assert_non_null(f);
	trace = vsc_trace_parse_stream(f, NULL);
	assert_non_null(trace);
	assert_int_equal(vsc_program_event_count(only_program(trace)), 2);
	vsc_trace_free(trace);
	fclose(f);

	/* a stream already partly read through stdio: parsing starts where it is */
	snprintf(path, sizeof(path), "%s/t.vsc", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fgetc(f), 'T');
	assert_int_equal(ungetc('T', f), 'T');
	trace = vsc_trace_parse_stream(f, NULL);
	assert_non_null(trace);
	assert_int_equal(vsc_program_event_count(only_program(trace)), 2);
	vsc_trace_free(trace);
	fclose(f);
	errno = 0;
	assert_null(vsc_trace_parse_stream(NULL, NULL));
	assert_int_equal(errno, EINVAL);
	unlink(path);
	rmdir(dir);
}

static void test_no_partial_result(void **state)
{
	(void)state;
	struct messages m;
	/* a good segment then a bad line: nothing comes back */
	assert_null(parse_text("segment a\nT1 w x 1\nsegment b\nT1 w x 1 1 1\n", &m));
	assert_int_equal(m.count, 1);
	/* the error in the last line without a newline */
	assert_null(parse_text("T1 w x 1\nT1 w", &m));
	assert_true(strncmp(m.text[0], "t.vsc:2:5: ", 11) == 0);
}

/* Everything a trace's programs say, line numbers included, as text. */
static char *trace_text(const struct vsc_trace *trace)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	for (size_t i = 0; i < vsc_trace_program_count(trace); i++) {
		const struct vsc_program *p = vsc_trace_program(trace, i);
		fprintf(out, "segment %s\n", vsc_program_name(p) ? vsc_program_name(p) : "-");
		assert_int_equal(vsc_program_write(p, out), 0);
		for (size_t t = 0; t < vsc_program_thread_count(p); t++)
			for (size_t e = 0; e < vsc_program_thread_length(p, t); e++)
				fprintf(out, "%u ", vsc_program_event_line(p, t, e));
	}
	fprintf(out, "lost %llu\n", (unsigned long long)vsc_trace_lost_events(trace));
	fclose(out);
	return text;
}

static void collect_first(void *ctx, const char *message)
{
	char *first = ctx;

	if (!first[0])
		snprintf(first, MSG_LEN, "%s", message);
}

/* text parsed from a file (read in pieces), from a stdio stream and from
 * one buffer: the same trace, or the same first message. */
static bool same_in_pieces(const char *text, size_t len, const char *dir)
{
	bool parsed;
	char path[256], first[3][MSG_LEN] = { "", "", "" }, *want = NULL;
	struct vsc_trace *trace[3];
	FILE *f;

	snprintf(path, sizeof(path), "%s/pieces.vsc", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
	for (int how = 0; how < 3; how++) {
		VSC_OPTS(vsc_parse_opts, opts, .filename = "t.vsc", .on_error = collect_first,
			 .error_ctx = first[how]);
		f = how == 1 ? fopen(path, "r") : NULL;
		trace[how] = how == 0   ? vsc_trace_parse_buffer(text, len, &opts)
			     : how == 1 ? vsc_trace_parse_stream(f, &opts)
					: vsc_trace_parse_file(path, &opts);
		if (f)
			fclose(f);
		assert_string_equal(first[how], first[0]);
		assert_true(!trace[how] == !trace[0]);
		if (!trace[how])
			continue;
		char *got = trace_text(trace[how]);
		if (!want)
			want = got;
		else {
			assert_string_equal(got, want);
			free(got);
		}
		vsc_trace_free(trace[how]);
	}
	parsed = want != NULL;
	free(want);
	unlink(path);
	return parsed;
}

/* Lines of every shape across the boundaries of the pieces a file is read
 * in (a quarter MiB), a line longer than a piece, and an error far in. */
static void test_pieces(void **state)
{
	static const char *const shapes[] = {
		"T%u r x%u %u\n",         "T%u w x%u %u\n",
		"T%u\tu\tx%u\t%u 7\n",    "T%u r x%u %u @5\r\n",
		"T%u w x%u -%u # c\n",    "T%u r a-long-variable-name-%u %u\n",
		"# a comment %u %u %u\n", "\n",
		"init v%u.%u.%u 1\n",
	};
	char dir[] = "/tmp/vsc-test-XXXXXX", line[128];
	size_t cap = 1 << 21, len = 0;
	char *text = malloc(cap);

	(void)state;
	assert_non_null(text);
	assert_non_null(mkdtemp(dir));
	for (unsigned i = 0; len < 700000; i++) {
		int n = snprintf(line, sizeof(line), shapes[i * 7 % 9], i % 5, i % 11, i);
		memcpy(text + len, line, (size_t)n);
		len += (size_t)n;
		if (i == 20000) { /* a comment line longer than a piece */
			memset(text + len, '#', 300000);
			len += 300000;
			text[len++] = '\n';
		}
	}
	assert_true(same_in_pieces(text, len, dir));
	assert_true(same_in_pieces(text, len - 1, dir)); /* no newline at the end */
	memcpy(text + len, "T1 r x\n", 7);               /* an error in the last piece */
	assert_false(same_in_pieces(text, len + 7, dir));
	free(text);
	rmdir(dir);
}

/* Threads long enough that their events and line numbers leave the heap
 * for mappings of their own (2 MiB and more, program.c), trimmed once the
 * trace is read: every event and line number as written. */
static void test_big_threads(void **state)
{
	const unsigned n = 350000; /* A: 300,000 events (7.2 MB), lines past 2 MiB of room */
	size_t cap = (size_t)n * 24, len = 0;
	char *text = malloc(cap);
	struct vsc_trace *trace;

	(void)state;
	assert_non_null(text);
	for (unsigned i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len, i % 7 ? "A w x %u\n" : "B r y %u\n",
					i);
	trace = parse_ok_bytes(text, len);
	const struct vsc_program *p = only_program(trace);
	assert_int_equal(vsc_program_event_count(p), n);
	for (size_t t = 0, seen = 0; t < 2; t++, seen = 0) {
		const struct vsc_event *e = vsc_program_events(p, t);
		for (unsigned i = 0; i < n; i++) {
			if ((i % 7 == 0) != (t == 0)) /* B, thread 0, came first */
				continue;
			assert_int_equal(e[seen].value, i);
			assert_int_equal(vsc_program_event_line(p, t, seen), i + 1);
			seen++;
		}
		assert_int_equal(vsc_program_thread_length(p, t), seen);
	}
	vsc_trace_free(trace);
	free(text);
}

/* no_event_lines: the same events, with line 0 each, on the fast path and
 * the general one (a tab, a timestamp); bad input still gives its line. */
static void test_no_event_lines(void **state)
{
	static const char text[] = "A w x 1\nB\tr\tx\t1\nA r x 1 @5\nB r x -1\n" PADDING;
	char first[MSG_LEN] = "";
	VSC_OPTS(vsc_parse_opts, opts, .filename = "t.vsc", .no_event_lines = true,
		 .on_error = collect_first, .error_ctx = first);
	struct vsc_trace *with = parse_ok(text);
	struct vsc_trace *without = vsc_trace_parse_buffer(text, sizeof(text) - 1, &opts);
	const struct vsc_program *p = only_program(with), *q = only_program(without);

	(void)state;
	assert_non_null(q);
	assert_int_equal(vsc_program_event_count(q), 4);
	for (size_t t = 0; t < 2; t++) {
		assert_int_equal(vsc_program_thread_length(p, t), vsc_program_thread_length(q, t));
		for (size_t i = 0; i < vsc_program_thread_length(p, t); i++) {
			assert_int_equal(vsc_program_events(p, t)[i].value,
					 vsc_program_events(q, t)[i].value);
			assert_int_equal(vsc_program_event_ts(p, t, i),
					 vsc_program_event_ts(q, t, i));
			assert_true(vsc_program_event_line(p, t, i) > 0);
			assert_int_equal(vsc_program_event_line(q, t, i), 0);
		}
	}
	vsc_trace_free(with);
	vsc_trace_free(without);
	assert_null(vsc_trace_parse_buffer("A w x 1\nA w\n", 12, &opts));
	assert_true(strncmp(first, "t.vsc:2:4: ", 11) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_basic),
		cmocka_unit_test(test_empty_inputs),
		cmocka_unit_test(test_bad_op),
		cmocka_unit_test(test_missing_fields),
		cmocka_unit_test(test_too_many_fields),
		cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_name_lengths),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_timestamps),
		cmocka_unit_test(test_bad_bytes),
		cmocka_unit_test(test_line_ends),
		cmocka_unit_test(test_version_line),
		cmocka_unit_test(test_init_lines),
		cmocka_unit_test(test_keyword_threads),
		cmocka_unit_test(test_segments),
		cmocka_unit_test(test_fast_path_same),
		cmocka_unit_test(test_fast_path_op_letters),
		cmocka_unit_test(test_narrow_runs),
		cmocka_unit_test(test_plain_words),
		cmocka_unit_test(test_plain_thread_runs),
		cmocka_unit_test(test_huge_tokens),
		cmocka_unit_test(test_many_errors),
		cmocka_unit_test(test_long_filename),
		cmocka_unit_test(test_max_errors),
		cmocka_unit_test(test_lost_events),
		cmocka_unit_test(test_files_and_streams),
		cmocka_unit_test(test_no_partial_result),
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_big_threads),
		cmocka_unit_test(test_no_event_lines),
	};
	return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}
