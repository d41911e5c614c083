/* SPDX-License-Identifier: MIT */
/* Writers the recorders cannot see (see foreign.h). */
#include "foreign.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

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

static uint64_t writes(const struct foreign_watch *fw)
{
	return fw->counts ? fw->counts->writes : 0;
}

bool foreign_watch_exact(const struct foreign_watch *fw)
{
	return !fw->unwatched && writes(fw) == 0;
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
	return fw->counts->mappers_full ? -ENOSPC : 0;
}
