/* SPDX-License-Identifier: MIT */
/* --svg: threads as horizontal lanes, time going right.
 * Consistent: the witness, one box per event (or, past SVG_MAX_BOXES events,
 * one box per run of a thread, at most SVG_MAX_BOXES of them), preemptions
 * marked by red dashed lines; past SVG_MAX_LANES threads, lanes only for
 * the threads the drawn boxes have (a pool of 10^5 threads drew 10^5
 * lanes: 10 MB for 200 boxes). Inconsistent: the core's events (red) and
 * their neighbours (grey) per thread in program order, with the cycle as
 * numbered arrows from box edge to box edge. The size follows the core,
 * never the trace. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "report.h"

#define SVG_MAX_BOXES 200
#define SVG_MAX_LANES 64
#define SVG_AROUND 2 /* neighbours drawn on each side of a core event */
#define LANE_H 76
#define BOX_W 84
#define BOX_H 34
#define LEFT 110
#define TOP 64

static void text_escaped(FILE *out, const char *s)
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

static void header(FILE *out, size_t columns, size_t lanes, const char *title)
{
	unsigned w = (unsigned)(LEFT + columns * (BOX_W + 8) + 40);
	unsigned title_w = (unsigned)(20 + 9 * strlen(title)); /* 14px monospace */

	if (w < title_w)
		w = title_w;
	unsigned h = (unsigned)(TOP + lanes * LANE_H + 30);

	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
		"viewBox=\"0 0 %u %u\" font-family=\"monospace\" font-size=\"11\">\n"
		"<defs><marker id=\"arrow\" markerUnits=\"userSpaceOnUse\" markerWidth=\"9\" "
		"markerHeight=\"8\" refX=\"8\" refY=\"4\" orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" fill=\"#c0392b\"/>"
		"</marker></defs>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		"<text x=\"10\" y=\"22\" font-size=\"14\">",
		w, h, w, h);
	text_escaped(out, title);
	fputs("</text>\n", out);
}

static void lane(FILE *out, size_t row, const char *name, size_t columns)
{
	unsigned y = (unsigned)(TOP + row * LANE_H);
	fprintf(out, "<line x1=\"%d\" y1=\"%u\" x2=\"%u\" y2=\"%u\" stroke=\"#ddd\"/>\n", LEFT - 10,
		y + BOX_H / 2, (unsigned)(LEFT + columns * (BOX_W + 8)), y + BOX_H / 2);
	fprintf(out, "<text x=\"10\" y=\"%u\">", y + BOX_H / 2 + 4);
	text_escaped(out, name);
	fputs("</text>\n", out);
}

static void box(FILE *out, size_t column, size_t row, const char *label, const char *fill)
{
	unsigned x = (unsigned)(LEFT + column * (BOX_W + 8)), y = (unsigned)(TOP + row * LANE_H);
	fprintf(out,
		"<rect x=\"%u\" y=\"%u\" width=\"%d\" height=\"%d\" rx=\"4\" fill=\"%s\" "
		"stroke=\"#555\"/>\n<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">",
		x, y, BOX_W, BOX_H, fill, x + BOX_W / 2, y + BOX_H / 2 + 4);
	text_escaped(out, label);
	fputs("</text>\n", out);
}

