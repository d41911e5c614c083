/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Children of the target, for the recorders (record.bpf.c, watch.bpf.c;
 * include it once, after `target_pid`). A process the target forks runs
 * the program's code in a copy of its memory until it runs exec, and a
 * MAP_SHARED mapping is the parent's memory too; it is not recorded. The
 * recorder counts those that did not run exec (children_forked -
 * children_execed) and withholds a plain verdict (docs/record.md).
 */
#ifndef VSC_BPF_FORKS_H
#define VSC_BPF_FORKS_H

__u64 children_forked = 0;
__u64 children_execed = 0;
/* Execs of the target itself (its main thread's, or another thread's,
 * which kills every other and takes the main thread's id): from the first
 * on the process runs another program, whose addresses mean nothing to
 * the recording. The recorder ends the recording there; what the new
 * program does is not the program recorded (record.bpf.c drops it). */
__u64 target_execs = 0;
/* The target's pid taken by a new process after the target's end: that
 * process's exec is not the target's (the recorder may look only after
 * both, and find the target gone). */
__u32 target_pid_taken = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32); /* tgid of a child that has not run exec */
	__type(value, __u8);
} children SEC(".maps");

/* A new process of the target or of one of its children (a new thread is
 * not one: same tgid). */
SEC("raw_tracepoint/sched_process_fork")
int vsc_fork(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *parent = (struct task_struct *)ctx->args[0];
	struct task_struct *child = (struct task_struct *)ctx->args[1];
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (ctgid == target_pid && ctgid != ptgid) {
		target_pid_taken = 1;
		return 0;
	}
	if (ctgid == ptgid || (ptgid != target_pid && !bpf_map_lookup_elem(&children, &ptgid)))
		return 0;
	__sync_fetch_and_add(&children_forked, 1);
	bpf_map_update_elem(&children, &ctgid, &one, BPF_ANY); /* full: never execs */
	return 0;
}

/* A child ran exec: from now on it is another program, not a copy. So
 * does the target, when it is the one. */
SEC("raw_tracepoint/sched_process_exec")
int vsc_exec(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	(void)ctx;
	if (tgid == target_pid) {
		if (!target_pid_taken)
			__sync_fetch_and_add(&target_execs, 1);
		return 0;
	}
	if (bpf_map_delete_elem(&children, &tgid) == 0)
		__sync_fetch_and_add(&children_execed, 1);
	return 0;
}

#endif /* VSC_BPF_FORKS_H */
