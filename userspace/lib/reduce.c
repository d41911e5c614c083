/* SPDX-License-Identifier: MIT */
/* Exact reductions before the search; why each is exact is in
 * docs/solvers.md ("Reductions"). One pass classifies the variables (and
 * finds the spans of their values, which the analysis of the whole program
 * takes), counts spins and joins threads into parts (a union-find) as though no
 * variable could be dropped; when one can, a second pass replays those
 * variables and does the rest again. Each event's fate is written only
 * when the plan is worth building reduced programs for. */
#include "reduce.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define ACCESS_NONE UINT32_MAX
#define ACCESS_MANY (UINT32_MAX - 1)
#define GROUP_MIN_EVENTS 4096 /* smaller parts are packed together... */
#define PACK_FROM_EVENTS \
	65536                       /* ...in programs this large (small ones: one
				* group per part, which the property tests see) */
#define SPLIT_MAX_EVENTS (1u << 22) /* a split alone is worth its copy below... */
#define SPLIT_LARGEST_EIGHTHS 7     /* ...and above, when no group holds more than 7/8 */

enum {
	MEM_NONE,
	MEM_UNDECIDED,
	MEM_VALUE
};

struct var_facts {
	uint32_t accessor;    /* the one thread, ACCESS_MANY or ACCESS_NONE */
	uint32_t writers;     /* threads that write it */
	uint32_t last_writer; /* the last of them + 1 (threads come in order) */
	uint8_t written, droppable, mem;
	int64_t value;  /* with mem == MEM_VALUE */
	uint32_t local; /* its index in the reduced program of its group */
};

static uint32_t find(uint32_t *parent, uint32_t t)
{
	while (parent[t] != t) {
		parent[t] = parent[parent[t]];
		t = parent[t];
	}
	return t;
}

static void var_facts_init(struct var_facts *vf, const struct vsc_program *p)
{
	for (uint32_t v = 0; v < program_vars(p); v++) {
		uint8_t kind = p->inits[v].kind;
		vf[v] = (struct var_facts){ .accessor = ACCESS_NONE, .local = UINT32_MAX };
		vf[v].mem = kind == VSC_INIT_KNOWN     ? MEM_VALUE
			    : kind == VSC_INIT_UNKNOWN ? MEM_UNDECIDED
						       : MEM_NONE;
		vf[v].value = p->inits[v].value;
	}
}

/* Thread t's event e in the facts of its variable, and r->writers
 * (vsc_program_writers(), in the same pass, so that the solvers need not
 * make another). */
static inline void see_access(struct reduction *r, struct var_facts *f, uint32_t t,
			      const struct vsc_event *e)
{
	if (f->accessor == ACCESS_NONE)
		f->accessor = t;
	else if (f->accessor != t)
		f->accessor = ACCESS_MANY;
	if (e->kind == VSC_READ || f->last_writer == t + 1)
		return;
	f->written = 1;
	f->last_writer = t + 1;
	if (++f->writers > r->writers)
		r->writers = f->writers;
}

/* Set each variable's droppable; 1 when some accessed variable is. */
static int mark_droppable(struct var_facts *vf, const struct vsc_program *p)
{
	int any = 0;

	for (uint32_t v = 0; v < program_vars(p); v++) {
		vf[v].droppable = vf[v].accessor != ACCESS_MANY || !vf[v].written;
		any |= vf[v].droppable && vf[v].accessor != ACCESS_NONE;
	}
	return any;
}

/* A variable that cannot matter: one thread's accesses (program order) or
 * reads only, replayed from the initial value. 0: they contradict. */
static int replay(struct var_facts *f, const struct vsc_event *e)
{
	if (e->kind != VSC_WRITE) {
		if (f->mem == MEM_NONE)
			return 0;
		if (f->mem == MEM_VALUE && f->value != e->value)
			return 0;
		f->mem = MEM_VALUE;
		f->value = e->value;
	}
	if (e->kind != VSC_READ) {
		f->mem = MEM_VALUE;
		f->value = e->kind == VSC_RMW ? e->new_value : e->value;
	}
	return 1;
}

static inline int is_spin(const struct vsc_event *prev, const struct vsc_event *e)
{
	return prev && prev->kind == VSC_READ && e->kind == VSC_READ && prev->var == e->var &&
	       prev->value == e->value;
}

