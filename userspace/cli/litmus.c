/* SPDX-License-Identifier: MIT */
/* vsc litmus: run litmus tests (.litmus, herd/litmus7 syntax, the subset of
 * docs/litmus.md) on this machine, record every iteration with <vsc/lab.h>
 * and vsc record, and report litmus7-style with vsc check's verdict on
 * every execution. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "litmus_cli.h"
#include "userspace/util/diag.h"
#include "userspace/util/options.h"

#define MAX_ITERATIONS 10000000L
#define MAX_LITMUS_FILE (1 << 20)

#define LITMUS_OPTIONS(X)                                                                        \
	X(ITERATIONS, 'n', "iterations", "N", "iterations of each test (default 1000)")          \
	X(JOBS, 'j', "jobs", "JOBS", "run up to JOBS tests at once (default 1)")                 \
	X(JSON, 0, "json", NULL, "one JSON object per test")                                     \
	X(NO_RECORD, 0, "no-record", NULL, "run without recording: no verdicts per execution")   \
	X(KEEP, 'o', "keep", "DIR",                                                              \
	  "keep each test's C source, program, trace, outcomes\n"                                \
	  "in DIR/NAME")                                                                         \
	X(GENERATE, 0, "generate", NULL, "write the C test to stdout and stop")                  \
	X(BUILD_ONLY, 0, "build-only", NULL, "generate and build, do not run")                   \
	X(CC, 0, "cc", "CC",                                                                     \
	  "C compiler (default cc, aarch64-linux-gnu-gcc for\n"                                  \
	  "AArch64 tests on another machine)")                                                   \
	X(QEMU, 0, "qemu", "QEMU", "qemu-user for other architectures (qemu-aarch64)")           \
	X(INCLUDE, 0, "include", "DIR", "where <vsc/lab.h> is (default ../include next to vsc)") \
	X(HELP, 'h', "help", NULL, NULL)

enum {
	LITMUS_OPTIONS(OPTION_ID)
};
static const struct option_spec litmus_options[] = { LITMUS_OPTIONS(OPTION_SPEC) };

static void usage(FILE *out)
{
	fprintf(out, "usage: vsc litmus [-n N] [-j JOBS] [--json] [--no-record] [-o DIR]\n"
		     "                  [--cc CC] [--qemu QEMU] [--include DIR] FILE.litmus...\n"
		     "       vsc litmus --generate [-n N] FILE.litmus\n"
		     "\n"
		     "Run each litmus test N times with its threads pinned across CPUs, record it\n"
		     "(eBPF, through <vsc/lab.h>) and print the outcome histogram, which outcomes\n"
		     "are SC, whether the condition was observed, and vsc check's verdict on\n"
		     "every execution. A test of another architecture is built with the cross\n"
		     "compiler and run under qemu-user, not recorded. See docs/litmus.md.\n");
	options_usage(out, litmus_options, OPTIONS_COUNT(litmus_options));
	fprintf(out, "Exit status: 0 every verdict agrees with its outcome's SC-ness, 1 some\n"
		     "disagree, 2 bad usage, input or build, 3 some verdicts unknown.\n");
}

/* A whole number in [min, max], or -1. */
static int parse_long(const char *s, long min, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return errno || end == s || *end || *out < min || *out > max ? -1 : 0;
}

/* One option into the litmus_opts at ctx. */
static int take_option(void *ctx, int opt, const char *value)
{
	struct litmus_opts *o = ctx;

	switch (opt) {
	case OPT_ITERATIONS:
		if (parse_long(value, 1, MAX_ITERATIONS, &o->iterations)) {
			diag("litmus", "-n wants 1..%ld, not '%s'", MAX_ITERATIONS, value);
			return OPTIONS_BAD;
		}
		return OPTIONS_OK;
	case OPT_JOBS:
		if (parse_long(value, 1, 256, &o->jobs)) {
			diag("litmus", "-j wants 1..256, not '%s'", value);
			return OPTIONS_BAD;
		}
		return OPTIONS_OK;
	case OPT_JSON:
		o->json = true;
		return OPTIONS_OK;
	case OPT_NO_RECORD:
		o->record = false;
		return OPTIONS_OK;
	case OPT_KEEP:
		o->keep_dir = value;
		return OPTIONS_OK;
	case OPT_GENERATE:
		o->generate = true;
		return OPTIONS_OK;
	case OPT_BUILD_ONLY:
		o->build_only = true;
		return OPTIONS_OK;
	case OPT_CC:
		o->cc = value;
		return OPTIONS_OK;
	case OPT_QEMU:
		o->qemu = value;
		return OPTIONS_OK;
	case OPT_INCLUDE:
		o->include_dir = value;
		return OPTIONS_OK;
	}
	return OPTIONS_OK;
}

