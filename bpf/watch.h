/* SPDX-License-Identifier: MIT */
/*
 * Hardware-watchpoint capture: the record watch.bpf.c pushes into its ring
 * buffer. It is the shared capture event (vsc_event.h) followed by the user
 * registers at the moment the breakpoint fired, because only the decoder in
 * userspace can tell a load from a store from an atomic read-modify-write,
 * and it needs the registers to recover exact values (see docs/watch.md).
 */
#ifndef VSC_WATCH_H
#define VSC_WATCH_H

#include "vsc_event.h"

/* Debug-register slots we ever use: 4 on x86-64, up to 16 on ARM64. */
#define WATCH_MAX_SLOTS 16

/* Words of bpf_user_pt_regs_t kept: x86-64 struct pt_regs is 21 words,
 * ARM64 struct user_pt_regs is 34 (x0..x30, sp, pc, pstate). */
#define WATCH_NREGS 34

struct watch_slot {
	__u64 addr; /* watched address (the breakpoint's bp_addr) */
	__u64 len;  /* watched length: 1, 2, 4 or 8 */
};

/* An instruction (reported IP) and watched address whose values userspace
 * takes from the registers alone: the BPF program then does not read the
 * variable. Reading the watched address from the breakpoint handler hits
 * the breakpoint again in kernel mode, which cost ~190 us per access on
 * the VM this was measured on, against ~20 us for the whole hit without. */
struct watch_exact_key {
	__u64 ip;
	__u64 addr;
};

#define WATCH_REC_MEM_READ 1u /* ev.value holds the variable as read by BPF */
/* --watch by pages (userspace/capture/watch_pages.h): ev.value is the
 * variable right after the access and ev.new_value right before it, both
 * read while no other thread ran: exact */
#define WATCH_REC_MEM_STILL 2u

struct watch_record {
	/* kind is VSC_CAP_LOAD and flags has VSC_CAP_F_VALUE_UNSURE until the
	 * decoder in userspace has looked at the instruction; value is the
	 * memory read by the BPF program when the breakpoint fired (after the
	 * access on x86-64, before it on ARM64), zero-extended, when
	 * rec_flags has WATCH_REC_MEM_READ. */
	struct vsc_capture_event ev;
	__u32 rec_flags;
	/* Thread ids are used again (pid_max): 0 for the first thread with
	 * this id in the recording, one more for each later one (told apart by
	 * the task's start time). Its sequence numbers start again at 0. */
	__u32 instance;
	__u64 regs[WATCH_NREGS];
};

#endif /* VSC_WATCH_H */
