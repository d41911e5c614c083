/* SPDX-License-Identifier: MIT */
/*
 * Whether hardware watchpoints fire on this machine. The kernel may offer
 * the breakpoint PMU and accept every breakpoint while the CPU never
 * traps (a virtual machine that does not pass the debug registers
 * through): --watch would then record no access at all, and its trace
 * would look whole (`# lost events: 0`), a plain verdict on nothing.
 */
#ifndef VSC_CAPTURE_WATCH_FIRES_H
#define VSC_CAPTURE_WATCH_FIRES_H

/* A write of ours to a watched variable of ours: 1 when it was counted,
 * 0 when it was not (they do not fire), -errno when no breakpoint could
 * be made (the attach then says why, for the target's threads). */
int watch_breakpoints_fire(void);

#endif /* VSC_CAPTURE_WATCH_FIRES_H */
