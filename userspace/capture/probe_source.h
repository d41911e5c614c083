/* SPDX-License-Identifier: MIT */
/*
 * The USDT probe capture source: loads bpf/record.bpf.c (libbpf skeleton),
 * attaches vsc:block (unless lossy), vsc:log and vsc:batch in the executable
 * and the libraries of a process that carry them, and the thread-end hooks;
 * moves ring buffer batches into the trace writer and acknowledges them to
 * the waiting threads (back-pressure), reads the lost-event count kept by
 * the BPF program, and at the end reads the part-filled probe logs of the
 * (stopped) threads from where the ring left off, stepping a thread out of
 * an announced RMW. It plugs into the recorder (recorder.h).
 */
#ifndef VSC_CAPTURE_PROBE_SOURCE_H
#define VSC_CAPTURE_PROBE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "recorder.h"

/* A capture source for the recorder (recorder.h): load, attach to the
 * target's files with vsc probes (refused when there are none), poll the
 * ring buffer, and at the end read the part-filled logs of the stopped
 * threads. Segment names are read from the target when a marker comes. */
/* lossy: threads never wait; what does not fit is dropped and counted. */
struct capture_source *probe_source_new(size_t ring_size, bool lossy, bool verbose);

#endif /* VSC_CAPTURE_PROBE_SOURCE_H */
