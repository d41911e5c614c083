/* SPDX-License-Identifier: MIT */
/* The LTTng converter core: babeltrace2 messages in, capture events out. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/capture/symbols.h"
#include "ctf_conv_int.h"
#include "userspace/capture/trace_writer.h"
#include "userspace/lib/opts.h"
#include "userspace/util/array.h"
#include "userspace/util/hash.h"
#include "vsc/vsc.h"

/* The key of the per-thread event counters (16 bytes, no padding). */
struct thread_key {
	uint64_t pid_ns;
	uint32_t pid, tid;
};

/* Where a thread id is: the how-manieth thread with this id (ids are used
 * again), and the next program-order number of its events. */
struct thread_state {
	uint64_t next_seq;
	uint32_t instance;
};

int ctf_conv_fail(struct ctf_conv *conv, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(conv->error, sizeof(conv->error), fmt, ap);
	va_end(ap);
	return -err;
}

struct ctf_conv *ctf_conv_new(const struct ctf_conv_opts *opts)
{
	struct ctf_conv *conv = calloc(1, sizeof(*conv));

	if (!conv)
		return NULL;
	/* the library's rule for an options struct's size (opts.h) */
	if (OPTS_LOAD(conv->opts, opts)) {
		free(conv);
		errno = EINVAL;
		return NULL;
	}
	if (!opts)
		conv->opts.pid = -1; /* every process */
	hash_map_init(&conv->threads, sizeof(struct thread_key), sizeof(struct thread_state));
	return conv;
}

void ctf_conv_free(struct ctf_conv *conv)
{
	if (!conv)
		return;
	for (size_t i = 0; i < conv->nprocs; i++) {
		struct process *p = conv->procs[i];

		trace_writer_free(p->writer);
		for (size_t j = 0; j < p->nsegments; j++)
			free(p->segments[j].name);
		free(p->segments);
		free(p->what);
		for (size_t j = 0; j < p->nobjects; j++)
			free(p->objects[j].path);
		free(p->objects);
		vsc_symbols_free(p->syms);
		free(p);
	}
	free(conv->procs);
	free(conv->family);
	free(conv->family_events);
	free(conv->pid_losses);
	ctf_fields_free(&conv->fields);
	hash_map_free(&conv->threads);
	free(conv);
}

bool ctf_conv_failed(const struct ctf_conv *conv)
{
	return conv->error[0] != 0;
}

const char *ctf_conv_error(const struct ctf_conv *conv)
{
	return conv->error[0] ? conv->error : "unknown error";
}

/* Processes with vsc events count; those only in the statedump do not. */
size_t ctf_conv_process_count(const struct ctf_conv *conv)
{
	size_t n = 0;

	for (size_t i = 0; i < conv->nprocs; i++)
		n += conv->procs[i]->has_events;
	return n;
}

struct process *ctf_conv_nth_process(const struct ctf_conv *conv, size_t index)
{
	for (size_t i = 0; i < conv->nprocs; i++)
		if (conv->procs[i]->has_events && index-- == 0)
			return conv->procs[i];
	return NULL;
}

/* Another process with events has this one's vpid (another namespace). */
bool ctf_conv_pid_shared(const struct ctf_conv *conv, const struct process *p)
{
	for (size_t i = 0; i < conv->nprocs; i++)
		if (conv->procs[i] != p && conv->procs[i]->has_events &&
		    conv->procs[i]->pid == p->pid)
			return true;
	return false;
}

uint64_t ctf_conv_process_pid_ns(const struct ctf_conv *conv, size_t index)
{
	return ctf_conv_nth_process(conv, index)->pid_ns;
}

void ctf_conv_process_label(const struct ctf_conv *conv, size_t index, char *buf, size_t len)
{
	const struct process *p = ctf_conv_nth_process(conv, index);

	if (ctf_conv_pid_shared(conv, p))
		snprintf(buf, len, "pid %" PRIu32 " of pid namespace %" PRIu64, p->pid, p->pid_ns);
	else
		snprintf(buf, len, "pid %" PRIu32, p->pid);
}

