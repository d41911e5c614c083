// SPDX-License-Identifier: GPL-2.0
/*
 * vsc record --watch: runs on every hit of a hardware data breakpoint
 * (perf_event_open(PERF_TYPE_BREAKPOINT, HW_BREAKPOINT_RW)) in a thread of
 * the target. It reads the watched value, copies the user registers and
 * pushes one record into the ring buffer. Losses are counted, never hidden:
 * the per-thread sequence number still advances, so userspace sees the gap.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "watch.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by userspace before load. */
const volatile struct watch_slot slots[WATCH_MAX_SLOTS] = {};
const volatile __u32 slot_count = 0;
const volatile __u32 target_pid = 0; /* the process watched */
/* the recorder: its own system calls into the target (ptrace) are no
 * store of the program's */
const volatile __u32 recorder_pid = 0;

#include "forks.bpf.h"

struct thread_state {
	__u64 next_seq;
	__u64 start_time; /* of the task: an id used again is another task */
	__u32 gap;        /* an event of this thread was lost since its last record */
	__u32 instance;   /* the how-manieth thread with this id */
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20); /* resized by userspace (--ring-size) */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536); /* pid_max where larger (watch.c) */
	__type(key, __u32);
	__type(value, struct thread_state);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct watch_exact_key);
	__type(value, __u8);
} exact_ips SEC(".maps");

/* A thread id of the target: the process's own, or a thread that hit a
 * breakpoint (a thread that never did is not known here: a store through
 * its id is not counted, docs/record.md). */
static __always_inline bool of_target(__u32 tid)
{
	return tid == target_pid || bpf_map_lookup_elem(&threads, &tid);
}

#include "foreign.bpf.h"

/* --watch by pages (userspace/capture/watch_pages.h), set by userspace:
 * the pages protected, the start of the mapping each was in when it was
 * protected, whether they are now, and the thread that runs a system call
 * of ours (an mprotect) now. */
__u64 page_lo[WATCH_MAX_SLOTS] = {};
__u64 page_map_lo[WATCH_MAX_SLOTS] = {};
__u64 page_size = 0;
__u32 page_count = 0;
__u32 pages_armed = 0;
__u32 injecting_tid = 0;
/* system calls of the target that failed with EFAULT while the pages were
 * protected (the kernel's own access to them refused: unrecorded, and the
 * program saw an error), the last one's number; calls of the target that
 * change, replace or drop the protected pages (mprotect, munmap, mremap
 * from or onto them, madvise, mmap MAP_FIXED, brk, shmat SHM_REMAP,
 * shmdt, remap_file_pages); and calls that give the kernel an address on
 * them to write later, outside any system call (clone's thread ids,
 * set_tid_address, set_robust_list, rseq, sigaltstack; a thread's exit
 * with its clear_child_tid or robust list there): such writes fail on a
 * protected page, silently, and the program may hang (a pthread_join) */
__u64 efault_calls = 0;
__u64 efault_last_nr = 0;
__u64 page_calls = 0;
__u64 page_last_nr = 0;
__u64 kernel_write_calls = 0;
__u64 kernel_write_last_nr = 0;

#if defined(__TARGET_ARCH_x86)
static __always_inline bool on_pages(__u64 start, __u64 len)
{
	for (__u32 i = 0; i < WATCH_MAX_SLOTS && i < page_count; i++)
		if (start < page_lo[i] + page_size && page_lo[i] < start + len)
			return true;
	return false;
}

/* shmdt(addr) drops the segment attached at addr: every page of it from
 * there (a protected one split from its mapping by our mprotect). */
static __always_inline bool shm_detaches_pages(__u64 addr)
{
	for (__u32 i = 0; i < WATCH_MAX_SLOTS && i < page_count; i++)
		if (page_map_lo[i] <= addr && addr <= page_lo[i])
			return true;
	return false;
}

