/* SPDX-License-Identifier: MIT */
/* --summary's outcome histogram (summary_outcomes.c). */
#ifndef VSC_CLI_SUMMARY_H
#define VSC_CLI_SUMMARY_H

#include <stddef.h>

#include "json.h"
#include "report.h"

struct outcome_list;

/* Every execution of every file, grouped by outcome: a list of each
 * outcome's executions, in the order of the outcomes' texts. */
struct outcome_table {
	struct outcome_list *lists;
	size_t count;                    /* of lists */
	struct outcome_names *names;     /* their texts */
	const struct file_report *files; /* the lists' executions are of these */
};

/* What an execution saw: "T1:0 T2:1,0", per thread (by name) the values
 * its reads read, in order, written in pieces (put); 0, or -ENOMEM. */
int outcome_write(const struct vsc_program *p, outcome_put_fn *put, void *ctx);
/* Every execution of every file grouped by outcome (names: the run's
 * outcomes, which their facts number). 0, or -1 (out of memory). */
int outcomes_collect(const struct file_report *files, size_t nfiles, struct outcome_names *names,
		     struct outcome_table *tab);
void outcomes_free(struct outcome_table *tab);
void outcomes_text(const struct outcome_table *tab, size_t nfiles);
void outcomes_json(struct json *j, const struct outcome_table *tab);

#endif
