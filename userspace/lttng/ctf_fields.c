/* SPDX-License-Identifier: MIT */
/* Reading the fields of CTF events (see ctf_fields.h). */
#include "ctf_fields.h"

#include <stdlib.h>
#include <string.h>

#include "userspace/util/array.h"

void ctf_fields_free(struct ctf_fields *fields)
{
	free(fields->classes);
	free(fields->streams);
	memset(fields, 0, sizeof(*fields));
}

static uint64_t member_index(const bt_field_class *fc, const char *name)
{
	uint64_t n;

	if (!fc || bt_field_class_get_type(fc) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return NO_MEMBER;
	n = bt_field_class_structure_get_member_count(fc);
	for (uint64_t i = 0; i < n; i++) {
		const bt_field_class_structure_member *m =
			bt_field_class_structure_borrow_member_by_index_const(fc, i);

		if (strcmp(bt_field_class_structure_member_get_name(m), name) == 0)
			return i;
	}
	return NO_MEMBER;
}

const bt_field *ctf_member(const bt_field *structure, uint64_t index)
{
	return bt_field_structure_borrow_member_field_by_index_const(structure, index);
}

bool ctf_is_integer(const bt_field *f)
{
	return bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_INTEGER);
}

int64_t ctf_read_int(const bt_field *f)
{
	if (bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return bt_field_integer_signed_get_value(f);
	return (int64_t)bt_field_integer_unsigned_get_value(f);
}

static int tp_of_name(const char *name)
{
	static const char *const names[] = { "vsc:load",
					     "vsc:store",
					     "vsc:rmw",
					     "vsc:segment",
					     "lttng_ust_statedump:bin_info",
					     "vsc:thread",
					     "lttng_ust_statedump:start",
					     "vsc:nested" };

	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return TP_OTHER;
}

const struct class_info *ctf_class_info(struct ctf_fields *fields, const bt_event_class *cls)
{
	const bt_field_class *payload;
	struct class_info *ci;

	for (size_t i = 0; i < fields->nclasses; i++)
		if (fields->classes[i].cls == cls)
			return &fields->classes[i];
	if (ARRAY_RESERVE(fields->classes, fields->classes_cap, fields->nclasses + 1))
		return NULL;
	ci = &fields->classes[fields->nclasses++];
	payload = bt_event_class_borrow_payload_field_class_const(cls);
	ci->cls = cls;
	ci->tp = tp_of_name(bt_event_class_get_name(cls));
	ci->addr = member_index(payload, "addr");
	ci->size = member_index(payload, "size");
	ci->value = member_index(payload, "value");
	ci->old = member_index(payload, "old");
	ci->new_value = member_index(payload, "new");
	ci->name = member_index(payload, "name");
	ci->id = member_index(payload, "id");
	ci->baddr = member_index(payload, "baddr");
	ci->path = member_index(payload, "path");
	ci->pid = member_index(payload, "pid");
	ci->tid = member_index(payload, "tid");
	ci->process = member_index(payload, "process");
	ci->ppid = member_index(payload, "ppid");
	ci->count = member_index(payload, "count");
	return ci;
}

const struct stream_info *ctf_stream_info(struct ctf_fields *fields, const bt_stream_class *sc)
{
	const bt_field_class *ctx;
	const bt_clock_class *clock;
	struct stream_info *si;

	for (size_t i = 0; i < fields->nstreams; i++)
		if (fields->streams[i].sc == sc)
			return &fields->streams[i];
	if (ARRAY_RESERVE(fields->streams, fields->streams_cap, fields->nstreams + 1))
		return NULL;
	si = &fields->streams[fields->nstreams++];
	ctx = bt_stream_class_borrow_event_common_context_field_class_const(sc);
	clock = bt_stream_class_borrow_default_clock_class_const(sc);
	si->sc = sc;
	si->vtid = member_index(ctx, "vtid");
	si->vpid = member_index(ctx, "vpid");
	si->ip = member_index(ctx, "ip");
	si->procname = member_index(ctx, "procname");
	si->pid_ns = member_index(ctx, "pid_ns");
	si->frequency = clock ? bt_clock_class_get_frequency(clock) : 0;
	return si;
}
