/* SPDX-License-Identifier: MIT */
/* --svg of an inconsistent execution: the core's events (red) and their
 * neighbours (grey) per thread in program order, `… N …` where a thread's
 * events are left out, and every step the text explanation lists as an
 * arrow from box edge to box edge: the cycle's steps (solid, numbered 1, 2,
 * ...) and the chains that force them, as deep as the text goes (dashed,
 * 2.1, 2.2, ..., 2.1.1). Each arrow has a badge, its number and kind,
 * placed on a grid of cells that no box, no text and no other badge
 * touches (on the arrow where a cell is free, else the nearest free cell,
 * tied to the arrow by a dotted line), so labels never overlap; under the
 * lanes one legend line a step says it in words, as the text does. The
 * size follows the core, never the trace: a core of more than
 * PICTURE_MAX_CORE events draws the first PICTURE_MAX_CYCLE steps of its
 * cycle, and at most PICTURE_MAX_STEPS steps are drawn in all (the title says
 * how many of how many). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "svg.h"

#define SVG_AROUND 2 /* neighbours drawn on each side of a core event */
#define BADGE_H 14
#define CELL_H 18       /* a badge's cell: BADGE_H and a margin */
#define TITLE_BOTTOM 30 /* no badge above this */
#define ARC_MAX 60      /* a same-lane arc rises at most half this over its lane */
#define LEGEND_LINE 15
#define LEGEND_EVENT_CHARS 64
#define LEGEND_INDENT 21 /* a level of the legend, 3 characters */

static const char *const kind_name[] = {
	[VSC_ORDER_PROGRAM] = "program order",
	[VSC_ORDER_READS_FROM] = "reads-from",
	[VSC_ORDER_READ_FIRST] = "from-read",
	[VSC_ORDER_WRITE_FIRST] = "coherence",
};
static const char *const kind_short[] = {
	[VSC_ORDER_PROGRAM] = "po",
	[VSC_ORDER_READS_FROM] = "rf",
	[VSC_ORDER_READ_FIRST] = "fr",
	[VSC_ORDER_WRITE_FIRST] = "co",
};

struct step_list {
	struct story_step *v;
	size_t count;  /* drawn */
	size_t listed; /* the steps the text lists */
};

/* Where the picture puts things. */
struct core_layout {
	struct vsc_event_ref *ev; /* drawn, sorted */
	size_t *column, count, columns;
	size_t *row; /* per thread */
	size_t rows;
	struct svg_geometry g;
	unsigned cell_w, badge_w; /* the badges' grid */
	uint64_t *cells;          /* taken cells: a set, 0 empty */
	size_t cells_cap, cells_used;
	unsigned right, bottom; /* of everything placed so far */
};

static int shown_events(const struct item *it, const struct step_list *s, struct core_layout *l)
{
	return picture_events(it, SVG_AROUND, s->v, s->count, &l->ev, &l->count);
}

/* Lanes for the threads of the events drawn, each thread's events in
 * program order, every other column left free for the arrows (and, where
 * a thread's events are left out, a note of how many). */
