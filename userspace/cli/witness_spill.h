/* SPDX-License-Identifier: MIT */
/* Witnesses of executions let go before the report is printed
 * (witness_spill.c). A lab run's report opens with totals over every
 * segment, so no segment's witness can be printed when it is decided; its
 * program and result are let go anyway and its witness, rendered as the
 * report prints it, waits in a temporary file. Memory then stays that of a
 * few segments, however many there are; the report is the same bytes. So
 * do the explanations of inconsistent ones (--explain). */
#ifndef VSC_CLI_WITNESS_SPILL_H
#define VSC_CLI_WITNESS_SPILL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"

struct item;
struct check_args;
struct line_notes;

struct witness_spill {
	FILE *file; /* opened at the first witness; NULL: none yet, or it failed */
	bool failed;
	int err; /* why writing failed (errno), once it did */
	/* written out (flushed) up to here; once writing failed, what lies
	 * from here on may be lost */
	uint64_t flushed;
	bool told;        /* the loss was said */
	bool read_failed; /* the report missed something once it was printing */
};

/* Where an execution's witness waits in the spill; len 0: not there. */
struct spilled_witness {
	uint64_t at, len;
};

/* A temporary file in $TMPDIR (else /tmp), open for writing and reading,
 * gone once closed; NULL with errno set. */
FILE *spill_temp_file(void);
/* Is it's witness printed in the report a (the text or the JSON one)? */
bool witness_spill_wanted(const struct check_args *a, const struct item *it);
/* Render it's witness into the spill, where *to says it is; 0, or -1 when
 * the spill cannot take it (then it keeps its program: the report draws it
 * from there). */
int witness_spill_add(struct witness_spill *s, const struct check_args *a, const struct item *it,
		      struct spilled_witness *to);
/* --explain: it's explanation, as the report prints it (with notes, the
 * comments of the lines it names), into the spill; 0, or -1 as above. */
bool explain_spill_wanted(const struct check_args *a, const struct item *it);
int explain_spill_add(struct witness_spill *s, const struct check_args *a,
		      const struct line_notes *notes, const struct item *it,
		      struct spilled_witness *to);
/* The JSON explanation at w: the keys of the object j is in, which has
 * some already. */
void explain_spill_print_json(struct witness_spill *s, const struct spilled_witness *w,
			      struct json *j);
/* The text witness (or explanation) at w to stdout, each line after indent. */
void witness_spill_print_text(struct witness_spill *s, const struct spilled_witness *w,
			      const char *indent);
/* The bytes at w to out; with after_first set, after_first(out, ctx)
 * once its first line is written (a core's segment line). */
void witness_spill_copy(struct witness_spill *s, const struct spilled_witness *w, FILE *out,
			const char *ctx, void (*after_first)(FILE *out, const char *ctx));
/* --core-out: it's core, as written (core_out_render), into the spill;
 * 0, or -1 as above. */
int core_spill_add(struct witness_spill *s, const struct check_args *a, const char *path,
		   const struct line_notes *notes, const struct item *it,
		   struct spilled_witness *to);
/* The JSON witness at w, as the next value of j. */
void witness_spill_print_json(struct witness_spill *s, const struct spilled_witness *w,
			      struct json *j);
/* Is anything placed before end lost (its writing failed)? */
bool witness_spill_lost(const struct witness_spill *s, uint64_t end);
/* Before the report: everything placed written out; then witness_spill_lost
 * says what can never be printed (a full disk, a file size limit). */
void witness_spill_finish(struct witness_spill *s);
void witness_spill_close(struct witness_spill *s);

#endif
