/* SPDX-License-Identifier: MIT */
/* vsc_trace_completeness(): what a recorded trace's header and end-of-trace
 * comments say, against what the file holds (docs/format.md, "Recorded
 * traces"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

#define HEAD "vsc 1\n# what: test\n"
#define BODY "init x 0\nT1 w x 1\nT2 r x 1\n"

static struct vsc_trace_completeness of(const char *text)
{
	struct messages m;
	struct vsc_trace *trace = parse_text(text, &m);
	VSC_OPTS(vsc_trace_completeness, c);

	if (!trace) {
		fprintf(stderr, "input: '%s'\nfirst message: %s\n", text,
			m.count ? m.text[0] : "(none)");
		fail();
	}
	assert_int_equal(vsc_trace_completeness(trace, &c), 0);
	/* why lives as long as the trace: check it here, then drop it */
	assert_int_equal(c.why[0] == '\0', c.state == VSC_TRACE_WHOLE);
	assert_null(strchr(c.why, '\n'));
	c.why = NULL;
	if (c.loss_mode) { /* keep it past the trace */
		static char mode[16];
		snprintf(mode, sizeof(mode), "%s", c.loss_mode);
		c.loss_mode = mode;
	}
	vsc_trace_free(trace);
	return c;
}

static void test_hand_written_is_whole(void **state)
{
	(void)state;
	struct vsc_trace_completeness c = of(BODY "# events: 12\n"); /* not leading */
	assert_int_equal(c.state, VSC_TRACE_WHOLE);
	assert_false(c.recorded);
	assert_int_equal(c.events, 2);
	assert_int_equal(c.events_expected, 2);
}

static void test_recorded_whole(void **state)
{
	(void)state;
	struct vsc_trace_completeness c = of(
		HEAD "# events: 2\n# lost events: 0\n# uncertain values: 0\n"
		     "# loss mode: drop\n" BODY "# end of trace: events=2 lost=0 uncertain=0\n\n");
	assert_int_equal(c.state, VSC_TRACE_WHOLE);
	assert_true(c.recorded);
	assert_true(c.has_trailer);
	assert_true(c.lost_exact);
	assert_int_equal(c.lost + c.uncertain, 0);
	assert_string_equal(c.loss_mode, "drop");
}

static void test_deferred_counts(void **state)
{
	(void)state;
	struct vsc_trace_completeness c =
		of(HEAD "# events: see end of trace\n# lost events: see end of trace\n" BODY
			"# end of trace: events=2 lost=0 uncertain=0\r\n");
	assert_int_equal(c.state, VSC_TRACE_WHOLE);
	c = of(HEAD "# events: see end of trace\n# lost events: see end of trace\n" BODY);
	assert_int_equal(c.state, VSC_TRACE_CUT_SHORT);
	assert_false(c.lost_exact);
}

static void test_cut_short(void **state)
{
	(void)state;
	/* no trailer */
	assert_int_equal(of(HEAD "# events: 2\n" BODY).state, VSC_TRACE_CUT_SHORT);
	/* cut inside the trailer */
	assert_int_equal(of(HEAD "# events: 2\n" BODY "# end of trace: events=2 lost=0").state,
			 VSC_TRACE_CUT_SHORT);
	/* trailer count differs from the file */
	assert_int_equal(of(HEAD BODY "# end of trace: events=3 lost=0 uncertain=0\n").state,
			 VSC_TRACE_CUT_SHORT);
	/* header count differs from the file */
	assert_int_equal(
		of(HEAD "# events: 3\n" BODY "# end of trace: events=2 lost=0 uncertain=0\n").state,
		VSC_TRACE_CUT_SHORT);
	/* an event after the trailer */
	assert_int_equal(
		of(HEAD BODY "# end of trace: events=2 lost=0 uncertain=0\nT2 r x 1\n").state,
		VSC_TRACE_CUT_SHORT);
	/* trailer garbage at its end */
	assert_int_equal(of(HEAD BODY "# end of trace: events=2 lost=0 uncertain=0 x\n").state,
			 VSC_TRACE_CUT_SHORT);
}

