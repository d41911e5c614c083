/* SPDX-License-Identifier: MIT */
/* --html FILE: one self-contained page (inline CSS and script, nothing
 * fetched) with the threads as lanes. An inconsistent execution shows its
 * core highlighted, with the events around each core event in its thread
 * (the violating neighbourhood) and the cycle as labelled arrows; a
 * consistent one shows a window of its witness with the preemptions. The
 * page never holds a whole long trace: a window of it, said so on the page.
 * The data is one JSON block the page's script draws (html_page.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "report.h"

#define HTML_AROUND 6            /* events shown on each side of a core event */
#define HTML_WITNESS_WINDOW 2000 /* witness steps shown */
#define HTML_PREFIX_WINDOW 200   /* last steps of a violating prefix shown */
#define HTML_MAX_LANES 64        /* threads named whole; past it, those shown */

extern const char html_page_head[], html_page_tail[];

/* A JSON string that cannot end the script element it sits in. */
static void put_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

struct shown {
	struct vsc_event_ref *ev;
	size_t count;
	size_t stop; /* a prefix: ev[stop..] are where it stops, each thread's next */
};

/* The core's events and their neighbours in their threads, and the events
 * of every step the page draws, sorted. */
static int around_core(const struct item *it, struct shown *s)
{
	size_t n, listed;
	struct story_step *steps = story_steps(it->core, &n, &listed);
	int err = steps ? picture_events(it, HTML_AROUND, steps, n, &s->ev, &s->count) : -1;

	free(steps);
	return err;
}

/* The first steps of the witness, in its order. */
static int witness_window(const struct item *it, struct shown *s)
{
	const uint32_t *w;
	size_t n = vsc_result_witness(it->res, &w), k = vsc_program_thread_count(it->prog);
	size_t *next = calloc(k + 1, sizeof(*next));

	s->count = n < HTML_WITNESS_WINDOW ? n : HTML_WITNESS_WINDOW;
	s->ev = malloc((s->count + 1) * sizeof(*s->ev));
	if (!next || !s->ev) {
		free(next);
		return -1;
	}
	for (size_t i = 0; i < s->count; i++)
		s->ev[i] = (struct vsc_event_ref){ w[i], (uint32_t)next[w[i]]++ };
	free(next);
	return 0;
}

/* The last HTML_PREFIX_WINDOW steps of the violating prefix, in its
 * order, then the next event of each thread that it stops before. */
static int prefix_window(const struct item *it, struct shown *s)
{
	const struct html_prefix *pre = it->prefix;
	size_t k = vsc_program_thread_count(it->prog), from = 0;
	size_t *next = calloc(k + 1, sizeof(*next));

	if (pre->steps > HTML_PREFIX_WINDOW)
		from = pre->steps - HTML_PREFIX_WINDOW;
	s->ev = malloc((pre->steps - from + k + 1) * sizeof(*s->ev));
	if (!next || !s->ev) {
		free(next);
		return -1;
	}
	s->count = 0;
	for (size_t i = 0; i < pre->steps; i++) {
		uint32_t t = pre->witness[i];
		if (i >= from)
			s->ev[s->count++] = (struct vsc_event_ref){ t, (uint32_t)next[t] };
		next[t]++;
	}
	s->stop = s->count;
	for (size_t t = 0; t < k; t++)
		if (pre->cut[t] < vsc_program_thread_length(it->prog, t))
			s->ev[s->count++] = (struct vsc_event_ref){ (uint32_t)t, pre->cut[t] };
	free(next);
	return 0;
}

/* What the page shows of an execution: a window of its witness, or its
 * core's neighbourhood (none when it has neither); with prefix, the
 * window of its violating prefix instead. */
static int shown_of(const struct item *it, struct shown *s, bool prefix)
{
	s->ev = NULL;
	s->count = 0;
	s->stop = SIZE_MAX;
	if (prefix)
		return it->prefix ? prefix_window(it, s) : 0;
	if (it->status == EXIT_CONSISTENT && it->res)
		return witness_window(it, s);
	return it->core ? around_core(it, s) : 0;
}

int html_shown_events(const struct item *it, struct vsc_event_ref **events, size_t *count)
{
	struct shown s, pre = { 0 };
	int err = shown_of(it, &s, false);
	struct vsc_event_ref *both;

	if (!err)
		err = shown_of(it, &pre, true);

	*events = s.ev;
	*count = s.count;
	if (err || !pre.count) {
		free(pre.ev);
		return err ? -1 : 0;
	}
	both = realloc(s.ev, (s.count + pre.count) * sizeof(*both));
	if (both) {
		memcpy(both + s.count, pre.ev, pre.count * sizeof(*both));
		*events = both;
		*count = s.count + pre.count;
	}
	free(pre.ev);
	return both ? 0 : -1;
}

