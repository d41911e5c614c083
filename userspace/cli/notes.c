/* SPDX-License-Identifier: MIT */
/* The trailing comments of the trace lines that explanations name (where
 * recorders put `func+off file:line`), and with --html of every event its
 * page shows, read in one pass over the file for all its executions at
 * once: explaining many segments stays linear. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "report.h"

#define SCAN_BLOCK (1 << 20) /* bytes read at once */

struct line_notes {
	uint32_t *lines; /* sorted, distinct */
	char **text;     /* the comment of each line, "" when none */
	size_t count;
};

static int compare_lines(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static size_t want(const struct item *it, const struct vsc_event_ref *ev, size_t m, uint32_t *out,
		   size_t n)
{
	for (size_t i = 0; i < m; i++) {
		uint32_t line = vsc_program_event_line(it->prog, ev[i].thread, ev[i].index);
		if (line && out)
			out[n] = line;
		n += line != 0;
	}
	return n;
}

/* The lines of its core's events, and with html of the events the page
 * shows, into out from out[n] (counted when out is NULL); the new n. */
static size_t item_lines(const struct item *it, bool html, uint32_t *out, size_t n)
{
	const struct vsc_event_ref *core = NULL;
	struct vsc_event_ref *shown = NULL;
	size_t m = it->core ? vsc_core_events(it->core, &core) : 0, k = 0;

	n = want(it, core, m, out, n);
	if (html && !html_shown_events(it, &shown, &k))
		n = want(it, shown, k, out, n);
	free(shown);
	return n;
}

/* The lines of every execution's core (and with html, page). */
static size_t wanted_lines(const struct file_report *f, bool html, uint32_t *out)
{
	size_t n = 0;
	struct item_cursor c;
	const struct item *it;

	for (items_begin(&c, f); (it = items_next(&c));)
		n = item_lines(it, html, out, n);
	return n;
}

/* Sorted and distinct: how many are left. */
static size_t sort_distinct(uint32_t *lines, size_t n)
{
	size_t m = 0;

	qsort(lines, n, sizeof(*lines), compare_lines);
	for (size_t i = 0; i < n; i++)
		if (m == 0 || lines[m - 1] != lines[i])
			lines[m++] = lines[i];
	return m;
}

/* A table for n lines (their comments unset), or NULL. */
static struct line_notes *notes_new(size_t n)
{
	struct line_notes *notes = calloc(1, sizeof(*notes));

	if (!notes)
		return NULL;
	notes->lines = malloc(n * sizeof(*notes->lines));
	notes->text = calloc(n, sizeof(*notes->text));
	if (!notes->lines || !notes->text) {
		notes_free(notes);
		return NULL;
	}
	return notes;
}

/* The comment after '#' on a line, trimmed; "" when none. */
static char *comment_of(const char *line)
{
	const char *hash = strchr(line, '#');
	size_t len;

	if (!hash)
		return strdup("");
	hash++;
	hash += strspn(hash, " \t");
	len = strcspn(hash, "\r\n");
	return strndup(hash, len);
}

/* Append len bytes to the growing line *buf (NUL-terminated). */
static bool append(char **buf, size_t *len, size_t *cap, const char *from, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t c = (*len + n + 1) * 2;
		char *grown = realloc(*buf, c);
		if (!grown)
			return false;
		*buf = grown;
		*cap = c;
	}
	memcpy(*buf + *len, from, n);
	*len += n;
	(*buf)[*len] = 0;
	return true;
}

/* ---- one execution at a time -------------------------------------------- */

struct notes_reader {
	FILE *in;
	char *block;
	size_t have, pos; /* block[pos, have) is not read yet */
	uint32_t at;      /* the line block[pos] is in */
	bool at_start;    /* block[pos] begins that line */
	char *line;       /* a wanted line being put together */
	size_t len, cap;
};

/* The file at path open for reading when it is a regular file, else NULL.
 * Opened first and looked at after (fstat), never looked at and then
 * opened: a FIFO put at path in between would be opened, and the open waits
 * for a writer. O_NONBLOCK makes the open of a FIFO return at once; it is
 * cleared once the file is known to be regular. */
static FILE *open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE *in;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 || !(in = fdopen(fd, "r"))) {
		close(fd);
		return NULL;
	}
	return in;
}

