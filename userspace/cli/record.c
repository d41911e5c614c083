/* SPDX-License-Identifier: MIT */
/*
 * vsc record: the options. The recording itself is capture's
 * (userspace/capture/recorder.c with the probe source, or watch.c for
 * --watch). Exit status: 0 recorded (the trace is written), 1 a failure
 * while recording, 2 refused (bad usage, no such process, not allowed, no
 * BPF or uprobes, no vsc probes in the program, -o not writable).
 */
#include <errno.h>
#include <signal.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpf/record.h"
#include "userspace/capture/probe_source.h"
#include "userspace/capture/recorder.h"
#include "userspace/capture/watch_source.h"
#include "userspace/util/options.h"
#include "commands.h"
#include "userspace/util/diag.h"

#define RESCAN_MS 500 /* look for newly loaded libraries this often */

struct record_opts {
	const char *output;
	double duration_s;
	size_t ring_size;
	pid_t pid;
	char **argv; /* the command, NULL-terminated */
	int verbose;
	int no_elf_init;
	int no_locations;
	int lossy;                             /* --lossy: drop (and count) what does not fit */
	int stop_signal;                       /* --stop-command: for -- CMD at the stop */
	const char *watch[WATCH_MAX_REQUESTS]; /* --watch: hardware watchpoints */
	size_t watch_count;
	int watch_by; /* --watch-by: enum watch_by */
};

#define RECORD_OPTIONS(X)                                                                      \
	X(OUTPUT, 'o', "output", "FILE",                                                       \
	  "write the trace to FILE (mode 0600); '-' or none:\n"                                \
	  "stdout (a launched command's stdout then goes to stderr)")                          \
	X(PID, 'p', "pid", "PID",                                                              \
	  "attach to a running process until ^C, --duration\n"                                 \
	  "or its end")                                                                        \
	X(DURATION, 'd', "duration", "SEC", "stop after SEC seconds")                          \
	X(STOP_COMMAND, 0, "stop-command", "SIGNAL",                                           \
	  "\nwhen the recording stops (^C, SIGTERM, SIGHUP, --duration)\n"                     \
	  "before CMD ends: send CMD SIGNAL (TERM, INT, KILL, ... or a\n"                      \
	  "number) and wait for its end; without it CMD runs on")                              \
	X(RING_SIZE, 0, "ring-size", "BYTES",                                                  \
	  "\nBPF ring buffer size (power of 2 pages, probes: >= 64k)")                         \
	X(LOSSY, 0, "lossy", NULL,                                                             \
	  "when the ring buffer is full, drop events (counted in\n"                            \
	  "the header) instead of making the program wait for room")                           \
	X(NO_ELF_INIT, 0, "no-elf-init", NULL,                                                 \
	  "do not take initial values of globals from the ELF file")                           \
	X(NO_LOCATIONS, 0, "no-locations", NULL, "leave out the '# function+offset' comments") \
	X(VERBOSE, 'v', "verbose", NULL, "libbpf messages and statistics on stderr")           \
	X(WATCH, 'w', "watch", "VAR[:SIZE]",                                                   \
	  "\nno probes needed: record every access to the global VAR\n"                        \
	  "(or a hex ADDR) with a hardware watchpoint; SIZE 1, 2, 4\n"                         \
	  "or 8 (default: the symbol's size); at most 4 on x86-64.\n"                          \
	  "See docs/watch.md")                                                                 \
	X(WATCH_BY, 0, "watch-by", "HOW",                                                      \
	  "\nhow --watch sees accesses: breakpoints (hardware\n"                               \
	  "watchpoints) or pages (page protection and single\n"                                \
	  "steps, x86-64); default: breakpoints where they fire,\n"                            \
	  "else pages")                                                                        \
	X(HELP, 'h', "help", NULL, "show this help")

enum {
	RECORD_OPTIONS(OPTION_ID)
};
static const struct option_spec record_options[] = { RECORD_OPTIONS(OPTION_SPEC) };

