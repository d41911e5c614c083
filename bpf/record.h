/* SPDX-License-Identifier: MIT */
/*
 * What bpf/record.bpf.c and `vsc record` share besides the capture event
 * (bpf/vsc_event.h): the layout of a target thread's probe log, as
 * include/vsc/probe.h writes it (the recorder checks the two agree), and the
 * value of the `logs` map.
 */
#ifndef VSC_RECORD_H
#define VSC_RECORD_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define VSC_RECORD_LOG_CAP 256                     /* VSC_PROBE_LOG_CAP */
#define VSC_RECORD_LOG_MAGIC 0x7673632d6c6f6732ULL /* VSC_PROBE_LOG_MAGIC */
#define VSC_RECORD_DEFAULT_RING (16u << 20)        /* bytes: about 1300 batches */
#define VSC_RECORD_MIN_RING (64u << 10)            /* bytes: 5 batches */

struct vsc_record_entry { /* struct vsc_probe_entry */
	__u64 addr;
	__s64 value;
	__s64 new_value;
	__u64 ts_ns;
	__u64 ip;
	__u16 kind;
	__u16 size;
	__u32 flags; /* VSC_PROBE_F_* of <vsc/probe.h>: VSC_RECORD_F_AT_START */
};
#define VSC_RECORD_F_AT_START 1u /* VSC_PROBE_F_AT_START */

struct vsc_record_log { /* struct vsc_probe_log */
	__u64 magic;
	__u64 seq;
	__u32 count;
	__u32 tid;
	__u32 announced;
	__u32 pending;
	__u64 acked;
	struct vsc_record_entry entries[VSC_RECORD_LOG_CAP];
};

/* Why a batch record was made. */
enum vsc_record_origin {
	VSC_RECORD_FROM_BATCH = 0, /* vsc:batch (a full log, or a thread's end) */
	VSC_RECORD_FROM_EXIT = 1,  /* the thread was exiting (exit, kill, exec) */
	VSC_RECORD_FROM_EXEC = 2,  /* the thread called execve */
};

/* One ring buffer record: a copy of a thread's log. Entries [skip, count)
 * are new; those below skip were in an earlier record. */
struct vsc_record_batch {
	__u32 pid;
	__u32 tid;
	__u32 skip;
	__u32 origin;   /* enum vsc_record_origin */
	__u32 instance; /* vsc_record_log_ref.instance of the thread */
	__u32 reserved;
	__u64 log_addr; /* where the log lives (the recorder acknowledges there) */
	struct vsc_record_log log;
};

/* What a part-filled log held when its thread ended and could not be
 * handed over (the ring buffer was full); the recorder reads it from memory
 * if the process is still there, else counts it lost. */
enum vsc_record_log_flags {
	VSC_RECORD_LOG_ENDED = 1u << 0,   /* the thread exited */
	VSC_RECORD_LOG_PENDING = 1u << 1, /* it ended with a store or RMW announced:
					     performed or not, unknown */
	VSC_RECORD_LOG_EXECED = 1u << 2,  /* it called execve (which may fail) */
	VSC_RECORD_LOG_UNREAD = 1u << 3,  /* its end could not read the log: what
					     it held is unknown */
};

/* logs map: thread id -> where its log lives and what was handed over */
struct vsc_record_log_ref {
	__u64 addr;
	__u64 next_seq; /* every entry below was put into the ring (or counted lost) */
	__u32 pid;
	__u32 flags;  /* enum vsc_record_log_flags */
	__u32 unsent; /* entries of an ended thread not handed over */
	/* Thread ids are used again (pid_max): 0 for the first thread with this
	 * id in the recording, one more for each later one (a new log after an
	 * exit or exec). Its sequence numbers start again, so the recorder must
	 * not take its events for copies of the old thread's. */
	__u32 instance;
	__u32 reserved;
	__u64 ip; /* the probe site that fired when this entry was made */
};

#endif /* VSC_RECORD_H */
