/* SPDX-License-Identifier: MIT */
/* What vsc check keeps of the executions it has decided and let go of
 * (run_store.c): their names, packed in blocks, and their outcomes, each
 * distinct one once. A lab run of 10^6 executions keeps a few bytes per
 * execution, not its program. */
#ifndef VSC_CLI_RUN_STORE_H
#define VSC_CLI_RUN_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "userspace/util/hash.h"

/* Strings that stay where they are until the whole store is freed. */
struct text_blocks {
	struct text_block *last; /* the block being filled; each links to the one before */
};

/* A copy of s that lives as long as the blocks, or NULL (out of memory). */
const char *text_blocks_add(struct text_blocks *b, const char *s);
void text_blocks_free(struct text_blocks *b);

/* Outcome texts ("T1:0 T2:1"), each distinct one with a number from 0. */
struct outcome_names {
	char **texts;
	uint32_t count, cap;
	struct hash_index index;
};

#define OUTCOME_NONE UINT32_MAX /* an execution whose outcome is not known */

/* The number of text, added when new; text is taken over (freed when it
 * was there already). OUTCOME_NONE when out of memory (or text is NULL). */
uint32_t outcome_names_get(struct outcome_names *o, char *text);
void outcome_names_free(struct outcome_names *o);

#endif
