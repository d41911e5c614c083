/* SPDX-License-Identifier: MIT */
/* vsc convert: LTTng (CTF) trace directories in, a vsc trace out. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/lttng/ctf_convert.h"
#include "userspace/lttng/ctf_graph.h"
#include "commands.h"
#include "vsc/vsc.h"
#include "userspace/util/diag.h"
#include "userspace/util/options.h"

#define CONVERT_OPTIONS(X)                                                    \
	X(OUTPUT, 'o', "output", "FILE",                                      \
	  "write the trace to FILE (\"-\": standard output, the\n"            \
	  "default); with several processes, FILE.PID each")                  \
	X(PID, 0, "pid", "PID", "keep only process PID")                      \
	X(PID_NS, 0, "pid-ns", "INODE",                                       \
	  "with --pid: the process of that pid namespace\n"                   \
	  "(its inode, as in /proc/self/ns/pid)")                             \
	X(NO_TIMESTAMPS, 0, "no-timestamps", NULL, "leave out the @ts hints") \
	X(ELF_INIT, 0, "elf-init", NULL,                                      \
	  "globals start with their values in the ELF files\n"                \
	  "(when the trace covers the processes from their start)")           \
	X(LIST, 0, "list", NULL, "list the traced processes instead")         \
	X(LOSS_MODE, 0, "loss-mode", "MODE",                                  \
	  "say in the header how the channel met full buffers:\n"             \
	  "block (the programs waited) or drop (LTTng discarded)")            \
	X(HELP, 'h', "help", NULL, NULL)

enum {
	CONVERT_OPTIONS(OPTION_ID)
};
static const struct option_spec convert_options[] = { CONVERT_OPTIONS(OPTION_SPEC) };

static void usage(FILE *out)
{
	fprintf(out, "usage: vsc convert [options] TRACE_DIR...\n");
	options_usage(out, convert_options, OPTIONS_COUNT(convert_options));
	fprintf(out, "The trace must come from the vsc LTTng-UST provider (vsc:*) with the vtid\n"
		     "and vpid contexts, and pid_ns to tell processes of containers apart;\n"
		     "scripts/vsc-lttng makes such a trace. Addresses get symbol names when\n"
		     "lttng_ust_statedump:* was enabled too.\n");
}

static int list_processes(struct ctf_conv *conv)
{
	for (size_t i = 0; i < ctf_conv_process_count(conv); i++) {
		char label[80];

		ctf_conv_process_label(conv, i, label, sizeof(label));
		printf("%s: %zu events\n", label, ctf_conv_event_count(conv, i));
	}
	return 0;
}

struct convert_args {
	struct ctf_conv_opts copts;
	const char *output;
	bool list;
};

/* One option into the convert_args at ctx. */
static int take_option(void *ctx, int opt, const char *value)
{
	struct convert_args *a = ctx;
	char *end;

	switch (opt) {
	case OPT_OUTPUT:
		a->output = value;
		return OPTIONS_OK;
	case OPT_PID:
		errno = 0;
		a->copts.pid = strtoll(value, &end, 10);
		if (errno || *end || end == value || a->copts.pid < 0 ||
		    a->copts.pid > UINT32_MAX) {
			diag("convert", "bad --pid: %s", value);
			return OPTIONS_BAD;
		}
		return OPTIONS_OK;
	case OPT_PID_NS:
		errno = 0;
		a->copts.pid_ns = strtoull(value, &end, 10);
		if (errno || *end || end == value || value[0] == '-' || !a->copts.pid_ns) {
			diag("convert", "bad --pid-ns: %s", value);
			return OPTIONS_BAD;
		}
		return OPTIONS_OK;
	case OPT_NO_TIMESTAMPS:
		a->copts.no_timestamps = true;
		return OPTIONS_OK;
	case OPT_LIST:
		a->list = true;
		return OPTIONS_OK;
	case OPT_ELF_INIT:
		a->copts.elf_init = true;
		return OPTIONS_OK;
	case OPT_LOSS_MODE:
		if (strcmp(value, "block") != 0 && strcmp(value, "drop") != 0) {
			diag("convert", "--loss-mode is block or drop, not '%s'", value);
			return OPTIONS_BAD;
		}
		a->copts.loss_mode = value;
		return OPTIONS_OK;
	}
	return OPTIONS_OK;
}

int cmd_convert(int argc, char **argv)
{
	struct convert_args a = { .output = "-" };
	static const struct options_table table = OPTIONS_TABLE(convert_options, usage);
	struct ctf_conv *conv;
	int err;

	a.copts = (struct ctf_conv_opts){ .sz = sizeof(a.copts), .pid = -1 };
	err = options_parse(&table, argc, argv, take_option, &a);
	if (err != OPTIONS_OK)
		return options_exit_status(err);
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	a.copts.what = argv[optind];
	conv = ctf_conv_new(&a.copts);
	if (!conv) {
		diag("convert", "%s", strerror(errno));
		return 2;
	}
	err = ctf_graph_read(argv + optind, (size_t)(argc - optind), conv);
	if (!err) {
		ctf_conv_report_losses(conv);
		if (a.list)
			err = list_processes(conv);
		else
			err = ctf_conv_write_all(conv, a.output);
		if (err)
			diag("convert", "%s", ctf_conv_error(conv));
	}
	ctf_conv_free(conv);
	return err ? 2 : 0;
}
