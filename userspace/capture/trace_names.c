/* SPDX-License-Identifier: MIT */
/* Names of variables, locations and segments in a recorded trace (see
 * trace_names.h). */
#include "trace_names.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/util/array.h"

#define NAME_MAX_LEN 128
#define LOC_MAX_LEN 256

int64_t trace_sign_extend(int64_t raw, unsigned size)
{
	switch (size) {
	case 1:
		return (int8_t)raw;
	case 2:
		return (int16_t)raw;
	case 4:
		return (int32_t)raw;
	default:
		return raw;
	}
}

static bool token_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == ':' || c == '-';
}

/* Make buf a valid token of at most 64 characters (CONTRACT section 1). */
static void sanitize_token(char *buf)
{
	size_t i;
	for (i = 0; buf[i] && i < 64; i++)
		if (!token_char(buf[i]))
			buf[i] = '_';
	buf[i] = '\0';
}

void trace_names_free(struct trace_names *n)
{
	for (size_t i = 0; i < n->var_count; i++)
		free(n->vars[i].name);
	free(n->vars);
	free(n->free_vars);
	free(n->seen_bits);
	trace_map_free(&n->seen_map);
	for (size_t i = 0; i < n->loc_count; i++)
		free(n->locs[i]);
	free(n->locs);
	trace_map_free(&n->var_map);
	trace_map_free(&n->name_map);
	trace_map_free(&n->loc_map);
	trace_map_free(&n->cover_map);
	free(n->cover_bits);
	free(n->cover_free);
	memset(n, 0, sizeof(*n));
}

static bool name_taken(const struct trace_names *n, const char *name)
{
	uint32_t other;
	return trace_map_get(&n->name_map, 0, trace_map_hash_string(name), &other);
}

/* The token for the variable at ev's address. */
static void choose_name(struct trace_names *n, const struct vsc_capture_event *ev, char *buf,
			size_t len)
{
	const struct trace_naming *nm = &n->naming;
	bool named = false;
	buf[0] = '\0';
	if (nm->var_name && nm->var_name(nm->ctx, ev->pid, ev->addr, ev->size, buf, len) == 0 &&
	    buf[0]) {
		buf[len - 1] = '\0';
		sanitize_token(buf);
		/* a name that reads as a hex address would be ambiguous */
		named = !(buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) && !name_taken(n, buf);
	}
	if (named)
		return;
	snprintf(buf, len, "0x%" PRIx64, (uint64_t)ev->addr);
	/* a hex name may still collide across processes: add the pid */
	if (name_taken(n, buf))
		snprintf(buf, len, "pid%" PRIu32 ":0x%" PRIx64, ev->pid, (uint64_t)ev->addr);
}

/* ---- forgotten variables that were seen ---------------------------------- */

/* Bytes of forgotten variables, as one bit per byte in 64-byte chunks: exact,
 * found in one lookup, and an array walked by a lab run (fresh variables
 * side by side) takes a few bits per variable. */
#define CHUNK_SHIFT 6

static bool seen_has(const struct trace_names *n, uint32_t pid, uint64_t addr)
{
	uint32_t at;
	return trace_map_get(&n->seen_map, pid, addr >> CHUNK_SHIFT, &at) &&
	       (n->seen_bits[at] >> (addr & 63) & 1);
}

static int seen_add(struct trace_names *n, uint32_t pid, uint64_t lo, uint64_t hi)
{
	for (uint64_t addr = lo; addr < hi; addr++) {
		uint32_t at;
		if (!trace_map_get(&n->seen_map, pid, addr >> CHUNK_SHIFT, &at)) {
			if (n->seen_count >= UINT32_MAX ||
			    ARRAY_RESERVE(n->seen_bits, n->seen_cap, n->seen_count + 1) ||
			    trace_map_put(&n->seen_map, pid, addr >> CHUNK_SHIFT,
					  (uint32_t)n->seen_count))
				return -ENOMEM;
			at = (uint32_t)n->seen_count++;
			n->seen_bits[at] = 0;
		}
		n->seen_bits[at] |= 1ull << (addr & 63);
	}
	return 0;
}

