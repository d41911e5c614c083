/* SPDX-License-Identifier: MIT */
/* vsc: the command table. Each subcommand lives in a file of its own. */
#include <stdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
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

/* The solvers build arrays of megabytes, one stage after another, each
 * freed before the next is made. By default glibc maps big ones on their
 * own and unmaps them when freed (or trims the heap), so each stage's
 * arrays are fresh pages that the kernel zeroes again: a third of the
 * system time of `vsc check` at 10^7 events. Kept on the heap, the next
 * stage reuses them: 116,000 page faults instead of 76,000 there, the
 * same peak (docs/solvers.md, "1-Writer against wc -l"). */
static void keep_freed_memory(void)
{
#ifdef __GLIBC__
	(void)mallopt(M_MMAP_THRESHOLD, 32 << 20); /* glibc's largest; fixed, not adjusted */
	(void)mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

int main(int argc, char **argv)
{
	keep_freed_memory();
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