/* Union-find over the threads: threads that touch a variable in kept
 * events join; size[t]: t's kept events (summed into the roots at the end);
 * owner[v]: a thread of v's part, or PART_NONE. */
struct parts {
	uint32_t *parent, *size, *owner;
};

static int parts_init(struct parts *pt, uint32_t k, uint32_t nvars)
{
	pt->parent = malloc(((size_t)k + 1) * sizeof(uint32_t));
	pt->size = calloc((size_t)k + 1, sizeof(uint32_t));
	pt->owner = malloc(((size_t)nvars + 1) * sizeof(uint32_t));
	if (!pt->parent || !pt->size || !pt->owner)
		return -ENOMEM;
	for (uint32_t t = 0; t < k; t++)
		pt->parent[t] = t;
	for (uint32_t v = 0; v < nvars; v++)
		pt->owner[v] = PART_NONE;
	return 0;
}

/* Back to every thread alone, for a second pass. */
static void parts_reset(struct parts *pt, uint32_t k, uint32_t nvars)
{
	for (uint32_t t = 0; t < k; t++) {
		pt->parent[t] = t;
		pt->size[t] = 0;
	}
	for (uint32_t v = 0; v < nvars; v++)
		pt->owner[v] = PART_NONE;
}

static void parts_free(struct parts *pt)
{
	free(pt->parent);
	free(pt->size);
	free(pt->owner);
}

/* Thread t keeps an event of v. */
static void parts_keep(struct parts *pt, uint32_t t, uint32_t v)
{
	pt->size[t]++;
	if (pt->owner[v] != PART_NONE && pt->owner[v] != t)
		pt->parent[find(pt->parent, pt->owner[v])] = find(pt->parent, t);
	pt->owner[v] = t; /* joined: t stands for v's part from here */
}

/* The one pass when no variable can be dropped: the variables' facts, and
 * the spins and parts as give_fates() finds them then (every event but a
 * spin kept), without writing the fates. */
static void survey(struct reduction *r, struct var_facts *vf, const struct vsc_program *p,
		   struct parts *pt)
{
	for (uint32_t t = 0; t < program_threads(p); t++) {
		const struct vsc_thread *th = &p->threads[t];
		const struct vsc_event *prev = NULL;
		for (uint32_t i = 0; i < th->length; i++) {
			const struct vsc_event *e = &th->events[i];
			see_access(r, &vf[e->var], t, e);
			value_spans_see_event(r->spans, e, VALUES_ALL);
			if (is_spin(prev, e)) {
				r->spins++;
			} else {
				r->kept++;
				prev = e;
				parts_keep(pt, t, e->var);
			}
		}
	}
}

static void give_fates(struct reduction *r, struct var_facts *vf, const struct vsc_program *p,
		       struct parts *pt)
{
	for (uint32_t t = 0; t < program_threads(p); t++) {
		const struct vsc_thread *th = &p->threads[t];
		const struct vsc_event *prev = NULL;
		for (uint32_t i = 0; i < th->length; i++) {
			const struct vsc_event *e = &th->events[i];
			uint8_t *fate = &r->fate[r->base[t] + i];
			if (vf[e->var].droppable) {
				*fate = FATE_DROP;
				r->dropped++;
				if (!replay(&vf[e->var], e))
					r->refuted = 1;
			} else if (is_spin(prev, e)) {
				*fate = FATE_SPIN;
				r->spins++;
			} else {
				*fate = FATE_KEEP;
				r->kept++;
				prev = e;
				parts_keep(pt, t, e->var);
			}
		}
	}
}

/* The pass that gives every event its fate, from scratch (the spins, kept
 * events and parts survey() counted are counted again). 0 or -ENOMEM. */
static int fates_pass(struct reduction *r, struct var_facts *vf, const struct vsc_program *p,
		      struct parts *pt)
{
	r->spins = r->kept = 0;
	parts_reset(pt, program_threads(p), program_vars(p));
	if (!(r->fate = malloc(p->event_count + 1)))
		return -ENOMEM;
	give_fates(r, vf, p, pt);
	return 0;
}

