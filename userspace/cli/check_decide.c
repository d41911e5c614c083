/* SPDX-License-Identifier: MIT */
/* vsc check, deciding: one execution decided, what the reports keep of it,
 * and once a FILE is read (check_stream.c), its completeness checked and
 * the verdicts of an incomplete trace withheld. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "report.h"
#include "summary.h"
#include "userspace/util/clock.h"
#include "userspace/util/diag.h"

const char *verdict_name(int status)
{
	return status == EXIT_CONSISTENT     ? "consistent"
	       : status == EXIT_INCONSISTENT ? "inconsistent"
					     : "unknown";
}

const char *present_name(int present_status)
{
	return present_status == PRESENT_NOT_DECIDED ? "not decided" : verdict_name(present_status);
}

/* The verdict an item's details are about: the events present's when its
 * verdict is withheld. */
int item_shown_status(const struct item *it)
{
	return it->withheld ? it->present_status : it->status;
}

/* An unknown --min that found an interleaving: the least preemptions lie in
 * [*lo, *hi] (the witness has *hi). */
bool item_least_bounds(const struct item *it, long *lo, long *hi)
{
	return it->res && item_shown_status(it) == EXIT_UNKNOWN &&
	       vsc_result_least_bounds(it->res, lo, hi) == 0;
}

/* An unknown --min, with or without an interleaving found: no interleaving
 * has fewer preemptions than this; -1 when nothing above 0 is proven. */
long item_least_at_least(const struct item *it)
{
	return it->res && item_shown_status(it) == EXIT_UNKNOWN ? vsc_result_least_at_least(it->res)
								: -1;
}

/* ---- deciding ------------------------------------------------------------ */

/* VSC_STATS=1: the search's counts, for tuning (the library keeps them in
 * the result; it never reads the environment or prints). */
static void print_search_stats(const struct vsc_result *res)
{
	unsigned long long nodes = vsc_result_nodes(res), steps = vsc_result_steps(res);

	struct vsc_reductions red;

	vsc_result_reductions(res, &red);
	if (getenv("VSC_STATS") && (nodes || steps))
		diag(NULL, "%s: %llu nodes, %llu steps", vsc_result_solver(res), nodes, steps);
	if (getenv("VSC_STATS") && (red.spins || red.dropped || red.parts))
		diag(NULL,
		     "%s: reductions: %llu spin reads collapsed, %llu events dropped, %llu parts",
		     vsc_result_solver(res), (unsigned long long)red.spins,
		     (unsigned long long)red.dropped, (unsigned long long)red.parts);
	if (getenv("VSC_STATS") && vsc_result_parts_out_of_memory(res))
		diag(NULL, "%s: %llu parts out of memory (their answers unknown)",
		     vsc_result_solver(res),
		     (unsigned long long)vsc_result_parts_out_of_memory(res));
}

bool check_wants_core(const struct check_args *a)
{
	return a->explain || a->svg || a->core_out || a->html;
}

/* Why a solver picked by name refused a program (docs/solvers.md), or NULL. */
static const char *refusal(const char *solver, int err)
{
	if (!solver)
		return NULL;
	if (strcmp(solver, "sat") == 0 && err == -E2BIG)
		return "too many threads or events to encode within the memory limit";
	if (strcmp(solver, "paper") == 0 && err == -EINVAL)
		return "it is for 1-Writer programs only (one writer thread per variable)";
	if (strcmp(solver, "coherence") == 0 && err == -EINVAL)
		return "some read has a choice of writes (values do not identify writes), or the "
		       "program is too big for its vectors";
	return NULL;
}

