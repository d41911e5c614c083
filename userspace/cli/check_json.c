/* SPDX-License-Identifier: MIT */
/* vsc check --json: one JSON object per FILE, one per line. */
#include <stdlib.h>

#include "commands.h"
#include "report.h"

static const char *completeness_name(uint32_t state)
{
	return state == VSC_TRACE_WHOLE        ? "whole"
	       : state == VSC_TRACE_INCOMPLETE ? "incomplete"
					       : "cut short";
}

/* Keys of a recorded trace, or of any trace that reports a loss. */
static void json_completeness(struct json *j, const struct file_report *f,
			      const struct check_args *a)
{
	const struct vsc_trace_completeness *c = &f->comp;

	if (!c->recorded && c->state == VSC_TRACE_WHOLE)
		return;
	json_key_string(j, "completeness", completeness_name(c->state));
	if (c->state != VSC_TRACE_WHOLE) {
		json_key_string(j, "completeness_reason", c->why);
		/* else the item said it (withheld) */
		if (f->segmented || (a->accept_incomplete && !f->unsure_withheld)) {
			json_key(j, "verdict_on_events_present");
			json_string(j, a->accept_incomplete && !f->unsure_withheld
					       ? verdict_name(f->status)
					       : present_name(f->present_status));
		}
		json_key_bool(j, "accepted_incomplete", a->accept_incomplete);
	}
	json_key_uint(j, "lost_events", c->lost);
	json_key_bool(j, "lost_events_exact", c->lost_exact);
	json_key_uint(j, "uncertain_values", c->uncertain);
	if (c->uncertain_threads)
		json_key_uint(j, "uncertain_threads", c->uncertain_threads);
	if (c->uncertain_memory)
		json_key_uint(j, "uncertain_memory", c->uncertain_memory);
	if (c->loss_mode) {
		json_key_string(j, "loss_mode", c->loss_mode);
	}
}

/* What the exact reductions took away, when they took anything. */
static void json_reductions(struct json *j, const struct item_facts *f)
{
	if (!f->spins && !f->dropped && !f->parts)
		return;
	json_key(j, "reductions");
	json_object_begin(j);
	json_key_uint(j, "spin_reads_collapsed", f->spins);
	json_key_uint(j, "events_dropped", f->dropped);
	json_key_uint(j, "parts", f->parts);
	if (f->parts_out_of_memory)
		json_key_uint(j, "parts_out_of_memory", f->parts_out_of_memory);
	json_object_end(j);
}

/* The witness as [thread, index] pairs. */
void json_witness_array(struct json *j, const struct vsc_program *prog,
			const struct vsc_result *res)
{
	const uint32_t *w;
	size_t n = res ? vsc_result_witness(res, &w) : 0;
	size_t *next = calloc(vsc_program_thread_count(prog) + 1, sizeof(*next));

	json_array_begin(j);
	for (size_t i = 0; i < n && next; i++) {
		json_array_begin(j);
		json_string(j, vsc_program_thread_name(prog, w[i]));
		json_uint(j, next[w[i]]++);
		json_array_end(j);
	}
	json_array_end(j);
	free(next);
}

static void json_witness(struct json *j, const struct item *it, const struct check_args *a)
{
	json_key(j, "witness");
	if (it->facts.witness.len) /* let go with its witness spilled */
		witness_spill_print_json(a->spill, &it->facts.witness, j);
	else
		json_witness_array(j, it->prog, it->res);
}

