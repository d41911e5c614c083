/* SPDX-License-Identifier: MIT */
/* vsc convert: LTTng (CTF) trace directories in, a vsc trace out. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lttng/ctf_convert.h"
#include "../lttng/ctf_graph.h"
#include "commands.h"
#include "vsc/vsc.h"
#include "userspace/util/diag.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: vsc convert [options] TRACE_DIR...\n"
		"  -o, --output FILE    write the trace to FILE (\"-\": standard output, the\n"
		"                       default); with several processes, FILE.PID each\n"
		"      --pid PID        keep only process PID\n"
		"      --no-timestamps  leave out the @ts hints\n"
		"      --elf-init       globals start with their values in the ELF files\n"
		"                       (when the trace covers the processes from their start)\n"
		"      --list           list the traced processes instead\n"
		"The trace must come from the vsc LTTng-UST provider (vsc:*) with the vtid\n"
		"and vpid contexts; scripts/vsc-lttng makes such a trace. Addresses get\n"
		"symbol names when lttng_ust_statedump:* was enabled too.\n");
}

static int list_processes(struct ctf_conv *conv)
{
	for (size_t i = 0; i < ctf_conv_process_count(conv); i++)
		printf("pid %u: %zu events\n", ctf_conv_process_pid(conv, i),
		       ctf_conv_event_count(conv, i));
	return 0;
}

int cmd_convert(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'P' },
		{ "no-timestamps", no_argument, NULL, 'T' },
		{ "list", no_argument, NULL, 'l' },
		{ "elf-init", no_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	VSC_OPTS(ctf_conv_opts, copts, .pid = -1);
	const char *output = "-";
	struct ctf_conv *conv;
	bool list = false;
	char *end;
	int opt, err;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			output = optarg;
			break;
		case 'P':
			errno = 0;
			copts.pid = strtoll(optarg, &end, 10);
			if (errno || *end || end == optarg || copts.pid < 0 ||
			    copts.pid > UINT32_MAX) {
				diag("convert", "bad --pid: %s", optarg);
				return 2;
			}
			break;
		case 'T':
			copts.no_timestamps = true;
			break;
		case 'l':
			list = true;
			break;
		case 'E':
			copts.elf_init = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	copts.what = argv[optind];
	conv = ctf_conv_new(&copts);
	if (!conv) {
		diag("convert", "%s", strerror(errno));
		return 2;
	}
	err = ctf_graph_read(argv + optind, (size_t)(argc - optind), conv, stderr);
	if (!err) {
		ctf_conv_report_losses(conv, stderr);
		if (list)
			err = list_processes(conv);
		else
			err = ctf_conv_write_all(conv, output);
		if (err)
			diag("convert", "%s", ctf_conv_error(conv));
	}
	ctf_conv_free(conv);
	return err ? 2 : 0;
}