static void event_label(const struct vsc_program *p, uint32_t t, uint32_t i, char *out, size_t len)
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
	int blocks;
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
	witness_title(full_title, sizeof(full_title), title, runs, n, lanes, k);
	header(out, columns, lanes, full_title);
	for (size_t t = 0; t < k; t++)
		if (row[t] != SIZE_MAX)
			lane(out, row[t], vsc_program_thread_name(p, t), columns);
	for (size_t i = 0; i < n && column < SVG_MAX_BOXES; column++) {
		size_t j = i;
		char label[128];
		if (blocks) {
			while (j < n && w[j] == w[i])
				j++;
			snprintf(label, sizeof(label), "[%zu..%zu]", next[w[i]],
				 next[w[i]] + (j - i) - 1);
		} else {
			j = i + 1;
			event_label(p, w[i], (uint32_t)next[w[i]], label, sizeof(label));
		}
		box(out, column, row[w[i]], label, "#d6eaf8");
		next[w[i]] += j - i;
		if (j < n && w[j] != w[i] && next[w[i]] < vsc_program_thread_length(p, w[i]) &&
		    column + 1 < SVG_MAX_BOXES) {
			unsigned x = (unsigned)(LEFT + column * (BOX_W + 8) + BOX_W + 4);
			fprintf(out,
				"<line x1=\"%u\" y1=\"%d\" x2=\"%u\" y2=\"%u\" stroke=\"#c0392b\" "
				"stroke-dasharray=\"4,3\"><title>preemption</title></line>\n",
				x, TOP - 8, x, (unsigned)(TOP + lanes * LANE_H));
		}
		i = j;
	}
	free(next);
	free(row);
}

/* The core picture's layout: the core's events and SVG_AROUND neighbours
 * on each side in their threads, lanes for the threads that have core
 * events, every other column left free for the arrows (and, where a
 * thread's events are left out, a note of how many). */
struct core_layout {
	struct vsc_event_ref *ev;
	size_t *column, count, columns;
	size_t *row; /* per thread */
	size_t rows;
};

static int layout_core(const struct item *it, struct core_layout *l)
{
	if (core_neighbourhood(it, SVG_AROUND, &l->ev, &l->count))
		return -1;
	l->column = malloc((l->count + 1) * sizeof(*l->column));
	l->row = calloc(vsc_program_thread_count(it->prog) + 1, sizeof(*l->row));
	if (!l->column || !l->row)
		return -1;
	for (size_t i = 0; i < l->count; i++) {
		size_t c;
		if (i == 0 || l->ev[i].thread != l->ev[i - 1].thread) {
			l->row[l->ev[i].thread] = l->rows++;
			c = 0;
		} else {
			c = l->column[i - 1] + 2; /* a free slot between: room for arrows */
		}
		l->column[i] = c;
		if (c + 1 > l->columns)
			l->columns = c + 1;
	}
	return 0;
}

/* Its place in l->ev (sorted), l->count when it is not drawn. */
static size_t find_event(const struct core_layout *l, struct vsc_event_ref r)
{
	const struct vsc_event_ref *at = bsearch(&r, l->ev, l->count, sizeof(r), event_ref_compare);

	return at ? (size_t)(at - l->ev) : l->count;
}

/* Where the line from box centre (x, y) towards (tx, ty) leaves the box,
 * pad pixels out: arrows start and end outside the labels. */
static void box_exit(double x, double y, double tx, double ty, double pad, double *ox, double *oy)
{
	double dx = tx - x, dy = ty - y;
	double sx = dx != 0 ? (BOX_W / 2.0 + pad) / (dx < 0 ? -dx : dx) : 1e9;
	double sy = dy != 0 ? (BOX_H / 2.0 + pad) / (dy < 0 ? -dy : dy) : 1e9;
	double s = sx < sy ? sx : sy;

	if (s > 1)
		s = 1;
	*ox = x + dx * s;
	*oy = y + dy * s;
}

