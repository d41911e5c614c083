/* SPDX-License-Identifier: MIT */
/*
 * The one trace writer (internal to libvsc, shared by every capture path:
 * USDT probes, watchpoints, LTTng conversion, lab runs).
 *
 * Feed it capture events in any arrival order; it groups them per thread in
 * program order (the per-thread sequence number), splits them at segment
 * markers, names variables through a callback, and writes a trace per
 * shared/CONTRACT.md sections 1 and 4.
 *
 * Output shape:
 *   vsc 1
 *   # vsc trace recorded ...      header comments, one fact per line:
 *   # what: / how: / when: / kernel: / arch: / events: / threads:
 *   # lost events: N              exactly this form; the parser reads it
 *   init VAR VALUE | init VAR ?
 *   TID r|w|u VAR VALUE [NEW] @TS [# func+off file:line]
 *
 * Rules it follows (docs/record.md says the same to users):
 * - Values are sign-extended from the access size and written as signed
 *   64-bit decimals, so a 4-byte -1 reads "-1" whoever recorded it.
 * - A variable whose initial value the init callback knows gets
 *   `init VAR VALUE` (only in the first execution of the file); any other
 *   variable that is read gets `init VAR ?`: memory always held some one
 *   value before recording began, and `?` says exactly that.
 * - Events with the same thread and sequence number are one event seen
 *   twice; one is kept.
 * - Lost events: the larger of what the capture reported (add_lost) and the
 *   holes found in per-thread sequence numbers.
 * - With segment markers, every execution is a named segment (events before
 *   a thread's first marker go to a segment named "start"); init lines are
 *   written inside each segment, never before the first one.
 */
#ifndef VSC_TRACE_WRITER_H
#define VSC_TRACE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../bpf/vsc_event.h"

struct vsc_trace_writer;

/* Name the variable at addr in process pid: write a NUL-terminated token
 * into buf and return 0, or return a negative errno to get a hex address.
 * The writer replaces characters outside [A-Za-z0-9_.:-] with '_' and keeps
 * names unique (a second address with the same name gets its hex address). */
typedef int (*vsc_tw_name_fn)(void *ctx, uint32_t pid, uint64_t addr, uint32_t size,
			      char *buf, size_t len);
/* Initial value of the variable at addr: return 1 and set *value (raw bits,
 * the writer sign-extends from size), or 0 when it is not known. */
typedef int (*vsc_tw_init_fn)(void *ctx, uint32_t pid, uint64_t addr, uint32_t size,
			      int64_t *value);
/* Source location of an instruction pointer, for the trailing comment
 * ("func+off file:line"): return 0 and fill buf, or a negative errno. */
typedef int (*vsc_tw_locate_fn)(void *ctx, uint32_t pid, uint64_t ip, char *buf,
				size_t len);
/* Name of segment number `id` (from a VSC_CAP_SEGMENT event): return 0 and
 * fill buf, or a negative errno for the default name (the decimal id). */
typedef int (*vsc_tw_segment_fn)(void *ctx, uint32_t pid, int64_t id, uint64_t name_addr,
				 char *buf, size_t len);

struct vsc_trace_writer_opts {
	size_t sz;
	const char *what; /* "# what:" line, e.g. the command line or "pid 42 (name)" */
	const char *how;  /* "# how:" line, e.g. "eBPF USDT probes, provider vsc" */
	const char *when; /* "# when:" line; NULL: the time vsc_trace_writer_new ran */
	vsc_tw_name_fn name_var;
	vsc_tw_init_fn init_value;
	vsc_tw_locate_fn locate;
	vsc_tw_segment_fn name_segment;
	void *ctx;          /* passed to every callback */
	bool no_timestamps; /* leave out the @TS hints */
	uint64_t min_ts;    /* drop events with ts_ns < min_ts (stale batches) */
};

/* NULL opts means all defaults. Returns NULL and sets errno on failure. */
struct vsc_trace_writer *vsc_trace_writer_new(const struct vsc_trace_writer_opts *opts);
void vsc_trace_writer_free(struct vsc_trace_writer *w);

/* Take one event (copied). Returns 0 or -ENOMEM / -EINVAL (bad kind/size). */
int vsc_trace_writer_add(struct vsc_trace_writer *w, const struct vsc_capture_event *ev);
/* Count events the capture lost (ring buffer full, discarded packets...). */
void vsc_trace_writer_add_lost(struct vsc_trace_writer *w, uint64_t lost);
/* Add one more "# KEY: VALUE" header line (e.g. "exit status"). */
int vsc_trace_writer_note(struct vsc_trace_writer *w, const char *key, const char *value);

/* Events kept so far (memory events and segment markers). */
size_t vsc_trace_writer_event_count(const struct vsc_trace_writer *w);
/* Lost events as the header will say (only final after a write). */
uint64_t vsc_trace_writer_lost(const struct vsc_trace_writer *w);

/* Write the trace. Returns 0 or a negative errno. */
int vsc_trace_writer_write(struct vsc_trace_writer *w, FILE *out);
/* Write to path ("-" is standard output), a new file created with mode 0600
 * (an existing file is truncated and set to 0600). */
int vsc_trace_writer_write_file(struct vsc_trace_writer *w, const char *path);

#endif /* VSC_TRACE_WRITER_H */
