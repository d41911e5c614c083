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

#define VSC_RECORD_LOG_CAP 256 /* VSC_PROBE_LOG_CAP */
#define VSC_RECORD_LOG_MAGIC 0x7673632d6c6f6731ULL /* VSC_PROBE_LOG_MAGIC */
#define VSC_RECORD_DEFAULT_RING (16u << 20) /* bytes: 262144 events */

struct vsc_record_entry { /* struct vsc_probe_entry */
	__u64 addr;
	__s64 value;
	__s64 new_value;
	__u64 ts_ns;
	__u64 ip;
	__u16 kind;
	__u16 size;
	__u32 reserved;
};

struct vsc_record_log { /* struct vsc_probe_log */
	__u64 magic;
	__u64 seq;
	__u32 count;
	__u32 tid;
	__u32 announced;
	__u32 flushing;
	struct vsc_record_entry entries[VSC_RECORD_LOG_CAP];
};

/* logs map: thread id -> where its log lives */
struct vsc_record_log_ref {
	__u64 addr;
	__u32 pid;
	__u32 pad;
};

#endif /* VSC_RECORD_H */
