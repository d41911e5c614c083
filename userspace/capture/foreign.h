/* SPDX-License-Identifier: MIT */
/*
 * Writers the recorders cannot see (bpf/foreign.bpf.h), for both (the
 * probe path and --watch): stores into the target by other processes'
 * system calls (process_vm_writev, ptrace pokes) make the loss inexact,
 * with this reason, so vsc check gives no plain verdict; and who mapped an
 * object writable and shared during the recording, for the shared-memory
 * watch (shared_maps.h, recorder.h's shared_mapper).
 */
#ifndef VSC_CAPTURE_FOREIGN_H
#define VSC_CAPTURE_FOREIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/foreign.h" /* struct vsc_foreign_counts */

struct bpf_map;

struct foreign_watch {
	/* the BPF program's `foreign` and `shared_mappers`; NULL before load */
	const struct vsc_foreign_counts *counts;
	struct bpf_map *mappers;
	bool unwatched; /* its sys_enter hook did not attach: nothing seen */
};

/* After the program is loaded, and whether its sys_enter hook attached
 * (when not: a warning, and the loss is not known exactly). */
void foreign_watch_init(struct foreign_watch *fw, const struct vsc_foreign_counts *counts,
			struct bpf_map *mappers, bool attached);
/* Whether the loss is known exactly as far as foreign stores go. */
bool foreign_watch_exact(const struct foreign_watch *fw);
/* The reason, appended at buf + n (after "; " when n > 0); the new n. */
int foreign_watch_why(const struct foreign_watch *fw, char *buf, size_t len, int n);
/* recorder.h's shared_mapper: 1 and *pid, 0 none seen, -ENOSPC not known,
 * other -errno. */
int foreign_watch_mapper(const struct foreign_watch *fw, uint32_t major, uint32_t minor,
			 uint64_t inode, bool sysv, uint32_t *pid);

#endif /* VSC_CAPTURE_FOREIGN_H */
