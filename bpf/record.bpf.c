// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * vsc record: BPF half of the USDT probe path. Target threads log accesses
 * into a thread-local log (include/vsc/probe.h) and fire vsc:batch when it is
 * full; this program copies the whole log into the ring buffer as one record
 * (bpf/record.h, struct vsc_record_batch) with one read.
 *
 * Lossless by default: a thread that fires vsc:batch with `blocking` set
 * waits until the recorder, having read the record, acknowledges it (writes
 * `acked` into the log with process_vm_writev: kernels in lockdown refuse
 * bpf_probe_write_user); a batch that did not fit is fired again after a
 * short wait (probe.h), so a full ring slows the program down instead of
 * losing events. A batch fired without `blocking` (drop mode, or a recorder
 * going away) that does not fit is counted in `lost`, never dropped
 * silently.
 *
 * Exactly once: the logs map keeps, per thread, the sequence number below
 * which every entry was handed over (next_seq); a record says how many of
 * its first entries were in an earlier one (skip), and the recorder reads a
 * part-filled log from that number on.
 *
 * A thread's end: when a target thread exits (exit(), a kill, another
 * thread's exec) or calls execve, its log is about to vanish with its
 * address space. The raw tracepoints at system call entry (exit,
 * exit_group, execve) and at signal delivery (SIGKILL, which is also what a
 * thread gets when another one exits or execs, or an unhandled fatal signal)
 * hand it over while the memory is still there (no kprobes or tracefs
 * needed; a core dump or a crash inside the kernel escapes them). If the ring is full then, the map says how many entries
 * were left behind (unsent), and the recorder reads them from memory if it
 * still can, or counts them lost.
 *
 * No architecture-specific code: USDT arguments come through libbpf's
 * usdt.bpf.h, which reads them per the note's argument specs on x86-64 and
 * ARM64 alike.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#include "vsc_event.h"
#include "record.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, VSC_RECORD_DEFAULT_RING); /* --ring-size sets it */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct vsc_record_log_ref);
} logs SEC(".maps");

/* Set by the recorder before loading: the process recorded, and the
 * recorder (whose own writes into it, acknowledgements, are no store of
 * the program). */
const volatile __u32 target_pid = 0;
const volatile __u32 recorder_pid = 0;

#include "forks.bpf.h"

/* system call numbers of exit, exit_group, execve and execveat */
#if defined(__TARGET_ARCH_arm64)
#define NR_EXIT 93
#define NR_EXIT_GROUP 94
#define NR_EXECVE 221
#define NR_EXECVEAT 281
#else
#define NR_EXIT 60
#define NR_EXIT_GROUP 231
#define NR_EXECVE 59
#define NR_EXECVEAT 322
#endif

/* Events that did not fit into the ring buffer or could not be read. */
__u64 lost = 0;
/* Threads that ended with a store or RMW announced but not published
 * (include/vsc/probe.h's helpers announce both): it may have been
 * performed, so the loss count is a lower bound. */
__u64 maybe_lost = 0;
/* Batch records made, and waits of threads for room in the ring. */
__u64 batches = 0;
__u64 waits = 0;

static __always_inline __u32 unsent_of(__u64 seq, __u32 count, __u64 next_seq)
{
	__u64 skip = next_seq > seq ? next_seq - seq : 0;
	return skip >= count ? 0 : count - (__u32)skip;
}

static __always_inline __u32 end_flag(__u32 origin)
{
	return origin == VSC_RECORD_FROM_EXEC ? VSC_RECORD_LOG_EXECED : VSC_RECORD_LOG_ENDED;
}

/* Logs that could not be read (their header, or a copy that moved) where
 * nobody tries again: at a thread's end, or a batch of drop mode. What
 * they held is unknown, so the loss count is a lower bound. */
__u64 unread_logs = 0;

/* The log could not be read. A blocking probe's batch: the thread tries
 * again. At a thread's end: ended, with what it held unknown (the recorder
 * reads it from memory if it still can, else counts it unknown). */
static __always_inline int unreadable(struct vsc_record_log_ref *ref, __u32 origin, bool blocking)
{
	if (origin == VSC_RECORD_FROM_BATCH && blocking)
		return -1;
	if (origin == VSC_RECORD_FROM_BATCH) {
		__sync_fetch_and_add(&unread_logs, 1);
		return -1;
	}
	ref->unsent = 0;
	ref->flags |= end_flag(origin) | VSC_RECORD_LOG_UNREAD;
	return -1;
}

