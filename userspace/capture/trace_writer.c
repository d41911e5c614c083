/* SPDX-License-Identifier: MIT */
/* The streaming trace writer: program order, segments, counts (see
 * trace_writer.h). Names come from trace_names.c, text from trace_text.c. */
#include "trace_writer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace_map.h"
#include "trace_text.h"
#include "userspace/util/array.h"
#include "userspace/lib/opts.h"

#define NO_PART UINT64_MAX
#define CLOSED_PART (UINT64_MAX - 1) /* its execution was written before its end */
/* An execution is written out when the recording ends: a thread may still
 * come with events of it (a lab run's threads each send their whole log
 * after the run, one after the other). Held lines and executions beyond
 * this memory close the oldest execution all the same: the events of it
 * that come later are counted as lost. Memory stays bounded. */
#define HELD_CAP (96u << 20)
/* What a variable of the names table takes (its entry, name and two hash
 * map slots; about 230 bytes measured with a lab run): counted with the
 * held executions, whose variables they are. */
#define VAR_MEMORY 256u
/* Segment ids recently written, so a late thread's marker for one is seen. */
#define CLOSED_IDS 65536

/* One thread: where it is in program order, and the events that came early. */
struct tw_thread {
	uint32_t pid, tid;
	uint32_t instance; /* the how-manieth thread with this id (ids are reused) */
	bool unstarted;    /* a new instance whose first event has not come */
	uint64_t first_seq, next_seq;
	struct vsc_capture_event *early; /* sorted by seq, [head, len) */
	size_t head, len, cap;
	uint64_t part; /* serial of its current execution, NO_PART before its first event */
};

/* One execution: the part before the first marker, or a segment. The oldest
 * open one (the head) is written out directly; the others hold their lines. */
struct tw_part {
	uint64_t serial;
	int64_t id;
	bool is_start;
	uint32_t threads_in; /* threads whose current execution it is */
	char *text;          /* held lines, the first its `segment` line */
	size_t text_len, text_cap;
	uint32_t *vars; /* variables its held lines use: index << 1 | read */
	size_t var_count, var_cap;
	uint64_t events, uncertain;
};

struct trace_writer {
	struct trace_writer_opts opts;
	char when[64];
	struct trace_names names;
	struct trace_text text;
	struct trace_note *notes;
	size_t note_count, note_cap;

	struct tw_thread *threads;
	size_t thread_count, thread_cap;
	uint64_t instances;          /* threads seen: thread ids, and again for each reuse */
	struct trace_map thread_map; /* (pid, tid) -> thread */

	struct tw_part **parts; /* open executions, oldest first: [part_head, part_len) */
	size_t part_head, part_len, part_cap;
	uint64_t next_serial;
	uint64_t start_serial;        /* the open part before markers, or NO_PART */
	struct trace_map segment_map; /* segment id -> serial of its open part */
	size_t held_bytes;
	uint32_t *head_vars; /* variables the head execution uses, each once */
	size_t head_var_count, head_var_cap;

	uint64_t events, uncertain;
	int64_t *closed_ids; /* ring of the last CLOSED_IDS segment ids written */
	size_t closed_next;
	struct trace_map closed_map; /* segment id -> its place in closed_ids */

	uint64_t lost_reported, lost_gaps, lost_late, lost_closed;
	uint64_t lost_nested;    /* accesses made inside a probe (VSC_CAP_NESTED) */
	uint64_t at_start_loads; /* left out: performed as the recording began */
	bool lost_inexact;
	bool finished;
	int err; /* out of memory where no caller could be told at once */
};

/* ---- small helpers ----------------------------------------------------- */

static struct trace_header header_of(const struct trace_writer *w)
{
	return (struct trace_header){ .what = w->opts.what,
				      .how = w->opts.how,
				      .when = w->opts.when ? w->opts.when : w->when,
				      .loss_mode = w->opts.loss_mode,
				      .notes = w->notes,
				      .note_count = w->note_count };
}

/* A line into the written trace. */
static void put(struct trace_writer *w, const char *line, size_t len)
{
	struct trace_header h = header_of(w);
	trace_text_put(&w->text, &h, line, len);
}

