/* SPDX-License-Identifier: MIT */
/* --svg: threads as horizontal lanes, time going right.
 * Consistent: the witness, one box per event (or, past SVG_MAX_BOXES events,
 * one box per run of a thread, at most SVG_MAX_BOXES of them), preemptions
 * marked by red dashed lines; past SVG_MAX_LANES threads, lanes only for
 * the threads the drawn boxes have (a pool of 10^5 threads drew 10^5
 * lanes: 10 MB for 200 boxes). Inconsistent: the core with its explanation
 * (svg_core.c). The size follows the core, never the trace. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "svg.h"

#define SVG_MAX_BOXES 200
#define SVG_MAX_LANES 64

struct svg_geometry svg_fit(size_t longest_label, size_t longest_name)
{
	struct svg_geometry g;
	size_t box_w = SVG_TEXT_PAD + longest_label * SVG_CHAR_W;
	size_t left = 10 + longest_name * SVG_CHAR_W + 14; /* name, then a margin */

	box_w = box_w < SVG_BOX_MIN_W ? SVG_BOX_MIN_W : box_w;
	g.box_w = (unsigned)(box_w > SVG_BOX_MAX_W ? SVG_BOX_MAX_W : box_w);
	g.box_chars = (g.box_w - SVG_TEXT_PAD) / SVG_CHAR_W;
	left = left < SVG_LEFT_MIN ? SVG_LEFT_MIN : left;
	g.left = (unsigned)(left > SVG_LEFT_MAX ? SVG_LEFT_MAX : left);
	g.name_chars = (g.left - 10 - 14) / SVG_CHAR_W;
	return g;
}

unsigned svg_column_x(const struct svg_geometry *g, size_t column)
{
	return (unsigned)(g->left + column * (g->box_w + SVG_SPACING));
}

unsigned svg_row_y(size_t row)
{
	return (unsigned)(SVG_TOP + row * SVG_LANE_H);
}

unsigned svg_text_width(size_t chars)
{
	return (unsigned)(chars * SVG_CHAR_W);
}

void svg_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '&':
			fputs("&amp;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			fputc(*s, out);
		}
	}
}

bool svg_text_fitted(FILE *out, const char *s, size_t chars)
{
	size_t len = strlen(s), keep;
	char *head;

	if (len <= chars) {
		svg_text(out, s);
		return false;
	}
	keep = chars ? chars - 1 : 0; /* the ellipsis takes one */
	while (keep && ((unsigned char)s[keep] & 0xc0) == 0x80)
		keep--; /* not inside a UTF-8 character */
	head = strndup(s, keep);
	if (head)
		svg_text(out, head);
	free(head);
	fputs("&#8230;", out);
	return true;
}

/* The text s (fitted to chars), its element and group closed; the group's
 * tooltip is the whole of s when it was cut. */
static void group_end(FILE *out, const char *s, size_t chars)
{
	bool cut = svg_text_fitted(out, s, chars);

	fputs("</text>", out);
	if (cut) {
		fputs("<title>", out);
		svg_text(out, s);
		fputs("</title>", out);
	}
	fputs("</g>\n", out);
}

void svg_header(FILE *out, unsigned w, unsigned h, const char *title)
{
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
		"viewBox=\"0 0 %u %u\" font-family=\"monospace\" font-size=\"11\">\n"
		"<defs><marker id=\"arrow\" markerUnits=\"userSpaceOnUse\" markerWidth=\"9\" "
		"markerHeight=\"8\" refX=\"8\" refY=\"4\" orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" fill=\"#c0392b\"/>"
		"</marker><marker id=\"arrow-po\" markerUnits=\"userSpaceOnUse\" markerWidth=\"9\" "
		"markerHeight=\"8\" refX=\"8\" refY=\"4\" orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" fill=\"#7f8c8d\"/>"
		"</marker></defs>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text class=\"title\" x=\"10\" y=\"22\" font-size=\"14\">",
		w, h, w, h);
	svg_text(out, title);
	fputs("</text>\n", out);
}

unsigned svg_lanes_width(const struct svg_geometry *g, size_t columns, const char *title)
{
	unsigned w = svg_column_x(g, columns) + 40;
	unsigned title_w = (unsigned)(20 + 9 * strlen(title)); /* 14 px monospace: 8.4 */

	return w < title_w ? title_w : w;
}

void svg_lane(FILE *out, const struct svg_geometry *g, size_t row, const char *name, size_t columns)
{
	unsigned y = svg_row_y(row);

	fprintf(out, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"#ddd\"/>\n",
		g->left - 10, y + SVG_BOX_H / 2, svg_column_x(g, columns), y + SVG_BOX_H / 2);
	fprintf(out, "<g><text class=\"lane\" x=\"10\" y=\"%u\">", y + SVG_BOX_H / 2 + 4);
	group_end(out, name, g->name_chars);
}

