/* SPDX-License-Identifier: MIT */
/* A file's executions in input order (report.h, struct item_list): those
 * kept whole as they are, every other one, its program let go, as a
 * record of a few bytes of what the reports print of it (its facts, its
 * name, where its witness waits in the spill), in blocks filled one after
 * another. A lab run of 10^7 segments keeps some 30 bytes per segment, not
 * the 120 of a whole struct item.
 *
 * A record: two bytes of flags (status, withheld, present status, ...),
 * then either the whole item's number, or the solver (its number in a
 * table of the solvers' names), the time (8 bytes), the counts as
 * variable-length numbers (7 bits a byte), the places of its witness and
 * core in the spill, and its name with its NUL. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "report.h"
#include "userspace/util/array.h"

#define RECORD_BLOCK_BYTES ((size_t)64 << 10)
#define RECORD_MAX_FIXED 128 /* bytes of a record but for its name, at most */

struct record_block {
	struct record_block *next;
	size_t used, cap;
	uint8_t bytes[];
};

enum {
	/* first byte */
	R_STATUS = 0x03,
	R_WITHHELD = 0x04,
	R_NOT_DECIDED = 0x08,
	R_DECIDED = 0x10,
	R_EXPLAINED = 0x20,
	R_NAME = 0x40,
	R_WHOLE = 0x80,
	/* second byte: present_status + 1 in the low three bits, then */
	R_PRESENT = 0x07,
	R_WITNESS = 0x08,
	R_CORE = 0x10,
	R_SOLVER = 0x20,
	R_UNSURE = 0x40,
};

/* The solvers' names (lasting strings, a few): a record keeps a number. */
#define SOLVERS_MAX 255
static const char *solver_names[SOLVERS_MAX];
static unsigned solver_count;

/* Its number, or -1 when the table is full. Only the reading thread
 * adds records. */
static int solver_number(const char *solver)
{
	for (unsigned i = 0; i < solver_count; i++)
		if (solver_names[i] == solver || strcmp(solver_names[i], solver) == 0)
			return (int)i;
	if (solver_count == SOLVERS_MAX)
		return -1;
	solver_names[solver_count] = solver;
	return (int)solver_count++;
}