#define CLONE_PARENT_SETTID_ 0x00100000ull
#define CLONE_CHILD_CLEARTID_ 0x00200000ull
#define CLONE_CHILD_SETTID_ 0x01000000ull

/* clone's (and clone3's) thread ids written by the kernel outside the
 * call: the child's (CLONE_CHILD_SETTID as it starts, CLONE_CHILD_CLEARTID
 * at its exit) and the parent's (CLONE_PARENT_SETTID: the call ignores
 * its failure) */
static __always_inline bool clone_ids_on_pages(__u64 flags, __u64 parent_tid, __u64 child_tid)
{
	return ((flags & (CLONE_CHILD_CLEARTID_ | CLONE_CHILD_SETTID_)) &&
		on_pages(child_tid, 4)) ||
	       ((flags & CLONE_PARENT_SETTID_) && on_pages(parent_tid, 4));
}

/* A thread's robust futex list at its exit: the kernel reads it and
 * marks each futex still held (the head, the pending one and the first
 * entries looked at; an entry on a protected page cannot be read past). */
static __always_inline bool robust_list_on_pages(__u64 head)
{
	__u64 h[3] = {}; /* list.next, futex_offset, list_op_pending */
	if (!head)
		return false;
	if (on_pages(head, sizeof(h)))
		return true;
	if (bpf_probe_read_user(h, sizeof(h), (void *)head))
		return false;
	if (h[2] && (on_pages(h[2], 8) || on_pages(h[2] + h[1], 4)))
		return true;
	__u64 next = h[0];
	for (int i = 0; i < 8 && next && next != head; i++) {
		if (on_pages(next, 8) || on_pages(next + h[1], 4))
			return true;
		if (bpf_probe_read_user(&next, sizeof(next), (void *)next))
			break;
	}
	return false;
}

static __always_inline void page_call(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	__u64 start = BPF_CORE_READ(regs, di);
	__u64 len = BPF_CORE_READ(regs, si);
	bool hit = false, kernel_write = false;

	switch (nr) {
	case 9: /* mmap: over them with MAP_FIXED only */
		hit = (BPF_CORE_READ(regs, r10) & 0x10) && len && on_pages(start, len);
		break;
	case 10:  /* mprotect */
	case 11:  /* munmap */
	case 28:  /* madvise (MADV_DONTNEED and others empty or replace a page) */
	case 216: /* remap_file_pages */
	case 329: /* pkey_mprotect */
		hit = len && on_pages(start, len);
		break;
	case 25: /* mremap: from them, or onto them (MREMAP_FIXED: r8, new size rdx) */
		hit = (len && on_pages(start, len)) ||
		      ((BPF_CORE_READ(regs, r10) & 2) &&
		       on_pages(BPF_CORE_READ(regs, r8), BPF_CORE_READ(regs, dx)));
		break;
	case 12: { /* brk: shrinking drops [PAGE_ALIGN(new), PAGE_ALIGN(old)) */
		struct task_struct *task = (struct task_struct *)bpf_get_current_task();
		__u64 cur = BPF_CORE_READ(task, mm, brk);
		__u64 lo = (start + page_size - 1) & ~(page_size - 1);
		__u64 hi = (cur + page_size - 1) & ~(page_size - 1);
		hit = start && lo < hi && on_pages(lo, hi - lo);
		break;
	}
	case 30: /* shmat(id, addr, flags) with SHM_REMAP: the segment's size is
		  * not known here: any page at or above addr */
		hit = (BPF_CORE_READ(regs, dx) & 040000) && len && on_pages(len, ~0ull - len);
		break;
	case 67: /* shmdt(addr) */
		hit = shm_detaches_pages(start);
		break;
	case 56: /* clone(flags, stack, parent_tid, child_tid, tls) */
		kernel_write = clone_ids_on_pages(start, BPF_CORE_READ(regs, dx),
						  BPF_CORE_READ(regs, r10));
		break;
	case 435: { /* clone3(args, size): flags, pidfd, child_tid, parent_tid */
		__u64 args[4] = {};
		if (len >= sizeof(args) && !bpf_probe_read_user(args, sizeof(args), (void *)start))
			kernel_write = clone_ids_on_pages(args[0], args[3], args[2]);
		break;
	}
	case 218: /* set_tid_address(tidptr): written 0 at the thread's exit */
		kernel_write = on_pages(start, 4);
		break;
	case 273: /* set_robust_list(head, len): read and written at its exit */
		kernel_write = on_pages(start, len ? len : 1);
		break;
	case 334: /* rseq(area, len, flags, sig): written at each return to
		   * the program, unless RSEQ_FLAG_UNREGISTER */
		kernel_write = !(BPF_CORE_READ(regs, dx) & 1) && on_pages(start, len ? len : 1);
		break;
	case 131: {               /* sigaltstack(ss, old): signal frames written there */
		__u64 ss[3] = {}; /* ss_sp, ss_flags, ss_size */
		if (start && !bpf_probe_read_user(ss, sizeof(ss), (void *)start))
			kernel_write = !(ss[1] & 2) && on_pages(ss[0], ss[2]); /* not SS_DISABLE */
		break;
	}
	case 60: { /* exit: its clear_child_tid and robust list, set before */
		struct task_struct *task = (struct task_struct *)bpf_get_current_task();
		kernel_write = on_pages((__u64)BPF_CORE_READ(task, clear_child_tid), 4) ||
			       robust_list_on_pages((__u64)BPF_CORE_READ(task, robust_list));
		break;
	}
	}
	if (hit) {
		__sync_fetch_and_add(&page_calls, 1);
		page_last_nr = nr;
	}
	if (kernel_write) {
		__sync_fetch_and_add(&kernel_write_calls, 1);
		kernel_write_last_nr = nr;
	}
}
#endif

