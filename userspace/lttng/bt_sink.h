/* SPDX-License-Identifier: MIT */
/*
 * The vsc sink component class methods, shared by the babeltrace2 plugin
 * (sink.vsc.text, sink.vsc.check) and `vsc convert` (which adds the same
 * sink to a graph of its own and writes the traces itself).
 */
#ifndef VSC_LTTNG_BT_SINK_H
#define VSC_LTTNG_BT_SINK_H

#include <babeltrace2/babeltrace.h>

#include "ctf_convert.h"

enum vsc_sink_mode {
	VSC_SINK_COLLECT, /* fill a caller's struct ctf_conv, output nothing */
	VSC_SINK_TEXT,    /* write the trace format (param `path`, default stdout) */
	VSC_SINK_CHECK,   /* decide each process and print the verdict */
};

/* conv: the caller's converter for VSC_SINK_COLLECT, NULL otherwise.
 * Parameters (all optional): pid (integer), path (string, TEXT),
 * preemptions (integer, CHECK), timestamps (boolean, default true),
 * elf-init (boolean, default false). */
bt_component_class_initialize_method_status vsc_sink_initialize(bt_self_component_sink *self,
								enum vsc_sink_mode mode,
								const bt_value *params,
								struct ctf_conv *conv);
bt_component_class_sink_graph_is_configured_method_status
vsc_sink_graph_is_configured(bt_self_component_sink *self);
bt_component_class_sink_consume_method_status vsc_sink_consume(bt_self_component_sink *self);
void vsc_sink_finalize(bt_self_component_sink *self);

#endif /* VSC_LTTNG_BT_SINK_H */
