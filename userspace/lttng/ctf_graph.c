/* SPDX-License-Identifier: MIT */
/* The babeltrace2 graph behind `vsc convert`. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_sink.h"
#include "ctf_graph.h"
#include "userspace/util/diag.h"

static bt_component_class_initialize_method_status
collect_initialize(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
		   const bt_value *params, void *conv)
{
	(void)config;
	return vsc_sink_initialize(self, VSC_SINK_COLLECT, params, conv);
}

/* Add every CTF trace folder under dir (itself included) to inputs. */
static int find_traces(const char *dir, bt_value *inputs, int depth)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int err = 0;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (access(path, F_OK) == 0)
		return bt_value_array_append_string_element(inputs, dir) ? -ENOMEM : 0;
	if (depth > 8)
		return 0;
	d = opendir(dir);
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			err = find_traces(path, inputs, depth + 1);
	}
	closedir(d);
	return err;
}

static void print_bt_error(void)
{
	const bt_error *error = bt_current_thread_take_error();
	uint64_t n;

	if (!error)
		return;
	n = bt_error_get_cause_count(error);
	/* The first cause is the latest (highest level); the last is the root.
	 * Causes that only list a component's internals say nothing to a user. */
	for (uint64_t i = 0; i < n; i++) {
		const char *msg =
			bt_error_cause_get_message(bt_error_borrow_cause_by_index(error, i));

		if (!strstr(msg, "comp-addr="))
			diag(NULL, "  %s", msg);
	}
	bt_error_release(error);
}

static const void *find_class(const char *plugin_name, const char *class_name, bool filter,
			      const bt_plugin **plugin)
{
	const void *cls;

	if (bt_plugin_find(plugin_name, BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, plugin) !=
	    BT_PLUGIN_FIND_STATUS_OK) {
		diag(NULL, "the babeltrace2 plugin `%s` is not installed", plugin_name);
		return NULL;
	}
	cls = filter ? (const void *)bt_plugin_borrow_filter_component_class_by_name_const(
			       *plugin, class_name)
		     : (const void *)bt_plugin_borrow_source_component_class_by_name_const(
			       *plugin, class_name);
	if (!cls)
		diag(NULL, "the babeltrace2 plugin `%s` has no class `%s`", plugin_name,
		     class_name);
	return cls;
}

/* One source.ctf.fs per trace folder: a component reads only folders of one
 * trace (same UUID), and per-process buffers or 32- and 64-bit programs
 * make several traces. Their output ports all go to one muxer. */
static int add_sources(bt_graph *graph, const bt_component_class_source *fs_class,
		       const bt_value *inputs, const bt_component_filter *muxer)
{
	uint64_t muxer_port = 0;
	int err = 0;

	for (uint64_t t = 0; t < bt_value_array_get_length(inputs) && !err; t++) {
		const bt_value *dir = bt_value_array_borrow_element_by_index_const(inputs, t);
		bt_value *params = bt_value_map_create();
		bt_value *one = bt_value_array_create();
		const bt_component_source *source;
		char name[32];

		err = -ENOMEM;
		if (!params || !one ||
		    bt_value_array_append_string_element(one, bt_value_string_get(dir)) ||
		    bt_value_map_insert_entry(params, "inputs", one))
			goto next;
		snprintf(name, sizeof(name), "source%" PRIu64, t);
		err = -EINVAL;
		if (bt_graph_add_source_component(graph, fs_class, name, params,
						  BT_LOGGING_LEVEL_NONE, &source)) {
			diag(NULL,
			     "%s: cannot open the CTF trace: its metadata or stream files are "
			     "corrupt or truncated, or it is not a CTF trace",
			     bt_value_string_get(dir));
			print_bt_error();
			goto next;
		}
		/* the muxer adds an input port each time one is connected */
		for (uint64_t i = 0; i < bt_component_source_get_output_port_count(source); i++) {
			if (bt_graph_connect_ports(
				    graph,
				    bt_component_source_borrow_output_port_by_index_const(source,
											  i),
				    bt_component_filter_borrow_input_port_by_index_const(
					    muxer, muxer_port++),
				    NULL)) {
				print_bt_error();
				goto next;
			}
		}
		err = 0;
	next:
		bt_value_put_ref(one);
		bt_value_put_ref(params);
	}
	return err;
}