uint32_t ctf_conv_process_pid(const struct ctf_conv *conv, size_t index)
{
	return ctf_conv_nth_process(conv, index)->pid;
}

size_t ctf_conv_event_count(const struct ctf_conv *conv, size_t index)
{
	return (size_t)trace_writer_events(ctf_conv_nth_process(conv, index)->writer);
}

uint64_t ctf_conv_discarded_events(const struct ctf_conv *conv)
{
	return conv->discarded_events;
}

uint64_t ctf_conv_discarded_packets(const struct ctf_conv *conv)
{
	return conv->discarded_packets;
}

/* ---- processes and threads ---------------------------------------------- */

/* The naming callbacks' ctx is the writer's own process. */
static int segment_name_cb(void *ctx, uint32_t pid, int64_t id, uint64_t name_addr, char *buf,
			   size_t len)
{
	struct process *p = ctx;

	(void)pid;
	(void)name_addr;
	if (p->marker_name && p->marker_id == id) {
		snprintf(buf, len, "%s", p->marker_name);
		return 0;
	}
	for (size_t j = 0; j < p->nsegments; j++) {
		if (p->segments[j].id == id && p->segments[j].name) {
			snprintf(buf, len, "%s", p->segments[j].name);
			return 0;
		}
	}
	return -ENOENT;
}

/* ---- naming through the libelf symbolizer ------------------------------- */

/* The symbolizer of a process, from the objects its statedump listed; NULL
 * when there were none (the session did not enable lttng_ust_statedump:*). */
static struct vsc_symbols *process_symbols(struct process *p)
{
	if (p->syms_tried)
		return p->syms;
	p->syms_tried = true;
	if (!p->nobjects)
		return NULL;
	p->syms = vsc_symbols_new_offline();
	for (size_t i = 0; p->syms && i < p->nobjects; i++)
		vsc_symbols_add_object(p->syms, p->objects[i].path, p->objects[i].base);
	return p->syms;
}

static int name_var_cb(void *ctx, uint32_t pid, uint64_t addr, uint32_t size, char *buf, size_t len)
{
	struct vsc_symbols *syms = process_symbols(ctx);

	(void)pid;
	(void)size;
	return syms ? vsc_symbols_name(syms, addr, buf, len) : -ENOENT;
}

static int init_value_cb(void *ctx, uint32_t pid, uint64_t addr, uint32_t size, int64_t *value)
{
	struct vsc_symbols *syms = process_symbols(ctx);

	(void)pid;
	return syms ? vsc_symbols_init_value(syms, addr, size, value) : 0;
}

static int locate_cb(void *ctx, uint32_t pid, uint64_t ip, char *buf, size_t len)
{
	struct vsc_symbols *syms = process_symbols(ctx);

	(void)pid;
	return syms ? vsc_symbols_locate(syms, ip, buf, len) : -ENOENT;
}

/* A statedump lists the objects loaded now: one that starts before any
 * name was looked up replaces the earlier list (a process that ran exec:
 * the objects of the program it was before are gone). */
static int statedump_starts(struct process *p)
{
	if (p->syms_tried)
		return 0;
	for (size_t j = 0; j < p->nobjects; j++)
		free(p->objects[j].path);
	p->nobjects = 0;
	return 0;
}

static int add_object(struct ctf_conv *conv, struct process *p, const bt_field *payload,
		      const struct class_info *ci)
{
	const char *path;

	if (ci->baddr == NO_MEMBER || ci->path == NO_MEMBER)
		return 0;
	path = bt_field_string_get_value(ctf_member(payload, ci->path));
	if (path[0] != '/')
		return 0; /* [vdso] and the like */
	if (ARRAY_RESERVE(p->objects, p->objects_cap, p->nobjects + 1))
		return ctf_conv_fail(conv, ENOMEM, "out of memory");
	p->objects[p->nobjects].path = strdup(path);
	if (!p->objects[p->nobjects].path)
		return ctf_conv_fail(conv, ENOMEM, "out of memory");
	p->objects[p->nobjects++].base = (uint64_t)ctf_read_int(ctf_member(payload, ci->baddr));
	return 0;
}

