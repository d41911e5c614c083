/* SPDX-License-Identifier: MIT */
/* Children of the target, unrecorded (see forks.h). */
#include "forks.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <bpf/libbpf.h>

#include "userspace/util/array.h"
#include "userspace/util/diag.h"

void fork_watch_attach(struct fork_watch *fw, struct bpf_program *on_fork,
		       struct bpf_program *on_exec)
{
	struct bpf_program *progs[2] = { on_fork, on_exec };

	for (int i = 0; i < 2; i++) {
		fw->links[i] = bpf_program__attach(progs[i]);
		if (fw->links[i])
			continue;
		fw->unwatched = true;
		diag("record",
		     "warning: cannot attach %s (%s): children of the program cannot "
		     "be seen, so the trace gets no plain verdict",
		     bpf_program__section_name(progs[i]), strerror(errno));
	}
}

void fork_watch_detach(struct fork_watch *fw)
{
	for (int i = 0; i < 2; i++) {
		bpf_link__destroy(fw->links[i]);
		fw->links[i] = NULL;
	}
}

/* ---- children forked before a -p recording ------------------------------ */

struct proc_parent {
	int pid, ppid;
};

/* The parent of process pid (field 4 of /proc/PID/stat, after the
 * command's parentheses), or -1. */
static int parent_of(int pid)
{
	char path[64], buf[512];
	FILE *f;
	size_t n;
	const char *close;
	int ppid = -1;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	close = strrchr(buf, ')');
	if (!close || sscanf(close + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

/* Every process and its parent, into *out; 0 or a negative errno. */
static int list_processes(struct proc_parent **out, size_t *count)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t cap = 0;

	*out = NULL;
	*count = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		int ppid;
		if (*end || pid <= 0 || (ppid = parent_of((int)pid)) < 0)
			continue; /* not a process, or gone meanwhile */
		if (ARRAY_RESERVE(*out, cap, *count + 1)) {
			closedir(d);
			return -ENOMEM;
		}
		(*out)[(*count)++] = (struct proc_parent){ (int)pid, ppid };
	}
	closedir(d);
	return 0;
}

static bool same_file(const struct stat *a, int pid)
{
	char path[64];
	struct stat b;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	return stat(path, &b) == 0 && a->st_dev == b.st_dev && a->st_ino == b.st_ino;
}

static bool listed(const int *pids, size_t n, int pid)
{
	for (size_t i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* Of pid's descendants (sweeps over the list until none joins: parents
 * come in no particular order; a family is small), those that run the
 * executable exe. procs[i].ppid becomes -1 once it joined. */
static int64_t count_running_copies(struct proc_parent *procs, size_t n, int pid,
				    const struct stat *exe)
{
	int *family = NULL;
	size_t count = 0, cap = 0;
	int64_t copies = 0;
	bool joined = true;

	if (ARRAY_RESERVE(family, cap, 1))
		return -1;
	family[count++] = pid;
	while (joined) {
		joined = false;
		for (size_t i = 0; i < n; i++) {
			if (procs[i].ppid < 0 || procs[i].pid == pid ||
			    !listed(family, count, procs[i].ppid))
				continue;
			if (ARRAY_RESERVE(family, cap, count + 1)) {
				free(family);
				return -1;
			}
			family[count++] = procs[i].pid;
			procs[i].ppid = -1;
			copies += same_file(exe, procs[i].pid);
			joined = true;
		}
	}
	free(family);
	return copies;
}

void fork_watch_count_existing(struct fork_watch *fw, int pid)
{
	char path[64];
	struct stat exe;
	struct proc_parent *procs;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	if (stat(path, &exe) != 0 || list_processes(&procs, &n) != 0) {
		fw->before_start = -1;
		return;
	}
	fw->before_start = count_running_copies(procs, n, pid, &exe);
	free(procs);
}

int fork_watch_shared(int pid, uint64_t addr, uint64_t len)
{
	char path[64], line[512], perms[8];
	uint64_t start, end;
	int shared = 0;
	FILE *maps;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	maps = fopen(path, "r");
	if (!maps)
		return -errno;
	while (fgets(line, sizeof(line), maps))
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s", &start, &end, perms) == 3 &&
		    addr < end && addr + len > start && perms[3] == 's')
			shared = 1;
	fclose(maps);
	return shared;
}

bool fork_watch_exact(const struct fork_watch *fw, uint64_t unrecorded)
{
	return !unrecorded && !fw->unwatched && fw->before_start == 0;
}

int fork_watch_why(const struct fork_watch *fw, uint64_t unrecorded, char *buf, size_t len, int n)
{
	if (unrecorded && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n,
			      "%s%" PRIu64 " child processes ran the program's code without exec, "
			      "not recorded (a MAP_SHARED mapping is their parent's memory too)",
			      n ? "; " : "", unrecorded);
	if (fw->before_start > 0 && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n,
			      "%s%" PRId64 " processes of its family forked before the recording "
			      "began run the program's code, not recorded",
			      n ? "; " : "", fw->before_start);
	if (fw->before_start < 0 && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n,
			      "%sthe processes forked before the recording could not be listed "
			      "(/proc)",
			      n ? "; " : "");
	if (fw->unwatched && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n,
			      "%sthe program's children could not be watched (fork hook)",
			      n ? "; " : "");
	return n;
}
