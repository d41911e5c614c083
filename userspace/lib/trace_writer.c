/* SPDX-License-Identifier: MIT */
/* The one trace writer: capture events in, a .vsc trace out (see
 * trace_writer.h for the rules it follows). */
#include "trace_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define NAME_MAX_LEN 128
#define LOC_MAX_LEN 256
#define NO_PART UINT32_MAX

/* Open-addressing map from (pid, 64-bit key) to an index; used for
 * variables (key: address) and source locations (key: ip). */
struct key_map {
	uint64_t *keys;
	uint32_t *pids;
	uint32_t *vals; /* index + 1; 0 marks an empty slot */
	size_t cap, len;
};

struct var_info {
	uint32_t pid;
	uint32_t size;
	uint64_t addr;
	char *name;
	uint32_t part_mark; /* last part that listed it */
	bool read_in_part;
	bool seen_before; /* appeared in an earlier part */
	bool init_known;
	int64_t init_value;
};

struct note {
	char *key, *value;
};

struct vsc_trace_writer {
	struct vsc_trace_writer_opts opts;
	char when[64];
	struct vsc_capture_event *events;
	size_t len, cap;
	uint64_t lost_reported, lost_gaps;
	struct note *notes;
	size_t note_count;

	/* built by write */
	struct var_info *vars;
	size_t var_count, var_cap;
	struct key_map var_map;
	struct key_map name_map; /* hash of a name -> var, to keep names unique */
	struct key_map loc_map;
	char **locs;
	size_t loc_count, loc_cap;
};

