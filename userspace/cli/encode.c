/* SPDX-License-Identifier: MIT */
/* vsc encode --dimacs FILE: the SAT encoding of "is FILE SC with no
 * preemption?" in DIMACS on standard output (satisfiable exactly when it
 * is), for running any SAT solver on it. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "userspace/util/diag.h"
#include "vsc/vsc.h"

static void encode_usage(FILE *out)
{
	fprintf(out, "usage: vsc encode --dimacs [-p 0] FILE   (FILE '-' reads standard input)\n"
		     "  writes CNF that is satisfiable exactly when FILE has an SC interleaving\n"
		     "  with no preemption (the only bound the encoding covers so far)\n");
}

int cmd_encode(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dimacs", no_argument, NULL, 'd' },
		{ "preemptions", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct vsc_trace *trace;
	int opt, dimacs = 0, err;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "p:h", longopts, NULL)) != -1) {
		if (opt == 'd') {
			dimacs = 1;
		} else if (opt == 'p' && strcmp(optarg, "0") == 0) {
			continue;
		} else if (opt == 'h') {
			encode_usage(stdout);
			return 0;
		} else {
			if (opt == 'p')
				diag("encode", "only -p 0 can be encoded");
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
