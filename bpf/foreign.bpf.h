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
static __always_inline int foreign_write(const long *a, long nr)
{
	__u32 caller = bpf_get_current_pid_tgid() >> 32;
	long pid;

	if (caller == recorder_pid)
		return 0;
	if (nr == NR_PTRACE) {
		long request = a[0];
		if (request != REQ_POKETEXT && request != REQ_POKEDATA)
			return 0;
		pid = a[1];
	} else {
		pid = a[0];
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
static __always_inline int shared_map(const long *a, long nr)
{
	__u32 caller = bpf_get_current_pid_tgid() >> 32;
	struct file *file;

	if (caller == target_pid || caller == recorder_pid ||
	    bpf_map_lookup_elem(&children, &caller))
		return 0; /* the target's; its children are counted (forks.bpf.h) */
	if (nr == NR_SHMAT) {
		if (!(a[2] & SHM_RDONLY_BIT))
			note_mapper((__u64)a[0], 0, caller);
		return 0;
	}
	if (!(a[3] & MAP_SHARED_BIT))
		return 0;
	file = file_of(a[4]); /* none: anonymous */
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

/* An mprotect(PROT_WRITE) of caller whose mappings could not be looked
 * at: counted, and the caller kept (the last one). */
static __always_inline void mprotect_unseen(__u32 caller)
{
	__sync_fetch_and_add(&foreign.mprotects_unknown, 1);
	foreign.mprotect_unseen = caller;
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
static __always_inline int mprotect_writable(const long *a)
{
	__u32 caller = bpf_get_current_pid_tgid() >> 32;
	struct task_struct *task;
	struct mprotect_walk w;
	__u64 len;

	if (!(a[2] & PROT_WRITE_BIT) || caller == target_pid || caller == recorder_pid ||
	    bpf_map_lookup_elem(&children, &caller))
		return 0;
	w.next = a[0];
	len = a[1];
	w.end = w.next + len;
	w.caller = caller;
	if (!len || w.end < w.next)
		return 0; /* nothing, or refused (EINVAL) */
	if (!has_find_vma) {
		mprotect_unseen(caller);
		return 0;
	}
	task = bpf_get_current_task_btf();
	for (int i = 0; i < MPROTECT_VMAS && w.next; i++) {
		long err = bpf_find_vma(task, w.next, mprotect_vma, &w, 0);
		if (err == -2)    /* ENOENT */
			return 0; /* a hole: the call fails (ENOMEM) */
		if (err) {
			mprotect_unseen(caller);
			return 0;
		}
	}
	if (w.next)
		mprotect_unseen(caller);
	return 0;
}

/* write, pwrite, writev... into /proc/PID/mem or /proc/PID/task/TID/mem of
 * the target (the kernel writes its memory: no probe, no breakpoint sees
 * it) by anyone but the recorder, the target itself included: counted in
 * foreign.mem_writes with the last writer. The file: a descriptor open
 * for writing of a file named "mem" on procfs, whose memory (private_data,
 * an mm) is the target's. (io_uring writes do not pass here.) */
static __always_inline int mem_write(const long *a)
{
	__u32 caller = bpf_get_current_pid_tgid() >> 32;
	/* every write of every process comes here: the descriptor table is
	 * read with direct loads (a trusted task pointer), not helper calls */
	struct task_struct *task = bpf_get_current_task_btf();
	struct files_struct *files;
	struct fdtable *fdt;
	struct file *file = NULL;
	struct mm_struct *mm;
	long fd = a[0];
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

static __always_inline bool foreign_call(long nr)
{
	return nr == NR_PROCESS_VM_WRITEV || nr == NR_PTRACE || nr == NR_MMAP || nr == NR_SHMAT ||
	       nr == NR_MPROTECT || nr == NR_PKEY_MPROTECT || nr == NR_WRITE || nr == NR_PWRITE64 ||
	       nr == NR_WRITEV || nr == NR_PWRITEV || nr == NR_PWRITEV2;
}

/* System call nr (native, its arguments in a) looked at. */
static __always_inline void foreign_look(const long *a, long nr)
{
	if (nr == NR_PROCESS_VM_WRITEV || nr == NR_PTRACE)
		foreign_write(a, nr);
	else if (nr == NR_MMAP || nr == NR_SHMAT)
		shared_map(a, nr);
	else if (nr == NR_MPROTECT || nr == NR_PKEY_MPROTECT)
		mprotect_writable(a);
	else
		mem_write(a);
}

#if defined(__TARGET_ARCH_x86)
/* 32-bit (ia32) system calls, by 32-bit programs or int 0x80 (the kernel
 * runs them with TS_COMPAT set; sys_enter gets their own numbers and their
 * arguments in ebx, ecx, edx, esi, edi, ebp): the same ones, looked at as
 * the native ones. Before, not matched: a 32-bit writer into the target's
 * /proc/PID/mem, a 32-bit shared mapper, went unseen. */
#define TS_COMPAT_ 0x0002
#define NR32_WRITE 4
#define NR32_PTRACE 26
#define NR32_OLD_MMAP 90 /* its 6 arguments in memory, 32 bits each */
#define NR32_IPC 117     /* ipc(SHMAT, shmid, shmflg, ...) */
#define NR32_MPROTECT 125
#define NR32_WRITEV 146
#define NR32_PWRITE64 181
#define NR32_MMAP2 192
#define NR32_PWRITEV 334
#define NR32_PROCESS_VM_WRITEV 348
#define NR32_PWRITEV2 379
#define NR32_PKEY_MPROTECT 380
#define NR32_SHMAT 397
#define IPC_SHMAT_ 21

/* The native number of a 32-bit one looked at, or -1. */
static __always_inline long native_of(long nr)
{
	switch (nr) {
	case NR32_WRITE:
		return NR_WRITE;
	case NR32_PTRACE:
		return NR_PTRACE;
	case NR32_OLD_MMAP:
	case NR32_MMAP2:
		return NR_MMAP;
	case NR32_IPC:
	case NR32_SHMAT:
		return NR_SHMAT;
	case NR32_MPROTECT:
		return NR_MPROTECT;
	case NR32_WRITEV:
		return NR_WRITEV;
	case NR32_PWRITE64:
		return NR_PWRITE64;
	case NR32_PWRITEV:
		return NR_PWRITEV;
	case NR32_PROCESS_VM_WRITEV:
		return NR_PROCESS_VM_WRITEV;
	case NR32_PWRITEV2:
		return NR_PWRITEV2;
	case NR32_PKEY_MPROTECT:
		return NR_PKEY_MPROTECT;
	}
	return -1;
}

/* Whether the calling thread is in a 32-bit system call. */
static __always_inline bool in_compat(void)
{
	struct task_struct *task = bpf_get_current_task_btf();

	return task->thread_info.status & TS_COMPAT_;
}

/* The arguments of 32-bit system call nr (native_of(nr) >= 0) in a, as
 * the native one's; false when it is none of these (ipc but not shmat) or
 * its arguments cannot be read (then counted: not known). */
static __always_inline bool compat_args(struct pt_regs *regs, long nr, long *a)
{
	__u32 m[6] = {};

	/* 32-bit values: descriptors and pids signed, addresses not */
	a[0] = (int)BPF_CORE_READ(regs, bx);
	a[1] = (int)BPF_CORE_READ(regs, cx);
	a[2] = (int)BPF_CORE_READ(regs, dx);
	a[3] = (int)BPF_CORE_READ(regs, si);
	a[4] = (int)BPF_CORE_READ(regs, di);
	a[5] = (int)BPF_CORE_READ(regs, bp);
	if (nr == NR32_OLD_MMAP) {
		if (bpf_probe_read_user(m, sizeof(m), (void *)(unsigned long)(__u32)a[0])) {
			/* not known: a mapping whose object is not known */
			__sync_fetch_and_add(&foreign.mmaps_unknown, 1);
			return false;
		}
		a[3] = m[3];
		a[4] = (int)m[4];
	} else if (nr == NR32_IPC) {
		if ((a[0] & 0xffff) != IPC_SHMAT_)
			return false;
		a[0] = a[1]; /* shmid; a[2]: shmflg */
	} else if (nr == NR32_MPROTECT || nr == NR32_PKEY_MPROTECT) {
		a[0] = (__u32)a[0]; /* start */
		a[1] = (__u32)a[1]; /* len */
	}
	return true;
}
#endif

/* For the program's sys_enter hook: true when system call nr is one of
 * these (it has been looked at). */
static __always_inline bool foreign_sys_enter(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	bool native = foreign_call(nr);
	long a[6];

#if defined(__TARGET_ARCH_x86)
	/* (a 32-bit call whose number is a native one looked at, exit as
	 * write: its arguments read as native ones, at worst a false alarm;
	 * the writes, every process's, skip the look at the task) */
	long native_nr = native_of(nr);
	if (native_nr >= 0 && in_compat()) {
		if (compat_args(regs, nr, a))
			foreign_look(a, native_nr);
		return true;
	}
#endif
	if (!native)
		return false;
	/* each argument is a read: the writes (every write of every process
	 * comes here) need the first only */
	a[0] = PT_REGS_PARM1_CORE_SYSCALL(regs);
	a[1] = a[2] = a[3] = a[4] = a[5] = 0;
	if (nr != NR_WRITE && nr != NR_PWRITE64 && nr != NR_WRITEV && nr != NR_PWRITEV &&
	    nr != NR_PWRITEV2) {
		a[1] = PT_REGS_PARM2_CORE_SYSCALL(regs);
		a[2] = PT_REGS_PARM3_CORE_SYSCALL(regs);
		a[3] = PT_REGS_PARM4_CORE_SYSCALL(regs);
		a[4] = PT_REGS_PARM5_CORE_SYSCALL(regs);
	}
	foreign_look(a, nr);
	return true;
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
