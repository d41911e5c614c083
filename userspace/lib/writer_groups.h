/* SPDX-License-Identifier: MIT */
/* Refuting a program by a part of it: the threads that write some set of
 * variables, with those variables' events alone (writer_groups.c). A
 * sub-program with no SC interleaving refutes the whole for every bound;
 * what refutes stale reads with several writers per variable where the
 * search over every thread wanders and the source orders stay open. */
#ifndef VSC_WRITER_GROUPS_H
#define VSC_WRITER_GROUPS_H

#include "solver.h"

enum writer_groups_answer {
	WRITER_GROUPS_OPEN = 0,    /* no group refuted (or a limit or memory stopped them) */
	WRITER_GROUPS_REFUTED = 1, /* no SC interleaving, whatever the bound */
};

/* Decides a group's program with no bound (auto.c); fills res. */
typedef int (*writer_group_solve_fn)(const struct vsc_program *gp, const struct query *q,
				     struct budget *b, struct vsc_result *res);

/* Try p's groups, the smallest first, under work budget units in all
 * (within b's own cap and deadline). Programs with more than
 * WRITER_GROUPS_MAX_THREADS threads, or fewer than 3, are left open. */
int writer_groups_refute(const struct vsc_program *p, struct budget *b, unsigned long work,
			 writer_group_solve_fn solve);

#define WRITER_GROUPS_MAX_THREADS 64
#define WRITER_GROUPS_MAX 32 /* groups tried at most, the smallest */

#endif
