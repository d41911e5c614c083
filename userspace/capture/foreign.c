/* SPDX-License-Identifier: MIT */
/* Writers the recorders cannot see (see foreign.h). */
#include "foreign.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "userspace/util/diag.h"

void foreign_watch_init(struct foreign_watch *fw, const struct vsc_foreign_counts *counts,
			struct bpf_map *mappers, bool attached)
{
	fw->counts = counts;
	fw->mappers = mappers;
	fw->unwatched = !attached;
	if (!attached)
		diag("record", "warning: cannot attach raw_tracepoint/sys_enter: stores into the "
			       "program by other processes cannot be seen, so the trace gets no "
			       "plain verdict");
}

bool foreign_has_find_vma(void)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_RAW_TRACEPOINT, BPF_FUNC_find_vma, NULL) == 1;
}

static uint64_t writes(const struct foreign_watch *fw)
{
	return fw->counts ? fw->counts->writes : 0;
}

static uint64_t mem_writes(const struct foreign_watch *fw)
{
	return fw->counts ? fw->counts->mem_writes : 0;
}

bool foreign_watch_exact(const struct foreign_watch *fw)
{
	return !fw->unwatched && writes(fw) == 0 && mem_writes(fw) == 0;
}

int foreign_watch_why(const struct foreign_watch *fw, char *buf, size_t len, int n)
{
	if (n < 0 || (size_t)n >= len)
		return n;
	if (writes(fw))
		n += snprintf(buf + n, len - (size_t)n,
			      "%s%" PRIu64 " stores into its memory by system calls of other "
			      "processes (process_vm_writev, ptrace pokes; the last by pid %u), "
			      "not recorded",
			      n ? "; " : "", writes(fw), fw->counts->writer);
	else if (fw->unwatched)
		n += snprintf(buf + n, len - (size_t)n,
			      "%sstores into its memory by other processes' system calls "
			      "could not be watched (sys_enter hook not attached)",
			      n ? "; " : "");
	if (mem_writes(fw) && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n,
			      "%s%" PRIu64
			      " writes into its memory through /proc/PID/mem (the last "
			      "by pid %u), not recorded",
			      n ? "; " : "", mem_writes(fw), fw->counts->mem_writer);
	return n;
}

int foreign_watch_mapper(const struct foreign_watch *fw, uint32_t major, uint32_t minor,
			 uint64_t inode, bool sysv, uint32_t *pid)
{
	struct vsc_shared_key key = { inode, sysv ? 0 : major << 20 | minor, 0 };

	if (!fw->mappers)
		return 0;
	if (fw->unwatched)
		return -EOPNOTSUPP; /* nothing was seen: not known */
	if (!bpf_map__lookup_elem(fw->mappers, &key, sizeof(key), pid, sizeof(*pid), 0))
		return 1;
	if (errno != ENOENT)
		return -errno;
	if (fw->counts->mappers_full)
		return -ENOSPC;
	if (fw->counts->mmaps_unknown)
		return -EFAULT;
	*pid = fw->counts->mprotect_unseen;
	return fw->counts->mprotects_unknown ? -EAGAIN : 0;
}

uint64_t foreign_watch_mprotects_unseen(const struct foreign_watch *fw, uint32_t *pid)
{
	*pid = fw->counts ? fw->counts->mprotect_unseen : 0;
	return fw->counts ? fw->counts->mprotects_unknown : 0;
}

void foreign_watch_attach_vmas(struct foreign_watch *fw, struct bpf_program *prog, int pid)
{
	union bpf_iter_link_info info;
	LIBBPF_OPTS(bpf_iter_attach_opts, opts, .link_info = &info, .link_info_len = sizeof(info));

	memset(&info, 0, sizeof(info));
	info.task.pid = (uint32_t)pid;
	fw->vmas = bpf_program__attach_iter(prog, &opts); /* NULL: not known */
}

void foreign_watch_detach(struct foreign_watch *fw)
{
	bpf_link__destroy(fw->vmas);
	fw->vmas = NULL;
}

int foreign_watch_writable(const struct foreign_watch *fw, uint32_t major, uint32_t minor,
			   uint64_t inode)
{
	struct vsc_shared_vma v;
	uint32_t dev = major << 20 | minor;
	int fd, found = -ENOENT;
	ssize_t n;

	if (!fw->vmas || fw->unwatched)
		return -EOPNOTSUPP;
	fd = bpf_iter_create(bpf_link__fd(fw->vmas));
	if (fd < 0)
		return -errno;
	/* a read gives whole records (each one bpf_seq_write) */
	while ((n = read(fd, &v, sizeof(v))) == (ssize_t)sizeof(v))
		if (v.inode == inode && v.dev == dev && found < (v.writable > 0 ? v.writable : 0))
			found = v.writable > 0 ? v.writable : 0; /* the same in each */
	if (n < 0)
		found = -errno;
	close(fd);
	return found;
}