/* Its place among the events shown (a core's are sorted), s->count when
 * it is not shown. */
static size_t find_shown(const struct shown *s, struct vsc_event_ref r)
{
	const struct vsc_event_ref *at = bsearch(&r, s->ev, s->count, sizeof(r), event_ref_compare);

	return at ? (size_t)(at - s->ev) : s->count;
}

static int in_core(const struct item *it, struct vsc_event_ref r)
{
	const struct vsc_event_ref *core;
	size_t n = it->core ? vsc_core_events(it->core, &core) : 0;
	return n && bsearch(&r, core, n, sizeof(r), event_ref_compare) != NULL;
}

static void put_events(FILE *out, const struct file_report *f, const struct item *it,
		       const struct shown *s)
{
	fputs(",\"ev\":[", out);
	for (size_t i = 0; i < s->count; i++) {
		struct vsc_event_ref r = s->ev[i];
		uint32_t line = vsc_program_event_line(it->prog, r.thread, r.index);
		char label[256];
		story_event(it->prog, r, label, sizeof(label));
		fprintf(out, "%s[%u,%u,", i ? "," : "", r.thread, r.index);
		put_string(out, strchr(label, ' ') + 1);
		fprintf(out, ",%u,", line);
		put_string(out, notes_find(f->notes, line));
		fprintf(out, ",%d,%d]", in_core(it, r), i >= s->stop);
	}
	fputc(']', out);
}

static const char *step_reason(const struct vsc_order *o, size_t why)
{
	switch (o->kind) {
	case VSC_ORDER_PROGRAM:
		return "program order";
	case VSC_ORDER_READS_FROM:
		return "reads-from: the only write of this value the read can see";
	case VSC_ORDER_READ_FIRST:
		return why ? "from-read: the read's source comes before this write, which "
			     "would hide the value"
			   : "from-read: the read sees the initial value, which this write "
			     "would hide";
	default:
		return "coherence: this write comes before the read, so it cannot fall "
		       "between the read and its only source";
	}
}

/* The steps of the explanation, as the text lists them (story_steps):
 * [before, after, kind, reason, number, depth], before and after as
 * places among the events shown; "steps_listed" when the page draws
 * fewer than the text lists. */
static void put_cycle(FILE *out, const struct item *it, const struct shown *s)
{
	static const char *const names[] = { "program-order", "reads-from", "from-read",
					     "coherence" };
	size_t n = 0, listed = 0;
	struct story_step *st = it->core ? story_steps(it->core, &n, &listed) : NULL;

	fputs(",\"cycle\":[", out);
	for (size_t i = 0; i < n; i++) {
		const struct vsc_order *why;
		size_t w = vsc_core_order_why(it->core, st[i].order, &why);
		fprintf(out, "%s[%zu,%zu,", i ? "," : "", find_shown(s, st[i].order->before),
			find_shown(s, st[i].order->after));
		put_string(out, names[st[i].order->kind]);
		fputc(',', out);
		put_string(out, step_reason(st[i].order, w));
		fputc(',', out);
		put_string(out, st[i].number);
		fprintf(out, ",%u]", st[i].depth);
	}
	fputc(']', out);
	if (listed > n)
		fprintf(out, ",\"steps_listed\":%zu", listed);
	free(st);
}

/* What the page says of the violating prefix. */
static void prefix_note(const struct item *it, const struct shown *s, char *note, size_t len)
{
	const struct html_prefix *pre = it->prefix;

	snprintf(note, len,
		 "violating prefix: an SC interleaving (verified) of %zu of %zu events, as far "
		 "as a greedy schedule gets (reads when memory holds their value, writes when "
		 "no read still needs the value they hide); its last %zu steps, then where it "
		 "stops: the next event of each unfinished thread",
		 pre->steps, vsc_program_event_count(it->prog), s->stop);
}

/* The threads' names, by number: every thread's in an array; past
 * HTML_MAX_LANES threads only those of the events shown, in an object (a
 * pool of 10^5 threads put 0.9 MB of names in the page). The script reads
 * them by number either way. 0, or -1 when out of memory. */
