/* SPDX-License-Identifier: MIT */
/*
 * Memory the target shares with processes outside the recording, for both
 * recorders. A store another process makes into an object the target maps
 * MAP_SHARED (a shm_open or /dev/shm file, a regular file, a memfd passed
 * over a socket, System V shared memory, an anonymous shared mapping a
 * descendant kept after exec or after its parent ended) passes no probe of
 * ours: the target then reads values the trace never wrote, and a correct
 * program can look inconsistent. So while it records, the recorder looks
 * at the target's shared mappings (`/proc/PID/maps`: an `s` in the
 * permissions, by device and inode) and at every other process's
 * writable shared mappings of the same objects; each object found so is
 * counted in `# uncertain memory: N` with a line saying who
 * (docs/format.md), and vsc check gives no plain verdict.
 *
 * Cheap where nothing is shared: one read of the target's maps per scan;
 * the other processes are read only while the target maps something shared
 * that nobody was found writing yet. Memory: the target's shared objects of
 * the last scan (arrays reused), the flagged objects and one reason line.
 */
#ifndef VSC_CAPTURE_SHARED_MAPS_H
#define VSC_CAPTURE_SHARED_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trace_writer;

/* One object the target maps shared: its device and inode. */
struct shared_object {
	uint32_t major, minor;
	uint64_t inode;
	uint64_t start;   /* where the target maps it (its first mapping) */
	uint32_t vmas;    /* mappings of it: the target's, then everyone's */
	int64_t attaches; /* System V: nattch before the sweep; else -1 */
	char path[160];   /* as /proc/PID/maps names it */
};

struct shared_watch {
	int pid; /* the target */
	/* we started it (-- CMD): its anonymous shared memory is its own and
	 * its children's (flag_unchecked()) */
	bool launched;
	struct shared_object *objects; /* shared by the target, not flagged yet */
	size_t count, cap;
	struct shared_object *flagged; /* written from outside: counted */
	size_t flagged_count, flagged_cap;
	uint64_t unremembered; /* flagged, but no memory to hold them */
	char first_why[512];   /* the first finding, for the header and stderr */
	char *buf;             /* a maps file, read whole (reused) */
	size_t buf_cap;
	uint64_t sweep_after;             /* CLOCK_MONOTONIC ns: not before */
	uint64_t scans, sweeps, sweep_ns; /* -v: how often, how long */
};

void shared_watch_init(struct shared_watch *sw, int pid, bool launched);
void shared_watch_free(struct shared_watch *sw);
/* Look (the target's maps; others' while something is unflagged). now:
 * sweep the others even if the last sweep was recent (the start, the end);
 * else a sweep waits for SWEEP_SHARE times the last one's length. */
void shared_watch_scan(struct shared_watch *sw, bool now);
/* Objects that processes outside the recording write, or may write (their
 * maps could not be read). */
uint64_t shared_watch_uncertain(const struct shared_watch *sw);
/* `# uncertain memory: N` and the reason line, when N > 0. */
void shared_watch_notes(const struct shared_watch *sw, struct trace_writer *w);

#endif /* VSC_CAPTURE_SHARED_MAPS_H */
