/* SPDX-License-Identifier: MIT */
/* vsc check: shared/CONTRACT.md section 3, plus --explain, --svg, --summary
 * and --jobs. Files are parsed in order, their executions decided (in
 * parallel with --jobs), then reported in input order. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "report.h"
#include "userspace/util/clock.h"
#include "userspace/util/diag.h"

static void check_usage(FILE *out)
{
	fprintf(out,
		"usage: vsc check [options] FILE...   (FILE '-' reads standard input)\n"
		"  -p, --preemptions N   at most N preemptions (N >= 0); default: no bound\n"
		"      --min             find the least number of preemptions\n"
		"      --witness         print the interleaving found\n"
		"      --json            one JSON object per FILE, one per line\n"
		"      --timeout SEC     give up after SEC seconds of reading and solving each FILE\n"
		"                        (verdict unknown)\n"
		"      --explain         for inconsistent executions, a minimal inconsistent core\n"
		"                        and the orders that force it\n"
		"      --core-out FILE   write each minimal core as a trace of its own\n"
		"      --svg FILE        draw the witness (or the core) as an SVG picture\n"
		"      --html FILE       one self-contained page: threads, core, cycle, witness\n"
		"      --summary         one table over every segment of every FILE\n"
		"      --accept-incomplete  decide recorded traces that lost events, hold\n"
		"                        uncertain values or are cut short, on the events\n"
		"                        present (a warning says so); default: unknown / error\n"
		"  -j, --jobs N          decide N files/segments at once (same output)\n"
		"      --solver NAME     auto (default), or one of:");
	for (const char *const *n = vsc_solver_names(); *n; n++)
		fprintf(out, " %s", *n);
	fprintf(out, "\n"
		     "      --progress        progress lines on stderr during long searches\n"
		     "  -h, --help            this text\n"
		     "exit status: 0 consistent, 1 inconsistent, 2 bad usage or input, 3 unknown\n"
		     "(with several FILEs, the highest of their statuses)\n");
}

static int parse_count(const char *s, unsigned long *out)
{
	char *end;
	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static int parse_seconds(const char *s, double *out)
{
	char *end;
	if (!s || !*s)
		return -1;
	errno = 0;
	*out = strtod(s, &end);
	return errno || *end || !(*out > 0) || !isfinite(*out) ? -1 : 0;
}

const char *verdict_name(int status)
{
	return status == EXIT_CONSISTENT     ? "consistent"
	       : status == EXIT_INCONSISTENT ? "inconsistent"
					     : "unknown";
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

static int wants_core(const struct check_args *a)
{
	return a->explain || a->svg || a->core_out || a->html;
}

/* Why a solver picked by name refused a program (docs/solvers.md), or NULL. */
static const char *refusal(const char *solver, int err)
{
	if (!solver)
		return NULL;
	if (strcmp(solver, "sat") == 0 && err == -EINVAL)
		return "it answers -p 0 only (no preemption)";
	if (strcmp(solver, "sat") == 0 && err == -E2BIG)
		return "too many threads to encode";
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
	err = vsc_check(it->prog, &opts, &it->res);
	if (err && refusal(opts.solver, err)) {
		fprintf(stderr, "vsc: %s: the %s solver does not apply: %s\n", path, opts.solver,
			refusal(opts.solver, err));
		it->res = NULL;
		it->status = EXIT_USAGE;
		return;
	}
	if (err) {
		fprintf(stderr, "vsc: %s: cannot decide: %s\n", path, strerror(-err));
		it->res = NULL;
		it->status = err == -ENOMEM ? EXIT_UNKNOWN : EXIT_USAGE;
		return;
	}
	print_search_stats(it->res);
	it->status = vsc_result_verdict(it->res) == VSC_CONSISTENT     ? EXIT_CONSISTENT
		     : vsc_result_verdict(it->res) == VSC_INCONSISTENT ? EXIT_INCONSISTENT
								       : EXIT_UNKNOWN;
	if (it->status == EXIT_INCONSISTENT && wants_core(a)) {
		opts = a->opts; /* the explanation gets a --timeout of its own */
		it->core_err = vsc_explain(it->prog, &opts, &it->core);
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

static void decide_all(struct file_report *files, size_t nfiles, const struct check_args *a)
{
	struct pool pool = { .files = files, .nfiles = nfiles, .args = a };
	long jobs = a->jobs > 1 ? a->jobs : 1;
	pthread_t *threads = calloc((size_t)jobs, sizeof(*threads));
	long started = 0;

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

static const char *completeness_name(uint32_t state)
{
	return state == VSC_TRACE_WHOLE        ? "whole"
	       : state == VSC_TRACE_INCOMPLETE ? "incomplete"
					       : "cut short";
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
		fprintf(stderr,
			"vsc: warning: %s: %s; the verdict is about the events present only, "
			"not the whole run (--accept-incomplete)\n",
			shown_path(f), f->comp.why);
		return 0;
	}
	if (f->comp.state == VSC_TRACE_INCOMPLETE)
		return 0; /* decided, then reported as unknown */
	fprintf(stderr,
		"vsc: %s: %s; no verdict (--accept-incomplete decides the events present)\n",
		shown_path(f), f->comp.why);
	f->status = EXIT_USAGE;
	return -1;
}

static int load_file(struct file_report *f, const struct check_args *a)
{
	VSC_OPTS(vsc_parse_opts, popts, .filename = shown_path(f), .on_error = diag_parse_error,
		 .timeout_s = a->opts.timeout_s);
	double started = clock_now_s();

	f->trace = vsc_trace_parse_file(f->path, &popts);
	f->read_s = clock_now_s() - started;
	if (!f->trace && (errno == ETIME || errno == ENOMEM)) {
		f->read_stopped = errno == ETIME ? "--timeout" : "the memory limit";
		fprintf(stderr, "vsc: %s: %s reached while reading the input\n", f->path,
			f->read_stopped);
		f->status = EXIT_UNKNOWN;
		return -1;
	}
	if (!f->trace) {
		if (errno != EINVAL)
			fprintf(stderr, "vsc: %s: %s\n", f->path, strerror(errno));
		f->status = EXIT_USAGE;
		return -1;
	}
	if (check_completeness(f, a))
		return -1;
	f->count = vsc_trace_program_count(f->trace);
	f->segmented = f->count != 1 || vsc_program_name(vsc_trace_program(f->trace, 0)) != NULL;
	f->items = calloc(f->count ? f->count : 1, sizeof(*f->items));
	if (!f->items) {
		fprintf(stderr, "vsc: %s: out of memory\n", f->path);
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
static int combine_status(int so_far, int next)
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
static void withhold_verdicts(struct file_report *f, const struct check_args *a)
{
	if (!f->trace || f->comp.state == VSC_TRACE_WHOLE || a->accept_incomplete)
		return;
	for (size_t i = 0; i < f->count; i++) {
		struct item *it = &f->items[i];
		f->present_status = combine_status(f->present_status, it->status);
		if (it->status == EXIT_USAGE)
			continue;
		it->present_status = it->status;
		it->status = EXIT_UNKNOWN;
		it->withheld = true;
	}
}

/* ---- JSON ---------------------------------------------------------------- */

/* The verdict an item's details are about: the events present's when its
 * verdict is withheld. */
static int shown_status(const struct item *it)
{
	return it->withheld ? it->present_status : it->status;
}

/* Keys of a recorded trace, or of any trace that reports a loss. */
static void json_completeness(struct json *j, const struct file_report *f,
			      const struct check_args *a)
{
	const struct vsc_trace_completeness *c = &f->comp;

	if (!c->recorded && c->state == VSC_TRACE_WHOLE)
		return;
	json_key(j, "completeness");
	json_string(j, completeness_name(c->state));
	if (c->state != VSC_TRACE_WHOLE) {
		json_key(j, "completeness_reason");
		json_string(j, c->why);
		if (a->accept_incomplete || f->segmented) { /* else the item said it */
			json_key(j, "verdict_on_events_present");
			json_string(j, verdict_name(a->accept_incomplete ? f->status
									 : f->present_status));
		}
		json_key(j, "accepted_incomplete");
		json_bool(j, a->accept_incomplete);
	}
	json_key(j, "lost_events");
	json_uint(j, c->lost);
	json_key(j, "lost_events_exact");
	json_bool(j, c->lost_exact);
	json_key(j, "uncertain_values");
	json_uint(j, c->uncertain);
	if (c->loss_mode) {
		json_key(j, "loss_mode");
		json_string(j, c->loss_mode);
	}
}

/* An unknown --min that found an interleaving: the least preemptions lie in
 * [*lo, *hi] (the witness has *hi). */
static int least_bounds(const struct item *it, long *lo, long *hi)
{
	return it->res && shown_status(it) == EXIT_UNKNOWN &&
	       vsc_result_least_bounds(it->res, lo, hi) == 0;
}

/* What the exact reductions took away, when they took anything. */
static void json_reductions(struct json *j, const struct vsc_result *res)
{
	struct vsc_reductions red;

	vsc_result_reductions(res, &red);
	if (!red.spins && !red.dropped && !red.parts)
		return;
	json_key(j, "reductions");
	json_object_begin(j);
	json_key(j, "spin_reads_collapsed");
	json_uint(j, red.spins);
	json_key(j, "events_dropped");
	json_uint(j, red.dropped);
	json_key(j, "parts");
	json_uint(j, red.parts);
	json_object_end(j);
}

static void json_program_keys(struct json *j, const struct item *it, const struct check_args *a)
{
	long lo, hi;
	const struct vsc_program *prog = it->prog;
	const uint32_t *w;
	size_t n;

	json_key(j, "verdict");
	json_string(j, verdict_name(it->status));
	if (it->withheld) {
		json_key(j, "verdict_on_events_present");
		json_string(j, verdict_name(it->present_status));
	}
	json_key(j, "threads");
	json_uint(j, vsc_program_thread_count(prog));
	json_key(j, "events");
	json_uint(j, vsc_program_event_count(prog));
	json_key(j, "writers");
	json_uint(j, vsc_program_writers(prog));
	json_key(j, "preemptions");
	if (it->res && vsc_result_preemptions(it->res) >= 0)
		json_int(j, vsc_result_preemptions(it->res));
	else
		json_null(j);
	n = it->res ? vsc_result_witness(it->res, &w) : 0;
	if (least_bounds(it, &lo, &hi)) {
		json_key(j, "least_between");
		json_array_begin(j);
		json_int(j, lo);
		json_int(j, hi);
		json_array_end(j);
	}
	if ((a->witness || a->opts.minimize) &&
	    (shown_status(it) == EXIT_CONSISTENT || least_bounds(it, &lo, &hi))) {
		size_t *next = calloc(vsc_program_thread_count(prog) + 1, sizeof(*next));
		json_key(j, "witness");
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
	if (a->explain && it->status == EXIT_INCONSISTENT)
		story_json(j, it);
	if (it->res) {
		json_key(j, "solver");
		json_string(j, vsc_result_solver(it->res));
		json_reductions(j, it->res);
	}
	json_key(j, "time_s");
	json_double(j, it->res ? vsc_result_time(it->res) : 0.0);
}

static void report_json(struct json *j, const struct file_report *f, const struct check_args *a)
{
	size_t inconsistent = 0, events = 0, threads = 0, writers = 0;
	long max_pre = 0;
	double total = 0;

	json_object_begin(j);
	json_key(j, "file");
	json_string(j, f->path);
	if (!f->segmented) {
		json_program_keys(j, &f->items[0], a);
	} else {
		for (size_t i = 0; i < f->count; i++) {
			const struct item *it = &f->items[i];
			inconsistent += it->status == EXIT_INCONSISTENT;
			events += vsc_program_event_count(it->prog);
			if (vsc_program_thread_count(it->prog) > threads)
				threads = vsc_program_thread_count(it->prog);
			if (vsc_program_writers(it->prog) > writers)
				writers = vsc_program_writers(it->prog);
			if (it->res && vsc_result_preemptions(it->res) > max_pre)
				max_pre = vsc_result_preemptions(it->res);
			total += it->res ? vsc_result_time(it->res) : 0;
		}
		json_key(j, "verdict");
		json_string(j, verdict_name(f->status));
		json_key(j, "threads");
		json_uint(j, threads);
		json_key(j, "events");
		json_uint(j, events);
		json_key(j, "writers");
		json_uint(j, writers);
		json_key(j, "preemptions"); /* the most any segment needed */
		if (f->status == EXIT_CONSISTENT)
			json_int(j, max_pre);
		else
			json_null(j);
		json_key(j, "segments_total");
		json_uint(j, f->count);
		json_key(j, "segments_inconsistent");
		json_uint(j, inconsistent);
		json_key(j, "segments");
		json_array_begin(j);
		for (size_t i = 0; i < f->count; i++) {
			const char *name = vsc_program_name(f->items[i].prog);
			json_object_begin(j);
			json_key(j, "name");
			if (name)
				json_string(j, name);
			else
				json_null(j);
			json_program_keys(j, &f->items[i], a);
			json_object_end(j);
		}
		json_array_end(j);
		json_key(j, "time_s");
		json_double(j, total);
	}
	json_completeness(j, f, a);
	json_object_end(j);
}

/* A file whose reading --timeout stopped: unknown, and nothing else known. */
static void report_unread(struct json *j, const struct file_report *f, const struct check_args *a)
{
	if (!a->json) {
		if (a->several)
			printf("%s: unknown\n", f->path);
		else
			printf("unknown\n");
		printf("stopped by %s while reading the input\n", f->read_stopped);
		return;
	}
	json_object_begin(j);
	json_key(j, "file");
	json_string(j, f->path);
	json_key(j, "verdict");
	json_string(j, "unknown");
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
	json_key(j, "time_s");
	json_double(j, f->read_s);
	json_object_end(j);
}

/* ---- text ---------------------------------------------------------------- */

static void print_event(const struct vsc_program *prog, size_t t, size_t i, const char *indent)
{
	const struct vsc_event *e = &vsc_program_events(prog, t)[i];
	static const char op[] = { 'r', 'w', 'u' };

	printf("%s  %s[%zu] %c %s %lld", indent, vsc_program_thread_name(prog, t), i, op[e->kind],
	       vsc_program_var_name(prog, e->var), (long long)e->value);
	if (e->kind == VSC_RMW)
		printf(" %lld", (long long)e->new_value);
	putchar('\n');
}

/* The witness in text: one event per line, `THREAD[INDEX] OP VAR VALUE`,
 * and a line `-- preemption --` where a thread is left unfinished. */
static void print_witness(const struct vsc_program *prog, const struct vsc_result *res,
			  const char *indent)
{
	const uint32_t *w;
	size_t n = vsc_result_witness(res, &w);
	size_t *next = calloc(vsc_program_thread_count(prog) + 1, sizeof(*next));

	if (!next)
		return;
	printf("%switness:\n", indent);
	for (size_t i = 0; i < n; i++) {
		print_event(prog, w[i], next[w[i]]++, indent);
		if (i + 1 < n && w[i + 1] != w[i] &&
		    next[w[i]] < vsc_program_thread_length(prog, w[i]))
			printf("%s  -- preemption --\n", indent);
	}
	free(next);
}

static void print_item(const struct file_report *f, const struct item *it,
		       const struct check_args *a, const char *indent)
{
	long pre, lo, hi;
	int bounds;

	if (!it->res)
		return;
	pre = vsc_result_preemptions(it->res);
	bounds = least_bounds(it, &lo, &hi);
	if (pre >= 0)
		printf("%spreemptions: %ld%s\n", indent, pre, a->opts.minimize ? " (least)" : "");
	if (bounds)
		printf("%sleast: between %ld and %ld (the witness has %ld)\n", indent, lo, hi, hi);
	if (shown_status(it) == EXIT_UNKNOWN)
		printf("%sstopped by a limit (--timeout or memory) before deciding\n", indent);
	if (a->witness && (shown_status(it) == EXIT_CONSISTENT || bounds))
		print_witness(it->prog, it->res, indent);
	if (a->explain && it->status == EXIT_INCONSISTENT)
		story_print(f, it, indent);
}

/* The lines that say a verdict is withheld, or about the events present
 * only. */
static void print_completeness(const struct file_report *f, const struct check_args *a)
{
	if (f->comp.state == VSC_TRACE_WHOLE)
		return;
	if (a->accept_incomplete) {
		printf("accepted with --accept-incomplete: %s; this verdict is about the events "
		       "present only\n",
		       f->comp.why);
		return;
	}
	printf("no verdict: the trace is incomplete: %s\n", f->comp.why);
	printf("on the events present only: %s\n", verdict_name(f->present_status));
}

static void report_text(const struct file_report *f, const struct check_args *a)
{
	if (a->several)
		printf("%s: %s\n", f->path, verdict_name(f->status));
	else
		printf("%s\n", verdict_name(f->status));
	print_completeness(f, a);
	if (!f->segmented) {
		print_item(f, &f->items[0], a, "");
		return;
	}
	size_t inconsistent = 0;
	for (size_t i = 0; i < f->count; i++)
		inconsistent += f->items[i].status == EXIT_INCONSISTENT;
	printf("segments: %zu, inconsistent: %zu\n", f->count, inconsistent);
	for (size_t i = 0; i < f->count; i++) {
		const char *name = vsc_program_name(f->items[i].prog);
		printf("segment %s: %s", name ? name : "(before the first segment)",
		       verdict_name(f->items[i].status));
		if (f->items[i].withheld)
			printf(" (on the events present only: %s)",
			       verdict_name(f->items[i].present_status));
		putchar('\n');
		print_item(f, &f->items[i], a, "  ");
	}
}

/* The picture of the k-th execution (from 0) out of total: FILE as given
 * when there is one, else FILE with -1, -2, ... before its extension. */
static void picture_path(char *path, size_t size, const char *svg, size_t total, size_t k)
{
	const char *dot = strrchr(svg, '.');
	size_t stem = dot && !strchr(dot, '/') ? (size_t)(dot - svg) : strlen(svg);

	if (total == 1)
		snprintf(path, size, "%s", svg);
	else
		snprintf(path, size, "%.*s-%zu%s", (int)stem, svg, k, svg + stem);
}

static size_t execution_count(const struct file_report *files, size_t nfiles)
{
	size_t total = 0;

	for (size_t i = 0; i < nfiles; i++)
		total += files[i].trace ? files[i].count : 0;
	return total;
}

/* Before any verdict is printed: every picture file can be written. */
static int pictures_writable(const struct file_report *files, size_t nfiles, const char *svg)
{
	size_t total = execution_count(files, nfiles);

	for (size_t k = 0; k < total; k++) {
		char path[4096];
		FILE *out;
		picture_path(path, sizeof(path), svg, total, k);
		out = fopen(path, "a");
		if (!out) {
			fprintf(stderr, "vsc check: --svg %s: %s\n", path, strerror(errno));
			return 0;
		}
		fclose(out);
	}
	return 1;
}

static int draw_pictures(const struct file_report *files, size_t nfiles, const char *svg)
{
	size_t total = execution_count(files, nfiles), k = 0;
	int status = 0;

	for (size_t i = 0; i < nfiles; i++) {
		for (size_t s = 0; files[i].trace && s < files[i].count; s++) {
			char path[4096], title[512];
			const char *name = vsc_program_name(files[i].items[s].prog);
			picture_path(path, sizeof(path), svg, total, k);
			snprintf(title, sizeof(title), "%s%s%s: %s", files[i].path,
				 name ? " segment " : "", name ? name : "",
				 verdict_name(files[i].items[s].status));
			k++; /* files are numbered from 0, like lab segments */
			if (svg_write(path, &files[i].items[s], title)) {
				fprintf(stderr, "vsc: %s: %s\n", path, strerror(errno));
				status = EXIT_USAGE;
			}
		}
	}
	return status;
}

/* --core-out and --html; a file that cannot be written is exit status 2. */
static int write_reports(const struct file_report *files, size_t nfiles, const struct check_args *a,
			 int status)
{
	if (a->core_out && core_out_write(a->core_out, files, nfiles)) {
		fprintf(stderr, "vsc: %s: %s\n", a->core_out, strerror(errno));
		status = status > EXIT_USAGE ? status : EXIT_USAGE;
	}
	if (a->html && html_write(a->html, files, nfiles)) {
		fprintf(stderr, "vsc: %s: %s\n", a->html, strerror(errno));
		status = status > EXIT_USAGE ? status : EXIT_USAGE;
	}
	return status;
}

/* Standard input can be read once: '-' twice would decide an empty trace. */
static int stdin_twice(int argc, char **argv, int first)
{
	int seen = 0;

	for (int i = first; i < argc; i++)
		seen += strcmp(argv[i], "-") == 0;
	return seen > 1;
}

int cmd_check(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "preemptions", required_argument, NULL, 'p' },
		{ "min", no_argument, NULL, 'm' },
		{ "witness", no_argument, NULL, 'w' },
		{ "json", no_argument, NULL, 'J' },
		{ "timeout", required_argument, NULL, 't' },
		{ "explain", no_argument, NULL, 'e' },
		{ "svg", required_argument, NULL, 'g' },
		{ "core-out", required_argument, NULL, 'C' },
		{ "html", required_argument, NULL, 'H' },
		{ "summary", no_argument, NULL, 'S' },
		{ "accept-incomplete", no_argument, NULL, 'A' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "solver", required_argument, NULL, 's' },
		{ "progress", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct check_args a = { .opts = { .sz = sizeof(struct vsc_check_opts) }, .jobs = 1 };
	struct file_report *files;
	size_t nfiles;
	unsigned long jobs;
	struct json j;
	int c, status = EXIT_CONSISTENT;

	a.opts.progress = isatty(STDERR_FILENO);
	a.opts.on_progress = diag_progress;
	optind = 1;
	while ((c = getopt_long(argc, argv, "p:j:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_count(optarg, &a.opts.preemptions)) {
				fprintf(stderr, "vsc check: -p needs a number >= 0, not '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			a.opts.bounded = true;
			break;
		case 'm':
			a.opts.minimize = true;
			break;
		case 'w':
			a.witness = 1;
			a.opts.want_witness = true;
			break;
		case 'J':
			a.json = 1;
			break;
		case 't':
			if (parse_seconds(optarg, &a.opts.timeout_s)) {
				fprintf(stderr,
					"vsc check: --timeout needs seconds > 0, not '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'e':
			a.explain = 1;
			break;
		case 'g':
			a.svg = optarg;
			break;
		case 'C':
			a.core_out = optarg;
			break;
		case 'H':
			a.html = optarg;
			break;
		case 'S':
			a.summary = 1;
			break;
		case 'A':
			a.accept_incomplete = 1;
			break;
		case 'j':
			if (parse_count(optarg, &jobs) || jobs < 1 || jobs > 1024) {
				fprintf(stderr,
					"vsc check: --jobs needs a number from 1 to 1024\n");
				return EXIT_USAGE;
			}
			a.jobs = (long)jobs;
			break;
		case 's':
			a.opts.solver = optarg;
			break;
		case 'P':
			a.opts.progress = true;
			break;
		case 'h':
			check_usage(stdout);
			return 0;
		default:
			check_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "vsc check: no FILE given\n");
		check_usage(stderr);
		return EXIT_USAGE;
	}
	if (a.opts.solver) {
		const char *const *n = vsc_solver_names();
		while (*n && strcmp(*n, a.opts.solver) != 0)
			n++;
		if (!*n) {
			fprintf(stderr, "vsc check: unknown solver '%s'\n", a.opts.solver);
			return EXIT_USAGE;
		}
	}
	if (stdin_twice(argc, argv, optind)) {
		fprintf(stderr, "vsc check: '-' (standard input) given more than once\n");
		return EXIT_USAGE;
	}
	if (a.jobs > 1)
		a.opts.progress = false; /* interleaved progress lines help nobody */
	nfiles = (size_t)(argc - optind);
	a.several = nfiles > 1;
	files = calloc(nfiles, sizeof(*files));
	if (!files)
		return EXIT_UNKNOWN;
	for (size_t i = 0; i < nfiles; i++) {
		files[i].path = argv[optind + (int)i];
		load_file(&files[i], &a);
	}
	if (a.svg && !pictures_writable(files, nfiles, a.svg)) {
		status = EXIT_USAGE; /* a usage error: before any verdict */
		goto out;
	}
	decide_all(files, nfiles, &a);
	for (size_t i = 0; i < nfiles; i++)
		withhold_verdicts(&files[i], &a);
	for (size_t i = 0; i < nfiles && (wants_core(&a) || a.html); i++)
		if (files[i].trace)
			notes_load(&files[i], a.html != NULL);
	json_init(&j, stdout);
	for (size_t i = 0; i < nfiles; i++) {
		struct file_report *f = &files[i];
		for (size_t s = 0; s < f->count; s++)
			f->status = combine_status(f->status, f->items[s].status);
		status = combine_status(status, f->status);
		if (f->read_stopped && !a.summary)
			report_unread(&j, f, &a);
		if (!f->trace || f->status == EXIT_USAGE || a.summary)
			continue;
		if (a.json)
			report_json(&j, f, &a);
		else
			report_text(f, &a);
	}
	if (a.summary)
		summary_print(files, nfiles, &a);
	if (a.svg) {
		int s = draw_pictures(files, nfiles, a.svg);
		if (s > status)
			status = s;
	}
	status = write_reports(files, nfiles, &a, status);
	fflush(stdout);
out:
	for (size_t i = 0; i < nfiles; i++) {
		for (size_t s = 0; s < files[i].count; s++) {
			vsc_result_free(files[i].items[s].res);
			vsc_core_free(files[i].items[s].core);
		}
		free(files[i].items);
		notes_free(files[i].notes);
		vsc_trace_free(files[i].trace);
	}
	free(files);
	return status;
}