void check_decide_item(struct item *it, const struct check_args *a, double deadline,
		       const char *path)
{
	struct vsc_check_opts opts = a->opts;
	int err;

	if (it->not_decided) { /* no verdict can come of it: no search either */
		it->res = NULL;
		it->status = EXIT_UNKNOWN;
		return;
	}
	if (deadline > 0)
		opts.timeout_s = fmax(deadline - clock_now_s(), 1e-9);
	opts.want_witness = opts.want_witness || a->svg || a->html;
	opts.keep_for_explain = check_wants_core(a); /* no second analysis pass */
	err = vsc_check(it->prog, &opts, &it->res);
	if (err && refusal(opts.solver, err)) {
		diag(NULL, "%s: the %s solver does not apply: %s", path, opts.solver,
		     refusal(opts.solver, err));
		it->res = NULL;
		it->status = EXIT_USAGE;
		return;
	}
	if (err) {
		diag(NULL, "%s: cannot decide: %s", path, strerror(-err));
		it->res = NULL;
		it->status = err == -ENOMEM ? EXIT_UNKNOWN : EXIT_USAGE;
		return;
	}
	print_search_stats(it->res);
	it->status = vsc_result_verdict(it->res) == VSC_CONSISTENT     ? EXIT_CONSISTENT
		     : vsc_result_verdict(it->res) == VSC_INCONSISTENT ? EXIT_INCONSISTENT
								       : EXIT_UNKNOWN;
	if (it->status == EXIT_INCONSISTENT && check_wants_every_core(a))
		check_explain_item(it, a, deadline);
}

bool check_wants_every_core(const struct check_args *a)
{
	return a->explain || a->core_out;
}

void check_explain_item(struct item *it, const struct check_args *a, double deadline)
{
	struct vsc_check_opts opts = a->opts; /* what the verdict left of --timeout */

	if (deadline > 0)
		opts.timeout_s = fmax(deadline - clock_now_s(), 1e-9);
	it->core_err = vsc_explain_result(it->prog, it->res, &opts, &it->core);
	if (a->html && it->core) /* none when it fails: no prefix view then */
		(void)prefix_find(it, deadline, &it->prefix);
}

/* ---- what is kept of it ------------------------------------------------- */

/* The solver's name as vsc_solver_names() has it: it outlives the result
 * (the library's names are static; a name it does not list is kept as
 * given, as before results were let go). */
static const char *lasting_solver_name(const char *name)
{
	for (const char *const *n = vsc_solver_names(); *n; n++)
		if (strcmp(*n, name) == 0)
			return *n;
	return name;
}

int check_note_facts(struct item *it, const struct check_args *a)
{
	struct item_facts *f = &it->facts;
	struct vsc_reductions red;

	f->name = vsc_program_name(it->prog); /* copied when the program goes (item_list.c) */
	f->threads = (uint32_t)vsc_program_thread_count(it->prog);
	f->events = vsc_program_event_count(it->prog);
	/* a pass over the events: only JSON names it */
	f->writers = a->json ? (uint32_t)vsc_program_writers(it->prog) : 0;
	f->preemptions = -1;
	f->outcome = OUTCOME_NONE;
	f->unsure = vsc_program_unsure_values(it->prog) > 0;
	if (it->res) {
		f->decided = true;
		f->solver = lasting_solver_name(vsc_result_solver(it->res));
		f->time_s = vsc_result_time(it->res);
		f->preemptions = (int32_t)vsc_result_preemptions(it->res);
		vsc_result_reductions(it->res, &red);
		f->spins = (uint32_t)red.spins;
		f->dropped = (uint32_t)red.dropped;
		f->parts = (uint32_t)red.parts;
		f->parts_out_of_memory = (uint32_t)vsc_result_parts_out_of_memory(it->res);
	}
	if (a->summary)
		f->outcome = outcome_names_note(a->outcomes, it->prog);
	return a->summary && f->outcome == OUTCOME_NONE ? -ENOMEM : 0;
}

/* ---- once a file is read ------------------------------------------------ */

const char *check_shown_path(const struct file_report *f)
{
	return strcmp(f->path, "-") == 0 ? "<stdin>" : f->path;
}

/* A whole recorded trace one of whose executions reads a value from
 * nowhere (check_nowhere.c) is incomplete all the same: a writer was not
 * recorded. (In a trace that lost events, a lost write explains it.) */
static void note_nowhere(struct file_report *f)
{
	if (!f->nowhere[0] || f->comp.state != VSC_TRACE_WHOLE)
		return;
	f->comp.state = VSC_TRACE_INCOMPLETE;
	f->comp.why = f->nowhere;
}

/* A recorded trace that is not whole gets no plain verdict (docs/format.md,
 * "Recorded traces"): cut short is an error, lost or uncertain data makes
 * the verdict unknown. Returns -1 when nothing is to be decided. */
