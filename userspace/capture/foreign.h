/* SPDX-License-Identifier: MIT */
/*
 * Writers the recorders cannot see (bpf/foreign.bpf.h), for both (the
 * probe path and --watch): stores into the target by other processes'
 * system calls (process_vm_writev, ptrace pokes, writes into its
 * /proc/PID/mem) make the loss inexact,
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

struct bpf_link;
struct bpf_map;
struct bpf_program;

struct foreign_watch {
	/* the BPF program's `foreign` and `shared_mappers`; NULL before load */
	const struct vsc_foreign_counts *counts;
	struct bpf_map *mappers;
	bool unwatched;        /* its sys_enter hook did not attach: nothing seen */
	struct bpf_link *vmas; /* the iterator over the target's mappings, or NULL */
};

/* Whether the BPF programs may call bpf_find_vma (their rodata
 * has_find_vma, set before the load). */
bool foreign_has_find_vma(void);
/* After the program is loaded, and whether its sys_enter hook attached
 * (when not: a warning, and the loss is not known exactly). */
void foreign_watch_init(struct foreign_watch *fw, const struct vsc_foreign_counts *counts,
			struct bpf_map *mappers, bool attached);
/* The iterator over process pid's shared file mappings (vsc_shared_vmas);
 * without it (older kernels) foreign_watch_writable() does not know. */
void foreign_watch_attach_vmas(struct foreign_watch *fw, struct bpf_program *prog, int pid);
void foreign_watch_detach(struct foreign_watch *fw);
/* Whether the loss is known exactly as far as foreign stores go. */
bool foreign_watch_exact(const struct foreign_watch *fw);
/* The reason, appended at buf + n (after "; " when n > 0); the new n. */
int foreign_watch_why(const struct foreign_watch *fw, char *buf, size_t len, int n);
/* recorder.h's shared_mapper: 1 and *pid, 0 none seen, -ENOSPC not known
 * (too many objects), -EFAULT not known (a 32-bit mmap whose arguments
 * could not be read), -EAGAIN not known (an mprotect whose mappings the
 * hook could not look at: *pid the last such caller; it made writable
 * only a mapping that may write, which the kernel counts), other -errno. */
/* mprotect(PROT_WRITE) calls whose mappings could not be looked at, and
 * the last caller (*pid). */
uint64_t foreign_watch_mprotects_unseen(const struct foreign_watch *fw, uint32_t *pid);
int foreign_watch_mapper(const struct foreign_watch *fw, uint32_t major, uint32_t minor,
			 uint64_t inode, bool sysv, uint32_t *pid);

/* How many shared mappings of the file (device major:minor, inode) that the
 * target maps shared may write it now, by anyone (the kernel's
 * count; 0 also when writes are denied), or -errno: not known (no
 * iterator or no sys_enter hook, or the target no longer maps it there).
 * With the hook watching every mmap since the recording began, 0 at every
 * look means no process wrote it through a mapping it kept (nor through
 * one it made and dropped between looks: the hook saw that one). */
int foreign_watch_writable(const struct foreign_watch *fw, uint32_t major, uint32_t minor,
			   uint64_t inode);

#endif /* VSC_CAPTURE_FOREIGN_H */