/* Each group's threads as a list, in thread order. */
static int link_groups(struct reduction *r, uint32_t k)
{
	r->first = malloc(((size_t)r->ngroups + 1) * sizeof(*r->first));
	r->next = malloc(((size_t)k + 1) * sizeof(*r->next));
	if (!r->first || !r->next)
		return -ENOMEM;
	for (uint32_t g = 0; g < r->ngroups; g++)
		r->first[g] = PART_NONE;
	for (uint32_t t = k; t-- > 0;) {
		if (r->group[t] == PART_NONE)
			continue;
		r->next[t] = r->first[r->group[t]];
		r->first[r->group[t]] = t;
	}
	return 0;
}

/* Parts: threads joined by the variables of their kept events (joined
 * while the fates were given); size[root]: the kept events of each part. */
static void sum_parts(struct parts *pt, uint32_t k)
{
	for (uint32_t t = 0; t < k; t++)
		if (pt->size[t] && find(pt->parent, t) != t)
			pt->size[find(pt->parent, t)] += pt->size[t];
}

/* r->group of each thread: its part's group; parts under pack events
 * share groups until those reach pack. */
static void number_groups(struct reduction *r, uint32_t k, uint32_t *parent, const uint32_t *size,
			  uint32_t *gid, uint32_t pack)
{
	uint32_t small = PART_NONE, small_size = 0;

	for (uint32_t t = 0; t < k; t++)
		gid[t] = PART_NONE;
	for (uint32_t t = 0; t < k; t++) {
		uint32_t c = find(parent, t);
		if (gid[c] == PART_NONE && size[c]) {
			r->parts++;
			if (size[c] >= pack) {
				gid[c] = r->ngroups++;
			} else {
				if (small == PART_NONE || small_size >= pack) {
					small = r->ngroups++;
					small_size = 0;
				}
				gid[c] = small;
				small_size += size[c];
			}
			r->group_kept[gid[c]] += size[c];
		}
		r->group[t] = size[c] ? gid[c] : PART_NONE;
	}
}

/* Parts under GROUP_MIN_EVENTS kept events are packed into shared groups. */
static int group_threads(struct reduction *r, const struct vsc_program *p, struct parts *pt)
{
	uint32_t k = program_threads(p);
	uint32_t pack = p->event_count >= PACK_FROM_EVENTS ? GROUP_MIN_EVENTS : 1;
	uint32_t *gid = malloc((k + 1) * sizeof(*gid));

	r->group_kept = calloc((size_t)k + 1, sizeof(*r->group_kept));
	if (!gid || !r->group_kept) {
		free(gid);
		return -ENOMEM;
	}
	sum_parts(pt, k);
	number_groups(r, k, pt->parent, pt->size, gid, pack);
	free(gid);
	return link_groups(r, k);
}

void reduce_free(struct reduction *r)
{
	free(r->fate);
	free(r->base);
	free(r->group);
	free(r->first);
	free(r->next);
	free(r->local);
	free(r->group_kept);
	free(r->spans);
	memset(r, 0, sizeof(*r));
}

int reduce_plan(struct reduction *r, const struct vsc_program *p)
{
	uint32_t k = program_threads(p);
	struct var_facts *vf = malloc((program_vars(p) + 1) * sizeof(*vf));
	struct parts pt;
	int err = parts_init(&pt, k, program_vars(p));

	memset(r, 0, sizeof(*r));
	r->base = malloc((k + 1) * sizeof(*r->base));
	r->group = malloc((k + 1) * sizeof(*r->group));
	r->local = malloc((program_vars(p) + 1) * sizeof(*r->local));
	r->spans = malloc((program_vars(p) + 1) * sizeof(*r->spans));
	if (err || !vf || !r->base || !r->group || !r->local || !r->spans ||
	    p->event_count >= UINT32_MAX) {
		free(vf);
		parts_free(&pt);
		reduce_free(r);
		return -ENOMEM;
	}
	for (uint32_t t = 0, q = 0; t <= k; t++) {
		r->base[t] = q;
		q += t < k ? p->threads[t].length : 0;
	}
	for (uint32_t v = 0; v < program_vars(p); v++)
		r->local[v] = UINT32_MAX;
	var_facts_init(vf, p);
	value_spans_start(r->spans, p, VALUES_ALL);
	survey(r, vf, p, &pt);
	if (mark_droppable(vf, p))
		err = fates_pass(r, vf, p, &pt);
	if (!err && !r->refuted)
		err = group_threads(r, p, &pt);
	if (!err && !r->fate && reduce_worth_it(r, p))
		err = fates_pass(r, vf, p, &pt); /* the same counts and parts again */
	free(vf);
	parts_free(&pt);
	if (err)
		reduce_free(r);
	return err;
}