/* ---- bytes covered by live variables (mixed sizes) ------------------------ */

/* Bits [lo, hi) of one chunk word, lo < hi <= 64. */
static uint64_t chunk_mask(uint64_t lo, uint64_t hi)
{
	uint64_t upto = hi - lo >= 64 ? ~0ull : (1ull << (hi - lo)) - 1;
	return upto << lo;
}

/* Set the bytes [lo, hi) covered; *was: whether a byte of them was covered
 * already (by a live variable). 0 or -ENOMEM. */
static int cover_set(struct trace_names *n, uint32_t pid, uint64_t lo, uint64_t hi, bool *was)
{
	*was = false;
	for (uint64_t at = lo; at < hi; at = (at | 63) + 1) {
		uint32_t slot;
		uint64_t end = (at | 63) + 1 < hi ? (at | 63) + 1 : hi;
		if (!trace_map_get(&n->cover_map, pid, at >> CHUNK_SHIFT, &slot)) {
			if (n->cover_free_count) {
				slot = n->cover_free[--n->cover_free_count];
			} else {
				if (n->cover_count >= UINT32_MAX ||
				    ARRAY_RESERVE(n->cover_bits, n->cover_cap,
						  n->cover_count + 1) ||
				    ARRAY_RESERVE(n->cover_free, n->cover_free_cap,
						  n->cover_count + 1))
					return -ENOMEM;
				slot = (uint32_t)n->cover_count++;
			}
			if (trace_map_put(&n->cover_map, pid, at >> CHUNK_SHIFT, slot)) {
				n->cover_free[n->cover_free_count++] = slot;
				return -ENOMEM;
			}
			n->cover_bits[slot] = 0;
		}
		uint64_t mask = chunk_mask(at & 63, ((end - 1) & 63) + 1);
		*was = *was || (n->cover_bits[slot] & mask);
		n->cover_bits[slot] |= mask;
	}
	return 0;
}

/* The bytes [lo, hi) no longer covered (then cover_again() for the live
 * variables that share them). */
static void cover_clear(struct trace_names *n, uint32_t pid, uint64_t lo, uint64_t hi)
{
	for (uint64_t at = lo; at < hi; at = (at | 63) + 1) {
		uint32_t slot;
		uint64_t end = (at | 63) + 1 < hi ? (at | 63) + 1 : hi;
		if (!trace_map_get(&n->cover_map, pid, at >> CHUNK_SHIFT, &slot))
			continue;
		n->cover_bits[slot] &= ~chunk_mask(at & 63, ((end - 1) & 63) + 1);
		if (!n->cover_bits[slot]) {
			trace_map_remove(&n->cover_map, pid, at >> CHUNK_SHIFT);
			n->cover_free[n->cover_free_count++] = slot; /* room: cover_count */
		}
	}
}

static uint32_t span_of(const struct vsc_capture_event *ev)
{
	return ev->size ? ev->size : 1;
}

/* Variable v is found mixed (by the access ev): its events so far were
 * written unmarked. The first one found is said in words. */
static void mark_mixed(struct trace_names *n, struct trace_var *v,
		       const struct vsc_capture_event *ev)
{
	if (v->mixed)
		return;
	v->mixed = true;
	n->mixed_vars++;
	n->mixed_unmarked += v->events;
	if (!n->mixed_why[0])
		snprintf(n->mixed_why, sizeof(n->mixed_why),
			 "%s at 0x%" PRIx64 " (%" PRIu32 " bytes) and a %" PRIu32
			 "-byte access at 0x%" PRIx64,
			 v->name ? v->name : "?", v->addr, v->size, span_of(ev),
			 (uint64_t)ev->addr);
}