static int parse_args(int argc, char **argv, struct litmus_opts *o)
{
	static const struct options_table table = OPTIONS_TABLE(litmus_options, usage);
	int parsed;

	*o = (struct litmus_opts){ .iterations = 1000, .record = true, .jobs = 1 };
	parsed = options_parse(&table, argc, argv, take_option, o);
	if (parsed != OPTIONS_OK)
		return parsed == OPTIONS_HELP ? 1 : -1;
	if (optind >= argc) {
		diag("litmus", "no .litmus file given");
		usage(stderr);
		return -1;
	}
	return 0;
}

static int load_test(const char *path, struct litmus_test *t)
{
	char err[512];
	FILE *f = fopen(path, "r");
	char *text = malloc(MAX_LITMUS_FILE + 1);
	size_t len = 0;

	if (!f || !text) {
		diag("litmus", "%s: %s", path, strerror(errno));
		free(text);
		if (f)
			fclose(f);
		return -1;
	}
	len = fread(text, 1, MAX_LITMUS_FILE + 1, f);
	int bad = ferror(f);
	fclose(f);
	if (bad || len > MAX_LITMUS_FILE) {
		diag("litmus", "%s: %s", path,
		     bad ? "read error" : "larger than 1 MiB, not a litmus test");
		free(text);
		return -1;
	}
	int rc = litmus_parse(text, len, path, t, err, sizeof(err));
	free(text);
	if (rc)
		fprintf(stderr, "%s\n", err);
	return rc;
}

/* "FILE:LINE:COL: what" when the message starts with a position. */
static void report_error(const char *path, const char *err)
{
	fprintf(stderr, "%s%s%s\n", path, isdigit((unsigned char)err[0]) ? ":" : ": ", err);
}

/* Can the test be written as C? Asked before anything is made on disk. */
static bool generates(const struct litmus_test *t, const char *path)
{
	char err[512];
	FILE *sink = fopen("/dev/null", "w");
	int rc = sink ? litmus_gen_c(t, 1, sink, err, sizeof(err)) : -errno;

	if (sink)
		fclose(sink);
	if (rc)
		report_error(path, sink ? err : strerror(-rc));
	return rc == 0;
}

/* The outcomes of a run, read back and reported; the exit status. */
static int report_run(const struct litmus_test *t, const struct litmus_opts *o, const char *path,
		      const char *dir, bool record, bool *failed)
{
	size_t width = litmus_outcome_width(t);
	int64_t *values = calloc((size_t)o->iterations * (width ? width : 1), sizeof(*values));
	char err[512];
	int status = EXIT_UNKNOWN;

	if (!values || litmus_read_outcomes(dir, o->iterations, width, values, err, sizeof(err))) {
		diag("litmus", "%s: %s", path, values ? err : "out of memory");
	} else {
		if (!litmus_native(t->arch) && !o->json)
			printf("(%s under qemu-user: these are the emulator's outcomes on "
			       "this machine, not the hardware's; not recorded)\n",
			       litmus_arch_name(t->arch));
		status = litmus_report(t, o, path, dir, record, values);
		*failed = false;
	}
	free(values);
	return status;
}

/* Build, run (recorded when it can be) and report the test in dir; the
 * exit status. The directory goes unless something failed (its logs say
 * why) or --keep asked for it. */
