/* SPDX-License-Identifier: MIT */
/* Interning of names (threads, variables): each distinct string gets a small
 * integer, in order of first appearance. */
#ifndef VSC_INTERN_H
#define VSC_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "userspace/util/hash.h"

struct intern {
	char **names; /* names[i] is the i-th distinct string, NUL-ended */
	uint32_t count;
	uint32_t cap;
	struct hash_index index; /* the names by their bytes */
};

/* Index of s[0..len), adding it when new. Returns the index (>= 0) or
 * -ENOMEM. *added (may be NULL) tells whether it was new. */
int intern_get(struct intern *t, const char *s, size_t len, int *added);
/* Index of s[0..len), or -1 when absent. */
int intern_find(const struct intern *t, const char *s, size_t len);
void intern_free(struct intern *t);

#endif