/* Mark the live variables other than self whose bytes overlap [lo, hi)
 * (each starts at most max_span - 1 bytes before lo). True if any. */
static bool mark_overlaps(struct trace_names *n, const struct vsc_capture_event *ev, uint64_t lo,
			  uint64_t hi, uint32_t self)
{
	bool any = false;
	uint64_t from = lo >= n->max_span ? lo - n->max_span + 1 : 0;
	for (uint64_t at = from; at < hi; at++) {
		uint32_t other;
		if (!trace_map_get(&n->var_map, ev->pid, at, &other) || other == self)
			continue;
		struct trace_var *u = &n->vars[other];
		if (u->addr + u->span > lo && u->addr < hi) {
			mark_mixed(n, u, ev);
			any = true;
		}
	}
	return any;
}

/* The bytes of the live variables other than self that overlap [lo, hi)
 * covered again. 0 or -ENOMEM. */
static int cover_again(struct trace_names *n, uint32_t pid, uint64_t lo, uint64_t hi, uint32_t self)
{
	uint64_t from = lo >= n->max_span ? lo - n->max_span + 1 : 0;
	for (uint64_t at = from; at < hi; at++) {
		uint32_t other;
		bool was;
		if (!trace_map_get(&n->var_map, pid, at, &other) || other == self)
			continue;
		const struct trace_var *u = &n->vars[other];
		if (u->addr + u->span > lo && u->addr < hi &&
		    cover_set(n, pid, u->addr, u->addr + u->span, &was))
			return -ENOMEM;
	}
	return 0;
}

/* An access to variable index of another size than its first: it is mixed;
 * a wider access may overlap other variables too. 0 or -ENOMEM. */
static int access_mixed(struct trace_names *n, const struct vsc_capture_event *ev, uint32_t index)
{
	struct trace_var *v = &n->vars[index];
	uint32_t span = span_of(ev);
	mark_mixed(n, v, ev);
	if (span > v->span) {
		bool was;
		mark_overlaps(n, ev, v->addr + v->span, v->addr + span, index);
		if (cover_set(n, ev->pid, v->addr + v->span, v->addr + span, &was))
			return -ENOMEM;
		v->span = span;
		if (span > n->max_span)
			n->max_span = span;
	}
	v->events++;
	return 0;
}

/* ---- variables -------------------------------------------------------- */

/* A slot for a new variable: a forgotten one, or one more. */
static int new_slot(struct trace_names *n, uint32_t *index)
{
	if (n->free_count) {
		*index = n->free_vars[--n->free_count];
		return 0;
	}
	if (n->var_count >= UINT32_MAX || ARRAY_RESERVE(n->vars, n->var_cap, n->var_count + 1))
		return -ENOMEM;
	*index = (uint32_t)n->var_count++;
	n->vars[*index].name = NULL;
	return 0;
}

static void drop_slot(struct trace_names *n, uint32_t index)
{
	free(n->vars[index].name);
	n->vars[index].name = NULL;
	n->free_vars[n->free_count++] = index; /* room made by the caller */
}

