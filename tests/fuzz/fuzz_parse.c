/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the text trace parser. Beyond "no crash, no leak,
 * no undefined behaviour", it checks what must hold for every input:
 *  - a rejected input reports at least one message, each starting with
 *    "FILE:LINE:COL: " (or the final "FILE: too many errors" line);
 *  - an accepted input walks cleanly through every accessor, and each of
 *    its programs, written back with vsc_program_write() and parsed again,
 *    is the same program;
 *  - every value an event reads or writes lies in the span its variable
 *    keeps (program.h: the greedy run indexes its table by it);
 *  - its completeness (recorded traces) agrees with what was parsed;
 *  - read as a stream (in pieces of whole lines: this build makes them
 *    64 bytes), and for half the inputs without line numbers, it gives the
 *    same trace (line numbers 0 then), or the same first message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vsc/vsc.h"
#include "program.h"

struct sink {
	unsigned count;
	int bad_form;
	char first[512];
};

static void on_error(void *ctx, const char *message)
{
	struct sink *s = ctx;
	unsigned line, col;
	char colon;

	if (s->count++ == 0)
		snprintf(s->first, sizeof(s->first), "%s", message);
	if (strncmp(message, "f.vsc:", 6) != 0) {
		s->bad_form = 1;
		return;
	}
	if (strcmp(message, "f.vsc: too many errors, stopping") == 0)
		return;
	if (sscanf(message + 6, "%u:%u%c", &line, &col, &colon) != 3 || colon != ':' || line == 0 ||
	    col == 0)
		s->bad_form = 1;
}

static void same_program(const struct vsc_program *a, const struct vsc_program *b)
{
	if (vsc_program_thread_count(a) != vsc_program_thread_count(b) ||
	    vsc_program_event_count(a) != vsc_program_event_count(b) ||
	    vsc_program_writers(a) != vsc_program_writers(b))
		abort();
	for (size_t t = 0; t < vsc_program_thread_count(a); t++) {
		size_t n = vsc_program_thread_length(a, t);
		if (strcmp(vsc_program_thread_name(a, t), vsc_program_thread_name(b, t)) != 0 ||
		    n != vsc_program_thread_length(b, t))
			abort();
		const struct vsc_event *ea = vsc_program_events(a, t),
				       *eb = vsc_program_events(b, t);
		for (size_t i = 0; i < n; i++) {
			int64_t ia = 0, ib = 0;
			if (ea[i].kind != eb[i].kind || ea[i].value != eb[i].value ||
			    (ea[i].kind == VSC_RMW && ea[i].new_value != eb[i].new_value) ||
			    strcmp(vsc_program_var_name(a, ea[i].var),
				   vsc_program_var_name(b, eb[i].var)) != 0 ||
			    vsc_program_event_ts(a, t, i) != vsc_program_event_ts(b, t, i))
				abort();
			if (vsc_program_var_init(a, ea[i].var, &ia) !=
				    vsc_program_var_init(b, eb[i].var, &ib) ||
			    ia != ib)
				abort();
		}
	}
}

/* Every value lies in its variable's span, read as the greedy run reads
 * it (packed when the parser kept it so). */
static void spans_hold(const struct vsc_program *p)
{
	enum packing packed = program_packed(p);

	for (uint32_t t = 0; t < program_threads(p); t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++) {
			const struct vsc_event ev = thread_event(&p->threads[t], packed, i),
					       *e = &ev;
			const struct vsc_var_init *in = &p->inits[e->var];
			int64_t w = e->kind == VSC_RMW ? e->new_value : e->value;
			if (e->value < in->least || e->value > in->most || w < in->least ||
			    w > in->most)
				abort();
		}
}

/* Unpacked, the events are the packed ones, field by field (decoded
 * first: unpacking frees the packed arrays). */
static void unpacks_same(const struct vsc_program *p)
{
	enum packing packed = program_packed(p);
	struct vsc_event *all = malloc((p->event_count ? p->event_count : 1) * sizeof(*all));
	size_t n = 0;

	if (!all)
		return;
	for (uint32_t t = 0; t < program_threads(p); t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++)
			all[n++] = thread_event(&p->threads[t], packed, i);
	if (program_unpack(p) || program_packed(p))
		abort();
	n = 0;
	for (uint32_t t = 0; t < program_threads(p); t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++, n++) {
			const struct vsc_event *a = &all[n], *b = &p->threads[t].events[i];
			if (a->kind != b->kind || a->var != b->var || a->value != b->value ||
			    a->new_value != b->new_value || (packed && p->threads[t].packed))
				abort();
		}
	free(all);
}

