/* SPDX-License-Identifier: MIT */
/* --summary's outcome histogram (summary_outcomes.c). */
#ifndef VSC_CLI_SUMMARY_H
#define VSC_CLI_SUMMARY_H

#include <stddef.h>

#include "json.h"
#include "report.h"

struct execution;

/* Every execution of every file with its outcome, grouped by outcome. */
struct outcome_table {
	struct execution *executions;
	size_t count;
	const struct outcome_names *names; /* their texts */
};

/* What an execution saw: "T1:0 T2:1,0", per thread (by name) the values
 * its reads read, in order; a new string, or NULL (out of memory). */
char *outcome_text(const struct vsc_program *p);
/* Every execution of every file grouped by outcome (names: the run's
 * outcomes, which their facts number). 0, or -1 (out of memory). */
int outcomes_collect(const struct file_report *files, size_t nfiles,
		     const struct outcome_names *names, struct outcome_table *tab);
void outcomes_free(struct outcome_table *tab);
void outcomes_text(const struct outcome_table *tab, size_t nfiles);
void outcomes_json(struct json *j, const struct outcome_table *tab);

#endif
