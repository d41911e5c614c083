/* SPDX-License-Identifier: MIT */
/* What the two kinds of --svg picture share (svg.c: the witness; svg_core.c:
 * the core and its explanation). Text is 11 px monospace, whose characters
 * are 0.6 em (6.6 px) wide: widths are reckoned at SVG_CHAR_W a byte, so a
 * label reckoned to fit does fit. Boxes are as wide as the longest label
 * of the picture, between SVG_BOX_MIN_W and SVG_BOX_MAX_W; a longer label
 * is cut with an ellipsis and keeps its whole text as a tooltip. */
#ifndef VSC_CLI_SVG_H
#define VSC_CLI_SVG_H

#include <stdio.h>

#include "report.h"

#define SVG_CHAR_W 7   /* 11 px monospace */
#define SVG_SMALL_W 6  /* 10 px monospace (badges) */
#define SVG_TEXT_PAD 8 /* a box's width past its text */
#define SVG_BOX_MIN_W 84
#define SVG_BOX_MAX_W 232
#define SVG_BOX_H 34
#define SVG_LANE_H 76
#define SVG_TOP 64
#define SVG_LEFT_MIN 110
#define SVG_LEFT_MAX 194
#define SVG_SPACING 8 /* between columns */

struct svg_geometry {
	unsigned left;     /* x of the first column */
	unsigned box_w;    /* every box's width */
	size_t box_chars;  /* the longest label a box holds */
	size_t name_chars; /* the longest lane name */
};

/* The geometry for labels of up to longest_label bytes and thread names of
 * up to longest_name. */
struct svg_geometry svg_fit(size_t longest_label, size_t longest_name);
unsigned svg_column_x(const struct svg_geometry *g, size_t column);
unsigned svg_row_y(size_t row);
/* The width of text, chars bytes, in 11 px monospace. */
unsigned svg_text_width(size_t chars);
void svg_text(FILE *out, const char *s);
/* s, or when it has more than chars bytes its first ones and an ellipsis
 * (never cutting a UTF-8 character); true when it was cut. */
bool svg_text_fitted(FILE *out, const char *s, size_t chars);
/* The picture's start: its size, the arrowheads, its title. */
void svg_header(FILE *out, unsigned w, unsigned h, const char *title);
/* The width lanes of so many columns need (and the title). */
unsigned svg_lanes_width(const struct svg_geometry *g, size_t columns, const char *title);
void svg_lane(FILE *out, const struct svg_geometry *g, size_t row, const char *name,
	      size_t columns);
void svg_box(FILE *out, const struct svg_geometry *g, size_t column, size_t row, const char *label,
	     const char *fill);
/* `w x 1`, `u x 1>2` */
void svg_event_label(const struct vsc_program *p, uint32_t t, uint32_t i, char *out, size_t len);

/* The picture of an inconsistent execution's core (svg_core.c); 0, or -1
 * when out of memory (nothing written then). */
int svg_draw_core(FILE *out, const struct item *it, const char *title);

#endif
