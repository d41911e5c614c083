/* SPDX-License-Identifier: MIT */
/* --svg: threads as horizontal lanes, time going right.
 * Consistent: the witness, one box per event (or, past SVG_MAX_BOXES events,
 * one box per run of a thread), preemptions marked by red dashed lines.
 * Inconsistent: the core's events per thread in program order, with the
 * forced orders of the cycle as arrows. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "report.h"

#define SVG_MAX_BOXES 200
#define LANE_H 60
#define BOX_W 84
#define BOX_H 34
#define LEFT 110
#define TOP 50

static void text_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
}

static void header(FILE *out, size_t columns, size_t lanes, const char *title)
{
	unsigned w = (unsigned)(LEFT + columns * (BOX_W + 8) + 40);
	unsigned h = (unsigned)(TOP + lanes * LANE_H + 30);

	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
		"viewBox=\"0 0 %u %u\" font-family=\"monospace\" font-size=\"11\">\n"
		"<defs><marker id=\"arrow\" markerWidth=\"8\" markerHeight=\"8\" refX=\"7\" "
		"refY=\"4\" orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" fill=\"#c0392b\"/>"
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

static void draw_witness(FILE *out, const struct item *it, const char *title)
{
	const struct vsc_program *p = it->prog;
	const uint32_t *w;
	size_t n = vsc_result_witness(it->res, &w), k = vsc_program_thread_count(p);
	size_t runs = 0, column = 0, *next = calloc(k + 1, sizeof(*next));
	int blocks;

	if (!next)
		return;
	for (size_t i = 0; i < n; i++)
		runs += i == 0 || w[i] != w[i - 1];
	blocks = n > SVG_MAX_BOXES;
	header(out, blocks ? runs : n, k, title);
	for (size_t t = 0; t < k; t++)
		lane(out, t, vsc_program_thread_name(p, t), blocks ? runs : n);
	for (size_t i = 0; i < n; column++) {
		size_t j = i;
		char label[128];
		if (blocks) {
			while (j < n && w[j] == w[i])
				j++;
			snprintf(label, sizeof(label), "[%zu..%zu]", next[w[i]], next[w[i]] + (j - i) - 1);
		} else {
			j = i + 1;
			event_label(p, w[i], (uint32_t)next[w[i]], label, sizeof(label));
		}
		box(out, column, w[i], label, "#d6eaf8");
		next[w[i]] += j - i;
		if (j < n && w[j] != w[i] && next[w[i]] < vsc_program_thread_length(p, w[i])) {
			unsigned x = (unsigned)(LEFT + column * (BOX_W + 8) + BOX_W + 4);
			fprintf(out,
				"<line x1=\"%u\" y1=\"%d\" x2=\"%u\" y2=\"%u\" stroke=\"#c0392b\" "
				"stroke-dasharray=\"4,3\"><title>preemption</title></line>\n",
				x, TOP - 8, x, (unsigned)(TOP + k * LANE_H));
		}
		i = j;
	}
	free(next);
}

static void draw_core(FILE *out, const struct item *it, const char *title)
{
	const struct vsc_program *p = it->prog;
	const struct vsc_event_ref *core;
	const struct vsc_order *cycle;
	size_t n = vsc_core_events(it->core, &core), m = vsc_core_cycle(it->core, &cycle);
	size_t k = vsc_program_thread_count(p), columns = 0;
	size_t *row = calloc(k + 1, sizeof(*row)), *column = calloc(n + 1, sizeof(*column));
	size_t rows = 0;

	if (!row || !column)
		goto out;
	/* lanes: the threads that have core events, in order; columns: the
	 * event's place among its thread's core events */
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || core[i].thread != core[i - 1].thread)
			row[core[i].thread] = rows++;
		column[i] = i == 0 || core[i].thread != core[i - 1].thread ? 0 : column[i - 1] + 1;
		if (column[i] + 1 > columns)
			columns = column[i] + 1;
	}
	header(out, columns, rows, title);
	for (size_t i = 0; i < n; i++) {
		char label[128];
		if (column[i] == 0)
			lane(out, row[core[i].thread], vsc_program_thread_name(p, core[i].thread),
			     columns);
		event_label(p, core[i].thread, core[i].index, label, sizeof(label));
		box(out, column[i], row[core[i].thread], label, "#fadbd8");
	}
	for (size_t e = 0; e < m; e++) {
		size_t a = n, b = n;
		for (size_t i = 0; i < n; i++) {
			if (!memcmp(&core[i], &cycle[e].before, sizeof(core[i])))
				a = i;
			if (!memcmp(&core[i], &cycle[e].after, sizeof(core[i])))
				b = i;
		}
		if (a == n || b == n)
			continue;
		unsigned x1 = (unsigned)(LEFT + column[a] * (BOX_W + 8) + BOX_W / 2);
		unsigned y1 = (unsigned)(TOP + row[core[a].thread] * LANE_H + BOX_H / 2);
		unsigned x2 = (unsigned)(LEFT + column[b] * (BOX_W + 8) + BOX_W / 2);
		unsigned y2 = (unsigned)(TOP + row[core[b].thread] * LANE_H + BOX_H / 2);
		fprintf(out,
			"<path d=\"M%u,%u Q%u,%u %u,%u\" fill=\"none\" stroke=\"#c0392b\" "
			"stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>\n",
			x1, y1, (x1 + x2) / 2 + 20, (y1 + y2) / 2 - 20, x2, y2);
	}
out:
	free(row);
	free(column);
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
