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
	/* a count that cannot be read is not a zero */
	c = of("# lost events: many\n" BODY);
	assert_int_equal(c.state, VSC_TRACE_INCOMPLETE);
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
	/* a count that cannot be read is not 0 */
	c = of("# uncertain threads: some\n" BODY);
	assert_int_equal(c.state, VSC_TRACE_INCOMPLETE);
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
		cmocka_unit_test(test_uncertain_threads),
		cmocka_unit_test(test_small_sz),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
