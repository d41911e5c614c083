/* SPDX-License-Identifier: MIT */
/* The one recording loop (see recorder.h). */
#include "recorder.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "foreign.h"
#include "shared_maps.h"
#include "userspace/util/clock.h"
#include "userspace/util/diag.h"

#define POLL_MS 100
/* How often the target's shared memory is looked at (shared_maps.h): a
 * process that maps it writable for less than this between two looks can
 * pass unseen. */
#define SHARED_SCAN_MS 200
#define GRACE_MS 1000 /* after ^C, time a launched command gets to end itself */

enum {
	RECORDED = 0,
	FAILED = 1,
	REFUSED = 2
};

struct recorder {
	const struct recorder_opts *opts;
	struct capture_source *src;
	struct vsc_target target;
	struct vsc_symbols *symbols;
	struct trace_writer *writer;
	struct shared_watch shared; /* memory shared with other processes */
	char what[4096 + 256];
	const char *stop_reason;
	bool started; /* the target runs its own code */
};

/* The one piece of mutable global state: set by SIGINT/SIGTERM/SIGHUP. */
static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* A traced thread stopped (a new thread, a signal): its handler only
 * interrupts the wait for events, so the loop lets it go on at once rather
 * than within POLL_MS. */
static void on_child_stop(int sig)
{
	(void)sig;
}

void recorder_say(const struct recorder *rec, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdiag(rec->opts->who ? rec->opts->who : "record", fmt, ap);
	va_end(ap);
}

struct vsc_target *recorder_target(struct recorder *rec)
{
	return &rec->target;
}

struct vsc_symbols *recorder_symbols(struct recorder *rec)
{
	return rec->symbols;
}

const struct recorder_opts *recorder_opts(const struct recorder *rec)
{
	return rec->opts;
}

struct trace_writer *recorder_writer(struct recorder *rec)
{
	return rec->writer;
}

int recorder_read_ring(struct ring_buffer *ring, int timeout_ms)
{
	int n = timeout_ms ? ring_buffer__poll(ring, timeout_ms) : 0;
	if (n == -EINTR)
		n = 0;
	if (n < 0)
		return n;
	/* records submitted without a wake-up are there too */
	int m = ring_buffer__consume(ring);
	return m < 0 ? m : n + m;
}

/* ---- names for the writer: the source first, then the symbols ---------- */

static int var_name(void *ctx, uint32_t pid, uint64_t addr, uint32_t size, char *buf, size_t len)
{
	struct recorder *rec = ctx;
	const struct capture_source_ops *ops = rec->src->ops;
	(void)pid;
	/* every variable is named once it is first seen: its address counts */
	shared_watch_recorded(&rec->shared, addr, size);
	if (ops->var_name && ops->var_name(rec->src, addr, buf, len) == 0)
		return 0;
	return rec->symbols ? vsc_symbols_name(rec->symbols, addr, buf, len) : -ENOENT;
}

static int init_value(void *ctx, uint32_t pid, uint64_t addr, uint32_t size, int64_t *value)
{
	struct recorder *rec = ctx;
	const struct capture_source_ops *ops = rec->src->ops;
	(void)pid;
	if (ops->init_value)
		return ops->init_value(rec->src, addr, value);
	if (!rec->symbols || rec->opts->no_elf_init)
		return 0;
	return vsc_symbols_init_value(rec->symbols, addr, size, value);
}

static int locate(void *ctx, uint32_t pid, uint64_t ip, char *buf, size_t len)
{
	struct recorder *rec = ctx;
	const struct capture_source_ops *ops = rec->src->ops;
	if (ops->locate)
		return ops->locate(rec->src, pid, ip, buf, len);
	return rec->symbols ? vsc_symbols_locate(rec->symbols, ip, buf, len) : -ENOENT;
}

static int segment_name(void *ctx, uint32_t pid, int64_t id, uint64_t name_addr, char *buf,
			size_t len)
{
	struct recorder *rec = ctx;
	const struct capture_source_ops *ops = rec->src->ops;
	(void)pid;
	return ops->segment_name ? ops->segment_name(rec->src, id, name_addr, buf, len) : -ENOENT;
}

static int shared_mapper(void *ctx, uint32_t major, uint32_t minor, uint64_t inode, bool sysv,
			 uint32_t *pid)
{
	struct recorder *rec = ctx;
	return foreign_watch_mapper(rec->src->ops->foreign(rec->src), major, minor, inode, sysv,
				    pid);
}

