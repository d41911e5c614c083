/* SPDX-License-Identifier: MIT */
/*
 * libvsc-lttng-ust.so: the probes of the `vsc` tracepoint provider and the
 * tracepoint definitions themselves, so that programs only include the header
 * (through <vsc/probe.h> with -DVSC_PROBE_LTTNG) and link this library.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "vsc/probe-lttng.h"
