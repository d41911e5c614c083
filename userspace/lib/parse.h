/* SPDX-License-Identifier: MIT */
/* The text trace parser's state, shared by its files: parse.c (lines,
 * tokens, items), parse_plain.c (the fast path for plain event lines) and
 * parse_read.c (reading a file, pipe or stream in pieces). */
#ifndef VSC_PARSE_H
#define VSC_PARSE_H

#include <time.h>

#include "read_progress.h"
#include "trace.h"

#define MAX_TOKENS 7
#define MAX_NAME 64
#define LINES_PER_CLOCK_LOOK 65536 /* the deadline and progress are looked at */
#define NAME_CACHE_BITS 8
#define NAME_CACHE (1 << NAME_CACHE_BITS) /* direct-mapped, per kind of name */

struct token {
	const char *s;
	uint32_t len;
	uint32_t col;   /* 1-based */
	uint32_t clean; /* every byte is a name character (so check_name passes) */
	uint32_t hash;  /* name_hash() of the bytes, when clean */
};

/* Byte classes for the tokenizer's fast path (struct parser.cls). */
enum {
	CC_SPACE = 1, /* ' ', '\t': between tokens */
	CC_TOKEN = 2, /* printable, not '#': continues a token */
	CC_NAME = 4,  /* [A-Za-z0-9_.:-] */
};

/* A name seen recently and its id in the current program. s is the
 * program's own copy of the name: the input is read in pieces, and a
 * piece's bytes are gone once the next one is read. */
struct cached_name {
	const char *s;
	uint32_t len;
	int id;
};

/* A name of at most 8 bytes, as one number (0: empty), and its id. */
struct packed_name {
	uint64_t bytes;
	int id;
};

struct global_init {
	char name[MAX_NAME + 1];
	uint8_t kind;
	uint32_t line;
	int64_t value;
};

struct parser {
	const char *filename;
	vsc_error_fn on_error;
	void *error_ctx;
	unsigned max_errors;
	unsigned errors;
	uint32_t line;
	int seen_item;    /* a non-comment line was seen */
	int seen_segment; /* a segment line was seen */
	bool line_unsure; /* the line being parsed is marked `value unsure` */
	struct vsc_trace *trace;
	struct vsc_program *cur;
	struct global_init *globals;
	size_t nglobals, globals_cap;
	/* names already interned in the current program, by a hash of their
	 * bytes: most lines name a thread and a variable seen recently */
	struct cached_name threads[NAME_CACHE], vars[NAME_CACHE];
	struct packed_name threads8[NAME_CACHE], vars8[NAME_CACHE]; /* the fast path's */
	uint8_t cls[256];                                           /* CC_* of each byte */
	struct timespec deadline;                                   /* tv_sec == 0: none */
	bool event_lines;          /* keep each event's line number */
	vsc_program_fn on_program; /* NULL: the trace keeps every program */
	void *program_ctx;
	struct read_progress *progress;
	size_t bytes_before; /* of the input, before the piece being parsed */
	size_t bytes_total;  /* of the input, 0 when not known */
};

/* A parser for options o (loaded), its deadline from o->timeout_s; NULL
 * with errno ENOMEM. */
struct parser *parser_new(const struct vsc_parse_opts *o, struct read_progress *rp);
/* Parse the lines of [p, end): whole lines, except that the last one of the
 * input may lack its newline. Returns 0 or a negative errno (-ETIME past
 * the deadline, -ENOMEM). */
int parser_lines(struct parser *ps, const char *p, const char *end);
/* Too many errors to go on: the rest of the input need not be read. */
static inline int parser_stopped(const struct parser *ps)
{
	return ps->errors >= ps->max_errors;
}
/* Once the input is read (err: 0, or why reading stopped): the trace, or
 * NULL with errno (EINVAL after errors were reported). Frees ps. */
struct vsc_trace *parser_finish(struct parser *ps, int err);

/* The id of a thread (is_thread) or variable name in the current program,
 * added when new. */
int parser_intern(struct parser *ps, const struct token *t, int is_thread);

/* The fast path (parse_plain.c): the plain event lines from p on, each
 * counted in ps->line, up to the first line it leaves to the general path
 * or the next line whose number is a multiple of LINES_PER_CLOCK_LOOK.
 * Returns where it stopped; *err: 0 or a negative errno. */
const char *parse_plain_lines(struct parser *ps, const char *p, const char *end, int *err);

#endif