static void draw_step(FILE *out, const struct core_layout *l, const struct vsc_order *o, size_t k)
{
	static const char *const names[] = { "program order", "reads-from", "from-read",
					     "coherence" };
	size_t a = find_event(l, o->before), b = find_event(l, o->after);
	double x1, y1, x2, y2, cx, cy, px, py, qx, qy;

	if (a == l->count || b == l->count)
		return;
	x1 = LEFT + l->column[a] * (BOX_W + 8) + BOX_W / 2.0;
	y1 = TOP + l->row[l->ev[a].thread] * LANE_H + BOX_H / 2.0;
	x2 = LEFT + l->column[b] * (BOX_W + 8) + BOX_W / 2.0;
	y2 = TOP + l->row[l->ev[b].thread] * LANE_H + BOX_H / 2.0;
	/* bend same-lane arrows above the lane, others a little sideways */
	cx = (x1 + x2) / 2 + (y1 == y2 ? 0 : 24);
	cy = (y1 + y2) / 2 - (y1 == y2 ? BOX_H * 1.2 : 0);
	box_exit(x1, y1, cx, cy, 2, &px, &py);
	box_exit(x2, y2, cx, cy, 8, &qx, &qy);
	fprintf(out,
		"<path d=\"M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f\" fill=\"none\" stroke=\"%s\" "
		"stroke-width=\"1.5\" marker-end=\"url(#arrow)\"><title>%s</title></path>\n",
		px, py, cx, cy, qx, qy, o->kind == VSC_ORDER_PROGRAM ? "#7f8c8d" : "#c0392b",
		names[o->kind]);
	fprintf(out,
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\" "
		"fill=\"#c0392b\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">"
		"%zu. %s</text>\n",
		/* a third of the way: crossing arrows keep their labels apart */
		0.49 * px + 0.42 * cx + 0.09 * qx, 0.49 * py + 0.42 * cy + 0.09 * qy - 3, k + 1,
		names[o->kind]);
}

/* The core (red) with its neighbours (grey), "..." where a thread's events
 * are left out, and the cycle as numbered arrows. */
static void draw_core(FILE *out, const struct item *it, const char *title)
{
	const struct vsc_program *p = it->prog;
	const struct vsc_event_ref *core;
	const struct vsc_order *cycle;
	size_t n = vsc_core_events(it->core, &core), m = vsc_core_cycle(it->core, &cycle);
	struct core_layout l = { 0 };

	if (layout_core(it, &l))
		goto out;
	header(out, l.columns, l.rows, title);
	for (size_t i = 0; i < l.count; i++) {
		char label[128];
		int is_core = bsearch(&l.ev[i], core, n, sizeof(*core), event_ref_compare) != NULL;
		if (i == 0 || l.ev[i].thread != l.ev[i - 1].thread)
			lane(out, l.row[l.ev[i].thread], vsc_program_thread_name(p, l.ev[i].thread),
			     l.columns);
		else if (l.ev[i].index > l.ev[i - 1].index + 1)
			fprintf(out,
				"<text x=\"%u\" y=\"%u\" text-anchor=\"middle\" fill=\"#999\">"
				"&#8230; %u &#8230;</text>\n",
				(unsigned)(LEFT + (l.column[i] - 1) * (BOX_W + 8) + BOX_W / 2),
				(unsigned)(TOP + l.row[l.ev[i].thread] * LANE_H + BOX_H / 2 + 4),
				l.ev[i].index - l.ev[i - 1].index - 1);
		event_label(p, l.ev[i].thread, l.ev[i].index, label, sizeof(label));
		box(out, l.column[i], l.row[l.ev[i].thread], label,
		    is_core ? "#fadbd8" : "#f2f2f2");
	}
	for (size_t e = 0; e < m && e < PICTURE_MAX_CYCLE; e++)
		draw_step(out, &l, &cycle[e], e);
out:
	free(l.ev);
	free(l.column);
	free(l.row);
}

int svg_write(const char *path, const struct item *it, const char *title)
{
	FILE *out = fopen(path, "w");
	int err;

	if (!out)
		return -1;
	if (it->status == EXIT_CONSISTENT && it->res) {
		draw_witness(out, it, title);
	} else if (it->core) {
		draw_core(out, it, title);
	} else if (it->status == EXIT_INCONSISTENT) {
		header(out, 4, 1, title);
		fprintf(out, "<text x=\"10\" y=\"70\">no core to draw: %s</text>\n",
			story_no_core(it));
	} else {
		header(out, 4, 1, title);
		fputs("<text x=\"10\" y=\"70\">no witness and no core to draw</text>\n", out);
	}
	fputs("</svg>\n", out);
	err = ferror(out);
	if (fclose(out) || err) {
		errno = errno ? errno : EIO;
		return -1;
	}
	return 0;
}