static void test_lost(void **state)
{
	(void)state;
	struct vsc_trace_completeness c = of("# lost events: 3\n" BODY);
	assert_int_equal(c.state, VSC_TRACE_INCOMPLETE);
	assert_int_equal(c.lost, 3);
	assert_true(c.lost_exact);
	c = of("# lost events: at least 4\n" BODY);
	assert_int_equal(c.state, VSC_TRACE_INCOMPLETE);
	assert_int_equal(c.lost, 4);
	assert_false(c.lost_exact);
	/* the trailer's count wins when larger, and its >= is inexact */
	c = of(HEAD "# events: 2\n# lost events: 1\n" BODY
		    "# end of trace: events=2 lost=>=5 uncertain=0\n");
	assert_int_equal(c.state, VSC_TRACE_INCOMPLETE);
	assert_int_equal(c.lost, 5);
	assert_false(c.lost_exact);
}

static void test_uncertain(void **state)
{
	(void)state;
	struct vsc_trace_completeness c =
		of("# uncertain values: 2\n" BODY "# end of trace: events=2 lost=0 uncertain=2\n");
	assert_int_equal(c.state, VSC_TRACE_INCOMPLETE);
	assert_int_equal(c.uncertain, 2);
	/* lines marked value unsure count even when no count says so */
	c = of("init x 0\nT1 w x 1 # f+3 a.c:4 (value unsure)\nT2 r x 1 # value unsure\n");
	assert_int_equal(c.state, VSC_TRACE_INCOMPLETE);
	assert_int_equal(c.uncertain, 2);
	/* a comment line that says it is not an event */
	c = of("# value unsure\n" BODY);
	assert_int_equal(c.state, VSC_TRACE_WHOLE);
}

/* Where the marks are: each in the segment that holds it (its events, its
 * own init lines), so that a verdict on another segment does not rest on
 * it; placed only when the marks account for every uncertain value. */
static void test_unsure_placed(void **state)
{
	(void)state;
	static const char segments[] = "init x 0\n"
				       "segment a\nT1 w x 1\nT2 r x 1 # f+3 a.c:4 (value unsure)\n"
				       "segment b\ninit y 0 # value unsure\nT1 r y 0\n"
				       "segment c\nT1 w x 1\nT2 r x 1 # f+3 a.c:4\n";
	struct messages m;
	struct vsc_trace *trace = parse_text(segments, &m);
	size_t unsure[3];

	assert_non_null(trace);
	assert_int_equal(vsc_trace_program_count(trace), 3);
	for (size_t i = 0; i < 3; i++)
		unsure[i] = vsc_program_unsure_values(vsc_trace_program(trace, i));
	vsc_trace_free(trace);
	assert_int_equal(unsure[0], 1);
	assert_int_equal(unsure[1], 1);
	assert_int_equal(unsure[2], 0);
	assert_true(of(segments).uncertain_placed);
	assert_true(of(BODY).uncertain_placed); /* none to place */
	/* a mark on an init line every segment shares */
	assert_false(of("init x 0 # value unsure\nsegment a\nT1 r x 0\n").uncertain_placed);
	/* a count above the marks, one that cannot be read */
	assert_false(of("# uncertain values: 3\n" BODY "T1 r x 1 # value unsure\n"
			"# end of trace: events=3 lost=0 uncertain=3\n")
			     .uncertain_placed);
	assert_false(of("# uncertain values: at least 1\n" BODY).uncertain_placed);
	assert_false(
		of("# events: 2\n# uncertain values: see end of trace\n" BODY).uncertain_placed);
}

/* `# uncertain threads: N` (an LTTng trace without thread markers): thread
 * ids that may each be several threads withhold the verdict too. */
static void test_uncertain_threads(void **state)
{
	(void)state;
	struct vsc_trace_completeness c = of(HEAD "# events: 2\n# uncertain threads: 2\n" BODY
						  "# end of trace: events=2 lost=0 uncertain=0\n");
	assert_int_equal(c.state, VSC_TRACE_INCOMPLETE);
	assert_int_equal(c.uncertain_threads, 2);
	assert_int_equal(c.uncertain, 0);
	c = of("# uncertain threads: 0\n" BODY);
	assert_int_equal(c.state, VSC_TRACE_WHOLE);
}

/* `# uncertain memory: N` (vsc record found a process outside the
 * recording that maps the target's shared memory writable): no verdict,
 * and the reason names who, from `# written outside the recording:`. */
