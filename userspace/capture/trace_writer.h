/* SPDX-License-Identifier: MIT */
/*
 * The one trace writer of every capture path (USDT probes, watchpoints,
 * LTTng conversion, lab runs): capture events in, a .vsc trace out
 * (CONTRACT sections 1 and 4, docs/format.md), streamed.
 *
 *   trace_writer_open(&w, "-o path", &opts)   the destination, opened now
 *   trace_writer_add(w, &ev) ...              as events arrive
 *   trace_writer_add_lost(w, n); trace_writer_note(w, "key", "value")
 *   trace_writer_finish(w, NULL)              header counts, trailer
 *
 * Memory stays bounded whatever the length of the recording:
 * - Program order comes from the per-thread sequence numbers. Each thread's
 *   events should arrive in order (threads may interleave in any way, as
 *   the format allows); a thread holds up to `reorder_window` events that
 *   came early, waiting for the ones before them. A hole that is still
 *   open when the window is full, or at the end, is counted as lost.
 *   An event that comes after its place was passed is a duplicate (one
 *   event read twice, e.g. a log drained after its batch was sent: one is
 *   kept) or, before the thread's first event, a loss.
 * - Without segment markers the lines go out as they come. With them
 *   (VSC_CAP_SEGMENT), each `segment NAME` must hold every thread's events
 *   of that execution, and a thread may still come with events of an old
 *   one (a lab run's threads each send their whole log after the run):
 *   segments are held in memory, compactly (their lines, as text), and
 *   written in order at the end. Events before a thread's first marker
 *   belong to the execution before the first `segment` line, written as
 *   they come. When held segments and the names of their variables pass
 *   `held_limit` (96 MiB) the oldest is written all the same: its events
 *   that come later, and events for a recently written segment id, are
 *   counted as lost (never put into another execution).
 * - Names, initial values and locations are found once per address
 *   (trace_names.h); event lines are written as they come (trace_text.h).
 *   A variable that no open execution uses any more is forgotten when its
 *   last one is written, so a lab run with fresh variables in every
 *   iteration does not grow the names table with its length.
 *
 * Lost events: the larger of what the capture reported (add_lost) and the
 * holes in the sequence numbers, plus events that came too late to place.
 */
#ifndef VSC_CAPTURE_TRACE_WRITER_H
#define VSC_CAPTURE_TRACE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpf/vsc_event.h"
#include "trace_names.h"
#include "vsc/vsc.h" /* VSC_OPTS */

struct trace_writer;

/* Declared with VSC_OPTS (<vsc/vsc.h>), which sets sz; read by the
 * library's rule for an options struct's size (userspace/lib/opts.h). */
struct trace_writer_opts {
	size_t sz;
	const char *what;      /* "# what:" e.g. the command line or "pid 42 (name)" */
	const char *how;       /* "# how:" e.g. "eBPF USDT probes, provider vsc" */
	const char *when;      /* "# when:"; NULL: the time of trace_writer_open() */
	const char *loss_mode; /* "# loss mode:" ("block", "drop"); NULL: no such line */
	struct trace_naming naming;
	bool no_timestamps;    /* leave out the @TS hints */
	uint64_t min_ts;       /* drop events with ts_ns < min_ts (stale batches) */
	size_t reorder_window; /* early events held per thread; 0: the default */
	size_t held_limit;     /* bytes of held segments and their names; 0: the default */
};

#define TRACE_WRITER_DEFAULT_WINDOW 65536

/* Open the destination now (path "-": standard output; NULL: chosen by
 * trace_writer_finish()), so a recorder can refuse before it starts.
 * 0, or -errno (the path cannot be created or written, no memory). */
int trace_writer_open(struct trace_writer **out, const char *path,
		      const struct trace_writer_opts *opts);
/* The same on a stream the caller owns. */
int trace_writer_open_stream(struct trace_writer **out, FILE *stream,
			     const struct trace_writer_opts *opts);
/* Safe on NULL. A writer freed before trace_writer_finish() leaves its
 * destination without a trailer: a trace that says it was cut short. */
void trace_writer_free(struct trace_writer *w);
/* Before freeing a writer whose recording was refused: remove the output
 * file it created, or leave an existing one untouched. */
void trace_writer_discard(struct trace_writer *w);
/* The recording has begun: the destination's old content goes now (see
 * trace_text_begin()), so a recorder killed before the end leaves a trace
 * that says it was cut short. */
void trace_writer_begin(struct trace_writer *w);

/* Take one event. 0, -EINVAL (bad kind or size) or -ENOMEM. */
int trace_writer_add(struct trace_writer *w, const struct vsc_capture_event *ev);
/* Events of (pid, tid) from now on are those of its instance-th thread
 * (0: the first with this id; ids are reused, and a new thread's sequence
 * numbers start again). A higher instance ends the old thread (what it
 * still waits for is lost) and writes the new one under the token
 * TID.INSTANCE. 0, 1 when instance is older than the current one (its
 * events cannot be placed: the caller counts them lost), or -ENOMEM. */
int trace_writer_thread_instance(struct trace_writer *w, uint32_t pid, uint32_t tid,
				 uint32_t instance);
/* Events the capture lost (ring buffer full, discarded packets...). */
void trace_writer_add_lost(struct trace_writer *w, uint64_t lost);
/* The capture cannot tell exactly how many it lost: "at least". */
void trace_writer_lost_inexact(struct trace_writer *w);
/* One more "# KEY: VALUE" header line. 0 or -ENOMEM. */
int trace_writer_note(struct trace_writer *w, const char *key, const char *value);

/* The first write failure so far (negative errno), or 0: a recorder stops. */
int trace_writer_error(const struct trace_writer *w);

/* Write everything held, the header counts and the trailer, and flush.
 * out: the destination of a writer opened with path NULL (else NULL).
 * 0 or -errno (then there is no trailer). */
int trace_writer_finish(struct trace_writer *w, FILE *out);
/* The same into path ("-": standard output), for a writer opened with NULL. */
int trace_writer_finish_file(struct trace_writer *w, const char *path);

/* Event lines (r/w/u) written or held so far, lost and uncertain events as
 * the trailer says them (final after finish). */
uint64_t trace_writer_events(const struct trace_writer *w);
uint64_t trace_writer_lost(const struct trace_writer *w);
bool trace_writer_lost_exact(const struct trace_writer *w);
uint64_t trace_writer_uncertain(const struct trace_writer *w);
/* Variables accessed with mixed sizes or starts (trace_names.h: their
 * events are uncertain), and the first of them in words (NULL: none). */
uint64_t trace_writer_mixed(const struct trace_writer *w);
const char *trace_writer_mixed_why(const struct trace_writer *w);

#endif /* VSC_CAPTURE_TRACE_WRITER_H */