/* "20261202T170406+0000" (LTTng's trace_creation_datetime) in the form the
 * trace writer uses, "2026-12-02T17:04:06Z"; empty when it is not there. */
static void trace_when(const bt_event *event, char *buf, size_t len)
{
	const bt_trace *trace = bt_stream_borrow_trace_const(bt_event_borrow_stream_const(event));
	const bt_value *v = bt_trace_borrow_environment_entry_value_by_name_const(
		trace, "trace_creation_datetime");
	const char *t;

	buf[0] = 0;
	if (!v || !bt_value_is_string(v))
		return;
	t = bt_value_string_get(v);
	if (strlen(t) >= 15 && t[8] == 'T')
		snprintf(buf, len, "%.4s-%.2s-%.2sT%.2s:%.2s:%.2s%s", t, t + 4, t + 6, t + 9,
			 t + 11, t + 13, strcmp(t + 15, "+0000") == 0 ? "Z" : t + 15);
	else
		snprintf(buf, len, "%s", t);
}

static struct process *process(struct ctf_conv *conv, uint64_t pid_ns, uint32_t pid)
{
	struct process *p = conv->last_process;

	/* events come in runs of one process: look at the last one first */
	if (p && p->pid == pid && p->pid_ns == pid_ns)
		return p;
	for (size_t i = conv->nprocs; i-- > 0;)
		if (conv->procs[i]->pid == pid && conv->procs[i]->pid_ns == pid_ns)
			return conv->last_process = conv->procs[i];
	if (ARRAY_RESERVE(conv->procs, conv->procs_cap, conv->nprocs + 1))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->pid_ns = pid_ns;
	p->ppid = -1;
	conv->procs[conv->nprocs++] = p;
	return conv->last_process = p;
}

/* The process's trace writer, opened at its first vsc event: the header
 * names the process as that event's thread sees it (a statedump comes from
 * LTTng's own thread, "NAME-ust", or from the program before an exec). */
static int open_writer(struct ctf_conv *conv, struct process *p, const bt_event *event,
		       const char *procname)
{
	uint64_t pid_ns = p->pid_ns;
	char what[512];
	int n;

	if (p->writer)
		return 0;
	n = snprintf(what, sizeof(what), "pid %" PRIu32, p->pid);
	if (procname && n > 0 && (size_t)n < sizeof(what))
		n += snprintf(what + n, sizeof(what) - (size_t)n, " (%s)", procname);
	if (pid_ns && n > 0 && (size_t)n < sizeof(what))
		n += snprintf(what + n, sizeof(what) - (size_t)n, " in pid namespace %" PRIu64,
			      pid_ns);
	if (conv->opts.what && n > 0 && (size_t)n < sizeof(what))
		snprintf(what + n, sizeof(what) - (size_t)n, ", LTTng trace %s", conv->opts.what);
	p->what = strdup(what);
	if (!p->what)
		return ctf_conv_fail(conv, ENOMEM, "out of memory");
	trace_when(event, p->when, sizeof(p->when));

	VSC_OPTS(trace_writer_opts, wopts, .what = p->what, .when = p->when[0] ? p->when : NULL,
		 .how = pid_ns ? "LTTng-UST tracepoints (provider vsc, context vtid/vpid/pid_ns), "
				 "converted from CTF with libbabeltrace2"
			       : "LTTng-UST tracepoints (provider vsc, context vtid/vpid), "
				 "converted from CTF with libbabeltrace2",
		 .naming = { .segment_name = segment_name_cb,
			     .var_name = name_var_cb,
			     .init_value = conv->opts.elf_init ? init_value_cb : NULL,
			     .locate = locate_cb,
			     .ctx = p },
		 .no_timestamps = conv->opts.no_timestamps, .loss_mode = conv->opts.loss_mode);
	/* the destination is chosen after the conversion: lines spill meanwhile */
	if (trace_writer_open(&p->writer, NULL, &wopts))
		return ctf_conv_fail(conv, ENOMEM, "out of memory");
	return 0;
}

