/* SPDX-License-Identifier: MIT */
/*
 * The text side of the trace writer: where the lines of a recorded trace go,
 * how an event line reads, the header and the trailer (docs/format.md,
 * "Recorded traces").
 *
 * Event lines are written as they come, never held in memory. The header
 * says how many there are, so when the destination is a regular file (or
 * not chosen yet) the lines go to a spill file first (an unnamed file next
 * to the output, or in $TMPDIR), and the end writes header, lines and
 * trailer. When it is a pipe or a terminal, the header goes first and says
 * "see end of trace" for the counts; the trailer has them.
 *
 * The trailer `# end of trace: events=N lost=L uncertain=U` is written last,
 * only when everything before it was written: a trace without it was cut
 * short. The first write error is kept; after it nothing more is written.
 */
#ifndef VSC_CAPTURE_TRACE_TEXT_H
#define VSC_CAPTURE_TRACE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpf/vsc_event.h"

/* Longest event line: a 64-character name, three numbers, a location. */
#define TRACE_LINE_MAX 512
#define TRACE_LOC_MAX 300

struct trace_note {
	char *key, *value;
};

/* What the header says, apart from the counts. */
struct trace_header {
	const char *what, *how, *when, *loss_mode;
	const struct trace_note *notes;
	size_t note_count;
};

struct trace_counts {
	uint64_t threads, events, lost, uncertain;
	bool lost_exact;
};

struct trace_text {
	FILE *out;      /* the destination; NULL: chosen at the end */
	bool own_out;   /* opened here, closed by trace_text_close() */
	char *path;     /* of an opened destination */
	bool created;   /* the destination did not exist before */
	bool claimed;   /* truncated and made 0600: ours now */
	bool begun;     /* holds the mark of trace_text_begin() */
	off_t begun_at; /* where: the trace starts there */
	bool finished, discarded;
	FILE *body;     /* event lines: out itself when streaming, else the spill file */
	bool streaming; /* header first, counts in the trailer */
	bool header_done;
	size_t notes_in_header; /* notes the streamed header already carried */
	int err;                /* first failure, negative errno; 0 */
	char *out_buf, *body_buf;
};

/* Open the destination now: path "-" is standard output; NULL leaves it
 * to trace_text_finish() (the lines are spilled meanwhile). What the file
 * holds is left alone until trace_text_begin() or the first line written
 * there: then a regular file is truncated and set to mode 0600 (a FIFO or
 * device keeps its mode). Closed without finishing, the file keeps only a
 * header that promises a trailer (cut short). 0 or -errno. */
int trace_text_open(struct trace_text *t, const char *path);
/* Nothing will be written (the recording was refused): remove the file if
 * it was created by trace_text_open(), else leave it as it was. */
void trace_text_discard(struct trace_text *t);
/* The recording has begun (no more refusals): a regular file's old content
 * goes now, replaced by a header that promises a trailer, so a recorder
 * that dies before its end (SIGKILL, out of memory) leaves a trace that
 * says it was cut short, never the trace of an earlier run nor an empty
 * file (a valid, empty trace). Standard output sent to a regular file gets
 * that header where the trace will start. A failure is kept (and a file
 * opened here removed), as for a line. */
void trace_text_begin(struct trace_text *t);
/* Create or truncate path as above; NULL and errno on failure. */
FILE *trace_text_open_file(const char *path);
/* The same for a stream the caller owns (and closes). */
int trace_text_open_stream(struct trace_text *t, FILE *out);
void trace_text_close(struct trace_text *t);

/* Write one event line (ready-made, with its '\n') to the body; the
 * streamed header goes first. Keeps the first error. */
void trace_text_put(struct trace_text *t, const struct trace_header *h, const char *line,
		    size_t len);

/* Format an event line into line (TRACE_LINE_MAX bytes); returns its length.
 * instance > 0: the thread token is TID.INSTANCE (a thread id used again). */
size_t trace_text_format_event(char *line, const struct vsc_capture_event *e, uint32_t instance,
			       const char *name, size_t name_len, const char *location,
			       bool timestamps);

/* The end: header (unless streamed), lines, late notes, trailer, flush. out
 * is the destination when none was opened (else NULL). 0 or -errno; the
 * destination is then not a complete trace (no trailer). */
int trace_text_finish(struct trace_text *t, const struct trace_header *h,
		      const struct trace_counts *c, FILE *out);

#endif /* VSC_CAPTURE_TRACE_TEXT_H */