/* ---- small helpers ---------------------------------------------------- */

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static uint64_t hash_string(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static void key_map_free(struct key_map *m)
{
	free(m->keys);
	free(m->pids);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

static int key_map_grow(struct key_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct key_map n = { .cap = cap };
	n.keys = calloc(cap, sizeof(*n.keys));
	n.pids = calloc(cap, sizeof(*n.pids));
	n.vals = calloc(cap, sizeof(*n.vals));
	if (!n.keys || !n.pids || !n.vals) {
		key_map_free(&n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->vals[i])
			continue;
		size_t j = mix64(m->keys[i] ^ ((uint64_t)m->pids[i] << 32)) & (cap - 1);
		while (n.vals[j])
			j = (j + 1) & (cap - 1);
		n.keys[j] = m->keys[i];
		n.pids[j] = m->pids[i];
		n.vals[j] = m->vals[i];
	}
	n.len = m->len;
	key_map_free(m);
	*m = n;
	return 0;
}

/* Find (pid, key): returns the slot; *found tells whether it holds it. */
static size_t key_map_slot(const struct key_map *m, uint32_t pid, uint64_t key, bool *found)
{
	size_t j = mix64(key ^ ((uint64_t)pid << 32)) & (m->cap - 1);
	while (m->vals[j]) {
		if (m->keys[j] == key && m->pids[j] == pid) {
			*found = true;
			return j;
		}
		j = (j + 1) & (m->cap - 1);
	}
	*found = false;
	return j;
}

static int key_map_put(struct key_map *m, uint32_t pid, uint64_t key, uint32_t index)
{
	if ((m->len + 1) * 2 > m->cap) {
		int err = key_map_grow(m);
		if (err)
			return err;
	}
	bool found;
	size_t j = key_map_slot(m, pid, key, &found);
	if (!found)
		m->len++;
	m->keys[j] = key;
	m->pids[j] = pid;
	m->vals[j] = index + 1;
	return 0;
}

static bool key_map_get(const struct key_map *m, uint32_t pid, uint64_t key, uint32_t *index)
{
	if (!m->cap)
		return false;
	bool found;
	size_t j = key_map_slot(m, pid, key, &found);
	if (found)
		*index = m->vals[j] - 1;
	return found;
}

static int64_t sign_extend(int64_t raw, unsigned size)
{
	switch (size) {
	case 1: return (int8_t)raw;
	case 2: return (int16_t)raw;
	case 4: return (int32_t)raw;
	default: return raw;
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

/* ---- construction ----------------------------------------------------- */

struct vsc_trace_writer *vsc_trace_writer_new(const struct vsc_trace_writer_opts *opts)
{
	struct vsc_trace_writer *w = calloc(1, sizeof(*w));
	if (!w) {
		errno = ENOMEM;
		return NULL;
	}
	if (opts) {
		size_t n = opts->sz < sizeof(w->opts) ? opts->sz : sizeof(w->opts);
		memcpy(&w->opts, opts, n);
	}
	w->opts.sz = sizeof(w->opts);
	time_t now = time(NULL);
	struct tm tm;
	if (gmtime_r(&now, &tm))
		strftime(w->when, sizeof(w->when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return w;
}

static void writer_reset_tables(struct vsc_trace_writer *w)
{
	for (size_t i = 0; i < w->var_count; i++)
		free(w->vars[i].name);
	free(w->vars);
	w->vars = NULL;
	w->var_count = w->var_cap = 0;
	for (size_t i = 0; i < w->loc_count; i++)
		free(w->locs[i]);
	free(w->locs);
	w->locs = NULL;
	w->loc_count = w->loc_cap = 0;
	key_map_free(&w->var_map);
	key_map_free(&w->name_map);
	key_map_free(&w->loc_map);
}

void vsc_trace_writer_free(struct vsc_trace_writer *w)
{
	if (!w)
		return;
	writer_reset_tables(w);
	for (size_t i = 0; i < w->note_count; i++) {
		free(w->notes[i].key);
		free(w->notes[i].value);
	}
	free(w->notes);
	free(w->events);
	free(w);
}

int vsc_trace_writer_add(struct vsc_trace_writer *w, const struct vsc_capture_event *ev)
{
	if (ev->kind > VSC_CAP_SEGMENT)
		return -EINVAL;
	if (ev->kind != VSC_CAP_SEGMENT && ev->size != 1 && ev->size != 2 && ev->size != 4 &&
	    ev->size != 8)
		return -EINVAL;
	if (w->len == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 4096;
		struct vsc_capture_event *events = realloc(w->events, cap * sizeof(*events));
		if (!events)
			return -ENOMEM;
		w->events = events;
		w->cap = cap;
	}
	w->events[w->len++] = *ev;
	return 0;
}

void vsc_trace_writer_add_lost(struct vsc_trace_writer *w, uint64_t lost)
{
	w->lost_reported += lost;
}

int vsc_trace_writer_note(struct vsc_trace_writer *w, const char *key, const char *value)
{
	struct note *notes = realloc(w->notes, (w->note_count + 1) * sizeof(*notes));
	if (!notes)
		return -ENOMEM;
	w->notes = notes;
	char *k = strdup(key), *v = strdup(value);
	if (!k || !v) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	/* a note is one header line: no newlines in it */
	for (char *p = v; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	w->notes[w->note_count++] = (struct note){ k, v };
	return 0;
}

size_t vsc_trace_writer_event_count(const struct vsc_trace_writer *w)
{
	return w->len;
}

uint64_t vsc_trace_writer_lost(const struct vsc_trace_writer *w)
{
	return w->lost_reported > w->lost_gaps ? w->lost_reported : w->lost_gaps;
}

/* ---- variables and locations ------------------------------------------ */

static int var_lookup(struct vsc_trace_writer *w, const struct vsc_capture_event *ev,
		      uint32_t *index)
{
	if (key_map_get(&w->var_map, ev->pid, ev->addr, index))
		return 0;
	if (w->var_count == w->var_cap) {
		size_t cap = w->var_cap ? w->var_cap * 2 : 64;
		struct var_info *vars = realloc(w->vars, cap * sizeof(*vars));
		if (!vars)
			return -ENOMEM;
		w->vars = vars;
		w->var_cap = cap;
	}
	struct var_info *v = &w->vars[w->var_count];
	memset(v, 0, sizeof(*v));
	v->pid = ev->pid;
	v->addr = ev->addr;
	v->size = ev->size;
	v->part_mark = NO_PART;

	char buf[NAME_MAX_LEN] = "";
	uint32_t other;
	bool named = false;
	if (w->opts.name_var &&
	    w->opts.name_var(w->opts.ctx, ev->pid, ev->addr, ev->size, buf, sizeof(buf)) == 0 &&
	    buf[0]) {
		buf[sizeof(buf) - 1] = '\0';
		sanitize_token(buf);
		/* a name that reads as a hex address would be ambiguous */
		named = !(buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) &&
			!key_map_get(&w->name_map, 0, hash_string(buf), &other);
	}
	if (!named)
		snprintf(buf, sizeof(buf), "0x%" PRIx64, (uint64_t)ev->addr);
	/* a hex name may still collide across processes: add the pid */
	if (!named && key_map_get(&w->name_map, 0, hash_string(buf), &other))
		snprintf(buf, sizeof(buf), "pid%" PRIu32 ":0x%" PRIx64, ev->pid,
			 (uint64_t)ev->addr);
	v->name = strdup(buf);
	if (!v->name)
		return -ENOMEM;
	int64_t init = 0;
	if (w->opts.init_value &&
	    w->opts.init_value(w->opts.ctx, ev->pid, ev->addr, ev->size, &init) == 1) {
		v->init_known = true;
		v->init_value = sign_extend(init, ev->size);
	}
	int err = key_map_put(&w->var_map, ev->pid, ev->addr, (uint32_t)w->var_count);
	if (!err)
		err = key_map_put(&w->name_map, 0, hash_string(buf), (uint32_t)w->var_count);
	if (err)
		return err;
	*index = (uint32_t)w->var_count++;
	return 0;
}

/* Trailing location comment for ip, or NULL. */
static const char *location(struct vsc_trace_writer *w, uint32_t pid, uint64_t ip)
{
	uint32_t index;
	if (!w->opts.locate || !ip)
		return NULL;
	if (key_map_get(&w->loc_map, pid, ip, &index))
		return w->locs[index];
	char buf[LOC_MAX_LEN] = "";
	char *text = NULL;
	if (w->opts.locate(w->opts.ctx, pid, ip, buf, sizeof(buf)) == 0 && buf[0]) {
		buf[sizeof(buf) - 1] = '\0';
		for (char *p = buf; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
		text = strdup(buf);
	}
	if (w->loc_count == w->loc_cap) {
		size_t cap = w->loc_cap ? w->loc_cap * 2 : 64;
		char **locs = realloc(w->locs, cap * sizeof(*locs));
		if (!locs) {
			free(text);
			return NULL;
		}
		w->locs = locs;
		w->loc_cap = cap;
	}
	if (key_map_put(&w->loc_map, pid, ip, (uint32_t)w->loc_count)) {
		free(text);
		return NULL;
	}
	w->locs[w->loc_count++] = text;
	return text;
}

/* ---- ordering: threads, parts (segments), program order ---------------- */

static int compare_thread_seq(const void *a, const void *b)
{
	const struct vsc_capture_event *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->ts_ns < y->ts_ns ? -1 : x->ts_ns > y->ts_ns;
}

struct part {
	int64_t id;       /* segment id; the "start" part has none */
	bool is_start;
	uint32_t pid;
	uint64_t name_addr;
	uint64_t first_ts;
	uint32_t rank;
};

struct thread_span {
	size_t begin, end; /* range in the sorted events */
	uint64_t first_ts;
	uint32_t rank;
};

struct order_item {
	uint32_t part_rank, thread_rank;
	size_t event; /* index into sorted events; sorted order is program order */
};

static int compare_part_ptr(const void *a, const void *b)
{
	const struct part *x = *(const struct part *const *)a, *y = *(const struct part *const *)b;
	if (x->is_start != y->is_start)
		return x->is_start ? -1 : 1;
	if (x->first_ts != y->first_ts)
		return x->first_ts < y->first_ts ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int compare_span_ptr(const void *a, const void *b)
{
	const struct thread_span *x = *(const struct thread_span *const *)a;
	const struct thread_span *y = *(const struct thread_span *const *)b;
	if (x->first_ts != y->first_ts)
		return x->first_ts < y->first_ts ? -1 : 1;
	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* Everything write() computes before printing, freed in one place. */
struct layout {
	struct thread_span *spans;
	size_t span_count;
	struct part *parts;
	size_t part_count, part_cap;
	struct key_map part_map; /* segment id -> part */
	struct order_item *order;
	size_t order_len;
	size_t memory_events;
};

static void layout_free(struct layout *l)
{
	free(l->spans);
	free(l->parts);
	key_map_free(&l->part_map);
	free(l->order);
}

static int part_for_segment(struct layout *l, const struct vsc_capture_event *ev, uint32_t *index)
{
	uint64_t key = (uint64_t)ev->value;
	if (key_map_get(&l->part_map, 1, key, index)) {
		struct part *p = &l->parts[*index];
		if (ev->ts_ns < p->first_ts)
			p->first_ts = ev->ts_ns;
		return 0;
	}
	if (l->part_count == l->part_cap) {
		size_t cap = l->part_cap ? l->part_cap * 2 : 16;
		struct part *parts = realloc(l->parts, cap * sizeof(*parts));
		if (!parts)
			return -ENOMEM;
		l->parts = parts;
		l->part_cap = cap;
	}
	l->parts[l->part_count] = (struct part){ .id = ev->value, .pid = ev->pid,
						 .name_addr = ev->addr, .first_ts = ev->ts_ns };
	*index = (uint32_t)l->part_count;
	return key_map_put(&l->part_map, 1, key, (uint32_t)l->part_count++);
}

/* Put the events in (tid, pid, seq) order, as qsort with compare_thread_seq
 * would, in linear time for the usual input: a stable scatter by thread (few
 * threads, many events each), then a sort of each thread's slice only when
 * its events did not arrive in program order. Sorting 64-byte events with
 * qsort took most of the time of a large conversion. */
struct thread_bucket {
	uint32_t tid, pid;
	size_t count, next;
};

static int compare_bucket(const void *a, const void *b)
{
	const struct thread_bucket *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int sort_by_thread(struct vsc_trace_writer *w)
{
	struct vsc_capture_event *ev = w->events, *sorted;
	size_t n = w->len, nb = 0, cap = 0;
	struct thread_bucket *b = NULL;
	struct key_map map = { 0 };
	uint32_t *slot_of;
	int err = 0;

	size_t i = 1;
	while (i < n && compare_thread_seq(&ev[i - 1], &ev[i]) <= 0)
		i++;
	if (i >= n)
		return 0; /* already in order */
	slot_of = malloc(n * sizeof(*slot_of));
	sorted = malloc(n * sizeof(*sorted));
	if (!slot_of || !sorted) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		uint32_t k;
		if (!key_map_get(&map, ev[i].pid, ev[i].tid, &k)) {
			if (nb == cap) {
				size_t cap2 = cap ? cap * 2 : 64;
				struct thread_bucket *b2 = realloc(b, cap2 * sizeof(*b2));
				if (!b2) {
					err = -ENOMEM;
					goto out;
				}
				b = b2;
				cap = cap2;
			}
			k = (uint32_t)nb;
			b[nb++] = (struct thread_bucket){ .tid = ev[i].tid, .pid = ev[i].pid };
			err = key_map_put(&map, ev[i].pid, ev[i].tid, k);
			if (err)
				goto out;
		}
		b[k].count++;
		slot_of[i] = k;
	}
	/* bucket k's place in (tid, pid) order: sort a copy, then map back */
	struct thread_bucket *order = malloc(nb * sizeof(*order));
	if (!order) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(order, b, nb * sizeof(*order));
	qsort(order, nb, sizeof(*order), compare_bucket);
	size_t at = 0;
	for (size_t j = 0; j < nb; j++) {
		uint32_t k = 0;
		key_map_get(&map, order[j].pid, order[j].tid, &k);
		b[k].next = at;
		at += b[k].count;
	}
	free(order);
	for (i = 0; i < n; i++)
		sorted[b[slot_of[i]].next++] = ev[i];
	/* within a thread: usually already in program order */
	for (size_t j = 0, begin = 0; j < nb; j++) {
		uint32_t k = 0;
		bool in_order = true;
		size_t end;
		key_map_get(&map, sorted[begin].pid, sorted[begin].tid, &k);
		end = begin + b[k].count;
		for (i = begin + 1; i < end && in_order; i++)
			in_order = compare_thread_seq(&sorted[i - 1], &sorted[i]) <= 0;
		if (!in_order)
			qsort(sorted + begin, end - begin, sizeof(*sorted), compare_thread_seq);
		begin = end;
	}
	free(w->events);
	w->events = sorted;
	w->cap = n;
	sorted = NULL;
out:
	free(sorted);
	free(slot_of);
	free(b);
	key_map_free(&map);
	return err;
}

static int build_layout(struct vsc_trace_writer *w, struct layout *l)
{
	int sort_err = sort_by_thread(w);
	if (sort_err)
		return sort_err;
	struct vsc_capture_event *ev = w->events;
	size_t n = w->len;

	/* one event may arrive twice (a part-filled log read at the end of a
	 * recording after its batch was sent): keep one */
	size_t kept = 0;
	for (size_t i = 0; i < n; i++)
		if (kept == 0 || ev[i].tid != ev[kept - 1].tid || ev[i].pid != ev[kept - 1].pid ||
		    ev[i].seq != ev[kept - 1].seq)
			ev[kept++] = ev[i];
	w->len = n = kept;
	/* threads and sequence holes */
	w->lost_gaps = 0;
	for (size_t i = 0; i < n; i++)
		if (i == 0 || ev[i].tid != ev[i - 1].tid || ev[i].pid != ev[i - 1].pid)
			l->span_count++;
		else if (ev[i].seq > ev[i - 1].seq + 1)
			w->lost_gaps += ev[i].seq - ev[i - 1].seq - 1;
	l->spans = calloc(l->span_count ? l->span_count : 1, sizeof(*l->spans));
	l->order = calloc(n ? n : 1, sizeof(*l->order));
	/* part 0 is "start": events before a thread's first segment marker */
	l->part_cap = 16;
	l->parts = calloc(l->part_cap, sizeof(*l->parts));
	if (!l->spans || !l->order || !l->parts)
		return -ENOMEM;
	l->parts[0] = (struct part){ .is_start = true };
	l->part_count = 1;

	size_t s = 0;
	uint32_t *event_part = calloc(n ? n : 1, sizeof(*event_part));
	if (!event_part)
		return -ENOMEM;
	for (size_t i = 0, cur = 0; i < n; i++) {
		if (i == 0 || ev[i].tid != ev[i - 1].tid || ev[i].pid != ev[i - 1].pid) {
			if (i)
				l->spans[s++].end = i;
			l->spans[s] = (struct thread_span){ .begin = i, .first_ts = UINT64_MAX };
			cur = 0;
		}
		if (ev[i].kind == VSC_CAP_SEGMENT) {
			uint32_t p;
			int err = part_for_segment(l, &ev[i], &p);
			if (err) {
				free(event_part);
				return err;
			}
			cur = p;
			event_part[i] = NO_PART;
			continue;
		}
		if (ev[i].ts_ns < l->spans[s].first_ts)
			l->spans[s].first_ts = ev[i].ts_ns;
		event_part[i] = (uint32_t)cur;
	}
	if (n)
		l->spans[s].end = n;

	/* ranks: parts by first marker time, threads by first event time */
	struct part **pp = calloc(l->part_count, sizeof(*pp));
	struct thread_span **sp = calloc(l->span_count ? l->span_count : 1, sizeof(*sp));
	if (!pp || !sp) {
		free(pp);
		free(sp);
		free(event_part);
		return -ENOMEM;
	}
	for (size_t i = 0; i < l->part_count; i++)
		pp[i] = &l->parts[i];
	qsort(pp, l->part_count, sizeof(*pp), compare_part_ptr);
	for (size_t i = 0; i < l->part_count; i++)
		pp[i]->rank = (uint32_t)i;
	for (size_t i = 0; i < l->span_count; i++)
		sp[i] = &l->spans[i];
	qsort(sp, l->span_count, sizeof(*sp), compare_span_ptr);
	for (size_t i = 0; i < l->span_count; i++)
		sp[i]->rank = (uint32_t)i;
	free(pp);

	/* The order is by (part rank, thread rank, event): list the threads in
	 * rank order, each in event order, then place the items stably by part
	 * rank (a counting sort: no comparison sort of every event). */
	size_t *part_start = calloc(l->part_count + 1, sizeof(*part_start));
	if (!part_start) {
		free(sp);
		free(event_part);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (event_part[i] != NO_PART)
			part_start[l->parts[event_part[i]].rank + 1]++;
	for (size_t r = 0; r < l->part_count; r++)
		part_start[r + 1] += part_start[r];
	l->order_len = part_start[l->part_count];
	for (size_t t = 0; t < l->span_count; t++)
		for (size_t i = sp[t]->begin; i < sp[t]->end; i++) {
			if (event_part[i] == NO_PART)
				continue;
			uint32_t r = l->parts[event_part[i]].rank;
			l->order[part_start[r]++] = (struct order_item){
				.part_rank = r,
				.thread_rank = sp[t]->rank,
				.event = i,
			};
		}
	free(part_start);
	free(sp);
	free(event_part);
	l->memory_events = l->order_len;
	return 0;
}

/* ---- printing ---------------------------------------------------------- */

/* Events written whose value was not observed exactly. */
static size_t count_unsure(const struct vsc_trace_writer *w, const struct layout *l)
{
	size_t n = 0;
	for (size_t k = 0; k < l->order_len; k++)
		n += (w->events[l->order[k].event].flags & VSC_CAP_F_VALUE_UNSURE) != 0;
	return n;
}

static void write_header(struct vsc_trace_writer *w, const struct layout *l, FILE *out)
{
	struct utsname u;
	bool have_uname = uname(&u) == 0;
	fprintf(out, "vsc 1\n");
	fprintf(out, "# vsc trace: observed shared-memory accesses, per thread in program order\n");
	fprintf(out, "# what: %s\n", w->opts.what ? w->opts.what : "(not given)");
	fprintf(out, "# how: %s\n", w->opts.how ? w->opts.how : "(not given)");
	fprintf(out, "# when: %s\n", w->opts.when ? w->opts.when : w->when);
	fprintf(out, "# kernel: %s %s\n", have_uname ? u.sysname : "?",
		have_uname ? u.release : "?");
	fprintf(out, "# arch: %s\n", have_uname ? u.machine : "?");
	fprintf(out, "# threads: %zu\n", l->span_count);
	fprintf(out, "# events: %zu\n", l->memory_events);
	fprintf(out, "# lost events: %" PRIu64 "\n", vsc_trace_writer_lost(w));
	fprintf(out, "# uncertain values: %zu\n", count_unsure(w, l));
	if (vsc_trace_writer_lost(w))
		fprintf(out, "# WARNING: events were lost; a verdict on this trace may be wrong\n");
	for (size_t i = 0; i < w->note_count; i++)
		fprintf(out, "# %s: %s\n", w->notes[i].key, w->notes[i].value);
}

static void write_segment_line(struct vsc_trace_writer *w, const struct part *p, FILE *out)
{
	char buf[NAME_MAX_LEN] = "";
	if (p->is_start) {
		fprintf(out, "segment start\n");
		return;
	}
	if (!(w->opts.name_segment &&
	      w->opts.name_segment(w->opts.ctx, p->pid, p->id, p->name_addr, buf, sizeof(buf)) ==
		      0 &&
	      buf[0]))
		snprintf(buf, sizeof(buf), "%" PRId64, p->id);
	buf[sizeof(buf) - 1] = '\0';
	sanitize_token(buf);
	fprintf(out, "segment %s\n", buf);
}

/* Print one part: its init lines, then its events. order[begin, end). */
/* Decimal digits of v at p; returns the end. */
static char *append_u64(char *p, uint64_t v)
{
	char tmp[20];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *append_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return append_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return append_u64(p, (uint64_t)v);
}

static int write_part(struct vsc_trace_writer *w, const struct layout *l, size_t begin,
		      size_t end, uint32_t part_rank, FILE *out)
{
	const struct vsc_capture_event *ev = w->events;
	uint32_t *used = malloc((end - begin + 1) * sizeof(*used));
	size_t used_count = 0;
	if (!used)
		return -ENOMEM;
	for (size_t k = begin; k < end; k++) {
		const struct vsc_capture_event *e = &ev[l->order[k].event];
		uint32_t v;
		int err = var_lookup(w, e, &v);
		if (err) {
			free(used);
			return err;
		}
		struct var_info *vi = &w->vars[v];
		if (vi->part_mark != part_rank) {
			vi->part_mark = part_rank;
			vi->read_in_part = false;
			used[used_count++] = v;
		}
		if (e->kind == VSC_CAP_LOAD || e->kind == VSC_CAP_RMW)
			vi->read_in_part = true;
	}
	for (size_t i = 0; i < used_count; i++) {
		struct var_info *vi = &w->vars[used[i]];
		if (vi->init_known && !vi->seen_before)
			fprintf(out, "init %s %" PRId64 "\n", vi->name, vi->init_value);
		else if (vi->read_in_part)
			fprintf(out, "init %s ?\n", vi->name);
		vi->seen_before = true;
	}
	free(used);
	for (size_t k = begin; k < end; k++) {
		const struct vsc_capture_event *e = &ev[l->order[k].event];
		uint32_t v = 0;
		key_map_get(&w->var_map, e->pid, e->addr, &v);
		const char *name = w->vars[v].name;
		size_t name_len = strlen(name);
		char line_buf[160], *line = line_buf;
		/* by hand: fprintf was the largest cost of writing a big trace */
		if (name_len > sizeof(line_buf) - 96)
			line = malloc(name_len + 96);
		if (!line)
			return -ENOMEM;
		char *p = append_u64(line, e->tid);
		*p++ = ' ';
		*p++ = e->kind == VSC_CAP_RMW ? 'u' : e->kind == VSC_CAP_LOAD ? 'r' : 'w';
		*p++ = ' ';
		memcpy(p, name, name_len);
		p += name_len;
		*p++ = ' ';
		p = append_i64(p, sign_extend(e->value, e->size));
		if (e->kind == VSC_CAP_RMW) {
			*p++ = ' ';
			p = append_i64(p, sign_extend(e->new_value, e->size));
		}
		if (!w->opts.no_timestamps) {
			*p++ = ' ';
			*p++ = '@';
			p = append_u64(p, (uint64_t)e->ts_ns);
		}
		fwrite(line, 1, (size_t)(p - line), out);
		if (line != line_buf)
			free(line);
		const char *loc = location(w, e->pid, e->ip);
		if (loc)
			fprintf(out, " # %s", loc);
		if (e->flags & VSC_CAP_F_VALUE_UNSURE)
			fprintf(out, loc ? " (value unsure)" : " # value unsure");
		fputc('\n', out);
	}
	return 0;
}

int vsc_trace_writer_write(struct vsc_trace_writer *w, FILE *out)
{
	struct layout l = { 0 };
	int err;

	/* drop stale events (batches logged before this recording began) */
	if (w->opts.min_ts) {
		size_t kept = 0;
		for (size_t i = 0; i < w->len; i++)
			if (w->events[i].ts_ns >= w->opts.min_ts)
				w->events[kept++] = w->events[i];
		w->len = kept;
	}
	writer_reset_tables(w);
	err = build_layout(w, &l);
	if (err)
		goto out;
	write_header(w, &l, out);

	/* the start part is a segment of its own only when markers exist */
	bool segmented = l.part_count > 1;
	struct part **by_rank = calloc(l.part_count, sizeof(*by_rank));
	if (!by_rank) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < l.part_count; i++)
		by_rank[l.parts[i].rank] = &l.parts[i];
	size_t k = 0;
	for (uint32_t r = 0; r < l.part_count && !err; r++) {
		size_t begin = k;
		while (k < l.order_len && l.order[k].part_rank == r)
			k++;
		if (segmented && (begin < k || !by_rank[r]->is_start))
			write_segment_line(w, by_rank[r], out);
		err = write_part(w, &l, begin, k, r, out);
	}
	free(by_rank);
	if (!err && (fflush(out) || ferror(out)))
		err = errno ? -errno : -EIO;
	/* The trailer goes last, once everything before it is out: a trace
	 * without it was cut short (docs/format.md, "Recorded traces"). */
	if (!err) {
		fprintf(out, "# end of trace: events=%zu lost=%" PRIu64 " uncertain=%zu\n",
			l.memory_events, vsc_trace_writer_lost(w), count_unsure(w, &l));
		if (fflush(out) || ferror(out))
			err = errno ? -errno : -EIO;
	}
out:
	layout_free(&l);
	return err;
}

int vsc_trace_writer_write_file(struct vsc_trace_writer *w, const char *path)
{
	if (strcmp(path, "-") == 0)
		return vsc_trace_writer_write(w, stdout);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	/* Only a regular file is ours to restrict: `-o /dev/null` as root
	 * must not make /dev/null 0600 for everyone. */
	struct stat st;
	if (fstat(fd, &st) || (S_ISREG(st.st_mode) && fchmod(fd, 0600))) {
		int err = -errno;
		close(fd);
		return err;
	}
	FILE *out = fdopen(fd, "w");
	if (!out) {
		int err = -errno;
		close(fd);
		return err;
	}
	int err = vsc_trace_writer_write(w, out);
	if (fclose(out) && !err)
		err = -errno;
	return err;
}