static void test_uncertain_memory(void **state)
{
	(void)state;
	struct messages m;
	struct vsc_trace *trace = parse_text(HEAD "# events: 2\n# uncertain memory: 1\n"
						  "# written outside the recording: pid 7 (w) "
						  "maps /dev/shm/x\n" BODY
						  "# end of trace: events=2 lost=0 uncertain=0\n",
					     &m);
	VSC_OPTS(vsc_trace_completeness, c);

	assert_non_null(trace);
	assert_int_equal(vsc_trace_completeness(trace, &c), 0);
	assert_int_equal(c.state, VSC_TRACE_INCOMPLETE);
	assert_int_equal(c.uncertain_memory, 1);
	assert_int_equal(c.uncertain, 0);
	assert_string_equal(c.why, "1 shared memory object may be written by a process "
				   "not recorded (pid 7 (w) maps /dev/shm/x)");
	vsc_trace_free(trace);
	c = of("# uncertain memory: 0\n" BODY);
	assert_int_equal(c.state, VSC_TRACE_WHOLE);
	c = of("# uncertain memory: at least 1\n" BODY);
	assert_int_equal(c.state, VSC_TRACE_INCOMPLETE);
}

/* The message of a count that cannot be read, or "" when it parses. */
static const char *bad_count_message(const char *text)
{
	static struct messages m;
	struct vsc_trace *trace = parse_text(text, &m);

	if (trace) {
		vsc_trace_free(trace);
		return "";
	}
	assert_int_equal(m.count, 1);
	return m.text[0];
}

/* A count that is not N, `at least N` or `see end of trace` is bad input
 * (exit status 2), never read as a number nobody wrote: `3x` was `at least
 * 3`, 20 digits saturated, `many` was an unknown loss. */
static void test_bad_counts(void **state)
{
	(void)state;
	static const char *const keys[] = { "lost events", "uncertain values",
					    "uncertain threads" };
	static const char *const bad[] = { "3x",
					   "99999999999999999999",
					   "18446744073709551616",
					   "many",
					   "at least 3x",
					   "at least",
					   "-1",
					   "+3",
					   "3 4",
					   "0x10",
					   "",
					   "see end of trace!" };
	char text[256];

	for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
		for (size_t b = 0; b < sizeof(bad) / sizeof(*bad); b++) {
			snprintf(text, sizeof(text), "# %s: %s\n" BODY, keys[k], bad[b]);
			assert_non_null(strstr(bad_count_message(text), "needs a count"));
		}
		/* the largest count that fits is read as it is */
		snprintf(text, sizeof(text), "# %s: 18446744073709551615\n" BODY, keys[k]);
		assert_string_equal(bad_count_message(text), "");
		/* anywhere, not only in the header */
		snprintf(text, sizeof(text), BODY "# %s: 2y\n", keys[k]);
		assert_non_null(strstr(bad_count_message(text), "t.vsc:4:"));
	}
	/* `# events:` in the header; elsewhere it is any comment */
	assert_non_null(
		strstr(bad_count_message("# events: 2x\n" BODY), "t.vsc:1:11: `# events:`"));
	assert_string_equal(bad_count_message(BODY "# events: 2x\n"), "");
	assert_int_equal(of("# lost events:\t7 \r\n" BODY).lost, 7);
}

static void test_small_sz(void **state)
{
	(void)state;
	struct messages m;
	struct vsc_trace *trace = parse_text("# lost events: 1\n" BODY, &m);
	struct vsc_trace_completeness c = { .sz = offsetof(struct vsc_trace_completeness,
							   recorded) };

	assert_non_null(trace);
	c.events = 77; /* beyond sz: left alone */
	assert_int_equal(vsc_trace_completeness(trace, &c), 0);
	assert_int_equal(c.state, VSC_TRACE_INCOMPLETE);
	assert_int_equal(c.events, 77);
	assert_int_equal(c.sz, offsetof(struct vsc_trace_completeness, recorded));
	c.sz = 4;
	assert_int_equal(vsc_trace_completeness(trace, &c), -EINVAL);
	assert_int_equal(vsc_trace_completeness(NULL, &c), -EINVAL);
	vsc_trace_free(trace);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_written_is_whole),
		cmocka_unit_test(test_recorded_whole),
		cmocka_unit_test(test_deferred_counts),
		cmocka_unit_test(test_cut_short),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_uncertain),
		cmocka_unit_test(test_unsure_placed),
		cmocka_unit_test(test_uncertain_threads),
		cmocka_unit_test(test_uncertain_memory),
		cmocka_unit_test(test_bad_counts),
		cmocka_unit_test(test_small_sz),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
