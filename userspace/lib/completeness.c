/* SPDX-License-Identifier: MIT */
/* Is a recorded trace whole? The header and trailer comments of a recorded
 * trace (docs/format.md, "Recorded traces") are read here while the parser
 * goes, then compared with what the file really holds. Anything that cannot
 * be read counts against the trace: a verdict from missing data is wrong. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "trace.h"

#define SEE_END "see end of trace"

struct text {
	const char *s, *end;
};

static void skip_blanks(struct text *t)
{
	while (t->s < t->end && (*t->s == ' ' || *t->s == '\t'))
		t->s++;
}

/* Drop trailing blanks and a '\r' of a CRLF line end. */
static void trim_end(struct text *t)
{
	while (t->end > t->s && (t->end[-1] == ' ' || t->end[-1] == '\t' || t->end[-1] == '\r'))
		t->end--;
}

static bool take_word(struct text *t, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(t->end - t->s) < n || memcmp(t->s, word, n) != 0)
		return false;
	t->s += n;
	return true;
}

/* Decimal digits (at least one) of a number that fits 64 bits: a count
 * past that is not read as some other number (it saturated before). */
static bool take_count(struct text *t, uint64_t *out)
{
	const char *start = t->s;
	uint64_t n = 0;
	bool fits = true;

	for (; t->s < t->end && *t->s >= '0' && *t->s <= '9'; t->s++) {
		uint64_t d = (uint64_t)(*t->s - '0');
		fits = fits && n <= (UINT64_MAX - d) / 10;
		n = n * 10 + d;
	}
	*out = fits ? n : 0;
	return t->s > start && fits;
}

static bool is_rest(const struct text *t, const char *word)
{
	size_t n = strlen(word);
	return (size_t)(t->end - t->s) == n && memcmp(t->s, word, n) == 0;
}

enum count_form {
	COUNT_EXACT,
	COUNT_AT_LEAST,
	COUNT_DEFERRED,
	COUNT_BAD /* none of the forms: an error in the input */
};

/* The value of a header count: `N`, `at least N` or `see end of trace`.
 * Anything else (`3x`, `many`, 20 digits) is bad input: read as `at least
 * 3` it gave a verdict's reason a number nobody wrote. */
static enum count_form header_count(struct text t, uint64_t *n)
{
	bool at_least = take_word(&t, "at least ");

	*n = 0;
	if (!at_least && is_rest(&t, SEE_END))
		return COUNT_DEFERRED;
	if (!take_count(&t, n) || t.s != t.end)
		return COUNT_BAD;
	return at_least ? COUNT_AT_LEAST : COUNT_EXACT;
}

static bool note_lost(struct vsc_trace *trace, struct text t)
{
	struct trace_completeness *c = &trace->comp;
	uint64_t n;
	enum count_form form = header_count(t, &n);

	if (n > trace->lost_events)
		trace->lost_events = n;
	if (form == COUNT_DEFERRED)
		c->lost_deferred = true;
	else if (form != COUNT_EXACT)
		c->lost_inexact = true;
	return form != COUNT_BAD;
}

static bool note_uncertain(struct trace_completeness *c, struct text t)
{
	uint64_t n;
	enum count_form form = header_count(t, &n);

	if (n > c->uncertain)
		c->uncertain = n;
	if (form == COUNT_DEFERRED)
		c->uncertain_deferred = true;
	else if (form != COUNT_EXACT)
		c->uncertain_unreadable = true;
	return form != COUNT_BAD;
}

/* A count kept as the largest given, any inexact one making it unreadable:
 * `# uncertain threads: N` (N thread ids may each stand for several
 * threads: a converter could not exclude an id used again) and
 * `# uncertain memory: N` (N objects the target maps shared may be
 * written by processes the recording does not see). */
