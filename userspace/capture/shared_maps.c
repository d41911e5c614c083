/* SPDX-License-Identifier: MIT */
/* Memory shared with processes outside the recording (see shared_maps.h). */
#include "shared_maps.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_writer.h"
#include "userspace/util/array.h"
#include "userspace/util/clock.h"

/* A sweep of /proc costs about 40 us of system time per process (333
 * processes: 12 ms); the next one waits at least this many times as long
 * (a twentieth of a CPU at most, on a machine with many processes). */
#define SWEEP_SHARE 20

/* The fields of one line of /proc/PID/maps that matter here. */
struct map_line {
	uint64_t start, end;
	char perms[5];
	uint32_t major, minor;
	uint64_t inode;
	const char *path; /* to the line's end ('\0') */
};

void shared_watch_init(struct shared_watch *sw, int pid, bool launched)
{
	*sw = (struct shared_watch){ .pid = pid, .launched = launched };
	hash_map_init(&sw->pages, sizeof(uint64_t), 0);
	hash_map_init(&sw->known, sizeof(struct shared_range), 0);
	shared_notify_init(&sw->notify);
}

void shared_watch_free(struct shared_watch *sw)
{
	for (size_t i = 0; i < sw->count; i++) {
		free(sw->objects[i].ranges);
		free(sw->objects[i].why);
	}
	free(sw->objects);
	hash_map_free(&sw->pages);
	hash_map_free(&sw->known);
	shared_notify_close(&sw->notify);
	free(sw->buf);
	*sw = (struct shared_watch){ 0 };
}

/* The whole of a /proc file into sw->buf ('\0'-terminated): its length,
 * or -errno. Such files must be read in one go of reads. */