void svg_box(FILE *out, const struct svg_geometry *g, size_t column, size_t row, const char *label,
	     const char *fill)
{
	unsigned x = svg_column_x(g, column), y = svg_row_y(row);

	fprintf(out,
		"<g class=\"event\"><rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%d\" rx=\"4\" "
		"fill=\"%s\" stroke=\"#555\"/><text x=\"%u\" y=\"%u\" text-anchor=\"middle\">",
		x, y, g->box_w, SVG_BOX_H, fill, x + g->box_w / 2, y + SVG_BOX_H / 2 + 4);
	group_end(out, label, g->box_chars);
}

void svg_event_label(const struct vsc_program *p, uint32_t t, uint32_t i, char *out, size_t len)
{
	const struct vsc_event *e = &vsc_program_events(p, t)[i];
	static const char op[] = { 'r', 'w', 'u' };
	if (e->kind == VSC_RMW)
		snprintf(out, len, "u %s %lld>%lld", vsc_program_var_name(p, e->var),
			 (long long)e->value, (long long)e->new_value);
	else
		snprintf(out, len, "%c %s %lld", op[e->kind], vsc_program_var_name(p, e->var),
			 (long long)e->value);
}

/* The witness's steps the picture draws: one box per event up to
 * SVG_MAX_BOXES events, else one per run of a thread, SVG_MAX_BOXES at most.
 * Returns how many steps, *columns how many boxes. */
static size_t drawn_steps(const uint32_t *w, size_t n, size_t runs, size_t *columns)
{
	size_t i = 0, column = 0;

	if (n <= SVG_MAX_BOXES) {
		*columns = n;
		return n;
	}
	for (; i < n && column < SVG_MAX_BOXES; column++) {
		size_t j = i;
		while (j < n && w[j] == w[i])
			j++;
		i = j;
	}
	*columns = runs < SVG_MAX_BOXES ? runs : SVG_MAX_BOXES;
	return i;
}

/* Each thread's lane (row), SIZE_MAX for none: every thread has one, in
 * order; past SVG_MAX_LANES threads only those in the first steps do. The
 * number of lanes into *lanes; NULL when out of memory. */
static size_t *lane_rows(const struct vsc_program *p, const uint32_t *w, size_t steps,
			 size_t *lanes)
{
	size_t k = vsc_program_thread_count(p), *row = malloc((k + 1) * sizeof(*row));

	if (!row)
		return NULL;
	for (size_t t = 0; t < k; t++)
		row[t] = k <= SVG_MAX_LANES ? t : SIZE_MAX;
	for (size_t i = 0; k > SVG_MAX_LANES && i < steps; i++)
		row[w[i]] = 0; /* has a lane: numbered below, in thread order */
	*lanes = 0;
	for (size_t t = 0; t < k; t++)
		if (row[t] != SIZE_MAX)
			row[t] = (*lanes)++;
	return row;
}

static void witness_title(char *out, size_t len, const char *title, size_t runs, size_t n,
			  size_t lanes, size_t k)
{
	int at = snprintf(out, len, "%s", title);

	if (at >= 0 && (size_t)at < len && n > SVG_MAX_BOXES && runs > SVG_MAX_BOXES)
		at += snprintf(out + at, len - (size_t)at,
			       " (the first %d of %zu runs of its %zu-event witness)",
			       SVG_MAX_BOXES, runs, n);
	if (at >= 0 && (size_t)at < len && lanes < k)
		snprintf(out + at, len - (size_t)at, " (lanes of the %zu threads drawn, of %zu)",
			 lanes, k);
}

/* The label of the witness's box that starts at step i (next: each
 * thread's events drawn so far); returns the step after it. */
static size_t witness_box(const struct vsc_program *p, const uint32_t *w, size_t n, size_t i,
			  const size_t *next, bool blocks, char *label, size_t len)
{
	size_t j = i + 1;

	if (!blocks) {
		svg_event_label(p, w[i], (uint32_t)next[w[i]], label, len);
		return j;
	}
	while (j < n && w[j] == w[i])
		j++;
	snprintf(label, len, "[%zu..%zu]", next[w[i]], next[w[i]] + (j - i) - 1);
	return j;
}

