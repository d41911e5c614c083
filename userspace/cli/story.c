/* SPDX-License-Identifier: MIT */
/* The explanation of an inconsistent execution: its minimal core, and the
 * cycle of orders every SC interleaving would need, each step with its
 * reason, told with the trace's line numbers and the program locations
 * recorded in trailing comments (`# func+off file:line`). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "report.h"

/* A core that a limit stopped shrinking may keep most of the trace: its
 * reads' choices are listed for so many reads, so many writes each (all
 * of them cost reads x writes, 52 s on a 59,392-event core, and gigabytes
 * of text), and the values `init x ?` must take are said for cores up to
 * STORY_INITS_EVENTS (that check is quadratic too). */
#define STORY_CHOICE_READS 64
#define STORY_CHOICE_WRITES 32
#define STORY_INITS_EVENTS 4096

static const char *const order_names[] = {
	[VSC_ORDER_PROGRAM] = "program-order",
	[VSC_ORDER_READS_FROM] = "reads-from",
	[VSC_ORDER_READ_FIRST] = "from-read",
	[VSC_ORDER_WRITE_FIRST] = "coherence",
};

int event_ref_compare(const void *a, const void *b)
{
	const struct vsc_event_ref *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* What a picture shows of a core too big to show whole, sorted and
 * distinct, into a new array (NULL: out of memory): the events of the
 * first PICTURE_MAX_CYCLE steps of its cycle, or without a cycle its first
 * PICTURE_MAX_CORE events. */
static struct vsc_event_ref *shown_of_big_core(const struct item *it, size_t *n)
{
	const struct vsc_order *cycle;
	const struct vsc_event_ref *core;
	size_t m = vsc_core_cycle(it->core, &cycle), k = 0;
	struct vsc_event_ref *ev = malloc((2 * PICTURE_MAX_CYCLE + PICTURE_MAX_CORE) * sizeof(*ev));

	if (!ev)
		return NULL;
	for (size_t i = 0; i < m && i < PICTURE_MAX_CYCLE; i++) {
		ev[k++] = cycle[i].before;
		ev[k++] = cycle[i].after;
	}
	if (m == 0) {
		vsc_core_events(it->core, &core);
		memcpy(ev, core, PICTURE_MAX_CORE * sizeof(*ev));
		k = PICTURE_MAX_CORE;
	}
	qsort(ev, k, sizeof(*ev), event_ref_compare);
	*n = 0;
	for (size_t i = 0; i < k; i++)
		if (!*n || event_ref_compare(&ev[*n - 1], &ev[i]))
			ev[(*n)++] = ev[i];
	return ev;
}

int core_neighbourhood(const struct item *it, size_t around, struct vsc_event_ref **out,
		       size_t *count)
{
	const struct vsc_event_ref *core;
	size_t n = vsc_core_events(it->core, &core), m = 0;
	struct vsc_event_ref *ev, *cut = NULL;

	if (n > PICTURE_MAX_CORE) { /* one a limit stopped before it was shrunk */
		core = cut = shown_of_big_core(it, &n);
		around = 0;
		if (!cut)
			return -1;
	}
	ev = malloc((n * (2 * around + 1) + 1) * sizeof(*ev));
	*out = ev;
	*count = 0;
	if (!ev) {
		free(cut);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		size_t len = vsc_program_thread_length(it->prog, core[i].thread);
		size_t from = core[i].index > around ? core[i].index - around : 0;
		for (size_t k = from; k < len && k <= (size_t)core[i].index + around; k++)
			ev[m++] = (struct vsc_event_ref){ core[i].thread, (uint32_t)k };
	}
	free(cut);
	qsort(ev, m, sizeof(*ev), event_ref_compare);
	for (size_t i = 0; i < m; i++)
		if (!*count || event_ref_compare(&ev[*count - 1], &ev[i]))
			ev[(*count)++] = ev[i];
	return 0;
}

struct step_list {
	struct story_step *v;
	size_t count, listed;
	size_t nested_room; /* chain steps that may still be taken */
};

static void collect(const struct vsc_core *core, const struct vsc_order *o, size_t n,
		    unsigned depth, const char *prefix, bool parent_taken, struct step_list *s)
{
	for (size_t i = 0; i < n; i++) {
		const struct vsc_order *why;
		size_t w = vsc_core_order_why(core, &o[i], &why);
		bool taken = depth == 0 ? i < PICTURE_MAX_CYCLE : parent_taken && s->nested_room;
		struct story_step st = { .order = &o[i], .depth = depth };

		if (snprintf(st.number, sizeof(st.number), "%s%s%zu", prefix, depth ? "." : "",
			     i + 1) >= (int)sizeof(st.number))
			taken = false; /* deeper than any chain: never */
		s->listed++;
		if (taken) {
			s->nested_room -= depth > 0;
			s->v[s->count++] = st;
		}
		if (w && depth < STORY_WHY_DEPTH) /* as print_chain goes */
			collect(core, why, w, depth + 1, st.number, taken, s);
	}
}

struct story_step *story_steps(const struct vsc_core *core, size_t *count, size_t *listed)
{
	const struct vsc_order *cycle;
	size_t m = vsc_core_cycle(core, &cycle);
	struct step_list s = { .v = malloc(PICTURE_MAX_STEPS * sizeof(*s.v)) };

	*count = *listed = 0;
	if (!s.v)
		return NULL;
	s.nested_room = PICTURE_MAX_STEPS - (m < PICTURE_MAX_CYCLE ? m : PICTURE_MAX_CYCLE);
	collect(core, cycle, m, 0, "", true, &s);
	*count = s.count;
	*listed = s.listed;
	return s.v;
}

int picture_events(const struct item *it, size_t around, const struct story_step *steps, size_t n,
		   struct vsc_event_ref **out, size_t *count)
{
	struct vsc_event_ref *ev = NULL, *more;
	size_t k = 0, m = 0;

	*out = NULL;
	*count = 0;
	if (core_neighbourhood(it, around, &ev, &k)) {
		free(ev);
		return -1;
	}
	more = realloc(ev, (k + 2 * n + 1) * sizeof(*ev));
	if (!more) {
		free(ev);
		return -1;
	}
	ev = more;
	for (size_t i = 0; i < n; i++) {
		ev[k++] = steps[i].order->before;
		ev[k++] = steps[i].order->after;
	}
	qsort(ev, k, sizeof(*ev), event_ref_compare);
	for (size_t i = 0; i < k; i++)
		if (!m || event_ref_compare(&ev[m - 1], &ev[i]))
			ev[m++] = ev[i];
	*out = ev;
	*count = m;
	return 0;
}

static const struct vsc_event *event_at(const struct vsc_program *p, struct vsc_event_ref r)
{
	return &vsc_program_events(p, r.thread)[r.index];
}

/* `T1[0] w x 1` */
void story_event(const struct vsc_program *p, struct vsc_event_ref r, char *out, size_t len)
{
	const struct vsc_event *e = event_at(p, r);
	static const char op[] = { 'r', 'w', 'u' };
	int n = snprintf(out, len, "%s[%u] %c %s %lld", vsc_program_thread_name(p, r.thread),
			 r.index, op[e->kind], vsc_program_var_name(p, e->var),
			 (long long)e->value);

	if (e->kind == VSC_RMW && n > 0 && (size_t)n < len)
		snprintf(out + n, len - (size_t)n, " %lld", (long long)e->new_value);
}

/* `T1[0] w x 1 (line 3, func+0x10 file.c:12)` */
void story_describe(const struct line_notes *notes, const struct vsc_program *p,
		    struct vsc_event_ref r, char *out, size_t len)
{
	uint32_t line = vsc_program_event_line(p, r.thread, r.index);
	const char *comment = notes_find(notes, line);
	size_t n;

	story_event(p, r, out, len);
	n = strlen(out);
	if (line && n < len)
		snprintf(out + n, len - n, " (line %u%s%s)", line, *comment ? ", " : "", comment);
}

static void ref_name(const struct vsc_program *p, struct vsc_event_ref r, char *out, size_t len)
{
	snprintf(out, len, "%s[%u]", vsc_program_thread_name(p, r.thread), r.index);
}

/* Why order o is forced; chain: its justification (a read-before-overwrite
 * chain starting at the read itself only lists later writes of the value:
 * the read then sees the initial value). */
static void print_reason(FILE *out, const struct vsc_program *p, const struct vsc_order *o,
			 const struct vsc_order *why, size_t chain, const char *indent)
{
	const struct vsc_event *r = event_at(p, o->read);
	char rn[96];

	ref_name(p, o->read, rn, sizeof(rn));
	switch (o->kind) {
	case VSC_ORDER_PROGRAM:
		fprintf(out, "%s(program order)\n", indent);
		break;
	case VSC_ORDER_READS_FROM:
		fprintf(out, "%s(reads-from: the only write of %s = %lld that %s can read%s)\n",
			indent, vsc_program_var_name(p, r->var), (long long)r->value, rn,
			chain ? "; the other writes of that value come after it:" : "");
		break;
	case VSC_ORDER_READ_FIRST:
		if (chain && memcmp(&why[0].before, &o->read, sizeof(o->read)) != 0)
			fprintf(out,
				"%s(from-read: %s reads %s = %lld from a write that comes before this\n"
				"%s one, so this write must come after the read:)\n",
				indent, rn, vsc_program_var_name(p, r->var), (long long)r->value,
				indent);
		else
			fprintf(out,
				"%s(from-read: %s reads the initial value of %s, which this write would "
				"hide)\n",
				indent, rn, vsc_program_var_name(p, r->var));
		break;
	default:
		fprintf(out,
			"%s(coherence: this write comes before %s, which can read only from the "
			"other,\n%s so it cannot fall between them:)\n",
			indent, rn, indent);
	}
}

static void print_chain(FILE *out, const struct line_notes *notes, const struct item *it,
			const struct vsc_order *chain, size_t n, const char *indent, int depth)
{
	char a[512], b[512], deeper[64], chain_indent[64];

	snprintf(deeper, sizeof(deeper), "%s  ", indent);
	snprintf(chain_indent, sizeof(chain_indent), "%s    ", indent);
	for (size_t i = 0; i < n; i++) {
		const struct vsc_order *why;
		size_t m = vsc_core_order_why(it->core, &chain[i], &why);
		story_describe(notes, it->prog, chain[i].before, a, sizeof(a));
		story_describe(notes, it->prog, chain[i].after, b, sizeof(b));
		fprintf(out, "%s%s\n%s  before %s\n", indent, a, indent, b);
		print_reason(out, it->prog, &chain[i], why, m, deeper);
		if (m && depth < STORY_WHY_DEPTH)
			print_chain(out, notes, it, why, m, chain_indent, depth + 1);
	}
}

/* Whether core[k] may be the write the read core[i] sees: the library's
 * source rule (vsc_read_may_see, docs/explain.md). */
static bool may_source(const struct vsc_program *p, const struct vsc_event_ref *core, size_t i,
		       size_t k)
{
	return k != i && vsc_read_may_see(p, core[i], &core[k]);
}

/* Whether the initial value may be what the read r sees, by the same rule. */
static bool init_may_source(const struct vsc_program *p, struct vsc_event_ref r)
{
	return vsc_read_may_see(p, r, NULL);
}

/* init x ?: the values the core's reads fix, when no write of the core
 * makes them. Returns how many variables got two such values (a reason on
 * its own). */
static int print_unknown_inits(FILE *out, const struct vsc_program *p,
			       const struct vsc_event_ref *core, size_t n, const char *indent)
{
	int conflicts = 0;

	for (size_t i = 0; i < n; i++) {
		const struct vsc_event *r = event_at(p, core[i]);
		int64_t ignored;
		size_t first = n, written = 0;
		char a[96], b[96];
		if (r->kind == VSC_WRITE ||
		    vsc_program_var_init(p, r->var, &ignored) != VSC_INIT_UNKNOWN ||
		    !init_may_source(p, core[i]))
			continue;
		for (size_t j = 0; j < n && !written; j++)
			written = may_source(p, core, i, j);
		for (size_t j = 0; j < i && first == n; j++) /* print each variable once */
			if (event_at(p, core[j])->var == r->var &&
			    event_at(p, core[j])->kind != VSC_WRITE)
				first = j;
		if (written || first != n)
			continue;
		ref_name(p, core[i], a, sizeof(a));
		fprintf(out,
			"%sinit %s ? must be %lld: %s reads it and no event of the core writes it\n",
			indent, vsc_program_var_name(p, r->var), (long long)r->value, a);
		for (size_t j = i + 1; j < n; j++) {
			const struct vsc_event *o = event_at(p, core[j]);
			int other_written = 0;
			if (o->kind == VSC_WRITE || o->var != r->var || o->value == r->value ||
			    !init_may_source(p, core[j]))
				continue;
			for (size_t k = 0; k < n && !other_written; k++)
				other_written = may_source(p, core, j, k);
			if (other_written)
				continue;
			ref_name(p, core[j], b, sizeof(b));
			fprintf(out,
				"%s  but %s reads %lld, which no event of the core writes either: "
				"one initial value cannot be both\n",
				indent, b, (long long)o->value);
			conflicts++;
			break;
		}
	}
	return conflicts;
}

/* What a read can see: the writes of its value in the core, and the
 * initial value, those that program order does not rule out. */
static void print_sources(FILE *out, const struct line_notes *notes, const struct vsc_program *p,
			  const struct vsc_event_ref *core, size_t n, const char *indent)
{
	size_t listed = 0, reads = 0;

	for (size_t i = 0; i < n; i++) {
		size_t sources = 0;
		char text[512];
		if (event_at(p, core[i])->kind == VSC_WRITE || reads++ >= STORY_CHOICE_READS)
			continue;
		listed++;
		story_describe(notes, p, core[i], text, sizeof(text));
		fprintf(out, "%s    %s can read from:", indent, text);
		if (init_may_source(p, core[i])) {
			fprintf(out, " the initial value");
			sources++;
		}
		for (size_t k = 0; k < n; k++) {
			if (!may_source(p, core, i, k))
				continue;
			if (sources < STORY_CHOICE_WRITES)
				fprintf(out, "%s %s[%u]", sources ? "," : "",
					vsc_program_thread_name(p, core[k].thread), core[k].index);
			sources++;
		}
		if (sources > STORY_CHOICE_WRITES)
			fprintf(out, ", and %zu more", sources - STORY_CHOICE_WRITES);
		fprintf(out, "%s\n",
			sources ? "" : " nothing: no write in the trace that program order allows");
	}
	if (reads > listed)
		fprintf(out, "%s    and %zu more reads\n", indent, reads - listed);
}

const char *story_proof(const struct vsc_core *core)
{
	switch (vsc_core_proof(core, NULL)) {
	case 1:
		return "a proof";
	case 0:
		return "not a proof: it holds only for the writes it keeps";
	default:
		return "not known to be a proof";
	}
}

/* Whether the core with every write its reads may see in the trace is
 * still inconsistent: what makes it a proof, or not. */
static void print_proof(FILE *out, const struct vsc_core *core, const char *indent)
{
	size_t events;
	int proof = vsc_core_proof(core, &events);

	if (proof == 1)
		fprintf(out,
			"%sa proof: with every write of the trace that its reads may see (%zu "
			"events in all), it is still inconsistent, so the trace is\n",
			indent, events);
	else if (proof == 0)
		fprintf(out,
			"%snot a proof: with every write of the trace that its reads may see (%zu "
			"events in all), it is consistent; it holds only for the writes it keeps, and the "
			"trace's reason spans more of it\n",
			indent, events);
	else
		fprintf(out,
			"%snot known to be a proof: its reads may see %s%zu events of the trace, "
			"not checked together\n",
			indent, events >= 200000 ? "at least " : "", events);
}

const char *story_no_core(const struct item *it)
{
	return it->core_err == -ETIME ? "the time limit came first" : strerror(-it->core_err);
}

long story_bound(const struct check_args *a)
{
	return a->opts.bounded ? (long)a->opts.preemptions : -1;
}

void story_print(FILE *out, const struct line_notes *notes, const struct item *it, long bound,
		 const char *indent)
{
	const struct vsc_program *p = it->prog;
	const struct vsc_event_ref *core;
	const struct vsc_order *cycle;
	size_t n, m;
	char a[512], deeper[64];

	if (!it->core) {
		fprintf(out, "%sno explanation: %s\n", indent, story_no_core(it));
		return;
	}
	n = vsc_core_events(it->core, &core);
	m = vsc_core_cycle(it->core, &cycle);
	fprintf(out, "%score: %zu of %zu events are inconsistent on their own", indent, n,
		vsc_program_event_count(p));
	if (bound >= 0)
		fprintf(out, " within -p %ld", bound);
	fprintf(out, ", each read keeping a write it can read from%s:\n",
		vsc_core_is_minimal(it->core) ? " (without any one of them they are not)"
					      : " (not minimal: a limit stopped the shrinking)");
	for (size_t i = 0; i < n; i++) {
		story_describe(notes, p, core[i], a, sizeof(a));
		fprintf(out, "%s  %s\n", indent, a);
	}
	print_proof(out, it->core, indent);
	snprintf(deeper, sizeof(deeper), "%s  ", indent);
	if (n <= STORY_INITS_EVENTS && print_unknown_inits(out, p, core, n, indent) && !m)
		return;
	if (m) {
		fprintf(out,
			"%swhy: every SC interleaving would need these orders, and they form a "
			"cycle:\n",
			indent);
		print_chain(out, notes, it, cycle, m, deeper, 0);
		return;
	}
	fprintf(out,
		"%swhy: no interleaving of these events (within the preemption bound, if one was "
		"given) lets every read see its value;\n",
		indent);
	fprintf(out, "%s  the choices each read has:\n", indent);
	print_sources(out, notes, p, core, n, indent);
}

/* One line for tables: `T1[0] w x 1, T1[1] r y 0; cycle T1[0] -program-order-> ...` */
void story_brief(FILE *out, const struct item *it, const char *indent)
{
	const struct vsc_event_ref *core;
	const struct vsc_order *cycle;
	size_t n, m;
	char a[256];

	if (!it->core) {
		fprintf(out, "%sno core: %s\n", indent, story_no_core(it));
		return;
	}
	n = vsc_core_events(it->core, &core);
	m = vsc_core_cycle(it->core, &cycle);
	fprintf(out, "%score (%zu events%s%s%s):", indent, n,
		vsc_core_is_minimal(it->core) ? "" : ", not minimal",
		vsc_core_proof(it->core, NULL) == 1 ? "" : ", ",
		vsc_core_proof(it->core, NULL) == 1 ? "" : story_proof(it->core));
	for (size_t i = 0; i < n; i++) {
		story_event(it->prog, core[i], a, sizeof(a));
		fprintf(out, "%s %s", i ? "," : "", a);
	}
	fputc('\n', out);
	if (!m)
		return;
	fprintf(out, "%scycle:", indent);
	for (size_t i = 0; i < m; i++) {
		ref_name(it->prog, cycle[i].before, a, sizeof(a));
		fprintf(out, " %s -%s->", a, order_names[cycle[i].kind]);
	}
	ref_name(it->prog, cycle[0].before, a, sizeof(a));
	fprintf(out, " %s\n", a);
}

static void json_ref(struct json *j, const struct vsc_program *p, struct vsc_event_ref r)
{
	json_array_begin(j);
	json_string(j, vsc_program_thread_name(p, r.thread));
	json_uint(j, r.index);
	json_array_end(j);
}

static void json_orders(struct json *j, const struct item *it, const struct vsc_order *o, size_t m,
			int depth)
{
	json_array_begin(j);
	for (size_t i = 0; i < m; i++) {
		const struct vsc_order *why;
		size_t w = vsc_core_order_why(it->core, &o[i], &why);
		json_object_begin(j);
		json_key(j, "before");
		json_ref(j, it->prog, o[i].before);
		json_key(j, "after");
		json_ref(j, it->prog, o[i].after);
		json_key_string(j, "order", order_names[o[i].kind]);
		if (o[i].kind != VSC_ORDER_PROGRAM) {
			json_key(j, "read");
			json_ref(j, it->prog, o[i].read);
		}
		if (w && depth < STORY_WHY_DEPTH) {
			json_key(j, "why");
			json_orders(j, it, why, w, depth + 1);
		}
		json_object_end(j);
	}
	json_array_end(j);
}

void story_json(struct json *j, const struct item *it)
{
	const struct vsc_event_ref *core;
	const struct vsc_order *cycle;
	size_t n, m, proof_events;

	if (!it->core)
		return;
	n = vsc_core_events(it->core, &core);
	m = vsc_core_cycle(it->core, &cycle);
	json_key(j, "core");
	json_array_begin(j);
	for (size_t i = 0; i < n; i++)
		json_ref(j, it->prog, core[i]);
	json_array_end(j);
	json_key_bool(j, "core_minimal", vsc_core_is_minimal(it->core));
	json_key(j, "core_proof");
	if (vsc_core_proof(it->core, &proof_events) < 0)
		json_null(j);
	else
		json_bool(j, vsc_core_proof(it->core, NULL));
	json_key_uint(j, "core_proof_events", proof_events);
	json_key(j, "cycle");
	json_orders(j, it, cycle, m, 0);
}
