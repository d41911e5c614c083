/* SPDX-License-Identifier: MIT */
/* --summary's outcome histogram: a lab run's executions grouped by what
 * they saw (the values every thread read, threads in name order), each
 * outcome with its verdict counts and the exact executions that had it,
 * like litmus7's histogram next to vsc's verdicts. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "report.h"
#include "summary.h"

#define TEXT_LIST_MAX 100 /* items (executions or ranges) per outcome in text; JSON lists all */
#define TEXT_OUTCOME_MAX \
	200 /* bytes of an outcome in text (a long execution's read
			      * 5 M values: 30 MB on one line); JSON gives all */

struct execution {
	const struct file_report *file;
	const void *record; /* of its item (item_at_record) */
};

/* What the table needs of an execution's item. */
struct shown {
	const char *name;
	uint32_t outcome;
	int status;
};

static struct shown shown_of(const struct execution *e)
{
	struct item scratch;
	const struct item *it = item_at_record(e->file, e->record, &scratch);

	return (struct shown){ it->facts.name, it->facts.outcome, it->status };
}

static int compare_names(const void *a, const void *b, void *ctx)
{
	const struct vsc_program *p = ctx;
	return strcmp(vsc_program_thread_name(p, *(const size_t *)a),
		      vsc_program_thread_name(p, *(const size_t *)b));
}

/* "T1:0 T2:1,0": per thread (by name) the values its reads saw, in order. */
char *outcome_text(const struct vsc_program *p)
{
	size_t threads = vsc_program_thread_count(p), len = 0;
	size_t *order = malloc((threads ? threads : 1) * sizeof(*order));
	char *text = NULL;
	FILE *out = open_memstream(&text, &len);

	if (!order || !out) {
		free(order);
		if (out)
			fclose(out);
		free(text);
		return NULL;
	}
	for (size_t t = 0; t < threads; t++)
		order[t] = t;
	qsort_r(order, threads, sizeof(*order), compare_names, (void *)p);
	int threads_with_reads = 0;
	for (size_t k = 0; k < threads; k++) {
		const struct vsc_event *ev = vsc_program_events(p, order[k]);
		size_t n = vsc_program_thread_length(p, order[k]);
		const char *sep = ":";
		for (size_t i = 0; i < n; i++) {
			if (ev[i].kind == VSC_WRITE)
				continue;
			if (sep[0] == ':')
				fprintf(out, "%s%s", threads_with_reads++ ? " " : "",
					vsc_program_thread_name(p, order[k]));
			fprintf(out, "%s%" PRId64, sep, ev[i].value);
			sep = ",";
		}
	}
	if (!threads_with_reads)
		fprintf(out, "(no reads)");
	fclose(out);
	free(order);
	return text;
}

static int compare_texts(const void *a, const void *b, void *ctx)
{
	const struct outcome_names *names = ctx;
	return strcmp(names->texts[*(const uint32_t *)a], names->texts[*(const uint32_t *)b]);
}

/* The place of each outcome (by number) in the order of their texts. */
static uint32_t *outcome_ranks(const struct outcome_names *names)
{
	uint32_t *order = malloc((names->count + 1) * sizeof(*order));
	uint32_t *rank = malloc((names->count + 1) * sizeof(*rank));

	if (!order || !rank) {
		free(order);
		free(rank);
		return NULL;
	}
	for (uint32_t i = 0; i < names->count; i++)
		order[i] = i;
	qsort_r(order, names->count, sizeof(*order), compare_texts, (void *)names);
	for (uint32_t i = 0; i < names->count; i++)
		rank[order[i]] = i;
	free(order);
	return rank;
}

/* Each execution at its place: by outcome text, then in input order (file,
 * then segment). A counting sort on the outcomes' ranks, stable, so the
 * input order within an outcome costs nothing. */
static void place_executions(const struct file_report *files, size_t nfiles, const uint32_t *rank,
			     size_t *next, struct outcome_table *tab)
{
	for (size_t i = 0; i < nfiles; i++) {
		struct item_cursor c;
		const struct item *it;

		for (items_begin(&c, &files[i]); (it = items_next(&c));) {
			struct execution *e = &tab->executions[next[rank[it->facts.outcome]]++];
			*e = (struct execution){ &files[i], items_record(&c) };
		}
	}
}

int outcomes_collect(const struct file_report *files, size_t nfiles,
		     const struct outcome_names *names, struct outcome_table *tab)
{
	size_t n = 0, *next = calloc(names->count + 1, sizeof(*next));
	uint32_t *rank = outcome_ranks(names);

	memset(tab, 0, sizeof(*tab));
	tab->names = names;
	for (size_t i = 0; i < nfiles && next && rank; i++) {
		struct item_cursor c;
		const struct item *it;

		for (items_begin(&c, &files[i]); (it = items_next(&c));) {
			uint32_t o = it->facts.outcome;
			if (o == OUTCOME_NONE)
				n = SIZE_MAX; /* not known (out of memory): no table */
			else if (n != SIZE_MAX && ++n)
				next[rank[o] + 1]++;
		}
	}
	/* on failure the table is empty: outcomes_free() it all the same */
	if (next && rank && n != SIZE_MAX)
		tab->executions = calloc(n ? n : 1, sizeof(*tab->executions));
	if (!tab->executions) {
		free(next);
		free(rank);
		return -1;
	}
	for (uint32_t r = 1; r <= names->count; r++)
		next[r] += next[r - 1];
	place_executions(files, nfiles, rank, next, tab);
	tab->count = n;
	free(next);
	free(rank);
	return 0;
}

