/* SPDX-License-Identifier: MIT */
/* --core-out FILE: each minimal core as a trace of its own, a reproducer
 * that `vsc check` decides inconsistent (with -p N: `vsc check -p N`, the
 * bound named in its header). Its events keep their thread names and
 * program order; a comment on each names the original thread, index, line
 * and, when the trace had one, the program location. With several
 * inconsistent executions, each core is a segment of FILE. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "report.h"

static void write_token(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(strchr("_.:-", *s) || (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
				      (*s >= 'A' && *s <= 'Z')
			      ? *s
			      : '_',
		      out);
}

/* A file name in a comment: a control character (a newline in the name
 * would end the comment, and the rest of the name be read as an item) as
 * '?'. */
static void write_comment_text(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
}

static void write_inits(FILE *out, const struct vsc_program *p, const struct vsc_event_ref *core,
			size_t n)
{
	size_t nv = vsc_program_var_count(p);
	unsigned char *used = calloc(nv + 1, 1);

	for (size_t i = 0; used && i < n; i++)
		used[vsc_program_events(p, core[i].thread)[core[i].index].var] = 1;
	for (size_t v = 0; v < nv; v++) {
		int64_t value;
		int init = vsc_program_var_init(p, v, &value);
		if ((used && !used[v]) || init == VSC_INIT_NONE)
			continue;
		if (init == VSC_INIT_KNOWN)
			fprintf(out, "init %s %lld\n", vsc_program_var_name(p, v),
				(long long)value);
		else
			fprintf(out, "init %s ?\n", vsc_program_var_name(p, v));
	}
	free(used);
}

/* The segment line of a core, when there are several. */
static void write_segment(FILE *out, const char *name)
{
	fputs("segment ", out);
	write_token(out, name ? name : "whole");
	fputc('\n', out);
}

/* Its first line, the segment line when segment is set, then the rest. */
static void write_core(FILE *out, const char *path, const struct line_notes *notes,
		       const struct item *it, long bound, int segment)
{
	const struct vsc_program *p = it->prog;
	const struct vsc_event_ref *core;
	size_t n = vsc_core_events(it->core, &core);
	const char *name = vsc_program_name(p);
	static const char op[] = { 'r', 'w', 'u' };

	fputs("# core of ", out);
	write_comment_text(out, path);
	fprintf(out, "%s%s", name ? " segment " : "", name ? name : "");
	if (bound >= 0)
		fprintf(out, " within -p %ld", bound);
	fprintf(out, ": %zu of %zu events, %s, %s\n", n, vsc_program_event_count(p),
		vsc_core_is_minimal(it->core) ? "1-minimal" : "not minimal (a limit stopped it)",
		story_proof(it->core));
	if (segment)
		write_segment(out, name);
	write_inits(out, p, core, n);
	for (size_t i = 0; i < n; i++) {
		const struct vsc_event *e = &vsc_program_events(p, core[i].thread)[core[i].index];
		uint32_t line = vsc_program_event_line(p, core[i].thread, core[i].index);
		const char *comment = notes_find(notes, line);
		fprintf(out, "%s %c %s %lld", vsc_program_thread_name(p, core[i].thread),
			op[e->kind], vsc_program_var_name(p, e->var), (long long)e->value);
		if (e->kind == VSC_RMW)
			fprintf(out, " %lld", (long long)e->new_value);
		fprintf(out, "   # %s[%u]", vsc_program_thread_name(p, core[i].thread),
			core[i].index);
		if (line)
			fprintf(out, ", line %u", line);
		if (*comment)
			fprintf(out, ": %s", comment);
		fputc('\n', out);
	}
}

void core_out_render(FILE *out, const char *path, const struct line_notes *notes,
		     const struct item *it, long bound)
{
	write_core(out, path, notes, it, bound, 0);
}

/* Only executions shown inconsistent: a verdict withheld (an incomplete
 * recorded trace) gives no reproducer. Its core is kept, or waits in the
 * spill. */
static int has_core(const struct item *it)
{
	return (it->core || it->facts.core.len) && it->status == EXIT_INCONSISTENT;
}

static void put_core(FILE *out, const struct file_report *f, const struct item *it, int segment,
		     const struct check_args *a)
{
	if (!it->facts.core.len) {
		write_core(out, f->path, f->notes, it, story_bound(a), segment);
		return;
	}
	witness_spill_copy(a->spill, &it->facts.core, out, segment ? it->facts.name : NULL,
			   segment ? write_segment : NULL);
}

int core_out_write(const char *path, const struct file_report *files, size_t nfiles,
		   const struct check_args *a)
{
	size_t cores = 0;
	FILE *out;
	int err;

	struct item_cursor c;
	const struct item *it;

	for (size_t i = 0; i < nfiles; i++)
		for (items_begin(&c, &files[i]); files[i].trace && (it = items_next(&c));)
			cores += has_core(it);
	if (!(out = fopen(path, "w")))
		return -1;
	fputs("vsc 1\n# minimal inconsistent cores written by vsc check --core-out: each is\n"
	      "# inconsistent on its own, every read keeps a write (or initial value) it can\n"
	      "# read, and without any one event it is not inconsistent\n",
	      out);
	if (story_bound(a) >= 0) /* vsc check without -p may find one consistent */
		fprintf(out,
			"# (within -p %ld, the bound they were found under: check them with it)\n",
			story_bound(a));
	if (!cores)
		fputs("# (no core: no execution was found inconsistent and explained)\n", out);
	for (size_t i = 0; i < nfiles; i++)
		for (items_begin(&c, &files[i]); files[i].trace && (it = items_next(&c));)
			if (has_core(it))
				put_core(out, &files[i], it, cores > 1, a);
	err = ferror(out);
	if (fclose(out) || err) {
		errno = errno ? errno : EIO;
		return -1;
	}
	return 0;
}
