/* SPDX-License-Identifier: MIT */
/* Threads run whole, one after another, in the first order that fits. */
#ifndef VSC_SERIAL_H
#define VSC_SERIAL_H

#include "analysis.h"

/* 1 and *witness (every event, threads whole: no preemption) when such an
 * order was found, 0 when not (no answer), -ENOMEM. */
int serial_witness(const struct analysis *a, const struct vsc_program *p, uint32_t **witness);

#endif