static int add_components(bt_graph *graph, bt_value *inputs, struct ctf_conv *conv,
			  const bt_plugin *plugins[2])
{
	const bt_component_class_source *fs_class;
	const bt_component_class_filter *muxer_class;
	bt_component_class_sink *sink_class = NULL;
	const bt_component_filter *muxer;
	const bt_component_sink *sink;
	int err = -EINVAL;

	fs_class = find_class("ctf", "fs", false, &plugins[0]);
	muxer_class = find_class("utils", "muxer", true, &plugins[1]);
	sink_class = bt_component_class_sink_create("vsc", vsc_sink_consume);
	if (!sink_class || !fs_class || !muxer_class)
		goto out;
	bt_component_class_sink_set_initialize_method(sink_class, collect_initialize);
	bt_component_class_sink_set_finalize_method(sink_class, vsc_sink_finalize);
	bt_component_class_sink_set_graph_is_configured_method(sink_class,
							       vsc_sink_graph_is_configured);
	if (bt_graph_add_filter_component(graph, muxer_class, "muxer", NULL, BT_LOGGING_LEVEL_NONE,
					  &muxer) ||
	    bt_graph_add_sink_component_with_initialize_method_data(
		    graph, sink_class, "vsc", NULL, conv, BT_LOGGING_LEVEL_NONE, &sink)) {
		print_bt_error();
		goto out;
	}
	err = add_sources(graph, fs_class, inputs, muxer);
	if (err)
		goto out;
	err = -EINVAL;
	if (bt_graph_connect_ports(
		    graph, bt_component_filter_borrow_output_port_by_index_const(muxer, 0),
		    bt_component_sink_borrow_input_port_by_index_const(sink, 0), NULL)) {
		print_bt_error();
		goto out;
	}
	err = 0;
out:
	bt_component_class_sink_put_ref(sink_class);
	return err;
}

/* The CTF traces under each directory into inputs; 0 or a negative errno
 * (said on stderr). */
static int collect_inputs(char *const *dirs, size_t ndirs, bt_value *inputs)
{
	for (size_t i = 0; i < ndirs; i++) {
		struct stat st;
		uint64_t before = bt_value_array_get_length(inputs);
		int err;

		if (stat(dirs[i], &st) || !S_ISDIR(st.st_mode)) {
			err = stat(dirs[i], &st) ? -errno : -ENOTDIR;
			diag(NULL, "%s: %s", dirs[i], strerror(-err));
			return err;
		}
		err = find_traces(dirs[i], inputs, 0);
		if (err) {
			diag(NULL, "%s: %s", dirs[i], strerror(-err));
			return err;
		}
		if (bt_value_array_get_length(inputs) == before) {
			diag(NULL, "%s: no CTF trace in it (no folder with a `metadata` file)",
			     dirs[i]);
			return -ENOENT;
		}
	}
	return 0;
}

/* Run the graph to its end; 0 or a negative errno (said on stderr). */
static int run_graph(bt_graph *graph, struct ctf_conv *conv)
{
	bt_graph_run_status status;

	do {
		status = bt_graph_run(graph);
	} while (status == BT_GRAPH_RUN_STATUS_AGAIN);
	if (status == BT_GRAPH_RUN_STATUS_OK)
		return 0;
	if (ctf_conv_failed(conv)) {
		/* our own finding: say it alone */
		diag(NULL, "%s", ctf_conv_error(conv));
		bt_current_thread_clear_error();
	} else {
		diag(NULL, "cannot read the CTF trace: it is corrupt or truncated");
		print_bt_error();
	}
	return status == BT_GRAPH_RUN_STATUS_MEMORY_ERROR ? -ENOMEM : -EINVAL;
}

int ctf_graph_read(char *const *dirs, size_t ndirs, struct ctf_conv *conv)
{
	const bt_plugin *plugins[2] = { NULL, NULL };
	bt_value *inputs = bt_value_array_create();
	bt_graph *graph = NULL;
	int err = -ENOMEM;

	if (!inputs)
		goto out;
	err = collect_inputs(dirs, ndirs, inputs);
	if (err)
		goto out;
	err = -ENOMEM;
	graph = bt_graph_create(0);
	if (!graph)
		goto out;
	err = add_components(graph, inputs, conv, plugins);
	if (!err)
		err = run_graph(graph, conv);
out:
	bt_graph_put_ref(graph);
	bt_plugin_put_ref(plugins[0]);
	bt_plugin_put_ref(plugins[1]);
	bt_value_put_ref(inputs);
	return err;
}
