/* SPDX-License-Identifier: MIT */
/* What vsc check keeps of the outcomes of the executions it has decided
 * and let go of (run_store.c): each distinct one once (their other facts:
 * item_list.c). */
#ifndef VSC_CLI_RUN_STORE_H
#define VSC_CLI_RUN_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "userspace/util/hash.h"

struct vsc_program;

/* An outcome text of at most this many bytes is held whole. A longer one
 * (a long execution's: some 5 bytes an event, 300 MB at 6x10^7 events)
 * waits in a temporary file, written as it is made, never whole in
 * memory; held are its first OUTCOME_START bytes (the text table's
 * TEXT_OUTCOME_MAX of it), its length and how many values it has. */
#define OUTCOME_HELD 4096
#define OUTCOME_START 256

/* Where a long text waits. */
struct outcome_far {
	uint32_t index;      /* the outcome's number */
	uint64_t at, len;    /* its bytes in the file */
	uint64_t separators; /* ',' and ' ' in it: its values are one more */
};

/* Outcome texts ("T1:0 T2:1"), each distinct one with a number from 0. */
struct outcome_names {
	char **texts; /* whole, or a far one's first OUTCOME_START bytes */
	uint32_t count, cap;
	struct hash_index index;
	struct outcome_far *far; /* the long ones, by number */
	uint32_t nfar, farcap;
	FILE *file;       /* where they wait: NULL before the first */
	uint64_t end;     /* of what the file holds */
	bool failed_file; /* it could not be made or written: held whole */
	bool failed;      /* a long one could not be read back (said on stderr) */
};

#define OUTCOME_NONE UINT32_MAX /* an execution whose outcome is not known */

/* Writes an outcome's text in pieces: put(bytes, n, ctx). */
typedef void outcome_put_fn(const char *bytes, size_t n, void *ctx);

/* The number of p's outcome (outcome_write), added when new. OUTCOME_NONE
 * when out of memory. */
uint32_t outcome_names_note(struct outcome_names *o, const struct vsc_program *p);
/* strcmp of the texts of outcomes a and b. */
int outcome_names_compare(struct outcome_names *o, uint32_t a, uint32_t b);
/* Outcome i's text, or its first OUTCOME_START bytes when *far is set
 * (then *values says how many values the whole has). */
const char *outcome_names_start(const struct outcome_names *o, uint32_t i, bool *far,
				uint64_t *values);
/* Outcome i's whole text, in pieces; false when it could not be read
 * back (said on stderr once; o->failed). */
bool outcome_names_copy(struct outcome_names *o, uint32_t i, outcome_put_fn *put, void *ctx);
void outcome_names_free(struct outcome_names *o);

#endif