static uint8_t *put_number(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static const uint8_t *get_number(const uint8_t *p, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	do
		*v |= (uint64_t)(*p & 0x7f) << shift, shift += 7;
	while (*p++ & 0x80);
	return p;
}

static uint8_t flags0(const struct item *it)
{
	return (uint8_t)((it->status & R_STATUS) | (it->withheld ? R_WITHHELD : 0) |
			 (it->not_decided ? R_NOT_DECIDED : 0));
}

static uint8_t flags1(const struct item *it)
{
	return (uint8_t)((it->present_status + 1) & R_PRESENT);
}

/* Room for n more bytes in the last block (a new one when it is full). */
static uint8_t *room(struct item_list *l, size_t n)
{
	struct record_block *b = l->last;

	if (!b || b->cap - b->used < n) {
		size_t cap = n > RECORD_BLOCK_BYTES ? n : RECORD_BLOCK_BYTES;
		if (!(b = malloc(sizeof(*b) + cap)))
			return NULL;
		b->next = NULL;
		b->used = 0;
		b->cap = cap;
		if (l->last)
			l->last->next = b;
		else
			l->first = b;
		l->last = b;
	}
	return b->bytes + b->used;
}

/* The record of it (let go, or whole at number whole), at p; its end. */
static uint8_t *encode(uint8_t *p, const struct item *it, size_t whole, bool is_whole, int solver)
{
	const struct item_facts *f = &it->facts;
	uint8_t *first = p;

	*p++ = flags0(it);
	*p++ = flags1(it);
	if (is_whole) {
		*first |= R_WHOLE;
		return put_number(p, whole);
	}
	*first |= (f->decided ? R_DECIDED : 0) | (f->explained ? R_EXPLAINED : 0) |
		  (f->name ? R_NAME : 0);
	first[1] |= (f->witness.len ? R_WITNESS : 0) | (f->core.len ? R_CORE : 0) |
		    (f->solver ? R_SOLVER : 0) | (f->unsure ? R_UNSURE : 0);
	if (f->solver) {
		*p++ = (uint8_t)(solver < 0 ? SOLVERS_MAX : solver);
		if (solver < 0) {
			memcpy(p, &f->solver, sizeof(f->solver));
			p += sizeof(f->solver);
		}
	}
	if (f->decided) {
		memcpy(p, &f->time_s, sizeof(f->time_s));
		p += sizeof(f->time_s);
	}
	p = put_number(p, f->events);
	p = put_number(p, f->threads);
	p = put_number(p, f->writers);
	p = put_number(p, (uint32_t)(f->outcome + 1)); /* OUTCOME_NONE: 0 */
	p = put_number(p, (uint64_t)((int64_t)f->preemptions + 1));
	p = put_number(p, f->spins);
	p = put_number(p, f->dropped);
	p = put_number(p, f->parts);
	p = put_number(p, f->parts_out_of_memory);
	if (f->witness.len) {
		p = put_number(p, f->witness.at);
		p = put_number(p, f->witness.len);
	}
	if (f->core.len) {
		p = put_number(p, f->core.at);
		p = put_number(p, f->core.len);
	}
	if (f->name) {
		size_t len = strlen(f->name) + 1;
		memcpy(p, f->name, len);
		p += len;
	}
	return p;
}

/* The record at p into *it (the item itself when kept whole: *whole); the
 * record's end. */
static const uint8_t *decode(const struct item_list *l, const uint8_t *p, struct item *it,
			     struct item **whole)
{
	struct item_facts *f = &it->facts;
	uint8_t b0 = p[0], b1 = p[1];
	uint64_t v;

	p += 2;
	*whole = NULL;
	if (b0 & R_WHOLE) {
		p = get_number(p, &v);
		*whole = &l->whole[v];
		return p;
	}
	*it = (struct item){ .status = (int8_t)(b0 & R_STATUS),
			     .present_status = (int8_t)((b1 & R_PRESENT) - 1),
			     .withheld = b0 & R_WITHHELD,
			     .not_decided = b0 & R_NOT_DECIDED };
	f->decided = b0 & R_DECIDED;
	f->explained = b0 & R_EXPLAINED;
	f->unsure = b1 & R_UNSURE;
	if (b1 & R_SOLVER) {
		uint8_t k = *p++;
		if (k < SOLVERS_MAX) {
			f->solver = solver_names[k];
		} else {
			memcpy(&f->solver, p, sizeof(f->solver));
			p += sizeof(f->solver);
		}
	}
	if (f->decided) {
		memcpy(&f->time_s, p, sizeof(f->time_s));
		p += sizeof(f->time_s);
	}
	p = get_number(p, &f->events);
	p = get_number(p, &v), f->threads = (uint32_t)v;
	p = get_number(p, &v), f->writers = (uint32_t)v;
	p = get_number(p, &v), f->outcome = (uint32_t)v - 1;
	p = get_number(p, &v), f->preemptions = (int32_t)((int64_t)v - 1);
	p = get_number(p, &v), f->spins = (uint32_t)v;
	p = get_number(p, &v), f->dropped = (uint32_t)v;
	p = get_number(p, &v), f->parts = (uint32_t)v;
	p = get_number(p, &v), f->parts_out_of_memory = (uint32_t)v;
	if (b1 & R_WITNESS) {
		p = get_number(p, &f->witness.at);
		p = get_number(p, &f->witness.len);
	}
	if (b1 & R_CORE) {
		p = get_number(p, &f->core.at);
		p = get_number(p, &f->core.len);
	}
	if (b0 & R_NAME) {
		f->name = (const char *)p;
		p += strlen(f->name) + 1;
	}
	return p;
}

int item_list_add(struct item_list *l, const struct item *it)
{
	bool is_whole = it->prog || it->res || it->core || it->prefix;
	size_t name = !is_whole && it->facts.name ? strlen(it->facts.name) + 1 : 0;
	int solver = !is_whole && it->facts.solver ? solver_number(it->facts.solver) : 0;
	uint8_t *p;

	if (is_whole && ARRAY_RESERVE_FROM(l->whole, l->whole_cap, l->nwhole + 1, 4))
		return -ENOMEM;
	if (!(p = room(l, RECORD_MAX_FIXED + name)))
		return -ENOMEM;
	l->last->used += (size_t)(encode(p, it, l->nwhole, is_whole, solver) - p);
	if (is_whole)
		l->whole[l->nwhole++] = *it;
	return 0;
}

void item_list_free(struct item_list *l, void (*free_item)(struct item *it))
{
	while (l->first) {
		struct record_block *next = l->first->next;
		free(l->first);
		l->first = next;
	}
	for (size_t i = 0; i < l->nwhole; i++)
		free_item(&l->whole[i]);
	free(l->whole);
	*l = (struct item_list){ 0 };
}

/* The last record a cursor gave, its flags as the item now says (the
 * verdicts of an incomplete trace are withheld after it is read). */
static void write_back(struct item_cursor *c)
{
	if (c->record && !c->given_whole) {
		c->record[0] = (uint8_t)((c->record[0] & ~(R_STATUS | R_WITHHELD | R_NOT_DECIDED)) |
					 flags0(&c->scratch));
		c->record[1] = (uint8_t)((c->record[1] & ~R_PRESENT) | flags1(&c->scratch));
	}
	c->record = NULL;
}

void items_begin(struct item_cursor *c, const struct file_report *f)
{
	*c = (struct item_cursor){ .list = &f->items, .block = f->items.first };
}

struct item *items_next(struct item_cursor *c)
{
	struct item *whole;
	const uint8_t *end;

	write_back(c);
	while (c->block && c->at == c->block->used) {
		c->block = c->block->next;
		c->at = 0;
	}
	if (!c->block)
		return NULL;
	/* records live in blocks the list owns, not in the const file */
	c->record = (uint8_t *)c->block->bytes + c->at;
	end = decode(c->list, c->record, &c->scratch, &whole);
	c->at = (size_t)(end - c->block->bytes);
	c->given_whole = whole != NULL;
	return whole ? whole : &c->scratch;
}

const void *items_record(const struct item_cursor *c)
{
	return c->record;
}

const struct item *item_at_record(const struct file_report *f, const void *record,
				  struct item *scratch)
{
	struct item *whole;

	decode(&f->items, record, scratch, &whole);
	return whole ? whole : scratch;
}

const struct item *items_first(const struct file_report *f, struct item *scratch)
{
	return f->items.first && f->items.first->used
		       ? item_at_record(f, f->items.first->bytes, scratch)
		       : NULL;
}
