/* SPDX-License-Identifier: MIT */
/*
 * The LTTng-UST tracepoint provider `vsc`: events vsc:load, vsc:store,
 * vsc:rmw, vsc:segment (and vsc:thread, vsc:nested). Target programs do not include this file
 * themselves: include <vsc/probe.h> and compile with -DVSC_PROBE_LTTNG, then
 * link with -lvsc-lttng-ust -llttng-ust. The tracepoint definitions live in
 * libvsc-lttng-ust.so, so no source file of the program needs
 * LTTNG_UST_TRACEPOINT_DEFINE, however many files it has.
 *
 * Field names are part of the interface: `vsc convert` and the babeltrace2
 * plugin read addr, size, value (load, store), old, new (rmw), name (segment).
 * vsc:thread comes before each thread's first event in a session: a thread
 * id the kernel hands out again (pid_max) is then another thread, written
 * TID.N, not the old one's continuation. Its fields (pid, tid: the ids the
 * thread sees itself; process: a number of its own for each process;
 * ppid: its parent) let the converter refuse what it cannot tell apart: a forked child whose
 * events LTTng-UST still labels with its parent's ids, and two processes
 * with one pid (pid namespaces) in a trace without the pid_ns context.
 */
#ifndef VSC_PROBE_LTTNG_MACROS
#define VSC_PROBE_LTTNG_MACROS
/* What <vsc/probe.h> expands VSC_PROBE_* to under -DVSC_PROBE_LTTNG. */
/* Each thread's first traced event comes after a vsc:thread event
 * (vsc_lttng_thread, in libvsc-lttng-ust.so), so the converter can tell a
 * new thread from an old one whose id the kernel handed out again. */
#define VSC_LTTNG_EVENT_(name, ...)                           \
	do {                                                  \
		if (lttng_ust_tracepoint_enabled(vsc, name))  \
			vsc_lttng_thread();                   \
		lttng_ust_tracepoint(vsc, name, __VA_ARGS__); \
	} while (0)
#define VSC_LTTNG_LOAD(addr, size, value) \
	VSC_LTTNG_EVENT_(load, (uint64_t)(uintptr_t)(addr), (uint8_t)(size), (int64_t)(value))
#define VSC_LTTNG_STORE(addr, size, value) \
	VSC_LTTNG_EVENT_(store, (uint64_t)(uintptr_t)(addr), (uint8_t)(size), (int64_t)(value))
#define VSC_LTTNG_RMW(addr, size, old, new)                                                 \
	VSC_LTTNG_EVENT_(rmw, (uint64_t)(uintptr_t)(addr), (uint8_t)(size), (int64_t)(old), \
			 (int64_t)(new))
#define VSC_LTTNG_SEGMENT(id, name) VSC_LTTNG_EVENT_(segment, (int64_t)(id), (const char *)(name))
/* count accesses of this thread were made by probes inside one of its
 * probes (a signal handler): performed, not traced (see <vsc/probe.h>) */
#define VSC_LTTNG_NESTED(count) VSC_LTTNG_EVENT_(nested, (uint32_t)(count))
#ifdef __cplusplus
extern "C" {
#endif
void vsc_lttng_thread(void);
#ifdef __cplusplus
}
#endif
#endif

#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER vsc

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "vsc/probe-lttng.h"

#if !defined(VSC_PROBE_LTTNG_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define VSC_PROBE_LTTNG_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT_CLASS(
	vsc, access, LTTNG_UST_TP_ARGS(uint64_t, addr, uint8_t, size, int64_t, value),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer_hex(uint64_t, addr, addr)
				    lttng_ust_field_integer(uint8_t, size, size)
					    lttng_ust_field_integer(int64_t, value, value)))

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vsc, access, vsc, load,
				    LTTNG_UST_TP_ARGS(uint64_t, addr, uint8_t, size, int64_t,
						      value))

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(vsc, access, vsc, store,
				    LTTNG_UST_TP_ARGS(uint64_t, addr, uint8_t, size, int64_t,
						      value))

LTTNG_UST_TRACEPOINT_EVENT(
	vsc, rmw,
	LTTNG_UST_TP_ARGS(uint64_t, addr, uint8_t, size, int64_t, old_value, int64_t, new_value),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer_hex(uint64_t, addr, addr)
				    lttng_ust_field_integer(uint8_t, size, size)
					    lttng_ust_field_integer(int64_t, old, old_value)
						    lttng_ust_field_integer(int64_t, new,
									    new_value)))

/* Segment `id` (a number, as in the eBPF path) starts in this thread; name
 * may be NULL, then the segment is named by its number. */
LTTNG_UST_TRACEPOINT_EVENT(vsc, segment, LTTNG_UST_TP_ARGS(int64_t, id, const char *, name),
			   LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int64_t, id, id)
						       lttng_ust_field_string(name,
									      name ? name : "")))

/* count accesses of this thread, made by probes used inside one of its
 * probes (a signal handler that interrupted it), were performed but not
 * traced: they cannot be placed in order. The converter counts them lost. */
LTTNG_UST_TRACEPOINT_EVENT(vsc, nested, LTTNG_UST_TP_ARGS(uint32_t, count),
			   LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint32_t, count, count)))

/* A thread's first vsc event in this session follows. pid and tid are
 * getpid() and gettid() (the vpid and vtid contexts must agree), process
 * is the same for every thread of a process and differs between processes
 * (a fork gives the child a new one), ppid is getppid(): processes of one
 * family may share memory. */
LTTNG_UST_TRACEPOINT_EVENT(
	vsc, thread,
	LTTNG_UST_TP_ARGS(int32_t, pid, int32_t, tid, uint64_t, process, int32_t, ppid),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(int32_t, pid, pid)
				    lttng_ust_field_integer(int32_t, tid, tid)
					    lttng_ust_field_integer_hex(uint64_t, process, process)
						    lttng_ust_field_integer(int32_t, ppid, ppid)))

#endif /* VSC_PROBE_LTTNG_H */

#include <lttng/tracepoint-event.h>
