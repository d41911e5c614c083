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
 * the pages protected, whether they are now, and the thread that runs a
 * system call of ours (an mprotect) now. */
__u64 page_lo[WATCH_MAX_SLOTS] = {};
__u64 page_size = 0;
__u32 page_count = 0;
__u32 pages_armed = 0;
__u32 injecting_tid = 0;
/* system calls of the target that failed with EFAULT while the pages were
 * protected (the kernel's own access to them refused: unrecorded, and the
 * program saw an error), the last one's number; and calls of the target
 * that change or drop the protected pages (mprotect, munmap, mremap,
 * madvise, mmap over them) */
__u64 efault_calls = 0;
__u64 efault_last_nr = 0;
__u64 page_calls = 0;
__u64 page_last_nr = 0;

#if defined(__TARGET_ARCH_x86)
static __always_inline bool on_pages(__u64 start, __u64 len)
{
	for (__u32 i = 0; i < WATCH_MAX_SLOTS && i < page_count; i++)
		if (start < page_lo[i] + page_size && page_lo[i] < start + len)
			return true;
	return false;
}

static __always_inline void page_call(struct bpf_raw_tracepoint_args *ctx, long nr)
{
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	__u64 start, len;

	/* mmap 9, mprotect 10, munmap 11, mremap 25, madvise 28, pkey_mprotect 329 */
	if (nr != 9 && nr != 10 && nr != 11 && nr != 25 && nr != 28 && nr != 329)
		return;
	start = BPF_CORE_READ(regs, di);
	len = BPF_CORE_READ(regs, si);
	if (nr == 9 && !(BPF_CORE_READ(regs, r10) & 0x10)) /* not MAP_FIXED */
		return;
	if (len && on_pages(start, len)) {
		__sync_fetch_and_add(&page_calls, 1);
		page_last_nr = nr;
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
 * a protected page maybe. The thread is sent a SIGSEGV (taken by the
 * recorder, which traces it: watch_pages.c runs the call again with the
 * page unprotected and the other threads stopped), its call's number in
 * efault_threads; where that cannot be done, it is counted. */
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
#if defined(__TARGET_ARCH_x86)
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	nr = BPF_CORE_READ(regs, orig_ax);
#endif
	if (bpf_map_update_elem(&efault_threads, &tid, &nr, BPF_ANY) == 0 &&
	    bpf_send_signal_thread(11) == 0) /* SIGSEGV */
		return 0;
	bpf_map_delete_elem(&efault_threads, &tid);
	__sync_fetch_and_add(&efault_calls, 1);
	efault_last_nr = nr;
	return 0;
}

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
