/* SPDX-License-Identifier: MIT */
/* Whether hardware watchpoints fire here (see watch_fires.h). */
#include "watch_fires.h"

#include <errno.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

int watch_breakpoints_fire(void)
{
	static volatile uint64_t probe;
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_BREAKPOINT,
		.bp_type = HW_BREAKPOINT_RW, /* as the target's (x86 has no read-only) */
		.bp_addr = (uint64_t)(uintptr_t)&probe,
		.bp_len = sizeof(probe),
		.sample_period = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	/* this thread alone, on any CPU */
	int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (int i = 0; i < 4; i++)
		probe = (uint64_t)i + 1;
	uint64_t hits = 0;
	ssize_t n = read(fd, &hits, sizeof(hits));
	int err = errno;
	close(fd);
	if (n != (ssize_t)sizeof(hits))
		return n < 0 ? -err : -EIO;
	return hits > 0;
}