/* The next program-order number of thread tid of process p. A thread
 * whose first event came without a vsc:thread before it (a provider built
 * before the marker, a session that did not enable it, or a lost marker)
 * is counted: its id may stand for several threads. */
static int next_seq(struct process *p, struct hash_map *threads, uint32_t tid, uint64_t *seq)
{
	struct thread_key key = { p->pid_ns, p->pid, tid };
	bool added;
	struct thread_state *ts = hash_map_put(threads, &key, &added);

	if (!ts)
		return -ENOMEM;
	p->unmarked_threads += added;
	*seq = ts->next_seq++; /* a new thread's counter starts at 0 */
	return 0;
}

/* vsc:thread: a thread's first event follows. When its id was seen before,
 * the kernel handed the id out again: the old thread has ended, and this
 * is another one, written TID.N (a thread with this id seen before,
 * nothing lost: the writer ends the old one). */
static int thread_starts(struct ctf_conv *conv, struct process *p, uint32_t tid)
{
	struct thread_key key = { p->pid_ns, p->pid, tid };
	bool added;
	struct thread_state *ts = hash_map_put(&conv->threads, &key, &added);
	int err;

	if (!ts)
		return ctf_conv_fail(conv, ENOMEM, "out of memory");
	if (added)
		return 0; /* the id's first thread */
	*ts = (struct thread_state){ .instance = ts->instance + 1 };
	err = trace_writer_thread_instance(p->writer, p->pid, tid, ts->instance);
	return err < 0 ? ctf_conv_fail(conv, -err, "out of memory") : 0;
}

/* What a vsc:thread marker says of its process (providers since
 * 2026-12-06; older markers have no fields and pass): its own pid and tid
 * must be the vpid and vtid contexts, and its process number the one of
 * the process's earlier markers. Else two processes' events carry one
 * label, and no conversion can tell them apart. */
static int marker_agrees(struct ctf_conv *conv, struct process *p, const bt_field *payload,
			 const struct class_info *ci, uint32_t tid)
{
	uint64_t id;

	if (ci->pid != NO_MEMBER && ci->tid != NO_MEMBER &&
	    (ctf_read_int(ctf_member(payload, ci->pid)) != (int64_t)p->pid ||
	     ctf_read_int(ctf_member(payload, ci->tid)) != (int64_t)tid))
		return ctf_conv_fail(
			conv, EINVAL,
			"process %" PRId64 " (thread %" PRId64 ") has events labelled "
			"pid %" PRIu32 ", thread %" PRIu32 ": a child forked without "
			"LTTng-UST's fork wrapper keeps its parent's ids, so its events "
			"cannot be told from the parent's; trace again with "
			"LD_PRELOAD=liblttng-ust-fork.so (vsc-lttng sets it)",
			ctf_read_int(ctf_member(payload, ci->pid)),
			ctf_read_int(ctf_member(payload, ci->tid)), p->pid, tid);
	if (ci->process == NO_MEMBER)
		return 0;
	id = (uint64_t)ctf_read_int(ctf_member(payload, ci->process));
	if (!p->process_id)
		p->process_id = id;
	if (p->process_id == id)
		return 0;
	if (p->pid_ns)
		return ctf_conv_fail(conv, EINVAL,
				     "pid %" PRIu32 " of pid namespace %" PRIu64 " belongs to two "
				     "processes, one after the other; their events cannot be "
				     "told apart (keep the session to one run of the program)",
				     p->pid, p->pid_ns);
	return ctf_conv_fail(conv, EINVAL,
			     "pid %" PRIu32 " belongs to two processes (in different pid "
			     "namespaces, or one after the other), and the trace has no "
			     "pid_ns context to tell them apart; trace again after "
			     "`lttng add-context -u -t pid_ns` (vsc-lttng adds it)",
			     p->pid);
}