static int check_completeness(struct file_report *f, const struct check_args *a)
{
	f->comp = (struct vsc_trace_completeness){ .sz = sizeof(f->comp) };
	if (vsc_trace_completeness(f->trace, &f->comp))
		return -1;
	note_nowhere(f);
	if (f->comp.state == VSC_TRACE_WHOLE)
		return 0;
	if (a->accept_incomplete) {
		diag(NULL,
		     "warning: %s: %s; the verdict is about the events present only, "
		     "not the whole run (--accept-incomplete)",
		     check_shown_path(f), f->comp.why);
		return 0;
	}
	if (f->comp.state == VSC_TRACE_INCOMPLETE)
		return 0; /* decided, then reported as unknown */
	diag(NULL, "%s: %s; no verdict (--accept-incomplete decides the events present)",
	     check_shown_path(f), f->comp.why);
	f->status = EXIT_USAGE;
	return -1;
}

/* The status of several executions or files: between verdicts, the
 * library's rule (exit statuses and verdicts share their numbers); a usage
 * error ranks between inconsistent and unknown (CONTRACT section 3). */
int check_combine_status(int so_far, int next)
{
	_Static_assert((int)EXIT_CONSISTENT == (int)VSC_CONSISTENT &&
			       (int)EXIT_INCONSISTENT == (int)VSC_INCONSISTENT &&
			       (int)EXIT_UNKNOWN == (int)VSC_UNKNOWN,
		       "exit statuses and verdicts share their numbers");
	if (so_far == EXIT_USAGE || next == EXIT_USAGE)
		return so_far == EXIT_UNKNOWN || next == EXIT_UNKNOWN ? EXIT_UNKNOWN : EXIT_USAGE;
	return (int)vsc_verdict_combine((enum vsc_verdict)so_far, (enum vsc_verdict)next);
}

/* Does its verdict, with --accept-incomplete, rest on values read as
 * written that may be unsure? Those of its own lines when every uncertain
 * value of the file is marked where one execution holds it (segments are
 * independent executions: a value read wrong in one changes no other);
 * else any (a count with no marks, or a mark on a line every execution
 * shares). */
static bool may_rest_on_unsure(const struct file_report *f, const struct item *it)
{
	if (f->comp.uncertain == 0 && f->comp.uncertain_placed)
		return false;
	return !f->comp.uncertain_placed || it->facts.unsure;
}

/* An incomplete trace's executions were decided on the events present;
 * unless that was asked for, their verdict becomes unknown. Asked for
 * (--accept-incomplete), the events are decided as written; but a value
 * marked unsure is no observation (a watchpoint read it after the
 * access): an inconsistent verdict that may rest on a value read wrong is
 * withheld too (f->unsure_withheld); a consistent one stands, about the
 * events present, and so does an inconsistent one of a segment with no
 * unsure value. */
static void withhold(struct file_report *f, const struct check_args *a)
{
	bool unsure = a->accept_incomplete && (f->comp.uncertain > 0 || !f->comp.uncertain_placed);
	struct item_cursor c;
	struct item *it;

	if (f->comp.state == VSC_TRACE_WHOLE || (a->accept_incomplete && !unsure))
		return;

	for (items_begin(&c, f); (it = items_next(&c));) {
		f->present_status = it->not_decided
					    ? PRESENT_NOT_DECIDED
					    : check_combine_status(f->present_status, it->status);
		if (it->status == EXIT_USAGE ||
		    (unsure && (it->status != EXIT_INCONSISTENT || !may_rest_on_unsure(f, it))))
			continue;
		f->unsure_withheld = unsure;
		it->present_status = it->not_decided ? PRESENT_NOT_DECIDED : it->status;
		it->status = EXIT_UNKNOWN;
		it->withheld = true;
	}
}

void check_finish_file(struct file_report *f, const struct check_args *a)
{
	if (check_completeness(f, a)) {
		check_free_items(f); /* cut short: no verdict at all */
		return;
	}
	struct item first;

	f->segmented = f->count != 1 || items_first(f, &first)->facts.name != NULL;
	withhold(f, a);
}