int trace_names_var(struct trace_names *n, const struct vsc_capture_event *ev, uint32_t *index)
{
	char buf[NAME_MAX_LEN];
	int64_t init = 0;
	uint32_t slot, span = span_of(ev);
	if (trace_map_get(&n->var_map, ev->pid, ev->addr, index)) {
		struct trace_var *v = &n->vars[*index];
		if (ev->size != v->size)
			return access_mixed(n, ev, *index);
		v->events++;
		return 0;
	}
	/* bytes of a live variable: mixed (the filter first, then the look) */
	bool mixed;
	if (cover_set(n, ev->pid, ev->addr, ev->addr + span, &mixed))
		return -ENOMEM;
	mixed = mixed && mark_overlaps(n, ev, ev->addr, ev->addr + span, UINT32_MAX);
	if (ARRAY_RESERVE(n->free_vars, n->free_cap, n->var_count + 1) || new_slot(n, &slot))
		return -ENOMEM;
	choose_name(n, ev, buf, sizeof(buf));
	struct trace_var *v = &n->vars[slot];
	memset(v, 0, sizeof(*v));
	v->pid = ev->pid;
	v->addr = ev->addr;
	v->size = ev->size;
	v->span = span;
	v->mixed = mixed;
	v->events = 1;
	if (mixed)
		n->mixed_vars++;
	if (span > n->max_span)
		n->max_span = span;
	v->name = strdup(buf);
	v->name_len = strlen(buf);
	if (n->naming.init_value &&
	    n->naming.init_value(n->naming.ctx, ev->pid, ev->addr, ev->size, &init) == 1) {
		v->init_known = true;
		v->init_value = trace_sign_extend(init, ev->size);
		v->seen_before = seen_has(n, ev->pid, ev->addr);
	}
	int err = v->name ? trace_map_put(&n->var_map, ev->pid, ev->addr, slot) : -ENOMEM;
	if (!err)
		err = trace_map_put(&n->name_map, 0, trace_map_hash_string(buf), slot);
	if (err) {
		trace_map_remove(&n->var_map, ev->pid, ev->addr);
		drop_slot(n, slot);
		return err;
	}
	*index = slot;
	return 0;
}

int trace_names_forget(struct trace_names *n, uint32_t index)
{
	struct trace_var *v = &n->vars[index];
	uint32_t named;
	/* a later variable is looked up by its address: one that starts inside
	 * this one's bytes gets `?` too, which is right (they were accessed) */
	if (v->init_known && v->seen_before && seen_add(n, v->pid, v->addr, v->addr + v->size))
		return -ENOMEM;
	/* its bytes; a mixed one's may be another's too: theirs again (a
	 * failure here fails the recording: the writer stops) */
	cover_clear(n, v->pid, v->addr, v->addr + v->span);
	if (v->mixed && cover_again(n, v->pid, v->addr, v->addr + v->span, index))
		return -ENOMEM;
	uint64_t hash = trace_map_hash_string(v->name);
	if (trace_map_get(&n->name_map, 0, hash, &named) && named == index)
		trace_map_remove(&n->name_map, 0, hash);
	trace_map_remove(&n->var_map, v->pid, v->addr);
	drop_slot(n, index);
	return 0;
}

size_t trace_names_live(const struct trace_names *n)
{
	return n->var_count - n->free_count;
}

const char *trace_names_location(struct trace_names *n, uint32_t pid, uint64_t ip)
{
	uint32_t index;
	char buf[LOC_MAX_LEN] = "";
	char *text = NULL;
	if (!n->naming.locate || !ip)
		return NULL;
	if (trace_map_get(&n->loc_map, pid, ip, &index))
		return n->locs[index];
	if (n->naming.locate(n->naming.ctx, pid, ip, buf, sizeof(buf)) == 0 && buf[0]) {
		buf[sizeof(buf) - 1] = '\0';
		for (char *p = buf; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
		text = strdup(buf);
	}
	if (ARRAY_RESERVE(n->locs, n->loc_cap, n->loc_count + 1) ||
	    trace_map_put(&n->loc_map, pid, ip, (uint32_t)n->loc_count)) {
		free(text);
		return NULL;
	}
	n->locs[n->loc_count++] = text;
	return text;
}

void trace_names_segment(struct trace_names *n, const struct vsc_capture_event *marker, char *buf,
			 size_t len)
{
	const struct trace_naming *nm = &n->naming;
	buf[0] = '\0';
	if (!(nm->segment_name &&
	      nm->segment_name(nm->ctx, marker->pid, marker->value, marker->addr, buf, len) == 0 &&
	      buf[0]))
		snprintf(buf, len, "%" PRId64, (int64_t)marker->value);
	buf[len - 1] = '\0';
	sanitize_token(buf);
}
