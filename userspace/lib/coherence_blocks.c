/* SPDX-License-Identifier: MIT */
/* Threads that must run whole, as blocks (coherence_guess.h; docs/solvers.md,
 * "Threads run whole: the bound plus one").
 *
 * When the stops charged along a witness (coherence_paths.c) sum to L, an
 * SC interleaving with L preemptions stops each charged thread exactly as
 * often as charged and every other thread never: those run whole, one
 * block each. Blocks that run whole leave no room: a read of x from
 * another block sees that block's last write of x, the reader's block
 * comes after it, and no other block writing x runs between the two.
 * Among a subset of the blocks (a window of the witness) these are still
 * necessary, so when no order of the subset keeps them, no interleaving
 * has L preemptions and the least is at least L + 1.
 *
 * The orders are saturated over bit rows, one per block: the sources;
 * then, for a reader X of the write of block Y and another writer Z of
 * the variable, Z before Y when Z precedes X, and X before Z when Y
 * precedes Z (rules A and B of coherence.c between whole threads); a
 * read of the initial value before every writer. Each round sorts the
 * blocks topologically (a cycle: refuted), renumbers them in that order
 * so that a row's successors are closed from the nearest on, and adds
 * what the rules give, until a round adds nothing. */
#include "coherence_guess.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/util/sorted.h"

#define NO_BLOCK UINT32_MAX
#define FROM_INIT (UINT32_MAX - 1) /* a block's read of the initial value */
#define MAX_ROUNDS 64

/* x read by block `reader` from block `writer` (FROM_INIT), or, for the
 * list of writers, written by `writer` (reader NO_BLOCK). */
struct block_access {
	uint32_t var, writer, reader;
};

struct blocks {
	const struct coh_sources *s;
	uint32_t nb, words; /* blocks; 64-bit words per row */
	uint32_t *thread;   /* per block: its thread */
	uint32_t *block_of; /* per thread: its block, NO_BLOCK */
	struct block_access *reads, *writes;
	uint32_t nreads, nwrites;
	uint64_t *succ, *next, *desc, *anc; /* nb rows each */
	uint32_t *label;                    /* per block: its row in this round */
	uint32_t *order, *indeg;
	uint32_t *stamp, *seen; /* per variable: scratch while a block is read */
	uint64_t *mask;         /* one row of scratch */
	uint64_t *last;         /* bit per flat event: its block's last write of its variable */
	struct budget *b;
};

static uint64_t *row(const struct blocks *bl, uint64_t *m, uint32_t i)
{
	return m + (size_t)i * bl->words;
}

static bool has(const uint64_t *r, uint32_t i)
{
	return r[i / 64] >> (i % 64) & 1;
}

static void set(uint64_t *r, uint32_t i)
{
	r[i / 64] |= 1ULL << (i % 64);
}

static bool writes(const struct vsc_event *e)
{
	return e->kind != VSC_READ;
}

/* Marks, in last (a bit per flat event), each block's last write of
 * each variable it writes (stamp: per variable, scratch). */
static void mark_last_writes(struct blocks *bl)
{
	const struct coh_sources *s = bl->s;

	for (uint32_t i = 0; i < bl->nb; i++) {
		uint32_t t = bl->thread[i];
		const struct vsc_event *ev = s->p->threads[t].events;
		for (uint32_t f = s->base[t + 1]; f-- > s->base[t];) {
			const struct vsc_event *e = &ev[f - s->base[t]];
			if (writes(e) && bl->stamp[e->var] != i + 1) {
				bl->stamp[e->var] = i + 1;
				bl->last[f / 64] |= 1ULL << (f % 64);
			}
		}
	}
}

/* The reads and writes block i makes of other blocks' values; false when
 * the block cannot run whole (refuted): a read of another block's write
 * after its own write of x, two sources of x before it writes x, or a
 * source that is not its block's last write of x. */
static bool read_block(struct blocks *bl, uint32_t i)
{
	const struct coh_sources *s = bl->s;
	uint32_t t = bl->thread[i], stamp = 2 * i + 1;
	const struct vsc_event *ev = s->p->threads[t].events;

	for (uint32_t f = s->base[t]; f < s->base[t + 1]; f++) {
		const struct vsc_event *e = &ev[f - s->base[t]];
		uint32_t x = e->var, w = s->rf[f], y;
		bool wrote = bl->stamp[x] == stamp + 1, read = bl->stamp[x] == stamp;
		if (e->kind != VSC_WRITE && w != COH_NONE &&
		    (w < s->base[t] || w >= s->base[t + 1])) {
			if (wrote || (read && bl->seen[x] != w))
				return false;
			y = w == COH_INIT ? FROM_INIT
					  : bl->block_of[last_at_most(s->base, 0, s->k, w)];
			if (y != FROM_INIT && y != NO_BLOCK && !has(bl->last, w))
				return false;
			if (!read && y != NO_BLOCK)
				bl->reads[bl->nreads++] = (struct block_access){ x, y, i };
			bl->stamp[x] = stamp;
			bl->seen[x] = w;
		}
		if (writes(e) && !wrote) {
			bl->writes[bl->nwrites++] = (struct block_access){ x, i, NO_BLOCK };
			bl->stamp[x] = stamp + 1;
		}
	}
	return true;
}

