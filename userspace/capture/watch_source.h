/* SPDX-License-Identifier: MIT */
/*
 * vsc record --watch: record every access to a few variables of a process,
 * with hardware data breakpoints (perf_event_open PERF_TYPE_BREAKPOINT) and
 * a BPF program on each (bpf/watch.bpf.c). No instrumentation of the target.
 *
 * How threads are followed: every perf event is opened with inherit and
 * inherit_thread, so a thread started later inherits the breakpoints (and
 * the BPF program) from the thread that started it, in the kernel, before
 * it runs a single instruction. The threads that exist when recording
 * starts are stopped for the attach (vsc_target_stop_all: PTRACE_SEIZE +
 * INTERRUPT until /proc/PID/task stops changing), so none can start an
 * unwatched thread in between; a launched command is held at its exec stop
 * (vsc_target_launch). The end is cut the same way: all threads stopped,
 * breakpoints removed, ring buffer drained. See docs/watch.md.
 */
#ifndef VSC_CAPTURE_WATCH_SOURCE_H
#define VSC_CAPTURE_WATCH_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define WATCH_MAX_REQUESTS 16
#define WATCH_DEFAULT_RING (16u << 20) /* bytes of BPF ring buffer */

/* How accesses are seen (--watch-by): hardware breakpoints where they
 * fire, else pages (x86-64: page protection and single steps); or one of
 * them, whatever the machine does. */
enum watch_by {
	WATCH_BY_AUTO = 0,
	WATCH_BY_BREAKPOINTS,
	WATCH_BY_PAGES,
};

struct watch_opts {
	size_t sz;
	const char *const *watch; /* "SYMBOL[:SIZE]" or "ADDR[:SIZE]" */
	size_t watch_count;
	pid_t pid;          /* -p PID, or 0 */
	char *const *argv;  /* -- CMD ARGS (NULL-terminated), or NULL */
	const char *output; /* path, "-" for stdout; NULL: "-" */
	double duration_s;  /* stop after this long; 0: no limit */
	size_t ring_size;   /* bytes; 0: default */
	int stop_signal;    /* for a command still running at the stop; 0: none */
	bool no_timestamps;
	bool no_locations; /* leave out the trailing location comments */
	bool verbose;      /* libbpf messages */
	int watch_by;      /* enum watch_by */
};

/* Record; returns the exit status for `vsc record` (0 recorded, 2 refused
 * or bad usage with a message on stderr, 1 recording failed midway). */
int watch_record(const struct watch_opts *opts);

/* How many hardware watchpoints this machine has (4 on x86-64; read from
 * the kernel on ARM64). */
int watch_slot_limit(void);

#endif /* VSC_CAPTURE_WATCH_SOURCE_H */
