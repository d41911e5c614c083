/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "userspace/util/options.h"

/* getopt_long returns this plus the id for an option without a letter. */
#define LONG_ONLY 256

/* getopt_long's tables for one table of specs. */
struct options_parser {
	const struct option_spec *specs;
	size_t count;
	struct option longopts[OPTIONS_MAX + 1];
	char shortopts[2 * OPTIONS_MAX + 2];
};

/* What options_next() returns besides an option's id. */
#define OPTIONS_END (-1)

static void options_start(struct options_parser *p, const struct option_spec *specs, size_t count)
{
	size_t s = 0;

	memset(p, 0, sizeof(*p));
	p->specs = specs;
	p->count = count < OPTIONS_MAX ? count : OPTIONS_MAX;
	for (size_t i = 0; i < p->count; i++) {
		p->longopts[i] = (struct option){
			.name = specs[i].name,
			.has_arg = specs[i].arg ? required_argument : no_argument,
			.val = specs[i].short_name ? specs[i].short_name : LONG_ONLY + specs[i].id,
		};
		if (specs[i].short_name) {
			p->shortopts[s++] = specs[i].short_name;
			if (specs[i].arg)
				p->shortopts[s++] = ':';
		}
	}
	/* 0, not 1: glibc then also reads the flags in shortopts (the "+") again */
	optind = 0;
}

static const struct option_spec *spec_of(const struct options_table *t, int id)
{
	for (size_t i = 0; i < t->count; i++)
		if (t->specs[i].id == id)
			return &t->specs[i];
	return NULL;
}

static void options_stop_at_operand(struct options_parser *p)
{
	if (p->shortopts[0] == '+')
		return;
	memmove(p->shortopts + 1, p->shortopts, strlen(p->shortopts) + 1);
	p->shortopts[0] = '+';
}

/* The next option's id, with its value in optarg; OPTIONS_END when the
 * options are over (optind is then the first operand); OPTIONS_BAD after
 * getopt_long's own message for an unknown option or a missing value. */
static int options_next(struct options_parser *p, int argc, char **argv)
{
	int c = getopt_long(argc, argv, p->shortopts, p->longopts, NULL);

	if (c == -1)
		return OPTIONS_END;
	if (c >= LONG_ONLY)
		return c - LONG_ONLY;
	for (size_t i = 0; i < p->count; i++)
		if (p->specs[i].short_name && p->specs[i].short_name == c)
			return p->specs[i].id;
	return OPTIONS_BAD;
}

int options_parse(const struct options_table *t, int argc, char **argv, options_handler handler,
		  void *ctx)
{
	struct options_parser p;
	int id;

	options_start(&p, t->specs, t->count);
	if (t->stop_at_operand)
		options_stop_at_operand(&p);
	while ((id = options_next(&p, argc, argv)) != OPTIONS_END) {
		const struct option_spec *spec = spec_of(t, id);
		int r;

		if (!spec) {
			t->usage(stderr);
			return OPTIONS_BAD;
		}
		if (strcmp(spec->name, "help") == 0) {
			t->usage(stdout);
			return OPTIONS_HELP;
		}
		r = handler(ctx, id, spec->arg ? optarg : NULL);
		if (r != OPTIONS_OK)
			return r;
	}
	return OPTIONS_OK;
}

void options_usage(FILE *out, const struct option_spec *specs, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		const char *help = specs[i].help;
		char flag[64];

		if (!help)
			continue;
		snprintf(flag, sizeof(flag), "--%s%s%s", specs[i].name, specs[i].arg ? " " : "",
			 specs[i].arg ? specs[i].arg : "");
		if (specs[i].short_name)
			fprintf(out, "  -%c, %-16s ", specs[i].short_name, flag);
		else
			fprintf(out, "      %-16s ", flag);
		/* a '\n' in the help continues it under the first line */
		for (const char *nl; (nl = strchr(help, '\n')); help = nl + 1)
			fprintf(out, "%.*s\n%23s", (int)(nl - help), help, "");
		fprintf(out, "%s\n", help);
	}
}
