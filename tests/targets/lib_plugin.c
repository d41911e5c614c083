/* SPDX-License-Identifier: MIT */
/* A library with vsc probes, built with -fvisibility=hidden: it keeps its
 * own copy of <vsc/probe.h>'s per-thread log (uses_plugin.c). */
#include <vsc/probe.h>

__attribute__((visibility("default"))) int64_t plugin_load64(volatile int64_t *p)
{
	return vsc_load64(p);
}

/* stores 1..n into *p */
__attribute__((visibility("default"))) void plugin_run(volatile int64_t *p, long n)
{
	for (long i = 1; i <= n; i++)
		vsc_store64(p, i);
}
