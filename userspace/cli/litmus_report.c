/* SPDX-License-Identifier: MIT */
/* vsc litmus, the deciding part: group the iterations by outcome, decide
 * with libvsc whether each distinct outcome is SC, decide every recorded
 * execution (segment) with vsc_check, and print it litmus7-style. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "json.h"
#include "litmus_cli.h"
#include "userspace/util/diag.h"

struct group {
	size_t first; /* an iteration with this outcome */
	size_t count;
	int sc;            /* 1 SC, 0 not SC, -1 undecided */
	bool matches;      /* satisfies the condition's proposition */
	size_t verdict[4]; /* by enum vsc_verdict, over this outcome's executions */
};

struct analysis {
	const struct litmus_test *t;
	const int64_t *values;
	size_t width, n;
	size_t *group_of; /* iteration -> group */
	struct group *groups;
	size_t group_count;
	bool recorded;
	uint64_t lost;
	char trouble[256]; /* why verdicts are missing, if they are */
	size_t agree, disagree, unknown, verdicts[4];
};

static int compare_outcomes(const void *a, const void *b, void *ctx)
{
	const struct analysis *an = ctx;
	const int64_t *x = an->values + *(const size_t *)a * an->width;
	const int64_t *y = an->values + *(const size_t *)b * an->width;
	for (size_t k = 0; k < an->width; k++)
		if (x[k] != y[k])
			return x[k] < y[k] ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int group_outcomes(struct analysis *an)
{
	size_t *order = malloc((an->n ? an->n : 1) * sizeof(*order));
	an->group_of = malloc((an->n ? an->n : 1) * sizeof(*an->group_of));
	an->groups = calloc(an->n ? an->n : 1, sizeof(*an->groups));
	if (!order || !an->group_of || !an->groups) {
		free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < an->n; i++)
		order[i] = i;
	qsort_r(order, an->n, sizeof(*order), compare_outcomes, an);
	for (size_t i = 0; i < an->n; i++) {
		const int64_t *v = an->values + order[i] * an->width;
		if (i == 0 ||
		    memcmp(v, an->values + order[i - 1] * an->width, an->width * sizeof(*v))) {
			an->groups[an->group_count] = (struct group){ .first = order[i], .sc = -1 };
			an->group_count++;
		}
		an->groups[an->group_count - 1].count++;
		an->group_of[order[i]] = an->group_count - 1;
	}
	free(order);
	return 0;
}

static void decide_outcomes(struct analysis *an)
{
	for (size_t g = 0; g < an->group_count; g++) {
		struct group *gr = &an->groups[g];
		const int64_t *v = an->values + gr->first * an->width;
		struct vsc_program *p = litmus_outcome_program(an->t, v);
		struct vsc_result *res = NULL;
		gr->matches = litmus_outcome_matches(an->t, v);
		if (p && vsc_check(p, NULL, &res) == 0) {
			enum vsc_verdict verdict = vsc_result_verdict(res);
			gr->sc = verdict == VSC_CONSISTENT     ? 1
				 : verdict == VSC_INCONSISTENT ? 0
							       : -1;
		}
		vsc_result_free(res);
		vsc_program_free(p);
	}
}

/* Events one iteration puts into the trace (the counter and final reads too). */
static size_t events_per_iteration(const struct litmus_test *t)
{
	struct litmus_final f;
	size_t n = 0;
	for (int th = 0; th < t->thread_count; th++)
		for (int k = 0; k < t->thread[th].insn_count; k++)
			n += t->thread[th].insn[k].op == LITMUS_LOAD ||
			     t->thread[th].insn[k].op == LITMUS_STORE ||
			     t->thread[th].insn[k].op == LITMUS_SWAP;
	litmus_finals(t, &f);
	if (f.count)
		n += (size_t)t->thread_count + 1 + (size_t)f.count;
	return n;
}

static void collect_error(void *ctx, const char *message)
{
	struct analysis *an = ctx;
	if (!an->trouble[0])
		snprintf(an->trouble, sizeof(an->trouble), "the trace does not parse: %s", message);
}

/* Decide one segment; returns its verdict, VSC_UNKNOWN when it is not one
 * of this run's iterations in full. */
static enum vsc_verdict decide_segment(struct analysis *an, const struct vsc_program *p,
				       size_t expected_events, bool *seen)
{
	const char *name = vsc_program_name(p);
	char *end;
	long i = name ? strtol(name, &end, 10) : -1;
	struct vsc_result *res = NULL;
	enum vsc_verdict verdict = VSC_UNKNOWN;

	if (!name || *end || i < 0 || (size_t)i >= an->n || seen[i]) {
		/* not an iteration of this run, or one split in two segments */
		if (!an->trouble[0])
			snprintf(an->trouble, sizeof(an->trouble),
				 "segment '%s' is not one whole iteration of this run",
				 name ? name : "(none)");
		an->unknown++;
		return VSC_UNKNOWN;
	}
	seen[i] = true;
	if (vsc_program_event_count(p) == expected_events && vsc_check(p, NULL, &res) == 0)
		verdict = vsc_result_verdict(res);
	vsc_result_free(res);
	struct group *gr = &an->groups[an->group_of[i]];
	gr->verdict[verdict]++;
	an->verdicts[verdict]++;
	if (verdict == VSC_UNKNOWN || gr->sc < 0)
		an->unknown++;
	else if ((verdict == VSC_CONSISTENT) == (gr->sc == 1))
		an->agree++;
	else
		an->disagree++;
	return verdict;
}

static void decide_executions(struct analysis *an, const char *dir)
{
	char path[PATH_MAX];
	VSC_OPTS(vsc_parse_opts, popts, .filename = "trace.vsc", .on_error = collect_error,
		 .error_ctx = an, .max_errors = 1);
	bool *seen = calloc(an->n ? an->n : 1, sizeof(*seen));
	size_t expected = events_per_iteration(an->t);

	snprintf(path, sizeof(path), "%s/trace.vsc", dir);
	struct vsc_trace *trace = seen ? vsc_trace_parse_file(path, &popts) : NULL;
	VSC_OPTS(vsc_trace_completeness, comp);
	bool whole = false;
	if (trace && vsc_trace_completeness(trace, &comp) == 0) {
		an->lost = comp.lost;
		whole = comp.state == VSC_TRACE_WHOLE && comp.recorded;
		if (!whole)
			snprintf(an->trouble, sizeof(an->trouble),
				 "no verdict on a recording that is not whole: %s",
				 comp.why && comp.why[0] ? comp.why : "no end-of-trace line");
	}
	if (whole)
		for (size_t s = 0; s < vsc_trace_program_count(trace); s++)
			decide_segment(an, vsc_trace_program(trace, s), expected, seen);
	if (!trace && !an->trouble[0])
		snprintf(an->trouble, sizeof(an->trouble), "cannot read the trace: %s",
			 strerror(errno));
	for (size_t i = 0; seen && i < an->n; i++)
		if (!seen[i]) {
			an->groups[an->group_of[i]].verdict[VSC_UNKNOWN]++;
			an->verdicts[VSC_UNKNOWN]++;
			an->unknown++;
		}
	vsc_trace_free(trace);
	free(seen);
}

static size_t positives(const struct analysis *an)
{
	size_t n = 0;
	for (size_t g = 0; g < an->group_count; g++)
		n += an->groups[g].matches ? an->groups[g].count : 0;
	return n;
}

static const char *observation(const struct analysis *an)
{
	size_t pos = positives(an);
	return pos == 0 ? "Never" : pos == an->n ? "Always" : "Sometimes";
}

static void print_text(const struct analysis *an, const char *path)
{
	const struct litmus_test *t = an->t;

	printf("Test %s (%s, %s): %zu iterations", t->name, litmus_arch_name(t->arch), path, an->n);
	if (an->recorded)
		printf(", recorded with eBPF, %llu events lost\n", (unsigned long long)an->lost);
	else
		printf(", not recorded\n");
	printf("Histogram (%zu state%s)\n", an->group_count, an->group_count == 1 ? "" : "s");
	for (size_t g = 0; g < an->group_count; g++) {
		const struct group *gr = &an->groups[g];
		printf("%-8zu %-7s", gr->count, gr->sc == 1 ? "SC" : gr->sc == 0 ? "not-SC" : "?");
		if (an->recorded) {
			char verdicts[64];
			snprintf(verdicts, sizeof(verdicts), "cons %zu incons %zu unknown %zu",
				 gr->verdict[VSC_CONSISTENT], gr->verdict[VSC_INCONSISTENT],
				 gr->verdict[VSC_UNKNOWN]);
			printf(" %-34s", verdicts);
		}
		printf(" %s ", gr->matches ? "*>" : ":>");
		litmus_outcome_print(t, an->values + gr->first * an->width, stdout);
		printf("\n");
	}
	size_t pos = positives(an);
	printf("Condition %s is %svalidated (%zu of %zu)\n", t->cond_text,
	       (t->quantifier == LITMUS_FORALL ? pos == an->n : pos > 0) ? "" : "NOT ", pos, an->n);
	if (an->recorded) {
		printf("vsc check: %zu consistent, %zu inconsistent, %zu unknown; %zu agree with "
		       "their outcome's SC-ness, %zu disagree\n",
		       an->verdicts[VSC_CONSISTENT], an->verdicts[VSC_INCONSISTENT],
		       an->verdicts[VSC_UNKNOWN], an->agree, an->disagree);
		if (an->trouble[0])
			printf("vsc check: %s\n", an->trouble);
	}
	printf("Observation %s %s %zu %zu\n", t->name, observation(an), pos, an->n - pos);
}

/* One outcome group as a JSON object. */
static void json_outcome(struct json *j, const struct analysis *an, const struct group *gr)
{
	char text[512];
	FILE *mem = fmemopen(text, sizeof(text), "w");

	if (mem) {
		litmus_outcome_print(an->t, an->values + gr->first * an->width, mem);
		fclose(mem);
	} else {
		text[0] = '\0';
	}
	json_object_begin(j);
	json_key_string(j, "outcome", text);
	json_key_uint(j, "count", gr->count);
	json_key(j, "sc");
	if (gr->sc < 0)
		json_null(j);
	else
		json_bool(j, gr->sc);
	json_key_bool(j, "condition", gr->matches);
	if (an->recorded) {
		json_key_uint(j, "consistent", gr->verdict[VSC_CONSISTENT]);
		json_key_uint(j, "inconsistent", gr->verdict[VSC_INCONSISTENT]);
		json_key_uint(j, "unknown", gr->verdict[VSC_UNKNOWN]);
	}
	json_object_end(j);
}

/* The keys of a recorded run: losses and how the verdicts compare. */
static void json_recorded(struct json *j, const struct analysis *an)
{
	json_key_uint(j, "lost_events", an->lost);
	json_key_uint(j, "verdicts_agree", an->agree);
	json_key_uint(j, "verdicts_disagree", an->disagree);
	json_key_uint(j, "verdicts_unknown", an->unknown);
	if (an->trouble[0]) {
		json_key_string(j, "trouble", an->trouble);
	}
}

static void print_json(const struct analysis *an, const char *path)
{
	struct json j;
	size_t non_sc = 0;

	json_init(&j, stdout);
	json_object_begin(&j);
	json_key_string(&j, "test", an->t->name);
	json_key_string(&j, "file", path);
	json_key_string(&j, "arch", litmus_arch_name(an->t->arch));
	json_key_uint(&j, "iterations", an->n);
	json_key_bool(&j, "recorded", an->recorded);
	json_key(&j, "outcomes");
	json_array_begin(&j);
	for (size_t g = 0; g < an->group_count; g++) {
		json_outcome(&j, an, &an->groups[g]);
		non_sc += an->groups[g].sc == 0 ? an->groups[g].count : 0;
	}
	json_array_end(&j);
	json_key_string(&j, "condition", an->t->cond_text);
	json_key_uint(&j, "positive", positives(an));
	json_key_string(&j, "observation", observation(an));
	json_key_uint(&j, "not_sc", non_sc);
	if (an->recorded)
		json_recorded(&j, an);
	json_object_end(&j); /* ends the line */
}

int litmus_report(const struct litmus_test *t, const struct litmus_opts *o, const char *path,
		  const char *dir, bool recorded, const int64_t *values)
{
	struct analysis an = { .t = t,
			       .values = values,
			       .width = litmus_outcome_width(t),
			       .n = (size_t)o->iterations,
			       .recorded = recorded };
	int status = EXIT_CONSISTENT;

	if (group_outcomes(&an)) {
		diag("litmus", "out of memory");
		free(an.group_of);
		free(an.groups);
		return EXIT_USAGE;
	}
	decide_outcomes(&an);
	if (recorded)
		decide_executions(&an, dir);
	if (o->json)
		print_json(&an, path);
	else
		print_text(&an, path);
	for (size_t g = 0; g < an.group_count; g++)
		if (an.groups[g].sc < 0)
			status = EXIT_UNKNOWN;
	if (recorded && (an.unknown || an.trouble[0]))
		status = EXIT_UNKNOWN;
	if (an.disagree)
		status = EXIT_INCONSISTENT;
	free(an.group_of);
	free(an.groups);
	return status;
}
