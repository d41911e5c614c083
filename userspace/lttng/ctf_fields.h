/* SPDX-License-Identifier: MIT */
/*
 * Reading the fields of CTF events (babeltrace2): where the payload members
 * of each event class and the context members of each stream class are,
 * found once per class by name, and integer reads. The converter
 * (ctf_convert.c) turns what these give into capture events.
 */
#ifndef VSC_LTTNG_CTF_FIELDS_H
#define VSC_LTTNG_CTF_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>

/* A member index that the class does not have. */
#define NO_MEMBER UINT64_MAX

/* The tracepoints the converter knows. */
enum vsc_tp {
	TP_OTHER = -1,
	TP_LOAD,
	TP_STORE,
	TP_RMW,
	TP_SEGMENT,
	TP_BIN_INFO,
	TP_THREAD,          /* a thread's first event follows (its id may be an old one's) */
	TP_STATEDUMP_START, /* a process lists its loaded objects anew */
	TP_NESTED           /* accesses made inside a probe: counted lost */
};

/* Where the fields of one event class are, found once per class. */
struct class_info {
	const bt_event_class *cls;
	int tp; /* enum vsc_tp */
	uint64_t addr, size, value, old, new_value, name, id;
	uint64_t baddr, path;             /* lttng_ust_statedump:bin_info */
	uint64_t pid, tid, process, ppid; /* vsc:thread (providers since 2026-12-06) */
	uint64_t count;                   /* vsc:nested */
};

/* Where the context fields of one stream class are. */
struct stream_info {
	const bt_stream_class *sc;
	uint64_t vtid, vpid, ip, procname;
	uint64_t pid_ns;    /* the pid namespace's inode: with vpid, a process */
	uint64_t frequency; /* of the default clock; 0: no clock */
};

/* The classes met so far (a trace has a handful). Zeroed: empty. */
struct ctf_fields {
	struct class_info *classes;
	size_t nclasses, classes_cap;
	struct stream_info *streams;
	size_t nstreams, streams_cap;
};

void ctf_fields_free(struct ctf_fields *fields);

/* The field positions of an event class or a stream class; NULL: out of
 * memory. */
const struct class_info *ctf_class_info(struct ctf_fields *fields, const bt_event_class *cls);
const struct stream_info *ctf_stream_info(struct ctf_fields *fields, const bt_stream_class *sc);

/* Member index of a structure field. */
const bt_field *ctf_member(const bt_field *structure, uint64_t index);
bool ctf_is_integer(const bt_field *f);
/* A signed or unsigned integer field, as int64_t. */
int64_t ctf_read_int(const bt_field *f);

#endif /* VSC_LTTNG_CTF_FIELDS_H */
