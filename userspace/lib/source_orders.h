/* SPDX-License-Identifier: MIT */
/* Orders that every SC interleaving has, found from the writes each read
 * can see, whatever the number of writers per variable and however few the
 * values (see source_orders.c). A contradiction among them refutes the
 * program for every bound: what refutes stale reads with several writers,
 * where the search without a bound wanders. */
#ifndef VSC_SOURCE_ORDERS_H
#define VSC_SOURCE_ORDERS_H

#include "analysis.h"

enum source_orders_answer {
	SOURCE_ORDERS_OPEN = 0,    /* no contradiction found (or a limit hit) */
	SOURCE_ORDERS_REFUTED = 1, /* no SC interleaving, whatever the bound */
};

/* Returns an answer (open when memory runs out). Work is charged to b (NULL: none); the
 * budget stopping it leaves SOURCE_ORDERS_OPEN. Programs with more than
 * SOURCE_ORDERS_MAX_THREADS threads or more than SOURCE_ORDERS_MAX_WORDS
 * events x threads are left open at once. */
int source_orders_refute(const struct vsc_program *p, const struct analysis *a, struct budget *b);

#define SOURCE_ORDERS_MAX_THREADS 64
#define SOURCE_ORDERS_MAX_WORDS (48u << 20)

#endif
