/* SPDX-License-Identifier: MIT */
/*
 * The babeltrace2 plugin `vsc`: sink.vsc.text writes the vsc trace format,
 * sink.vsc.check decides the trace in the pipeline. Both are the converter
 * core of `vsc convert`.
 */
#include "bt_sink.h"

BT_PLUGIN_MODULE();

BT_PLUGIN(vsc);
BT_PLUGIN_DESCRIPTION("Sequential consistency: vsc traces from the vsc LTTng-UST provider");
BT_PLUGIN_AUTHOR("the vsc authors");
BT_PLUGIN_LICENSE("MIT");

static bt_component_class_initialize_method_status
text_initialize(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
		const bt_value *params, void *data)
{
	(void)config;
	(void)data;
	return vsc_sink_initialize(self, VSC_SINK_TEXT, params, NULL);
}

static bt_component_class_initialize_method_status
check_initialize(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
		 const bt_value *params, void *data)
{
	(void)config;
	(void)data;
	return vsc_sink_initialize(self, VSC_SINK_CHECK, params, NULL);
}

BT_PLUGIN_SINK_COMPONENT_CLASS(text, vsc_sink_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(text, "Write vsc:* events in the vsc trace format");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(
	text, "Parameters: path (string; default standard output), pid (integer: one "
	      "process), timestamps (boolean; default true), elf-init (boolean: globals "
	      "start with their ELF values).");
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(text, text_initialize);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(text, vsc_sink_finalize);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(text, vsc_sink_graph_is_configured);

BT_PLUGIN_SINK_COMPONENT_CLASS(check, vsc_sink_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(
	check, "Decide whether the traced run was sequentially consistent");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(
	check, "Prints consistent, inconsistent or unknown (per process when there are "
	       "several). Parameters: pid (integer), preemptions (integer: at most this "
	       "many preemptions), elf-init (boolean).");
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(check, check_initialize);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(check, vsc_sink_finalize);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(check, vsc_sink_graph_is_configured);