/* The ring is full. A blocking probe's batch: the thread tries again.
 * Otherwise count what is lost now, or (at a thread's end) leave it for the
 * recorder to read from memory. */
static __always_inline void ring_full(struct vsc_record_log_ref *ref, __u64 seq, __u32 count,
				      __u32 pending, __u32 origin, bool blocking)
{
	if (origin == VSC_RECORD_FROM_BATCH && blocking)
		return;
	if (origin == VSC_RECORD_FROM_BATCH) {
		__sync_fetch_and_add(&lost, unsent_of(seq, count, ref->next_seq));
		if (ref->next_seq < seq + count)
			ref->next_seq = seq + count;
		return;
	}
	ref->unsent = unsent_of(seq, count, ref->next_seq);
	ref->flags |= end_flag(origin);
	if (pending > count)
		ref->flags |= VSC_RECORD_LOG_PENDING;
}

/* Copy the log at log_addr into one ring record; returns 0 when it is there
 * (or had nothing new). */
static __always_inline int hand_over(struct vsc_record_log_ref *ref, __u64 log_addr, __u32 origin,
				     bool blocking)
{
	struct vsc_record_log *log = (struct vsc_record_log *)log_addr;
	__u64 id = bpf_get_current_pid_tgid();
	struct vsc_record_batch *rec;
	__u64 seq = 0;
	__u32 count = 0, pending = 0, skip;

	/* the header first: a batch fired again is often there already */
	if (bpf_probe_read_user(&seq, sizeof(seq), &log->seq) ||
	    bpf_probe_read_user(&count, sizeof(count), &log->count) ||
	    bpf_probe_read_user(&pending, sizeof(pending), &log->pending) ||
	    count > VSC_RECORD_LOG_CAP)
		return unreadable(ref, origin, blocking);
	skip = count - unsent_of(seq, count, ref->next_seq);
	if (skip < count) {
		rec = bpf_ringbuf_reserve(&events, sizeof(*rec), 0);
		if (!rec) {
			ring_full(ref, seq, count, pending, origin, blocking);
			return -1;
		}
		if (bpf_probe_read_user(&rec->log, sizeof(rec->log), log) || rec->log.seq != seq ||
		    rec->log.count != count) {
			bpf_ringbuf_discard(rec, BPF_RB_NO_WAKEUP);
			return unreadable(ref, origin, blocking);
		}
		rec->pid = id >> 32;
		rec->tid = (__u32)id;
		rec->skip = skip;
		rec->origin = origin;
		rec->instance = ref->instance;
		rec->reserved = 0;
		rec->log_addr = log_addr;
		bpf_ringbuf_submit(rec, 0);
		__sync_fetch_and_add(&batches, 1);
		ref->next_seq = seq + count;
	}
	if (origin != VSC_RECORD_FROM_BATCH) {
		ref->unsent = 0;
		ref->flags |= end_flag(origin);
		if (pending > count)
			ref->flags |= VSC_RECORD_LOG_PENDING;
	}
	return 0;
}

/* One thread whose probes write into two logs while it lives: a library
 * with its own copy of <vsc/probe.h>'s per-thread state (dlopen'ed by an
 * executable not linked with -rdynamic, or built with -fvisibility=hidden)
 * beside the executable's. Each switch looks like a new thread with the id
 * (the two logs number their entries apart), and the program order between
 * the two logs' entries is lost: the recorder counts the loss as not known
 * and names the objects of the two probe sites (an address in each). Also
 * a thread id used again without its old thread's end being seen (the end
 * hooks missing): its old log's rest is not known either. */
__u64 split_logs = 0;
__u32 split_tid = 0;
__u64 split_ip[2] = {}; /* a probe site of the earlier log, of the new one */

/* The map entry of the calling thread, made on its first sight; ip is the
 * probe site that fired. */
