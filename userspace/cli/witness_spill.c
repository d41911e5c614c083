/* SPDX-License-Identifier: MIT */
/* Witnesses and explanations waiting in a temporary file for the report
 * (witness_spill.h). Each is rendered by the report's own writers
 * (check_text.c, check_json.c, story.c), text without its indent (a segment's lines get theirs
 * when printed: whether a file has segments is known once it is read). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "report.h"
#include "witness_spill.h"
#include "userspace/util/diag.h"

#define SPILL_FLUSH_BYTES ((uint64_t)1 << 20)

bool witness_spill_wanted(const struct check_args *a, const struct item *it)
{
	if (a->summary || it->status != EXIT_CONSISTENT)
		return false; /* the others' witnesses, if any, come from their kept results */
	return a->witness || (a->json && a->opts.minimize);
}

/* Writing failed: nothing more goes in, and what was not written out is
 * lost. */
static void spill_failed(struct witness_spill *s, int err)
{
	if (!s->failed)
		s->err = err ? err : EIO;
	s->failed = true;
}

/* VSC_SPILL_START=BYTES (for bench/spill_offsets.sh): the first witness
 * goes that far into the file, past a hole that takes no disk, so that
 * places beyond 4 GiB are tried without writing 4 GiB. */
static void spill_skip(FILE *f)
{
	const char *start = getenv("VSC_SPILL_START");
	unsigned long long at = start && *start ? strtoull(start, NULL, 10) : 0;

	if (at)
		(void)fseeko(f, (off_t)at, SEEK_SET); /* else from 0: the bench sees it */
}

FILE *spill_temp_file(void)
{
	const char *dir = getenv("TMPDIR");
	char *path;
	int fd, err;
	FILE *f;

	if (!dir || !*dir)
		dir = "/tmp";
	if (asprintf(&path, "%s/vsc-spill.XXXXXX", dir) < 0)
		return NULL;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	free(path);
	if (fd < 0 || !(f = fdopen(fd, "w+"))) {
		err = errno;
		if (fd >= 0)
			close(fd);
		errno = err;
		return NULL;
	}
	return f;
}

static FILE *spill_open(void)
{
	FILE *f = spill_temp_file();

	if (f)
		spill_skip(f);
	return f;
}

static FILE *spill_file(struct witness_spill *s)
{
	if (!s->file && !s->failed) {
		s->file = spill_open();
		if (!s->file)
			spill_failed(s, errno); /* nothing placed: nothing lost */
	}
	return s->failed ? NULL : s->file;
}

/* What goes into the spill for one execution. */
struct rendering {
	const struct check_args *a;
	const struct line_notes *notes;
	const struct item *it;
	const char *path; /* of its file */
};

static void render_witness(FILE *out, const struct rendering *r)
{
	if (r->a->json) {
		struct json j;
		json_init_inner(&j, out);
		json_witness_array(&j, r->it->prog, r->it->res);
	} else {
		text_witness(out, r->it->prog, r->it->res, "");
	}
}

/* as check_text.c, check_json.c and summary.c print it */
static void render_story(FILE *out, const struct rendering *r)
{
	if (r->a->json) {
		struct json j;
		json_init_inner(&j, out);
		j.count[j.depth] = 1; /* keys in an object that has some: each after a comma */
		story_json(&j, r->it);
	} else if (r->a->summary) {
		story_brief(out, r->it, "");
	} else {
		story_print(out, r->notes, r->it, story_bound(r->a), "");
	}
}

static int spill_add(struct witness_spill *s, void (*render)(FILE *, const struct rendering *),
		     const struct rendering *r, struct spilled_witness *to)
{
	FILE *out = spill_file(s);
	off_t at, end;

	if (!out)
		return -1;
	errno = 0;
	if ((at = ftello(out)) < 0) {
		spill_failed(s, errno);
		return -1;
	}
	render(out, r);
	end = ftello(out);
	/* flushed every MiB at least: a write that fails loses what the buffer
	 * held, witnesses already placed too; those are known (from flushed) */
	if (!ferror(out) && end >= at && (uint64_t)end - s->flushed >= SPILL_FLUSH_BYTES &&
	    fflush(out) == 0)
		s->flushed = (uint64_t)end;
	if (ferror(out) || end < at) {
		spill_failed(s, errno);
		return -1;
	}
	*to = (struct spilled_witness){ .at = (uint64_t)at, .len = (uint64_t)(end - at) };
	return 0;
}

int witness_spill_add(struct witness_spill *s, const struct check_args *a, const struct item *it,
		      struct spilled_witness *to)
{
	struct rendering r = { .a = a, .it = it };

	return spill_add(s, render_witness, &r, to);
}

bool explain_spill_wanted(const struct check_args *a, const struct item *it)
{
	return a->explain && it->status == EXIT_INCONSISTENT;
}

