/* SPDX-License-Identifier: MIT */
#include "program.h"
#include "userspace/util/array.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* From this size on, a thread's events and line numbers are mappings of
 * their own that grow by mremap() (no copy) in 2 MiB steps and are asked
 * to be backed by huge pages: on the machine measured (a VM), a 4 KiB page
 * fault cost ~3.4 us, 6x the time per byte of a 2 MiB one, and the
 * faults on these arrays were a third of parsing. program_trim() gives
 * back what the last huge page holds beyond the last event. */
#define BIG_BYTES ((size_t)2 << 20)
#define PAGE_BYTES ((size_t)4096)

static size_t round_up(size_t bytes, size_t unit)
{
	return (bytes + unit - 1) & ~(unit - 1);
}

/* Make *array (its first used bytes in use; *mapped: the bytes of its
 * mapping, 0 when on the heap) hold bytes. 0 or -ENOMEM, unchanged. */
static int grow_array(void **array, size_t *mapped, size_t used, size_t bytes)
{
	void *moved;

	if (bytes < BIG_BYTES)
		return array_resize(array, bytes, 1);
	bytes = round_up(bytes, BIG_BYTES);
	if (*mapped) {
		moved = mremap(*array, *mapped, bytes, MREMAP_MAYMOVE);
	} else {
		moved = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			     0);
		if (moved != MAP_FAILED) {
			(void)madvise(moved, bytes, MADV_HUGEPAGE); /* advice: fine if refused */
			if (used)
				memcpy(moved, *array, used);
			free(*array);
		}
	}
	if (moved == MAP_FAILED)
		return -ENOMEM;
	*array = moved;
	*mapped = bytes;
	return 0;
}

static void free_array(void *array, size_t mapped)
{
	if (mapped)
		munmap(array, mapped);
	else
		free(array);
}

/* Shrink a mapping to the pages that hold its first used bytes; returns
 * the bytes it has now. */
static size_t trim_array(void *array, size_t mapped, size_t used)
{
	used = round_up(used ? used : 1, PAGE_BYTES);
	if (!mapped || used >= mapped || mremap(array, mapped, used, 0) == MAP_FAILED)
		return mapped; /* as it was: only memory is lost */
	return used;
}

void *zeroed_array(size_t bytes)
{
	void *array;

	if (bytes < BIG_BYTES)
		return calloc(bytes ? bytes : 1, 1);
	array = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (array == MAP_FAILED)
		return NULL;
	(void)madvise(array, bytes, MADV_HUGEPAGE); /* advice: fine if refused */
	return array;
}

void zeroed_array_free(void *array, size_t bytes)
{
	if (array && bytes >= BIG_BYTES)
		munmap(array, bytes);
	else
		free(array);
}

struct vsc_program *vsc_program_new(void)
{
	struct vsc_program *p = calloc(1, sizeof(*p));
	if (!p)
		errno = ENOMEM;
	return p;
}

struct vsc_program *program_new_packed(void)
{
	struct vsc_program *p = vsc_program_new();

	if (p)
		p->packed = PACKING_NARROW;
	return p;
}

/* An array of a thread's events in the form `to` (PACKING_NONE: struct
 * vsc_event), with room for its cap, while it is being made. */
struct repacked {
	void *array;
	size_t mapped;
};

static int repack_thread(const struct vsc_thread *th, enum packing from, enum packing to,
			 struct repacked *out)
{
	size_t elem = to ? packing_bytes(to) : sizeof(struct vsc_event);

	if (th->cap && grow_array(&out->array, &out->mapped, 0, th->cap * elem))
		return -ENOMEM;
	for (uint32_t i = 0; i < th->length; i++) {
		struct vsc_event e = thread_event(th, from, i);
		if (to)
			packed_put(out->array, to, i, packing_word(to, e.kind, e.var, e.value));
		else
			((struct vsc_event *)out->array)[i] = e;
	}
	return 0;
}

static void free_packed(struct vsc_program *p)
{
	for (uint32_t t = 0; t < program_threads(p); t++) {
		free_array(p->threads[t].packed, p->threads[t].packed_mapped);
		p->threads[t].packed = NULL;
		p->threads[t].packed_mapped = 0;
	}
}

/* Every thread's events into the form `to`: all or none (0 or -ENOMEM, p
 * unchanged). The packed arrays they come from are freed unless keep (a
 * reader may hold them; to is then PACKING_NONE). */
