/* SPDX-License-Identifier: MIT */
/*
 * What bpf/foreign.bpf.h (in both recorders' BPF programs) and `vsc
 * record` (userspace/capture/foreign.h) share: the counts of stores into
 * the target by other processes' system calls, and the key of the map of
 * objects other processes mapped writable and shared.
 */
#ifndef VSC_FOREIGN_H
#define VSC_FOREIGN_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

struct vsc_foreign_counts {
	/* process_vm_writev and ptrace pokes into the target by other
	 * processes: no probe and no breakpoint sees them; the last caller */
	__u64 writes;
	/* objects that did not fit into shared_mappers (every object is then
	 * suspect: who mapped it is not known) */
	__u64 mappers_full;
	__u32 writer;
	/* the last writer of mem_writes */
	__u32 mem_writer;
	/* writes into the target's /proc/PID/mem (or task/TID/mem) by any
	 * process but the recorder, the target itself included */
	__u64 mem_writes;
	/* mprotect(PROT_WRITE) calls whose mappings could not be looked at
	 * (every object that a shared mapping may write is then suspect, as
	 * with mappers_full), and the last caller's pid */
	__u64 mprotects_unknown;
	__u32 mprotect_unseen;
	/* 32-bit mmap calls whose arguments could not be read: a mapping of
	 * any object, not known (every object is then suspect) */
	__u32 mmaps_unknown;
};

/* An object by device and inode (System V: device 0, inode the shmid). */
struct vsc_shared_key {
	__u64 inode;
	__u32 dev; /* the kernel's dev_t: major << 20 | minor */
	__u32 pad;
};

/* A shared file mapping of the target, from the iterator over its
 * mappings (vsc_shared_vmas): writable is the kernel's count of shared
 * mappings of the file, by anyone, that may write it (i_mmap_writable:
 * VM_SHARED with VM_MAYWRITE since Linux 6.7, every VM_SHARED one before;
 * negative: writes denied). */
struct vsc_shared_vma {
	__u64 start;
	__u64 inode;
	__u32 dev; /* the kernel's dev_t */
	__s32 writable;
};

#endif /* VSC_FOREIGN_H */
