/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Writers the recorders cannot see, for both BPF programs (record.bpf.c,
 * watch.bpf.c; include it once, after forks.bpf.h, `target_pid`,
 * `recorder_pid` and a definition of
 *
 *   static __always_inline bool of_target(__u32 tid);
 *
 * true for a thread id of the target: its pid, or a thread the program
 * saw). Its system call hook (foreign_sys_enter(), called from the
 * program's raw_tracepoint/sys_enter) sees
 *
 * - stores into the target's memory by process_vm_writev or ptrace pokes
 *   of other processes (a debugger, an injector): no probe and no
 *   breakpoint sees them (breakpoints exclude the kernel); counted in
 *   `foreign` with the last caller;
 * - mmap(MAP_SHARED) of a file descriptor open for writing, and shmat()
 *   without SHM_RDONLY, by a process outside the recording: the object, by
 *   device and inode, with the caller, in shared_mappers. A mapping made and
 *   dropped between two looks at everyone's maps shows there
 *   (userspace/capture/shared_maps.h). Not only mmap(PROT_WRITE): one made
 *   read-only from such a descriptor may be made writable by mprotect,
 *   which no hook sees (the kernel counts it in i_mmap_writable too).
 *
 * And an iterator over the target's shared file mappings (vsc_shared_vmas)
 * that says how many shared mappings of each file, by anyone, may write
 * it: where some process's maps cannot be read, none (with this hook
 * watching for new ones) means that process does not write it either.
 *
 * The recorder reads both through userspace/capture/foreign.h and withholds
 * a plain verdict (docs/record.md, "Memory shared with other processes").
 */
#ifndef VSC_BPF_FOREIGN_H
#define VSC_BPF_FOREIGN_H

#include "foreign.h"

/* system call numbers of ptrace, process_vm_writev, mmap and shmat */
#if defined(__TARGET_ARCH_arm64)
#define NR_PTRACE 117
#define NR_PROCESS_VM_WRITEV 271
#define NR_MMAP 222
#define NR_SHMAT 196
#define NR_MPROTECT 226
#define NR_PKEY_MPROTECT 288
#define NR_WRITE 64
#define NR_WRITEV 66
#define NR_PWRITE64 68
#define NR_PWRITEV 70
#define NR_PWRITEV2 287
#else
#define NR_PTRACE 101
#define NR_PROCESS_VM_WRITEV 311
#define NR_MMAP 9
#define NR_SHMAT 30
#define NR_MPROTECT 10
#define NR_PKEY_MPROTECT 329
#define NR_WRITE 1
#define NR_WRITEV 20
#define NR_PWRITE64 18
#define NR_PWRITEV 296
#define NR_PWRITEV2 328
#endif
#define REQ_POKETEXT 4 /* ptrace requests that store into memory */
#define REQ_POKEDATA 5
#define MAP_SHARED_BIT 0x01 /* MAP_SHARED, MAP_SHARED_VALIDATE */
#define FMODE_WRITE_BIT 0x2 /* the file is open for writing */
#define SHM_RDONLY_BIT 010000
#define VM_MAYSHARE_BIT 0x80 /* MAP_SHARED; VM_SHARED is off on a read-only file */
#define PROT_WRITE_BIT 0x2
#define PROC_SUPER_MAGIC_ 0x9fa0
/* the mappings an mprotect covers that are looked at; more: not known */
#define MPROTECT_VMAS 16

struct vsc_foreign_counts foreign = {};

/* Set by the recorder before loading: whether this kernel lets the
 * program call bpf_find_vma (Linux 5.17); without it every mprotect that
 * adds PROT_WRITE, by a process not of the recording, is one whose
 * mappings are not known. */
const volatile bool has_find_vma = false;

/* Objects mapped writable and shared during the recording by processes
 * other than the target, its watched children and the recorder: the last
 * one's tgid. Full: foreign.mappers_full counts what could not be kept. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, struct vsc_shared_key);
	__type(value, __u32);
} shared_mappers SEC(".maps");

/* process_vm_writev(pid, ...) or ptrace(PTRACE_POKE*, pid, ...) into the
 * target by anyone but the recorder (the target itself included: a store
 * nothing recorded). */
static __always_inline int foreign_write(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	__u32 caller = bpf_get_current_pid_tgid() >> 32;
	long pid;

	if (caller == recorder_pid)
		return 0;
	if (nr == NR_PTRACE) {
		long request = PT_REGS_PARM1_CORE_SYSCALL(regs);
		if (request != REQ_POKETEXT && request != REQ_POKEDATA)
			return 0;
		pid = PT_REGS_PARM2_CORE_SYSCALL(regs);
	} else {
		pid = PT_REGS_PARM1_CORE_SYSCALL(regs);
	}
	if (pid <= 0 || !of_target((__u32)pid))
		return 0;
	__sync_fetch_and_add(&foreign.writes, 1);
	foreign.writer = caller;
	return 0;
}