static int repack(struct vsc_program *p, enum packing to, bool keep)
{
	uint32_t k = program_threads(p), t;
	enum packing from = (enum packing)p->packed;
	struct repacked *made = calloc(k ? k : 1, sizeof(*made));

	if (!made)
		return -ENOMEM;
	for (t = 0; t < k && !repack_thread(&p->threads[t], from, to, &made[t]); t++)
		;
	if (t < k) {
		while (t-- > 0)
			free_array(made[t].array, made[t].mapped);
		free(made);
		return -ENOMEM;
	}
	if (!keep)
		free_packed(p);
	for (t = 0; t < k; t++) {
		struct vsc_thread *th = &p->threads[t];
		if (to) {
			th->packed = made[t].array;
			th->packed_mapped = made[t].mapped;
		} else {
			th->events = made[t].array;
			th->events_mapped = made[t].mapped;
		}
	}
	free(made);
	__atomic_store_n(&p->packed, to, __ATOMIC_SEQ_CST);
	return 0;
}

int program_unpack(const struct vsc_program *cp)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	/* const to its callers: they see the same events either way */
	struct vsc_program *p = (struct vsc_program *)cp;
	int err = 0;

	if (!program_packed(p))
		return 0;
	pthread_mutex_lock(&lock);
	if (program_packed(p)) {
		/* parsing is over: no room for more events is needed */
		for (uint32_t t = 0; t < program_threads(p); t++)
			p->threads[t].cap = p->threads[t].length;
		err = repack(p, PACKING_NONE, true);
		for (uint32_t t = 0; t < program_threads(p) && !err; t++) {
			struct vsc_thread *th = &p->threads[t];
			th->events_mapped = trim_array(th->events, th->events_mapped,
						       th->length * sizeof(*th->events));
		}
		if (!err && !__atomic_load_n(&p->packed_readers, __ATOMIC_SEQ_CST))
			free_packed(p);
	}
	pthread_mutex_unlock(&lock);
	return err;
}

/* Before appending ev to a packed program it does not fit: wider words
 * when they hold it, else struct vsc_event. Appending changes p, so no
 * reader shares it now: what it leaves is freed. */
static int make_room_for(struct vsc_program *p, const struct vsc_event *ev)
{
	bool wide = p->packed == PACKING_NARROW && !ev->new_value &&
		    packing_fits(PACKING_WIDE, ev->kind, ev->var, ev->value);

	return repack(p, wide ? PACKING_WIDE : PACKING_NONE, false);
}

void vsc_program_free(struct vsc_program *p)
{
	if (!p)
		return;
	for (uint32_t t = 0; t < program_threads(p); t++) {
		free_array(p->threads[t].events, p->threads[t].events_mapped);
		free_array(p->threads[t].packed, p->threads[t].packed_mapped);
		free(p->threads[t].ts);
		free_array(p->threads[t].lines, p->threads[t].lines_mapped);
	}
	free(p->threads);
	free(p->inits);
	intern_free(&p->thread_names);
	intern_free(&p->var_names);
	free(p->name);
	free(p);
}

/* The room left in a mapping of elem-byte elements, at most cap. */
static size_t mapped_cap(size_t cap, size_t mapped, size_t elem)
{
	return mapped && mapped / elem < cap ? mapped / elem : cap;
}

void program_trim(struct vsc_program *p)
{
	size_t packed = packing_bytes((enum packing)p->packed); /* bytes an event */

	for (uint32_t t = 0; t < program_threads(p); t++) {
		struct vsc_thread *th = &p->threads[t];
		size_t cap = th->cap;

		th->events_mapped =
			trim_array(th->events, th->events_mapped, th->length * sizeof(*th->events));
		th->packed_mapped = trim_array(th->packed, th->packed_mapped, th->length * packed);
		th->lines_mapped =
			trim_array(th->lines, th->lines_mapped, th->length * sizeof(*th->lines));
		cap = p->packed ? mapped_cap(cap, th->packed_mapped, packed)
				: mapped_cap(cap, th->events_mapped, sizeof(*th->events));
		th->cap = (uint32_t)mapped_cap(cap, th->lines_mapped, sizeof(*th->lines));
	}
}

/* The room comes before the name: a name interned without its thread (or
 * variable) would be counted, and its unset entry freed or read. */
