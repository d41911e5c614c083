/* SPDX-License-Identifier: MIT */
/*
 * The USDT probe capture source: loads bpf/record.bpf.c (libbpf skeleton),
 * attaches vsc:batch and vsc:log in the executable and the libraries of a
 * process that carry them, moves ring buffer events into the trace writer,
 * reads the lost-event count kept by the BPF program, and at the end reads
 * the part-filled probe logs of the (stopped) threads.
 */
#ifndef VSC_CAPTURE_PROBE_SOURCE_H
#define VSC_CAPTURE_PROBE_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "target.h"
#include "trace_writer.h"

struct vsc_probe_source;

struct vsc_probe_source_opts {
	size_t ring_size; /* bytes, a power of 2 multiple of the page size; 0: default */
	struct vsc_trace_writer *writer;
	struct vsc_target *target;
	int verbose; /* libbpf messages on stderr */
};

/* Load the BPF programs. On failure returns -errno and a message in why. */
int vsc_probe_source_open(struct vsc_probe_source **out, const struct vsc_probe_source_opts *opts,
			  char *why, size_t why_len);
/* Attach to every file mapped by the target that carries vsc probes (the
 * executable at least; with extra_path also that file). Files attached
 * earlier are skipped. Returns the number of files attached so far (0: the
 * program has no vsc probes) or -errno with a message. */
int vsc_probe_source_attach(struct vsc_probe_source *src, const char *extra_path, char *why,
			    size_t why_len);
/* Move what the ring buffer holds into the writer, waiting up to timeout_ms
 * for something to arrive. Returns events moved or -errno. */
int vsc_probe_source_poll(struct vsc_probe_source *src, int timeout_ms);
/* Events the BPF program could not deliver (ring buffer full). */
uint64_t vsc_probe_source_lost(const struct vsc_probe_source *src);
uint64_t vsc_probe_source_batches(const struct vsc_probe_source *src);
/* With the target's threads stopped (or the process at its exit): read the
 * entries still in each thread's probe log into the writer. Returns events
 * read or -errno. */
int vsc_probe_source_drain_logs(struct vsc_probe_source *src);
/* Name of segment id as the target gave it (read when its marker came). */
int vsc_probe_source_segment_name(const struct vsc_probe_source *src, int64_t id, char *buf,
				  size_t len);
/* Detach and unload (safe on NULL). */
void vsc_probe_source_close(struct vsc_probe_source *src);

#endif /* VSC_CAPTURE_PROBE_SOURCE_H */