struct notes_reader *notes_reader_open(const char *path)
{
	struct notes_reader *r;

	/* Only a regular file: standard input, a pipe or a FIFO is being read
	 * by the parser (a second reader would take its bytes), and once read
	 * has nothing left for notes_load either: no comments. */
	if (strcmp(path, "-") == 0 || !(r = calloc(1, sizeof(*r))))
		return NULL;
	r->in = open_regular(path);
	r->block = malloc(SCAN_BLOCK);
	if (!r->in || !r->block) {
		notes_reader_close(r);
		return NULL;
	}
	r->at = 1;
	r->at_start = true;
	return r;
}

void notes_reader_close(struct notes_reader *r)
{
	if (!r)
		return;
	if (r->in)
		fclose(r->in);
	free(r->block);
	free(r->line);
	free(r);
}

/* More of the file into the block; false at its end (or an error). */
static bool refill(struct notes_reader *r)
{
	r->pos = 0;
	r->have = fread(r->block, 1, SCAN_BLOCK, r->in);
	return r->have > 0;
}

/* The comment of line `want` (at or after the reader's line; else the
 * file is read again from its start), "" when the file has no such line;
 * NULL when out of memory. Read in blocks, lines found with memchr: the
 * lines skipped (all but a few) are never copied, which at 10^7 lines is
 * several times cheaper than reading each one. */
static char *reader_comment(struct notes_reader *r, uint32_t want)
{
	bool ok = true;

	if (want < r->at || (want == r->at && !r->at_start)) {
		rewind(r->in);
		r->have = r->pos = 0;
		r->at = 1;
		r->at_start = true;
	}
	r->len = 0;
	for (;;) {
		const char *p, *nl;
		if (r->pos == r->have && !refill(r))
			break; /* the end: a last line without newline, or none */
		p = r->block + r->pos;
		nl = memchr(p, '\n', r->have - r->pos);
		if (r->at == want)
			ok = ok && append(&r->line, &r->len, &r->cap, p,
					  (size_t)((nl ? nl : r->block + r->have) - p));
		r->pos = nl ? (size_t)(nl - r->block) + 1 : r->have;
		r->at_start = nl != NULL;
		if (!nl)
			continue;
		if (r->at++ == want)
			return ok ? comment_of(r->line) : NULL;
	}
	return r->len ? (ok ? comment_of(r->line) : NULL) : strdup("");
}

/* The comments of the wanted lines (sorted, distinct) by the reader r
 * (NULL: none): one pass that stops after the last of them. */
static void read_comments(struct notes_reader *r, struct line_notes *notes)
{
	for (size_t i = 0; r && i < notes->count; i++)
		notes->text[i] = reader_comment(r, notes->lines[i]);
}

struct line_notes *notes_of_item(struct notes_reader *r, const struct item *it, bool html)
{
	struct line_notes *notes;
	size_t n = r ? item_lines(it, html, NULL, 0) : 0;

	if (!n || !(notes = notes_new(n)))
		return NULL;
	item_lines(it, html, notes->lines, 0);
	notes->count = sort_distinct(notes->lines, n);
	read_comments(r, notes);
	return notes;
}

void notes_load(struct file_report *f, bool html)
{
	struct line_notes *notes;
	struct notes_reader *r;
	size_t n = wanted_lines(f, html, NULL);

	if (!n || strcmp(f->path, "-") == 0 || !(notes = notes_new(n)))
		return;
	wanted_lines(f, html, notes->lines);
	notes->count = sort_distinct(notes->lines, n);
	r = notes_reader_open(f->path);
	read_comments(r, notes);
	notes_reader_close(r);
	f->notes = notes;
}

const char *notes_find(const struct line_notes *notes, uint32_t line)
{
	const uint32_t *at;

	if (!notes || !line)
		return "";
	at = bsearch(&line, notes->lines, notes->count, sizeof(line), compare_lines);
	return at && notes->text[at - notes->lines] ? notes->text[at - notes->lines] : "";
}

void notes_free(struct line_notes *notes)
{
	if (!notes)
		return;
	for (size_t i = 0; notes->text && i < notes->count; i++)
		free(notes->text[i]);
	free(notes->text);
	free(notes->lines);
	free(notes);
}
