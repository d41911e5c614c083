/* SPDX-License-Identifier: MIT */
/*
 * The one recording loop of `vsc record`, whatever the capture source:
 *
 *   open the output -> launch or attach the target -> source attach ->
 *   let the target run -> poll the source into the trace writer, follow
 *   the target, stop at its end / --duration / SIGINT, SIGTERM or SIGHUP ->
 *   stop every thread -> source drain (what is left; detach) -> resume ->
 *   (a launched command still running: stop it, or say it runs on) ->
 *   header notes, counts, trailer.
 *
 * With the trace on standard output, a launched command's standard output
 * goes to standard error instead.
 *
 * Signals only set a flag. A source (USDT probes: probe_source.c; hardware
 * watchpoints: watch.c) plugs in through struct capture_source_ops. Names,
 * initial values and locations come from the target's symbols (symbols.c),
 * unless the source knows better.
 *
 * Exit status: 0 recorded (the trace is complete), 1 a failure while
 * recording (the output has no trailer), 2 refused before the target ran
 * (bad output, no such process, not allowed, nothing to record).
 */
#ifndef VSC_CAPTURE_RECORDER_H
#define VSC_CAPTURE_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbols.h"
#include "target.h"
#include "trace_writer.h"

struct recorder;
struct capture_source;
struct ring_buffer; /* libbpf's */
struct foreign_watch;

struct capture_source_ops {
	/* The target exists (launched and held, or attached): load and attach.
	 * 0, or -errno after printing why (the recording is refused). */
	int (*attach)(struct capture_source *src, struct recorder *rec);
	/* Move what has arrived into the writer, waiting up to timeout_ms.
	 * Events moved, or -errno. */
	int (*poll)(struct capture_source *src, struct trace_writer *w, int timeout_ms);
	/* Now and then while recording (optional): e.g. attach to libraries
	 * loaded since. */
	void (*rescan)(struct capture_source *src, struct recorder *rec);
	/* The end: every thread is stopped (threads_stopped), or the target has
	 * ended, or stopping failed: move the rest into the writer and detach.
	 * 0 or -errno. */
	int (*drain)(struct capture_source *src, struct trace_writer *w, bool threads_stopped);
	/* Events the source lost; *exact false when that is a lower bound. */
	uint64_t (*lost)(const struct capture_source *src, bool *exact);
	/* Optional: header notes, and lines for the user after the summary. */
	void (*notes)(struct capture_source *src, struct trace_writer *w);
	void (*report)(struct capture_source *src);
	/* Optional naming, tried before the symbols (return -ENOENT to pass). */
	int (*var_name)(struct capture_source *src, uint64_t addr, char *buf, size_t len);
	/* Optional: replaces the ELF initial values. 1 and *value, or 0. */
	int (*init_value)(struct capture_source *src, uint64_t addr, int64_t *value);
	/* Optional: replaces the symbols' locations. */
	int (*locate)(struct capture_source *src, uint32_t pid, uint64_t ip, char *buf, size_t len);
	/* Optional: the writers its BPF program sees that it cannot record
	 * (foreign.h): stores by other processes' system calls, objects they
	 * mapped writable and shared during the recording, the kernel's count
	 * of mappings that may write a file, for the shared-memory watch. */
	const struct foreign_watch *(*foreign)(const struct capture_source *src);
	/* Optional: the name of segment `id` (name_addr: where the target
	 * keeps it, or 0), asked once, when its first marker is written. */
	int (*segment_name)(struct capture_source *src, int64_t id, uint64_t name_addr, char *buf,
			    size_t len);
	/* Optional: whether the target has run exec (its BPF program saw it),
	 * which ends the recording: another program runs from then on. */
	bool (*execed)(const struct capture_source *src);
	void (*close)(struct capture_source *src);
};

/* A source embeds this as its first member. */
struct capture_source {
	const struct capture_source_ops *ops;
};

struct recorder_opts {
	const char *who;       /* in messages: "record", "record --watch" */
	pid_t pid;             /* -p PID, or 0 */
	char *const *argv;     /* -- CMD ARGS (NULL-terminated), or NULL */
	const char *output;    /* path, "-" or NULL: standard output */
	double duration_s;     /* stop after this long; 0: no limit */
	const char *how;       /* the "# how:" line */
	const char *loss_mode; /* the "# loss mode:" line, or NULL */
	bool run_to_entry;     /* a launched command runs to its entry before attach */
	bool hold_attached;    /* -p: stop every thread while the source attaches */
	/* -p: the source stops seeing events once the main thread is gone
	 * while others run on (uprobes attached to a process follow its main
	 * thread's memory: the kernel drops them, and the USDT semaphores,
	 * at their next hit): the recording stops there, its loss inexact */
	bool ends_with_main_thread;
	bool trace_threads; /* every thread stays traced while recorded (target.h) */
	bool need_symbols;  /* refuse when the symbols cannot be read */
	bool no_elf_init;   /* no initial values from the ELF file */
	bool no_locations;
	bool no_timestamps;
	bool min_ts_now; /* drop events logged before the recording began */
	int rescan_ms;   /* call ops->rescan this often; 0: never */
	/* A launched command still running when the recording stops (SIGINT,
	 * SIGTERM, --duration): send it this signal and wait for its end;
	 * 0: leave it running (and say so). */
	int stop_signal;
	bool verbose;
};

/* Record with src; closes src. Returns the exit status (see above). */
int recorder_run(const struct recorder_opts *opts, struct capture_source *src);

/* For sources, during attach/rescan. */
struct vsc_target *recorder_target(struct recorder *rec);
struct vsc_symbols *recorder_symbols(struct recorder *rec);
const struct recorder_opts *recorder_opts(const struct recorder *rec);
/* The trace writer (open before the source attaches). */
struct trace_writer *recorder_writer(struct recorder *rec);
/* For sources that read a BPF ring buffer (both do): wait up to timeout_ms
 * (0: not at all) for records, then take in those submitted without a
 * wake-up too. Records taken (by the ring's callback), or -errno (-EINTR
 * counts as 0 records). */
int recorder_read_ring(struct ring_buffer *ring, int timeout_ms);
/* "vsc WHO: MESSAGE" on stderr. */
void recorder_say(const struct recorder *rec, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* VSC_CAPTURE_RECORDER_H */