static void put_init(struct trace_writer *w, const struct trace_var *v, bool known)
{
	char line[128];
	int n = known ? snprintf(line, sizeof(line), "init %s %" PRId64 "\n", v->name,
				 v->init_value)
		      : snprintf(line, sizeof(line), "init %s ?\n", v->name);
	put(w, line, (size_t)n);
}

static bool is_read(const struct vsc_capture_event *e)
{
	return e->kind == VSC_CAP_LOAD || e->kind == VSC_CAP_RMW;
}

/* ---- executions ---------------------------------------------------------- */

static struct tw_part *part_at(struct trace_writer *w, uint64_t serial)
{
	uint64_t first = w->parts[w->part_head]->serial;
	return w->parts[w->part_head + (serial - first)];
}

static struct tw_part *head_part(struct trace_writer *w)
{
	return w->part_head < w->part_len ? w->parts[w->part_head] : NULL;
}

static void part_free(struct tw_part *p)
{
	if (!p)
		return;
	free(p->text);
	free(p->vars);
	free(p);
}

/* Memory a held execution takes (with the allocator's share, roughly). */
static size_t part_memory(const struct tw_part *p)
{
	return sizeof(*p) + p->text_cap + p->var_cap * sizeof(*p->vars) + 3 * 16 + sizeof(p);
}

static int hold_line(struct trace_writer *w, struct tw_part *p, const char *line, size_t len)
{
	size_t before = part_memory(p);
	if (array_reserve((void **)&p->text, &p->text_cap, p->text_len + len, 1, 64))
		return -ENOMEM;
	memcpy(p->text + p->text_len, line, len);
	p->text_len += len;
	w->held_bytes += part_memory(p) - before;
	return 0;
}

static struct tw_part *new_part(struct trace_writer *w, bool is_start, int64_t id, const char *name)
{
	char line[96];
	if (w->part_head > 0 && w->part_head * 2 >= w->part_len) { /* reuse the front */
		memmove(w->parts, w->parts + w->part_head,
			(w->part_len - w->part_head) * sizeof(*w->parts));
		w->part_len -= w->part_head;
		w->part_head = 0;
	}
	if (ARRAY_RESERVE(w->parts, w->part_cap, w->part_len + 1))
		return NULL;
	struct tw_part *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->serial = w->next_serial++;
	p->is_start = is_start;
	p->id = id;
	w->held_bytes += part_memory(p);
	int n = snprintf(line, sizeof(line), "segment %s\n", name);
	if (hold_line(w, p, line, (size_t)n)) {
		free(p);
		return NULL;
	}
	w->parts[w->part_len++] = p;
	return p;
}

static void used_by(struct trace_var *v, const struct tw_part *p)
{
	if (v->last_mark < p->serial + 1)
		v->last_mark = p->serial + 1;
}

/* A variable used in the head execution: its init line the first time
 * (the ELF value in the first execution that uses it, `?` where it is read
 * later), written before or after its first use: both are valid. Listed in
 * head_vars, to be forgotten with the head if no later execution uses it.
 * 0 or -ENOMEM. */
static int list_in_head(struct trace_writer *w, struct tw_part *head, uint32_t var, bool read)
{
	struct trace_var *v = &w->names.vars[var];
	if (v->head_mark != head->serial + 1) {
		if (ARRAY_RESERVE(w->head_vars, w->head_var_cap, w->head_var_count + 1))
			return -ENOMEM;
		w->head_vars[w->head_var_count++] = var;
		used_by(v, head);
		v->head_mark = head->serial + 1;
		v->head_init = false;
		if (v->init_known && !v->seen_before) {
			put_init(w, v, true);
			v->head_init = true;
		}
		v->seen_before = true;
	}
	if (read && !v->head_init) {
		put_init(w, v, false);
		v->head_init = true;
	}
	return 0;
}

/* A variable used by a held line: listed once per run of uses (a variable
 * listed twice gets one init line all the same, see list_in_head). */
