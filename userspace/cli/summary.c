/* SPDX-License-Identifier: MIT */
/* --summary: one table over every execution (segment) of every file, like
 * litmus7's outcome histogram: how many were consistent, inconsistent or
 * unknown, how many preemptions they needed, the outcomes (summary_outcomes.c)
 * with their verdicts and executions, and which ones failed. */
#include <stdlib.h>

#include "commands.h"
#include "report.h"
#include "summary.h"
#include "userspace/util/diag.h"

#define HISTOGRAM_MAX 64 /* preemption counts above this share one row */

struct tally {
	size_t total, by_status[4];
	size_t histogram[HISTOGRAM_MAX + 1];
	double time_s;
};

static void count_all(const struct file_report *files, size_t nfiles, struct tally *t)
{
	for (size_t i = 0; i < nfiles; i++) {
		struct item_cursor c;
		const struct item *it;

		for (items_begin(&c, &files[i]); (it = items_next(&c));) {
			long pre = it->facts.decided ? it->facts.preemptions : -1;
			t->total++;
			t->by_status[it->status]++;
			if (pre >= 0)
				t->histogram[pre > HISTOGRAM_MAX ? HISTOGRAM_MAX : pre]++;
			t->time_s += it->facts.decided ? it->facts.time_s : 0;
		}
	}
}

static const char *segment_name(const struct item *it)
{
	const char *name = it->facts.name;
	return name ? name : "(whole file)";
}

static void list_json(struct json *j, const struct file_report *files, size_t nfiles, int status,
		      int explain, struct witness_spill *spill)
{
	json_array_begin(j);
	for (size_t i = 0; i < nfiles; i++) {
		struct item_cursor c;
		const struct item *it;

		for (items_begin(&c, &files[i]); (it = items_next(&c));) {
			if (it->status != status)
				continue;
			json_object_begin(j);
			json_key_string(j, "file", files[i].path);
			json_key(j, "segment");
			if (it->facts.name)
				json_string(j, it->facts.name);
			else
				json_null(j);
			if (explain && it->facts.explained) /* let go, spilled */
				explain_spill_print_json(spill, &it->facts.witness, j);
			else if (explain) /* --explain: the core of each */
				story_json(j, it);
			json_object_end(j);
		}
	}
	json_array_end(j);
}

/* Files whose recorded trace is not whole: their executions are unknown
 * (or, with --accept-incomplete, about the events present only). */
static void incomplete_json(struct json *j, const struct file_report *files, size_t nfiles)
{
	json_array_begin(j);
	for (size_t i = 0; i < nfiles; i++) {
		if (!files[i].trace || files[i].comp.state == VSC_TRACE_WHOLE)
			continue;
		json_object_begin(j);
		json_key_string(j, "file", files[i].path);
		json_key_string(j, "reason", files[i].comp.why);
		json_object_end(j);
	}
	json_array_end(j);
}

static void summary_json(const struct file_report *files, size_t nfiles, const struct tally *t,
			 int explain, struct witness_spill *spill,
			 const struct outcome_table *outcomes)
{
	struct json j;
	size_t bad = 0;

	for (size_t i = 0; i < nfiles; i++)
		bad += files[i].trace == NULL;
	json_init(&j, stdout);
	json_object_begin(&j);
	json_key_uint(&j, "files", nfiles);
	json_key_uint(&j, "files_unreadable", bad);
	json_key_uint(&j, "segments_total", t->total);
	json_key_uint(&j, "segments_consistent", t->by_status[EXIT_CONSISTENT]);
	json_key_uint(&j, "segments_inconsistent", t->by_status[EXIT_INCONSISTENT]);
	json_key_uint(&j, "segments_unknown", t->by_status[EXIT_UNKNOWN]);
	json_key(&j, "preemptions");
	json_object_begin(&j);
	for (int k = 0; k <= HISTOGRAM_MAX; k++) {
		char key[16];
		if (!t->histogram[k])
			continue;
		snprintf(key, sizeof(key), k == HISTOGRAM_MAX ? "%d+" : "%d", k);
		json_key(&j, key);
		json_uint(&j, t->histogram[k]);
	}
	json_object_end(&j);
	json_key(&j, "inconsistent");
	list_json(&j, files, nfiles, EXIT_INCONSISTENT, explain, spill);
	json_key(&j, "unknown");
	list_json(&j, files, nfiles, EXIT_UNKNOWN, 0, spill);
	json_key(&j, "files_incomplete");
	incomplete_json(&j, files, nfiles);
	if (outcomes) {
		json_key(&j, "outcomes");
		outcomes_json(&j, outcomes);
	}
	json_key_double(&j, "time_s", t->time_s);
	json_object_end(&j);
}

static void list_text(const struct file_report *files, size_t nfiles, int status, const char *title,
		      int explain, struct witness_spill *spill)
{
	int any = 0;
	for (size_t i = 0; i < nfiles; i++) {
		struct item_cursor c;
		const struct item *it;

		for (items_begin(&c, &files[i]); (it = items_next(&c));) {
			if (it->status != status)
				continue;
			if (!any++)
				printf("%s:\n", title);
			printf("  %s: %s\n", files[i].path, segment_name(it));
			if (explain && it->facts.explained) /* let go, spilled */
				witness_spill_print_text(spill, &it->facts.witness, "    ");
			else if (explain)
				story_brief(stdout, it, "    ");
		}
	}
}

void summary_print(const struct file_report *files, size_t nfiles, const struct check_args *a)
{
	struct tally t = { 0 };
	struct outcome_table outcomes;
	int have_outcomes = outcomes_collect(files, nfiles, a->outcomes, &outcomes) == 0;

	count_all(files, nfiles, &t);
	if (!have_outcomes)
		diag("check", "out of memory: no outcome histogram");
	if (a->json) {
		summary_json(files, nfiles, &t, a->explain, a->spill,
			     have_outcomes ? &outcomes : NULL);
		outcomes_free(&outcomes);
		return;
	}
	printf("executions: %zu in %zu file%s\n", t.total, nfiles, nfiles == 1 ? "" : "s");
	printf("  %-14s %8zu\n", "consistent", t.by_status[EXIT_CONSISTENT]);
	printf("  %-14s %8zu\n", "inconsistent", t.by_status[EXIT_INCONSISTENT]);
	printf("  %-14s %8zu\n", "unknown", t.by_status[EXIT_UNKNOWN]);
	for (size_t i = 0; i < nfiles; i++)
		if (!files[i].trace)
			printf("  unreadable     %s\n", files[i].path);
		else if (files[i].comp.state != VSC_TRACE_WHOLE)
			printf("  %-14s %s: %s\n",
			       files[i].comp.state == VSC_TRACE_CUT_SHORT ? "cut short"
									  : "incomplete",
			       files[i].path, files[i].comp.why);
	printf("preemptions%s:\n", a->opts.minimize ? " (least)" : " (of the witness found)");
	for (int k = 0; k <= HISTOGRAM_MAX; k++)
		if (t.histogram[k])
			printf("  %3d%s %8zu\n", k, k == HISTOGRAM_MAX ? "+" : " ", t.histogram[k]);
	if (have_outcomes)
		outcomes_text(&outcomes, nfiles);
	outcomes_free(&outcomes);
	list_text(files, nfiles, EXIT_INCONSISTENT, "inconsistent", a->explain, a->spill);
	list_text(files, nfiles, EXIT_UNKNOWN, "unknown", 0, a->spill);
}
