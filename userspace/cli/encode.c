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

int cmd_encode(int argc, char **argv)
{
	struct options_parser parser;
	struct vsc_trace *trace;
	int opt, dimacs = 0, err;

	options_start(&parser, encode_options, OPTIONS_COUNT(encode_options));
	while ((opt = options_next(&parser, argc, argv)) != OPTIONS_END) {
		switch (opt) {
		case OPT_DIMACS:
			dimacs = 1;
			break;
		case OPT_PREEMPTIONS:
			if (strcmp(optarg, "0") == 0)
				break;
			diag("encode", "only -p 0 can be encoded");
			encode_usage(stderr);
			return EXIT_USAGE;
		case OPT_HELP:
			encode_usage(stdout);
			return 0;
		default:
			encode_usage(stderr);
			return EXIT_USAGE;
		}
	}
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
