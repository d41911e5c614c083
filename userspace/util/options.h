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

/* A subcommand's options: its table, and its usage text (which lists the
 * options with options_usage()). */
struct options_table {
	const struct option_spec *specs;
	size_t count;
	void (*usage)(FILE *out);
	/* Options end at the first operand (getopt's '+'): for a command line
	 * that ends with another program's (vsc record -- CMD ARGS, or without
	 * "--"). */
	int stop_at_operand;
};

#define OPTIONS_TABLE(specs, usage)                       \
	{                                                 \
		(specs), OPTIONS_COUNT(specs), (usage), 0 \
	}

/* What options_parse() returns; a handler returns OPTIONS_OK or OPTIONS_BAD. */
enum {
	OPTIONS_OK = 0,   /* parsed: optind is the first operand */
	OPTIONS_HELP = 1, /* --help: the usage went to stdout */
	OPTIONS_BAD = -2  /* bad usage: said on stderr */
};

/* Take option id, with its value (NULL for an option without one), into
 * ctx. OPTIONS_OK to go on; any other value (OPTIONS_BAD, once it has said
 * what is wrong) ends the parse, and options_parse() returns it. */
typedef int (*options_handler)(void *ctx, int id, const char *value);

/* Parse the options of argv (argv[0] is the subcommand), each through
 * handler. The option named "help" prints the usage on stdout
 * (OPTIONS_HELP); an unknown option or a missing value prints getopt's
 * message and the usage on stderr (OPTIONS_BAD); a handler's OPTIONS_BAD
 * ends the parse as it is. */
int options_parse(const struct options_table *t, int argc, char **argv, options_handler handler,
		  void *ctx);

/* The exit status a command ends with when options_parse() did not return
 * OPTIONS_OK: 0 after --help, 2 (bad usage) else. */
static inline int options_exit_status(int parsed)
{
	return parsed == OPTIONS_HELP ? 0 : 2;
}

/* One line (or more) per listed option: "  -o, --output FILE    help". */
void options_usage(FILE *out, const struct option_spec *specs, size_t count);

#define OPTIONS_COUNT(specs) (sizeof(specs) / sizeof((specs)[0]))

#endif /* VSC_UTIL_OPTIONS_H */