/* A segment marker carries a name; the writer wants a number. */
static int segment_id(struct process *p, const bt_field *payload, const struct class_info *ci,
		      int64_t *id)
{
	const char *name = NULL;

	if (ci->name != NO_MEMBER)
		name = bt_field_string_get_value(ctf_member(payload, ci->name));
	if (name && !name[0])
		name = NULL; /* the probe had no name: the number names it */
	if (ci->id != NO_MEMBER) {
		*id = ctf_read_int(ctf_member(payload, ci->id));
		p->marker_id = *id;
		p->marker_name = name;
		return 0;
	}
	*id = (int64_t)p->nsegments;
	for (size_t j = 0; name && j < p->nsegments; j++) {
		if (p->segments[j].name && strcmp(p->segments[j].name, name) == 0) {
			*id = p->segments[j].id;
			return 0;
		}
	}
	if (ARRAY_RESERVE(p->segments, p->segments_cap, p->nsegments + 1))
		return -ENOMEM;
	p->segments[p->nsegments].id = *id;
	p->segments[p->nsegments].name = name ? strdup(name) : NULL;
	if (name && !p->segments[p->nsegments].name)
		return -ENOMEM;
	p->nsegments++;
	return 0;
}

/* ---- messages ------------------------------------------------------------ */

/* Whether the options keep the process (pid, pid namespace). */
static bool kept(const struct ctf_conv *conv, int64_t pid, uint64_t pid_ns)
{
	return (conv->opts.pid < 0 || pid == conv->opts.pid) &&
	       (!conv->opts.pid_ns || !pid_ns || pid_ns == conv->opts.pid_ns);
}

/* A marker's ppid (its process's parent), kept or not: a family of
 * processes may share memory (docs/lttng.md). */
static void note_parent(struct process *p, const bt_field *payload, const struct class_info *ci)
{
	if (ci->ppid != NO_MEMBER && p->ppid < 0)
		p->ppid = ctf_read_int(ctf_member(payload, ci->ppid));
}

/* The event's time in nanoseconds from its clock snapshot (0: no clock). */
static uint64_t event_time_ns(const bt_message *msg, const struct stream_info *si)
{
	uint64_t cycles;

	if (!si->frequency)
		return 0;
	cycles = bt_clock_snapshot_get_value(
		bt_message_event_borrow_default_clock_snapshot_const(msg));
	return si->frequency == 1000000000u
		       ? cycles
		       : (uint64_t)((double)cycles * 1e9 / (double)si->frequency);
}

/* A segment marker's or an access's payload into ev. */
static int read_payload(struct ctf_conv *conv, struct process *p, const struct class_info *ci,
			const bt_field *payload, struct vsc_capture_event *ev)
{
	uint64_t v1 = ci->tp == TP_RMW ? ci->old : ci->value;

	if (ci->tp == TP_NESTED) {
		if (ci->count == NO_MEMBER)
			return ctf_conv_fail(conv, EINVAL, "event vsc:nested lacks its count");
		ev->kind = VSC_CAP_NESTED;
		ev->value = ctf_read_int(ctf_member(payload, ci->count));
		return 0;
	}
	if (ci->tp == TP_SEGMENT) {
		int64_t id;
		int err = segment_id(p, payload, ci, &id);

		ev->kind = VSC_CAP_SEGMENT;
		ev->value = id;
		return err ? ctf_conv_fail(conv, -err, "out of memory") : 0;
	}
	if (ci->addr == NO_MEMBER || ci->size == NO_MEMBER || v1 == NO_MEMBER ||
	    (ci->tp == TP_RMW && ci->new_value == NO_MEMBER) ||
	    !ctf_is_integer(ctf_member(payload, ci->addr)))
		return ctf_conv_fail(conv, EINVAL,
				     "event %s lacks the fields of the vsc provider "
				     "(addr, size, value / old, new): was it traced "
				     "with another provider of the same name?",
				     bt_event_class_get_name(ci->cls));
	ev->kind = ci->tp == TP_LOAD    ? VSC_CAP_LOAD
		   : ci->tp == TP_STORE ? VSC_CAP_STORE
					: VSC_CAP_RMW;
	ev->addr = (uint64_t)ctf_read_int(ctf_member(payload, ci->addr));
	ev->size = (uint16_t)ctf_read_int(ctf_member(payload, ci->size));
	ev->value = ctf_read_int(ctf_member(payload, v1));
	if (ci->tp == TP_RMW)
		ev->new_value = ctf_read_int(ctf_member(payload, ci->new_value));
	return 0;
}

