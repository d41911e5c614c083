/* SPDX-License-Identifier: MIT */
/*
 * The LTTng converter's state, shared by its two halves: ctf_convert.c
 * (messages in: processes, threads, events) and ctf_output.c (the traces
 * out: loss and uncertainty notes, file names). Not a public header.
 */
#ifndef VSC_LTTNG_CTF_CONV_INT_H
#define VSC_LTTNG_CTF_CONV_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "ctf_convert.h"
#include "ctf_fields.h"
#include "userspace/util/hash.h"

struct segment_name {
	int64_t id;
	char *name;
};

/* An object loaded in a process, from lttng_ust_statedump:bin_info. */
struct loaded_object {
	char *path;
	uint64_t base;
};

/* A process: its vpid and, when the trace has the pid_ns context, its pid
 * namespace (containers give pids again: a vpid alone may be several
 * processes). */
struct process {
	uint32_t pid;
	uint64_t pid_ns;           /* the namespace's inode; 0: the trace does not say */
	uint64_t process_id;       /* vsc:thread's process number; 0: none seen */
	uint64_t unmarked_threads; /* first event without a vsc:thread before it */
	int64_t ppid;              /* its parent, from vsc:thread; -1: not known */
	uint64_t left_out;         /* vsc events the pid option left out */
	struct loaded_object *objects;
	size_t nobjects, objects_cap;
	struct vsc_symbols *syms; /* built from objects when first needed */
	bool syms_tried;
	bool has_events; /* vsc events, not only the statedump */
	struct trace_writer *writer;
	/* The marker being handed to the writer: the writer asks for a
	 * segment's name when it first meets it, inside trace_writer_add, so
	 * markers that carry their id need no table of names (a table searched
	 * per marker made 10^6 segments quadratic). */
	int64_t marker_id;
	const char *marker_name;
	/* markers without an id field: names and the ids given to them */
	struct segment_name *segments;
	size_t nsegments, segments_cap;
	char *what;
	char when[40];
	bool notes_added;
};

/* Losses of one process: with per-process buffers (--buffers-pid) every
 * stream belongs to one process, named in its trace's environment. */
struct pid_loss {
	uint32_t pid;
	uint64_t events, packets;
};

struct ctf_conv {
	struct ctf_conv_opts opts;
	struct pid_loss *pid_losses;
	size_t npid_losses, pid_losses_cap;
	struct ctf_fields fields; /* where each event and stream class keeps its fields */
	struct process **procs;   /* each stays put: the writers' naming ctx */
	size_t nprocs, procs_cap;
	struct process *last_process; /* of the last event */
	struct hash_map threads;      /* struct thread_key -> struct thread_state */
	uint64_t discarded_events, discarded_packets;
	uint64_t discarded_unknown; /* messages with no count */
	/* process families (parent links from vsc:thread), found at output:
	 * procs[i]'s family root, and per root the vsc events of all */
	uint32_t *family;
	uint64_t *family_events;
	char error[512];
};

/* Set the error text; returns -err. */
int ctf_conv_fail(struct ctf_conv *conv, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The index-th process with vsc events. */
struct process *ctf_conv_nth_process(const struct ctf_conv *conv, size_t index);
/* Another process with events has p's vpid (another pid namespace). */
bool ctf_conv_pid_shared(const struct ctf_conv *conv, const struct process *p);

#endif /* VSC_LTTNG_CTF_CONV_INT_H */
