/* SPDX-License-Identifier: MIT */
/* vsc: the command table. Each subcommand lives in a file of its own. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "vsc/vsc.h"
#include "userspace/util/diag.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "check", cmd_check, "decide whether traces are sequentially consistent" },
	{ "encode", cmd_encode, "write the SAT encoding of a trace (DIMACS)" },
	{ "convert", cmd_convert, "turn an LTTng (CTF) trace of vsc:* events into a trace" },
	{ "record", cmd_record, "capture a process's vsc probes with eBPF into a trace" },
	{ "litmus", cmd_litmus, "run litmus tests, record them and decide every execution" },
	{ "gen", cmd_gen, "write generated instances (random, SC by construction, reductions)" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: vsc COMMAND [OPTIONS] [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'vsc COMMAND --help' tells more; 'vsc --version' prints the version.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("vsc %s\n", VSC_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	diag(NULL, "unknown command '%s'", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
