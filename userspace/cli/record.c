/* SPDX-License-Identifier: MIT */
/*
 * vsc record: capture a process's vsc probes with eBPF and write a trace.
 *
 *   set up -> attach -> poll the ring buffer -> stop -> read what is left ->
 *   detach -> write
 *
 * Signals only set a flag. Exit status: 0 recorded (the trace is written),
 * 1 a failure while recording, 2 refused (bad usage, no such process, not
 * allowed, no BPF or uprobes, no vsc probes in the program).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "probe_source.h"
#include "record.h"
#include "symbols.h"
#include "target.h"
#include "trace_writer.h"
#include "watch.h"

#define POLL_MS 100
#define RESCAN_MS 500  /* look for newly loaded libraries this often */
#define GRACE_MS 1000  /* after ^C, time a launched command gets to end itself */

/* The one piece of mutable global state: set by SIGINT/SIGTERM. */
static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

struct record_opts {
	const char *output;
	double duration_s;
	size_t ring_size;
	pid_t pid;
	char **argv; /* the command, NULL-terminated */
	int verbose;
	int no_elf_init;
	int no_locations;
	const char *watch[WATCH_MAX_REQUESTS]; /* --watch: hardware watchpoints */
	size_t watch_count;
};

/* What the writer's callbacks need. */
struct record_ctx {
	struct vsc_symbols *symbols;
	struct vsc_probe_source *source;
	int no_elf_init;
};

static int name_cb(void *ctx, uint32_t pid, uint64_t addr, uint32_t size, char *buf, size_t len)
{
	struct record_ctx *rc = ctx;
	return rc->symbols ? vsc_symbols_name_cb(rc->symbols, pid, addr, size, buf, len) : -ENOENT;
}

static int init_cb(void *ctx, uint32_t pid, uint64_t addr, uint32_t size, int64_t *value)
{
	struct record_ctx *rc = ctx;
	if (!rc->symbols || rc->no_elf_init)
		return 0;
	return vsc_symbols_init_cb(rc->symbols, pid, addr, size, value);
}

static int locate_cb(void *ctx, uint32_t pid, uint64_t ip, char *buf, size_t len)
{
	struct record_ctx *rc = ctx;
	return rc->symbols ? vsc_symbols_locate_cb(rc->symbols, pid, ip, buf, len) : -ENOENT;
}

static int segment_cb(void *ctx, uint32_t pid, int64_t id, uint64_t name_addr, char *buf,
		      size_t len)
{
	struct record_ctx *rc = ctx;
	(void)pid, (void)name_addr;
	return rc->source ? vsc_probe_source_segment_name(rc->source, id, buf, len) : -ENOENT;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: vsc record [-o FILE|-] [--duration SEC] [--ring-size BYTES]\n"
		"                  [--no-elf-init] [--no-locations] [-v] (-p PID | -- CMD ARGS...)\n"
		"       vsc record --watch VAR[:SIZE] ... [-o FILE|-] [--duration SEC]\n"
		"                  [--ring-size BYTES] [--no-locations] (-p PID | -- CMD ARGS...)\n"
		"\n"
		"Record the vsc probes (include/vsc/probe.h) of a process with eBPF and write a\n"
		"trace for `vsc check`.\n"
		"  -o, --output FILE     write the trace to FILE (mode 0600); '-' or none: stdout\n"
		"  -p, --pid PID         attach to a running process until ^C, --duration or its end\n"
		"  -- CMD ARGS...        start CMD stopped, attach, run it to its end\n"
		"  -d, --duration SEC    stop after SEC seconds\n"
		"      --ring-size BYTES BPF ring buffer size (power of 2 pages; default %u)\n"
		"      --no-elf-init     do not take initial values of globals from the ELF file\n"
		"      --no-locations    leave out the '# function+offset' comments\n"
		"  -v, --verbose         libbpf messages and statistics on stderr\n"
		"  -w, --watch VAR[:SIZE] no probes needed: record every access to the global VAR\n"
		"                        (or a hex ADDR) with a hardware watchpoint; SIZE 1, 2, 4\n"
		"                        or 8 (default: the symbol's size); at most 4 on x86-64.\n"
		"                        See docs/watch.md\n",
		VSC_RECORD_DEFAULT_RING);
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