static __always_inline struct vsc_record_log_ref *ref_of(__u64 log_addr, __u64 ip)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, pid = id >> 32;
	struct vsc_record_log_ref *ref = bpf_map_lookup_elem(&logs, &tid);
	struct vsc_record_log *log = (struct vsc_record_log *)log_addr;
	struct vsc_record_log_ref fresh = { .addr = log_addr, .pid = pid };

	if (ref && ref->addr == log_addr && ref->pid == pid &&
	    !(ref->flags & VSC_RECORD_LOG_ENDED)) {
		/* still the same thread, after a failed execve too: its log is
		 * all there, from next_seq on */
		ref->flags = 0;
		ref->unsent = 0;
		return ref;
	}
	if (ref)
		fresh.instance = ref->instance + 1; /* another thread, or an exec */
	if (ref && ref->pid == pid && ref->addr != log_addr &&
	    !(ref->flags & (VSC_RECORD_LOG_ENDED | VSC_RECORD_LOG_EXECED))) {
		if (__sync_fetch_and_add(&split_logs, 1) == 0) {
			split_tid = tid;
			split_ip[0] = ref->ip;
			split_ip[1] = ip;
		}
	}
	fresh.ip = ip;
	if (ref && (ref->flags & (VSC_RECORD_LOG_ENDED | VSC_RECORD_LOG_EXECED))) {
		/* a new log for this thread id (exec, id reuse): the old one's
		 * memory is gone */
		__sync_fetch_and_add(&lost, ref->unsent);
		if (ref->flags & VSC_RECORD_LOG_PENDING)
			__sync_fetch_and_add(&maybe_lost, 1);
		if (ref->flags & VSC_RECORD_LOG_UNREAD)
			__sync_fetch_and_add(&unread_logs, 1);
	}
	bpf_probe_read_user(&fresh.next_seq, sizeof(fresh.next_seq), &log->seq);
	bpf_map_update_elem(&logs, &tid, &fresh, BPF_ANY);
	return bpf_map_lookup_elem(&logs, &tid);
}

/* The target ran exec (forks.bpf.h): a probe that fires now is the new
 * program's, the same binary run again (the probes of a process follow its
 * main thread into its new program), and not recorded. Every thread of
 * the old one handed its log over at its end, before the exec was done. */
static __always_inline bool new_program(void)
{
	return target_execs != 0 && (bpf_get_current_pid_tgid() >> 32) == target_pid;
}

/* blocking: the thread waits for the acknowledgement and fires again if
 * this batch does not fit; otherwise what does not fit is lost (counted). */
SEC("usdt")
int BPF_USDT(vsc_batch, __u64 log_addr, __u64 count_arg, __u64 blocking)
{
	struct vsc_record_log_ref *ref;

	(void)count_arg; /* the log's header is the truth */
	if (new_program())
		return 0;
	ref = ref_of(log_addr, PT_REGS_IP(ctx));
	if (ref)
		hand_over(ref, log_addr, VSC_RECORD_FROM_BATCH, blocking != 0);
	return 0;
}

SEC("usdt")
int BPF_USDT(vsc_log, __u64 log_addr)
{
	if (!new_program())
		ref_of(log_addr, PT_REGS_IP(ctx));
	return 0;
}

SEC("usdt")
int BPF_USDT(vsc_block, __u64 log_addr)
{
	(void)log_addr;
	__sync_fetch_and_add(&waits, 1);
	return 0;
}

/* A thread of the target at its end, its address space still there. */
static __always_inline int thread_end(__u32 origin)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct vsc_record_log_ref *ref;

	if ((id >> 32) != target_pid || new_program())
		return 0;
	ref = bpf_map_lookup_elem(&logs, &tid);
	if (!ref || ref->pid != target_pid ||
	    (ref->flags & (VSC_RECORD_LOG_ENDED | VSC_RECORD_LOG_EXECED)))
		return 0;
	hand_over(ref, ref->addr, origin, false);
	return 0;
}

/* A thread id of the target: the process's own, or one that logged. (A
 * thread that never logged is not known here: a store through its id is
 * not counted, docs/record.md.) */
static __always_inline bool of_target(__u32 tid)
{
	struct vsc_record_log_ref *ref;

	if (tid == target_pid)
		return true;
	ref = bpf_map_lookup_elem(&logs, &tid);
	return ref && ref->pid == target_pid;
}

#include "foreign.bpf.h"

#define SIGNAL_GROUP_EXIT_ 0x4 /* the kernel's signal->flags: a group exit */

/* The main thread's own exit (exit(), not exit_group: pthread_exit) while
 * other threads of the process live: the kernel turns the process's probes
 * off at the next hit (a uprobe attached to a process follows its main
 * thread's memory), and a batch then fired is dropped unseen. The
 * recorder of an attached process (-p) withholds a plain verdict (a
 * launched command's main thread is held at its exit stop, before that).
 * The threads that lived then, the last time. */
