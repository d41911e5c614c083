/* SPDX-License-Identifier: MIT */
/*
 * Stand-in for vmlinux.h when the BPF objects are built for ARM64 on another
 * machine (make ARCH=arm64, scripts/arm64.mk). The build machine's
 * /sys/kernel/btf/vmlinux describes its own kernel, whose pt_regs is not
 * ARM64's, so these come from the arm64 UAPI headers (linux-libc-dev:arm64)
 * instead. The probes use only UAPI types: bpf_perf_event_data, whose regs
 * is struct user_pt_regs on ARM64 (x0..x30, sp, pc, pstate), and USDT
 * contexts, which usdt.bpf.h reads at offsets libbpf computes at attach time.
 */
#ifndef VSC_VMLINUX_ARM64_H
#define VSC_VMLINUX_ARM64_H

#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <asm/ptrace.h>

/* What a BTF dump defines and libbpf's headers (usdt.bpf.h) expect. */
typedef _Bool bool;
enum {
	false = 0,
	true = 1
};

/* The kernel fields the programs read: the watchpoint program's start
 * time, the fork hooks' ids, the mmap hook's way from a descriptor to its
 * inode, the mapping iterator's fields and the mprotect and remote-write
 * hooks' (foreign.bpf.h) (CO-RE relocates them to the running kernel's
 * layout at load time). */
struct super_block {
	__u32 s_dev; /* dev_t */
	unsigned long s_magic;
} __attribute__((preserve_access_index));

struct inode {
	unsigned long i_ino;
	struct super_block *i_sb;
} __attribute__((preserve_access_index));

typedef struct {
	int counter;
} atomic_t;

struct address_space {
	atomic_t i_mmap_writable;
} __attribute__((preserve_access_index));

struct qstr {
	__u32 len; /* in an unnamed union in the kernel: CO-RE finds it */
	const unsigned char *name;
} __attribute__((preserve_access_index));

struct dentry {
	struct qstr d_name;
} __attribute__((preserve_access_index));

struct path {
	struct dentry *dentry;
} __attribute__((preserve_access_index));

struct file {
	unsigned int f_mode; /* fmode_t */
	struct path f_path;
	struct inode *f_inode;
	struct address_space *f_mapping;
	void *private_data;
} __attribute__((preserve_access_index));

struct fdtable {
	unsigned int max_fds;
	struct file **fd;
} __attribute__((preserve_access_index));

struct files_struct {
	struct fdtable *fdt;
} __attribute__((preserve_access_index));

/* Whether a thread's exit leaves others running (record.bpf.c). */
struct signal_struct {
	atomic_t live;
	unsigned int flags;
} __attribute__((preserve_access_index));

struct task_struct {
	int pid;
	int tgid; /* forks.bpf.h */
	__u64 start_time;
	struct files_struct *files;
	struct signal_struct *signal;
} __attribute__((preserve_access_index));

/* Whose memory access_remote_vm() writes (foreign.bpf.h). */
struct mm_struct {
	struct task_struct *owner;
} __attribute__((preserve_access_index));

/* The iterator over the target's mappings (foreign.bpf.h). */
struct seq_file;

struct vm_area_struct {
	unsigned long vm_start;
	unsigned long vm_end;
	unsigned long vm_flags;
	struct file *vm_file;
} __attribute__((preserve_access_index));

struct bpf_iter_meta {
	struct seq_file *seq;
} __attribute__((preserve_access_index));

struct bpf_iter__task_vma {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
	struct vm_area_struct *vma;
} __attribute__((preserve_access_index));

#endif /* VSC_VMLINUX_ARM64_H */
