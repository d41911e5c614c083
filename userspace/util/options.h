/* SPDX-License-Identifier: MIT */
/*
 * Command-line options declared once. A subcommand lists its options in one
 * X-macro table (as kissat declares its options); the same table makes the
 * ids its switch uses, the getopt_long tables and the usage lines:
 *
 *   #define ENCODE_OPTIONS(X)                                          \
 *	X(DIMACS, 0, "dimacs", NULL, "write the encoding as DIMACS CNF") \
 *	X(HELP, 'h', "help", NULL, "show this help")
 *   enum { ENCODE_OPTIONS(OPTION_ID) };
 *   static const struct option_spec options[] = { ENCODE_OPTIONS(OPTION_SPEC) };
 *
 * A row: ID, short letter (0: none), long name, the value's name in the
 * usage (NULL: the option takes no value), help (NULL: not listed; a '\n'
 * continues it on the next line).
 */
#ifndef VSC_UTIL_OPTIONS_H
#define VSC_UTIL_OPTIONS_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

struct option_spec {
	int id;
	char short_name;
	const char *name;
	const char *arg;
	const char *help;
};

#define OPTION_ID(ID, SHORT, NAME, ARG, HELP) OPT_##ID,
#define OPTION_SPEC(ID, SHORT, NAME, ARG, HELP) { OPT_##ID, SHORT, NAME, ARG, HELP },

#define OPTIONS_MAX 32

/* What options_next() returns besides an option's id. */
enum {
	OPTIONS_END = -1,
	OPTIONS_BAD = -2
};

struct options_parser {
	const struct option_spec *specs;
	size_t count;
	struct option longopts[OPTIONS_MAX + 1];
	char shortopts[2 * OPTIONS_MAX + 2];
};

/* Start parsing argv (argv[0] is the subcommand) with count specs (at most
 * OPTIONS_MAX). */
void options_start(struct options_parser *p, const struct option_spec *specs, size_t count);
/* Options end at the first operand (getopt's '+'): for a command line that
 * ends with another program's (vsc record -- CMD ARGS, or without "--"). */
void options_stop_at_operand(struct options_parser *p);
/* The next option's id, with its value in optarg; OPTIONS_END when the
 * options are over (optind is then the first operand); OPTIONS_BAD after
 * getopt_long's own message for an unknown option or a missing value. */
int options_next(struct options_parser *p, int argc, char **argv);
/* One line (or more) per listed option: "  -o, --output FILE    help". */
void options_usage(FILE *out, const struct option_spec *specs, size_t count);

#define OPTIONS_COUNT(specs) (sizeof(specs) / sizeof((specs)[0]))

#endif /* VSC_UTIL_OPTIONS_H */