static void json_program_keys(struct json *j, const struct item *it, const struct check_args *a)
{
	long lo, hi;
	const struct item_facts *f = &it->facts;

	json_key_string(j, "verdict", verdict_name(it->status));
	if (it->withheld) {
		json_key_string(j, "verdict_on_events_present", present_name(it->present_status));
	}
	json_key_uint(j, "threads", f->threads);
	json_key_uint(j, "events", f->events);
	json_key_uint(j, "writers", f->writers);
	json_key(j, "preemptions");
	if (f->decided && f->preemptions >= 0)
		json_int(j, f->preemptions);
	else
		json_null(j);
	if (item_least_bounds(it, &lo, &hi)) {
		json_key(j, "least_between");
		json_array_begin(j);
		json_int(j, lo);
		json_int(j, hi);
		json_array_end(j);
	}
	if (a->opts.minimize && (lo = item_least_at_least(it)) > 0) {
		json_key(j, "least_at_least");
		json_int(j, lo);
	}
	if ((a->witness || a->opts.minimize) &&
	    (item_shown_status(it) == EXIT_CONSISTENT || item_least_bounds(it, &lo, &hi)))
		json_witness(j, it, a);
	if (a->explain && it->status == EXIT_INCONSISTENT && it->facts.explained)
		explain_spill_print_json(a->spill, &it->facts.witness, j);
	else if (a->explain && it->status == EXIT_INCONSISTENT)
		story_json(j, it);
	if (f->decided) {
		json_key_string(j, "solver", f->solver);
		json_reductions(j, f);
	}
	json_key_double(j, "time_s", f->decided ? f->time_s : 0.0);
}

/* A segmented file: its totals over every segment, then each segment. */
static void json_segmented_keys(struct json *j, const struct file_report *f,
				const struct check_args *a)
{
	size_t inconsistent = 0, events = 0, threads = 0, writers = 0;
	long max_pre = 0;
	double total = 0;
	struct item_cursor c;
	const struct item *it;

	for (items_begin(&c, f); (it = items_next(&c));) {
		inconsistent += it->status == EXIT_INCONSISTENT;
		events += it->facts.events;
		if (it->facts.threads > threads)
			threads = it->facts.threads;
		if (it->facts.writers > writers)
			writers = it->facts.writers;
		if (it->facts.decided && it->facts.preemptions > max_pre)
			max_pre = it->facts.preemptions;
		total += it->facts.decided ? it->facts.time_s : 0;
	}
	json_key_string(j, "verdict", verdict_name(f->status));
	json_key_uint(j, "threads", threads);
	json_key_uint(j, "events", events);
	json_key_uint(j, "writers", writers);
	json_key(j, "preemptions"); /* the most any segment needed */
	if (f->status == EXIT_CONSISTENT)
		json_int(j, max_pre);
	else
		json_null(j);
	json_key_uint(j, "segments_total", f->count);
	json_key_uint(j, "segments_inconsistent", inconsistent);
	json_key(j, "segments");
	json_array_begin(j);
	for (items_begin(&c, f); (it = items_next(&c));) {
		const char *name = it->facts.name;
		json_object_begin(j);
		json_key(j, "name");
		if (name)
			json_string(j, name);
		else
			json_null(j);
		json_program_keys(j, it, a);
		json_object_end(j);
	}
	json_array_end(j);
	json_key_double(j, "time_s", total);
}

void check_json_file(struct json *j, const struct file_report *f, const struct check_args *a)
{
	json_object_begin(j);
	json_key_string(j, "file", f->path);
	struct item first;

	if (f->segmented)
		json_segmented_keys(j, f, a);
	else
		json_program_keys(j, items_first(f, &first), a);
	json_completeness(j, f, a);
	json_object_end(j);
}

/* A file whose reading --timeout stopped: unknown, and nothing else known. */
void check_json_unread(struct json *j, const struct file_report *f)
{
	json_object_begin(j);
	json_key_string(j, "file", f->path);
	json_key_string(j, "verdict", "unknown");
	json_key(j, "stopped");
	json_string(j,
		    f->read_stopped[0] == '-' ? "timeout while reading" : "memory while reading");
	json_key(j, "threads");
	json_null(j);
	json_key(j, "events");
	json_null(j);
	json_key(j, "writers");
	json_null(j);
	json_key(j, "preemptions");
	json_null(j);
	json_key_double(j, "time_s", f->read_s);
	json_object_end(j);
}
