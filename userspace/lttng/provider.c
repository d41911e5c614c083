/* SPDX-License-Identifier: MIT */
/*
 * libvsc-lttng-ust.so: the probes of the `vsc` tracepoint provider and the
 * tracepoint definitions themselves, so that programs only include the header
 * (through <vsc/probe.h> with -DVSC_PROBE_LTTNG) and link this library.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "vsc/probe-lttng.h"

/* Before a thread's first vsc event: vsc:thread, once per thread. A thread
 * id used again (the kernel hands ids out again after pid_max of them)
 * belongs to a thread started after the old one ended, whose flag is new,
 * so it says vsc:thread again and the converter writes it as TID.N.
 * Called only while a vsc event is enabled: a thread that ran before the
 * session started says it at its first traced event. */
void vsc_lttng_thread(void)
{
	static __thread int announced;

	if (announced || !lttng_ust_tracepoint_enabled(vsc, thread))
		return;
	announced = 1;
	lttng_ust_do_tracepoint(vsc, thread);
}
