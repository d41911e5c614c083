/* SPDX-License-Identifier: MIT */
/*
 * vsc record --watch (see watch.h): set up -> stop the target -> open one
 * breakpoint per variable per thread, each running watch.bpf.c -> let the
 * target run -> poll the ring buffer, decode each hit (watch_events.c) ->
 * stop every thread -> detach -> drain -> write the trace. The target
 * handling (launch at exec stop, seize, stop all, resume) is the probe
 * path's target.c; the writer and symbols are the shared ones.
 */
#include "watch.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <bpf/libbpf.h>

#include "decode.h"
#include "symbols.h"
#include "target.h"
#include "trace_writer.h"
#include "watch.skel.h"
#include "watch_events.h"

#define POLL_MS 100
#define GRACE_S 1.0 /* after ^C, time a launched command gets to end itself */

struct watch_target {
	char name[128];
	uint64_t addr;
	unsigned len;
	int64_t initial; /* value when recording began (all threads stopped) */
	bool initial_known;
};

struct watch_run {
	const struct watch_opts *opts;
	struct vsc_target target;
	bool started; /* a launched command runs */
	struct watch_target targets[WATCH_MAX_REQUESTS];
	size_t target_count;
	struct vsc_symbols *syms;
	struct watch_events *events;
	struct watch *skel;
	struct ring_buffer *rb;
	struct bpf_link **links;
	size_t link_count, link_cap;
	struct vsc_trace_writer *writer;
	char what[4096 + 256], how[256]; /* the writer keeps pointers to them */
	const char *stop_reason;
};

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

int watch_slot_limit(void)
{
#if defined(__x86_64__)
	return 4; /* DR0..DR3 */
#else
	return WATCH_MAX_SLOTS; /* refined per target by arm64_slot_limit() */
#endif
}

#if defined(__aarch64__)
#include <elf.h>
#include <asm/ptrace.h>
/* ARM64 says how many watchpoints it has in NT_ARM_HW_WATCH (low byte of
 * dbg_info), readable from a thread we trace. */
static int arm64_slot_limit(pid_t tid)
{
	struct user_hwdebug_state st;
	struct iovec iov = { .iov_base = &st, .iov_len = sizeof(st) };

	if (ptrace(PTRACE_GETREGSET, tid, NT_ARM_HW_WATCH, &iov) < 0)
		return -errno;
	return st.dbg_info & 0xff;
}
#endif

/* ---- requests: SYMBOL[:SIZE] | ADDR[:SIZE] ---------------------------- */

