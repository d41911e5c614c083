/* SPDX-License-Identifier: MIT */
/* vsc check --svg FILE: one picture per execution, FILE itself when there
 * is one, else FILE-0, FILE-1, ... numbered by execution in input order.
 * A lab run of 10^5 executions would leave 10^5 files nobody opens: past
 * SVG_MAX_PICTURES executions only that many are drawn, the inconsistent
 * ones first, then the others in input order (as the --html page picks
 * its executions), and a line on stderr says so. The executions that may
 * be drawn are kept whole while the others are let go as they are decided
 * (check_pictured_max). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "report.h"
#include "userspace/util/diag.h"

size_t check_pictured_max(const struct check_args *a)
{
	size_t most = a->svg ? SVG_MAX_PICTURES : 0;

	return a->html && HTML_MAX_EXECUTIONS > most ? HTML_MAX_EXECUTIONS : most;
}

size_t check_execution_count(const struct file_report *files, size_t nfiles)
{
	size_t total = 0;

	for (size_t i = 0; i < nfiles; i++)
		total += files[i].trace ? files[i].count : 0;
	return total;
}

/* The executions drawn, walked in input order. */
struct picture_pick {
	size_t total, inconsistent; /* executions, and inconsistent ones, in all */
	size_t inconsistent_taken, others_taken;
};

static struct picture_pick pick_start(const struct file_report *files, size_t nfiles)
{
	struct picture_pick p = { .total = check_execution_count(files, nfiles) };

	for (size_t i = 0; i < nfiles; i++) {
		struct item_cursor c;
		const struct item *it;

		for (items_begin(&c, &files[i]); files[i].trace && (it = items_next(&c));)
			p.inconsistent += it->status == EXIT_INCONSISTENT;
	}
	return p;
}

static size_t pick_count(const struct picture_pick *p)
{
	return p->total < SVG_MAX_PICTURES ? p->total : SVG_MAX_PICTURES;
}

/* Is it, the next execution in input order, drawn? */
static bool pick_next(struct picture_pick *p, const struct item *it)
{
	size_t inconsistent_drawn =
		p->inconsistent < SVG_MAX_PICTURES ? p->inconsistent : SVG_MAX_PICTURES;

	if (p->total <= SVG_MAX_PICTURES)
		return true;
	if (it->status == EXIT_INCONSISTENT)
		return p->inconsistent_taken++ < SVG_MAX_PICTURES;
	return p->others_taken++ < SVG_MAX_PICTURES - inconsistent_drawn;
}

/* The picture of the k-th execution (from 0) out of total: FILE as given
 * when there is one, else FILE with -1, -2, ... before its extension. */
static void picture_path(char *path, size_t size, const char *svg, size_t total, size_t k)
{
	const char *dot = strrchr(svg, '.');
	size_t stem = dot && !strchr(dot, '/') ? (size_t)(dot - svg) : strlen(svg);

	if (total == 1)
		snprintf(path, size, "%s", svg);
	else
		snprintf(path, size, "%.*s-%zu%s", (int)stem, svg, k, svg + stem);
}

int check_pictures_writable(const struct file_report *files, size_t nfiles, const char *svg)
{
	struct picture_pick pick = pick_start(files, nfiles);
	size_t k = 0;

	for (size_t i = 0; i < nfiles; i++) {
		struct item_cursor c;
		const struct item *it;

		for (items_begin(&c, &files[i]); files[i].trace && (it = items_next(&c)); k++) {
			char path[4096];
			FILE *out;
			if (!pick_next(&pick, it))
				continue;
			picture_path(path, sizeof(path), svg, pick.total, k);
			out = fopen(path, "a");
			if (!out) {
				diag("check", "--svg %s: %s", path, strerror(errno));
				return 0;
			}
			fclose(out);
		}
	}
	return 1;
}

int check_draw_pictures(const struct file_report *files, size_t nfiles, const char *svg)
{
	struct picture_pick pick = pick_start(files, nfiles);
	size_t k = 0;
	int status = 0;

	for (size_t i = 0; i < nfiles; i++) {
		struct item_cursor c;
		const struct item *it;

		for (items_begin(&c, &files[i]); files[i].trace && (it = items_next(&c)); k++) {
			char path[4096], title[512];
			if (!pick_next(&pick, it))
				continue;
			picture_path(path, sizeof(path), svg, pick.total, k);
			snprintf(title, sizeof(title), "%s%s%s: %s", files[i].path,
				 it->facts.name ? " segment " : "",
				 it->facts.name ? it->facts.name : "", verdict_name(it->status));
			if (svg_write(path, it, title)) {
				diag(NULL, "%s: %s", path, strerror(errno));
				status = EXIT_USAGE;
			}
		}
	}
	if (pick.total > SVG_MAX_PICTURES)
		diag("check",
		     "--svg: %zu pictures of the %zu executions (the inconsistent first, "
		     "then the others in input order); the others are left out",
		     pick_count(&pick), pick.total);
	return status;
}