/* The event, numbered in its thread's program order, to its process's
 * trace writer. */
static int write_event(struct ctf_conv *conv, struct process *p, const struct class_info *ci,
		       struct vsc_capture_event *ev)
{
	uint64_t seq;
	int err;

	if (next_seq(p, &conv->threads, ev->tid, &seq))
		return ctf_conv_fail(conv, ENOMEM, "out of memory");
	ev->seq = seq;
	err = trace_writer_add(p->writer, ev);
	p->marker_name = NULL; /* the payload's string goes with its message */
	if (err == -EINVAL)
		return ctf_conv_fail(conv, EINVAL,
				     "event %s of thread %" PRIu32 " has a bad size (%u bytes)",
				     bt_event_class_get_name(ci->cls), ev->tid, ev->size);
	if (err)
		return ctf_conv_fail(conv, -err, "cannot keep an event: %s", strerror(-err));
	return 0;
}

/* *si: the event's stream class's field positions, when it has what vsc
 * needs. 0 or a negative errno (the reason in conv). */
static int usable_stream(struct ctf_conv *conv, const bt_event *event,
			 const struct stream_info **si)
{
	const bt_stream_class *sc =
		bt_stream_borrow_class_const(bt_event_borrow_stream_const(event));

	*si = ctf_stream_info(&conv->fields, sc);
	if (!*si)
		return ctf_conv_fail(conv, ENOMEM, "out of memory");
	if ((*si)->vtid == NO_MEMBER || (*si)->vpid == NO_MEMBER)
		return ctf_conv_fail(conv, EINVAL,
				     "the trace has no %s context, so its events cannot be "
				     "told apart by thread; trace again after "
				     "`lttng add-context -u -t vtid -t vpid -t pid_ns`",
				     (*si)->vtid == NO_MEMBER ? "vtid" : "vpid");
	return 0;
}

static int convert_event(struct ctf_conv *conv, const bt_message *msg)
{
	const bt_event *event = bt_message_event_borrow_event_const(msg);
	const struct class_info *ci =
		ctf_class_info(&conv->fields, bt_event_borrow_class_const(event));
	const struct stream_info *si;
	const bt_field *ctx;
	struct vsc_capture_event ev = { 0 };
	struct process *p;
	int64_t pid;
	uint64_t pid_ns;
	int err;

	if (!ci)
		return ctf_conv_fail(conv, ENOMEM, "out of memory");
	if (ci->tp == TP_OTHER)
		return 0;
	err = usable_stream(conv, event, &si);
	if (err)
		return err;
	ctx = bt_event_borrow_common_context_field_const(event);
	pid = ctf_read_int(ctf_member(ctx, si->vpid));
	pid_ns = si->pid_ns != NO_MEMBER ? (uint64_t)ctf_read_int(ctf_member(ctx, si->pid_ns)) : 0;
	p = process(conv, pid_ns, (uint32_t)pid);
	if (!p)
		return ctf_conv_fail(conv, ENOMEM, "out of memory");
	if (ci->tp == TP_THREAD)
		note_parent(p, bt_event_borrow_payload_field_const(event), ci);
	if (!kept(conv, pid, pid_ns)) {
		p->left_out += ci->tp <= TP_SEGMENT; /* a load, store, RMW or segment */
		return 0;
	}
	if (ci->tp == TP_BIN_INFO)
		return add_object(conv, p, bt_event_borrow_payload_field_const(event), ci);
	if (ci->tp == TP_STATEDUMP_START)
		return statedump_starts(p);
	err = open_writer(conv, p, event,
			  si->procname != NO_MEMBER
				  ? bt_field_string_get_value(ctf_member(ctx, si->procname))
				  : NULL);
	if (err)
		return err;
	ev.pid = (uint32_t)pid;
	ev.tid = (uint32_t)ctf_read_int(ctf_member(ctx, si->vtid));
	if (ci->tp == TP_THREAD) {
		err = marker_agrees(conv, p, bt_event_borrow_payload_field_const(event), ci,
				    ev.tid);
		return err ? err : thread_starts(conv, p, ev.tid);
	}
	p->has_events = true;
	if (si->ip != NO_MEMBER)
		ev.ip = (uint64_t)ctf_read_int(ctf_member(ctx, si->ip));
	ev.ts_ns = event_time_ns(msg, si);
	err = read_payload(conv, p, ci, bt_event_borrow_payload_field_const(event), &ev);
	return err ? err : write_event(conv, p, ci, &ev);
}