static int parse_request(struct watch_run *run, const char *text, struct watch_target *t)
{
	const char *colon = strrchr(text, ':');
	size_t name_len = colon ? (size_t)(colon - text) : strlen(text);
	uint64_t size = 0;
	char *end;

	if (colon) {
		errno = 0;
		size = strtoull(colon + 1, &end, 0);
		if (errno || *end || colon[1] == '\0') {
			fprintf(stderr, "vsc record: --watch %s: bad size '%s'\n", text, colon + 1);
			return -EINVAL;
		}
	}
	if (name_len == 0 || name_len >= sizeof(t->name)) {
		fprintf(stderr, "vsc record: --watch '%s': expected SYMBOL[:SIZE] or ADDR[:SIZE]\n",
			text);
		return -EINVAL;
	}
	memcpy(t->name, text, name_len);
	t->name[name_len] = '\0';
	if (strncmp(t->name, "0x", 2) == 0) {
		errno = 0;
		t->addr = strtoull(t->name, &end, 16);
		if (errno || *end) {
			fprintf(stderr, "vsc record: --watch %s: bad address\n", text);
			return -EINVAL;
		}
		t->len = size ? (unsigned)size : 8;
	} else {
		uint64_t sym_size = 0;
		if (vsc_symbols_find(run->syms, t->name, &t->addr, &sym_size) < 0) {
			fprintf(stderr,
				"vsc record: --watch %s: no global object '%s' in the executable "
				"or its loaded libraries\n", text, t->name);
			return -ENOENT;
		}
		if (!size && sym_size > 8) {
			fprintf(stderr,
				"vsc record: --watch %s: '%s' is %" PRIu64 " bytes; a watchpoint "
				"covers 1, 2, 4 or 8: give NAME:SIZE to watch its first bytes\n",
				text, t->name, sym_size);
			return -EINVAL;
		}
		t->len = size ? (unsigned)size : (unsigned)sym_size;
	}
	if (size > 8 || (t->len != 1 && t->len != 2 && t->len != 4 && t->len != 8)) {
		fprintf(stderr,
			"vsc record: --watch %s: length %u: hardware watchpoints cover 1, 2, 4 "
			"or 8 bytes\n", text, t->len);
		return -EINVAL;
	}
	if (t->addr % t->len) {
		fprintf(stderr,
			"vsc record: --watch %s: address 0x%" PRIx64 " is not aligned to its "
			"length %u, which the hardware requires\n", text, t->addr, t->len);
		return -EINVAL;
	}
	for (size_t i = 0; i < run->target_count; i++) {
		const struct watch_target *o = &run->targets[i];
		if (t->addr < o->addr + o->len && o->addr < t->addr + t->len) {
			fprintf(stderr, "vsc record: --watch %s overlaps --watch %s\n", text,
				o->name);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- breakpoints -------------------------------------------------------- */

static int open_breakpoint(const struct watch_target *t, pid_t tid)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_BREAKPOINT,
		.bp_type = HW_BREAKPOINT_RW, /* x86 cannot watch reads alone */
		.bp_addr = t->addr,
		.bp_len = t->len,
		.sample_period = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.inherit = 1,
		.inherit_thread = 1, /* threads only, not forked processes */
		.remove_on_exec = 1, /* addresses mean nothing after exec */
	};
	int fd = (int)syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int keep_link(struct watch_run *run, struct bpf_link *link)
{
	if (run->link_count == run->link_cap) {
		size_t cap = run->link_cap ? run->link_cap * 2 : 16;
		struct bpf_link **v = realloc(run->links, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		run->links = v;
		run->link_cap = cap;
	}
	run->links[run->link_count++] = link;
	return 0;
}

static int attach_thread(struct watch_run *run, pid_t tid)
{
	for (size_t i = 0; i < run->target_count; i++) {
		const struct watch_target *t = &run->targets[i];
		int fd = open_breakpoint(t, tid);
		if (fd == -ESRCH)
			return 0; /* the thread is gone */
		if (fd < 0) {
			if (fd == -ENOSPC)
				fprintf(stderr,
					"vsc record: no free debug register for --watch %s on "
					"thread %d: this CPU has %d and something else (a "
					"debugger, another recorder) holds some\n",
					t->name, (int)tid, watch_slot_limit());
			else if (fd == -EINVAL)
				fprintf(stderr,
					"vsc record: the kernel refused a %u-byte watchpoint at "
					"0x%" PRIx64 " (--watch %s)\n", t->len, t->addr, t->name);
			else
				fprintf(stderr,
					"vsc record: perf_event_open(breakpoint) on thread %d: %s%s\n",
					(int)tid, strerror(-fd),
					fd == -EACCES || fd == -EPERM
						? " (needs root or CAP_PERFMON, and ptrace rights)"
						: "");
			return fd;
		}
		struct bpf_link *link = bpf_program__attach_perf_event(run->skel->progs.watch_hit, fd);
		if (!link) {
			int err = -errno;
			close(fd);
			fprintf(stderr, "vsc record: cannot attach the BPF program to a "
					"breakpoint: %s\n", strerror(-err));
			return err;
		}
		/* the link owns fd: bpf_link__destroy closes it */
		if (keep_link(run, link) < 0) {
			bpf_link__destroy(link);
			return -ENOMEM;
		}
	}
	return 0;
}

static void read_initial_values(struct watch_run *run)
{
	for (size_t i = 0; i < run->target_count; i++) {
		struct watch_target *t = &run->targets[i];
		uint64_t raw = 0;
		if (vsc_target_read(&run->target, t->addr, &raw, t->len) == (ssize_t)t->len) {
			t->initial = (int64_t)raw; /* the writer sign-extends */
			t->initial_known = true;
		}
	}
}

/* ---- writer callbacks ---------------------------------------------------- */

static int initial_value(void *ctx, uint32_t pid, uint64_t addr, uint32_t size,
			 int64_t *value)
{
	struct watch_run *run = ctx;
	(void)pid;
	(void)size;

	for (size_t i = 0; i < run->target_count; i++) {
		if (run->targets[i].addr == addr && run->targets[i].initial_known) {
			*value = run->targets[i].initial;
			return 1;
		}
	}
	return 0;
}

static int name_var(void *ctx, uint32_t pid, uint64_t addr, uint32_t size, char *buf,
		    size_t len)
{
	struct watch_run *run = ctx;
	(void)pid;
	(void)size;

	for (size_t i = 0; i < run->target_count; i++) {
		if (run->targets[i].addr == addr && strncmp(run->targets[i].name, "0x", 2)) {
			snprintf(buf, len, "%s", run->targets[i].name);
			return 0;
		}
	}
	return vsc_symbols_name(run->syms, addr, buf, len);
}

static int locate(void *ctx, uint32_t pid, uint64_t ip, char *buf, size_t len)
{
	struct watch_run *run = ctx;
	return watch_events_locate(run->events, pid, ip, buf, len);
}

/* ---- the recorder ------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static size_t ring_bytes(size_t want)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size = page;
	if (!want)
		want = WATCH_DEFAULT_RING;
	while (size < want)
		size <<= 1; /* a power of two pages */
	return size;
}

static int load_bpf(struct watch_run *run)
{
	run->skel = watch__open();
	if (!run->skel) {
		int err = -errno;
		fprintf(stderr, "vsc record: cannot open the BPF object: %s\n", strerror(-err));
		return err;
	}
	for (size_t i = 0; i < run->target_count; i++) {
		run->skel->rodata->slots[i].addr = run->targets[i].addr;
		run->skel->rodata->slots[i].len = run->targets[i].len;
	}
	run->skel->rodata->slot_count = (uint32_t)run->target_count;
	bpf_map__set_max_entries(run->skel->maps.events,
				 (uint32_t)ring_bytes(run->opts->ring_size));
	if (watch__load(run->skel)) {
		int err = -errno;
		fprintf(stderr, "vsc record: cannot load the BPF program (%s): this needs "
				"root or CAP_BPF+CAP_PERFMON and a kernel with BPF\n",
			strerror(-err));
		return err;
	}
	watch_events_set_exact_map(run->events, bpf_map__fd(run->skel->maps.exact_ips));
	run->rb = ring_buffer__new(bpf_map__fd(run->skel->maps.events), watch_events_on_record,
				   run->events, NULL);
	if (!run->rb)
		return -errno;
	return 0;
}

static void note_u64(struct watch_run *run, const char *key, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	vsc_trace_writer_note(run->writer, key, buf);
}

static void add_notes(struct watch_run *run)
{
	const struct watch_value_stats *st = watch_events_stats(run->events);
	char buf[1024];
	size_t off = 0;

	for (size_t i = 0; i < run->target_count && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s@0x%" PRIx64 ":%u",
					i ? " " : "", run->targets[i].name,
					run->targets[i].addr, run->targets[i].len);
	vsc_trace_writer_note(run->writer, "watch", buf);
	note_u64(run, "watchpoint hits", watch_events_hits(run->events));
	note_u64(run, "values read from memory after the fact", st->unsure);
	note_u64(run, "memory changed before the BPF read", st->raced);
	note_u64(run, "accesses not decoded", st->unknown);
	if (run->target.launched) {
		vsc_target_describe_end(&run->target, buf, sizeof(buf));
		vsc_trace_writer_note(run->writer, "command ended", buf);
	}
	vsc_trace_writer_note(run->writer, "recording stopped by", run->stop_reason);
}

static void what_line(const struct watch_run *run, char *buf, size_t len)
{
	size_t off = 0;
	if (!run->opts->argv) {
		snprintf(buf, len, "process %d (%s)", (int)run->target.pid, run->target.exe);
		return;
	}
	off += (size_t)snprintf(buf, len, "command (pid %d):", (int)run->target.pid);
	for (size_t i = 0; run->opts->argv[i] && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, " %s", run->opts->argv[i]);
}

static void detach_all(struct watch_run *run)
{
	for (size_t i = 0; i < run->link_count; i++)
		bpf_link__destroy(run->links[i]);
	run->link_count = 0;
}

static void run_free(struct watch_run *run)
{
	detach_all(run);
	free(run->links);
	ring_buffer__free(run->rb);
	watch__destroy(run->skel);
	vsc_trace_writer_free(run->writer);
	watch_events_free(run->events);
	vsc_symbols_free(run->syms);
	vsc_target_release(&run->target);
}

/* Launch (held at its exec) or seize every thread of the process. */
static int start_target(struct watch_run *run)
{
	const struct watch_opts *opts = run->opts;
	struct vsc_target_error terr = { "" };
	int err;

	err = opts->argv ? vsc_target_launch(&run->target, opts->argv, &terr)
			 : vsc_target_attach(&run->target, opts->pid, &terr);
	if (err) {
		fprintf(stderr, "vsc record: %s\n", terr.message);
		return err;
	}
	if (!opts->argv) {
		err = vsc_target_stop_all(&run->target);
		if (err) {
			fprintf(stderr, "vsc record: cannot stop the threads of %d: %s\n",
				(int)opts->pid, strerror(-err));
			return err;
		}
	}
	return 0;
}

static int check_slots(const struct watch_run *run)
{
	int limit = watch_slot_limit();
#if defined(__aarch64__)
	limit = arm64_slot_limit(run->target.pid);
	if (limit < 0) {
		fprintf(stderr, "vsc record: cannot read the watchpoint count: %s\n",
			strerror(-limit));
		return limit;
	}
#endif
	if ((int)run->opts->watch_count > limit) {
		fprintf(stderr, "vsc record: %zu --watch given, but this CPU has %d hardware "
				"watchpoints\n", run->opts->watch_count, limit);
		return -E2BIG;
	}
	return 0;
}

/* Everything between a stopped target and one that runs watched. */
static int setup(struct watch_run *run)
{
	const struct watch_opts *opts = run->opts;
	int err = check_slots(run);

	if (err)
		return err;
	run->syms = vsc_symbols_new(run->target.pid);
	if (!run->syms) {
		err = -errno;
		fprintf(stderr, "vsc record: cannot read the symbols of process %d: %s\n",
			(int)run->target.pid, strerror(-err));
		return err;
	}
	for (size_t i = 0; i < opts->watch_count; i++) {
		err = parse_request(run, opts->watch[i], &run->targets[i]);
		if (err)
			return err;
		run->target_count++;
	}
#if defined(__aarch64__)
	run->events = watch_events_new(run->target.pid, WATCH_ARCH_ARM64, run->syms);
#else
	run->events = watch_events_new(run->target.pid, WATCH_ARCH_X86_64, run->syms);
#endif
	if (!run->events) {
		err = -errno;
		fprintf(stderr, "vsc record: cannot set up the decoder: %s\n", strerror(-err));
		return err;
	}
	err = load_bpf(run);
	if (err)
		return err;
	read_initial_values(run);
	if (run->target.launched)
		return attach_thread(run, run->target.pid); /* its only thread */
	for (size_t i = 0; i < run->target.stopped_count; i++) {
		if (run->target.stopped[i] <= 0)
			continue; /* gone */
		err = attach_thread(run, run->target.stopped[i]);
		if (err)
			return err;
	}
	return 0;
}

static int make_writer(struct watch_run *run)
{
	what_line(run, run->what, sizeof(run->what));
	snprintf(run->how, sizeof(run->how),
		 "vsc record --watch: hardware watchpoints (perf_event_open breakpoints, "
		 "BPF ring buffer of %zu bytes), access kinds decoded with Capstone",
		 ring_bytes(run->opts->ring_size));
	struct vsc_trace_writer_opts wopts = {
		.sz = sizeof(wopts),
		.what = run->what,
		.how = run->how,
		.name_var = name_var,
		.init_value = initial_value,
		.locate = run->opts->no_locations ? NULL : locate,
		.ctx = run,
		.no_timestamps = run->opts->no_timestamps,
	};
	run->writer = vsc_trace_writer_new(&wopts);
	if (!run->writer)
		return -errno;
	watch_events_set_writer(run->events, run->writer);
	return 0;
}

static int record_loop(struct watch_run *run)
{
	struct vsc_target *t = &run->target;
	double deadline = run->opts->duration_s > 0 ? now_s() + run->opts->duration_s : 0;
	double grace_end = 0;

	for (;;) {
		/* The BPF side wakes us only when the ring is filling up; the
		 * timeout is the usual wake-up, then we read whatever is there. */
		int n = ring_buffer__poll(run->rb, POLL_MS);
		if (n >= 0)
			n = ring_buffer__consume(run->rb);
		if (n < 0 && n != -EINTR) {
			fprintf(stderr, "vsc record: reading the ring buffer failed: %s\n",
				strerror(-n));
			return n;
		}
		if (watch_events_error(run->events))
			return watch_events_error(run->events);
		int changed = vsc_target_poll(t);
		if (changed < 0) {
			fprintf(stderr, "vsc record: following %d failed: %s\n", (int)t->pid,
				strerror(-changed));
			return changed;
		}
		if (t->ended || t->at_exit) {
			run->stop_reason = "the process ended";
			return 0;
		}
		double now = now_s();
		if (deadline && now >= deadline) {
			run->stop_reason = "--duration";
			return 0;
		}
		if (stop_requested) {
			/* a launched command usually got the same ^C: let it end */
			if (!t->launched || (grace_end && now >= grace_end)) {
				run->stop_reason = "a signal";
				return 0;
			}
			if (!grace_end)
				grace_end = now + GRACE_S;
		}
	}
}

/* A consistent end: every thread stopped (or the process at its exit)
 * before the breakpoints go, so no thread runs on unwatched while another
 * is still recorded; then what the ring buffer holds is read. */
static void finish_recording(struct watch_run *run)
{
	struct vsc_target *t = &run->target;

	if (!t->ended && !t->at_exit && vsc_target_stop_all(t))
		fprintf(stderr, "vsc record: could not stop every thread of %d for the end of "
				"the recording\n", (int)t->pid);
	if (t->ended)
		watch_events_target_gone(run->events);
	detach_all(run);
	ring_buffer__consume(run->rb);
	vsc_trace_writer_add_lost(run->writer, run->skel->bss->lost_events +
						       run->skel->bss->lost_threads);
	vsc_target_resume_all(t);
	if (t->launched && t->at_exit)
		vsc_target_finish(t);
}

static int write_trace(struct watch_run *run)
{
	const char *out = run->opts->output ? run->opts->output : "-";
	const struct watch_value_stats *st = watch_events_stats(run->events);
	int err;

	add_notes(run);
	err = vsc_trace_writer_write_file(run->writer, out);
	if (err) {
		fprintf(stderr, "vsc record: cannot write %s: %s\n", out, strerror(-err));
		return err;
	}
	uint64_t lost = vsc_trace_writer_lost(run->writer);
	fprintf(stderr, "vsc record: %zu events from %" PRIu64 " watchpoint hits written to %s, %"
			PRIu64 " lost\n",
		vsc_trace_writer_event_count(run->writer), watch_events_hits(run->events),
		strcmp(out, "-") ? out : "stdout", lost);
	if (lost)
		fprintf(stderr, "vsc record: WARNING: %" PRIu64 " events were lost (ring buffer "
				"full); try a larger --ring-size. A verdict on this trace may be "
				"wrong.\n", lost);
	if (st->unsure)
		fprintf(stderr, "vsc record: %" PRIu64 " values were read from memory after the "
				"access (marked 'value unsure'; see docs/watch.md)\n", st->unsure);
	if (st->unknown)
		fprintf(stderr, "vsc record: %" PRIu64 " accesses whose instruction was not "
				"decoded (recorded as reads, marked)\n", st->unknown);
	return 0;
}

/* Refused before the command ran an instruction of its own: kill it. */
static int refuse(struct watch_run *run, int status)
{
	struct vsc_target *t = &run->target;

	if (t->launched && !t->ended && !run->started) {
		kill(t->pid, SIGKILL);
		vsc_target_finish(t);
	} else {
		vsc_target_resume_all(t);
	}
	return status;
}

int watch_record(const struct watch_opts *opts)
{
	struct watch_run run = { .opts = opts, .stop_reason = "the process ended" };
	struct sigaction sa = { .sa_handler = on_stop_signal }, old_int, old_term;
	int status = 2, err;

	if (!opts->watch_count || (!opts->pid) == (!opts->argv)) {
		fprintf(stderr, "vsc record --watch: give --watch VAR and one of -p PID or -- CMD\n");
		return 2;
	}
	if (opts->watch_count > WATCH_MAX_REQUESTS ||
	    (int)opts->watch_count > watch_slot_limit()) {
		fprintf(stderr, "vsc record: %zu --watch given, but this CPU has %d hardware "
				"watchpoints\n", opts->watch_count, watch_slot_limit());
		return 2;
	}
	if (!opts->verbose)
		libbpf_set_print(NULL);
	err = start_target(&run);
	if (!err)
		err = setup(&run);
	if (!err)
		err = make_writer(&run);
	if (err) {
		status = refuse(&run, 2);
		run_free(&run);
		return status;
	}

	stop_requested = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	if (run.target.launched) {
		err = vsc_target_start(&run.target);
		if (err) {
			fprintf(stderr, "vsc record: cannot start the command: %s\n", strerror(-err));
			status = refuse(&run, 1);
			goto out;
		}
	} else {
		vsc_target_resume_all(&run.target);
	}
	run.started = true;
	fprintf(stderr, "vsc record: watching %zu variable%s in process %d\n", run.target_count,
		run.target_count == 1 ? "" : "s", (int)run.target.pid);

	status = 1;
	err = record_loop(&run);
	finish_recording(&run);
	if (!err && !watch_events_error(run.events) && !write_trace(&run))
		status = 0;
	else if (watch_events_error(run.events))
		fprintf(stderr, "vsc record: %s\n", strerror(-watch_events_error(run.events)));
out:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	run_free(&run);
	return status;
}