static int shared_writable(void *ctx, uint32_t major, uint32_t minor, uint64_t inode)
{
	struct recorder *rec = ctx;
	return foreign_watch_writable(rec->src->ops->foreign(rec->src), major, minor, inode);
}

/* ---- set up ---------------------------------------------------------------- */

static int open_output(struct recorder *rec)
{
	const struct recorder_opts *o = rec->opts;
	/* .what is filled in once the target is known */
	VSC_OPTS(trace_writer_opts, wo, .what = rec->what, .how = o->how, .loss_mode = o->loss_mode,
		 .naming = { .var_name = var_name,
			     .init_value = init_value,
			     .locate = o->no_locations ? NULL : locate,
			     .segment_name = segment_name,
			     .ctx = rec },
		 .no_timestamps = o->no_timestamps, .min_ts = o->min_ts_now ? clock_now_ns() : 0);
	const char *out = o->output ? o->output : "-";
	int err = trace_writer_open(&rec->writer, out, &wo);
	if (err)
		recorder_say(rec, "cannot write %s: %s", out, strerror(-err));
	return err;
}

static void describe_target(struct recorder *rec)
{
	const struct vsc_target *t = &rec->target;
	char *buf = rec->what;
	size_t len = sizeof(rec->what), used = 0;
	if (rec->opts->argv) {
		used += (size_t)snprintf(buf, len, "command (pid %ld):", (long)t->pid);
		for (char *const *a = rec->opts->argv; *a && used < len; a++)
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

/* Launch (held before its first instruction of its own) or attach. The
 * command gets child_mask, the signal mask we were started with. */
static int take_target(struct recorder *rec, const sigset_t *child_mask)
{
	const struct recorder_opts *o = rec->opts;
	struct vsc_target_error terr = { "" };
	/* the trace on stdout: the command's own output goes to stderr */
	bool to_stderr = !o->output || !strcmp(o->output, "-");
	int err = o->argv ? vsc_target_launch(&rec->target, o->argv, to_stderr, child_mask, &terr)
			  : vsc_target_attach(&rec->target, o->pid, &terr);
	if (err) {
		recorder_say(rec, "%s", terr.message);
		return err;
	}
	/* the libraries a command needs are mapped when it reaches its entry */
	if (o->argv && o->run_to_entry && (err = vsc_target_run_to_entry(&rec->target)) &&
	    err != -ENOTSUP) {
		recorder_say(rec, "%s ended before it started (%s)", o->argv[0], strerror(-err));
		return err;
	}
	if (!o->argv && o->hold_attached && (err = vsc_target_stop_all(&rec->target))) {
		recorder_say(rec, "cannot stop the threads of %d: %s", (int)o->pid, strerror(-err));
		return err;
	}
	if (!o->argv && rec->target.exec_done) {
		recorder_say(rec,
			     "process %d ran another program (a thread's exec) as its threads "
			     "were stopped to attach",
			     (int)o->pid);
		return -ESRCH;
	}
	if (o->trace_threads && (err = vsc_target_trace_threads(&rec->target))) {
		recorder_say(rec, "cannot trace the threads of %d: %s", (int)rec->target.pid,
			     strerror(-err));
		return err;
	}
	rec->symbols = vsc_symbols_new(rec->target.pid);
	if (!rec->symbols && o->need_symbols) {
		err = -errno;
		recorder_say(rec, "cannot read the symbols of process %d: %s", (int)rec->target.pid,
			     strerror(-err));
		return err;
	}
	describe_target(rec);
	return 0;
}

/* Refused (or failed) before the command ran an instruction of its own:
 * kill it; an attached process runs on. */
static int refuse(struct recorder *rec, int status)
{
	struct vsc_target *t = &rec->target;
	if (t->launched && !t->ended && !rec->started) {
		kill(t->pid, SIGKILL);
		vsc_target_finish(t);
	} else {
		vsc_target_resume_all(t);
	}
	return status;
}

/* ---- the loop ---------------------------------------------------------------- */

/* Whether the target has run exec, by the source's count (optional). */
static bool execed(const struct recorder *rec)
{
	return rec->src->ops->execed && rec->src->ops->execed(rec->src);
}

/* The recording ends at the target's exec (t->exec_done): say so. */
static void ended_by_exec(struct recorder *rec)
{
	rec->stop_reason = "an exec (the process runs another program)";
	recorder_say(rec,
		     "process %ld ran another program (exec): the recording ends there, the "
		     "new program is not recorded",
		     (long)rec->target.pid);
}

static int record_loop(struct recorder *rec)
{
	struct vsc_target *t = &rec->target;
	const struct recorder_opts *o = rec->opts;
	unsigned leader_looks = 0;
	uint64_t start = clock_now_ns(), last_scan = start, last_shared = start, stop_at = 0;
	uint64_t deadline =
		o->duration_s > 0 ? start + (uint64_t)(o->duration_s * 1e9) : UINT64_MAX;
	for (;;) {
		int n = rec->src->ops->poll(rec->src, rec->writer, POLL_MS);
		if (n < 0 && n != -EINTR) {
			recorder_say(rec, "reading the events failed: %s", strerror(-n));
			return n;
		}
		if ((n = trace_writer_error(rec->writer))) {
			recorder_say(rec, "cannot write %s: %s", o->output ? o->output : "-",
				     strerror(-n));
			return n;
		}
		int changed = vsc_target_poll(t);
		if (changed < 0) {
			recorder_say(rec, "following %ld failed: %s", (long)t->pid,
				     strerror(-changed));
			return changed;
		}
		/* an exec: what runs now is another program (its addresses
		 * mean nothing to the trace); the old one's threads all ended
		 * before it, handing their logs over. A process gone by now
		 * may have run exec first: its new program ended too. */
		if (!t->exec_done && !t->at_exit && execed(rec))
			vsc_target_execed(t);
		if (t->exec_done) {
			ended_by_exec(rec);
			return 0;
		}
		if (t->ended || t->at_exit) {
			rec->stop_reason = "the process ended";
			return 0;
		}
		/* a worker's exec kills the main thread first and waits for
		 * its end: the next look tells it from a pthread_exit */
		if (t->leader_gone && o->ends_with_main_thread && leader_looks++) {
			rec->stop_reason = "the main thread exited, other threads ran on";
			return 0;
		}
		uint64_t now = clock_now_ns();
		if (now >= deadline) {
			rec->stop_reason = "--duration";
			return 0;
		}
		if (stop_requested) {
			/* a launched command usually got the same ^C: let it end */
			if (!t->launched || (stop_at && now >= stop_at)) {
				rec->stop_reason = "a signal";
				return 0;
			}
			if (!stop_at)
				stop_at = now + GRACE_MS * 1000000ull;
		}
		if (now - last_shared >= SHARED_SCAN_MS * 1000000ull) {
			last_shared = now;
			shared_watch_scan(&rec->shared, false);
		}
		if (o->rescan_ms && rec->src->ops->rescan &&
		    now - last_scan >= (uint64_t)o->rescan_ms * 1000000ull) {
			last_scan = now;
			vsc_symbols_refresh(rec->symbols);
			rec->src->ops->rescan(rec->src, rec);
		}
	}
}

#define EXIT_WAIT_MS 2000

/* Why the loss is not known exactly: on stderr and in the header. */
__attribute__((format(printf, 2, 3))) static void note_loss_why(struct recorder *rec,
								const char *fmt, ...)
{
	char why[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	recorder_say(rec, "%s", why);
	trace_writer_note(rec->writer, "loss not known exactly", why);
}

/* Threads still there after the wait at the exit stop (the main thread
 * left by its own pthread_exit, the others run on): their logs were read
 * while they ran, so the trace is no consistent cut and what they did
 * after is missing: an inexact loss, with its reason. Traced ones
 * (--watch) were stopped for the read, and run on unwatched after it. */
static void note_running_on(struct recorder *rec, int threads, bool stopped)
{
	note_loss_why(rec, "%d threads still ran %d ms after the main thread's exit; %s", threads,
		      EXIT_WAIT_MS,
		      stopped ? "what they do after is not recorded"
			      : "their logs were read while they ran");
}

/* -p, the main thread gone while others run on (recorder.h's
 * ends_with_main_thread): the kernel has dropped the probes, or will at
 * their next hit, and a batch a thread hands over then is discarded; what
 * the threads do after is not recorded: an inexact loss, with its
 * reason. (Before, `# lost events: 0` with all of it missing.) */
static void note_leader_gone(struct recorder *rec, int threads)
{
	note_loss_why(rec,
		      "the main thread exited while %d threads ran on: the kernel drops the "
		      "probes of a process whose main thread is gone, so what they did after "
		      "is not recorded",
		      threads);
}

/* Threads that could not be stopped at the end (vsc_target_stop_all):
 * they ran on while the recording was taken down, and what they did then
 * (or, with the watchpoints, the threads after them did, as the
 * watchpoints went one by one) is missing: an inexact loss, with its
 * reason, whatever the source counted. (Before, --watch wrote `# lost
 * events: 0`.) */
static void note_not_stopped(struct recorder *rec, unsigned threads)
{
	note_loss_why(rec,
		      "%u threads did not stop within %d s at the end of the recording (a wait "
		      "in the kernel a stop does not reach, as a vfork's): what they did as the "
		      "recording ended is not recorded",
		      threads, VSC_TARGET_STOP_WAIT_S);
}

/* A consistent end: every thread stopped or gone before the source
 * detaches, then what is left is read. At the exit stop of a launched
 * command the other threads may still be on their way out, their ends (a
 * thread's end hands its log over, record.bpf.c) still to come: they are
 * waited for, or what they hand over after the read is lost uncounted. */
static int finish_recording(struct recorder *rec)
{
	struct vsc_target *t = &rec->target;
	/* after an exec, every thread of the old program is gone */
	bool stopped = t->ended || t->at_exit || t->exec_done;
	int running_on = 0;
	unsigned not_stopped = 0;
	if (t->at_exit && !t->ended && !t->threads_traced) {
		running_on = vsc_target_wait_others(t, EXIT_WAIT_MS);
	} else if (t->at_exit && !t->ended) {
		/* threads we trace (--watch) stop at their own exit stop, or
		 * are stopped where they run on: then read, all at rest */
		running_on = vsc_target_stop_traced_at_exit(t, EXIT_WAIT_MS);
		if (running_on < 0) {
			recorder_say(rec,
				     "could not stop the threads of %ld (%s); events still "
				     "in their logs are missing",
				     (long)t->pid, strerror(-running_on));
			stopped = false;
			running_on = 1;
		}
	}
	if (t->exec_waits)
		rec->stop_reason = "another thread's exec (the process runs another program)";
	if (!stopped) {
		int err = vsc_target_stop_all(t);
		stopped = !err;
		not_stopped = err ? (t->not_stopped ? t->not_stopped : 1) : 0;
		if (err)
			recorder_say(rec,
				     "could not stop the threads of %ld (%s); events still "
				     "in their logs are missing",
				     (long)t->pid, strerror(-err));
		/* a thread's exec came as they were stopped: every other
		 * thread ended there (handing its log over) */
		if (t->exec_done)
			rec->stop_reason =
				"another thread's exec (the process runs another program)";
		/* an exec done after the last look, before the stop: what was
		 * stopped is the new program, whose memory is not the trace's
		 * (its logs, where the old ones were, read as the old ones') */
		if (!t->exec_done && !t->ended && execed(rec)) {
			vsc_target_execed(t);
			ended_by_exec(rec);
		}
	}
	if (!t->ended && !t->exec_done) {
		vsc_symbols_refresh(rec->symbols);
		shared_watch_scan(&rec->shared, true); /* the mappings as it ends */
	}
	int err = rec->src->ops->drain(rec->src, rec->writer, stopped && !t->ended);
	vsc_target_resume_all(t);
	if (t->launched && t->at_exit)
		vsc_target_finish(t);
	/* after the threads are let go: a trap of ours found then is a loss */
	bool exact = true;
	trace_writer_add_lost(rec->writer, rec->src->ops->lost(rec->src, &exact));
	int leader_gone = rec->opts->ends_with_main_thread ? t->leader_gone : 0;
	if (!exact || running_on || leader_gone || not_stopped)
		trace_writer_lost_inexact(rec->writer);
	if (not_stopped)
		note_not_stopped(rec, not_stopped);
	if (running_on) {
		note_running_on(rec, running_on, t->others_ran_on);
		rec->stop_reason = "the main thread exited, other threads ran on";
	}
	if (leader_gone)
		note_leader_gone(rec, leader_gone);
	if (err)
		recorder_say(rec, "reading the last events failed: %s", strerror(-err));
	return err;
}

#define STOP_COMMAND_WAIT_MS 5000

/* The recording stopped before a launched command ended: it runs on, not
 * recorded. Stop it when asked to (--stop-command), and say which. */
static void command_runs_on(struct recorder *rec)
{
	struct vsc_target *t = &rec->target;
	int sig = rec->opts->stop_signal;
	if (!t->launched || t->ended || t->at_exit)
		return;
	if (!sig) {
		recorder_say(rec,
			     "the command (pid %ld) runs on, no longer recorded "
			     "(--stop-command SIGNAL stops it when the recording stops)",
			     (long)t->pid);
		return;
	}
	int err = vsc_target_stop_command(t, sig, STOP_COMMAND_WAIT_MS);
	if (err == -ETIMEDOUT)
		recorder_say(rec,
			     "the command (pid %ld) runs on: it did not end within %d s of SIG%s",
			     (long)t->pid, STOP_COMMAND_WAIT_MS / 1000, sigabbrev_np(sig));
	else if (err)
		recorder_say(rec, "cannot stop the command (pid %ld): %s", (long)t->pid,
			     strerror(-err));
	else if (rec->opts->verbose)
		recorder_say(rec, "stopped the command (pid %ld) with SIG%s", (long)t->pid,
			     sigabbrev_np(sig));
}

/* On stderr: memory written from outside (shared_maps.h), and with -v
 * what looking for it cost. */
static void say_shared(const struct recorder *rec)
{
	const struct shared_watch *sw = &rec->shared;
	uint64_t n = shared_watch_uncertain(sw);
	if (n)
		recorder_say(rec,
			     "WARNING: %" PRIu64 " shared memory objects of the target may be "
			     "written by processes not recorded, so vsc check gives this trace "
			     "no plain verdict: %s",
			     n, shared_watch_why(sw));
	if (!rec->opts->verbose)
		return;
	recorder_say(rec,
		     "shared memory: %" PRIu64 " looks at the target, %" PRIu64
		     " sweeps of /proc (%.1f ms in all); %zu objects mapped shared, %" PRIu64
		     " of them may be written from outside, %" PRIu64
		     " of those hold a recorded address; %" PRIu64
		     " written by system calls; %zu pages recorded",
		     sw->scans, sw->sweeps, (double)sw->sweep_ns / 1e6, sw->count, sw->suspects, n,
		     sw->syscall_written, sw->pages.count);
	uint32_t pid = 0;
	uint64_t unseen =
		rec->src->ops->foreign
			? foreign_watch_mprotects_unseen(rec->src->ops->foreign(rec->src), &pid)
			: 0;
	if (unseen)
		recorder_say(rec,
			     "shared memory: %" PRIu64 " mprotect calls of other processes "
			     "(making memory writable) whose mappings could not be looked at, "
			     "the last by pid %u",
			     unseen, pid);
}

static int write_trace(struct recorder *rec)
{
	const char *out = rec->opts->output ? rec->opts->output : "-";
	struct vsc_target *t = &rec->target;
	char end[128];
	if (rec->src->ops->notes)
		rec->src->ops->notes(rec->src, rec->writer);
	shared_watch_notes(&rec->shared, rec->writer);
	if (t->launched) {
		vsc_target_describe_end(t, end, sizeof(end));
		trace_writer_note(rec->writer, "command ended", end);
	}
	trace_writer_note(rec->writer, "recording stopped by", rec->stop_reason);
	int err = trace_writer_finish(rec->writer, NULL);
	if (err) {
		recorder_say(rec, "cannot write %s: %s", out, strerror(-err));
		return err;
	}
	uint64_t lost = trace_writer_lost(rec->writer);
	bool exact = trace_writer_lost_exact(rec->writer);
	recorder_say(rec, "%" PRIu64 " events written to %s, %s%" PRIu64 " lost%s%s",
		     trace_writer_events(rec->writer), strcmp(out, "-") ? out : "stdout",
		     exact ? "" : "at least ", lost, t->launched ? "; command " : "",
		     t->launched ? end : "");
	if (lost || !exact)
		recorder_say(rec,
			     "WARNING: %s%" PRIu64 " events were lost, so vsc check gives this "
			     "trace no plain verdict (the reasons below, if any; else a full "
			     "ring buffer: try a larger --ring-size)",
			     exact ? "" : "at least ", lost);
	if (trace_writer_mixed(rec->writer))
		recorder_say(rec,
			     "WARNING: %" PRIu64 " variable%s accessed with mixed sizes or "
			     "starts (first %s), so vsc check gives this trace no plain verdict",
			     trace_writer_mixed(rec->writer),
			     trace_writer_mixed(rec->writer) == 1 ? " is" : "s are",
			     trace_writer_mixed_why(rec->writer));
	say_shared(rec);
	if (rec->src->ops->report)
		rec->src->ops->report(rec->src);
	return 0;
}

/* Run the target to its end or to a stop; then the trace. */
static int record_running(struct recorder *rec)
{
	int status = FAILED, err;
	/* from here on the -o file's old content is no trace of this run */
	trace_writer_begin(rec->writer);
	/* what it shares as the recording begins (with -p, threads held) */
	shared_watch_init(&rec->shared, (int)rec->target.pid, rec->target.launched);
	if (rec->src->ops->foreign)
		rec->shared.mappers = (struct shared_mappers){
			.lookup = shared_mapper,
			.writable = shared_writable,
			.ctx = rec,
		};
	shared_watch_scan(&rec->shared, true);
	if (rec->target.launched) {
		err = vsc_target_start(&rec->target);
		if (err) {
			recorder_say(rec, "cannot start the command: %s", strerror(-err));
			return refuse(rec, FAILED);
		}
	} else if (rec->opts->trace_threads) {
		vsc_target_continue_all(&rec->target);
	} else if (rec->opts->hold_attached) {
		vsc_target_resume_all(&rec->target);
	}
	rec->started = true;
	if (rec->opts->verbose)
		recorder_say(rec, "recording %s", rec->what);
	err = record_loop(rec);
	int e = finish_recording(rec);
	command_runs_on(rec);
	if (!err && !e && !write_trace(rec))
		status = RECORDED;
	return status;
}

/* SIGINT, SIGTERM and SIGHUP only set the flag. They are blocked from
 * the very start and caught once the target is taken: one that comes
 * while we set up waits and then stops the recording as soon as it runs
 * (it is neither lost, as one that comes while the shell of a background
 * job still ignores SIGINT was, so the recording ran until the disk was
 * full; nor does it kill the recorder half-way, leaving an empty -o file
 * or an earlier run's trace there to be decided). A launched command gets
 * the mask and the dispositions we were given (exec keeps SIG_IGN, so an
 * ignored SIGPIPE would be the command's too): caught only after it is
 * launched. SA_RESTART: a wait for a thread's stop is not cut short by a
 * second ^C (epoll_wait is never restarted: the loop looks at the flag). */
struct saved_signals {
	struct sigaction int_, term, hup, pipe, chld;
	sigset_t mask;
};

static void stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

/* Before anything else: signals that stop the recording wait. */
static void hold_signals(struct saved_signals *saved)
{
	sigset_t stops;
	stop_signals(&stops);
	sigprocmask(SIG_BLOCK, &stops, &saved->mask);
}

static void catch_signals(struct saved_signals *saved)
{
	struct sigaction sa = { .sa_handler = on_stop_signal, .sa_flags = SA_RESTART };
	struct sigaction ignore = { .sa_handler = SIG_IGN };
	/* SA_RESTART: other calls go on; epoll_wait is never restarted */
	struct sigaction chld = { .sa_handler = on_child_stop, .sa_flags = SA_RESTART };
	stop_requested = 0;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&ignore.sa_mask);
	sigemptyset(&chld.sa_mask);
	sigaction(SIGINT, &sa, &saved->int_);
	sigaction(SIGTERM, &sa, &saved->term);
	sigaction(SIGHUP, &sa, &saved->hup);
	sigaction(SIGPIPE, &ignore, &saved->pipe); /* a closed pipe is an error we report */
	sigaction(SIGCHLD, &chld, &saved->chld);
	/* one that came meanwhile is taken now */
	sigprocmask(SIG_SETMASK, &saved->mask, NULL);
}

static void restore_signals(const struct saved_signals *saved)
{
	sigaction(SIGINT, &saved->int_, NULL);
	sigaction(SIGTERM, &saved->term, NULL);
	sigaction(SIGHUP, &saved->hup, NULL);
	sigaction(SIGPIPE, &saved->pipe, NULL);
	sigaction(SIGCHLD, &saved->chld, NULL);
}

int recorder_run(const struct recorder_opts *opts, struct capture_source *src)
{
	struct recorder rec = { .opts = opts, .src = src, .stop_reason = "the process ended" };
	struct saved_signals saved;
	int status = REFUSED;
	hold_signals(&saved);
	bool taken = !open_output(&rec) && !take_target(&rec, &saved.mask);
	catch_signals(&saved);
	if (!taken || src->ops->attach(src, &rec)) {
		status = refuse(&rec, REFUSED);
		if (rec.writer)
			trace_writer_discard(rec.writer);
	} else
		status = record_running(&rec);
	src->ops->close(src);
	shared_watch_free(&rec.shared);
	vsc_symbols_free(rec.symbols);
	trace_writer_free(rec.writer);
	vsc_target_release(&rec.target);
	restore_signals(&saved);
	return status;
}