static int parse_args(int argc, char **argv, struct record_opts *o)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "ring-size", required_argument, NULL, 'r' },
		{ "no-elf-init", no_argument, NULL, 'I' },
		{ "no-locations", no_argument, NULL, 'L' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "watch", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	char *end;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:p:d:vhw:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o->output = optarg; break;
		case 'p': {
			errno = 0;
			long v = strtol(optarg, &end, 10);
			if (errno || *end || v <= 0 || v > INT_MAX) {
				fprintf(stderr, "vsc record: bad PID '%s'\n", optarg);
				return -1;
			}
			o->pid = (pid_t)v;
			break;
		}
		case 'd':
			o->duration_s = strtod(optarg, &end);
			if (*end || !(o->duration_s > 0)) {
				fprintf(stderr, "vsc record: bad --duration '%s' (seconds > 0)\n", optarg);
				return -1;
			}
			break;
		case 'r':
			if (parse_size(optarg, &o->ring_size) ||
			    (o->ring_size & (o->ring_size - 1)) ||
			    o->ring_size % (size_t)sysconf(_SC_PAGESIZE)) {
				fprintf(stderr,
					"vsc record: bad --ring-size '%s' (a power of 2, at least "
					"one page: %ld)\n",
					optarg, sysconf(_SC_PAGESIZE));
				return -1;
			}
			break;
		case 'I': o->no_elf_init = 1; break;
		case 'L': o->no_locations = 1; break;
		case 'v': o->verbose = 1; break;
		case 'w': /* more than the hardware has: watch_record() says so */
			if (o->watch_count < WATCH_MAX_REQUESTS)
				o->watch[o->watch_count] = optarg;
			o->watch_count++;
			break;
		case 'h': usage(stdout); return 1;
		default: usage(stderr); return -1;
		}
	}
	if (optind < argc)
		o->argv = argv + optind;
	if ((o->pid != 0) == (o->argv != NULL)) {
		fprintf(stderr, "vsc record: give either -p PID or -- CMD ARGS...\n");
		usage(stderr);
		return -1;
	}
	return 0;
}

/* Kernel features the probe path needs, said by name when missing. */
static int check_kernel(void)
{
	struct stat st;
	if (stat("/sys/bus/event_source/devices/uprobe", &st)) {
		fprintf(stderr, "vsc record: this kernel has no uprobes "
				"(/sys/bus/event_source/devices/uprobe is missing: CONFIG_UPROBE_EVENTS)\n");
		return -ENOTSUP;
	}
	if (stat("/proc/sys/kernel/unprivileged_bpf_disabled", &st) && errno == ENOENT) {
		fprintf(stderr, "vsc record: this kernel has no BPF system call (CONFIG_BPF_SYSCALL)\n");
		return -ENOTSUP;
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void describe_target(const struct record_opts *o, const struct vsc_target *t, char *buf,
			    size_t len)
{
	size_t used = 0;
	if (o->argv) {
		used += (size_t)snprintf(buf, len, "command (pid %ld):", (long)t->pid);
		for (char **a = o->argv; *a && used < len; a++)
			used += (size_t)snprintf(buf + used, len - used, " %s", *a);
		return;
	}
	char comm[64] = "", path[64];
	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)t->pid);
	FILE *f = fopen(path, "re");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	snprintf(buf, len, "process %ld (%s, %s)", (long)t->pid, comm, t->exe);
}

/* Move everything the ring buffer holds into the writer. */
static int empty_ring(struct vsc_probe_source *src)
{
	int n;
	while ((n = vsc_probe_source_poll(src, 0)) > 0)
		;
	return n < 0 ? n : 0;
}

struct session {
	struct record_opts *opts;
	struct vsc_target target;
	struct record_ctx ctx;
	struct vsc_trace_writer *writer;
	uint64_t drained;
	const char *stop_reason;
	bool started; /* a launched command runs */
};

/* The end of a recording: every thread stopped (or the process at its exit),
 * the ring buffer emptied, part-filled logs read, probes detached. */