int program_thread(struct vsc_program *p, const char *name, size_t len)
{
	int added, t;

	if (ARRAY_RESERVE_FROM(p->threads, p->threads_cap, (size_t)program_threads(p) + 1, 2))
		return -ENOMEM;
	t = intern_get(&p->thread_names, name, len, &added);
	if (t < 0 || !added)
		return t;
	memset(&p->threads[t], 0, sizeof(p->threads[t]));
	return t;
}

int program_var(struct vsc_program *p, const char *name, size_t len)
{
	int added, v;

	if (ARRAY_RESERVE_FROM(p->inits, p->inits_cap, (size_t)program_vars(p) + 1, 2))
		return -ENOMEM;
	v = intern_get(&p->var_names, name, len, &added);
	if (v < 0 || !added)
		return v;
	memset(&p->inits[v], 0, sizeof(p->inits[v]));
	p->inits[v].least = INT64_MAX;
	p->inits[v].most = INT64_MIN;
	return v;
}

int program_append(struct vsc_program *p, uint32_t thread, const struct vsc_event *ev, uint64_t ts,
		   uint32_t line)
{
	struct vsc_thread *th = &p->threads[thread];

	if (th->length == UINT32_MAX)
		return -E2BIG;
	if (p->packed &&
	    (!packing_fits((enum packing)p->packed, ev->kind, ev->var, ev->value) ||
	     ev->new_value) &&
	    make_room_for(p, ev))
		return -ENOMEM;
	if (th->length == th->cap) {
		/* events (or packed ones), and timestamps and lines when kept,
		 * share one room; from 2: a lab trace has 10^6 programs of a
		 * few events */
		size_t cap = array_grown_cap(th->cap, (size_t)th->length + 1, 2, UINT32_MAX);

		if (!cap ||
		    (p->packed ? grow_array(&th->packed, &th->packed_mapped,
					    th->length * packing_bytes((enum packing)p->packed),
					    cap * packing_bytes((enum packing)p->packed))
			       : grow_array((void **)&th->events, &th->events_mapped,
					    th->length * sizeof(*th->events),
					    cap * sizeof(*th->events))) ||
		    (th->ts && ARRAY_RESIZE(th->ts, cap)) ||
		    (th->lines &&
		     grow_array((void **)&th->lines, &th->lines_mapped,
				th->length * sizeof(*th->lines), cap * sizeof(*th->lines))))
			return -ENOMEM;
		th->cap = (uint32_t)cap;
	}
	if (ts && !th->ts) {
		th->ts = calloc(th->cap, sizeof(*th->ts));
		if (!th->ts)
			return -ENOMEM;
	}
	if (line && !th->lines) {
		th->lines = calloc(th->cap, sizeof(*th->lines));
		if (!th->lines)
			return -ENOMEM;
	}
	if (p->packed)
		packed_put(th->packed, (enum packing)p->packed, th->length,
			   packing_word((enum packing)p->packed, ev->kind, ev->var, ev->value));
	else
		th->events[th->length] = *ev;
	var_span_see(&p->inits[ev->var], ev);
	if (th->ts)
		th->ts[th->length] = ts;
	if (th->lines)
		th->lines[th->length] = line;
	th->length++;
	p->event_count++;
	return 0;
}

/* ---- public API ---------------------------------------------------------- */

int vsc_program_add_thread(struct vsc_program *p, const char *name)
{
	if (!p || !name || !*name)
		return -EINVAL;
	return program_thread(p, name, strlen(name));
}

int vsc_program_add_var(struct vsc_program *p, const char *name)
{
	if (!p || !name || !*name)
		return -EINVAL;
	return program_var(p, name, strlen(name));
}

int vsc_program_set_init(struct vsc_program *p, size_t var, enum vsc_init init, int64_t value)
{
	if (!p || var >= program_vars(p) || (unsigned)init > VSC_INIT_UNKNOWN)
		return -EINVAL;
	p->inits[var].kind = (uint8_t)init;
	p->inits[var].value = init == VSC_INIT_KNOWN ? value : 0;
	return 0;
}

int vsc_program_append(struct vsc_program *p, size_t thread, const struct vsc_event *ev,
		       uint64_t ts)
{
	if (!p || !ev || thread >= program_threads(p) || ev->var >= program_vars(p) ||
	    ev->kind > VSC_RMW)
		return -EINVAL;
	return program_append(p, (uint32_t)thread, ev, ts, 0);
}

