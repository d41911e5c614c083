/* SPDX-License-Identifier: MIT */
/* vsc check: shared/CONTRACT.md section 3. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "json.h"
#include "vsc/vsc.h"

struct check_args {
	struct vsc_check_opts opts;
	int json;
	int witness;
	int several; /* more than one FILE: prefix text lines with it */
};

/* What one program (file or segment) came to. */
struct outcome {
	struct vsc_result *res; /* NULL when the solver failed */
	int status;
};

static void check_usage(FILE *out)
{
	fprintf(out,
		"usage: vsc check [options] FILE...   (FILE '-' reads standard input)\n"
		"  -p, --preemptions N   at most N preemptions (N >= 0); default: no bound\n"
		"      --min             find the least number of preemptions\n"
		"      --witness         print the interleaving found\n"
		"      --json            one JSON object per FILE, one per line\n"
		"      --timeout SEC     give up after SEC seconds of solving (verdict unknown)\n"
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
	if (!s || !*s || *s == '-' || *s == '+')
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

static int status_of(enum vsc_verdict v)
{
	return v == VSC_CONSISTENT ? EXIT_CONSISTENT
	       : v == VSC_INCONSISTENT ? EXIT_INCONSISTENT : EXIT_UNKNOWN;
}

static const char *verdict_name(enum vsc_verdict v)
{
	return v == VSC_CONSISTENT ? "consistent" : v == VSC_INCONSISTENT ? "inconsistent" : "unknown";
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Decide one program; the time left of the file's --timeout is shared. */
static struct outcome decide(const struct vsc_program *prog, const struct check_args *a,
			     double deadline, const char *file)
{
	struct outcome o = { NULL, EXIT_UNKNOWN };
	struct vsc_check_opts opts = a->opts;
	int err;

	if (deadline > 0) {
		opts.timeout_s = deadline - now_s();
		if (opts.timeout_s <= 0)
			opts.timeout_s = 1e-9;
	}
	err = vsc_check(prog, &opts, &o.res);
	if (err) {
		fprintf(stderr, "vsc: %s: cannot decide: %s\n", file, strerror(-err));
		o.res = NULL;
		o.status = err == -ENOMEM ? EXIT_UNKNOWN : EXIT_USAGE;
		return o;
	}
	o.status = status_of(vsc_result_verdict(o.res));
	return o;
}

static void json_program_keys(struct json *j, const struct vsc_program *prog,
			      const struct outcome *o, const struct check_args *a)
{
	const uint32_t *w;
	size_t n;

	json_key(j, "verdict");
	json_string(j, o->res ? verdict_name(vsc_result_verdict(o->res)) : "unknown");
	json_key(j, "threads");
	json_uint(j, vsc_program_thread_count(prog));
	json_key(j, "events");
	json_uint(j, vsc_program_event_count(prog));
	json_key(j, "writers");
	json_uint(j, vsc_program_writers(prog));
	json_key(j, "preemptions");
	if (o->res && vsc_result_preemptions(o->res) >= 0)
		json_int(j, vsc_result_preemptions(o->res));
	else
		json_null(j);
	n = o->res ? vsc_result_witness(o->res, &w) : 0;
	if ((a->witness || a->opts.minimize) && o->res &&
	    vsc_result_verdict(o->res) == VSC_CONSISTENT) {
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
	if (o->res) {
		json_key(j, "solver");
		json_string(j, vsc_result_solver(o->res));
	}
	json_key(j, "time_s");
	json_double(j, o->res ? vsc_result_time(o->res) : 0.0);
}

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
 * and a line `  -- preemption --` where a thread is left unfinished. */
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

static void print_program_text(const struct vsc_program *prog, const struct outcome *o,
			       const struct check_args *a, const char *indent)
{
	long pre;

	if (!o->res)
		return;
	pre = vsc_result_preemptions(o->res);
	if (pre >= 0)
		printf("%spreemptions: %ld%s\n", indent, pre, a->opts.minimize ? " (least)" : "");
	if (vsc_result_verdict(o->res) == VSC_UNKNOWN)
		printf("%sstopped by a limit (--timeout or memory) before deciding\n", indent);
	if (a->witness && vsc_result_verdict(o->res) == VSC_CONSISTENT)
		print_witness(prog, o->res, indent);
}

static int check_file(const char *path, const struct check_args *a, struct json *j)
{
	VSC_OPTS(vsc_parse_opts, popts, .filename = strcmp(path, "-") == 0 ? "<stdin>" : path);
	struct vsc_trace *trace = vsc_trace_parse_file(path, &popts);
	double deadline = a->opts.timeout_s > 0 ? now_s() + a->opts.timeout_s : 0;
	size_t count, inconsistent = 0, events = 0, threads = 0, writers = 0;
	long max_pre = 0;
	int status = EXIT_CONSISTENT, segmented;
	struct outcome *outs;

	if (!trace) {
		if (errno != EINVAL)
			fprintf(stderr, "vsc: %s: %s\n", path, strerror(errno));
		return EXIT_USAGE;
	}
	if (vsc_trace_lost_events(trace))
		fprintf(stderr,
			"vsc: warning: %s: the recorder lost %llu events; the verdict is about "
			"what was recorded, not the whole run\n",
			path, (unsigned long long)vsc_trace_lost_events(trace));
	count = vsc_trace_program_count(trace);
	segmented = count != 1 || vsc_program_name(vsc_trace_program(trace, 0)) != NULL;
	outs = calloc(count ? count : 1, sizeof(*outs));
	if (!outs) {
		vsc_trace_free(trace);
		fprintf(stderr, "vsc: %s: out of memory\n", path);
		return EXIT_UNKNOWN;
	}
	for (size_t i = 0; i < count; i++) {
		const struct vsc_program *prog = vsc_trace_program(trace, i);
		outs[i] = decide(prog, a, deadline, path);
		if (outs[i].status > status)
			status = outs[i].status;
		if (outs[i].status == EXIT_INCONSISTENT)
			inconsistent++;
		if (outs[i].res && vsc_result_preemptions(outs[i].res) > max_pre)
			max_pre = vsc_result_preemptions(outs[i].res);
		events += vsc_program_event_count(prog);
		if (vsc_program_thread_count(prog) > threads)
			threads = vsc_program_thread_count(prog);
		if (vsc_program_writers(prog) > writers)
			writers = vsc_program_writers(prog);
	}
	if (status == EXIT_USAGE) {
		/* the solver refused the options: nothing was decided */
	} else if (j) {
		json_object_begin(j);
		json_key(j, "file");
		json_string(j, path);
		if (!segmented) {
			json_program_keys(j, vsc_trace_program(trace, 0), &outs[0], a);
		} else {
			const char *v = status == EXIT_CONSISTENT ? "consistent"
					: status == EXIT_INCONSISTENT ? "inconsistent" : "unknown";
			double total = 0;
			json_key(j, "verdict");
			json_string(j, v);
			json_key(j, "threads");
			json_uint(j, threads);
			json_key(j, "events");
			json_uint(j, events);
			json_key(j, "writers");
			json_uint(j, writers);
			json_key(j, "preemptions");
			if (status == EXIT_CONSISTENT)
				json_int(j, max_pre);
			else
				json_null(j);
			json_key(j, "segments_total");
			json_uint(j, count);
			json_key(j, "segments_inconsistent");
			json_uint(j, inconsistent);
			json_key(j, "segments");
			json_array_begin(j);
			for (size_t i = 0; i < count; i++) {
				const struct vsc_program *prog = vsc_trace_program(trace, i);
				json_object_begin(j);
				json_key(j, "name");
				if (vsc_program_name(prog))
					json_string(j, vsc_program_name(prog));
				else
					json_null(j);
				json_program_keys(j, prog, &outs[i], a);
				json_object_end(j);
				total += outs[i].res ? vsc_result_time(outs[i].res) : 0;
			}
			json_array_end(j);
			json_key(j, "time_s");
			json_double(j, total);
		}
		if (vsc_trace_lost_events(trace)) {
			json_key(j, "lost_events");
			json_uint(j, vsc_trace_lost_events(trace));
		}
		json_object_end(j);
	} else {
		const char *v = status == EXIT_CONSISTENT ? "consistent"
				: status == EXIT_INCONSISTENT ? "inconsistent" : "unknown";
		if (a->several)
			printf("%s: %s\n", path, v);
		else
			printf("%s\n", v);
		if (!segmented) {
			print_program_text(vsc_trace_program(trace, 0), &outs[0], a, "");
		} else {
			printf("segments: %zu, inconsistent: %zu\n", count, inconsistent);
			for (size_t i = 0; i < count; i++) {
				const struct vsc_program *prog = vsc_trace_program(trace, i);
				const char *name = vsc_program_name(prog);
				printf("segment %s: %s\n", name ? name : "(before the first segment)",
				       outs[i].res ? verdict_name(vsc_result_verdict(outs[i].res))
						   : "unknown");
				print_program_text(prog, &outs[i], a, "  ");
			}
		}
	}
	fflush(stdout);
	for (size_t i = 0; i < count; i++)
		vsc_result_free(outs[i].res);
	free(outs);
	vsc_trace_free(trace);
	return status;
}

int cmd_check(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "preemptions", required_argument, NULL, 'p' },
		{ "min", no_argument, NULL, 'm' },
		{ "witness", no_argument, NULL, 'w' },
		{ "json", no_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 't' },
		{ "solver", required_argument, NULL, 's' },
		{ "progress", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct check_args a = { .opts = { .sz = sizeof(struct vsc_check_opts) } };
	struct json j;
	int c, status = EXIT_CONSISTENT;

	a.opts.progress = isatty(STDERR_FILENO);
	optind = 1;
	while ((c = getopt_long(argc, argv, "p:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_count(optarg, &a.opts.preemptions)) {
				fprintf(stderr, "vsc check: -p needs a number >= 0, not '%s'\n", optarg);
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
		case 'j':
			a.json = 1;
			break;
		case 't':
			if (parse_seconds(optarg, &a.opts.timeout_s)) {
				fprintf(stderr, "vsc check: --timeout needs seconds > 0, not '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
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
	a.several = argc - optind > 1;
	json_init(&j, stdout);
	for (int i = optind; i < argc; i++) {
		int s = check_file(argv[i], &a, a.json ? &j : NULL);
		if (s > status)
			status = s;
	}
	return status;
}