static bool note_largest(struct text t, uint64_t *largest, bool *unreadable)
{
	uint64_t n;
	enum count_form form = header_count(t, &n);

	if (form != COUNT_EXACT)
		*unreadable = true;
	if (n > *largest)
		*largest = n;
	return form != COUNT_BAD;
}

/* A free-text note for the reason (`# written outside the recording: WHO`,
 * `# loss not known exactly: WHY`, `# values not observed exactly: WHY`):
 * the first is kept. */
static void note_first_text(char *to, size_t len, const struct text *t)
{
	size_t n = (size_t)(t->end - t->s);

	if (to[0])
		return;
	if (n >= len)
		n = len - 1;
	memcpy(to, t->s, n);
	to[n] = '\0';
}

static bool note_events(struct trace_completeness *c, struct text t)
{
	uint64_t n;
	enum count_form form = header_count(t, &n);

	c->header_events = true;
	if (form == COUNT_EXACT) {
		c->header_events_known = true;
		c->header_event_count = n;
	}
	return form != COUNT_BAD;
}

/* `events=N lost=L uncertain=U`, where L may be `>=L`. */
static void note_trailer(struct trace_completeness *c, struct text *t, uint32_t line)
{
	bool ok = take_word(t, "events=") && take_count(t, &c->trailer_events);

	c->trailer_line = line;
	skip_blanks(t);
	ok = ok && take_word(t, "lost=");
	c->trailer_lost_inexact = ok && take_word(t, ">=");
	ok = ok && take_count(t, &c->trailer_lost);
	skip_blanks(t);
	ok = ok && take_word(t, "uncertain=") && take_count(t, &c->trailer_uncertain);
	c->trailer_ok = ok && t->s == t->end;
}

static void note_loss_mode(struct trace_completeness *c, const struct text *t)
{
	size_t n = (size_t)(t->end - t->s);

	if (n >= sizeof(c->loss_mode))
		n = sizeof(c->loss_mode) - 1;
	memcpy(c->loss_mode, t->s, n);
	c->loss_mode[n] = '\0';
}

/* The comment's key, and the text after it and its blanks, in *t. */
static const char *take_key(struct text *t, bool leading)
{
	static const char *const anywhere[] = { "lost events:",
						"uncertain values:",
						"uncertain threads:",
						"uncertain memory:",
						"written outside the recording:",
						"loss not known exactly:",
						"values not observed exactly:",
						"end of trace:" };
	static const char *const in_header[] = { "events:", "loss mode:" };

	for (size_t i = 0; i < sizeof(anywhere) / sizeof(*anywhere); i++)
		if (take_word(t, anywhere[i]))
			return skip_blanks(t), anywhere[i];
	for (size_t i = 0; leading && i < sizeof(in_header) / sizeof(*in_header); i++)
		if (take_word(t, in_header[i]))
			return skip_blanks(t), in_header[i];
	return NULL;
}

bool completeness_note_comment(struct vsc_trace *trace, const char *s, const char *end,
			       uint32_t line, bool leading, struct bad_count *bad)
{
	struct trace_completeness *c = &trace->comp;
	struct text t = { s, end };
	const char *key;
	bool ok = true;

	skip_blanks(&t);
	trim_end(&t);
	key = take_key(&t, leading);
	if (!key)
		return true;
	if (strcmp(key, "lost events:") == 0)
		ok = note_lost(trace, t);
	else if (strcmp(key, "uncertain values:") == 0)
		ok = note_uncertain(c, t);
	else if (strcmp(key, "uncertain threads:") == 0)
		ok = note_largest(t, &c->uncertain_threads, &c->uncertain_threads_unreadable);
	else if (strcmp(key, "uncertain memory:") == 0)
		ok = note_largest(t, &c->uncertain_memory, &c->uncertain_memory_unreadable);
	else if (strcmp(key, "written outside the recording:") == 0)
		note_first_text(c->memory_who, sizeof(c->memory_who), &t);
	else if (strcmp(key, "loss not known exactly:") == 0)
		note_first_text(c->loss_why, sizeof(c->loss_why), &t);
	else if (strcmp(key, "values not observed exactly:") == 0)
		note_first_text(c->values_why, sizeof(c->values_why), &t);
	else if (strcmp(key, "end of trace:") == 0)
		note_trailer(c, &t, line); /* a bad one cuts the trace short */
	else if (strcmp(key, "events:") == 0)
		ok = note_events(c, t);
	else
		note_loss_mode(c, &t);
	if (!ok)
		*bad = (struct bad_count){ .key = key, .s = t.s, .end = t.end };
	return ok;
}