static int build_and_run(const struct litmus_test *t, const struct litmus_opts *o, const char *path,
			 const char *dir, const char *include)
{
	bool record = o->record && litmus_native(t->arch);
	bool failed = true;
	int status = EXIT_USAGE;
	char err[512];

	if (litmus_build(t, o, dir, include, err, sizeof(err))) {
		report_error(path, err);
	} else if (o->build_only) {
		printf("%s: built %s/test\n", path, dir);
		status = EXIT_CONSISTENT;
		failed = false;
	} else if (litmus_execute(t, o, dir, record, err, sizeof(err))) {
		diag("litmus", "%s: %s", path, err);
		status = EXIT_UNKNOWN;
	} else {
		status = report_run(t, o, path, dir, record, &failed);
	}
	if (failed && !o->keep_dir)
		diag("litmus", "%s: files kept in %s", path, dir);
	else
		litmus_workdir_remove(o, dir);
	return status;
}

/* Everything for one file; returns its exit status. */
static int run_test(const char *path, const struct litmus_opts *o)
{
	struct litmus_test *t = malloc(sizeof(*t));
	char dir[PATH_MAX], include[PATH_MAX], err[512];
	int status = EXIT_USAGE;

	if (!t || load_test(path, t))
		goto out;
	if (o->generate) {
		if (litmus_gen_c(t, o->iterations, stdout, err, sizeof(err)))
			report_error(path, err);
		else
			status = EXIT_CONSISTENT;
		goto out;
	}
	if (!generates(t, path))
		goto out;
	if (litmus_find_include(o, include, sizeof(include))) {
		diag("litmus", "cannot find <vsc/lab.h>: say --include DIR");
		goto out;
	}
	if (litmus_workdir(o, t, dir, sizeof(dir))) {
		diag("litmus", "no working directory: %s", strerror(errno));
		goto out;
	}
	status = build_and_run(t, o, path, dir, include);
out:
	free(t);
	fflush(stdout);
	return status;
}

/* Up to o->jobs tests at once, each in a child printing into a file of its
 * own; the reports come out in the order of the files. */
/* Test i in a child of its own, its report into a temporary file. */
static void start_test(char **files, int i, const struct litmus_opts *o, FILE **out, pid_t *pid)
{
	out[i] = tmpfile();
	fflush(stdout);
	pid[i] = out[i] ? fork() : -1;
	if (pid[i] == 0) {
		dup2(fileno(out[i]), STDOUT_FILENO);
		_exit(run_test(files[i], o));
	}
}

/* The reports in the order of the files; a test that did not start makes
 * the status a usage error. */
static int print_reports(char **files, int count, FILE **out, const pid_t *pid, int worst)
{
	for (int i = 0; i < count; i++) {
		if (pid[i] <= 0) {
			diag("litmus", "%s: could not start: %s", files[i], strerror(errno));
			worst = EXIT_USAGE;
		}
		if (!out[i])
			continue;
		rewind(out[i]);
		char buf[4096];
		size_t n;
		while ((n = fread(buf, 1, sizeof(buf), out[i])) > 0)
			fwrite(buf, 1, n, stdout);
		fclose(out[i]);
	}
	return worst;
}

static int run_parallel(char **files, int count, const struct litmus_opts *o)
{
	FILE **out = calloc((size_t)count, sizeof(*out));
	pid_t *pid = calloc((size_t)count, sizeof(*pid));
	int worst = 0, running = 0, next = 0, done = 0;

	if (!out || !pid) {
		free(out);
		free(pid);
		return EXIT_USAGE;
	}
	while (done < count) {
		while (running < o->jobs && next < count) {
			start_test(files, next, o, out, pid);
			running += pid[next] > 0;
			next++;
		}
		int status;
		if (wait(&status) < 0)
			break;
		running--;
		done++;
		int code = WIFEXITED(status) ? WEXITSTATUS(status) : EXIT_USAGE;
		worst = code > worst ? code : worst;
	}
	worst = print_reports(files, count, out, pid, worst);
	free(out);
	free(pid);
	return worst;
}

int cmd_litmus(int argc, char **argv)
{
	struct litmus_opts o;
	int rc = parse_args(argc, argv, &o), worst = 0;

	if (rc)
		return rc > 0 ? 0 : EXIT_USAGE;
	if (o.generate && argc - optind != 1) {
		diag("litmus", "--generate takes one file");
		return EXIT_USAGE;
	}
	if (o.jobs > 1 && argc - optind > 1)
		return run_parallel(argv + optind, argc - optind, &o);
	for (int i = optind; i < argc; i++) {
		int status = run_test(argv[i], &o);
		worst = status > worst ? status : worst;
	}
	return worst;
}
