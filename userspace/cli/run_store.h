/* SPDX-License-Identifier: MIT */
/* What vsc check keeps of the outcomes of the executions it has decided
 * and let go of (run_store.c): each distinct one once (their other facts:
 * item_list.c). */
#ifndef VSC_CLI_RUN_STORE_H
#define VSC_CLI_RUN_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "userspace/util/hash.h"

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