static __always_inline void note_mapper(__u64 inode, __u32 dev, __u32 caller)
{
	struct vsc_shared_key key = { .inode = inode, .dev = dev };

	if (bpf_map_update_elem(&shared_mappers, &key, &caller, BPF_ANY))
		__sync_fetch_and_add(&foreign.mappers_full, 1);
}

/* The calling process's open file fd, or NULL. */
static __always_inline struct file *file_of(long fd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds, *file = NULL;

	if (fd < 0 || !fdt || fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]);
	return file;
}

/* mmap(..., MAP_SHARED, fd, ...) of a descriptor open for writing (with
 * PROT_WRITE or not: mprotect may add it), or shmat(id, ..., writable), by
 * a process not of the recording: the object, by inode. */
static __always_inline int shared_map(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	__u32 caller = bpf_get_current_pid_tgid() >> 32;
	struct file *file;

	if (caller == target_pid || caller == recorder_pid ||
	    bpf_map_lookup_elem(&children, &caller))
		return 0; /* the target's; its children are counted (forks.bpf.h) */
	if (nr == NR_SHMAT) {
		if (!(PT_REGS_PARM3_CORE_SYSCALL(regs) & SHM_RDONLY_BIT))
			note_mapper((__u64)PT_REGS_PARM1_CORE_SYSCALL(regs), 0, caller);
		return 0;
	}
	if (!(PT_REGS_PARM4_CORE_SYSCALL(regs) & MAP_SHARED_BIT))
		return 0;
	file = file_of(PT_REGS_PARM5_CORE_SYSCALL(regs)); /* none: anonymous */
	if (!file || !(BPF_CORE_READ(file, f_mode) & FMODE_WRITE_BIT))
		return 0; /* no shared mapping of it may ever write */
	note_mapper(BPF_CORE_READ(file, f_inode, i_ino), BPF_CORE_READ(file, f_inode, i_sb, s_dev),
		    caller);
	return 0;
}

/* An mprotect's walk over the mappings it covers (bpf_find_vma()). */
struct mprotect_walk {
	__u64 next; /* the address looked up next; 0: done */
	__u64 end;
	__u32 caller;
};

static long mprotect_vma(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct mprotect_walk *w = data;
	struct file *file = BPF_CORE_READ(vma, vm_file);
	char name[4] = {};

	w->next = BPF_CORE_READ(vma, vm_end);
	if (w->next >= w->end)
		w->next = 0;
	if (!file || !(BPF_CORE_READ(vma, vm_flags) & VM_MAYSHARE_BIT))
		return 0;
	note_mapper(BPF_CORE_READ(file, f_inode, i_ino), BPF_CORE_READ(file, f_inode, i_sb, s_dev),
		    w->caller);
	/* a System V segment ("SYSV%08x"): its key is the shmid, device 0 */
	bpf_probe_read_kernel(name, sizeof(name), BPF_CORE_READ(file, f_path.dentry, d_name.name));
	if (name[0] == 'S' && name[1] == 'Y' && name[2] == 'S' && name[3] == 'V')
		note_mapper(BPF_CORE_READ(file, f_inode, i_ino), 0, w->caller);
	return 0;
}

/* mprotect(start, len, PROT_WRITE...) by a process not of the recording:
 * each shared mapping of a file, shm object or System V segment it covers
 * counts as one made writable (shared_map()). A mapping made read-only
 * before the recording began (from a writable descriptor, or a writable
 * shmat made read-only) shows `r--s` at every look, and no mmap hook saw
 * it made: made writable, written and made read-only again between two
 * looks, only this sees it. Looked at before the call (it may fail: then
 * nothing was written). A walk that cannot be made (the mappings locked
 * by another thread, too many of them) is counted in mprotects_unknown:
 * every object is then suspect, as when the map is full. */
static __always_inline int mprotect_writable(struct bpf_raw_tracepoint_args *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	__u32 caller = bpf_get_current_pid_tgid() >> 32;
	struct task_struct *task;
	struct mprotect_walk w;
	__u64 len;

	if (!(PT_REGS_PARM3_CORE_SYSCALL(regs) & PROT_WRITE_BIT) || caller == target_pid ||
	    caller == recorder_pid || bpf_map_lookup_elem(&children, &caller))
		return 0;
	w.next = PT_REGS_PARM1_CORE_SYSCALL(regs);
	len = PT_REGS_PARM2_CORE_SYSCALL(regs);
	w.end = w.next + len;
	w.caller = caller;
	if (!len || w.end < w.next)
		return 0; /* nothing, or refused (EINVAL) */
	if (!has_find_vma) {
		__sync_fetch_and_add(&foreign.mprotects_unknown, 1);
		return 0;
	}
	task = bpf_get_current_task_btf();
	for (int i = 0; i < MPROTECT_VMAS && w.next; i++) {
		long err = bpf_find_vma(task, w.next, mprotect_vma, &w, 0);
		if (err == -2)    /* ENOENT */
			return 0; /* a hole: the call fails (ENOMEM) */
		if (err) {
			__sync_fetch_and_add(&foreign.mprotects_unknown, 1);
			return 0;
		}
	}
	if (w.next)
		__sync_fetch_and_add(&foreign.mprotects_unknown, 1);
	return 0;
}