static int by_var_then_writer(const void *a, const void *b)
{
	const struct block_access *p = a, *q = b;

	if (p->var != q->var)
		return p->var < q->var ? -1 : 1;
	return p->writer < q->writer ? -1 : p->writer > q->writer;
}

/* Sorts the blocks topologically by succ (rows in this round's labels)
 * into order; false on a cycle. */
static bool sort_blocks(struct blocks *bl)
{
	uint32_t nb = bl->nb, done = 0, got = 0;

	memset(bl->indeg, 0, nb * sizeof(uint32_t));
	for (uint32_t a = 0; a < nb; a++)
		for (uint32_t w = 0; w < bl->words; w++)
			for (uint64_t bits = row(bl, bl->succ, a)[w]; bits; bits &= bits - 1)
				bl->indeg[w * 64 + (uint32_t)__builtin_ctzll(bits)]++;
	for (uint32_t a = 0; a < nb; a++)
		if (!bl->indeg[a])
			bl->order[got++] = a;
	while (done < got) {
		uint32_t a = bl->order[done++];
		for (uint32_t w = 0; w < bl->words; w++)
			for (uint64_t bits = row(bl, bl->succ, a)[w]; bits; bits &= bits - 1) {
				uint32_t c = w * 64 + (uint32_t)__builtin_ctzll(bits);
				if (!--bl->indeg[c])
					bl->order[got++] = c;
			}
	}
	return got == nb;
}

/* Renumbers the rows in the order found (succ rewritten, label updated). */
static void renumber(struct blocks *bl)
{
	uint32_t nb = bl->nb;
	size_t bytes = (size_t)nb * bl->words * sizeof(uint64_t);

	for (uint32_t r = 0; r < nb; r++)
		bl->indeg[bl->order[r]] = r; /* indeg: rank of each row now */
	memset(bl->next, 0, bytes);
	for (uint32_t a = 0; a < nb; a++)
		for (uint32_t w = 0; w < bl->words; w++)
			for (uint64_t bits = row(bl, bl->succ, a)[w]; bits; bits &= bits - 1)
				set(row(bl, bl->next, bl->indeg[a]),
				    bl->indeg[w * 64 + (uint32_t)__builtin_ctzll(bits)]);
	memcpy(bl->succ, bl->next, bytes);
	for (uint32_t i = 0; i < nb; i++)
		bl->label[i] = bl->indeg[bl->label[i]];
}

/* desc and anc of every row, rows in topological order: a row's
 * successors from the nearest on, each one not reached yet adding its own
 * (whatever a nearer one reaches it already brought). */
static void close_orders(struct blocks *bl)
{
	uint32_t nb = bl->nb, W = bl->words;

	memset(bl->anc, 0, (size_t)nb * W * sizeof(uint64_t));
	for (uint32_t a = nb; a-- > 0;) {
		uint64_t *d = row(bl, bl->desc, a);
		memset(d, 0, W * sizeof(uint64_t));
		for (uint32_t w = 0; w < W; w++)
			for (uint64_t bits = row(bl, bl->succ, a)[w]; bits; bits &= bits - 1) {
				uint32_t c = w * 64 + (uint32_t)__builtin_ctzll(bits);
				const uint64_t *dc = row(bl, bl->desc, c);
				if (has(d, c))
					continue;
				set(d, c);
				for (uint32_t v = 0; v < W; v++)
					d[v] |= dc[v];
			}
		for (uint32_t w = 0; w < W; w++)
			for (uint64_t bits = d[w]; bits; bits &= bits - 1)
				set(row(bl, bl->anc, w * 64 + (uint32_t)__builtin_ctzll(bits)), a);
	}
}

/* The rules for the reads of x from one writer (reads[lo, hi), same var
 * and writer), with mask the writers of x: new edges added to succ. */
