/* SPDX-License-Identifier: MIT */
/*
 * Writes into the target's shared objects by system calls, for the
 * shared-memory watch (shared_maps.h). A process may change a file the
 * target maps shared without mapping it: write, pwrite, truncate,
 * copy_file_range, splice into it; no look at anyone's maps shows that.
 * The kernel says so (inotify IN_MODIFY) for every such change by anyone,
 * the target included (its own write into memory it maps is a store no
 * probe saw either). Each object is watched through the target's
 * /proc/PID/map_files link (a deleted file, a memfd, /dev/shm, System V
 * and anonymous shared memory alike: root may write any of them through
 * such a link), or by its name where that link is not ours to follow.
 * Stores through a mapping raise no event (the maps show the mapping).
 * Nor does a write through a descriptor the kernel made without a name
 * (memfd_create's own, passed over a socket: a pseudo file, which
 * notifies nobody).
 *
 * Cheap: one inotify descriptor, one watch per object, one non-blocking
 * read per look.
 */
#ifndef VSC_CAPTURE_SHARED_NOTIFY_H
#define VSC_CAPTURE_SHARED_NOTIFY_H

#include <stdint.h>

struct shared_notify {
	int fd; /* inotify, or -1 until the first watch */
};

void shared_notify_init(struct shared_notify *n);
void shared_notify_close(struct shared_notify *n);
/* The object pid maps at [start, end), named path in its maps, of
 * device major:minor and inode ino. */
struct shared_notify_object {
	int pid;
	uint64_t start, end;
	const char *path;
	uint32_t major, minor;
	uint64_t inode;
};
/* Watch it: its watch descriptor, or -errno (-ENOENT: no longer mapped
 * there, or the name leads elsewhere). */
int shared_notify_add(struct shared_notify *n, const struct shared_notify_object *o);

/* What the events since the last call say. */
struct shared_notify_sink {
	void (*modified)(void *ctx, int wd); /* the object of wd was written */
	void (*gone)(void *ctx, int wd);     /* wd watches nothing any more */
	void (*overflow)(void *ctx);         /* events were dropped: any may be */
	void *ctx;
};
/* Take every pending event: 0, or -errno (then the events are not known). */
int shared_notify_read(struct shared_notify *n, const struct shared_notify_sink *sink);

#endif /* VSC_CAPTURE_SHARED_NOTIFY_H */
