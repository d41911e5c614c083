/* SPDX-License-Identifier: MIT */
/* The initial value of a variable as the lock stops take it: the known
 * one, or for `init x ?` the one every SC interleaving must start from
 * when the reads and the first writes pin it (lock_init.c). */
#ifndef VSC_LOCK_INIT_H
#define VSC_LOCK_INIT_H

#include "analysis.h"

/* Per variable x: its initial pair, or PAIR_NONE (no initial value, or
 * `init x ?` that nothing pins); NULL when memory runs out. The caller
 * frees it. */
uint32_t *lock_inits(const struct vsc_program *p, const struct analysis *a);

#endif
