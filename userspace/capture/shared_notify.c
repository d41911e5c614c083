/* SPDX-License-Identifier: MIT */
/* Writes into shared objects by system calls (see shared_notify.h). */
#include "shared_notify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

void shared_notify_init(struct shared_notify *n)
{
	n->fd = -1;
}

void shared_notify_close(struct shared_notify *n)
{
	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
}

/* By its name in the maps, when that still names it (not deleted, not
 * replaced since): a watch descriptor or -errno. */
static int add_by_name(struct shared_notify *n, const struct shared_notify_object *o)
{
	struct stat st;
	int wd;

	if (o->path[0] != '/' || strstr(o->path, " (deleted)"))
		return -ENOENT;
	if (stat(o->path, &st) || st.st_ino != o->inode || st.st_dev != makedev(o->major, o->minor))
		return -ENOENT;
	wd = inotify_add_watch(n->fd, o->path, IN_MODIFY);
	return wd < 0 ? -errno : wd;
}

int shared_notify_add(struct shared_notify *n, const struct shared_notify_object *o)
{
	char link[96];
	int wd;

	if (n->fd < 0 && (n->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0) {
		n->fd = -1;
		return -errno;
	}
	/* the link leads to the object itself, whatever its name */
	snprintf(link, sizeof(link), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, o->pid, o->start,
		 o->end);
	wd = inotify_add_watch(n->fd, link, IN_MODIFY);
	if (wd >= 0)
		return wd;
	/* following it needs CAP_SYS_ADMIN (or CAP_CHECKPOINT_RESTORE) */
	if (errno == EPERM || errno == EACCES) {
		int err = -errno;
		wd = add_by_name(n, o);
		return wd == -ENOENT ? err : wd;
	}
	return -errno;
}

int shared_notify_read(struct shared_notify *n, const struct shared_notify_sink *sink)
{
	/* as inotify(7) asks: aligned for struct inotify_event */
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

	if (n->fd < 0)
		return 0;
	for (;;) {
		ssize_t len = read(n->fd, buf, sizeof(buf));
		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0)
			return errno == EAGAIN ? 0 : -errno;
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *e = (const struct inotify_event *)p;
			if (e->mask & IN_Q_OVERFLOW)
				sink->overflow(sink->ctx);
			else if (e->mask & IN_MODIFY)
				sink->modified(sink->ctx, e->wd);
			if (e->mask & IN_IGNORED)
				sink->gone(sink->ctx, e->wd);
			p += sizeof(*e) + e->len;
		}
	}
}
