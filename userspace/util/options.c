/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "userspace/util/options.h"

/* getopt_long returns this plus the id for an option without a letter. */
#define LONG_ONLY 256

void options_start(struct options_parser *p, const struct option_spec *specs, size_t count)
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
	optind = 1;
}

void options_stop_at_operand(struct options_parser *p)
{
	if (p->shortopts[0] == '+')
		return;
	memmove(p->shortopts + 1, p->shortopts, strlen(p->shortopts) + 1);
	p->shortopts[0] = '+';
}

int options_next(struct options_parser *p, int argc, char **argv)
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