void outcomes_free(struct outcome_table *tab)
{
	free(tab->executions);
}

static const char *outcome_of(const struct outcome_table *tab, size_t k)
{
	return tab->names->texts[shown_of(&tab->executions[k]).outcome];
}

/* The run of executions [begin, end) with one outcome. */
static size_t group_end(const struct outcome_table *tab, size_t begin)
{
	size_t end = begin + 1;
	uint32_t outcome = shown_of(&tab->executions[begin]).outcome;

	while (end < tab->count && shown_of(&tab->executions[end]).outcome == outcome)
		end++;
	return end;
}

static const char *execution_name(const struct execution *e)
{
	const char *name = shown_of(e).name;
	return name ? name : "(whole file)";
}

/* A segment named by a decimal number, or -1. */
static long segment_number(const struct execution *x)
{
	const char *name = shown_of(x).name;
	char *end;
	long n;

	if (!name || !*name || *name == '-')
		return -1;
	n = strtol(name, &end, 10);
	return *end ? -1 : n;
}

/* The executions [b, e) of one outcome; runs of numbered segments of one
 * file as ranges ("0-4 7 9-12"), at most TEXT_LIST_MAX items. */
static void print_executions(const struct outcome_table *tab, size_t b, size_t e, size_t nfiles)
{
	size_t items = 0, i = b;

	printf("           in:");
	while (i < e && items < TEXT_LIST_MAX) {
		const struct execution *x = &tab->executions[i];
		long first = segment_number(x);
		size_t j = i + 1;
		while (first >= 0 && j < e && tab->executions[j].file == x->file &&
		       segment_number(&tab->executions[j]) == first + (long)(j - i))
			j++;
		printf(" ");
		if (nfiles > 1)
			printf("%s:", x->file->path);
		printf("%s", execution_name(x));
		if (j - i > 1)
			printf("-%ld", first + (long)(j - i - 1));
		items++;
		i = j;
	}
	if (i < e)
		printf(" ... and %zu more (--json lists all)", e - i);
	printf("\n");
}

/* An outcome in the text table: whole, or its first values (to the last
 * separator within TEXT_OUTCOME_MAX bytes) and how many values it has. */
static void print_outcome(const char *text)
{
	size_t len = strlen(text), cut = TEXT_OUTCOME_MAX, values = 0;

	if (len <= TEXT_OUTCOME_MAX) {
		printf("%s\n", text);
		return;
	}
	while (cut > 0 && text[cut] != ',' && text[cut] != ' ')
		cut--;
	for (const char *c = text; *c; c++)
		values += *c == ':' || *c == ',';
	printf("%.*s ... (%zu values read in all; --json gives them)\n", (int)cut, text, values);
}

void outcomes_text(const struct outcome_table *tab, size_t nfiles)
{
	printf("outcomes (values read, per thread):\n");
	printf("  %8s %10s %12s %8s  %s\n", "count", "consistent", "inconsistent", "unknown",
	       "outcome");
	for (size_t b = 0, e; b < tab->count; b = e) {
		size_t by_status[4] = { 0 };
		e = group_end(tab, b);
		for (size_t i = b; i < e; i++)
			by_status[shown_of(&tab->executions[i]).status]++;
		printf("  %8zu %10zu %12zu %8zu  ", e - b, by_status[EXIT_CONSISTENT],
		       by_status[EXIT_INCONSISTENT], by_status[EXIT_UNKNOWN]);
		print_outcome(outcome_of(tab, b));
		print_executions(tab, b, e, nfiles);
	}
}

void outcomes_json(struct json *j, const struct outcome_table *tab)
{
	json_array_begin(j);
	for (size_t b = 0, e; b < tab->count; b = e) {
		size_t by_status[4] = { 0 };
		e = group_end(tab, b);
		for (size_t i = b; i < e; i++)
			by_status[shown_of(&tab->executions[i]).status]++;
		json_object_begin(j);
		json_key_string(j, "outcome", outcome_of(tab, b));
		json_key_uint(j, "count", e - b);
		json_key_uint(j, "consistent", by_status[EXIT_CONSISTENT]);
		json_key_uint(j, "inconsistent", by_status[EXIT_INCONSISTENT]);
		json_key_uint(j, "unknown", by_status[EXIT_UNKNOWN]);
		json_key(j, "executions");
		json_array_begin(j);
		for (size_t i = b; i < e; i++) {
			const struct execution *x = &tab->executions[i];
			json_object_begin(j);
			json_key_string(j, "file", x->file->path);
			json_key(j, "segment");
			if (shown_of(x).name)
				json_string(j, shown_of(x).name);
			else
				json_null(j);
			json_object_end(j);
		}
		json_array_end(j);
		json_object_end(j);
	}
	json_array_end(j);
}
