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
};

int outcomes_collect(const struct file_report *files, size_t nfiles, struct outcome_table *tab);
void outcomes_free(struct outcome_table *tab);
void outcomes_text(const struct outcome_table *tab, size_t nfiles);
void outcomes_json(struct json *j, const struct outcome_table *tab);

#endif