static int list_in_held(struct trace_writer *w, struct tw_part *p, uint32_t var, bool read)
{
	struct trace_var *v = &w->names.vars[var];
	if (v->held_mark == p->serial + 1) {
		p->vars[v->held_pos] |= read;
		return 0;
	}
	size_t before = part_memory(p);
	if (array_reserve((void **)&p->vars, &p->var_cap, p->var_count + 1, sizeof(*p->vars), 4))
		return -ENOMEM;
	w->held_bytes += part_memory(p) - before;
	used_by(v, p);
	v->held_mark = p->serial + 1;
	v->held_pos = p->var_count;
	p->vars[p->var_count++] = var << 1 | read;
	return 0;
}

/* The head execution is written and gone; the next one becomes the head:
 * its segment line, its init lines, its held lines. */
/* Remember a written segment's id: a marker for it that comes later cannot
 * join it any more. 0 or -ENOMEM. */
static int remember_closed(struct trace_writer *w, int64_t id)
{
	uint32_t at;
	if (!w->closed_ids && !(w->closed_ids = calloc(CLOSED_IDS, sizeof(*w->closed_ids))))
		return -ENOMEM;
	size_t slot = w->closed_next++ % CLOSED_IDS;
	int64_t old = w->closed_ids[slot];
	if (w->closed_next > CLOSED_IDS && trace_map_get(&w->closed_map, 0, (uint64_t)old, &at) &&
	    at == slot)
		trace_map_remove(&w->closed_map, 0, (uint64_t)old);
	w->closed_ids[slot] = id;
	return trace_map_put(&w->closed_map, 0, (uint64_t)id, (uint32_t)slot);
}

/* Threads still in the execution being closed: the rest of their events of
 * it can no longer be written, and are counted as lost. */
static void orphan_threads(struct trace_writer *w, const struct tw_part *p)
{
	for (size_t i = 0; i < w->thread_count && p->threads_in; i++)
		if (w->threads[i].part == p->serial)
			w->threads[i].part = CLOSED_PART;
}

/* The head execution is written: the variables only it used are forgotten
 * (the names table holds the open executions' variables, not all). */
static void forget_head_vars(struct trace_writer *w, const struct tw_part *head)
{
	for (size_t i = 0; i < w->head_var_count; i++) {
		uint32_t var = w->head_vars[i];
		if (w->names.vars[var].last_mark <= head->serial + 1 &&
		    trace_names_forget(&w->names, var))
			w->err = -ENOMEM;
	}
	w->head_var_count = 0;
}

static void close_head(struct trace_writer *w)
{
	struct tw_part *p = head_part(w);
	forget_head_vars(w, p);
	if (!p->is_start) {
		trace_map_remove(&w->segment_map, 0, (uint64_t)p->id);
		if (remember_closed(w, p->id))
			w->err = -ENOMEM;
	} else if (w->start_serial == p->serial) {
		w->start_serial = NO_PART;
	}
	orphan_threads(w, p);
	w->held_bytes -= part_memory(p);
	part_free(p);
	w->parts[w->part_head++] = NULL;
	struct tw_part *next = head_part(w);
	if (!next)
		return;
	/* its segment line, its init lines, the rest of its lines */
	const char *end = next->text ? memchr(next->text, '\n', next->text_len) : NULL;
	size_t first = end ? (size_t)(end - next->text) + 1 : next->text_len;
	put(w, next->text, first);
	for (size_t i = 0; i < next->var_count; i++)
		if (list_in_head(w, next, next->vars[i] >> 1, next->vars[i] & 1))
			w->err = -ENOMEM;
	put(w, next->text + first, next->text_len - first);
	w->events += next->events;
	w->uncertain += next->uncertain;
	w->held_bytes -= part_memory(next);
	free(next->text);
	free(next->vars);
	next->text = NULL;
	next->vars = NULL;
	next->text_len = next->text_cap = next->var_count = next->var_cap = 0;
	w->held_bytes += part_memory(next);
}

/* Close the oldest executions: at the end, or when the held ones take too
 * much memory. */