const char *vsc_program_name(const struct vsc_program *p)
{
	return p->name;
}

size_t vsc_program_thread_count(const struct vsc_program *p)
{
	return program_threads(p);
}

const char *vsc_program_thread_name(const struct vsc_program *p, size_t t)
{
	return t < program_threads(p) ? p->thread_names.names[t] : NULL;
}

size_t vsc_program_thread_length(const struct vsc_program *p, size_t t)
{
	return t < program_threads(p) ? p->threads[t].length : 0;
}

const struct vsc_event *vsc_program_events(const struct vsc_program *p, size_t t)
{
	if (t >= program_threads(p) || program_unpack(p))
		return NULL;
	return p->threads[t].events;
}

size_t vsc_program_event_count(const struct vsc_program *p)
{
	return p->event_count;
}

size_t vsc_program_unsure_values(const struct vsc_program *prog)
{
	return prog ? prog->unsure_values : 0;
}

size_t vsc_program_var_count(const struct vsc_program *p)
{
	return program_vars(p);
}

const char *vsc_program_var_name(const struct vsc_program *p, size_t v)
{
	return v < program_vars(p) ? p->var_names.names[v] : NULL;
}

int vsc_program_var_init(const struct vsc_program *p, size_t v, int64_t *value)
{
	if (v >= program_vars(p))
		return -EINVAL;
	if (value)
		*value = p->inits[v].value;
	return p->inits[v].kind;
}

size_t vsc_program_writers(const struct vsc_program *p)
{
	uint32_t nvars = program_vars(p), best = 0;
	uint32_t *count = calloc(nvars ? nvars : 1, sizeof(*count));
	uint32_t *last_thread = calloc(nvars ? nvars : 1, sizeof(*last_thread));
	enum packing packed;

	if (!count || !last_thread) {
		free(count);
		free(last_thread);
		return 0;
	}
	packed = program_read_begin(p);

	for (uint32_t t = 0; t < program_threads(p); t++) {
		const struct vsc_thread *th = &p->threads[t];
		for (uint32_t i = 0; i < th->length; i++) {
			struct vsc_event e = thread_event(th, packed, i);
			uint32_t v = e.var;
			if (e.kind == VSC_READ || last_thread[v] == t + 1)
				continue;
			last_thread[v] = t + 1;
			if (++count[v] > best)
				best = count[v];
		}
	}
	program_read_end(p);
	free(count);
	free(last_thread);
	return best;
}

uint64_t vsc_program_event_ts(const struct vsc_program *p, size_t t, size_t i)
{
	if (t >= program_threads(p) || i >= p->threads[t].length || !p->threads[t].ts)
		return 0;
	return p->threads[t].ts[i];
}

uint32_t vsc_program_event_line(const struct vsc_program *p, size_t t, size_t i)
{
	if (t >= program_threads(p) || i >= p->threads[t].length || !p->threads[t].lines)
		return 0;
	return p->threads[t].lines[i];
}

int vsc_program_write(const struct vsc_program *p, FILE *out)
{
	static const char op[] = { 'r', 'w', 'u' };
	enum packing packed = program_read_begin(p);

	fprintf(out, "vsc 1\n");
	for (uint32_t v = 0; v < program_vars(p); v++) {
		if (p->inits[v].kind == VSC_INIT_KNOWN)
			fprintf(out, "init %s %lld\n", p->var_names.names[v],
				(long long)p->inits[v].value);
		else if (p->inits[v].kind == VSC_INIT_UNKNOWN)
			fprintf(out, "init %s ?\n", p->var_names.names[v]);
	}
	for (uint32_t t = 0; t < program_threads(p); t++) {
		const struct vsc_thread *th = &p->threads[t];
		for (uint32_t i = 0; i < th->length; i++) {
			const struct vsc_event ev = thread_event(th, packed, i), *e = &ev;
			fprintf(out, "%s %c %s %lld", p->thread_names.names[t], op[e->kind],
				p->var_names.names[e->var], (long long)e->value);
			if (e->kind == VSC_RMW)
				fprintf(out, " %lld", (long long)e->new_value);
			if (th->ts && th->ts[i])
				fprintf(out, " @%llu", (unsigned long long)th->ts[i]);
			fputc('\n', out);
		}
	}
	program_read_end(p);
	return ferror(out) ? -EIO : 0;
}