/* Stores into the target from outside, and mappings of memory it may
 * share (foreign.bpf.h); with pages, the target's calls on them. */
SEC("raw_tracepoint/sys_enter")
int vsc_sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	foreign_sys_enter(ctx, (long)ctx->args[1]);
#if defined(__TARGET_ARCH_x86)
	__u64 id = bpf_get_current_pid_tgid();
	if (pages_armed && (id >> 32) == target_pid && (__u32)id != injecting_tid)
		page_call(ctx, (long)ctx->args[1]);
#endif
	return 0;
}

/* With pages: a system call of the target that failed with EFAULT, on
 * a protected page maybe. The thread is sent a SIGSEGV, or a SIGSTOP
 * when it blocks SIGSEGV (taken by the recorder, which traces it:
 * watch_pages.c runs the call again with the page unprotected and the
 * other threads stopped), its call's number in efault_threads; where that
 * cannot be done, it is counted. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} efault_threads SEC(".maps");

SEC("raw_tracepoint/sys_exit")
int vsc_sys_exit(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	__u64 nr = 0;

	if (!pages_armed || (id >> 32) != target_pid || tid == injecting_tid)
		return 0;
	if ((long)ctx->args[1] != -14) /* -EFAULT */
		return 0;
	int sig = 11; /* SIGSEGV */
#if defined(__TARGET_ARCH_x86)
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	nr = BPF_CORE_READ(regs, orig_ax);
	/* a thread that blocks SIGSEGV (in a SIGSEGV handler, say) would
	 * keep it pending, see the EFAULT, and die of it when it unblocks:
	 * SIGSTOP instead, which cannot be blocked (taken by the recorder,
	 * never a stop of the program's) */
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	sigset_t blocked = BPF_CORE_READ(task, blocked);
	if (blocked.sig[0] & (1ull << (11 - 1)))
		sig = 19; /* SIGSTOP */
#endif
	if (bpf_map_update_elem(&efault_threads, &tid, &nr, BPF_ANY) == 0 &&
	    bpf_send_signal_thread(sig) == 0)
		return 0;
	bpf_map_delete_elem(&efault_threads, &tid);
	__sync_fetch_and_add(&efault_calls, 1);
	efault_last_nr = nr;
	return 0;
}