int reduce_worth_it(const struct reduction *r, const struct vsc_program *p)
{
	uint64_t removed = r->spins + r->dropped;
	uint64_t largest = 0;

	if (r->refuted)
		return 1;
	if (removed * 8 >= p->event_count && removed > 0)
		return 1;
	if (r->ngroups < 2)
		return 0;
	/* a big program splits when the split leaves no search most of it:
	 * a copy of one group costs less than searching the others with it
	 * (docs/solvers.md, "Parts at once") */
	for (uint32_t g = 0; g < r->ngroups; g++)
		largest = r->group_kept[g] > largest ? r->group_kept[g] : largest;
	return p->event_count <= SPLIT_MAX_EVENTS || largest * 8 <= r->kept * SPLIT_LARGEST_EIGHTHS;
}

/* The group's threads and variables, named as in p. Each variable of a
 * kept event belongs to one group, so r->local needs no reset. */
static int copy_group(struct reduction *r, const struct vsc_program *p, uint32_t g,
		      struct vsc_program *out, uint32_t *map)
{
	uint32_t n = 0;

	for (uint32_t t = r->first[g]; t != PART_NONE; t = r->next[t]) {
		const struct vsc_thread *th = &p->threads[t];
		const char *name = p->thread_names.names[t];
		int nt = program_thread(out, name, strlen(name));
		if (nt < 0)
			return nt;
		map[n++] = t;
		for (uint32_t i = 0; i < th->length; i++) {
			struct vsc_event e = th->events[i];
			uint32_t v = e.var;
			int err;
			if (r->fate[r->base[t] + i] != FATE_KEEP)
				continue;
			if (r->local[v] == UINT32_MAX) {
				const char *var = p->var_names.names[v];
				int nv = program_var(out, var, strlen(var));
				if (nv < 0)
					return nv;
				r->local[v] = (uint32_t)nv;
				out->inits[nv] = p->inits[v];
			}
			e.var = r->local[v];
			err = program_append(out, (uint32_t)nt, &e, th->ts ? th->ts[i] : 0, 0);
			if (err)
				return err;
		}
	}
	return 0;
}

int reduce_group_program(struct reduction *r, const struct vsc_program *p, uint32_t g,
			 struct vsc_program **out, uint32_t **map)
{
	uint32_t n = 0;
	int err;

	for (uint32_t t = r->first[g]; t != PART_NONE; t = r->next[t])
		n++;
	*out = vsc_program_new();
	*map = malloc(((size_t)n + 1) * sizeof(**map));
	err = *out && *map ? copy_group(r, p, g, *out, *map) : -ENOMEM;
	if (err) {
		vsc_program_free(*out);
		free(*map);
		*out = NULL;
		*map = NULL;
	}
	return err;
}

/* Every dropped or collapsed event goes right next to a kept event of its
 * thread (or, for a thread with none, all of it goes first), so the
 * expanded witness switches threads exactly where the reduced one does. */
int reduce_expand(const struct reduction *r, const struct vsc_program *p, const uint32_t *kept,
		  uint32_t *witness)
{
	uint32_t k = program_threads(p);
	size_t n = 0;
	uint32_t *pos = calloc(k + 1, sizeof(*pos));

	if (!pos)
		return -ENOMEM;
	for (uint32_t t = 0; t < k; t++)
		if (r->group[t] == PART_NONE)
			for (; pos[t] < p->threads[t].length; pos[t]++)
				witness[n++] = t;
	for (uint64_t j = 0; j < r->kept; j++) {
		uint32_t t = kept[j], len = p->threads[t].length;
		const uint8_t *fate = r->fate + r->base[t];
		while (pos[t] < len && fate[pos[t]] != FATE_KEEP) {
			witness[n++] = t;
			pos[t]++;
		}
		witness[n++] = t;
		pos[t]++;
		while (pos[t] < len && fate[pos[t]] != FATE_KEEP) {
			witness[n++] = t;
			pos[t]++;
		}
	}
	free(pos);
	return 0;
}
