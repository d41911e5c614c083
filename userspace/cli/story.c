/* SPDX-License-Identifier: MIT */
/* The explanation of an inconsistent execution: its minimal core, and the
 * forced orders that form a cycle, told with the trace's line numbers and
 * the program locations recorded in trailing comments (`# func+off file:line`). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "report.h"

static const char *const order_names[] = {
	[VSC_ORDER_PROGRAM] = "program-order",
	[VSC_ORDER_READS_FROM] = "reads-from",
	[VSC_ORDER_READ_FIRST] = "read-before-overwrite",
	[VSC_ORDER_WRITE_FIRST] = "write-before-source",
};

/* The trailing comment of a line of the trace file, if the file can be read
 * again (not standard input). */
static void line_comment(const char *path, uint32_t line, char *out, size_t len)
{
	FILE *f;
	char buf[4096];
	uint32_t at = 0;

	out[0] = '\0';
	if (!line || strcmp(path, "-") == 0 || !(f = fopen(path, "r")))
		return;
	while (fgets(buf, sizeof(buf), f)) {
		size_t n = strlen(buf);
		if (n && buf[n - 1] == '\n')
			at++;
		else if (!feof(f))
			continue; /* the rest of a long line */
		else
			at++;
		if (at == line) {
			char *hash = strchr(buf, '#');
			if (hash) {
				hash++;
				hash += strspn(hash, " \t");
				hash[strcspn(hash, "\r\n")] = '\0';
				snprintf(out, len, "%s", hash);
			}
			break;
		}
	}
	fclose(f);
}

static void describe(const struct file_report *f, const struct vsc_program *p,
		     struct vsc_event_ref r, char *out, size_t len)
{
	const struct vsc_event *e = &vsc_program_events(p, r.thread)[r.index];
	static const char op[] = { 'r', 'w', 'u' };
	uint32_t line = vsc_program_event_line(p, r.thread, r.index);
	char where[64] = "", comment[256];
	int n;

	n = snprintf(out, len, "%s[%u] %c %s %lld", vsc_program_thread_name(p, r.thread), r.index,
		     op[e->kind], vsc_program_var_name(p, e->var), (long long)e->value);
	if (e->kind == VSC_RMW && n > 0 && (size_t)n < len)
		n += snprintf(out + n, len - (size_t)n, " %lld", (long long)e->new_value);
	if (line)
		snprintf(where, sizeof(where), " (line %u", line);
	line_comment(f->path, line, comment, sizeof(comment));
	if (n > 0 && (size_t)n < len && line)
		snprintf(out + n, len - (size_t)n, "%s%s%s)", where, *comment ? ", " : "", comment);
}

/* What a read can see: the writes of its value in the core, and the initial value. */
static void print_sources(const struct file_report *f, const struct vsc_program *p,
			  const struct vsc_event_ref *core, size_t n, const char *indent)
{
	for (size_t i = 0; i < n; i++) {
		const struct vsc_event *e = &vsc_program_events(p, core[i].thread)[core[i].index];
		int64_t init_value;
		int init = vsc_program_var_init(p, e->var, &init_value);
		size_t sources = 0;
		char text[512];
		if (e->kind == VSC_WRITE)
			continue;
		describe(f, p, core[i], text, sizeof(text));
		printf("%s    %s can read from:", indent, text);
		if (init == VSC_INIT_UNKNOWN || (init == VSC_INIT_KNOWN && init_value == e->value)) {
			printf(" the initial value");
			sources++;
		}
		for (size_t k = 0; k < n; k++) {
			const struct vsc_event *w = &vsc_program_events(p, core[k].thread)[core[k].index];
			int64_t v = w->kind == VSC_RMW ? w->new_value : w->value;
			if (k == i || w->kind == VSC_READ || w->var != e->var || v != e->value)
				continue;
			printf("%s %s[%u]", sources ? "," : "", vsc_program_thread_name(p, core[k].thread),
			       core[k].index);
			sources++;
		}
		printf("%s\n", sources ? "" : " nothing: no write of this value");
	}
}

static void print_reason(const struct vsc_program *p, const struct vsc_order *o,
			 const char *indent)
{
	const char *r = vsc_program_thread_name(p, o->read.thread);

	switch (o->kind) {
	case VSC_ORDER_PROGRAM:
		printf("%s    (program order)\n", indent);
		break;
	case VSC_ORDER_READS_FROM:
		printf("%s    (it is the only write %s[%u] can read from)\n", indent, r, o->read.index);
		break;
	case VSC_ORDER_READ_FIRST:
		printf("%s    (%s[%u] must read before this write hides its value)\n", indent, r,
		       o->read.index);
		break;
	default:
		printf("%s    (it comes before %s[%u], so it must not fall between that read and\n"
		       "%s     the only write it can read from)\n",
		       indent, r, o->read.index, indent);
	}
}

