/* SPDX-License-Identifier: MIT */
/* vsc check, reading and deciding: each FILE parsed and checked for
 * completeness, its executions decided (by --jobs workers), verdicts of
 * incomplete traces withheld. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "report.h"
#include "userspace/util/clock.h"
#include "userspace/util/diag.h"

const char *verdict_name(int status)
{
	return status == EXIT_CONSISTENT     ? "consistent"
	       : status == EXIT_INCONSISTENT ? "inconsistent"
					     : "unknown";
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

/* ---- deciding ------------------------------------------------------------ */

struct pool {
	struct file_report *files;
	size_t nfiles;
	const struct check_args *args;
	pthread_mutex_t lock;
	size_t next_file, next_item; /* the next item to take */
};

static int take(struct pool *pool, struct file_report **f, struct item **it)
{
	int found = 0;

	pthread_mutex_lock(&pool->lock);
	while (pool->next_file < pool->nfiles && !found) {
		struct file_report *file = &pool->files[pool->next_file];
		if (pool->next_item < file->count) {
			*f = file;
			*it = &file->items[pool->next_item++];
			if (file->deadline == 0 && pool->args->opts.timeout_s > 0)
				file->deadline =
					clock_now_s() + pool->args->opts.timeout_s - file->read_s;
			found = 1;
		} else {
			pool->next_file++;
			pool->next_item = 0;
		}
	}
	pthread_mutex_unlock(&pool->lock);
	return found;
}

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

static void decide(struct item *it, const struct check_args *a, double deadline, const char *path)
{
	struct vsc_check_opts opts = a->opts;
	int err;

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
	if (it->status == EXIT_INCONSISTENT && check_wants_core(a)) {
		opts = a->opts; /* the explanation gets a --timeout of its own */
		it->core_err = vsc_explain_result(it->prog, it->res, &opts, &it->core);
		if (a->html && it->core) /* none when it fails: no prefix view then */
			(void)prefix_find(it, &it->prefix);
	}
}

static void *worker(void *arg)
{
	struct pool *pool = arg;
	struct file_report *f;
	struct item *it;

	while (take(pool, &f, &it))
		decide(it, pool->args, f->deadline, f->path);
	return NULL;
}

void check_decide_all(struct file_report *files, size_t nfiles, const struct check_args *a)
{
	struct check_args inner = *a;
	struct pool pool = { .files = files, .nfiles = nfiles, .args = &inner };
	size_t items = check_execution_count(files, nfiles);
	/* --jobs N: N workers over the executions, and what is left over to
	 * the parts of each (the library's jobs): never more than N threads */
	long jobs = a->jobs > 1 ? a->jobs : 1;
	pthread_t *threads;
	long started = 0;

	if (items > 0 && (size_t)jobs > items)
		jobs = (long)items;
	inner.opts.jobs = (unsigned)((a->jobs > 1 ? a->jobs : 1) / jobs);
	if (jobs > 1)
		inner.opts.progress = false; /* interleaved progress lines help nobody */
	threads = calloc((size_t)jobs, sizeof(*threads));
	pthread_mutex_init(&pool.lock, NULL);
	for (long i = 1; threads && i < jobs; i++) {
		if (pthread_create(&threads[i], NULL, worker, &pool) != 0)
			break;
		started = i;
	}
	worker(&pool);
	for (long i = 1; i <= started; i++)
		pthread_join(threads[i], NULL);
	pthread_mutex_destroy(&pool.lock);
	free(threads);
}

/* ---- reading ------------------------------------------------------------- */

/* The file's name in messages, as the parser's own messages give it. */
static const char *shown_path(const struct file_report *f)
{
	return strcmp(f->path, "-") == 0 ? "<stdin>" : f->path;
}

/* A recorded trace that is not whole gets no plain verdict (docs/format.md,
 * "Recorded traces"): cut short is an error, lost or uncertain data makes
 * the verdict unknown. Returns -1 when nothing is to be decided. */
static int check_completeness(struct file_report *f, const struct check_args *a)
{
	f->comp = (struct vsc_trace_completeness){ .sz = sizeof(f->comp) };
	if (vsc_trace_completeness(f->trace, &f->comp))
		return -1;
	if (f->comp.state == VSC_TRACE_WHOLE)
		return 0;
	if (a->accept_incomplete) {
		diag(NULL,
		     "warning: %s: %s; the verdict is about the events present only, "
		     "not the whole run (--accept-incomplete)",
		     shown_path(f), f->comp.why);
		return 0;
	}
	if (f->comp.state == VSC_TRACE_INCOMPLETE)
		return 0; /* decided, then reported as unknown */
	diag(NULL, "%s: %s; no verdict (--accept-incomplete decides the events present)",
	     shown_path(f), f->comp.why);
	f->status = EXIT_USAGE;
	return -1;
}

int check_load(struct file_report *f, const struct check_args *a)
{
	VSC_OPTS(vsc_parse_opts, popts, .filename = shown_path(f), .on_error = diag_parse_error,
		 .timeout_s = a->opts.timeout_s, .progress = a->opts.progress,
		 .on_progress = a->opts.on_progress, .progress_ctx = a->opts.progress_ctx,
		 .no_event_lines = !check_wants_core(a)); /* only the reports cite lines */
	double started = clock_now_s();

	f->trace = vsc_trace_parse_file(f->path, &popts);
	f->read_s = clock_now_s() - started;
	if (!f->trace && (errno == ETIME || errno == ENOMEM)) {
		f->read_stopped = errno == ETIME ? "--timeout" : "the memory limit";
		diag(NULL, "%s: %s reached while reading the input", f->path, f->read_stopped);
		f->status = EXIT_UNKNOWN;
		return -1;
	}
	if (!f->trace) {
		if (errno != EINVAL)
			diag(NULL, "%s: %s", f->path, strerror(errno));
		f->status = EXIT_USAGE;
		return -1;
	}
	if (check_completeness(f, a))
		return -1;
	f->count = vsc_trace_program_count(f->trace);
	f->segmented = f->count != 1 || vsc_program_name(vsc_trace_program(f->trace, 0)) != NULL;
	f->items = calloc(f->count ? f->count : 1, sizeof(*f->items));
	if (!f->items) {
		diag(NULL, "%s: out of memory", f->path);
		f->status = EXIT_UNKNOWN;
		f->count = 0;
		return -1;
	}
	for (size_t i = 0; i < f->count; i++)
		f->items[i].prog = vsc_trace_program(f->trace, i);
	return 0;
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

/* An incomplete trace's executions were decided on the events present;
 * unless that was asked for, their verdict becomes unknown. */
void check_withhold(struct file_report *f, const struct check_args *a)
{
	if (!f->trace || f->comp.state == VSC_TRACE_WHOLE || a->accept_incomplete)
		return;
	for (size_t i = 0; i < f->count; i++) {
		struct item *it = &f->items[i];
		f->present_status = check_combine_status(f->present_status, it->status);
		if (it->status == EXIT_USAGE)
			continue;
		it->present_status = it->status;
		it->status = EXIT_UNKNOWN;
		it->withheld = true;
	}
}
