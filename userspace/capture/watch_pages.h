/* SPDX-License-Identifier: MIT */
/*
 * vsc record --watch by pages: where hardware data breakpoints do not fire
 * (a virtual machine that takes them and never traps), the pages that hold
 * the watched variables are protected (PROT_NONE, an mprotect injected into
 * a stopped thread of the target) and every access to them faults. Every
 * thread is traced already (target.h, trace_threads), so the fault stops
 * in the recorder before the program sees it: the other threads are
 * stopped, the page is given its protection back, the faulting thread runs
 * that one instruction (PTRACE_SINGLESTEP), its registers and the watched
 * bytes are taken after it, as a data breakpoint would give them on x86-64
 * (it traps after the access), and the same record the BPF program makes
 * (bpf/watch.h) goes to watch_events.c. Then the page is protected again
 * and every thread goes on. An access to the page outside the watched
 * bytes is stepped over the same way, without a record. x86-64 only.
 * See docs/watch.md, "Where breakpoints do not fire: pages".
 */
#ifndef VSC_CAPTURE_WATCH_PAGES_H
#define VSC_CAPTURE_WATCH_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/watch.h"

struct vsc_target;
struct watch_pages;

/* A record made: the same as the BPF program's (ctx: the caller's). */
typedef int (*watch_pages_emit)(void *ctx, void *rec, size_t size);
/* The instruction that made an access, decoded from the IP after it (to
 * know how many bytes it touched): fills *mem_size (0: not known). */
typedef void (*watch_pages_size_of)(void *ctx, uint64_t ip_after, unsigned *mem_size);

struct watch_pages_stats {
	uint64_t faults;         /* accesses to a protected page stepped over */
	uint64_t outside;        /* ... that touched no watched byte */
	uint64_t not_stopped;    /* a thread that did not stop for a step (loss unknown) */
	uint64_t failed;         /* a step that could not be made (loss unknown) */
	uint64_t calls_again;    /* system calls that met a protected page, run again */
	uint64_t calls_failed;   /* ... that could not be (their EFAULT stands: loss unknown) */
	uint64_t calls_blocked;  /* ... that blocked, not in a futex wait (loss unknown) */
	uint64_t calls_consumed; /* ... that may have consumed what they could not copy */
};

/* slots: the watched variables (1, 2, 4 or 8 aligned bytes each). NULL and
 * errno set when this machine cannot (not x86-64). */
struct watch_pages *watch_pages_new(struct vsc_target *t, const struct watch_slot *slots,
				    size_t count, watch_pages_emit emit,
				    watch_pages_size_of size_of, void *ctx);
void watch_pages_free(struct watch_pages *wp);

/* Protect the pages, the system call injected into thread tid (held by
 * the recorder: stopped, its report taken). Sets the target's on_signal.
 * 0, or -errno with a message said. */
int watch_pages_arm(struct watch_pages *wp, pid_t tid);
/* Give the pages their protection back (the end: every thread stopped or
 * gone), through a held thread that can run one (none: the process is on
 * its way out, nothing runs its code again). */
void watch_pages_disarm(struct watch_pages *wp);
bool watch_pages_armed(const struct watch_pages *wp);

/* The protected pages, for the BPF hooks that see system calls touch or
 * change them: [lo[i], lo[i] + page size), and (map_lo: NULL, or after
 * watch_pages_arm) the start of the mapping each was in. Returns how many. */
size_t watch_pages_ranges(const struct watch_pages *wp, uint64_t *lo, uint64_t *map_lo, size_t max);
/* The BPF side (watch.bpf.c): inject(arg, tid) before a system call of
 * ours, or one of the program's run again by us, in thread tid (0 after
 * it): the hooks pass it over; syscall_failed(arg, tid, &nr): whether the
 * SIGSEGV tid stops with is the hook's word that its system call nr failed
 * with EFAULT (taken: asked once); fault_blocked(arg, tid): whether tid
 * blocked SIGSEGV when it faulted on a protected page (the kernel then
 * unblocked it; taken). */
struct watch_pages_hooks {
	void (*inject)(void *arg, pid_t tid);
	bool (*syscall_failed)(void *arg, pid_t tid, long *nr);
	bool (*fault_blocked)(void *arg, pid_t tid);
	void *arg;
};
void watch_pages_set_hooks(struct watch_pages *wp, const struct watch_pages_hooks *hooks);

const struct watch_pages_stats *watch_pages_stats(const struct watch_pages *wp);

#endif /* VSC_CAPTURE_WATCH_PAGES_H */
