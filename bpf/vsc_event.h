/* SPDX-License-Identifier: MIT */
/*
 * The one capture event: what every capture path (USDT probes, hardware
 * watchpoints, LTTng conversion) hands to the trace writer. Shared by BPF
 * programs (built with vmlinux.h) and userspace (built with linux/types.h).
 *
 * Layout rules: fixed-size fields only, naturally aligned, 64 bytes, no
 * pointers, so the BPF ring buffer record and the userspace struct are the
 * same bytes on x86-64 and ARM64.
 */
#ifndef VSC_EVENT_H
#define VSC_EVENT_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

enum vsc_capture_kind {
	VSC_CAP_LOAD = 0,    /* read of value */
	VSC_CAP_STORE = 1,   /* write of value */
	VSC_CAP_RMW = 2,     /* atomic: read value, write new_value */
	VSC_CAP_SEGMENT = 3, /* this thread starts segment number `value`
				(addr: optional user address of its name) */
	VSC_CAP_NESTED = 4,  /* `value` accesses of this thread were made by
				probes inside one of its probes (a signal
				handler): performed, not recorded (lost) */
};

enum vsc_capture_flags {
	/* The value is not known exactly (e.g. a watchpoint read it after the
	 * access and another thread may have changed it in between). */
	VSC_CAP_F_VALUE_UNSURE = 1u << 0,
	/* Events of this thread were lost just before this one. */
	VSC_CAP_F_GAP_BEFORE = 1u << 1,
	/* Performed as the recording began: maybe before it, maybe after. A
	 * load is left out (either way the rest stays a consistent cut); a
	 * store or RMW makes the trace uncertain. */
	VSC_CAP_F_AT_START = 1u << 2,
};

struct vsc_capture_event {
	__u64 seq;       /* per-thread sequence number: program order */
	__u64 addr;      /* address accessed, in the target's address space */
	__s64 value;     /* value read or written; RMW: old value */
	__s64 new_value; /* RMW only: value written */
	__u64 ts_ns;     /* CLOCK_MONOTONIC nanoseconds (bpf_ktime_get_ns) */
	__u64 ip;        /* instruction pointer of the access (0: unknown) */
	__u32 pid;       /* process id (kernel tgid) */
	__u32 tid;       /* thread id (kernel pid) */
	__u16 kind;      /* enum vsc_capture_kind */
	__u16 size;      /* bytes accessed: 1, 2, 4 or 8 */
	__u32 flags;     /* enum vsc_capture_flags */
};

#if !defined(__VMLINUX_H__) && !defined(__cplusplus)
_Static_assert(sizeof(struct vsc_capture_event) == 64,
	       "struct vsc_capture_event must stay 64 bytes");
#endif

#endif /* VSC_EVENT_H */
