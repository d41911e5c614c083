/* SPDX-License-Identifier: MIT */
/* The exact no-preemption answer for programs with at most one writer
 * thread per variable: an order of whole threads, or a proof there is none. */
#ifndef VSC_THREAD_ORDER_H
#define VSC_THREAD_ORDER_H

#include "analysis.h"

#define THREAD_ORDER_NOT_APPLY 2 /* some variable has several writer threads */

/* 1 and *witness (threads whole, in an order that is SC) when the program
 * has an SC interleaving with no preemption, 0 when it has none, or
 * THREAD_ORDER_NOT_APPLY, or -ENOMEM. */
int thread_order_witness(const struct analysis *a, const struct vsc_program *p, uint32_t **witness);

#endif