static int finish_recording(struct session *s)
{
	struct vsc_target *t = &s->target;
	int err = 0;
	if (!t->ended && !t->at_exit)
		err = vsc_target_stop_all(t);
	if (err)
		fprintf(stderr, "vsc record: could not stop the threads of %ld (%s); events still in "
				"their logs are missing\n",
			(long)t->pid, strerror(-err));
	if (!t->ended)
		vsc_symbols_refresh(s->ctx.symbols);
	int e = empty_ring(s->ctx.source);
	if (!e && !t->ended && !err) {
		int n = vsc_probe_source_drain_logs(s->ctx.source);
		if (n < 0)
			e = n;
		else
			s->drained = (uint64_t)n;
	}
	/* the probes go before the threads run again */
	vsc_trace_writer_add_lost(s->writer, vsc_probe_source_lost(s->ctx.source));
	if (s->opts->verbose)
		fprintf(stderr, "vsc record: %" PRIu64 " batches, %" PRIu64 " events read from logs "
				"at the end\n",
			vsc_probe_source_batches(s->ctx.source), s->drained);
	vsc_probe_source_close(s->ctx.source);
	s->ctx.source = NULL;
	vsc_target_resume_all(t);
	if (t->launched && t->at_exit)
		vsc_target_finish(t);
	return e;
}

static int record_loop(struct session *s)
{
	struct vsc_target *t = &s->target;
	uint64_t start = now_ns(), last_scan = start, stop_at = 0;
	uint64_t deadline = s->opts->duration_s > 0
				    ? start + (uint64_t)(s->opts->duration_s * 1e9)
				    : UINT64_MAX;
	char why[512];
	for (;;) {
		int n = vsc_probe_source_poll(s->ctx.source, POLL_MS);
		if (n < 0 && n != -EINTR) {
			fprintf(stderr, "vsc record: reading the ring buffer failed: %s\n",
				strerror(-n));
			return n;
		}
		int changed = vsc_target_poll(t);
		if (changed < 0) {
			fprintf(stderr, "vsc record: following %ld failed: %s\n", (long)t->pid,
				strerror(-changed));
			return changed;
		}
		if (t->ended || t->at_exit) {
			s->stop_reason = "the process ended";
			return 0;
		}
		uint64_t now = now_ns();
		if (now >= deadline) {
			s->stop_reason = "--duration";
			return 0;
		}
		if (stop_requested) {
			/* a launched command usually got the same ^C: let it end */
			if (!t->launched) {
				s->stop_reason = "a signal";
				return 0;
			}
			if (!stop_at)
				stop_at = now + GRACE_MS * 1000000ull;
			else if (now >= stop_at) {
				s->stop_reason = "a signal";
				return 0;
			}
		}
		if (now - last_scan >= RESCAN_MS * 1000000ull) {
			last_scan = now;
			vsc_symbols_refresh(s->ctx.symbols);
			if (vsc_probe_source_attach(s->ctx.source, NULL, why, sizeof(why)) < 0)
				fprintf(stderr, "vsc record: %s\n", why);
		}
	}
}

static int write_trace(struct session *s)
{
	char end[128];
	struct vsc_target *t = &s->target;
	if (t->launched) {
		vsc_target_describe_end(t, end, sizeof(end));
		vsc_trace_writer_note(s->writer, "command ended", end);
	}
	vsc_trace_writer_note(s->writer, "recording stopped by", s->stop_reason);
	const char *out = s->opts->output ? s->opts->output : "-";
	int err = vsc_trace_writer_write_file(s->writer, out);
	if (err) {
		fprintf(stderr, "vsc record: cannot write %s: %s\n", out, strerror(-err));
		return err;
	}
	uint64_t lost = vsc_trace_writer_lost(s->writer);
	fprintf(stderr, "vsc record: %zu events written to %s, %" PRIu64 " lost",
		vsc_trace_writer_event_count(s->writer), strcmp(out, "-") ? out : "stdout", lost);
	if (t->launched)
		fprintf(stderr, "; command %s", end);
	fputc('\n', stderr);
	if (lost)
		fprintf(stderr, "vsc record: WARNING: %" PRIu64 " events were lost (ring buffer full); "
				"try a larger --ring-size. A verdict on this trace may be wrong.\n",
			lost);
	return 0;
}

static int refuse(struct session *s, int status)
{
	if (s->target.launched && !s->target.ended && !s->started) {
		/* it never ran a single instruction of its own */
		kill(s->target.pid, SIGKILL);
		vsc_target_finish(&s->target);
	}
	return status;
}

/* vsc record --watch: the hardware-watchpoint path (userspace/capture/watch.c). */
static int record_watch(const struct record_opts *o)
{
	struct watch_opts w = {
		.sz = sizeof(w), .watch = o->watch, .watch_count = o->watch_count,
		.pid = o->pid, .argv = o->argv, .output = o->output,
		.duration_s = o->duration_s, .ring_size = o->ring_size,
		.no_locations = o->no_locations, .verbose = o->verbose,
	};
	return watch_record(&w);
}