static void usage(FILE *out)
{
	fprintf(out,
		"usage: vsc record [-o FILE|-] [--duration SEC] [--stop-command SIGNAL]\n"
		"                  [--ring-size BYTES] [--lossy] [--no-elf-init] [--no-locations]\n"
		"                  [-v] (-p PID | -- CMD ARGS...)\n"
		"       vsc record --watch VAR[:SIZE] ... [--watch-by breakpoints|pages]\n"
		"                  [-o FILE|-] [--duration SEC]\n"
		"                  [--stop-command SIGNAL] [--ring-size BYTES] [--no-locations]\n"
		"                  (-p PID | -- CMD ARGS...)\n"
		"\n"
		"Record the vsc probes (include/vsc/probe.h) of a process with eBPF and write a\n"
		"trace for `vsc check`. -- CMD ARGS... starts CMD stopped, attaches, and runs\n"
		"it to its end. Ring buffer default: %u bytes.\n",
		VSC_RECORD_DEFAULT_RING);
	options_usage(out, record_options, OPTIONS_COUNT(record_options));
}

static int parse_size(const char *s, size_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s || v == 0)
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	if (*end || v > (1ull << 31))
		return -EINVAL;
	*out = (size_t)v;
	return 0;
}

/* A signal by name (TERM, SIGTERM, term) or number; 0 when it is none. */
static int parse_signal(const char *s)
{
	char *end;
	long n = strtol(s, &end, 10);
	if (end != s && !*end)
		return n > 0 && n < NSIG ? (int)n : 0;
	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	for (int sig = 1; sig < NSIG; sig++) {
		const char *name = sigabbrev_np(sig);
		if (name && !strcasecmp(name, s))
			return sig;
	}
	return 0;
}

static int parse_pid(const char *s, pid_t *pid)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v <= 0 || v > INT_MAX) {
		diag("record", "bad PID '%s'", s);
		return -1;
	}
	*pid = (pid_t)v;
	return 0;
}

static int parse_ring_size(const char *s, size_t *size)
{
	if (parse_size(s, size) || (*size & (*size - 1)) || *size % (size_t)sysconf(_SC_PAGESIZE)) {
		diag("record", "bad --ring-size '%s' (a power of 2, at least one page: %ld)", s,
		     sysconf(_SC_PAGESIZE));
		return -1;
	}
	return 0;
}