static void close_finished(struct trace_writer *w, bool at_end)
{
	for (;;) {
		struct tw_part *head = head_part(w);
		size_t open = w->part_len - w->part_head;
		if (!head || open < 2)
			return;
		size_t cap = w->opts.held_limit ? w->opts.held_limit : HELD_CAP;
		size_t held = w->held_bytes + trace_names_live(&w->names) * VAR_MEMORY;
		if (!at_end && held <= cap)
			return;
		close_head(w);
	}
}

/* The execution a thread enters with a marker (or, with serial NO_PART
 * for marker, the part before markers). */
static int enter_part(struct trace_writer *w, struct tw_thread *t,
		      const struct vsc_capture_event *marker)
{
	uint32_t serial32;
	struct tw_part *p = NULL;
	if (t->part != NO_PART && t->part != CLOSED_PART)
		part_at(w, t->part)->threads_in--;
	t->part = NO_PART;
	if (!marker && w->start_serial != NO_PART) {
		p = part_at(w, w->start_serial);
	} else if (!marker) {
		p = new_part(w, true, 0, "start");
		if (!p)
			return -ENOMEM;
		w->start_serial = p->serial;
	} else if (trace_map_get(&w->segment_map, 0, (uint64_t)marker->value, &serial32)) {
		p = part_at(w, serial32);
	} else if (trace_map_get(&w->closed_map, 0, (uint64_t)marker->value, &serial32)) {
		t->part = CLOSED_PART; /* written already: its events here are lost */
		return 0;
	} else {
		char name[72];
		trace_names_segment(&w->names, marker, name, sizeof(name));
		p = new_part(w, false, marker->value, name);
		if (!p ||
		    trace_map_put(&w->segment_map, 0, (uint64_t)marker->value, (uint32_t)p->serial))
			return -ENOMEM;
	}
	p->threads_in++;
	t->part = p->serial;
	return 0;
}

/* ---- events in program order ------------------------------------------- */

/* An access performed as the recording began (VSC_CAP_F_AT_START) may lie
 * before it or after it. A load is left out: before, it is outside the
 * recording; after, it is the thread's first access, and leaving out a read
 * moves that thread's start past it without changing memory, so the rest is
 * a consistent cut either way. A store or RMW changes memory, so its place
 * matters: it stays in, marked unsure, and the trace gets no plain verdict. */
static bool at_start_dropped(struct trace_writer *w, struct vsc_capture_event *e)
{
	if (!(e->flags & VSC_CAP_F_AT_START))
		return false;
	if (e->kind == VSC_CAP_LOAD) {
		w->at_start_loads++;
		return true;
	}
	e->flags |= VSC_CAP_F_VALUE_UNSURE;
	return false;
}

static int deliver(struct trace_writer *w, struct tw_thread *t, const struct vsc_capture_event *in)
{
	char line[TRACE_LINE_MAX];
	uint32_t var;
	int err;
	struct vsc_capture_event copy = *in, *e = &copy;
	if (e->kind == VSC_CAP_NESTED) { /* a count in the thread's order: no line */
		w->lost_nested += (uint64_t)e->value;
		return 0;
	}
	if (at_start_dropped(w, e))
		return 0;
	if (e->kind == VSC_CAP_SEGMENT) {
		err = enter_part(w, t, e);
		if (!err)
			close_finished(w, false);
		return err;
	}
	if (t->part == CLOSED_PART) {
		w->lost_closed++;
		return 0;
	}
	if (t->part == NO_PART && (err = enter_part(w, t, NULL)))
		return err;
	if ((err = trace_names_var(&w->names, e, &var)))
		return err;
	const struct trace_var *v = &w->names.vars[var];
	if (v->mixed) /* one value per variable: not this access's (trace_names.h) */
		e->flags |= VSC_CAP_F_VALUE_UNSURE;
	const char *loc = trace_names_location(&w->names, e->pid, e->ip);
	size_t len = trace_text_format_event(line, e, t->instance, v->name, v->name_len, loc,
					     !w->opts.no_timestamps);
	bool unsure = e->flags & VSC_CAP_F_VALUE_UNSURE;
	struct tw_part *p = part_at(w, t->part);
	if (p == head_part(w)) {
		if ((err = list_in_head(w, p, var, is_read(e))))
			return err;
		put(w, line, len);
		w->events++;
		w->uncertain += unsure;
		return 0;
	}
	if ((err = list_in_held(w, p, var, is_read(e))) || (err = hold_line(w, p, line, len)))
		return err;
	p->events++;
	p->uncertain += unsure;
	return 0;
}

