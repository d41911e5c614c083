/* SPDX-License-Identifier: MIT */
/* vsc: the command table. Each subcommand lives in a file of its own. */
#include <stdio.h>
#include <string.h>

#include "vsc/vsc.h"

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--version") == 0) {
		printf("vsc %s\n", VSC_VERSION);
		return 0;
	}
	fprintf(stderr, "usage: vsc COMMAND [ARGS]\n");
	return 2;
}
