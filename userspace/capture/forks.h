/* SPDX-License-Identifier: MIT */
/*
 * Children of the target (bpf/forks.bpf.h), for both recorders (the probe
 * path and --watch): a process the target forks runs its code in a copy of
 * its memory until it runs exec, unrecorded, and a MAP_SHARED mapping is
 * the parent's memory too. Those that did not run exec make the loss
 * inexact, with this reason, so vsc check gives no plain verdict.
 */
#ifndef VSC_CAPTURE_FORKS_H
#define VSC_CAPTURE_FORKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bpf_link;
struct bpf_program;

struct fork_watch {
	struct bpf_link *links[2]; /* sched_process_fork, sched_process_exec */
	bool unwatched;            /* a hook did not attach: children unseen */
	/* With -p: processes of the program's family that run its code (its
	 * executable, so no exec since the fork, as far as anyone can tell)
	 * and were forked before the recording began; -1: /proc unreadable. */
	int64_t before_start;
};

void fork_watch_attach(struct fork_watch *fw, struct bpf_program *on_fork,
		       struct bpf_program *on_exec);
void fork_watch_detach(struct fork_watch *fw);
/* With -p, once the hooks are attached: count the descendants of pid that
 * run its executable (forked before the recording, not seen by the hooks). */
void fork_watch_count_existing(struct fork_watch *fw, int pid);
/* Whether [addr, addr + len) of process pid lies in a shared mapping (a
 * forked child can write it): 1, 0, or a negative errno. */
int fork_watch_shared(int pid, uint64_t addr, uint64_t len);
/* Whether the loss is known exactly as far as children go. */
bool fork_watch_exact(const struct fork_watch *fw, uint64_t unrecorded);
/* The reason, appended at buf + n (after "; " when n > 0); the new n. */
int fork_watch_why(const struct fork_watch *fw, uint64_t unrecorded, char *buf, size_t len, int n);

#endif /* VSC_CAPTURE_FORKS_H */
