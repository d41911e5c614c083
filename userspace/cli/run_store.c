/* SPDX-License-Identifier: MIT */
/* Outcome texts interned: what check keeps of an execution's outcome
 * after its program is gone (run_store.h). A text is made by
 * outcome_write (summary_outcomes.c) in pieces: measured and hashed first,
 * held whole when short, else written into a temporary file; a long text
 * is compared with one already kept by making it again against that one's
 * bytes. So a long execution's outcome never is whole in memory. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_store.h"
#include "summary.h"
#include "witness_spill.h"
#include "userspace/util/array.h"
#include "userspace/util/diag.h"

#define FNV_START 0xcbf29ce484222325ULL /* hash_bytes' FNV-1a, a piece at a time */
#define FNV_PRIME 0x100000001b3ULL

/* The first pass over a text: its hash (hash_string's), its length, its
 * values, and its first bytes (all of it when it is held). */
struct measure {
	uint64_t fnv, len, separators;
	char held[OUTCOME_HELD + 1];
};

static void measure_put(const char *bytes, size_t n, void *ctx)
{
	struct measure *m = ctx;

	for (size_t i = 0; i < n; i++) {
		m->fnv = (m->fnv ^ (unsigned char)bytes[i]) * FNV_PRIME;
		m->separators += bytes[i] == ',' || bytes[i] == ' ';
		if (m->len + i < OUTCOME_HELD)
			m->held[m->len + i] = bytes[i];
	}
	m->len += n;
}