/* Deliver the early events that are now next in line. */
static int deliver_ready(struct trace_writer *w, struct tw_thread *t)
{
	while (t->head < t->len && t->early[t->head].seq == t->next_seq) {
		struct vsc_capture_event e = t->early[t->head++];
		t->next_seq++;
		int err = deliver(w, t, &e);
		if (err)
			return err;
	}
	if (t->head == t->len)
		t->head = t->len = 0;
	return 0;
}

/* Give up waiting for the hole before the first early event: it is lost. */
static int skip_hole(struct trace_writer *w, struct tw_thread *t)
{
	w->lost_gaps += t->early[t->head].seq - t->next_seq;
	t->next_seq = t->early[t->head].seq;
	return deliver_ready(w, t);
}

static int hold_early(struct trace_writer *w, struct tw_thread *t,
		      const struct vsc_capture_event *e)
{
	size_t lo = t->head, hi = t->len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->early[mid].seq < e->seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->len && t->early[lo].seq == e->seq)
		return 0; /* the same event twice */
	if (t->head > 0 && t->head >= t->len - t->head) {
		/* delivered from the front but never empty (a hole after hole, as
		 * drop mode makes them): move the rest down, or the array would
		 * grow with every event that ever waited */
		memmove(t->early, t->early + t->head, (t->len - t->head) * sizeof(*t->early));
		t->len -= t->head;
		lo -= t->head;
		t->head = 0;
	}
	if (ARRAY_RESERVE(t->early, t->cap, t->len + 1))
		return -ENOMEM;
	memmove(t->early + lo + 1, t->early + lo, (t->len - lo) * sizeof(*t->early));
	t->early[lo] = *e;
	t->len++;
	size_t window =
		w->opts.reorder_window ? w->opts.reorder_window : TRACE_WRITER_DEFAULT_WINDOW;
	return t->len - t->head > window ? skip_hole(w, t) : 0;
}

static struct tw_thread *thread_of(struct trace_writer *w, const struct vsc_capture_event *e)
{
	uint32_t index;
	if (trace_map_get(&w->thread_map, e->pid, e->tid, &index))
		return &w->threads[index];
	if (ARRAY_RESERVE(w->threads, w->thread_cap, w->thread_count + 1) ||
	    trace_map_put(&w->thread_map, e->pid, e->tid, (uint32_t)w->thread_count))
		return NULL;
	struct tw_thread *t = &w->threads[w->thread_count++];
	*t = (struct tw_thread){ .pid = e->pid, .tid = e->tid, .unstarted = true, .part = NO_PART };
	w->instances++;
	return t;
}

/* The old thread with this id is over: the holes it still waits for will
 * not be filled (lost), it leaves its execution, and the slot starts again
 * for the new thread, whose sequence numbers start again too. */
static int start_instance(struct trace_writer *w, struct tw_thread *t, uint32_t instance)
{
	while (t->head < t->len) {
		int err = skip_hole(w, t);
		if (err)
			return err;
	}
	if (t->part != NO_PART && t->part != CLOSED_PART)
		part_at(w, t->part)->threads_in--;
	*t = (struct tw_thread){ .pid = t->pid,
				 .tid = t->tid,
				 .instance = instance,
				 .unstarted = true,
				 .early = t->early,
				 .cap = t->cap,
				 .part = NO_PART };
	w->instances++;
	return 0;
}

