/* SPDX-License-Identifier: MIT */
/* The vsc sink: pull messages, feed the converter, act at the end. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_sink.h"
#include "userspace/util/diag.h"
#include "vsc/vsc.h"

struct vsc_sink {
	enum vsc_sink_mode mode;
	struct ctf_conv *conv;
	bool owns_conv;
	char *path; /* TEXT: output file; NULL: stdout */
	bool bounded;
	unsigned long preemptions;
	bt_message_iterator *iter;
	bt_self_component *self;
};

static const char *const verdict_names[] = { "consistent", "inconsistent", "?", "unknown" };

static int param_int(const bt_value *params, const char *key, int64_t *out)
{
	const bt_value *v = params ? bt_value_map_borrow_entry_value_const(params, key) : NULL;

	if (!v)
		return 0;
	if (bt_value_is_signed_integer(v))
		*out = bt_value_integer_signed_get(v);
	else if (bt_value_is_unsigned_integer(v))
		*out = (int64_t)bt_value_integer_unsigned_get(v);
	else
		return -EINVAL;
	return 1;
}

static int read_params(struct vsc_sink *sink, const bt_value *params, struct ctf_conv_opts *copts)
{
	const bt_value *v;
	int64_t n;

	if (param_int(params, "pid", &copts->pid) < 0)
		return -EINVAL;
	if (param_int(params, "pid-ns", &n) < 0)
		return -EINVAL;
	if (param_int(params, "pid-ns", &n) > 0)
		copts->pid_ns = (uint64_t)n;
	if (param_int(params, "preemptions", &n) < 0)
		return -EINVAL;
	if (param_int(params, "preemptions", &n) > 0) {
		if (n < 0)
			return -EINVAL;
		sink->bounded = true;
		sink->preemptions = (unsigned long)n;
	}
	v = params ? bt_value_map_borrow_entry_value_const(params, "path") : NULL;
	if (v) {
		if (!bt_value_is_string(v))
			return -EINVAL;
		sink->path = strdup(bt_value_string_get(v));
		if (!sink->path)
			return -ENOMEM;
	}
	v = params ? bt_value_map_borrow_entry_value_const(params, "timestamps") : NULL;
	if (v) {
		if (!bt_value_is_bool(v))
			return -EINVAL;
		copts->no_timestamps = !bt_value_bool_get(v);
	}
	v = params ? bt_value_map_borrow_entry_value_const(params, "elf-init") : NULL;
	if (v) {
		if (!bt_value_is_bool(v))
			return -EINVAL;
		copts->elf_init = bt_value_bool_get(v);
	}
	return 0;
}

static void sink_free(struct vsc_sink *sink)
{
	if (!sink)
		return;
	if (sink->owns_conv)
		ctf_conv_free(sink->conv);
	bt_message_iterator_put_ref(sink->iter);
	free(sink->path);
	free(sink);
}

bt_component_class_initialize_method_status vsc_sink_initialize(bt_self_component_sink *self,
								enum vsc_sink_mode mode,
								const bt_value *params,
								struct ctf_conv *conv)
{
	bt_self_component *comp = bt_self_component_sink_as_self_component(self);
	VSC_OPTS(ctf_conv_opts, copts, .pid = -1);
	struct vsc_sink *sink = calloc(1, sizeof(*sink));
	int err;