static int in_core(const struct vsc_event_ref *core, size_t n, struct vsc_event_ref r)
{
	for (size_t i = 0; i < n; i++)
		if (core[i].thread == r.thread && core[i].index == r.index)
			return 1;
	return 0;
}

/* The events beside the core that its reads could see, and that force the
 * orders told below. */
static void print_context(const struct file_report *f, const struct item *it,
			  const char *indent)
{
	const struct vsc_event_ref *core, *context;
	size_t n = vsc_core_events(it->core, &core);
	size_t m = vsc_core_context(it->core, &context);
	char text[512];

	if (m <= n)
		return;
	printf("%swith these events of the trace, the reads' possible sources:\n", indent);
	for (size_t i = 0; i < m; i++) {
		if (in_core(core, n, context[i]))
			continue;
		describe(f, it->prog, context[i], text, sizeof(text));
		printf("%s  %s\n", indent, text);
	}
}

void story_print(const struct file_report *f, const struct item *it, const char *indent)
{
	const struct vsc_program *p = it->prog;
	const struct vsc_event_ref *core;
	const struct vsc_order *cycle;
	size_t n, m;
	char a[512], b[512];

	if (!it->core) {
		printf("%sno explanation: %s\n", indent,
		       it->core_err == -ETIME ? "the time limit came first" : strerror(-it->core_err));
		return;
	}
	n = vsc_core_events(it->core, &core);
	m = vsc_core_cycle(it->core, &cycle);
	printf("%score: %zu of %zu events are inconsistent on their own%s:\n", indent, n,
	       vsc_program_event_count(p),
	       vsc_core_is_minimal(it->core) ? " (and without any one of them they are not)"
					      : " (a limit stopped the shrinking: maybe not minimal)");
	for (size_t i = 0; i < n; i++) {
		describe(f, p, core[i], a, sizeof(a));
		printf("%s  %s\n", indent, a);
	}
	print_context(f, it, indent);
	if (m) {
		printf("%swhy: these orders are forced, and they form a cycle:\n", indent);
		for (size_t i = 0; i < m; i++) {
			describe(f, p, cycle[i].before, a, sizeof(a));
			describe(f, p, cycle[i].after, b, sizeof(b));
			printf("%s  %s\n%s    before %s\n", indent, a, indent, b);
			print_reason(p, &cycle[i], indent);
		}
	} else {
		printf("%swhy: no interleaving of these events (within the preemption bound, if one "
		       "was given) lets every read see its value;\n",
		       indent);
		printf("%s  the choices each read has:\n", indent);
		n = vsc_core_context(it->core, &core);
		print_sources(f, p, core, n, indent);
	}
}

void story_json(struct json *j, const struct item *it)
{
	const struct vsc_event_ref *core;
	const struct vsc_order *cycle;
	size_t n, m;

	if (!it->core)
		return;
	n = vsc_core_events(it->core, &core);
	m = vsc_core_cycle(it->core, &cycle);
	json_key(j, "core");
	json_array_begin(j);
	for (size_t i = 0; i < n; i++) {
		json_array_begin(j);
		json_string(j, vsc_program_thread_name(it->prog, core[i].thread));
		json_uint(j, core[i].index);
		json_array_end(j);
	}
	json_array_end(j);
	json_key(j, "core_minimal");
	json_bool(j, vsc_core_is_minimal(it->core));
	json_key(j, "cycle");
	json_array_begin(j);
	for (size_t i = 0; i < m; i++) {
		json_object_begin(j);
		json_key(j, "before");
		json_array_begin(j);
		json_string(j, vsc_program_thread_name(it->prog, cycle[i].before.thread));
		json_uint(j, cycle[i].before.index);
		json_array_end(j);
		json_key(j, "after");
		json_array_begin(j);
		json_string(j, vsc_program_thread_name(it->prog, cycle[i].after.thread));
		json_uint(j, cycle[i].after.index);
		json_array_end(j);
		json_key(j, "order");
		json_string(j, order_names[cycle[i].kind]);
		if (cycle[i].kind != VSC_ORDER_PROGRAM) {
			json_key(j, "read");
			json_array_begin(j);
			json_string(j, vsc_program_thread_name(it->prog, cycle[i].read.thread));
			json_uint(j, cycle[i].read.index);
			json_array_end(j);
		}
		json_object_end(j);
	}
	json_array_end(j);
}