int trace_writer_thread_instance(struct trace_writer *w, uint32_t pid, uint32_t tid,
				 uint32_t instance)
{
	struct vsc_capture_event key = { .pid = pid, .tid = tid };
	if (w->err)
		return w->err;
	struct tw_thread *t = thread_of(w, &key);
	if (!t)
		return -ENOMEM;
	if (t->unstarted && t->instance < instance) {
		t->instance = instance; /* the first sight of this id: no old thread */
		return 0;
	}
	if (instance == t->instance)
		return 0;
	return instance > t->instance ? start_instance(w, t, instance) : 1;
}

int trace_writer_add(struct trace_writer *w, const struct vsc_capture_event *e)
{
	if (e->kind > VSC_CAP_NESTED)
		return -EINVAL;
	if (e->kind < VSC_CAP_SEGMENT && e->size != 1 && e->size != 2 && e->size != 4 &&
	    e->size != 8)
		return -EINVAL;
	if (w->err)
		return w->err;
	if (e->ts_ns < w->opts.min_ts)
		return 0; /* logged before this recording began */
	struct tw_thread *t = thread_of(w, e);
	if (!t)
		return -ENOMEM;
	if (t->unstarted) {
		t->unstarted = false;
		t->first_seq = t->next_seq = e->seq;
	}
	if (e->seq == t->next_seq && t->head == t->len) {
		t->next_seq++;
		return deliver(w, t, e);
	}
	if (e->seq >= t->next_seq) {
		int err = hold_early(w, t, e);
		return err ? err : deliver_ready(w, t);
	}
	if (e->seq < t->first_seq)
		w->lost_late++; /* before the place of the thread's first event */
	return 0;               /* else a second copy of a written event */
}

/* ---- the rest of the API ------------------------------------------------- */

