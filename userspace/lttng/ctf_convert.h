/* SPDX-License-Identifier: MIT */
/*
 * The LTTng converter core, shared by `vsc convert` and the babeltrace2
 * plugin (sink.vsc.text, sink.vsc.check): it takes babeltrace2 messages from
 * a CTF trace of the `vsc` tracepoint provider and turns them into capture
 * events for the one trace writer, one writer per traced process.
 *
 * Threads come from the `vtid` context, processes from `vpid` and, when the
 * trace has it, `pid_ns` (containers give pids again); program order
 * is the order in which the (time-ordered) message stream delivers a
 * thread's events. Discarded events and packets are counted, never hidden.
 * Addresses are named with the libelf symbolizer when the trace holds the
 * processes' lttng_ust_statedump:bin_info events (the objects they loaded).
 */
#ifndef VSC_LTTNG_CTF_CONVERT_H
#define VSC_LTTNG_CTF_CONVERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <babeltrace2/babeltrace.h>

struct ctf_conv;

struct ctf_conv_opts {
	size_t sz;
	int64_t pid; /* keep only this process; -1 keeps every process */
	/* with pid: only in this pid namespace (its inode; 0: any). A trace
	 * without the pid_ns context is not filtered by it. */
	uint64_t pid_ns;
	const char *what;   /* "# what:" line; NULL: the traced process */
	bool no_timestamps; /* leave out the @TS hints */
	/* Globals start with their values in the ELF files (the trace covers
	 * the processes from their start). Needs the statedump, as naming does. */
	bool elf_init;
	/* "# loss mode:" line: "block" when the traced programs waited for
	 * buffer space, "drop" when LTTng discarded events; NULL: no line. */
	const char *loss_mode;
};

/* opts: NULL (every process, the defaults) or a struct declared with
 * VSC_OPTS, read by the library's size rule (userspace/lib/opts.h). NULL
 * with errno set: out of memory, or EINVAL (options this code does not
 * know). */
struct ctf_conv *ctf_conv_new(const struct ctf_conv_opts *opts);
void ctf_conv_free(struct ctf_conv *conv);

/* Take one message. Returns 0, or a negative errno with a reason in
 * ctf_conv_error() (-EINVAL: the trace lacks what vsc needs). */
int ctf_conv_message(struct ctf_conv *conv, const bt_message *msg);
const char *ctf_conv_error(const struct ctf_conv *conv);
bool ctf_conv_failed(const struct ctf_conv *conv);

/* Processes seen, in order of their first vsc event. */
size_t ctf_conv_process_count(const struct ctf_conv *conv);
uint32_t ctf_conv_process_pid(const struct ctf_conv *conv, size_t index);
/* Its pid namespace's inode; 0: the trace has no pid_ns context. */
uint64_t ctf_conv_process_pid_ns(const struct ctf_conv *conv, size_t index);
/* "pid N", or "pid N of pid namespace I" when another process has its pid. */
void ctf_conv_process_label(const struct ctf_conv *conv, size_t index, char *buf, size_t len);
size_t ctf_conv_event_count(const struct ctf_conv *conv, size_t index);
uint64_t ctf_conv_discarded_events(const struct ctf_conv *conv);
uint64_t ctf_conv_discarded_packets(const struct ctf_conv *conv);

/* Write the trace of process `index` (0 or a negative errno). */
int ctf_conv_write(struct ctf_conv *conv, size_t index, FILE *out);
int ctf_conv_write_file(struct ctf_conv *conv, size_t index, const char *path);

/* Write every process: path NULL or "-" is standard output and needs exactly
 * one process; with several processes, process PID goes to "path.PID" (the
 * names are told on stderr). 0 or a negative errno, reason in
 * ctf_conv_error(). */
int ctf_conv_write_all(struct ctf_conv *conv, const char *path);

/* Say the losses on stderr (nothing when there are none), and the events
 * of other processes that the pid option left out. */
void ctf_conv_report_losses(const struct ctf_conv *conv);

#endif /* VSC_LTTNG_CTF_CONVERT_H */