static uint64_t rules_for_source(struct blocks *bl, uint32_t lo, uint32_t hi)
{
	const struct block_access *rd = &bl->reads[lo];
	uint32_t W = bl->words, y = rd->writer == FROM_INIT ? NO_BLOCK : bl->label[rd->writer];
	uint64_t added = 0, *before_y = bl->next; /* row of scratch: writers before y */

	memset(before_y, 0, W * sizeof(uint64_t));
	for (uint32_t j = lo; j < hi; j++) {
		uint32_t x = bl->label[bl->reads[j].reader];
		uint64_t *sx = row(bl, bl->succ, x);
		const uint64_t *dx = row(bl, bl->desc, x), *ax = row(bl, bl->anc, x);
		const uint64_t *dy = y == NO_BLOCK ? NULL : row(bl, bl->desc, y);
		for (uint32_t w = 0; w < W; w++) {
			/* x before every writer after y (all of them for the initial value) */
			uint64_t after = (dy ? dy[w] : ~0ULL) & bl->mask[w] & ~dx[w];
			if (w == x / 64)
				after &= ~(1ULL << (x % 64));
			added += (uint64_t)__builtin_popcountll(after & ~sx[w]);
			sx[w] |= after;
			before_y[w] |= ax[w] & bl->mask[w];
		}
	}
	if (y == NO_BLOCK)
		return added;
	for (uint32_t w = 0; w < W; w++) {
		uint64_t bits = before_y[w] & ~row(bl, bl->anc, y)[w];
		if (w == y / 64)
			bits &= ~(1ULL << (y % 64));
		for (; bits; bits &= bits - 1) {
			set(row(bl, bl->succ, w * 64 + (uint32_t)__builtin_ctzll(bits)), y);
			added++;
		}
	}
	return added;
}

/* One round of the rules over every variable; the edges added. */
static uint64_t apply_rules(struct blocks *bl)
{
	uint64_t added = 0;
	uint32_t j = 0, wj = 0;

	while (j < bl->nreads) {
		uint32_t x = bl->reads[j].var, wlo;
		while (wj < bl->nwrites && bl->writes[wj].var < x)
			wj++;
		wlo = wj;
		memset(bl->mask, 0, bl->words * sizeof(uint64_t));
		for (; wj < bl->nwrites && bl->writes[wj].var == x; wj++)
			set(bl->mask, bl->label[bl->writes[wj].writer]);
		while (j < bl->nreads && bl->reads[j].var == x) {
			uint32_t lo = j;
			while (j < bl->nreads && bl->reads[j].var == x &&
			       bl->reads[j].writer == bl->reads[lo].writer)
				j++;
			added += rules_for_source(bl, lo, j);
		}
		wj = wlo;
	}
	return added;
}

/* The blocks of the threads with an event in steps[lo, hi), but those
 * of skip (the threads charged a stop); false when more than max. */
static bool choose_blocks(struct blocks *bl, const uint32_t *steps, uint32_t lo, uint32_t hi,
			  const uint32_t *skip, uint32_t nskip, uint32_t max)
{
	for (uint32_t j = 0; j < nskip; j++)
		bl->block_of[skip[j]] = FROM_INIT; /* taken, not a block */
	bl->nb = 0;
	for (uint32_t i = lo; i < hi; i++) {
		uint32_t t = steps[i];
		if (bl->block_of[t] != NO_BLOCK)
			continue;
		if (bl->nb == max)
			return false;
		bl->block_of[t] = bl->nb;
		bl->thread[bl->nb++] = t;
	}
	for (uint32_t j = 0; j < nskip; j++)
		bl->block_of[skip[j]] = NO_BLOCK;
	return true;
}

static int saturate_blocks(struct blocks *bl)
{
	for (uint32_t round = 0; round < MAX_ROUNDS; round++) {
		if (!sort_blocks(bl))
			return 1;
		renumber(bl);
		if (budget_spend(bl->b, (unsigned long)bl->nb * bl->words))
			return -ETIME;
		close_orders(bl);
		if (budget_spend(bl->b, (unsigned long)bl->nb * bl->words) ||
		    budget_spend(bl->b, (unsigned long)bl->nreads * bl->words))
			return -ETIME;
		if (!apply_rules(bl))
			return 0;
	}
	return 0;
}

