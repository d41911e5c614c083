/* SPDX-License-Identifier: MIT */
/* Explanations: a minimal inconsistent core, and the forced orders that make
 * it inconsistent when they form a cycle.
 *
 * Shrinking: consistency is not monotone (removing a write can break a read),
 * so after greedy deletion (whole threads, then chunks, then single events)
 * every remaining event is tried once more until no single removal keeps the
 * core inconsistent: then the core is minimal by definition. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "opts.h"
#include "solver.h"

#define CYCLE_SEARCH_LIMIT 400 /* events; beyond, no forced-order story */

struct vsc_core {
	struct vsc_event_ref *events;
	size_t count;
	struct vsc_event_ref *context; /* core + what its reads could see */
	size_t context_count;
	struct vsc_order *cycle;
	size_t cycle_length;
	bool minimal;
};

static int compare_refs(const void *a, const void *b)
{
	const struct vsc_event_ref *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

struct vsc_program *vsc_program_subset(const struct vsc_program *p,
				       const struct vsc_event_ref *events, size_t count)
{
	struct vsc_program *sub = vsc_program_new();
	struct vsc_event_ref *sorted = malloc((count ? count : 1) * sizeof(*sorted));
	int err = 0;

	if (!sub || !sorted)
		goto fail;
	memcpy(sorted, events, count * sizeof(*sorted));
	qsort(sorted, count, sizeof(*sorted), compare_refs);
	for (uint32_t v = 0; v < program_vars(p) && !err; v++) {
		const char *name = p->var_names.names[v];
		err = program_var(sub, name, strlen(name)) < 0;
		if (!err)
			sub->inits[v] = p->inits[v];
	}
	for (size_t i = 0; i < count && !err; i++) {
		const struct vsc_event_ref *r = &sorted[i];
		const struct vsc_thread *th;
		const char *name;
		int t;
		if (r->thread >= program_threads(p) || r->index >= p->threads[r->thread].length ||
		    (i > 0 && compare_refs(r, &sorted[i - 1]) == 0)) {
			errno = EINVAL;
			free(sorted);
			vsc_program_free(sub);
			return NULL;
		}
		th = &p->threads[r->thread];
		name = p->thread_names.names[r->thread];
		t = program_thread(sub, name, strlen(name));
		err = t < 0 || program_append(sub, (uint32_t)t, &th->events[r->index],
					      th->ts ? th->ts[r->index] : 0,
					      th->lines ? th->lines[r->index] : 0);
	}
	free(sorted);
	if (!err)
		return sub;
fail:
	vsc_program_free(sub);
	errno = ENOMEM;
	return NULL;
}

/* Shrinking state: the candidate set as a mask over all events of p. */
struct shrink {
	const struct vsc_program *p;
	struct vsc_check_opts opts;
	struct timespec deadline; /* tv_sec 0: none */
	struct vsc_event_ref *all; /* every event of p, in thread order */
	size_t n;
	unsigned char *keep;
	struct vsc_event_ref *scratch;
	bool gave_up; /* a check ended unknown: minimality not proven */
	bool keep_sources; /* refuse subsets where a read lost every write it could see */
	struct written *all_written; /* (var, value) written anywhere in p, sorted */
	size_t all_written_count;
	struct written *written;     /* scratch for admissible() */
};

struct written {
	uint32_t var;
	int64_t value;
};

static int compare_written(const void *a, const void *b)
{
	const struct written *x = a, *y = b;
	if (x->var != y->var)
		return x->var < y->var ? -1 : 1;
	return (x->value > y->value) - (x->value < y->value);
}

static int init_matches(const struct vsc_program *p, const struct vsc_event *e)
{
	const struct vsc_var_init *init = &p->inits[e->var];
	return init->kind == VSC_INIT_UNKNOWN ||
	       (init->kind == VSC_INIT_KNOWN && init->value == e->value);
}

static const struct vsc_event *event_of(const struct vsc_program *p, struct vsc_event_ref r)
{
	return &p->threads[r.thread].events[r.index];
}

/* The (var, value) pairs the events refs[0..m) write, sorted into out. */
static size_t collect_written(const struct vsc_program *p, const struct vsc_event_ref *refs,
			      size_t m, struct written *out)
{
	size_t nw = 0;

	for (size_t i = 0; i < m; i++) {
		const struct vsc_event *e = event_of(p, refs[i]);
		if (e->kind != VSC_READ)
			out[nw++] = (struct written){ e->var,
						      e->kind == VSC_RMW ? e->new_value : e->value };
	}
	qsort(out, nw, sizeof(*out), compare_written);
	return nw;
}

/* Every read of the subset scratch[0..m) that could see some write in p can
 * still see one in the subset (or the initial value). */
static int admissible(struct shrink *s, size_t m)
{
	size_t nw = collect_written(s->p, s->scratch, m, s->written);

	for (size_t i = 0; i < m; i++) {
		const struct vsc_event *e = event_of(s->p, s->scratch[i]);
		struct written key = { e->var, e->value };
		if (e->kind == VSC_WRITE || init_matches(s->p, e) ||
		    bsearch(&key, s->written, nw, sizeof(key), compare_written))
			continue;
		if (bsearch(&key, s->all_written, s->all_written_count, sizeof(key),
			    compare_written))
			return 0;
	}
	return 1;
}


/* 1 when the kept events (with `drop` events from `from` removed) are
 * inconsistent, 0 when consistent or undecided, -errno on failure. */
static int still_inconsistent(struct shrink *s, size_t from, size_t drop)
{
	struct vsc_check_opts opts = s->opts;
	struct vsc_program *sub;
	struct vsc_result *res;
	size_t m = 0;
	int err, verdict;

	for (size_t i = 0; i < s->n; i++)
		if (s->keep[i] && (i < from || i >= from + drop))
			s->scratch[m++] = s->all[i];
	if (s->deadline.tv_sec) {
		opts.timeout_s = seconds_until(&s->deadline);
		if (opts.timeout_s <= 0) {
			s->gave_up = true;
			return 0;
		}
	}
	if (s->keep_sources && !admissible(s, m))
		return 0;
	opts.want_witness = false;
	opts.minimize = false;
	sub = vsc_program_subset(s->p, s->scratch, m);
	if (!sub)
		return -errno;
	err = vsc_check(sub, &opts, &res);
	vsc_program_free(sub);
	if (err)
		return err;
	verdict = vsc_result_verdict(res);
	vsc_result_free(res);
	if (verdict == VSC_UNKNOWN)
		s->gave_up = true;
	return verdict == VSC_INCONSISTENT;
}

/* Try to drop kept events in [from, from + len); keep the drop if the rest
 * stays inconsistent. */
static int try_drop(struct shrink *s, size_t from, size_t len)
{
	size_t kept = 0;
	int r;

	for (size_t i = from; i < from + len; i++)
		kept += s->keep[i];
	if (kept == 0)
		return 0;
	r = still_inconsistent(s, from, len);
	if (r > 0)
		memset(s->keep + from, 0, len);
	return r;
}

static int shrink(struct shrink *s)
{
	const struct vsc_program *p = s->p;
	size_t start = 0;
	int r;

	/* whole threads */
	for (uint32_t t = 0; t < program_threads(p); t++) {
		if ((r = try_drop(s, start, p->threads[t].length)) < 0)
			return r;
		start += p->threads[t].length;
	}
	/* halving chunks */
	for (size_t len = s->n / 2; len >= 2; len /= 2)
		for (size_t from = 0; from < s->n; from += len)
			if ((r = try_drop(s, from, from + len > s->n ? s->n - from : len)) < 0)
				return r;
	return 0;
}

/* Single events, until no single removal keeps the set inconsistent. */
static int shrink_single(struct shrink *s)
{
	int r, changed;

	do {
		changed = 0;
		for (size_t i = 0; i < s->n; i++) {
			if (!s->keep[i])
				continue;
			if ((r = try_drop(s, i, 1)) < 0)
				return r;
			changed |= r;
		}
	} while (changed && !s->gave_up);
	return 0;
}

/* ---- forced orders on the core -------------------------------------------- */

struct order_graph {
	size_t n;
	const struct vsc_event *ev;  /* core events */
	unsigned char *reach;        /* n*n: i reaches j through edges */
	struct vsc_order *edges;     /* n*n direct edges, kind + 1 in `kind_of` */
	unsigned char *kind_of;      /* n*n: 0 none, else kind + 1 */
	uint32_t *via;               /* n*n: the read behind the edge */
};

static void add_edge(struct order_graph *g, size_t a, size_t b, unsigned kind, size_t read,
		     int *changed)
{
	size_t n = g->n;
	if (a == b || g->reach[a * n + b])
		return;
	g->kind_of[a * n + b] = (unsigned char)(kind + 1);
	g->via[a * n + b] = (uint32_t)read;
	/* everything reaching a now reaches everything b reaches */
	for (size_t i = 0; i < n; i++) {
		if (i != a && !g->reach[i * n + a])
			continue;
		for (size_t j = 0; j < n; j++)
			if (j == b || g->reach[b * n + j])
				g->reach[i * n + j] = 1;
	}
	*changed = 1;
}

static int writes_var(const struct vsc_event *e, uint32_t var)
{
	return e->var == var && e->kind != VSC_READ;
}

static int64_t written_value(const struct vsc_event *e)
{
	return e->kind == VSC_RMW ? e->new_value : e->value;
}

/* Saturate reads-from and from-read orders; stop at a cycle. */
static void saturate(struct order_graph *g, const struct vsc_program *p)
{
	size_t n = g->n;
	int changed = 1;

	while (changed) {
		changed = 0;
		for (size_t r = 0; r < n; r++) {
			const struct vsc_event *e = &g->ev[r];
			const struct vsc_var_init *init = &p->inits[e->var];
			size_t source = n, sources = 0;
			int init_source;
			if (e->kind == VSC_WRITE)
				continue;
			init_source = init->kind == VSC_INIT_UNKNOWN ||
				      (init->kind == VSC_INIT_KNOWN && init->value == e->value);
			for (size_t w = 0; w < n; w++) {
				if (w == r || !writes_var(&g->ev[w], e->var) ||
				    written_value(&g->ev[w]) != e->value || g->reach[r * n + w])
					continue;
				source = w;
				sources++;
			}
			if (sources == 0 && init_source && init->kind == VSC_INIT_KNOWN) {
				for (size_t w = 0; w < n; w++)
					if (w != r && writes_var(&g->ev[w], e->var))
						add_edge(g, r, w, VSC_ORDER_READ_FIRST, r, &changed);
			}
			if (sources != 1 || init_source)
				continue;
			add_edge(g, source, r, VSC_ORDER_READS_FROM, r, &changed);
			for (size_t w = 0; w < n; w++) {
				if (w == r || w == source || !writes_var(&g->ev[w], e->var))
					continue;
				if (g->reach[w * n + r])
					add_edge(g, w, source, VSC_ORDER_WRITE_FIRST, r, &changed);
				else if (g->reach[source * n + w])
					add_edge(g, r, w, VSC_ORDER_READ_FIRST, r, &changed);
			}
		}
		for (size_t i = 0; i < n; i++)
			if (g->reach[i * n + i])
				return;
	}
}

/* The shortest cycle of direct edges through the first node on a cycle:
 * breadth-first from it until it is reached again. */
static int extract_cycle(struct order_graph *g, const struct vsc_event_ref *refs,
			 struct vsc_core *core)
{
	size_t n = g->n, start = n, head = 0, tail = 0, at;
	size_t *queue = NULL, *parent = NULL;
	int err = -ENOMEM;

	for (size_t i = 0; i < n && start == n; i++)
		if (g->reach[i * n + i])
			start = i;
	if (start == n)
		return 0;
	queue = malloc(n * sizeof(*queue));
	parent = malloc(n * sizeof(*parent));
	core->cycle = malloc(n * sizeof(*core->cycle));
	if (!queue || !parent || !core->cycle)
		goto out;
	for (size_t i = 0; i < n; i++)
		parent[i] = n;
	queue[tail++] = start;
	while (head < tail && parent[start] == n) {
		at = queue[head++];
		for (size_t j = 0; j < n; j++) {
			if (!g->kind_of[at * n + j] || parent[j] != n)
				continue;
			parent[j] = at;
			if (j != start)
				queue[tail++] = j;
		}
	}
	err = 0;
	if (parent[start] == n)
		goto out;
	/* walk back from start to start, then reverse into before -> after order */
	at = start;
	do {
		size_t before = parent[at];
		core->cycle[core->cycle_length].before = refs[before];
		core->cycle[core->cycle_length].after = refs[at];
		core->cycle[core->cycle_length].kind = g->kind_of[before * n + at] - 1u;
		core->cycle[core->cycle_length].read = refs[g->via[before * n + at]];
		core->cycle_length++;
		at = before;
	} while (at != start && core->cycle_length < n);
	for (size_t i = 0; i < core->cycle_length / 2; i++) {
		struct vsc_order tmp = core->cycle[i];
		core->cycle[i] = core->cycle[core->cycle_length - 1 - i];
		core->cycle[core->cycle_length - 1 - i] = tmp;
	}
out:
	free(queue);
	free(parent);
	return err;
}

/* A cycle of forced orders among the context's events. */
static int find_cycle(const struct vsc_program *p, struct vsc_core *core)
{
	size_t n = core->context_count;
	struct order_graph g = { .n = n };
	struct vsc_event *ev = malloc((n ? n : 1) * sizeof(*ev));
	int changed = 0, err = -ENOMEM;

	g.ev = ev;
	g.reach = calloc(n * n + 1, 1);
	g.kind_of = calloc(n * n + 1, 1);
	g.via = calloc(n * n + 1, sizeof(*g.via));
	if (!ev || !g.reach || !g.kind_of || !g.via)
		goto out;
	for (size_t i = 0; i < n; i++)
		ev[i] = *event_of(p, core->context[i]);
	for (size_t i = 0; i + 1 < n; i++)
		if (core->context[i].thread == core->context[i + 1].thread)
			add_edge(&g, i, i + 1, VSC_ORDER_PROGRAM, i, &changed);
	saturate(&g, p);
	err = extract_cycle(&g, core->context, core);
out:
	free(ev);
	free(g.reach);
	free(g.kind_of);
	free(g.via);
	return err;
}

int vsc_explain(const struct vsc_program *p, const struct vsc_check_opts *opts,
		struct vsc_core **out)
{
	struct shrink s = { .p = p };
	struct vsc_core *core = NULL;
	size_t m = 0;
	int err;

	if (!p || !out || !opts)
		return -EINVAL;
	*out = NULL;
	if (OPTS_LOAD(s.opts, opts))
		return -EINVAL;
	s.deadline = deadline_after(s.opts.timeout_s);
	s.n = p->event_count;
	s.all = malloc((s.n ? s.n : 1) * sizeof(*s.all));
	s.scratch = malloc((s.n ? s.n : 1) * sizeof(*s.scratch));
	s.keep = malloc(s.n ? s.n : 1);
	s.written = malloc((s.n ? s.n : 1) * sizeof(*s.written));
	s.all_written = malloc((s.n ? s.n : 1) * sizeof(*s.all_written));
	core = calloc(1, sizeof(*core));
	err = -ENOMEM;
	if (!s.all || !s.scratch || !s.keep || !s.written || !s.all_written || !core)
		goto out;
	memset(s.keep, 1, s.n);
	for (uint32_t t = 0; t < program_threads(p); t++)
		for (uint32_t i = 0; i < p->threads[t].length; i++)
			s.all[m++] = (struct vsc_event_ref){ t, i };
	s.all_written_count = collect_written(p, s.all, s.n, s.all_written);
	err = still_inconsistent(&s, 0, 0);
	if (err <= 0) {
		err = err < 0 ? err : s.gave_up ? -ETIME : -EINVAL;
		goto out;
	}
	/* First shrink keeping, for each read, a write it could see: that set
	 * tells the story. Then shrink without that rule to a minimal core. */
	s.keep_sources = true;
	if ((err = shrink(&s)) || (err = shrink_single(&s)))
		goto out;
	core->context = malloc((s.n ? s.n : 1) * sizeof(*core->context));
	core->events = malloc((s.n ? s.n : 1) * sizeof(*core->events));
	err = -ENOMEM;
	if (!core->context || !core->events)
		goto out;
	for (size_t i = 0; i < s.n; i++)
		if (s.keep[i])
			core->context[core->context_count++] = s.all[i];
	s.keep_sources = false;
	if ((err = shrink_single(&s)))
		goto out;
	for (size_t i = 0; i < s.n; i++)
		if (s.keep[i])
			core->events[core->count++] = s.all[i];
	core->minimal = !s.gave_up;
	err = core->context_count <= CYCLE_SEARCH_LIMIT ? find_cycle(p, core) : 0;
out:
	free(s.all);
	free(s.scratch);
	free(s.keep);
	free(s.written);
	free(s.all_written);
	if (err) {
		vsc_core_free(core);
		return err;
	}
	*out = core;
	return 0;
}

size_t vsc_core_events(const struct vsc_core *core, const struct vsc_event_ref **events)
{
	if (events)
		*events = core->events;
	return core->count;
}

size_t vsc_core_context(const struct vsc_core *core, const struct vsc_event_ref **events)
{
	if (events)
		*events = core->context;
	return core->context_count;
}

size_t vsc_core_cycle(const struct vsc_core *core, const struct vsc_order **orders)
{
	if (orders)
		*orders = core->cycle;
	return core->cycle_length;
}

bool vsc_core_is_minimal(const struct vsc_core *core)
{
	return core->minimal;
}

void vsc_core_free(struct vsc_core *core)
{
	if (!core)
		return;
	free(core->events);
	free(core->context);
	free(core->cycle);
	free(core);
}