/* The geometry that fits the witness's boxes and its lanes' names. */
static struct svg_geometry witness_fit(const struct vsc_program *p, const uint32_t *w, size_t n,
				       const size_t *row, size_t *next)
{
	size_t k = vsc_program_thread_count(p), longest = 0, name = 0;
	bool blocks = n > SVG_MAX_BOXES;

	for (size_t i = 0, column = 0; i < n && column < SVG_MAX_BOXES; column++) {
		char label[128];
		size_t j = witness_box(p, w, n, i, next, blocks, label, sizeof(label));
		longest = strlen(label) > longest ? strlen(label) : longest;
		next[w[i]] += j - i;
		i = j;
	}
	memset(next, 0, (k + 1) * sizeof(*next));
	for (size_t t = 0; t < k; t++)
		if (row[t] != SIZE_MAX && strlen(vsc_program_thread_name(p, t)) > name)
			name = strlen(vsc_program_thread_name(p, t));
	return svg_fit(longest, name);
}

/* The witness: one box per event up to SVG_MAX_BOXES events, else one box
 * per run of a thread, and at most SVG_MAX_BOXES of those: the picture
 * shows the start of a long witness and says how much it leaves out. */
static void draw_witness(FILE *out, const struct item *it, const char *title)
{
	const struct vsc_program *p = it->prog;
	const uint32_t *w;
	size_t n = vsc_result_witness(it->res, &w), k = vsc_program_thread_count(p);
	size_t runs = 0, column = 0, columns, lanes, steps, *row;
	size_t *next = calloc(k + 1, sizeof(*next));
	struct svg_geometry g;
	bool blocks;
	char full_title[1024];

	for (size_t i = 0; i < n; i++)
		runs += i == 0 || w[i] != w[i - 1];
	steps = drawn_steps(w, n, runs, &columns);
	row = lane_rows(p, w, steps, &lanes);
	if (!next || !row) {
		free(next);
		free(row);
		return;
	}
	blocks = n > SVG_MAX_BOXES;
	g = witness_fit(p, w, n, row, next);
	witness_title(full_title, sizeof(full_title), title, runs, n, lanes, k);
	svg_header(out, svg_lanes_width(&g, columns, full_title),
		   (unsigned)(SVG_TOP + lanes * SVG_LANE_H + 30), full_title);
	for (size_t t = 0; t < k; t++)
		if (row[t] != SIZE_MAX)
			svg_lane(out, &g, row[t], vsc_program_thread_name(p, t), columns);
	for (size_t i = 0; i < n && column < SVG_MAX_BOXES; column++) {
		char label[128];
		size_t j = witness_box(p, w, n, i, next, blocks, label, sizeof(label));
		svg_box(out, &g, column, row[w[i]], label, "#d6eaf8");
		next[w[i]] += j - i;
		if (j < n && w[j] != w[i] && next[w[i]] < vsc_program_thread_length(p, w[i]) &&
		    column + 1 < SVG_MAX_BOXES) {
			unsigned x = svg_column_x(&g, column) + g.box_w + SVG_SPACING / 2;
			fprintf(out,
				"<line x1=\"%u\" y1=\"%d\" x2=\"%u\" y2=\"%u\" stroke=\"#c0392b\" "
				"stroke-dasharray=\"4,3\"><title>preemption</title></line>\n",
				x, SVG_TOP - 8, x, svg_row_y(lanes));
		}
		i = j;
	}
	free(next);
	free(row);
}

int svg_write(const char *path, const struct item *it, const char *title)
{
	FILE *out = fopen(path, "w");
	struct svg_geometry g = svg_fit(0, 0);
	int err;

	if (!out)
		return -1;
	if (it->status == EXIT_CONSISTENT && it->res) {
		draw_witness(out, it, title);
	} else if (it->core && !svg_draw_core(out, it, title)) {
		/* drawn */
	} else {
		const char *why = it->core                          ? strerror(ENOMEM)
				  : it->status == EXIT_INCONSISTENT ? story_no_core(it)
								    : NULL;
		char line[512];
		unsigned w = svg_lanes_width(&g, 4, title);
		snprintf(line, sizeof(line), "%s%s",
			 why ? "no core to draw: " : "no witness and no core to draw",
			 why ? why : "");
		if (w < 20 + svg_text_width(strlen(line)))
			w = 20 + svg_text_width(strlen(line));
		svg_header(out, w, SVG_TOP + SVG_LANE_H + 30, title);
		fputs("<text x=\"10\" y=\"70\">", out);
		svg_text(out, line);
		fputs("</text>\n", out);
	}
	fputs("</svg>\n", out);
	err = ferror(out);
	if (fclose(out) || err) {
		errno = errno ? errno : EIO;
		return -1;
	}
	return 0;
}