static void round_trip(const struct vsc_program *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct sink sink = { 0 };

	spans_hold(p);
	unpacks_same(p);
	if (!f)
		return;
	if (vsc_program_write(p, f))
		abort();
	fclose(f);
	VSC_OPTS(vsc_parse_opts, opts, .filename = "f.vsc", .on_error = on_error,
		 .error_ctx = &sink);
	struct vsc_trace *again = vsc_trace_parse_buffer(text, len, &opts);
	if (!again || vsc_trace_program_count(again) != 1)
		abort(); /* what we write, we must read */
	same_program(p, vsc_trace_program(again, 0));
	vsc_trace_free(again);
	free(text);
}

/* What the completeness query says must fit the file: its event count,
 * a reason exactly when the trace is not whole, and only a recorded trace
 * can be cut short. */
static void check_completeness(const struct vsc_trace *trace, size_t events)
{
	VSC_OPTS(vsc_trace_completeness, c);

	if (vsc_trace_completeness(trace, &c) || c.events != events ||
	    c.state > VSC_TRACE_CUT_SHORT || !c.why || (c.why[0] == '\0') != (c.state == 0) ||
	    (c.state == VSC_TRACE_CUT_SHORT && !c.recorded) ||
	    (c.state == VSC_TRACE_WHOLE && (c.lost || c.uncertain || !c.lost_exact)))
		abort();
}

/* The same events on the same lines (b's all 0 with no_lines), and the same
 * names and segments. */
static void same_trace(const struct vsc_trace *a, const struct vsc_trace *b, bool no_lines)
{
	if (vsc_trace_program_count(a) != vsc_trace_program_count(b) ||
	    vsc_trace_lost_events(a) != vsc_trace_lost_events(b))
		abort();
	for (size_t i = 0; i < vsc_trace_program_count(a); i++) {
		const struct vsc_program *p = vsc_trace_program(a, i), *q = vsc_trace_program(b, i);
		const char *np = vsc_program_name(p), *nq = vsc_program_name(q);
		if (!np != !nq || (np && strcmp(np, nq) != 0) ||
		    vsc_program_var_count(p) != vsc_program_var_count(q))
			abort();
		same_program(p, q);
		for (size_t t = 0; t < vsc_program_thread_count(p); t++)
			for (size_t e = 0; e < vsc_program_thread_length(p, t); e++)
				if (vsc_program_event_line(q, t, e) !=
				    (no_lines ? 0 : vsc_program_event_line(p, t, e)))
					abort();
	}
}

/* data read through stdio in pieces against data parsed as one buffer. */
static void same_as_stream(const uint8_t *data, size_t size, const struct vsc_trace *whole,
			   const struct sink *whole_sink)
{
	struct sink sink = { 0 };
	bool no_lines = size & 1; /* half the inputs without line numbers */
	VSC_OPTS(vsc_parse_opts, opts, .filename = "f.vsc", .on_error = on_error,
		 .error_ctx = &sink, .no_event_lines = no_lines);
	FILE *f = size ? fmemopen((void *)data, size, "r") : NULL;
	struct vsc_trace *trace;

	if (!f)
		return;
	trace = vsc_trace_parse_stream(f, &opts);
	fclose(f);
	if (!trace != !whole || strcmp(sink.first, whole_sink->first) != 0)
		abort();
	if (trace)
		same_trace(whole, trace, no_lines);
	vsc_trace_free(trace);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sink sink = { 0 };
	VSC_OPTS(vsc_parse_opts, opts, .filename = "f.vsc", .on_error = on_error,
		 .error_ctx = &sink);
	struct vsc_trace *trace = vsc_trace_parse_buffer((const char *)data, size, &opts);

	same_as_stream(data, size, trace, &sink);
	if (!trace) {
		if (sink.count == 0 || sink.bad_form)
			abort();
		return 0;
	}
	if (sink.count != 0 || vsc_trace_program_count(trace) == 0)
		abort();
	size_t file_events = 0;
	for (size_t i = 0; i < vsc_trace_program_count(trace); i++) {
		const struct vsc_program *p = vsc_trace_program(trace, i);
		size_t events = 0;
		for (size_t t = 0; t < vsc_program_thread_count(p); t++) {
			events += vsc_program_thread_length(p, t);
			for (size_t e = 0; e < vsc_program_thread_length(p, t); e++)
				if (vsc_program_events(p, t)[e].var >= vsc_program_var_count(p) ||
				    vsc_program_event_line(p, t, e) == 0)
					abort();
		}
		if (events != vsc_program_event_count(p))
			abort();
		file_events += events;
		round_trip(p);
	}
	check_completeness(trace, file_events);
	vsc_trace_free(trace);
	return 0;
}
