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
 * writable shared mappings of the same objects, and has the kernel say
 * when one is written by a system call (shared_notify.h); each object
 * found so is suspect; each suspect object that some recorded address falls in is
 * counted in `# uncertain memory: N` with a line saying who
 * (docs/format.md), and vsc check gives no plain verdict. An object no
 * recorded access touches changes no value of the trace (glibc's
 * read-only shared gconv-modules.cache, mapped by setlocale, while a
 * process's maps cannot be read): not counted.
 *
 * Cheap where nothing is shared: one read of the target's maps per scan;
 * the other processes are read only while the target maps something shared
 * that is not suspect yet. Memory: every object the target mapped shared
 * during the recording with the ranges where it was mapped (about 250
 * bytes each), and the pages of the recorded addresses (a hash set: about
 * 30 bytes per page).
 */
#ifndef VSC_CAPTURE_SHARED_MAPS_H
#define VSC_CAPTURE_SHARED_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shared_notify.h"
#include "userspace/util/hash.h"

struct trace_writer;

/* Where the target mapped an object: [start, end). */
struct shared_range {
	uint64_t start, end;
};

/* One object the target maps, or mapped, shared: its device and inode. */
struct shared_object {
	uint32_t major, minor;
	uint64_t inode;
	uint64_t start;       /* where the target mapped it first */
	uint32_t vmas;        /* mappings of it in this sweep: the target's, then everyone's */
	int64_t attaches;     /* System V: nattch before the sweep; else -1 */
	bool mapped;          /* in the target's maps at the last scan */
	bool range_lost;      /* a range could not be kept: counts as recorded in */
	uint64_t suspect;     /* 0, or 1 + the order it was found written from outside */
	int wd;               /* its inotify watch (shared_notify.h), or -1 */
	bool syscall_written; /* the kernel said a system call wrote it */
	bool unnamed;         /* suspect only for maps that cannot be read */
	bool may_write;       /* at some look, a shared mapping of it by anyone
			       * could write it (the kernel's count), or not known */
	struct shared_range *ranges; /* every range the target mapped it at */
	size_t range_count, range_cap;
	char path[160]; /* as /proc/PID/maps names it */
	char *why;      /* the finding that made it suspect (malloc'd) */
};

/* Who mapped an object writable and shared during the recording, seen at
 * the mmap or shmat (the capture source's kernel hook): a mapping made
 * and dropped between two looks at the maps shows there. */
struct shared_mappers {
	/* 1 and *pid, 0 none seen, -ENOSPC not known (too many), -errno */
	int (*lookup)(void *ctx, uint32_t major, uint32_t minor, uint64_t inode, bool sysv,
		      uint32_t *pid);
	/* How many shared mappings of the file, by anyone, may write it now
	 * (the kernel's count; foreign.h), or -errno: not known. NULL: not
	 * known. */
	int (*writable)(void *ctx, uint32_t major, uint32_t minor, uint64_t inode);
	void *ctx;
};

struct shared_watch {
	int pid;                       /* the target */
	struct shared_mappers mappers; /* lookup NULL: no such hook */
	/* we started it (-- CMD): its anonymous shared memory is its own and
	 * its children's (flag_unchecked()) */
	bool launched;
	struct shared_object *objects; /* every object the target mapped shared */
	size_t count, cap;
	uint64_t suspects;     /* objects found written (or not known) from outside */
	uint64_t untracked;    /* objects that could not be held (no memory): counted */
	struct hash_map pages; /* the pages of the recorded addresses (uint64_t) */
	bool pages_lost;       /* one could not be held: every suspect counts */
	/* every range (struct shared_range) the target's maps showed, private
	 * or shared: a recorded page in none of them was in a mapping no look
	 * saw (made and dropped between two looks, or after the last one), so
	 * every suspect object counts (shared_watch_uncertain()) */
	struct hash_map known;
	bool known_lost;             /* one could not be held: the same */
	size_t known_compacted;      /* how many were left at the last joining */
	struct shared_notify notify; /* writes by system calls */
	char *buf;                   /* a maps file, read whole (reused) */
	size_t buf_cap;
	uint64_t sweep_after;             /* CLOCK_MONOTONIC ns: not before */
	uint64_t scans, sweeps, sweep_ns; /* -v: how often, how long */
	uint64_t syscall_written;         /* -v: objects written by system calls */
};

void shared_watch_init(struct shared_watch *sw, int pid, bool launched);
void shared_watch_free(struct shared_watch *sw);
/* Look (the target's maps; others' while something is not suspect). now:
 * sweep the others even if the last sweep was recent (the start, the end);
 * else a sweep waits for SWEEP_SHARE times the last one's length. */
void shared_watch_scan(struct shared_watch *sw, bool now);
/* The trace holds an access to [addr, addr + size) (called when a
 * variable is first named: each address at least once). */
void shared_watch_recorded(struct shared_watch *sw, uint64_t addr, uint32_t size);
/* Whether a recorded address falls in a range where the target mapped o. */
bool shared_watch_holds_recorded(const struct shared_watch *sw, const struct shared_object *o);
/* Objects that processes outside the recording write, or may write (their
 * maps could not be read), and that a recorded address falls in. */
uint64_t shared_watch_uncertain(const struct shared_watch *sw);
/* The reason of the first of them, or NULL. */
const char *shared_watch_why(const struct shared_watch *sw);
/* `# uncertain memory: N` and the reason line, when N > 0. */
void shared_watch_notes(const struct shared_watch *sw, struct trace_writer *w);

#endif /* VSC_CAPTURE_SHARED_MAPS_H */
