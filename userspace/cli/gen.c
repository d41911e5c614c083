/* SPDX-License-Identifier: MIT */
/* vsc gen: write generated instances (see docs/gen.md). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "userspace/gen/gen.h"
#include "userspace/util/diag.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
} gen_families[] = {
	{ "random", gen_random, "random program (usually not SC)" },
	{ "sc", gen_sc, "execution SC with <= P preemptions by construction" },
	{ "ring", gen_ring, "token ring whose least preemptions are known" },
	{ "sat", gen_sat, "paper 4.1/4.2: DIMACS CNF -> 3-/2-Writer, P = 0" },
	{ "indset", gen_indset, "paper 4.3: graph -> program, P = 3k" },
	{ "cnf", gen_cnf, "random 3-SAT formula in DIMACS CNF" },
	{ "graph", gen_graph, "random graph in DIMACS edge format" },
};

static void gen_usage(FILE *f)
{
	fprintf(f, "usage: vsc gen FAMILY [options] [-o FILE] [--seed N]\n"
		   "families:\n");
	for (size_t i = 0; i < sizeof(gen_families) / sizeof(gen_families[0]); i++)
		fprintf(f, "  %-8s %s\n", gen_families[i].name, gen_families[i].help);
	fprintf(f, "`vsc gen FAMILY --help` lists a family's options; "
		   "docs/gen.md explains them.\n");
}

int cmd_gen(int argc, char **argv)
{
	/* argv[0] is "gen" */
	if (argc < 2) {
		gen_usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		gen_usage(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(gen_families) / sizeof(gen_families[0]); i++)
		if (strcmp(argv[1], gen_families[i].name) == 0)
			return gen_families[i].run(argc - 2, argv + 2);
	diag("gen", "unknown family '%s'", argv[1]);
	gen_usage(stderr);
	return 2;
}
