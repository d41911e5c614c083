/* SPDX-License-Identifier: MIT */
/* The parser handing each execution over (vsc_parse_opts.on_program, what
 * vsc check decides segment by segment) gives what parsing the file whole
 * gives: the same executions in order (names, threads, variables, initial
 * values, events with their lines and timestamps), the same completeness,
 * the same messages and errno, on thousands of random lab-like traces,
 * whole and damaged (bad lines, cut in the middle, lost events, no end).
 * After the first error it hands nothing over; a callback that fails stops
 * the parse with its errno. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vsc/vsc.h"

#define ROUNDS 3000
#define HANDED_MAX 256

struct log {
	char text[4096];
	size_t len;
	unsigned count;
};

static void note_message(void *ctx, const char *message)
{
	struct log *l = ctx;
	int n = snprintf(l->text + l->len, sizeof(l->text) - l->len, "%s\n", message);

	l->count++;
	if (n > 0 && (size_t)n < sizeof(l->text) - l->len)
		l->len += (size_t)n;
}

struct handed {
	struct vsc_program *programs[HANDED_MAX];
	size_t count;
	size_t fail_at; /* return -ECANCELED for this one (0: never) */
};

static int take(void *ctx, struct vsc_program *prog)
{
	struct handed *h = ctx;

	assert_true(h->count < HANDED_MAX);
	h->programs[h->count++] = prog;
	return h->count == h->fail_at ? -ECANCELED : 0;
}

static struct vsc_trace *parse(const char *buf, size_t len, struct log *l, struct handed *h)
{
	VSC_OPTS(vsc_parse_opts, opts, .filename = "t.vsc", .on_error = note_message,
		 .error_ctx = l, .on_program = h ? take : NULL, .program_ctx = h);
	memset(l, 0, sizeof(*l));
	errno = 0;
	return vsc_trace_parse_buffer(buf, len, &opts);
}

/* ---- random lab-like traces --------------------------------------------- */

static unsigned next_random(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) & 0x7fff;
}

static void put_event(FILE *out, unsigned *seed, unsigned seg)
{
	static const char *const threads[] = { "100", "101", "T2" };
	const char *t = threads[next_random(seed) % 3];
	unsigned v = next_random(seed) % 3, value = next_random(seed) % 3;

	switch (next_random(seed) % 4) {
	case 0:
		fprintf(out, "%s w v%u:%u %u", t, v, seg, value);
		break;
	case 1:
		fprintf(out, "%s u v%u:%u %u %u", t, v, seg, value, value + 1);
		break;
	default:
		fprintf(out, "%s r v%u:%u %u", t, v, seg, value);
	}
	if (next_random(seed) % 4 == 0)
		fprintf(out, " @%u", next_random(seed));
	if (next_random(seed) % 4 == 0)
		fprintf(out, " # run+0x%x (lab)", next_random(seed));
	fputc('\n', out);
}

/* A trace with header counts, global and per-segment inits, events before
 * the first segment now and then, and an end-of-trace line; the counts
 * agree unless the dice say otherwise. */
static char *random_trace(unsigned *seed, size_t *len)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, len);
	unsigned segments = next_random(seed) % 6, events = 0, lost = next_random(seed) % 4 == 0;
	char *body = NULL;
	size_t body_len = 0;
	FILE *b = open_memstream(&body, &body_len);

	assert_non_null(out);
	assert_non_null(b);
	fprintf(b, "init v0:0 %u\n", next_random(seed) % 2);
	for (unsigned k = next_random(seed) % 3 == 0 ? next_random(seed) % 3 : 0; k > 0;
	     k--, events++)
		put_event(b, seed, 0);
	for (unsigned s = 0; s < segments; s++) {
		fprintf(b, "segment %u\n", next_random(seed) % 4 == 0 ? 7 : s);
		if (next_random(seed) % 3 == 0)
			fprintf(b, "init v1:%u ?\n", s);
		for (unsigned k = next_random(seed) % 6; k > 0; k--, events++)
			put_event(b, seed, s);
		if (next_random(seed) % 8 == 0)
			fprintf(b, "\n# a comment\n");
	}
	fclose(b);
	fprintf(out, "vsc 1\n# events: %u\n# lost events: %u\n", events, lost ? 2 : 0);
	fwrite(body, 1, body_len, out);
	if (next_random(seed) % 5)
		fprintf(out, "# end of trace: events=%u lost=%u uncertain=0\n",
			events + (next_random(seed) % 10 == 0), lost ? 2 : 0);
	free(body);
	fclose(out);
	return text;
}

/* Damage: a bad line somewhere, or the end cut off anywhere. */
static void damage(unsigned *seed, char *text, size_t *len)
{
	unsigned how = next_random(seed) % 4;

	if (how == 0 && *len > 0) {
		*len = next_random(seed) % *len;
	} else if (how == 1 && *len > 0) {
		size_t i = next_random(seed) % *len;
		while (i < *len && text[i] != '\n')
			i++;
		if (i + 4 < *len)
			memcpy(text + i + 1, "x q", 3); /* no such operation */
	}
}

/* ---- comparing ------------------------------------------------------------ */

