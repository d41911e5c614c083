/* SPDX-License-Identifier: MIT */
/* A parsed trace file: one program per execution (segment). */
#ifndef VSC_TRACE_H
#define VSC_TRACE_H

#include "program.h"

/* What a recorded trace's comment lines said about its completeness
 * (docs/format.md, "Recorded traces"), and what that adds up to. */
struct trace_completeness {
	bool header_events;       /* a leading `# events:` line: a recorded trace */
	bool header_events_known; /* ... with a number, not `see end of trace` */
	uint64_t header_event_count;
	bool lost_inexact;  /* `at least`, `see end of trace` or unreadable */
	bool lost_deferred; /* `# lost events: see end of trace` */
	bool uncertain_unreadable;
	bool uncertain_deferred;
	uint64_t uncertain;    /* the largest `# uncertain values: N` */
	uint64_t unsure_lines; /* event lines whose comment says `value unsure` */
	/* of those, the lines no one execution holds (an init line before the
	 * first segment applies to every one): any execution may rest on them */
	uint64_t unsure_shared;
	/* the largest `# uncertain threads: N`: threads that may be several */
	uint64_t uncertain_threads;
	bool uncertain_threads_unreadable;
	/* the largest `# uncertain memory: N`: objects the target shares with
	 * processes outside the recording, and the first line saying who */
	uint64_t uncertain_memory;
	bool uncertain_memory_unreadable;
	char memory_who[400];
	/* `# values not observed exactly: WHY`: why values are uncertain */
	char values_why[400];
	/* `# loss not known exactly: WHY`: why the loss count is a lower bound */
	char loss_why[400];
	char loss_mode[16]; /* `# loss mode: WORD`, "" when absent */
	uint32_t last_item_line;
	/* the last `# end of trace:` line */
	uint32_t trailer_line; /* 0: none */
	bool trailer_ok;       /* it held all three counts */
	bool trailer_lost_inexact;
	uint64_t trailer_events, trailer_lost, trailer_uncertain;
	/* the sum, set once parsing is done */
	uint32_t state; /* enum vsc_trace_state */
	uint64_t events;
	char why[1024];
};

struct vsc_trace {
	struct vsc_program **programs;
	size_t count;
	size_t cap;
	uint64_t lost_events;   /* the largest `# lost events: N` (or trailer lost=) */
	uint64_t handed_events; /* of the programs handed to on_program, not kept here */
	struct trace_completeness comp;
};

/* A count that is none of `N`, `at least N`, `see end of trace`: its key
 * (`lost events:`) and its text, for the parser's message. */
struct bad_count {
	const char *key;
	const char *s, *end;
};

/* A whole-line comment, from after its '#' to the line end. leading: no
 * item came before it (header keys other than lost events count only
 * there). false (and *bad) when it holds a count that cannot be read: bad
 * input, as a verdict's reasons must not rest on a guess at it. */
bool completeness_note_comment(struct vsc_trace *trace, const char *s, const char *end,
			       uint32_t line, bool leading, struct bad_count *bad);
/* The comment that ends an event line, from after its '#': does it mark the
 * line's value unsure? */
bool completeness_note_event_comment(struct vsc_trace *trace, const char *s, const char *end);
/* Once every line is read: compare the counts, set state and why. */
void completeness_finish(struct vsc_trace *trace);

#endif