int cmd_record(int argc, char **argv)
{
	struct record_opts opts = { 0 };
	struct session s = { .opts = &opts, .stop_reason = "the process ended" };
	struct vsc_target_error terr = { "" };
	char what[4096 + 256], how[256], why[512];
	int r = parse_args(argc, argv, &opts), status = EXIT_USAGE;
	if (r)
		return r > 0 ? 0 : EXIT_USAGE;
	if (opts.watch_count)
		return record_watch(&opts);
	if (check_kernel())
		return EXIT_USAGE;

	/* only events of this recording: older ones may sit in a log */
	uint64_t begin = now_ns();
	r = opts.argv ? vsc_target_launch(&s.target, opts.argv, &terr)
		      : vsc_target_attach(&s.target, opts.pid, &terr);
	if (r) {
		fprintf(stderr, "vsc record: %s\n", terr.message);
		return refuse(&s, EXIT_USAGE);
	}
	/* the libraries a command needs are mapped when it reaches its entry */
	if (opts.argv && (r = vsc_target_run_to_entry(&s.target)) && r != -ENOTSUP) {
		fprintf(stderr, "vsc record: %s ended before it started (%s)\n", opts.argv[0],
			strerror(-r));
		return refuse(&s, EXIT_USAGE);
	}
	s.ctx.no_elf_init = opts.no_elf_init || !opts.argv; /* -p: globals have changed */
	s.ctx.symbols = vsc_symbols_new(s.target.pid);
	describe_target(&opts, &s.target, what, sizeof(what));
	snprintf(how, sizeof(how),
		 "vsc record, eBPF: USDT probes vsc:batch/vsc:log (include/vsc/probe.h), "
		 "thread-local logs of %d events, BPF ring buffer of %zu bytes",
		 VSC_RECORD_LOG_CAP, opts.ring_size ? opts.ring_size : VSC_RECORD_DEFAULT_RING);
	struct vsc_trace_writer_opts wopts = {
		.sz = sizeof(wopts), .what = what, .how = how, .ctx = &s.ctx,
		.name_var = name_cb, .init_value = init_cb, .name_segment = segment_cb,
		.locate = opts.no_locations ? NULL : locate_cb, .min_ts = begin,
	};
	s.writer = vsc_trace_writer_new(&wopts);
	if (!s.writer) {
		fprintf(stderr, "vsc record: out of memory\n");
		return refuse(&s, EXIT_USAGE);
	}
	struct vsc_probe_source_opts sopts = { .ring_size = opts.ring_size, .writer = s.writer,
					       .target = &s.target, .verbose = opts.verbose };
	r = vsc_probe_source_open(&s.ctx.source, &sopts, why, sizeof(why));
	if (r) {
		fprintf(stderr, "vsc record: %s\n", why);
		goto out;
	}
	r = vsc_probe_source_attach(s.ctx.source, s.target.exe[0] ? s.target.exe : NULL, why,
				    sizeof(why));
	if (r <= 0) {
		if (r == 0)
			fprintf(stderr,
				"vsc record: no vsc probes in %s or its loaded libraries (build it "
				"with #include <vsc/probe.h> and use its VSC_PROBE_* macros or vsc_* "
				"helpers)\n",
				s.target.exe);
		else
			fprintf(stderr, "vsc record: %s\n", why);
		goto out;
	}

	struct sigaction sa = { .sa_handler = on_stop_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (opts.verbose)
		fprintf(stderr, "vsc record: recording %s\n", what);
	if (s.target.launched && (r = vsc_target_start(&s.target))) {
		fprintf(stderr, "vsc record: cannot start the command: %s\n", strerror(-r));
		status = 1;
		goto out;
	}
	s.started = true;
	status = 1;
	r = record_loop(&s);
	int e = finish_recording(&s);
	if (!r && e)
		fprintf(stderr, "vsc record: reading the last events failed: %s\n", strerror(-e));
	if (!r && !e && !write_trace(&s))
		status = 0;
out:
	status = refuse(&s, status);
	vsc_probe_source_close(s.ctx.source);
	vsc_symbols_free(s.ctx.symbols);
	vsc_trace_writer_free(s.writer);
	vsc_target_release(&s.target);
	return status;
}