/* With pages: an access to a protected page raises SIGSEGV, forced: when
 * the thread blocks SIGSEGV or ignores it, the kernel unblocks it and
 * sets its action to the default, before the recorder sees the fault.
 * Each such fault of the target's, by thread: 1 when it blocked SIGSEGV
 * (the recorder blocks it again), 2 when its action was not the default
 * (a handler or SIG_IGN: lost, counted in segv_actions_reset). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u32);
} fault_segv SEC(".maps");
__u64 segv_actions_reset = 0;

#if defined(__TARGET_ARCH_x86)
SEC("raw_tracepoint/page_fault_user")
int vsc_page_fault(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;

	if (!pages_armed || (id >> 32) != target_pid || !on_pages(ctx->args[0], 1))
		return 0;
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	sigset_t blocked = BPF_CORE_READ(task, blocked);
	__u64 handler = (__u64)BPF_CORE_READ(task, sighand, action[10].sa.sa_handler);
	__u32 how = (blocked.sig[0] & (1ull << (11 - 1))) ? 1 : 0;
	/* SIG_DFL 0, SIG_IGN 1: the action is reset when blocked or ignored */
	if (handler != 0 && (how || handler == 1)) {
		how |= 2;
		__sync_fetch_and_add(&segv_actions_reset, 1);
	}
	bpf_map_update_elem(&fault_segv, &tid, &how, BPF_ANY);
	return 0;
}
#endif

/* With pages: a signal delivered to a handler of the target's whose frame
 * the kernel writes on a protected page (the thread's stack there, or its
 * sigaltstack): the write fails and the kernel kills the thread with
 * SIGSEGV (so would rt_sigreturn reading it back). Counted with the
 * kernel's other writes (kernel_write_calls, number 512: no call). */
#if defined(__TARGET_ARCH_x86)
#define SIGNAL_FRAME_MAX 32768 /* the frame and its xsave area, generously */
SEC("raw_tracepoint/signal_deliver")
int vsc_signal_deliver(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();

	if (!pages_armed || (id >> 32) != target_pid || (__u32)id == injecting_tid)
		return 0;
	struct k_sigaction *ka = (struct k_sigaction *)ctx->args[2];
	__u64 handler = (__u64)BPF_CORE_READ(ka, sa.sa_handler);
	if (handler == 0 || handler == 1) /* SIG_DFL, SIG_IGN: no frame */
		return 0;
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	__u64 sp = BPF_CORE_READ(regs, sp);
	__u64 alt = BPF_CORE_READ(task, sas_ss_sp), alt_size = BPF_CORE_READ(task, sas_ss_size);
	bool hit = sp > SIGNAL_FRAME_MAX && on_pages(sp - SIGNAL_FRAME_MAX, SIGNAL_FRAME_MAX);
	/* SA_ONSTACK: on the alternate stack, when one is set */
	if ((BPF_CORE_READ(ka, sa.sa_flags) & 0x08000000) && alt && alt_size)
		hit = hit || on_pages(alt, alt_size);
	if (hit) {
		__sync_fetch_and_add(&kernel_write_calls, 1);
		kernel_write_last_nr = 512;
	}
	return 0;
}
#endif

__u64 lost_events = 0;  /* ring buffer full */
__u64 lost_threads = 0; /* thread table full: events without a sequence */
__u64 unknown_addr = 0; /* a breakpoint whose address is in no slot */

static __always_inline __u64 read_value(__u64 addr, __u64 len)
{
	__u64 v = 0;

	/* bpf_probe_read_user needs a size known to the verifier. */
	switch (len) {
	case 1: {
		__u8 b = 0;
		bpf_probe_read_user(&b, 1, (void *)addr);
		v = b;
		break;
	}
	case 2: {
		__u16 h = 0;
		bpf_probe_read_user(&h, 2, (void *)addr);
		v = h;
		break;
	}
	case 4: {
		__u32 w = 0;
		bpf_probe_read_user(&w, 4, (void *)addr);
		v = w;
		break;
	}
	default:
		bpf_probe_read_user(&v, 8, (void *)addr);
		break;
	}
	return v;
}