/* One option into the record_opts at ctx. */
static int take_option(void *ctx, int opt, const char *value)
{
	struct record_opts *o = ctx;
	char *end;

	switch (opt) {
	case OPT_OUTPUT:
		o->output = value;
		return 0;
	case OPT_PID:
		return parse_pid(value, &o->pid);
	case OPT_DURATION:
		o->duration_s = strtod(value, &end);
		if (*end || !(o->duration_s > 0)) {
			diag("record", "bad --duration '%s' (seconds > 0)", value);
			return -1;
		}
		return 0;
	case OPT_STOP_COMMAND:
		if (!(o->stop_signal = parse_signal(value))) {
			diag("record",
			     "bad --stop-command '%s' (a signal: TERM, INT, "
			     "KILL, ... or a number)",
			     value);
			return -1;
		}
		return 0;
	case OPT_RING_SIZE:
		return parse_ring_size(value, &o->ring_size);
	case OPT_NO_ELF_INIT:
		o->no_elf_init = 1;
		return 0;
	case OPT_NO_LOCATIONS:
		o->no_locations = 1;
		return 0;
	case OPT_VERBOSE:
		o->verbose = 1;
		return 0;
	case OPT_LOSSY:
		o->lossy = 1;
		return 0;
	case OPT_WATCH_BY:
		if (!strcmp(value, "breakpoints")) {
			o->watch_by = WATCH_BY_BREAKPOINTS;
		} else if (!strcmp(value, "pages")) {
			o->watch_by = WATCH_BY_PAGES;
		} else {
			diag("record", "bad --watch-by '%s' (breakpoints or pages)", value);
			return -1;
		}
		return 0;
	case OPT_WATCH: /* more than the hardware has: watch_record() says so */
		if (o->watch_count < WATCH_MAX_REQUESTS)
			o->watch[o->watch_count] = value;
		o->watch_count++;
		return 0;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct record_opts *o)
{
	/* options end at the command: its own options are its own */
	static const struct options_table table = { record_options, OPTIONS_COUNT(record_options),
						    usage, 1 };
	int parsed = options_parse(&table, argc, argv, take_option, o);

	if (parsed != OPTIONS_OK)
		return parsed == OPTIONS_HELP ? 1 : -1;
	if (optind < argc)
		o->argv = argv + optind;
	if ((o->pid != 0) == (o->argv != NULL)) {
		diag("record", "give either -p PID or -- CMD ARGS...");
		usage(stderr);
		return -1;
	}
	if (o->stop_signal && !o->argv) {
		diag("record", "--stop-command is for -- CMD (-p PID: the process "
			       "runs on as before)");
		return -1;
	}
	return 0;
}

/* Kernel features the probe path needs, said by name when missing. */
static int check_kernel(void)
{
	struct stat st;
	if (stat("/sys/bus/event_source/devices/uprobe", &st)) {
		diag("record",
		     "this kernel has no uprobes "
		     "(/sys/bus/event_source/devices/uprobe is missing: CONFIG_UPROBE_EVENTS)");
		return -ENOTSUP;
	}
	if (stat("/proc/sys/kernel/unprivileged_bpf_disabled", &st) && errno == ENOENT) {
		diag("record", "this kernel has no BPF system call (CONFIG_BPF_SYSCALL)");
		return -ENOTSUP;
	}
	return 0;
}

/* vsc record --watch: the hardware-watchpoint path (userspace/capture/watch.c). */
static int record_watch(const struct record_opts *o)
{
	struct watch_opts w = {
		.sz = sizeof(w),
		.watch = o->watch,
		.watch_count = o->watch_count,
		.pid = o->pid,
		.argv = o->argv,
		.output = o->output,
		.duration_s = o->duration_s,
		.ring_size = o->ring_size,
		.stop_signal = o->stop_signal,
		.no_locations = o->no_locations,
		.verbose = o->verbose,
		.watch_by = o->watch_by,
	};
	return watch_record(&w);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts opts = { 0 };
	char how[256];
	int r = parse_args(argc, argv, &opts);
	if (r)
		return r > 0 ? 0 : EXIT_USAGE;
	if (opts.watch_count)
		return record_watch(&opts);
	/* a probe record holds a whole batch: the ring must take a few */
	if (opts.ring_size && opts.ring_size < VSC_RECORD_MIN_RING) {
		diag("record",
		     "bad --ring-size %zu for probes (at least %u: a ring "
		     "record holds a batch of %d events)",
		     opts.ring_size, VSC_RECORD_MIN_RING, VSC_RECORD_LOG_CAP);
		return EXIT_USAGE;
	}
	if (check_kernel())
		return EXIT_USAGE;
	snprintf(how, sizeof(how),
		 "vsc record, eBPF: USDT probes vsc:batch/vsc:log/vsc:block (include/vsc/probe.h), "
		 "thread-local logs of %d events, one ring record per batch, BPF ring buffer of "
		 "%zu bytes",
		 VSC_RECORD_LOG_CAP, opts.ring_size ? opts.ring_size : VSC_RECORD_DEFAULT_RING);
	struct recorder_opts ro = {
		.who = "record",
		.pid = opts.pid,
		.argv = opts.argv,
		.output = opts.output,
		.duration_s = opts.duration_s,
		.how = how,
		/* block: threads wait for the recorder (probe.h, back-pressure) */
		.loss_mode = opts.lossy ? "drop" : "block",
		.run_to_entry = true,
		/* -p: the semaphores go up while every thread is stopped */
		.hold_attached = true,
		/* -p: the uprobes end with the main thread (recorder.h) */
		.ends_with_main_thread = true,
		/* -p: the globals have changed since the program started */
		.no_elf_init = opts.no_elf_init || !opts.argv,
		.no_locations = opts.no_locations,
		.min_ts_now = true,
		.rescan_ms = RESCAN_MS,
		.stop_signal = opts.stop_signal,
		.verbose = opts.verbose,
	};
	struct capture_source *src = probe_source_new(opts.ring_size, opts.lossy, opts.verbose);
	if (!src) {
		diag("record", "out of memory");
		return EXIT_USAGE;
	}
	return recorder_run(&ro, src);
}