	if (!sink)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	sink->mode = mode;
	sink->self = comp;
	err = read_params(sink, params, &copts);
	if (err) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
			comp, "bad parameters: pid, pid-ns and preemptions are integers "
			      "(preemptions >= 0), path a string, timestamps and "
			      "elf-init booleans");
		sink_free(sink);
		return err == -ENOMEM ? BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR
				      : BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	if (conv) {
		sink->conv = conv;
	} else {
		sink->conv = ctf_conv_new(&copts);
		sink->owns_conv = true;
		if (!sink->conv) {
			sink_free(sink);
			return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
		}
	}
	if (bt_self_component_sink_add_input_port(self, "in", NULL, NULL) !=
	    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
		sink_free(sink);
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	bt_self_component_set_data(comp, sink);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void vsc_sink_finalize(bt_self_component_sink *self)
{
	sink_free(bt_self_component_get_data(bt_self_component_sink_as_self_component(self)));
}

bt_component_class_sink_graph_is_configured_method_status
vsc_sink_graph_is_configured(bt_self_component_sink *self)
{
	struct vsc_sink *sink =
		bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
	bt_self_component_port_input *port =
		bt_self_component_sink_borrow_input_port_by_index(self, 0);

	if (bt_message_iterator_create_from_sink_component(self, port, &sink->iter) !=
	    BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK)
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

/* ---- what the plugin's sinks do at the end of the stream ------------------ */

static int write_text(struct vsc_sink *sink)
{
	int err;

	ctf_conv_report_losses(sink->conv);
	err = ctf_conv_write_all(sink->conv, sink->path);
	if (err)
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self, "%s",
								    ctf_conv_error(sink->conv));
	return err;
}

static int decide_text(struct vsc_sink *sink, const char *text, size_t len,
		       enum vsc_verdict *verdict)
{
	VSC_OPTS(vsc_parse_opts, popts, .filename = "<lttng>", .on_error = diag_parse_error);
	VSC_OPTS(vsc_check_opts, copts, .bounded = sink->bounded, .preemptions = sink->preemptions);
	struct vsc_trace *trace = vsc_trace_parse_buffer(text, len, &popts);
	int err = 0;

	if (!trace)
		return -errno;
	/* events lost or values uncertain: no verdict (docs/format.md) */
	VSC_OPTS(vsc_trace_completeness, comp);
	if (vsc_trace_completeness(trace, &comp) == 0 && comp.state != VSC_TRACE_WHOLE) {
		diag(NULL, "no verdict: the trace is incomplete: %s", comp.why);
		*verdict = VSC_UNKNOWN;
		vsc_trace_free(trace);
		return 0;
	}
	*verdict = VSC_CONSISTENT;
	for (size_t i = 0; i < vsc_trace_program_count(trace) && !err; i++) {
		struct vsc_result *res = NULL;

		err = vsc_check(vsc_trace_program(trace, i), &copts, &res);
		if (err)
			break;
		*verdict = vsc_verdict_combine(*verdict, vsc_result_verdict(res));
		vsc_result_free(res);
	}
	vsc_trace_free(trace);
	return err;
}

static int check_processes(struct vsc_sink *sink)
{
	struct ctf_conv *conv = sink->conv;
	size_t n = ctf_conv_process_count(conv);

	ctf_conv_report_losses(conv);
	if (n == 0) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self,
								    "no vsc:* events in the trace");
		return -ENOENT;
	}
	for (size_t i = 0; i < n; i++) {
		enum vsc_verdict verdict = VSC_UNKNOWN;
		char label[80];
		char *text = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&text, &len);
		int err;

		if (!mem)
			return -errno;
		err = ctf_conv_write(conv, i, mem);
		if (fclose(mem) && !err)
			err = -errno;
		if (!err)
			err = decide_text(sink, text, len, &verdict);
		free(text);
		ctf_conv_process_label(conv, i, label, sizeof(label));
		if (err) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(
				sink->self, "cannot decide %s: %s", label, strerror(-err));
			return err;
		}
		if (n == 1)
			printf("%s\n", verdict_names[verdict]);
		else
			printf("%s: %s\n", label, verdict_names[verdict]);
	}
	fflush(stdout);
	return 0;
}

static int finish(struct vsc_sink *sink)
{
	switch (sink->mode) {
	case VSC_SINK_TEXT:
		return write_text(sink);
	case VSC_SINK_CHECK:
		return check_processes(sink);
	default:
		return 0;
	}
}

bt_component_class_sink_consume_method_status vsc_sink_consume(bt_self_component_sink *self)
{
	struct vsc_sink *sink =
		bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
	bt_message_array_const msgs;
	uint64_t count = 0;
	int err = 0;

	switch (bt_message_iterator_next(sink->iter, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		bt_message_iterator_put_ref(sink->iter);
		sink->iter = NULL;
		if (finish(sink))
			return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
	default:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	for (uint64_t i = 0; i < count; i++) {
		if (!err)
			err = ctf_conv_message(sink->conv, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	if (err) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(sink->self, "%s",
								    ctf_conv_error(sink->conv));
		return err == -ENOMEM ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR
				      : BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
}