static int refute_blocks(struct blocks *bl)
{
	const struct coh_sources *s = bl->s;
	size_t events = 0;

	for (uint32_t i = 0; i < bl->nb; i++)
		events += s->base[bl->thread[i] + 1] - s->base[bl->thread[i]];
	bl->reads = malloc((events + 1) * sizeof(*bl->reads));
	bl->writes = malloc((events + 1) * sizeof(*bl->writes));
	if (!bl->reads || !bl->writes)
		return -ENOMEM;
	memset(bl->stamp, 0, (size_t)s->nvars * sizeof(uint32_t));
	mark_last_writes(bl);
	memset(bl->stamp, 0, (size_t)s->nvars * sizeof(uint32_t));
	for (uint32_t i = 0; i < bl->nb; i++)
		if (!read_block(bl, i))
			return 1;
	qsort(bl->reads, bl->nreads, sizeof(*bl->reads), by_var_then_writer);
	qsort(bl->writes, bl->nwrites, sizeof(*bl->writes), by_var_then_writer);
	for (uint32_t i = 0; i < bl->nb; i++)
		bl->label[i] = i;
	for (uint32_t j = 0; j < bl->nreads; j++)
		if (bl->reads[j].writer != FROM_INIT)
			set(row(bl, bl->succ, bl->reads[j].writer), bl->reads[j].reader);
	return saturate_blocks(bl);
}

static void blocks_free(struct blocks *bl)
{
	free(bl->thread);
	free(bl->block_of);
	free(bl->reads);
	free(bl->writes);
	free(bl->succ);
	free(bl->next);
	free(bl->desc);
	free(bl->anc);
	free(bl->label);
	free(bl->order);
	free(bl->indeg);
	free(bl->stamp);
	free(bl->seen);
	free(bl->mask);
	free(bl->last);
}

/* The blocks of threads[0, nb) (distinct threads), refuted or not. */
static int blocks_refuted(struct blocks *bl)
{
	const struct coh_sources *s = bl->s;
	size_t cells;

	bl->words = (bl->nb + 63) / 64;
	cells = (size_t)bl->nb * bl->words + 1;
	bl->succ = calloc(cells, sizeof(uint64_t));
	bl->next = calloc(cells, sizeof(uint64_t));
	bl->desc = calloc(cells, sizeof(uint64_t));
	bl->anc = calloc(cells, sizeof(uint64_t));
	bl->mask = calloc((size_t)bl->words + 1, sizeof(uint64_t));
	bl->label = malloc(((size_t)bl->nb + 1) * sizeof(uint32_t));
	bl->order = malloc(((size_t)bl->nb + 1) * sizeof(uint32_t));
	bl->indeg = malloc(((size_t)bl->nb + 1) * sizeof(uint32_t));
	bl->stamp = malloc(((size_t)s->nvars + 1) * sizeof(uint32_t));
	bl->seen = malloc(((size_t)s->nvars + 1) * sizeof(uint32_t));
	bl->last = calloc((size_t)s->n / 64 + 1, sizeof(uint64_t));
	if (bl->succ && bl->next && bl->desc && bl->anc && bl->mask && bl->label && bl->order &&
	    bl->indeg && bl->stamp && bl->seen && bl->last)
		return refute_blocks(bl);
	return -ENOMEM;
}

int coh_blocks_refuted(const struct coh_sources *s, const uint32_t *threads, uint32_t nb,
		       struct budget *b)
{
	struct blocks bl = { .s = s, .b = b, .nb = nb };
	int r = -ENOMEM;

	bl.block_of = malloc(((size_t)s->k + 1) * sizeof(uint32_t));
	bl.thread = malloc(((size_t)nb + 1) * sizeof(uint32_t));
	if (bl.block_of && bl.thread) {
		for (uint32_t t = 0; t < s->k; t++)
			bl.block_of[t] = NO_BLOCK;
		for (uint32_t i = 0; i < nb; i++) {
			bl.thread[i] = threads[i];
			bl.block_of[threads[i]] = i;
		}
		r = blocks_refuted(&bl);
	}
	blocks_free(&bl);
	return r;
}

int coh_whole_threads_refuted(const struct coh_sources *s, const uint32_t *steps, uint32_t lo,
			      uint32_t hi, const uint32_t *charged, uint32_t ncharged,
			      uint32_t max_blocks, struct budget *b)
{
	struct blocks bl = { .s = s, .b = b };
	int r = -ENOMEM;

	bl.block_of = malloc(((size_t)s->k + 1) * sizeof(uint32_t));
	bl.thread = malloc(((size_t)max_blocks + 1) * sizeof(uint32_t));
	if (!bl.block_of || !bl.thread)
		goto out;
	for (uint32_t t = 0; t < s->k; t++)
		bl.block_of[t] = NO_BLOCK;
	r = choose_blocks(&bl, steps, lo, hi, charged, ncharged, max_blocks) ? blocks_refuted(&bl)
									     : COH_TOO_MANY_BLOCKS;
out:
	blocks_free(&bl);
	return r;
}