static int place_events(const struct item *it, struct core_layout *l)
{
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

/* `… 12 …` before ev[i] when its thread's events before it are not drawn. */
static bool gap_before(const struct core_layout *l, size_t i, char *text, size_t len)
{
	if (i == 0 || l->ev[i].thread != l->ev[i - 1].thread ||
	    l->ev[i].index == l->ev[i - 1].index + 1)
		return false;
	snprintf(text, len, "%u", l->ev[i].index - l->ev[i - 1].index - 1);
	return true;
}

/* Boxes as wide as the longest label (gap notes included), a margin as
 * wide as the longest lane name, badges as wide as the longest badge. */
static void fit(const struct item *it, const struct step_list *s, struct core_layout *l)
{
	size_t longest = 0, name = 0, badge = 0;

	for (size_t i = 0; i < l->count; i++) {
		char label[256];
		const char *tn = vsc_program_thread_name(it->prog, l->ev[i].thread);
		svg_event_label(it->prog, l->ev[i].thread, l->ev[i].index, label, sizeof(label));
		longest = strlen(label) > longest ? strlen(label) : longest;
		if (gap_before(l, i, label, sizeof(label)) && strlen(label) + 4 > longest)
			longest = strlen(label) + 4; /* "… N …" */
		name = strlen(tn) > name ? strlen(tn) : name;
	}
	for (size_t k = 0; k < s->count; k++)
		if (strlen(s->v[k].number) + 3 > badge)
			badge = strlen(s->v[k].number) + 3; /* "2.1 fr" */
	l->g = svg_fit(longest, name);
	l->badge_w = (unsigned)(badge * SVG_SMALL_W + 8);
	l->cell_w = l->badge_w + 4;
	l->right = svg_lanes_width(&l->g, l->columns, "");
	l->bottom = l->rows ? svg_row_y(l->rows - 1) + SVG_BOX_H : SVG_TOP;
}

/* The set of taken cells (open addressing, 0 empty). */
static uint64_t cell_key(long i, long j)
{
	return ((uint64_t)(uint32_t)i << 32 | (uint32_t)j) + 1;
}

static size_t cell_slot(const struct core_layout *l, uint64_t key)
{
	size_t h = (size_t)(key * 0x9e3779b97f4a7c15ull >> 20) & (l->cells_cap - 1);

	while (l->cells[h] && l->cells[h] != key)
		h = (h + 1) & (l->cells_cap - 1);
	return h;
}

static bool cell_taken(const struct core_layout *l, long i, long j)
{
	return l->cells[cell_slot(l, cell_key(i, j))] != 0;
}

static int cell_take(struct core_layout *l, long i, long j)
{
	size_t h;

	if (2 * (l->cells_used + 1) > l->cells_cap) {
		uint64_t *old = l->cells;
		size_t cap = l->cells_cap;
		l->cells_cap = cap ? 2 * cap : 1024;
		l->cells = calloc(l->cells_cap, sizeof(*l->cells));
		if (!l->cells) {
			l->cells = old;
			l->cells_cap = cap;
			return -1;
		}
		for (size_t k = 0; k < cap; k++)
			if (old[k])
				l->cells[cell_slot(l, old[k])] = old[k];
		free(old);
	}
	h = cell_slot(l, cell_key(i, j));
	l->cells_used += !l->cells[h];
	l->cells[h] = cell_key(i, j);
	return 0;
}

/* Takes every cell the rectangle (with a margin) touches. */
static int block(struct core_layout *l, double x0, double y0, double x1, double y1)
{
	long i0 = (long)floor((x0 - 2) / l->cell_w), i1 = (long)floor((x1 + 2) / l->cell_w);
	long j0 = (long)floor((y0 - 2) / CELL_H), j1 = (long)floor((y1 + 2) / CELL_H);

	for (long i = i0 < 0 ? 0 : i0; i <= i1; i++)
		for (long j = j0 < 0 ? 0 : j0; j <= j1; j++)
			if (cell_take(l, i, j))
				return -1;
	return 0;
}

/* The boxes, the gap notes and the lane names: no badge on them. */
static int block_texts(struct core_layout *l)
{
	for (size_t i = 0; i < l->count; i++) {
		double x = svg_column_x(&l->g, l->column[i]),
		       y = svg_row_y(l->row[l->ev[i].thread]);
		char gap[32];
		if (block(l, x, y, x + l->g.box_w, y + SVG_BOX_H))
			return -1;
		if (gap_before(l, i, gap, sizeof(gap)) &&
		    block(l, x - l->g.box_w - SVG_SPACING, y, x - SVG_SPACING, y + SVG_BOX_H))
			return -1;
		if ((i == 0 || l->ev[i].thread != l->ev[i - 1].thread) &&
		    block(l, 0, y, l->g.left - 10, y + SVG_BOX_H))
			return -1;
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
static void box_exit(const struct core_layout *l, double x, double y, double tx, double ty,
		     double pad, double *ox, double *oy)
{
	double dx = tx - x, dy = ty - y;
	double sx = dx != 0 ? (l->g.box_w / 2.0 + pad) / fabs(dx) : 1e9;
	double sy = dy != 0 ? (SVG_BOX_H / 2.0 + pad) / fabs(dy) : 1e9;
	double s = sx < sy ? sx : sy;

	if (s > 1)
		s = 1;
	*ox = x + dx * s;
	*oy = y + dy * s;
}

/* An arrow: a quadratic curve p -> q bent through c, and its badge. */
struct arrow {
	double px, py, cx, cy, qx, qy;
	long bi, bj;  /* the badge's cell */
	bool on_line; /* the badge sits on the curve */
};

static void curve_at(const struct arrow *a, double t, double *x, double *y)
{
	double u = 1 - t;

	*x = u * u * a->px + 2 * t * u * a->cx + t * t * a->qx;
	*y = u * u * a->py + 2 * t * u * a->cy + t * t * a->qy;
}

/* The curve of step k: a same-lane step leaves the top of its box and
 * arcs over the lane into the top of the other going right, under it going
 * left (so a step and one back between the same boxes stay apart), higher
 * for a longer span so that it clears the boxes between; steps between
 * lanes run from box edge to box edge, bent sideways by direction. A pair
 * drawn before bends further. */
static void route(const struct core_layout *l, const struct step_list *s, size_t k, size_t a,
		  size_t b, struct arrow *ar)
{
	double x1 = svg_column_x(&l->g, l->column[a]) + l->g.box_w / 2.0;
	double y1 = svg_row_y(l->row[l->ev[a].thread]) + SVG_BOX_H / 2.0;
	double x2 = svg_column_x(&l->g, l->column[b]) + l->g.box_w / 2.0;
	double y2 = svg_row_y(l->row[l->ev[b].thread]) + SVG_BOX_H / 2.0;
	size_t repeat = 0;

	for (size_t e = 0; e < k; e++) {
		const struct vsc_order *o = s->v[e].order;
		repeat += (!event_ref_compare(&o->before, &s->v[k].order->before) &&
			   !event_ref_compare(&o->after, &s->v[k].order->after)) ||
			  (!event_ref_compare(&o->before, &s->v[k].order->after) &&
			   !event_ref_compare(&o->after, &s->v[k].order->before));
	}
	if (y1 == y2) {
		double side = x2 > x1 ? -1 : 1; /* up going right */
		double h = 40 + fabs(x2 - x1) / 50 + 12.0 * (double)repeat;
		h = h > ARC_MAX ? ARC_MAX : h;
		ar->px = x1 + (x2 > x1 ? 6 : -6);
		ar->py = y1 + side * (SVG_BOX_H / 2.0 + 2);
		ar->qx = x2 + (x2 > x1 ? -6 : 6);
		ar->qy = y2 + side * (SVG_BOX_H / 2.0 + 8);
		ar->cx = (x1 + x2) / 2;
		ar->cy = y1 + side * (SVG_BOX_H / 2.0 + h);
		return;
	}
	ar->cx = (x1 + x2) / 2 + (y2 > y1 ? 1 : -1) * (24 + 20.0 * (double)repeat);
	ar->cy = (y1 + y2) / 2;
	box_exit(l, x1, y1, ar->cx, ar->cy, 2, &ar->px, &ar->py);
	box_exit(l, x2, y2, ar->cx, ar->cy, 8, &ar->qx, &ar->qy);
}

/* A free cell for the arrow's badge: on the curve near its middle, else
 * the free cell nearest the middle (rings around it: the cells free of
 * everything are never far, the picture's margins are). */
static int place_badge(struct core_layout *l, struct arrow *ar)
{
	static const double on_curve[] = { 0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8 };
	const long jmin = (TITLE_BOTTOM + CELL_H - 1) / CELL_H;
	double mx, my, best = -1;
	long i0, j0;

	for (size_t c = 0; c < sizeof(on_curve) / sizeof(*on_curve); c++) {
		double x, y;
		long i, j;
		curve_at(ar, on_curve[c], &x, &y);
		i = (long)floor(x / l->cell_w);
		j = (long)floor(y / CELL_H);
		if (i >= 0 && j >= jmin && !cell_taken(l, i, j)) {
			ar->bi = i;
			ar->bj = j;
			ar->on_line = true;
			return cell_take(l, i, j);
		}
	}
	curve_at(ar, 0.5, &mx, &my);
	i0 = (long)floor(mx / l->cell_w);
	j0 = (long)floor(my / CELL_H);
	ar->on_line = false;
	for (long r = 1; best < 0; r++) {
		for (long i = i0 - r; i <= i0 + r; i++) {
			/* the ring's cells: its top and bottom rows, its two sides */
			long step = labs(i - i0) == r ? 1 : 2 * r;
			for (long j = j0 - r; j <= j0 + r; j += step) {
				double dx = (i + 0.5) * l->cell_w - mx,
				       dy = (j + 0.5) * CELL_H - my;
				if (i < 0 || j < jmin || cell_taken(l, i, j) ||
				    (best >= 0 && dx * dx + dy * dy >= best))
					continue;
				best = dx * dx + dy * dy;
				ar->bi = i;
				ar->bj = j;
			}
		}
	}
	return cell_take(l, ar->bi, ar->bj);
}

static void legend_line(const struct item *it, const struct story_step *st, char *out, size_t len)
{
	char a[256], b[256];

	story_event(it->prog, st->order->before, a, sizeof(a));
	story_event(it->prog, st->order->after, b, sizeof(b));
	if (strlen(a) > LEGEND_EVENT_CHARS)
		strcpy(a + LEGEND_EVENT_CHARS - 3, "...");
	if (strlen(b) > LEGEND_EVENT_CHARS)
		strcpy(b + LEGEND_EVENT_CHARS - 3, "...");
	snprintf(out, len, "%s %s: %s before %s", st->number, kind_name[st->order->kind], a, b);
}

/* `T1[16]`, as the text names events: tests match the two. */
static void ref_text(FILE *out, const struct vsc_program *p, struct vsc_event_ref r)
{
	svg_text(out, vsc_program_thread_name(p, r.thread));
	fprintf(out, "[%u]", r.index);
}

static void draw_arrow(FILE *out, const struct item *it, const struct story_step *st,
		       const struct arrow *ar, const char *legend)
{
	bool po = st->order->kind == VSC_ORDER_PROGRAM;
	const char *colour = po ? "#7f8c8d" : "#c0392b";

	fprintf(out, "<path class=\"step\" data-step=\"%s\" data-before=\"", st->number);
	ref_text(out, it->prog, st->order->before);
	fputs("\" data-after=\"", out);
	ref_text(out, it->prog, st->order->after);
	fprintf(out,
		"\" d=\"M%.1f,%.1f Q%.1f,%.1f %.1f,%.1f\" fill=\"none\" stroke=\"%s\" "
		"stroke-width=\"%s\"%s marker-end=\"url(#%s)\"><title>",
		ar->px, ar->py, ar->cx, ar->cy, ar->qx, ar->qy, colour, st->depth ? "1.2" : "1.6",
		st->depth ? " stroke-dasharray=\"5,3\"" : "", po ? "arrow-po" : "arrow");
	svg_text(out, legend);
	fputs("</title></path>\n", out);
}

/* Its badge (over every arrow: drawn after them all), tied to the arrow
 * by a dotted line when it is not on it. */
static void draw_badge(FILE *out, const struct core_layout *l, const struct story_step *st,
		       const struct arrow *ar, const char *legend)
{
	const char *colour = st->order->kind == VSC_ORDER_PROGRAM ? "#7f8c8d" : "#c0392b";
	double bx = ar->bi * (double)l->cell_w + 2, by = ar->bj * (double)CELL_H + 2;

	if (!ar->on_line) {
		double mx, my;
		curve_at(ar, 0.5, &mx, &my);
		fprintf(out,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"0.8\" stroke-dasharray=\"1,2\"/>\n",
			bx + l->badge_w / 2.0, by + BADGE_H / 2.0, mx, my, colour);
	}
	fprintf(out,
		"<g class=\"badge\"><rect x=\"%.0f\" y=\"%.0f\" width=\"%u\" height=\"%d\" rx=\"3\" "
		"fill=\"white\" stroke=\"%s\"/><text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\" "
		"font-size=\"10\" fill=\"%s\">%s %s</text><title>",
		bx, by, l->badge_w, BADGE_H, colour, bx + l->badge_w / 2.0, by + 10.5, colour,
		st->number, kind_short[st->order->kind]);
	svg_text(out, legend);
	fputs("</title></g>\n", out);
}

static void draw_events(FILE *out, const struct item *it, const struct core_layout *l)
{
	const struct vsc_event_ref *core;
	size_t n = vsc_core_events(it->core, &core);

	for (size_t i = 0; i < l->count; i++) {
		char label[256];
		int is_core = bsearch(&l->ev[i], core, n, sizeof(*core), event_ref_compare) != NULL;
		size_t row = l->row[l->ev[i].thread];
		if (i == 0 || l->ev[i].thread != l->ev[i - 1].thread)
			svg_lane(out, &l->g, row,
				 vsc_program_thread_name(it->prog, l->ev[i].thread), l->columns);
		else if (gap_before(l, i, label, sizeof(label)))
			fprintf(out,
				"<text class=\"gap\" x=\"%u\" y=\"%u\" text-anchor=\"middle\" "
				"fill=\"#999\">&#8230; %s &#8230;</text>\n",
				svg_column_x(&l->g, l->column[i] - 1) + l->g.box_w / 2,
				svg_row_y(row) + SVG_BOX_H / 2 + 4, label);
		svg_event_label(it->prog, l->ev[i].thread, l->ev[i].index, label, sizeof(label));
		svg_box(out, &l->g, l->column[i], row, label, is_core ? "#fadbd8" : "#f2f2f2");
	}
}

static const char *const key[] = {
	"solid arrows: the cycle's steps; dashed (2.1, ...): why the step above is forced",
	"po program order, rf reads-from, fr from-read, co coherence",
};

/* The picture, once every arrow and badge has its place. */
static void draw(FILE *out, const struct item *it, const struct core_layout *l,
		 const struct step_list *s, const struct arrow *ar, const char *title)
{
	size_t keys = s->count ? sizeof(key) / sizeof(*key) : 0; /* no arrows, no key */
	unsigned top = l->bottom + 28, right = l->right, legend_w;
	char line[1024], full_title[1024];

	snprintf(full_title, sizeof(full_title), "%s", title);
	if (s->count < s->listed)
		snprintf(full_title + strlen(full_title), sizeof(full_title) - strlen(full_title),
			 " (%zu of the %zu steps of its explanation drawn)", s->count, s->listed);
	for (size_t k = 0; k < s->count; k++) {
		legend_line(it, &s->v[k], line, sizeof(line));
		legend_w = 10 + LEGEND_INDENT * s->v[k].depth + svg_text_width(strlen(line)) + 10;
		right = legend_w > right ? legend_w : right;
	}
	for (size_t k = 0; k < keys; k++)
		if (10 + svg_text_width(strlen(key[k])) + 10 > right)
			right = 10 + svg_text_width(strlen(key[k])) + 10;
	if (svg_lanes_width(&l->g, 0, full_title) > right)
		right = svg_lanes_width(&l->g, 0, full_title);
	svg_header(out, right, top + (unsigned)((s->count + keys) * LEGEND_LINE) + 10, full_title);
	draw_events(out, it, l);
	for (size_t k = 0; k < s->count; k++) {
		legend_line(it, &s->v[k], line, sizeof(line));
		draw_arrow(out, it, &s->v[k], &ar[k], line);
	}
	for (size_t k = 0; k < s->count; k++) {
		legend_line(it, &s->v[k], line, sizeof(line));
		draw_badge(out, l, &s->v[k], &ar[k], line);
	}
	for (size_t k = 0; k < keys; k++)
		fprintf(out, "<text class=\"legend\" x=\"10\" y=\"%u\" fill=\"#555\">%s</text>\n",
			top + (unsigned)(k * LEGEND_LINE), key[k]);
	top += (unsigned)(keys * LEGEND_LINE);
	for (size_t k = 0; k < s->count; k++) {
		legend_line(it, &s->v[k], line, sizeof(line));
		fprintf(out, "<text class=\"legend\" x=\"%u\" y=\"%u\">",
			10 + LEGEND_INDENT * s->v[k].depth, top + (unsigned)(k * LEGEND_LINE));
		svg_text(out, line);
		fputs("</text>\n", out);
	}
}

/* Every drawn step's curve and badge; -1 when out of memory. */
static int place_arrows(struct core_layout *l, const struct step_list *s, struct arrow *ar)
{
	if (block_texts(l))
		return -1;
	for (size_t k = 0; k < s->count; k++) {
		size_t a = find_event(l, s->v[k].order->before),
		       b = find_event(l, s->v[k].order->after);
		double bx, by;
		route(l, s, k, a, b, &ar[k]);
		if (place_badge(l, &ar[k]))
			return -1;
		bx = (ar[k].bi + 1.0) * l->cell_w;
		by = (ar[k].bj + 1.0) * CELL_H;
		if (bx + 10 > l->right)
			l->right = (unsigned)bx + 10;
		if (by > l->bottom)
			l->bottom = (unsigned)by;
	}
	return 0;
}

int svg_draw_core(FILE *out, const struct item *it, const char *title)
{
	struct step_list s = { 0 };
	struct core_layout l = { 0 };
	struct arrow *ar = NULL;
	int err = -1;

	s.v = story_steps(it->core, &s.count, &s.listed);
	if (!s.v)
		return -1;
	ar = calloc(s.count + 1, sizeof(*ar));
	if (ar && !shown_events(it, &s, &l) && !place_events(it, &l)) {
		fit(it, &s, &l);
		err = place_arrows(&l, &s, ar);
		if (!err)
			draw(out, it, &l, &s, ar, title);
	}
	free(ar);
	free(s.v);
	free(l.ev);
	free(l.column);
	free(l.row);
	free(l.cells);
	return err;
}