static ssize_t read_whole(struct shared_watch *sw, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		if (ARRAY_RESERVE(sw->buf, sw->buf_cap, len + 65536 + 1)) {
			close(fd);
			return -ENOMEM;
		}
		ssize_t n = read(fd, sw->buf + len, sw->buf_cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;
			close(fd);
			return err;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	sw->buf[len] = '\0';
	return (ssize_t)len;
}

/* "start-end perms offset major:minor inode   path": false when the line
 * is not one. */
static bool parse_line(char *s, struct map_line *m)
{
	char *p;

	m->start = strtoull(s, &p, 16);
	if (*p != '-')
		return false;
	m->end = strtoull(p + 1, &p, 16);
	if (*p != ' ' || strlen(p) < 6)
		return false;
	memcpy(m->perms, p + 1, 4);
	m->perms[4] = '\0';
	strtoull(p + 6, &p, 16); /* offset */
	m->major = (uint32_t)strtoul(p, &p, 16);
	if (*p != ':')
		return false;
	m->minor = (uint32_t)strtoul(p + 1, &p, 16);
	m->inode = strtoull(p, &p, 10);
	while (*p == ' ')
		p++;
	m->path = p;
	return true;
}

/* Whether a maps line is a shared mapping ("start-end rw-s ..."), looked
 * at before the line is parsed: most lines are private. */
static bool shared_line(const char *s)
{
	const char *sp = strchr(s, ' ');
	return sp && sp[1] && sp[2] && sp[3] && sp[4] == 's';
}

/* An object other processes could share with the target: a file, shared
 * memory (shm_open, memfd, SysV, anonymous shared). Not a device (a
 * driver hands each open its own memory), not an anonymous inode (one
 * inode for all of them: perf rings, BPF maps, io_uring). */
static bool shareable(const struct map_line *m)
{
	const char *p = m->path;

	if (m->perms[3] != 's')
		return false;
	if (!strncmp(p, "/SYSV", 5))
		return true; /* its inode is its shmid, which may be 0 */
	if (m->inode == 0)
		return false;
	if (!strncmp(p, "/dev/", 5))
		return !strncmp(p, "/dev/shm/", 9) || !strncmp(p, "/dev/zero", 9) ||
		       !strncmp(p, "/dev/hugepages/", 15);
	if (*p == '[')
		return !strncmp(p, "[anon_shmem:", 12);
	return *p == '/';
}

static struct shared_object *find(struct shared_watch *sw, const struct map_line *m)
{
	for (size_t i = 0; i < sw->count; i++) {
		struct shared_object *o = &sw->objects[i];
		if (o->inode == m->inode && o->major == m->major && o->minor == m->minor)
			return o;
	}
	return NULL;
}

/* ---- the recorded addresses ---------------------------------------------- */

/* Pages, not addresses: mappings begin and end on page boundaries, and a
 * program's variables share few pages. 4096 divides every page size. */
#define PAGE_SHIFT 12
/* An access is at most this long: a variable's first access may be
 * shorter than a later one at the same address. */
#define ACCESS_MAX 16

static bool page_recorded(const struct shared_watch *sw, uint64_t page)
{
	return hash_map_find(&sw->pages, &page) >= 0;
}

/* Whether a recorded address falls in r: by its pages or by the set's,
 * whichever are fewer. */
static bool range_recorded(const struct shared_watch *sw, const struct shared_range *r)
{
	uint64_t first = r->start >> PAGE_SHIFT, last = (r->end - 1) >> PAGE_SHIFT;

	if (sw->pages_lost)
		return true;
	if (last - first < sw->pages.count) {
		for (uint64_t p = first; p <= last; p++)
			if (page_recorded(sw, p))
				return true;
		return false;
	}
	for (size_t i = 0; i < sw->pages.count; i++) {
		const uint64_t *p = hash_map_key_at(&sw->pages, i);
		if (*p >= first && *p <= last)
			return true;
	}
	return false;
}

void shared_watch_recorded(struct shared_watch *sw, uint64_t addr, uint32_t size)
{
	uint64_t end = addr + (size > ACCESS_MAX ? size : ACCESS_MAX);

	if (end < addr)
		end = UINT64_MAX;
	for (uint64_t p = addr >> PAGE_SHIFT; p <= (end - 1) >> PAGE_SHIFT; p++)
		if (!hash_map_put(&sw->pages, &p, NULL))
			sw->pages_lost = true; /* not held: every object counts */
}

static int by_start(const void *a, const void *b)
{
	const struct shared_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* r[0, n) sorted by start, overlapping ones (looks apart) joined: how
 * many are left. */
static size_t join_ranges(struct shared_range *r, size_t n)
{
	size_t m = 0;

	qsort(r, n, sizeof(*r), by_start);
	for (size_t k = 0; k < n; k++) {
		if (m && r[k].start <= r[m - 1].end) {
			if (r[k].end > r[m - 1].end)
				r[m - 1].end = r[k].end;
		} else {
			r[m++] = r[k];
		}
	}
	return m;
}

/* Whether r[0, n) (join_ranges()) covers page p. */
static bool covered(const struct shared_range *r, size_t n, uint64_t p)
{
	uint64_t at = p << PAGE_SHIFT;
	size_t lo = 0, hi = n;

	while (lo < hi) { /* the first range that starts above at */
		size_t mid = lo + (hi - lo) / 2;
		if (r[mid].start <= at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && r[lo - 1].end > at;
}

/* Whether some recorded page lies in no range any look saw the target map
 * (or that is not known): a mapping no look saw held it, perhaps of a
 * suspect object (the target mapped it again elsewhere, and dropped it or
 * ended before the next look). Asked at the end. */
/* The known ranges, joined, into a new array (*n of them); NULL when
 * there is no memory. */
static struct shared_range *known_joined(const struct shared_watch *sw, size_t *n)
{
	struct shared_range *r = malloc((sw->known.count ? sw->known.count : 1) * sizeof(*r));

	if (!r)
		return NULL;
	for (size_t k = 0; k < sw->known.count; k++)
		r[k] = *(const struct shared_range *)hash_map_key_at(&sw->known, k);
	*n = join_ranges(r, sw->known.count);
	return r;
}

/* The known ranges kept joined once they have doubled: a target that maps
 * and drops memory all the time (malloc's large blocks) brings new ranges
 * at every look, and the joined ones are as many as its address space has
 * holes. */
static void compact_known(struct shared_watch *sw)
{
	size_t n;
	struct shared_range *r;

	if (sw->known.count <= 2 * sw->known_compacted + 1024 || !(r = known_joined(sw, &n)))
		return;
	hash_map_free(&sw->known);
	hash_map_init(&sw->known, sizeof(struct shared_range), 0);
	for (size_t k = 0; k < n; k++)
		if (!hash_map_put(&sw->known, &r[k], NULL))
			sw->known_lost = true;
	sw->known_compacted = n;
	free(r);
}

static bool recorded_outside_known(const struct shared_watch *sw)
{
	size_t n = 0;
	struct shared_range *r = known_joined(sw, &n);
	bool outside = false;

	if (!r || sw->known_lost || sw->pages_lost) {
		free(r);
		return true;
	}
	for (size_t i = 0; i < sw->pages.count && !outside; i++)
		outside = !covered(r, n, *(const uint64_t *)hash_map_key_at(&sw->pages, i));
	free(r);
	return outside;
}

/* Asked at the end, of suspect objects only: addresses and ranges came in
 * any order, and the many variables cost one insert each. */
bool shared_watch_holds_recorded(const struct shared_watch *sw, const struct shared_object *o)
{
	if (o->range_lost)
		return true;
	for (size_t k = 0; k < o->range_count; k++)
		if (range_recorded(sw, &o->ranges[k]))
			return true;
	return false;
}

/* The target maps o at [start, end): a range not known yet is kept. */
static void add_range(struct shared_object *o, uint64_t start, uint64_t end)
{
	for (size_t k = 0; k < o->range_count; k++)
		if (o->ranges[k].start == start && o->ranges[k].end == end)
			return;
	if (start >= end)
		return;
	if (ARRAY_RESERVE(o->ranges, o->range_cap, o->range_count + 1)) {
		o->range_lost = true; /* not held: counted as if touched */
		return;
	}
	o->ranges[o->range_count++] = (struct shared_range){ start, end };
}

/* ---- the maps ---------------------------------------------------------------- */

/* Call line(sw, m, pid) for every shared line of /proc/PID/maps (every
 * line: all_lines); 0 or -errno. */
static int each_line(struct shared_watch *sw, int pid, bool all_lines,
		     void (*line)(struct shared_watch *, const struct map_line *, int))
{
	char path[64];
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	len = read_whole(sw, path);
	if (len < 0)
		return (int)len;
	for (char *s = sw->buf, *nl; *s; s = nl + 1) {
		struct map_line m;
		nl = strchr(s, '\n');
		if (!nl)
			nl = s + strlen(s) - 1; /* the last line, unterminated */
		else
			*nl = '\0';
		if ((all_lines || shared_line(s)) && parse_line(s, &m))
			line(sw, &m, pid);
	}
	return 0;
}

static void flag(struct shared_watch *sw, struct shared_object *o, const char *why);

/* Have the kernel say when o is written by a system call; an object that
 * cannot be watched so is suspect. */
static void watch_writes(struct shared_watch *sw, struct shared_object *o, const struct map_line *m)
{
	struct shared_notify_object at = { .pid = sw->pid,
					   .start = m->start,
					   .end = m->end,
					   .path = m->path,
					   .major = m->major,
					   .minor = m->minor,
					   .inode = m->inode };
	char why[512];
	int wd = shared_notify_add(&sw->notify, &at);

	if (wd >= 0 || wd == -ENOENT) {
		o->wd = wd < 0 ? -1 : wd; /* gone meanwhile: the next look tries again */
		return;
	}
	snprintf(
		why, sizeof(why),
		"whether %.160s (device %x:%x, inode %" PRIu64
		") is written by system calls (write, truncate) cannot be watched (inotify: %.60s)",
		o->path, o->major, o->minor, o->inode, strerror(-wd));
	flag(sw, o, why);
}

/* The target's shared objects: new ones are added, each is mapped now. */
static void target_line(struct shared_watch *sw, const struct map_line *m, int pid)
{
	struct shared_object *o;

	(void)pid;
	if (m->start < m->end) {
		struct shared_range r = { m->start, m->end };
		if (!hash_map_put(&sw->known, &r, NULL))
			sw->known_lost = true;
	}
	if (!shareable(m))
		return;
	if (!(o = find(sw, m))) {
		if (ARRAY_RESERVE(sw->objects, sw->cap, sw->count + 1)) {
			sw->untracked++; /* out of memory: counted, as not known */
			return;
		}
		o = &sw->objects[sw->count++];
		*o = (struct shared_object){ .major = m->major,
					     .minor = m->minor,
					     .inode = m->inode,
					     .start = m->start,
					     .wd = -1 };
		snprintf(o->path, sizeof(o->path), "%s", m->path);
	}
	o->mapped = true;
	o->vmas++;
	add_range(o, m->start, m->end);
	if (o->wd < 0 && !o->suspect)
		watch_writes(sw, o, m);
}

/* Watched in a sweep: mapped by the target now, not suspect yet. */
static bool watched(const struct shared_object *o)
{
	return o->mapped && !o->suspect;
}

static size_t watched_count(const struct shared_watch *sw)
{
	size_t n = 0;
	for (size_t i = 0; i < sw->count; i++)
		n += watched(&sw->objects[i]);
	return n;
}

static void process_name(int pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	buf[0] = '\0';
	f = fopen(path, "re");
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

/* Object o is written from outside (or may be): it is suspect, with that
 * reason; the order of the findings picks the first for the header. */
static void flag(struct shared_watch *sw, struct shared_object *o, const char *why)
{
	o->suspect = ++sw->suspects;
	o->why = strdup(why); /* NULL: the count stands, the reason is lost */
}

/* A line of another process: a writable shared mapping of a watched object
 * flags it; any mapping of it counts (System V attaches). */
static void other_line(struct shared_watch *sw, const struct map_line *m, int pid)
{
	struct shared_object *o = find(sw, m);
	char name[64], why[512];

	if (!o || !watched(o))
		return;
	o->vmas++;
	if (m->perms[1] != 'w' || m->perms[3] != 's')
		return;
	process_name(pid, name, sizeof(name));
	snprintf(why, sizeof(why),
		 "pid %d (%.63s) maps %.160s (device %x:%x, inode %" PRIu64
		 ") writable and shared, as the target does at 0x%" PRIx64
		 "; its stores are not recorded",
		 pid, name, o->path, o->major, o->minor, o->inode, o->start);
	flag(sw, o, why);
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev;
}

/* /proc/sysvipc/shm into sw->buf, as the target's IPC namespace has it:
 * the file lists the reader's namespace, and ids repeat across them (a
 * target in a container would get another segment's count). A target in
 * another namespace is read from inside it, entered for the read by this
 * thread only. Its length, or -errno (then no count is taken). */
static ssize_t read_segments(struct shared_watch *sw)
{
	char path[64];
	struct stat ours, theirs;
	ssize_t len;
	int fd, own;

	snprintf(path, sizeof(path), "/proc/%d/ns/ipc", sw->pid);
	if (stat("/proc/thread-self/ns/ipc", &ours) || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(fd, &theirs) == 0 && same_file(&ours, &theirs)) {
		close(fd);
		return read_whole(sw, "/proc/sysvipc/shm");
	}
	own = open("/proc/thread-self/ns/ipc", O_RDONLY | O_CLOEXEC);
	if (own < 0 || setns(fd, CLONE_NEWIPC)) {
		len = -errno;
	} else {
		len = read_whole(sw, "/proc/sysvipc/shm");
		/* back (if that fails, the next read finds this one "ours") */
		(void)setns(own, CLONE_NEWIPC);
	}
	if (own >= 0)
		close(own);
	close(fd);
	return len;
}

/* nattch of System V segment shmid (the inode of its mapping), from
 * /proc/sysvipc/shm of the target's IPC namespace; -1 when it is not
 * there or cannot be read. */
static int64_t sysv_attaches(struct shared_watch *sw, uint64_t shmid)
{
	if (read_segments(sw) < 0)
		return -1;
	for (char *s = strchr(sw->buf, '\n'); s && s[1]; s = strchr(s + 1, '\n')) {
		unsigned long long id, nattch;
		if (sscanf(s + 1, "%*d %llu %*o %*u %*d %*d %llu", &id, &nattch) == 2 &&
		    id == shmid)
			return (int64_t)nattch;
	}
	return -1;
}

static bool is_sysv(const struct shared_object *o)
{
	return !strncmp(o->path, "/SYSV", 5);
}

/* A System V segment attached more often than every mapping seen in
 * /proc (before and after the sweep, so an attach or a detach meanwhile
 * does not count): a process we could not read holds it. */
static void check_sysv(struct shared_watch *sw)
{
	for (size_t i = 0; i < sw->count; i++) {
		struct shared_object *o = &sw->objects[i];
		if (!watched(o))
			continue;
		int64_t after = is_sysv(o) ? sysv_attaches(sw, o->inode) : -1;
		int64_t least = o->attaches < after ? o->attaches : after;
		char why[512];
		if (after < 0)
			o->attaches = -1; /* gone from the list: not known */
		if (o->attaches < 0 || least <= (int64_t)o->vmas)
			continue;
		snprintf(why, sizeof(why),
			 "System V segment %.160s (shmid %" PRIu64 ") has %" PRId64
			 " attaches, %u of them in processes that could be read",
			 o->path, o->inode, least, o->vmas);
		flag(sw, o, why);
	}
}

/* Anonymous shared memory (MAP_SHARED | MAP_ANONYMOUS, a MAP_SHARED
 * mapping of /dev/zero, MAP_HUGETLB): no name opens it, so only a process
 * forked from the one that mapped it shares it (or one that maps
 * /proc/PID/map_files, or writes through ptrace: not detected, as
 * process_vm_writev is not). */
static bool anonymous(const struct shared_object *o)
{
	return !strncmp(o->path, "/dev/zero", 9) || !strncmp(o->path, "[anon_shmem:", 12) ||
	       !strncmp(o->path, "/anon_hugepage", 14);
}

/* Whether a process whose maps cannot be read may share o. A launched
 * target's anonymous shared memory was mapped after its exec, by it (exec
 * leaves none): only its children share it, and the fork watch counts
 * every child that runs the program's code (forks.h), so it needs no
 * look. With -p it may come from a parent forked before. */
static bool may_share_unseen(const struct shared_watch *sw, const struct shared_object *o)
{
	return !(sw->launched && anonymous(o));
}

/* Whether the kernel says no shared mapping of o, by anyone, may write
 * it now (foreign.h): a process whose maps cannot be read then does not
 * write it through one either, and a mapping made after this look is
 * seen by the hook on mmap (the lookup). Not System V (check_sysv). */
static bool none_may_write(const struct shared_watch *sw, const struct shared_object *o)
{
	return sw->mappers.writable && sw->mappers.lookup && !is_sysv(o) &&
	       sw->mappers.writable(sw->mappers.ctx, o->major, o->minor, o->inode) == 0;
}

/* A process whose maps cannot be read (another user namespace's, a
 * supervisor with more capabilities than ours) may map any object still
 * watched that it can share (may_share_unseen()): each counts, with that
 * reason. Not a System V segment whose attaches were all found
 * (check_sysv): nattch is the kernel's count; nor an object no shared
 * mapping may write at this look (none_may_write()): a file the target
 * maps read-only, which everyone else maps read-only or privately. */
static void flag_unchecked(struct shared_watch *sw, int pid, int err)
{
	char name[64] = "", why[512];

	if (pid > 0)
		process_name(pid, name, sizeof(name));
	for (size_t i = 0; i < sw->count; i++) {
		struct shared_object *o = &sw->objects[i];
		if (!watched(o) || (is_sysv(o) && o->attaches >= 0) || !may_share_unseen(sw, o) ||
		    none_may_write(sw, o))
			continue;
		snprintf(why, sizeof(why),
			 "the maps of pid %d (%.63s) cannot be read (%.40s), so whether it "
			 "writes %.160s is not known",
			 pid, name, strerror(-err), o->path);
		flag(sw, o, why);
		o->unnamed = true;
	}
}

/* Every other process's maps, against the watched objects. */
static void sweep(struct shared_watch *sw)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	uint64_t t0 = clock_now_ns();
	int unreadable = 0, unreadable_err = 0;

	if (!d) {
		flag_unchecked(sw, 0, -errno);
		return;
	}
	for (size_t i = 0; i < sw->count; i++) {
		struct shared_object *o = &sw->objects[i];
		o->attaches = watched(o) && is_sysv(o) ? sysv_attaches(sw, o->inode) : -1;
	}
	while ((e = readdir(d)) && watched_count(sw)) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		int err;
		if (*end || pid <= 0 || pid == sw->pid)
			continue;
		err = each_line(sw, (int)pid, false, other_line);
		if (err && err != -ENOENT && err != -ESRCH && !unreadable) {
			unreadable = (int)pid; /* vanished processes do not count */
			unreadable_err = err;
		}
	}
	closedir(d);
	check_sysv(sw);
	if (unreadable)
		flag_unchecked(sw, unreadable, unreadable_err);
	uint64_t took = clock_now_ns() - t0;
	sw->sweeps++;
	sw->sweep_ns += took;
	sw->sweep_after = t0 + SWEEP_SHARE * took;
}

/* ---- writes by system calls --------------------------------------------------- */

static struct shared_object *watched_by(struct shared_watch *sw, int wd)
{
	for (size_t i = 0; i < sw->count; i++)
		if (sw->objects[i].wd == wd)
			return &sw->objects[i];
	return NULL;
}

static void modified(void *ctx, int wd)
{
	struct shared_watch *sw = ctx;
	struct shared_object *o = watched_by(sw, wd);
	char why[512];

	if (!o)
		return;
	sw->syscall_written += !o->syscall_written;
	o->syscall_written = true;
	if (o->suspect)
		return;
	snprintf(why, sizeof(why),
		 "%.160s (device %x:%x, inode %" PRIu64
		 ") was written by a system call (write, pwrite, truncate: inotify IN_MODIFY; "
		 "the writer is not known) while the target maps it shared at 0x%" PRIx64
		 "; such stores are not recorded",
		 o->path, o->major, o->minor, o->inode, o->start);
	flag(sw, o, why);
}

static void watch_gone(void *ctx, int wd)
{
	struct shared_object *o = watched_by(ctx, wd);

	if (o)
		o->wd = -1;
}

/* Events were dropped (or cannot be read): any watched object may have
 * been written. */
static void overflow(void *ctx)
{
	struct shared_watch *sw = ctx;

	for (size_t i = 0; i < sw->count; i++) {
		struct shared_object *o = &sw->objects[i];
		if (o->wd >= 0 && !o->suspect)
			flag(sw, o,
			     "the kernel's notes of writes by system calls were dropped "
			     "(inotify queue overflow), so whether the object was written is "
			     "not known");
	}
}

static void take_write_events(struct shared_watch *sw)
{
	const struct shared_notify_sink sink = {
		.modified = modified, .gone = watch_gone, .overflow = overflow, .ctx = sw
	};

	if (shared_notify_read(&sw->notify, &sink))
		overflow(sw);
}

/* ---- mappings seen as they were made ------------------------------------------ */

/* Objects a shared mapping may write at this look, by the kernel's count
 * (none_may_write()), or not known (System V: no count; one the target no
 * longer maps: the count is read through its mappings): kept, for an
 * mprotect whose mappings could not be looked at (check_mappers()). */
static void note_may_write(struct shared_watch *sw)
{
	for (size_t i = 0; i < sw->count; i++) {
		struct shared_object *o = &sw->objects[i];
		if (!o->suspect && !o->may_write && !none_may_write(sw, o))
			o->may_write = true;
	}
}

/* Objects the hook saw mapped writable and shared by another process
 * (the maps need not show it any more). One already suspect only because
 * some maps cannot be read gets the writer as its reason. */
static void check_mappers(struct shared_watch *sw)
{
	char name[64], why[512];

	for (size_t i = 0; sw->mappers.lookup && i < sw->count; i++) {
		struct shared_object *o = &sw->objects[i];
		uint32_t pid = 0;
		if (!watched(o) && !(o->mapped && o->unnamed))
			continue;
		int found = sw->mappers.lookup(sw->mappers.ctx, o->major, o->minor, o->inode,
					       is_sysv(o), &pid);
		if (found == 0 || (found == 1 && (int)pid == sw->pid) || (o->unnamed && found != 1))
			continue;
		/* an mprotect makes writable only a mapping that may write,
		 * which the kernel counts at each look; one made between two
		 * looks, by mmap, is seen there (found == 1). An object no
		 * such mapping had at any look was not written through it. */
		if (found == -EAGAIN && !o->may_write)
			continue;
		if (found == 1) {
			process_name((int)pid, name, sizeof(name));
			snprintf(why, sizeof(why),
				 "pid %u (%.63s) mapped %.160s (device %x:%x, inode %" PRIu64
				 ") writable and shared during the recording (seen at its "
				 "mmap or shmat, or at an mprotect that made it writable; it "
				 "may have dropped it since), as the target "
				 "does at 0x%" PRIx64 "; its stores are not recorded",
				 pid, name, o->path, o->major, o->minor, o->inode, o->start);
			if (o->unnamed) { /* a writer seen: the better reason */
				free(o->why);
				o->why = strdup(why);
				o->unnamed = false;
				continue;
			}
		} else if (found == -EAGAIN) {
			process_name((int)pid, name, sizeof(name));
			snprintf(why, sizeof(why),
				 "who mapped %.160s writable and shared during the recording is "
				 "not known (an mprotect's mappings could not be looked at: "
				 "pid %u (%.63s), the last)",
				 o->path, pid, name);
		} else {
			snprintf(why, sizeof(why),
				 "who mapped %.160s writable and shared during the recording is "
				 "not known (%.60s)",
				 o->path,
				 found == -ENOSPC   ? "too many such mappings to remember"
				 : found == -EFAULT ? "a 32-bit mmap's arguments could not be read"
						    : strerror(-found));
		}
		flag(sw, o, why);
	}
}

void shared_watch_scan(struct shared_watch *sw, bool now)
{
	take_write_events(sw);
	for (size_t i = 0; i < sw->count; i++) {
		sw->objects[i].mapped = false;
		sw->objects[i].vmas = 0;
	}
	sw->scans++;
	if (each_line(sw, sw->pid, true, target_line) != 0)
		return;
	compact_known(sw);
	note_may_write(sw);
	check_mappers(sw);
	if (watched_count(sw) && (now || clock_now_ns() >= sw->sweep_after))
		sweep(sw);
}

/* outside: recorded_outside_known(sw), asked once by the caller. */
static bool counted(const struct shared_watch *sw, const struct shared_object *o, bool outside)
{
	return o->suspect && (outside || shared_watch_holds_recorded(sw, o));
}

uint64_t shared_watch_uncertain(const struct shared_watch *sw)
{
	uint64_t n = sw->untracked;
	bool outside = recorded_outside_known(sw);

	for (size_t i = 0; i < sw->count; i++)
		n += counted(sw, &sw->objects[i], outside);
	return n;
}

const char *shared_watch_why(const struct shared_watch *sw)
{
	const struct shared_object *first = NULL;
	bool outside = recorded_outside_known(sw);

	for (size_t i = 0; i < sw->count; i++) {
		const struct shared_object *o = &sw->objects[i];
		if (o->suspect && (!first || o->suspect < first->suspect) &&
		    counted(sw, o, outside))
			first = o;
	}
	if (first)
		return first->why ? first->why : "(the reason could not be kept: no memory)";
	return sw->untracked ? "objects the target maps shared could not be watched (no memory)"
			     : NULL;
}

void shared_watch_notes(const struct shared_watch *sw, struct trace_writer *w)
{
	char n[32];
	uint64_t count = shared_watch_uncertain(sw);

	if (!count)
		return;
	snprintf(n, sizeof(n), "%" PRIu64, count);
	trace_writer_note(w, "uncertain memory", n);
	trace_writer_note(w, "written outside the recording", shared_watch_why(sw));
}