static int writer_new(struct trace_writer **out, const struct trace_writer_opts *opts)
{
	struct trace_writer *w = calloc(1, sizeof(*w));
	*out = NULL;
	if (!w)
		return -ENOMEM;
	if (OPTS_LOAD(w->opts, opts)) {
		free(w);
		return -EINVAL;
	}
	w->names.naming = w->opts.naming;
	w->start_serial = NO_PART;
	time_t now = time(NULL);
	struct tm tm;
	if (gmtime_r(&now, &tm))
		strftime(w->when, sizeof(w->when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	/* the execution before markers is the first, and the head */
	if (!new_part(w, true, 0, "start")) {
		trace_writer_free(w);
		return -ENOMEM;
	}
	w->start_serial = 0;
	*out = w;
	return 0;
}

int trace_writer_open(struct trace_writer **out, const char *path,
		      const struct trace_writer_opts *opts)
{
	int err = writer_new(out, opts);
	if (!err && (err = trace_text_open(&(*out)->text, path))) {
		trace_writer_free(*out);
		*out = NULL;
	}
	return err;
}

int trace_writer_open_stream(struct trace_writer **out, FILE *stream,
			     const struct trace_writer_opts *opts)
{
	int err = writer_new(out, opts);
	if (!err && (err = trace_text_open_stream(&(*out)->text, stream))) {
		trace_writer_free(*out);
		*out = NULL;
	}
	return err;
}

void trace_writer_free(struct trace_writer *w)
{
	if (!w)
		return;
	trace_text_close(&w->text);
	trace_names_free(&w->names);
	for (size_t i = 0; i < w->note_count; i++) {
		free(w->notes[i].key);
		free(w->notes[i].value);
	}
	free(w->notes);
	for (size_t i = 0; i < w->thread_count; i++)
		free(w->threads[i].early);
	free(w->threads);
	trace_map_free(&w->thread_map);
	for (size_t i = w->part_head; i < w->part_len; i++)
		part_free(w->parts[i]);
	free(w->parts);
	trace_map_free(&w->segment_map);
	free(w->head_vars);
	free(w->closed_ids);
	trace_map_free(&w->closed_map);
	free(w);
}

void trace_writer_discard(struct trace_writer *w)
{
	trace_text_discard(&w->text);
}

void trace_writer_begin(struct trace_writer *w)
{
	trace_text_begin(&w->text);
}

void trace_writer_add_lost(struct trace_writer *w, uint64_t lost)
{
	w->lost_reported += lost;
}

void trace_writer_lost_inexact(struct trace_writer *w)
{
	w->lost_inexact = true;
}

int trace_writer_note(struct trace_writer *w, const char *key, const char *value)
{
	if (ARRAY_RESERVE(w->notes, w->note_cap, w->note_count + 1))
		return -ENOMEM;
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
	w->notes[w->note_count++] = (struct trace_note){ k, v };
	return 0;
}

int trace_writer_error(const struct trace_writer *w)
{
	return w->text.err;
}

uint64_t trace_writer_events(const struct trace_writer *w)
{
	uint64_t held = 0;
	for (size_t i = w->part_head + 1; i < w->part_len; i++)
		held += w->parts[i]->events;
	return w->events + held;
}

uint64_t trace_writer_lost(const struct trace_writer *w)
{
	uint64_t seen = w->lost_reported > w->lost_gaps ? w->lost_reported : w->lost_gaps;
	return seen + w->lost_late + w->lost_closed + w->lost_nested;
}

bool trace_writer_lost_exact(const struct trace_writer *w)
{
	return !w->lost_inexact;
}

uint64_t trace_writer_uncertain(const struct trace_writer *w)
{
	uint64_t held = 0;
	for (size_t i = w->part_head + 1; i < w->part_len; i++)
		held += w->parts[i]->uncertain;
	/* with the events of mixed variables written before they were found */
	return w->uncertain + held + w->names.mixed_unmarked;
}

uint64_t trace_writer_mixed(const struct trace_writer *w)
{
	return w->names.mixed_vars;
}

const char *trace_writer_mixed_why(const struct trace_writer *w)
{
	return w->names.mixed_vars ? w->names.mixed_why : NULL;
}

/* Everything still held: holes at the end of each thread's window, then
 * the open executions in order. */
static int flush_all(struct trace_writer *w)
{
	for (size_t i = 0; i < w->thread_count; i++) {
		struct tw_thread *t = &w->threads[i];
		while (t->head < t->len) {
			int err = skip_hole(w, t);
			if (err)
				return err;
		}
	}
	close_finished(w, true);
	return 0;
}

int trace_writer_finish(struct trace_writer *w, FILE *out)
{
	if (w->finished)
		return -EINVAL;
	w->finished = true;
	int err = flush_all(w);
	if (!err)
		err = w->err;
	if (err)
		return err;
	if (w->lost_closed) {
		char n[32];
		snprintf(n, sizeof(n), "%" PRIu64, w->lost_closed);
		trace_writer_note(w, "events of executions written before they came (lost)", n);
	}
	if (w->names.mixed_vars) {
		char why[512];
		snprintf(why, sizeof(why),
			 "%" PRIu64 " variable%s bytes with accesses of another size or start, "
			 "first %s; a trace has one value per variable, so %s events are "
			 "uncertain",
			 w->names.mixed_vars, w->names.mixed_vars == 1 ? " shares" : "s share",
			 w->names.mixed_why, w->names.mixed_vars == 1 ? "its" : "their");
		trace_writer_note(w, "values not observed exactly", why);
	}
	if (w->lost_nested) {
		char n[160];
		snprintf(n, sizeof(n),
			 "%" PRIu64 " (a signal handler used the probes while it "
			 "interrupted a probe of its thread: performed, not placed in order)",
			 w->lost_nested);
		trace_writer_note(w, "accesses made inside a probe (lost)", n);
	}
	struct trace_header h = header_of(w);
	struct trace_counts c = { .threads = w->instances,
				  .events = w->events,
				  .lost = trace_writer_lost(w),
				  .uncertain = w->uncertain + w->names.mixed_unmarked,
				  .lost_exact = !w->lost_inexact };
	err = trace_text_finish(&w->text, &h, &c, out);
	return err;
}

int trace_writer_finish_file(struct trace_writer *w, const char *path)
{
	if (strcmp(path, "-") == 0)
		return trace_writer_finish(w, stdout);
	FILE *out = trace_text_open_file(path);
	if (!out)
		return -errno;
	int err = trace_writer_finish(w, out);
	if (fclose(out) && !err)
		err = -errno;
	return err;
}