/* The process a stream belongs to, when the trace has per-process buffers:
 * its pid, or -1 when the stream is shared (per-user buffers). */
static int64_t stream_owner(const bt_stream *stream)
{
	const bt_trace *trace = bt_stream_borrow_trace_const(stream);
	const bt_value *scheme = bt_trace_borrow_environment_entry_value_by_name_const(
		trace, "tracer_buffering_scheme");
	const bt_value *vpid = bt_trace_borrow_environment_entry_value_by_name_const(trace, "vpid");

	if (!scheme || !bt_value_is_string(scheme) ||
	    strcmp(bt_value_string_get(scheme), "pid") != 0 || !vpid)
		return -1;
	if (bt_value_is_signed_integer(vpid))
		return bt_value_integer_signed_get(vpid);
	if (bt_value_is_unsigned_integer(vpid))
		return (int64_t)bt_value_integer_unsigned_get(vpid);
	return -1;
}

static int count_loss(struct ctf_conv *conv, const bt_stream *stream, bool packets,
		      bt_property_availability avail, uint64_t count)
{
	int64_t owner = stream_owner(stream);
	struct pid_loss *pl = NULL;

	if (avail != BT_PROPERTY_AVAILABILITY_AVAILABLE)
		count = 1; /* a loss of unknown size: at least one event */
	if (avail != BT_PROPERTY_AVAILABILITY_AVAILABLE)
		conv->discarded_unknown++;
	else if (packets)
		conv->discarded_packets += count;
	else
		conv->discarded_events += count;
	if (owner < 0)
		return 0;
	for (size_t i = 0; i < conv->npid_losses && !pl; i++)
		if (conv->pid_losses[i].pid == (uint32_t)owner)
			pl = &conv->pid_losses[i];
	if (!pl) {
		if (ARRAY_RESERVE(conv->pid_losses, conv->pid_losses_cap, conv->npid_losses + 1))
			return ctf_conv_fail(conv, ENOMEM, "out of memory");
		pl = &conv->pid_losses[conv->npid_losses++];
		*pl = (struct pid_loss){ .pid = (uint32_t)owner };
	}
	if (packets)
		pl->packets += count;
	else
		pl->events += count;
	return 0;
}

int ctf_conv_message(struct ctf_conv *conv, const bt_message *msg)
{
	bt_property_availability avail;
	uint64_t count = 0;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		return convert_event(conv, msg);
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		avail = bt_message_discarded_events_get_count(msg, &count);
		return count_loss(conv, bt_message_discarded_events_borrow_stream_const(msg), false,
				  avail, count);
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		avail = bt_message_discarded_packets_get_count(msg, &count);
		return count_loss(conv, bt_message_discarded_packets_borrow_stream_const(msg), true,
				  avail, count);
	default:
		return 0;
	}
}