static char *program_text(const struct vsc_program *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	fprintf(out, "name %s\n", vsc_program_name(p) ? vsc_program_name(p) : "(none)");
	assert_int_equal(vsc_program_write(p, out), 0);
	for (size_t t = 0; t < vsc_program_thread_count(p); t++)
		for (size_t i = 0; i < vsc_program_thread_length(p, t); i++)
			fprintf(out, "%zu.%zu line %u ts %llu\n", t, i,
				vsc_program_event_line(p, t, i),
				(unsigned long long)vsc_program_event_ts(p, t, i));
	fclose(out);
	return text;
}

static void same_program(const struct vsc_program *a, const struct vsc_program *b)
{
	char *x = program_text(a), *y = program_text(b);

	assert_string_equal(x, y);
	free(x);
	free(y);
}

static void same_completeness(const struct vsc_trace *a, const struct vsc_trace *b)
{
	VSC_OPTS(vsc_trace_completeness, x);
	VSC_OPTS(vsc_trace_completeness, y);

	assert_int_equal(vsc_trace_completeness(a, &x), 0);
	assert_int_equal(vsc_trace_completeness(b, &y), 0);
	assert_int_equal(x.state, y.state);
	assert_int_equal(x.recorded, y.recorded);
	assert_int_equal(x.has_trailer, y.has_trailer);
	assert_int_equal(x.events, y.events);
	assert_int_equal(x.events_expected, y.events_expected);
	assert_int_equal(x.lost, y.lost);
	assert_int_equal(x.lost_exact, y.lost_exact);
	assert_int_equal(x.uncertain, y.uncertain);
	assert_string_equal(x.why, y.why);
	assert_int_equal(vsc_trace_lost_events(a), vsc_trace_lost_events(b));
}

static void free_handed(struct handed *h)
{
	for (size_t i = 0; i < h->count; i++)
		vsc_program_free(h->programs[i]);
	h->count = 0;
}

/* The line of the first message ("t.vsc:LINE:COL: ..."), 0 when none. */
static unsigned first_error_line(const struct log *l)
{
	unsigned line = 0;

	if (l->count)
		sscanf(l->text, "t.vsc:%u:", &line);
	return line;
}

/* Every event handed over comes from before the first bad line. */
static void nothing_after_error(const struct handed *h, unsigned bad_line)
{
	for (size_t i = 0; i < h->count; i++) {
		const struct vsc_program *p = h->programs[i];
		for (size_t t = 0; t < vsc_program_thread_count(p); t++)
			for (size_t e = 0; e < vsc_program_thread_length(p, t); e++)
				assert_true(vsc_program_event_line(p, t, e) < bad_line);
	}
}

/* Parse text both ways and compare; returns whether it parsed. */
static bool compare_one(const char *text, size_t len)
{
	struct log whole_log, stream_log;
	struct handed h = { .count = 0 };
	struct vsc_trace *whole = parse(text, len, &whole_log, NULL);
	int whole_errno = errno;
	struct vsc_trace *stream = parse(text, len, &stream_log, &h);
	int stream_errno = errno;

	assert_string_equal(whole_log.text, stream_log.text);
	assert_int_equal(whole == NULL, stream == NULL);
	if (!whole) {
		assert_int_equal(whole_errno, stream_errno);
		if (stream_log.count)
			nothing_after_error(&h, first_error_line(&stream_log));
		free_handed(&h);
		return false;
	}
	assert_int_equal(vsc_trace_program_count(stream), 0);
	assert_int_equal(vsc_trace_program_count(whole), h.count);
	for (size_t i = 0; i < h.count; i++)
		same_program(vsc_trace_program(whole, i), h.programs[i]);
	same_completeness(whole, stream);
	free_handed(&h);
	vsc_trace_free(whole);
	vsc_trace_free(stream);
	return true;
}

static void test_random_traces(void **state)
{
	unsigned seed = 14, parsed = 0;

	(void)state;
	for (int round = 0; round < ROUNDS; round++) {
		size_t len;
		char *text = random_trace(&seed, &len);
		if (round % 2)
			damage(&seed, text, &len);
		parsed += compare_one(text, len);
		free(text);
	}
	/* both kinds were compared: the damage is not always fatal */
	assert_true(parsed > ROUNDS / 2 && parsed < ROUNDS - ROUNDS / 10);
}

/* The unnamed execution before the first segment is handed over only when
 * it has events; a file without segments is one execution, handed at its
 * end; an empty file is one empty execution. */
static void test_forms(void **state)
{
	static const char *const texts[] = {
		"init x 0\nsegment a\nT1 r x 0\nsegment b\nT1 w x 1\n",
		"T1 w x 1\nsegment a\nT1 r x 0\n",
		"T1 w x 1\nT2 r x 1\n",
		"",
		"segment a\n",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		assert_true(compare_one(texts[i], strlen(texts[i])));
}

/* A callback that fails stops the parse with its errno: nothing more is
 * handed over, and no trace comes back. */
static void test_callback_stops(void **state)
{
	const char *text = "segment 0\nT1 w x 1\nsegment 1\nT1 w x 2\nsegment 2\nT1 w x 3\n";
	struct handed h = { .fail_at = 2 };
	struct log l;
	struct vsc_trace *trace;

	(void)state;
	trace = parse(text, strlen(text), &l, &h);
	assert_null(trace);
	assert_int_equal(errno, ECANCELED);
	assert_int_equal(h.count, 2);
	free_handed(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_traces),
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_callback_stops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
