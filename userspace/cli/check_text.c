/* SPDX-License-Identifier: MIT */
/* vsc check's text output: the verdict per FILE, then preemptions, the
 * witness, the explanation, per segment when the file has segments. */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "report.h"

static void print_event(FILE *out, const struct vsc_program *prog, size_t t, size_t i,
			const char *indent)
{
	const struct vsc_event *e = &vsc_program_events(prog, t)[i];
	static const char op[] = { 'r', 'w', 'u' };

	fprintf(out, "%s  %s[%zu] %c %s %lld", indent, vsc_program_thread_name(prog, t), i,
		op[e->kind], vsc_program_var_name(prog, e->var), (long long)e->value);
	if (e->kind == VSC_RMW)
		fprintf(out, " %lld", (long long)e->new_value);
	fputc('\n', out);
}

/* The witness in text: one event per line, `THREAD[INDEX] OP VAR VALUE`,
 * and a line `-- preemption --` where a thread is left unfinished. */
void text_witness(FILE *out, const struct vsc_program *prog, const struct vsc_result *res,
		  const char *indent)
{
	const uint32_t *w;
	size_t n = vsc_result_witness(res, &w);
	size_t *next = calloc(vsc_program_thread_count(prog) + 1, sizeof(*next));

	if (!next)
		return;
	fprintf(out, "%switness:\n", indent);
	for (size_t i = 0; i < n; i++) {
		print_event(out, prog, w[i], next[w[i]]++, indent);
		if (i + 1 < n && w[i + 1] != w[i] &&
		    next[w[i]] < vsc_program_thread_length(prog, w[i]))
			fprintf(out, "%s  -- preemption --\n", indent);
	}
	free(next);
}

static void print_item(const struct file_report *f, const struct item *it,
		       const struct check_args *a, const char *indent)
{
	long pre, lo, hi;
	int bounds;

	if (!it->facts.decided)
		return;
	pre = it->facts.preemptions;
	bounds = item_least_bounds(it, &lo, &hi);
	if (pre >= 0)
		printf("%spreemptions: %ld%s\n", indent, pre, a->opts.minimize ? " (least)" : "");
	if (bounds)
		printf("%sleast: between %ld and %ld (the witness has %ld)\n", indent, lo, hi, hi);
	else if (a->opts.minimize && (lo = item_least_at_least(it)) > 0)
		printf("%sleast: at least %ld (no interleaving found)\n", indent, lo);
	if (item_shown_status(it) == EXIT_UNKNOWN)
		printf("%sstopped by a limit (--timeout or memory) before deciding\n", indent);
	if (a->witness && it->facts.witness.len && !it->facts.explained) /* its witness spilled */
		witness_spill_print_text(a->spill, &it->facts.witness, indent);
	else if (a->witness && (item_shown_status(it) == EXIT_CONSISTENT || bounds))
		text_witness(stdout, it->prog, it->res, indent);
	if (a->explain && it->status == EXIT_INCONSISTENT && it->facts.explained)
		witness_spill_print_text(a->spill, &it->facts.witness, indent);
	else if (a->explain && it->status == EXIT_INCONSISTENT)
		story_print(stdout, f->notes, it, story_bound(a), indent);
}

/* The lines that say a verdict is withheld, or about the events present
 * only. */
static void print_completeness(const struct file_report *f, const struct check_args *a)
{
	if (f->comp.state == VSC_TRACE_WHOLE)
		return;
	if (a->accept_incomplete && f->unsure_withheld) {
		printf("no verdict: %s; inconsistent on the events as written, but an "
		       "inconsistency may come of a value marked unsure, read wrong "
		       "(--accept-incomplete claims none then)\n",
		       f->comp.why);
		return;
	}
	if (a->accept_incomplete) {
		printf("accepted with --accept-incomplete: %s; this verdict is about the events "
		       "present only\n",
		       f->comp.why);
		return;
	}
	printf("no verdict: the trace is incomplete: %s\n", f->comp.why);
	if (f->present_status == PRESENT_NOT_DECIDED)
		printf("on the events present only: not decided (--accept-incomplete decides them)\n");
	else
		printf("on the events present only: %s\n", verdict_name(f->present_status));
}

void check_text_file(const struct file_report *f, const struct check_args *a)
{
	if (a->several)
		printf("%s: %s\n", f->path, verdict_name(f->status));
	else
		printf("%s\n", verdict_name(f->status));
	print_completeness(f, a);
	struct item_cursor c;
	const struct item *it;
	size_t inconsistent = 0;

	if (!f->segmented) {
		items_begin(&c, f);
		print_item(f, items_next(&c), a, "");
		return;
	}
	for (items_begin(&c, f); (it = items_next(&c));)
		inconsistent += it->status == EXIT_INCONSISTENT;
	printf("segments: %zu, inconsistent: %zu\n", f->count, inconsistent);
	for (items_begin(&c, f); (it = items_next(&c));) {
		const char *name = it->facts.name;
		printf("segment %s: %s", name ? name : "(before the first segment)",
		       verdict_name(it->status));
		if (it->withheld)
			printf(" (on the events present only: %s)",
			       verdict_name(it->present_status));
		putchar('\n');
		print_item(f, it, a, "  ");
	}
}

/* A file whose reading --timeout stopped: unknown, and nothing else known. */
void check_text_unread(const struct file_report *f, const struct check_args *a)
{
	if (a->several)
		printf("%s: unknown\n", f->path);
	else
		printf("unknown\n");
	printf("stopped by %s while reading the input\n", f->read_stopped);
}