bool completeness_note_event_comment(struct vsc_trace *trace, const char *s, const char *end)
{
	static const char mark[] = "value unsure";
	size_t n = sizeof(mark) - 1;

	for (; s + n <= end; s++) {
		if (*s == 'v' && memcmp(s, mark, n) == 0) {
			trace->comp.unsure_lines++;
			return true;
		}
	}
	return false;
}

/* Why a recorded trace is cut short, or NULL when it is not. */
static const char *cut_short(struct trace_completeness *c, char *buf, size_t len)
{
	if (!c->trailer_line)
		return "it has no end-of-trace line";
	if (!c->trailer_ok)
		return "its end-of-trace line is incomplete";
	if (c->last_item_line > c->trailer_line)
		return "lines follow its end-of-trace line";
	if (c->trailer_events != c->events) {
		snprintf(buf, len, "its end-of-trace line says %llu events, the file has %llu",
			 (unsigned long long)c->trailer_events, (unsigned long long)c->events);
		return buf;
	}
	if (c->header_events_known && c->header_event_count != c->events) {
		snprintf(buf, len, "its header says %llu events, the file has %llu",
			 (unsigned long long)c->header_event_count, (unsigned long long)c->events);
		return buf;
	}
	return NULL;
}

/* "3 events were lost", "at least 3 events were lost", "an unknown number
 * of events were lost" at buf; returns the length written. */
static size_t say_count(char *buf, size_t len, bool exact, uint64_t n, const char *one,
			const char *many)
{
	unsigned long long v = (unsigned long long)n;
	int k = n == 1  ? snprintf(buf, len, "%s1 %s", exact ? "" : "at least ", one)
		: exact ? snprintf(buf, len, "%llu %s", v, many)
		: n     ? snprintf(buf, len, "at least %llu %s", v, many)
			: snprintf(buf, len, "an unknown number of %s", many);

	return k < 0 ? 0 : (size_t)k < len ? (size_t)k : len - 1;
}

/* "; " at why + n when something was said already; the new length. */
static size_t say_separator(char *why, size_t n, size_t len)
{
	if (n && n + 2 < len) {
		memcpy(why + n, "; ", 3);
		n += 2;
	}
	return n;
}

/* " (REASON)" at why + n, when there is one; the new length. */
static size_t say_reason(char *why, size_t n, size_t len, const char *reason)
{
	int k;

	if (!reason[0] || n + 4 >= len)
		return n;
	k = snprintf(why + n, len - n, " (%s)", reason);
	return k < 0 ? n : n + (size_t)k < len ? n + (size_t)k : len - 1;
}