SEC("perf_event")
int watch_hit(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	__u64 addr = ctx->addr; /* bp_addr of the event that fired */
	__u64 len = 0;
	struct thread_state fresh = {}, *ts;
	struct watch_record *rec;
	__u64 seq;
	__u32 gap;

	/* the target ran exec (forks.bpf.h): another program, whose memory
	 * at the watched address is not the variable (the recorder holds it
	 * at its exec stop, before its first instruction, and ends there) */
	if (target_execs && (id >> 32) == target_pid)
		return 0;
	for (__u32 i = 0; i < WATCH_MAX_SLOTS && i < slot_count; i++) {
		if (slots[i].addr == addr) {
			len = slots[i].len;
			break;
		}
	}
	if (!len) {
		__sync_fetch_and_add(&unknown_addr, 1);
		return 0;
	}

	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 start_time = BPF_CORE_READ(task, start_time);

	ts = bpf_map_lookup_elem(&threads, &tid);
	if (!ts) {
		fresh.start_time = start_time;
		bpf_map_update_elem(&threads, &tid, &fresh, BPF_NOEXIST);
		ts = bpf_map_lookup_elem(&threads, &tid);
		if (!ts) {
			__sync_fetch_and_add(&lost_threads, 1);
			return 0;
		}
	}
	if (ts->start_time != start_time) {
		/* the id's old thread has exited; this is a new one */
		ts->start_time = start_time;
		ts->next_seq = 0;
		ts->gap = 0;
		ts->instance++;
	}
	/* Only this thread touches its entry, and it runs one hit at a time. */
	seq = ts->next_seq++;
	gap = ts->gap;

	rec = bpf_ringbuf_reserve(&events, sizeof(*rec), 0);
	if (!rec) {
		ts->gap = 1;
		__sync_fetch_and_add(&lost_events, 1);
		return 0;
	}
	ts->gap = 0;

	struct watch_exact_key key = { .ip = PT_REGS_IP(&ctx->regs), .addr = addr };
	bool exact = bpf_map_lookup_elem(&exact_ips, &key) != NULL;

	rec->ev.seq = seq;
	rec->ev.addr = addr;
	rec->ev.value = exact ? 0 : read_value(addr, len);
	rec->rec_flags = exact ? 0 : WATCH_REC_MEM_READ;
	rec->instance = ts->instance;
	rec->ev.new_value = 0;
	rec->ev.ts_ns = bpf_ktime_get_ns();
	rec->ev.ip = PT_REGS_IP(&ctx->regs);
	rec->ev.pid = id >> 32;
	rec->ev.tid = tid;
	rec->ev.kind = VSC_CAP_LOAD;
	rec->ev.size = len;
	rec->ev.flags = VSC_CAP_F_VALUE_UNSURE | (gap ? VSC_CAP_F_GAP_BEFORE : 0);

	/* The verifier turns each load from ctx->regs into a load from the
	 * trapped task's pt_regs; a helper cannot take ctx as a buffer. */
	const __u64 *regs = (const __u64 *)&ctx->regs;
	const __u32 nregs = sizeof(ctx->regs) / sizeof(__u64);
#pragma unroll
	for (__u32 i = 0; i < WATCH_NREGS; i++)
		rec->regs[i] = i < nregs ? regs[i] : 0;

	/* Waking the recorder on every hit costs the target a context switch
	 * per access; it polls on its own every 100 ms, so wake it only when
	 * the ring buffer is a quarter full. */
	__u64 avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
	__u64 size = bpf_ringbuf_query(&events, BPF_RB_RING_SIZE);
	bpf_ringbuf_submit(rec, avail > size / 4 ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
	return 0;
}