/* write, pwrite, writev... into /proc/PID/mem or /proc/PID/task/TID/mem of
 * the target (the kernel writes its memory: no probe, no breakpoint sees
 * it) by anyone but the recorder, the target itself included: counted in
 * foreign.mem_writes with the last writer. The file: a descriptor open
 * for writing of a file named "mem" on procfs, whose memory (private_data,
 * an mm) is the target's. (io_uring writes do not pass here.) */
static __always_inline int mem_write(struct bpf_raw_tracepoint_args *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	__u32 caller = bpf_get_current_pid_tgid() >> 32;
	/* every write of every process comes here: the descriptor table is
	 * read with direct loads (a trusted task pointer), not helper calls */
	struct task_struct *task = bpf_get_current_task_btf();
	struct files_struct *files;
	struct fdtable *fdt;
	struct file *file = NULL;
	struct mm_struct *mm;
	long fd = PT_REGS_PARM1_CORE_SYSCALL(regs);
	char name[4] = {};

	if (caller == recorder_pid || fd < 0)
		return 0;
	files = task->files;
	fdt = files ? files->fdt : NULL;
	if (!fdt || fd >= fdt->max_fds)
		return 0;
	bpf_probe_read_kernel(&file, sizeof(file), &fdt->fd[fd]);
	if (!file || BPF_CORE_READ(file, f_inode, i_sb, s_magic) != PROC_SUPER_MAGIC_ ||
	    !(BPF_CORE_READ(file, f_mode) & FMODE_WRITE_BIT) ||
	    BPF_CORE_READ(file, f_path.dentry, d_name.len) != 3)
		return 0;
	bpf_probe_read_kernel(name, 3, BPF_CORE_READ(file, f_path.dentry, d_name.name));
	if (name[0] != 'm' || name[1] != 'e' || name[2] != 'm')
		return 0;
	/* whose memory: mm->owner (CONFIG_MEMCG); without it every such
	 * write counts */
	mm = BPF_CORE_READ(file, private_data);
	if (bpf_core_field_exists(mm->owner) && BPF_CORE_READ(mm, owner, tgid) != (int)target_pid)
		return 0;
	__sync_fetch_and_add(&foreign.mem_writes, 1);
	foreign.mem_writer = caller;
	return 0;
}

/* For the program's sys_enter hook: true when system call nr is one of
 * these (it has been looked at). */
static __always_inline bool foreign_sys_enter(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	if (nr == NR_PROCESS_VM_WRITEV || nr == NR_PTRACE) {
		foreign_write(ctx, nr);
		return true;
	}
	if (nr == NR_MMAP || nr == NR_SHMAT) {
		shared_map(ctx, nr);
		return true;
	}
	if (nr == NR_MPROTECT || nr == NR_PKEY_MPROTECT) {
		mprotect_writable(ctx);
		return true;
	}
	if (nr == NR_WRITE || nr == NR_PWRITE64 || nr == NR_WRITEV || nr == NR_PWRITEV ||
	    nr == NR_PWRITEV2) {
		mem_write(ctx);
		return true;
	}
	return false;
}

/* Each shared file mapping of the target, with the kernel's count of the
 * file's shared mappings that may write it (struct vsc_shared_vma). Run
 * by the recorder (bpf_iter_create) for the target's process only. */
SEC("iter/task_vma")
int vsc_shared_vmas(struct bpf_iter__task_vma *ctx)
{
	struct vm_area_struct *vma = ctx->vma;
	struct task_struct *task = ctx->task;
	struct vsc_shared_vma out = {};
	struct file *file;

	if (!task || !vma || BPF_CORE_READ(task, tgid) != target_pid)
		return 0;
	file = BPF_CORE_READ(vma, vm_file);
	if (!file || !(BPF_CORE_READ(vma, vm_flags) & VM_MAYSHARE_BIT))
		return 0;
	out.start = BPF_CORE_READ(vma, vm_start);
	out.inode = BPF_CORE_READ(file, f_inode, i_ino);
	out.dev = BPF_CORE_READ(file, f_inode, i_sb, s_dev);
	out.writable = BPF_CORE_READ(file, f_mapping, i_mmap_writable.counter);
	bpf_seq_write(ctx->meta->seq, &out, sizeof(out));
	return 0;
}

#endif /* VSC_BPF_FOREIGN_H */