int explain_spill_add(struct witness_spill *s, const struct check_args *a,
		      const struct line_notes *notes, const struct item *it,
		      struct spilled_witness *to)
{
	struct rendering r = { .a = a, .notes = notes, .it = it };

	return spill_add(s, render_story, &r, to);
}

static void render_core(FILE *out, const struct rendering *r)
{
	core_out_render(out, r->path, r->notes, r->it, story_bound(r->a));
}

int core_spill_add(struct witness_spill *s, const struct check_args *a, const char *path,
		   const struct line_notes *notes, const struct item *it,
		   struct spilled_witness *to)
{
	struct rendering r = { .a = a, .notes = notes, .it = it, .path = path };

	return spill_add(s, render_core, &r, to);
}

/* Calls put(chunk, n, ctx) over the bytes of w, in order; false when they
 * are lost (said once on stderr). */
static bool read_back(struct witness_spill *s, const struct spilled_witness *w,
		      void (*put)(const char *chunk, size_t n, void *ctx), void *ctx)
{
	char buf[1 << 16];
	uint64_t left = w->len;

	witness_spill_finish(s); /* the report has begun: nothing more is added */
	if (!witness_spill_lost(s, w->at + w->len) && s->file &&
	    fseeko(s->file, (off_t)w->at, SEEK_SET) == 0) {
		while (left > 0) {
			size_t n = fread(buf, 1, left < sizeof(buf) ? (size_t)left : sizeof(buf),
					 s->file);
			if (n == 0)
				break;
			put(buf, n, ctx);
			left -= n;
		}
		fseeko(s->file, 0, SEEK_END); /* where the next witness goes */
	}
	/* a file given up before its report (check_stream.c) is never read
	 * back: only a read that fails gets here */
	if (left > 0 && !s->told)
		diag("check", "witnesses or explanations lost: their temporary file could not be "
			      "read back");
	s->told = s->told || left > 0;
	s->read_failed = s->read_failed || left > 0;
	return left == 0;
}

struct indented {
	const char *indent;
	bool line_start;
};

static void put_indented(const char *chunk, size_t n, void *ctx)
{
	struct indented *in = ctx;

	while (n > 0) {
		const char *nl = memchr(chunk, '\n', n);
		size_t len = nl ? (size_t)(nl - chunk) + 1 : n;
		if (in->line_start)
			fputs(in->indent, stdout);
		fwrite(chunk, 1, len, stdout);
		in->line_start = nl != NULL;
		chunk += len;
		n -= len;
	}
}

void witness_spill_print_text(struct witness_spill *s, const struct spilled_witness *w,
			      const char *indent)
{
	struct indented in = { .indent = indent, .line_start = true };

	(void)read_back(s, w, put_indented, &in); /* lost: said on stderr */
}

struct after_line {
	FILE *out;
	const char *ctx;
	void (*after_first)(FILE *out, const char *ctx);
};

static void put_after_line(const char *chunk, size_t n, void *ctx)
{
	struct after_line *al = ctx;
	const char *nl = al->after_first ? memchr(chunk, '\n', n) : NULL;
	size_t len = nl ? (size_t)(nl - chunk) + 1 : n;

	fwrite(chunk, 1, len, al->out);
	if (nl) {
		al->after_first(al->out, al->ctx);
		al->after_first = NULL;
		fwrite(chunk + len, 1, n - len, al->out);
	}
}

void witness_spill_copy(struct witness_spill *s, const struct spilled_witness *w, FILE *out,
			const char *ctx, void (*after_first)(FILE *out, const char *ctx))
{
	struct after_line al = { .out = out, .ctx = ctx, .after_first = after_first };

	(void)read_back(s, w, put_after_line, &al); /* lost: said on stderr */
}

static void put_raw(const char *chunk, size_t n, void *ctx)
{
	fwrite(chunk, 1, n, ctx);
}

void witness_spill_print_json(struct witness_spill *s, const struct spilled_witness *w,
			      struct json *j)
{
	FILE *out = json_raw_value(j);

	if (!read_back(s, w, put_raw, out))
		fputs("null", out); /* lost: the document stays well-formed */
}

void explain_spill_print_json(struct witness_spill *s, const struct spilled_witness *w,
			      struct json *j)
{
	(void)read_back(s, w, put_raw, j->out); /* lost: no keys, said on stderr */
}

bool witness_spill_lost(const struct witness_spill *s, uint64_t end)
{
	return s->failed && end > s->flushed;
}

void witness_spill_finish(struct witness_spill *s)
{
	if (s->failed || !s->file || s->flushed == UINT64_MAX)
		return;
	errno = 0;
	if (fflush(s->file) != 0 || ferror(s->file))
		spill_failed(s, errno);
	else
		s->flushed = UINT64_MAX;
}

void witness_spill_close(struct witness_spill *s)
{
	if (s->file)
		fclose(s->file);
	*s = (struct witness_spill){ 0 };
}
