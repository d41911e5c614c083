/* SPDX-License-Identifier: MIT */
/* vsc encode --dimacs FILE: the SAT encoding of "is FILE SC with no
 * preemption?" in DIMACS on standard output (satisfiable exactly when it
 * is), for running any SAT solver on it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "userspace/util/diag.h"
#include "userspace/util/options.h"
#include "vsc/vsc.h"

#define ENCODE_OPTIONS(X)                                                                \
	X(DIMACS, 0, "dimacs", NULL, "write DIMACS CNF (the one format, and required)")  \
	X(PREEMPTIONS, 'p', "preemptions", "0", "the bound; the encoding covers only 0") \
	X(HELP, 'h', "help", NULL, "show this help")

enum {
	ENCODE_OPTIONS(OPTION_ID)
};
static const struct option_spec encode_options[] = { ENCODE_OPTIONS(OPTION_SPEC) };

static void encode_usage(FILE *out)
{
	fprintf(out, "usage: vsc encode --dimacs [-p 0] FILE   (FILE '-' reads standard input)\n"
		     "  writes CNF that is satisfiable exactly when FILE has an SC interleaving\n"
		     "  with no preemption (the only bound the encoding covers so far)\n");
	options_usage(out, encode_options, OPTIONS_COUNT(encode_options));
}

/* One option into the flag at ctx (set by --dimacs). */
static int take_option(void *ctx, int opt, const char *value)
{
	int *dimacs = ctx;

	if (opt == OPT_DIMACS)
		*dimacs = 1;
	if (opt == OPT_PREEMPTIONS && strcmp(value, "0") != 0) {
		diag("encode", "only -p 0 can be encoded");
		encode_usage(stderr);
		return OPTIONS_BAD;
	}
	return OPTIONS_OK;
}

int cmd_encode(int argc, char **argv)
{
	static const struct options_table table = OPTIONS_TABLE(encode_options, encode_usage);
	struct vsc_trace *trace;
	int dimacs = 0, err;

	err = options_parse(&table, argc, argv, take_option, &dimacs);
	if (err != OPTIONS_OK)
		return options_exit_status(err);
	if (!dimacs || optind + 1 != argc) {
		encode_usage(stderr);
		return EXIT_USAGE;
	}
	VSC_OPTS(vsc_parse_opts, popts, .filename = argv[optind], .on_error = diag_parse_error);
	trace = vsc_trace_parse_file(argv[optind], &popts);
	if (!trace) {
		if (errno != EINVAL)
			diag(NULL, "%s: %s", argv[optind], strerror(errno));
		return EXIT_USAGE;
	}
	if (vsc_trace_program_count(trace) != 1) {
		diag("encode", "%s: %zu segments; one at a time, please", argv[optind],
		     vsc_trace_program_count(trace));
		vsc_trace_free(trace);
		return EXIT_USAGE;
	}
	err = vsc_encode_dimacs(vsc_trace_program(trace, 0), stdout);
	if (err)
		diag("encode", "%s: %s", argv[optind], strerror(-err));
	vsc_trace_free(trace);
	return err ? EXIT_USAGE : 0;
}