static const struct outcome_far *find_far(const struct outcome_names *o, uint32_t i)
{
	size_t lo = 0, hi = o->nfar;

	while (lo < hi) { /* added in the order of their numbers */
		size_t mid = lo + (hi - lo) / 2;
		if (o->far[mid].index == i)
			return &o->far[mid];
		if (o->far[mid].index < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* A kept text read in pieces, from memory or from the file. */
struct text_reader {
	const struct outcome_names *o;
	const char *held; /* a text held whole; NULL: far */
	uint64_t at, left;
	char buf[1 << 14];
};

static void reader_begin(struct text_reader *r, const struct outcome_names *o, uint32_t i)
{
	const struct outcome_far *f = find_far(o, i);

	r->o = o;
	r->held = f ? NULL : o->texts[i];
	r->at = f ? f->at : 0;
	r->left = f ? f->len : strlen(o->texts[i]);
}

/* The next piece (*n > 0), or 0 at the end, or -1 when the file cannot be
 * read back. */
static int reader_next(struct text_reader *r, const char **bytes, size_t *n)
{
	ssize_t got;

	if (r->left == 0)
		return 0;
	if (r->held) {
		*bytes = r->held;
		*n = (size_t)r->left;
		r->left = 0;
		return 1;
	}
	got = pread(fileno(r->o->file), r->buf, r->left < sizeof(r->buf) ? r->left : sizeof(r->buf),
		    (off_t)r->at);
	if (got <= 0)
		return -1;
	*bytes = r->buf;
	*n = (size_t)got;
	r->at += (uint64_t)got;
	r->left -= (uint64_t)got;
	return 1;
}

/* A text being made, compared with a kept one's bytes as it comes. */
struct compare {
	struct text_reader r;
	const char *bytes;
	size_t n;
	bool differ, failed;
};

static void compare_put(const char *bytes, size_t n, void *ctx)
{
	struct compare *c = ctx;

	while (n > 0 && !c->differ) {
		size_t m;
		int got;
		if (c->n == 0 && (got = reader_next(&c->r, &c->bytes, &c->n)) <= 0) {
			c->failed = got < 0;
			c->differ = true; /* the kept one is shorter, or lost */
			break;
		}
		m = n < c->n ? n : c->n;
		c->differ = memcmp(bytes, c->bytes, m) != 0;
		bytes += m;
		n -= m;
		c->bytes += m;
		c->n -= m;
	}
}

/* What a look-up compares the kept texts with. */
struct key {
	const struct vsc_program *p;
	const struct measure *m;
	bool *failed; /* reading a kept one back failed */
};

static bool same_text(const void *ctx, uint32_t index, const void *k)
{
	const struct outcome_names *o = ctx;
	const struct key *key = k;
	const struct outcome_far *f = find_far(o, index);
	struct compare *c;
	bool same;

	if (!f && key->m->len <= OUTCOME_HELD)
		return strcmp(o->texts[index], key->m->held) == 0;
	if (f ? f->len != key->m->len : key->m->len <= OUTCOME_HELD)
		return false;
	if (!f && strlen(o->texts[index]) != key->m->len) /* held whole: the file failed */
		return false;
	if (!(c = calloc(1, sizeof(*c)))) {
		*key->failed = true;
		return false;
	}
	reader_begin(&c->r, o, index);
	if (outcome_write(key->p, compare_put, c))
		c->failed = true;
	same = !c->differ && !c->failed && c->n == 0 && c->r.left == 0;
	*key->failed = *key->failed || c->failed;
	free(c);
	return same;
}

struct fill {
	char *text;
	uint64_t len;
};

static void fill_put(const char *bytes, size_t n, void *ctx)
{
	struct fill *f = ctx;

	memcpy(f->text + f->len, bytes, n);
	f->len += n;
}

static void file_put(const char *bytes, size_t n, void *ctx)
{
	fwrite(bytes, 1, n, ctx);
}

/* p's long text (measured as m) into the file, at its end; false when the
 * file cannot take it (then no more go there). */
static bool put_far(struct outcome_names *o, const struct vsc_program *p, const struct measure *m)
{
	off_t end;

	if (!o->file && !o->failed_file && !(o->file = spill_temp_file()))
		o->failed_file = true;
	if (o->failed_file ||
	    array_reserve32((void **)&o->far, &o->farcap, o->nfar + 1, sizeof(*o->far), 16))
		return false;
	if (fseeko(o->file, (off_t)o->end, SEEK_SET) || outcome_write(p, file_put, o->file) ||
	    fflush(o->file) || ferror(o->file) || (end = ftello(o->file)) < 0 ||
	    (uint64_t)end != o->end + m->len) {
		o->failed_file = true; /* held whole from now on */
		return false;
	}
	o->far[o->nfar] = (struct outcome_far){
		.index = o->count, .at = o->end, .len = m->len, .separators = m->separators
	};
	return true;
}

uint32_t outcome_names_note(struct outcome_names *o, const struct vsc_program *p)
{
	struct measure *m = malloc(sizeof(*m));
	bool failed = false, far = false;
	uint64_t hash;
	int64_t found;
	char *text = NULL;
	uint32_t got = OUTCOME_NONE;

	if (!m)
		return OUTCOME_NONE;
	*m = (struct measure){ .fnv = FNV_START };
	if (outcome_write(p, measure_put, m))
		goto out;
	m->held[m->len < OUTCOME_HELD ? m->len : OUTCOME_HELD] = '\0';
	hash = hash_mix64(m->fnv); /* hash_string's */
	found = hash_index_find(&o->index, hash, same_text, o, &(struct key){ p, m, &failed });
	if (failed)
		goto out;
	if (found >= 0) {
		got = (uint32_t)found;
		goto out;
	}
	if (o->count >= HASH_INDEX_MAX || ARRAY_RESERVE(o->texts, o->cap, o->count + 1))
		goto out;
	if (m->len > OUTCOME_HELD && (far = put_far(o, p, m))) {
		m->held[OUTCOME_START] = '\0';
		text = strdup(m->held);
	} else if (m->len > OUTCOME_HELD && m->len < SIZE_MAX &&
		   (text = malloc((size_t)m->len + 1))) {
		struct fill f = { text, 0 }; /* the file failed: held whole */
		if (outcome_write(p, fill_put, &f) || f.len != m->len) {
			free(text);
			text = NULL;
		} else {
			text[f.len] = '\0';
		}
	} else if (m->len <= OUTCOME_HELD) {
		text = strdup(m->held);
	}
	if (!text || hash_index_add(&o->index, hash, o->count)) {
		free(text);
		goto out;
	}
	if (far) {
		o->nfar++;
		o->end += m->len;
	}
	o->texts[o->count] = text;
	got = o->count++;
out:
	free(m);
	return got;
}

/* Once: a long outcome could not be read back. */
static void lost(struct outcome_names *o)
{
	if (!o->failed)
		diag("check", "an outcome's text lost: it could not be read back from its "
			      "temporary file");
	o->failed = true;
}

int outcome_names_compare(struct outcome_names *o, uint32_t a, uint32_t b)
{
	struct text_reader *ra, *rb;
	const char *x = NULL, *y = NULL;
	size_t nx = 0, ny = 0;
	int cmp = 0, gx = 1, gy = 1;

	if (!o->nfar || (!find_far(o, a) && !find_far(o, b)))
		return strcmp(o->texts[a], o->texts[b]);
	ra = malloc(sizeof(*ra));
	rb = malloc(sizeof(*rb));
	if (!ra || !rb) { /* their first bytes alone */
		free(ra);
		free(rb);
		return strcmp(o->texts[a], o->texts[b]);
	}
	reader_begin(ra, o, a);
	reader_begin(rb, o, b);
	while (cmp == 0) {
		size_t m;
		if (nx == 0 && (gx = reader_next(ra, &x, &nx)) <= 0)
			break;
		if (ny == 0 && (gy = reader_next(rb, &y, &ny)) <= 0)
			break;
		m = nx < ny ? nx : ny;
		cmp = memcmp(x, y, m);
		x += m, nx -= m;
		y += m, ny -= m;
	}
	if (gx < 0 || gy < 0)
		lost(o);
	else if (cmp == 0) /* one ended: the shorter comes first */
		cmp = (nx > 0 || ra->left > 0) - (ny > 0 || rb->left > 0);
	free(ra);
	free(rb);
	return cmp;
}

const char *outcome_names_start(const struct outcome_names *o, uint32_t i, bool *far,
				uint64_t *values)
{
	const struct outcome_far *f = find_far(o, i);

	*far = f != NULL;
	*values = f ? f->separators + 1 : 0;
	return o->texts[i];
}

bool outcome_names_copy(struct outcome_names *o, uint32_t i, outcome_put_fn *put, void *ctx)
{
	struct text_reader *r = malloc(sizeof(*r));
	const char *bytes;
	size_t n;
	int got;

	if (!r) {
		lost(o);
		return false;
	}
	reader_begin(r, o, i);
	while ((got = reader_next(r, &bytes, &n)) > 0)
		put(bytes, n, ctx);
	free(r);
	if (got < 0)
		lost(o);
	return got == 0;
}

void outcome_names_free(struct outcome_names *o)
{
	for (uint32_t i = 0; i < o->count; i++)
		free(o->texts[i]);
	free(o->texts);
	free(o->far);
	if (o->file)
		fclose(o->file);
	hash_index_free(&o->index);
	memset(o, 0, sizeof(*o));
}
