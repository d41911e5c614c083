/* SPDX-License-Identifier: MIT */
/* vsc check: shared/CONTRACT.md section 3, plus --explain, --svg, --summary
 * and --jobs. Files are parsed in order and their executions decided as
 * they are read (in parallel with --jobs; check_stream.c, check_decide.c),
 * then reported in input order (check_text.c, check_json.c, and the files
 * --svg, --core-out and --html ask for). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "report.h"
#include "userspace/util/diag.h"
#include "userspace/util/options.h"

#define CHECK_OPTIONS(X)                                                                     \
	X(PREEMPTIONS, 'p', "preemptions", "N",                                              \
	  "at most N preemptions (N >= 0); default: no bound")                               \
	X(MIN, 0, "min", NULL, "find the least number of preemptions")                       \
	X(WITNESS, 0, "witness", NULL, "print the interleaving found")                       \
	X(JSON, 0, "json", NULL, "one JSON object per FILE, one per line")                   \
	X(TIMEOUT, 0, "timeout", "SEC",                                                      \
	  "give up after SEC seconds on each FILE (reading, solving,\n"                      \
	  "explaining and pictures share them; verdict unknown)")                            \
	X(EXPLAIN, 0, "explain", NULL,                                                       \
	  "for inconsistent executions, a minimal inconsistent core\n"                       \
	  "and the orders that force it")                                                    \
	X(CORE_OUT, 0, "core-out", "FILE", "write each minimal core as a trace of its own")  \
	X(SVG, 0, "svg", "FILE", "draw the witness (or the core) as an SVG picture")         \
	X(HTML, 0, "html", "FILE", "one self-contained page: threads, core, cycle, witness") \
	X(SUMMARY, 0, "summary", NULL, "one table over every segment of every FILE")         \
	X(ACCEPT_INCOMPLETE, 0, "accept-incomplete", NULL,                                   \
	  "decide recorded traces that lost events, hold\n"                                  \
	  "uncertain values or are cut short, on the events\n"                               \
	  "present (a warning says so); default: unknown / error")                           \
	X(JOBS, 'j', "jobs", "N",                                                            \
	  "N threads: files/segments at once, and the independent\n"                         \
	  "parts of one execution (same output)")                                            \
	X(SOLVER, 0, "solver", "NAME", "auto (the default) or one of the solvers below")     \
	X(PROGRESS, 0, "progress", NULL, "progress lines on stderr (reading, each step)")    \
	X(HELP, 'h', "help", NULL, "this text")

enum {
	CHECK_OPTIONS(OPTION_ID)
};
static const struct option_spec check_options[] = { CHECK_OPTIONS(OPTION_SPEC) };

static void check_usage(FILE *out)
{
	fprintf(out, "usage: vsc check [options] FILE...   (FILE '-' reads standard input)\n");
	options_usage(out, check_options, OPTIONS_COUNT(check_options));
	fprintf(out, "solvers:");
	for (const char *const *n = vsc_solver_names(); *n; n++)
		fprintf(out, " %s", *n);
	fprintf(out, "\n"
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

/* --core-out and --html; a file that cannot be written is exit status 2. */
static int write_reports(const struct file_report *files, size_t nfiles, const struct check_args *a,
			 int status)
{
	if (a->core_out && core_out_write(a->core_out, files, nfiles, a)) {
		diag(NULL, "%s: %s", a->core_out, strerror(errno));
		status = status > EXIT_USAGE ? status : EXIT_USAGE;
	}
	if (a->html && html_write(a->html, files, nfiles)) {
		diag(NULL, "%s: %s", a->html, strerror(errno));
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

/* An option with a number: -p, --timeout, --jobs. */
static int take_number(struct check_args *a, int opt, const char *value)
{
	unsigned long jobs;

	if (opt == OPT_PREEMPTIONS) {
		if (parse_count(value, &a->opts.preemptions)) {
			diag("check", "-p needs a number >= 0, not '%s'", value);
			return OPTIONS_BAD;
		}
		a->opts.bounded = true;
	} else if (opt == OPT_TIMEOUT) {
		if (parse_seconds(value, &a->opts.timeout_s)) {
			diag("check", "--timeout needs seconds > 0, not '%s'", value);
			return OPTIONS_BAD;
		}
	} else {
		if (parse_count(value, &jobs) || jobs < 1 || jobs > 1024) {
			diag("check", "--jobs needs a number from 1 to 1024");
			return OPTIONS_BAD;
		}
		a->jobs = (long)jobs;
	}
	return OPTIONS_OK;
}

/* One option and its value into the check_args at ctx. */
static int take_option(void *ctx, int opt, const char *value)
{
	struct check_args *a = ctx;

	switch (opt) {
	case OPT_PREEMPTIONS:
	case OPT_TIMEOUT:
	case OPT_JOBS:
		return take_number(a, opt, value);
	case OPT_MIN:
		a->opts.minimize = true;
		break;
	case OPT_WITNESS:
		a->witness = 1;
		a->opts.want_witness = true;
		break;
	case OPT_JSON:
		a->json = 1;
		break;
	case OPT_EXPLAIN:
		a->explain = 1;
		break;
	case OPT_SVG:
		a->svg = value;
		break;
	case OPT_CORE_OUT:
		a->core_out = value;
		break;
	case OPT_HTML:
		a->html = value;
		break;
	case OPT_SUMMARY:
		a->summary = 1;
		break;
	case OPT_ACCEPT_INCOMPLETE:
		a->accept_incomplete = 1;
		break;
	case OPT_SOLVER:
		a->opts.solver = value;
		break;
	case OPT_PROGRESS:
		a->opts.progress = true;
		break;
	}
	return OPTIONS_OK;
}

static bool solver_known(const char *solver)
{
	for (const char *const *n = vsc_solver_names(); *n; n++)
		if (strcmp(*n, solver) == 0)
			return true;
	return false;
}

/* The options into a, and what is wrong with the operands; -1: go on,
 * else the exit status. */
static int parse_check_args(struct check_args *a, int argc, char **argv)
{
	static const struct options_table table = OPTIONS_TABLE(check_options, check_usage);
	const char *keep;
	int parsed;

	a->opts.progress = isatty(STDERR_FILENO);
	keep = getenv("VSC_KEEP_EXECUTIONS"); /* set and empty is unset, as in the tests */
	a->keep_executions = keep && *keep;
	a->opts.on_progress = diag_progress;
	parsed = options_parse(&table, argc, argv, take_option, a);
	if (parsed != OPTIONS_OK)
		return options_exit_status(parsed);
	if (optind >= argc) {
		diag("check", "no FILE given");
		check_usage(stderr);
		return EXIT_USAGE;
	}
	if (a->opts.solver && !solver_known(a->opts.solver)) {
		diag("check", "unknown solver '%s'", a->opts.solver);
		return EXIT_USAGE;
	}
	if (stdin_twice(argc, argv, optind)) {
		diag("check", "'-' (standard input) given more than once");
		return EXIT_USAGE;
	}
	return -1;
}

/* Every file's verdict (text or JSON) in input order; the combined status. */
static int report_all(struct file_report *files, size_t nfiles, const struct check_args *a)
{
	int status = EXIT_CONSISTENT;
	struct json j;

	json_init(&j, stdout);
	for (size_t i = 0; i < nfiles; i++) {
		struct file_report *f = &files[i];

		struct item_cursor c;
		const struct item *it;

		for (items_begin(&c, f); (it = items_next(&c));)
			f->status = check_combine_status(f->status, it->status);
		status = check_combine_status(status, f->status);
		if (f->read_stopped && !a->summary) {
			if (a->json)
				check_json_unread(&j, f);
			else
				check_text_unread(f, a);
		}
		if (!f->trace || f->status == EXIT_USAGE || a->summary)
			continue;
		if (a->json)
			check_json_file(&j, f, a);
		else
			check_text_file(f, a);
	}
	if (a->summary)
		summary_print(files, nfiles, a);
	return status;
}

static int combine_worst(int status, int next)
{
	return next > status ? next : status;
}

static void free_files(struct file_report *files, size_t nfiles)
{
	for (size_t i = 0; i < nfiles; i++) {
		check_free_items(&files[i]);
		notes_free(files[i].notes);
		vsc_trace_free(files[i].trace);
	}
	free(files);
}

int cmd_check(int argc, char **argv)
{
	struct outcome_names outcomes = { 0 };
	struct witness_spill spill = { 0 };
	struct check_args a = { .opts = { .sz = sizeof(struct vsc_check_opts) },
				.jobs = 1,
				.outcomes = &outcomes,
				.spill = &spill };
	struct file_report *files;
	size_t nfiles;
	int status = parse_check_args(&a, argc, argv);

	if (status >= 0)
		return status;
	nfiles = argc > optind ? (size_t)(argc - optind) : 0; /* parse_check_args saw one */
	a.several = nfiles > 1;
	files = calloc(nfiles, sizeof(*files));
	if (!files)
		return EXIT_UNKNOWN;
	for (size_t i = 0; i < nfiles; i++)
		files[i].path = argv[optind + (int)i];
	check_read_and_decide(files, nfiles, &a);
	if (a.svg && !check_pictures_writable(files, nfiles, a.svg)) {
		free_files(files, nfiles);
		outcome_names_free(&outcomes);
		witness_spill_close(&spill);
		return EXIT_USAGE; /* a usage error: before any verdict is printed */
	}
	for (size_t i = 0; i < nfiles && (check_wants_core(&a) || a.html); i++)
		if (files[i].trace)
			notes_load(&files[i], a.html != NULL);
	status = report_all(files, nfiles, &a);
	if (a.svg)
		status = combine_worst(status, check_draw_pictures(files, nfiles, a.svg));
	status = write_reports(files, nfiles, &a, status);
	if (spill.read_failed || outcomes.failed) /* a report missing some (said): an error */
		status = combine_worst(status, EXIT_USAGE);
	fflush(stdout);
	free_files(files, nfiles);
	outcome_names_free(&outcomes);
	witness_spill_close(&spill);
	return status;
}