static void say_incomplete(struct vsc_trace *trace)
{
	struct trace_completeness *c = &trace->comp;
	size_t n = 0, len = sizeof(c->why);

	if (trace->lost_events || c->lost_inexact) {
		n = say_count(c->why, len, !c->lost_inexact, trace->lost_events, "event was lost",
			      "events were lost");
		n = say_reason(c->why, n, len, c->lost_inexact ? c->loss_why : "");
	}
	if (c->uncertain || c->uncertain_unreadable) {
		n = say_separator(c->why, n, len);
		n += say_count(c->why + n, len - n, !c->uncertain_unreadable, c->uncertain,
			       "value was not observed exactly",
			       "values were not observed exactly");
		n = say_reason(c->why, n, len, c->values_why);
	}
	if (c->uncertain_threads || c->uncertain_threads_unreadable) {
		n = say_separator(c->why, n, len);
		n += say_count(c->why + n, len - n, !c->uncertain_threads_unreadable,
			       c->uncertain_threads, "thread may be several (its id used again)",
			       "threads may be several (their ids used again)");
	}
	if (c->uncertain_memory || c->uncertain_memory_unreadable) {
		n = say_separator(c->why, n, len);
		n += say_count(c->why + n, len - n, !c->uncertain_memory_unreadable,
			       c->uncertain_memory,
			       "shared memory object may be written by a process not recorded",
			       "shared memory objects may be written by processes not recorded");
		n = say_reason(c->why, n, len, c->memory_who);
	}
}

void completeness_finish(struct vsc_trace *trace)
{
	struct trace_completeness *c = &trace->comp;
	char detail[160];
	const char *cut;

	c->events = trace->handed_events;
	for (size_t i = 0; i < trace->count; i++)
		c->events += trace->programs[i]->event_count;
	if (c->trailer_line && c->trailer_ok) {
		if (c->trailer_lost > trace->lost_events)
			trace->lost_events = c->trailer_lost;
		c->lost_inexact = c->lost_inexact || c->trailer_lost_inexact;
		if (c->trailer_uncertain > c->uncertain)
			c->uncertain = c->trailer_uncertain;
	} else {
		/* a count promised at the end that never came is not known */
		c->lost_inexact = c->lost_inexact || c->lost_deferred;
		c->uncertain_unreadable = c->uncertain_unreadable || c->uncertain_deferred;
	}
	if (c->unsure_lines > c->uncertain)
		c->uncertain = c->unsure_lines;
	cut = c->header_events || c->trailer_line ? cut_short(c, detail, sizeof(detail)) : NULL;
	if (cut) {
		c->state = VSC_TRACE_CUT_SHORT;
		snprintf(c->why, sizeof(c->why), "the trace is cut short: %s", cut);
	} else if (trace->lost_events || c->lost_inexact || c->uncertain ||
		   c->uncertain_unreadable || c->uncertain_threads ||
		   c->uncertain_threads_unreadable || c->uncertain_memory ||
		   c->uncertain_memory_unreadable) {
		c->state = VSC_TRACE_INCOMPLETE;
		say_incomplete(trace);
	} else {
		c->state = VSC_TRACE_WHOLE;
		c->why[0] = '\0';
	}
}

int vsc_trace_completeness(const struct vsc_trace *trace, struct vsc_trace_completeness *out)
{
	const struct trace_completeness *c;
	struct vsc_trace_completeness full = { .sz = sizeof(full) };
	size_t sz;

	if (!trace || !out ||
	    out->sz < offsetof(struct vsc_trace_completeness, state) + sizeof(uint32_t))
		return -EINVAL;
	c = &trace->comp;
	full.state = c->state;
	full.recorded = c->header_events || c->trailer_line;
	full.has_trailer = c->trailer_line && c->trailer_ok;
	full.events = c->events;
	full.events_expected = full.has_trailer         ? c->trailer_events
			       : c->header_events_known ? c->header_event_count
							: c->events;
	full.lost = trace->lost_events;
	full.lost_exact = !c->lost_inexact;
	full.uncertain = c->uncertain;
	/* every count no more than the marks, each mark in one execution */
	full.uncertain_placed = !c->uncertain_unreadable && c->uncertain == c->unsure_lines &&
				c->unsure_shared == 0;
	full.loss_mode = c->loss_mode[0] ? c->loss_mode : NULL;
	full.uncertain_threads = c->uncertain_threads;
	full.uncertain_memory = c->uncertain_memory;
	full.why = c->why;
	sz = out->sz < sizeof(full) ? out->sz : sizeof(full);
	full.sz = out->sz;
	memcpy(out, &full, sz);
	return 0;
}