static int put_threads(FILE *out, const struct vsc_program *p, const struct shown *s)
{
	size_t k = vsc_program_thread_count(p), put = 0;
	bool *shown;

	if (k <= HTML_MAX_LANES) {
		for (size_t t = 0; t < k; t++) {
			fputs(t ? "," : "[", out);
			put_string(out, vsc_program_thread_name(p, t));
		}
		fputs(k ? "]" : "[]", out);
		return 0;
	}
	if (!(shown = calloc(k, sizeof(*shown))))
		return -1;
	for (size_t i = 0; i < s->count; i++)
		shown[s->ev[i].thread] = true;
	for (size_t t = 0; t < k; t++) {
		if (!shown[t])
			continue;
		fprintf(out, "%s\"%zu\":", put++ ? "," : "{", t);
		put_string(out, vsc_program_thread_name(p, t));
	}
	fputs(put ? "}" : "{}", out);
	free(shown);
	return 0;
}

static int put_execution(FILE *out, const struct file_report *f, const struct item *it, int first,
			 bool prefix)
{
	const char *name = vsc_program_name(it->prog);
	size_t total = vsc_program_event_count(it->prog);
	int witness = it->status == EXIT_CONSISTENT && it->res;
	struct shown s = { 0 };
	char title[1024], note[512];

	if (shown_of(it, &s, prefix))
		return -1;
	snprintf(title, sizeof(title), "%s%s%s: %s%s", f->path, name ? " segment " : "",
		 name ? name : "", verdict_name(it->status), prefix ? ", violating prefix" : "");
	if (prefix)
		prefix_note(it, &s, note, sizeof(note));
	else if (witness)
		snprintf(note, sizeof(note), "witness: steps 0 to %zu of %zu",
			 s.count ? s.count - 1 : 0, total);
	else if (it->core)
		snprintf(note, sizeof(note),
			 "core: %zu of %zu events%s, %s; with up to %d events on each side in "
			 "their threads",
			 vsc_core_events(it->core, NULL), total,
			 vsc_core_is_minimal(it->core) ? " (1-minimal)" : " (not minimal)",
			 story_proof(it->core), HTML_AROUND);
	else if (it->status == EXIT_INCONSISTENT)
		snprintf(note, sizeof(note), "no core to show: %s", story_no_core(it));
	else
		snprintf(note, sizeof(note), "no witness and no core to show");
	fputs(first ? "{\"title\":" : ",{\"title\":", out);
	put_string(out, title);
	fputs(",\"note\":", out);
	put_string(out, note);
	fprintf(out, ",\"mode\":\"%s\",\"threads\":",
		prefix    ? "prefix"
		: witness ? "witness"
			  : "core");
	if (put_threads(out, it->prog, &s)) {
		free(s.ev);
		return -1;
	}
	put_events(out, f, it, &s);
	if (prefix)
		fputs(",\"cycle\":[]", out);
	else
		put_cycle(out, it, &s);
	fputc('}', out);
	free(s.ev);
	return 0;
}

/* Inconsistent executions first, then the others, HTML_MAX_EXECUTIONS in all. */
static int put_executions(FILE *out, const struct file_report *files, size_t nfiles,
			  size_t *left_out)
{
	size_t put = 0, total = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < nfiles; i++) {
			struct item_cursor c;
			const struct item *it;

			for (items_begin(&c, &files[i]); files[i].trace && (it = items_next(&c));) {
				if ((it->status == EXIT_INCONSISTENT) != (pass == 0))
					continue;
				total++;
				if (put == HTML_MAX_EXECUTIONS)
					continue;
				if (put_execution(out, &files[i], it, put == 0, false))
					return -1;
				if (it->prefix && put_execution(out, &files[i], it, 0, true))
					return -1;
				put++;
			}
		}
	}
	*left_out = total - put;
	return 0;
}

int html_write(const char *path, const struct file_report *files, size_t nfiles)
{
	FILE *out = fopen(path, "w");
	size_t left_out = 0;
	int err;

	if (!out)
		return -1;
	fputs(html_page_head, out);
	fputs("<script type=\"application/json\" id=\"vsc-data\">{\"executions\":[", out);
	err = put_executions(out, files, nfiles, &left_out);
	fprintf(out, "],\"left_out\":%zu}</script>\n", left_out);
	fputs(html_page_tail, out);
	err = err || ferror(out);
	if (fclose(out) || err) {
		errno = errno ? errno : EIO;
		return -1;
	}
	return 0;
}