__u64 main_left = 0;
__u32 main_left_threads = 0;

static __always_inline void main_leaves(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct task_struct *task;
	int live;

	if (id != ((__u64)target_pid << 32 | target_pid))
		return;
	task = bpf_get_current_task_btf();
	live = BPF_CORE_READ(task, signal, live.counter);
	if (live <= 1 || (BPF_CORE_READ(task, signal, flags) & SIGNAL_GROUP_EXIT_))
		return;
	main_left_threads = live - 1;
	__sync_fetch_and_add(&main_left, 1);
}

#if defined(__TARGET_ARCH_x86)
/* the same in 32-bit (ia32) system calls: a 32-bit program's, or int 0x80
 * in a 64-bit one (in_compat, foreign.bpf.h) */
#define NR32_EXIT 1
#define NR32_EXIT_GROUP 252
#define NR32_EXECVE 11
#define NR32_EXECVEAT 358
#endif

/* The native number of system call nr of a target thread when it is exit,
 * exit_group, execve or execveat, 32-bit ones too; else -1 (a 32-bit call
 * whose number is that of a native one of these is another: 60 umask). */
static __always_inline long end_call(long nr)
{
#if defined(__TARGET_ARCH_x86)
	switch (nr) {
	case NR_EXIT:
	case NR_EXIT_GROUP:
	case NR_EXECVE:
	case NR_EXECVEAT:
	case NR32_EXIT:
	case NR32_EXIT_GROUP:
	case NR32_EXECVE:
	case NR32_EXECVEAT:
		break;
	default:
		return -1;
	}
	if (in_compat())
		return nr == NR32_EXIT         ? NR_EXIT
		       : nr == NR32_EXIT_GROUP ? NR_EXIT_GROUP
		       : nr == NR32_EXECVE     ? NR_EXECVE
		       : nr == NR32_EXECVEAT   ? NR_EXECVEAT
					       : -1;
#endif
	return nr == NR_EXIT || nr == NR_EXIT_GROUP || nr == NR_EXECVE || nr == NR_EXECVEAT ? nr
											    : -1;
}

/* System calls that end a thread or replace its address space, or store
 * into the target's memory from outside, or map memory it may share. */
SEC("raw_tracepoint/sys_enter")
int vsc_sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	long nr = (long)ctx->args[1];
	long end = (bpf_get_current_pid_tgid() >> 32) == target_pid ? end_call(nr) : -1;

	/* the target's end first: a 32-bit exit (1) is no native write */
	if (end == NR_EXECVE || end == NR_EXECVEAT)
		return thread_end(VSC_RECORD_FROM_EXEC);
	if (end == NR_EXIT)
		main_leaves();
	if (end == NR_EXIT || end == NR_EXIT_GROUP)
		return thread_end(VSC_RECORD_FROM_EXIT);
	foreign_sys_enter(ctx, nr);
	return 0;
}

/* Signals whose default action ends the process (not ignore, not stop). */
static __always_inline bool kills_by_default(int sig)
{
	switch (sig) {
	case 17: /* SIGCHLD */
	case 18: /* SIGCONT */
	case 19: /* SIGSTOP */
	case 20: /* SIGTSTP */
	case 21: /* SIGTTIN */
	case 22: /* SIGTTOU */
	case 23: /* SIGURG */
	case 28: /* SIGWINCH */
		return false;
	}
	return sig > 0 && sig < 32;
}

/* A thread about to die of a signal: SIGKILL (also what the other threads
 * get when one calls exit_group or execve), or one it does not handle. */
SEC("raw_tracepoint/signal_deliver")
int vsc_signal_deliver(struct bpf_raw_tracepoint_args *ctx)
{
	int sig = (int)ctx->args[0];
	/* struct k_sigaction begins with sa.sa_handler (x86-64, ARM64) */
	void **ka = (void **)ctx->args[2];
	void *handler = (void *)1;

	if ((bpf_get_current_pid_tgid() >> 32) != target_pid)
		return 0;
	if (sig != 9) {
		if (!kills_by_default(sig) || !ka ||
		    bpf_probe_read_kernel(&handler, sizeof(handler), ka) ||
		    handler != (void *)0 /* SIG_DFL */)
			return 0;
	}
	return thread_end(VSC_RECORD_FROM_EXIT);
}
