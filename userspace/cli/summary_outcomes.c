/* SPDX-License-Identifier: MIT */
/* --summary's outcome histogram: a lab run's executions grouped by what
 * they saw (the values every thread read, threads in name order), each
 * outcome with its verdict counts and the exact executions that had it,
 * like litmus7's histogram next to vsc's verdicts. */
#include <errno.h>
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

/* An execution: its file and its record (item_at_record). */
struct execution {
	const struct file_report *file;
	const void *record;
};

/* The executions of one outcome, in input order, as the steps from one
 * record to the next, forward in a block of records (their addresses'
 * difference, 7 bits a byte: a byte or two each, where a list of their
 * places took 16). A step of 0 (no two executions share a record) is a
 * jump: how many files later the next one is, then its address's
 * difference zigzagged (a later block of records may lie lower). */
struct outcome_list {
	uint8_t *bytes;
	size_t len, cap;
	size_t count, by_status[4];
	size_t file;      /* of the last one added (from 0) */
	uintptr_t record; /* its record's address (from 0) */
	uint32_t outcome; /* its number in the run's outcomes */
};

/* Reading a list back: the last execution given. */
struct list_reader {
	const struct outcome_list *list;
	const struct file_report *files;
	size_t at, file;
	uintptr_t record;
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

static bool put_byte(struct outcome_list *l, uint8_t b)
{
	if (l->len == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		uint8_t *grown = realloc(l->bytes, cap);
		if (!grown)
			return false;
		l->bytes = grown;
		l->cap = cap;
	}
	l->bytes[l->len++] = b;
	return true;
}

static bool put_step(struct outcome_list *l, uint64_t v)
{
	while (v >= 0x80) {
		if (!put_byte(l, (uint8_t)(v | 0x80)))
			return false;
		v >>= 7;
	}
	return put_byte(l, (uint8_t)v);
}

static uint64_t get_step(const struct outcome_list *l, size_t *at)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		b = l->bytes[(*at)++];
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	return v;
}

/* The execution of files[file] whose record is at record, and its status,
 * after the others of the list; false when out of memory. */
static bool list_add(struct outcome_list *l, size_t file, const void *record, int status)
{
	uintptr_t at = (uintptr_t)record;
	int64_t step = (int64_t)(at - l->record); /* the signed difference */
	bool ok;

	if (file == l->file && at > l->record)
		ok = put_step(l, at - l->record);
	else
		ok = put_step(l, 0) && put_step(l, file - l->file) &&
		     put_step(l, ((uint64_t)step << 1) ^ (uint64_t)(step >> 63));
	if (!ok)
		return false;
	l->file = file;
	l->record = at;
	l->count++;
	l->by_status[status]++;
	return true;
}

static void reader_begin(struct list_reader *r, const struct outcome_list *l,
			 const struct file_report *files)
{
	*r = (struct list_reader){ .list = l, .files = files };
}

/* The next execution of the list into *e; false after the last. */
static bool reader_next(struct list_reader *r, struct execution *e)
{
	uint64_t v;

	if (r->at == r->list->len)
		return false;
	if ((v = get_step(r->list, &r->at)) == 0) { /* a jump */
		r->file += get_step(r->list, &r->at);
		v = get_step(r->list, &r->at);
		v = (v >> 1) ^ (0 - (v & 1));
	}
	r->record += (uintptr_t)v;
	*e = (struct execution){ &r->files[r->file], (const void *)r->record };
	return true;
}

static int compare_names(const void *a, const void *b, void *ctx)
{
	const struct vsc_program *p = ctx;
	return strcmp(vsc_program_thread_name(p, *(const size_t *)a),
		      vsc_program_thread_name(p, *(const size_t *)b));
}

static void put_text(const char *text, outcome_put_fn *put, void *ctx)
{
	put(text, strlen(text), ctx);
}

int outcome_write(const struct vsc_program *p, outcome_put_fn *put, void *ctx)
{
	size_t threads = vsc_program_thread_count(p);
	size_t *order = malloc((threads ? threads : 1) * sizeof(*order));
	int threads_with_reads = 0;
	char number[32];

	if (!order)
		return -ENOMEM;
	for (size_t t = 0; t < threads; t++)
		order[t] = t;
	qsort_r(order, threads, sizeof(*order), compare_names, (void *)p);
	for (size_t k = 0; k < threads; k++) {
		const struct vsc_event *ev = vsc_program_events(p, order[k]);
		size_t n = vsc_program_thread_length(p, order[k]);
		const char *sep = ":";
		for (size_t i = 0; i < n; i++) {
			if (ev[i].kind == VSC_WRITE)
				continue;
			if (sep[0] == ':') {
				if (threads_with_reads++)
					put(" ", 1, ctx);
				put_text(vsc_program_thread_name(p, order[k]), put, ctx);
			}
			put(sep, 1, ctx);
			put(number,
			    (size_t)snprintf(number, sizeof(number), "%" PRId64, ev[i].value), ctx);
			sep = ",";
		}
	}
	if (!threads_with_reads)
		put_text("(no reads)", put, ctx);
	free(order);
	return 0;
}

static int compare_texts(const void *a, const void *b, void *ctx)
{
	return outcome_names_compare(ctx, *(const uint32_t *)a, *(const uint32_t *)b);
}

/* The place of each outcome (by number) in the order of their texts. */
static uint32_t *outcome_ranks(struct outcome_names *names)
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
	qsort_r(order, names->count, sizeof(*order), compare_texts, names);
	for (uint32_t i = 0; i < names->count; i++)
		rank[order[i]] = i;
	free(order);
	return rank;
}

int outcomes_collect(const struct file_report *files, size_t nfiles, struct outcome_names *names,
		     struct outcome_table *tab)
{
	uint32_t *rank = outcome_ranks(names);
	bool ok = rank != NULL;

	memset(tab, 0, sizeof(*tab));
	tab->names = names;
	tab->files = files;
	tab->lists = rank ? calloc(names->count + 1, sizeof(*tab->lists)) : NULL;
	tab->count = tab->lists ? names->count : 0;
	for (size_t i = 0; i < nfiles && tab->lists; i++) {
		struct item_cursor c;
		const struct item *it;

		for (items_begin(&c, &files[i]); ok && (it = items_next(&c));) {
			uint32_t o = it->facts.outcome;
			/* not known (out of memory): no table */
			ok = o != OUTCOME_NONE &&
			     list_add(&tab->lists[rank[o]], i, items_record(&c), it->status);
		}
	}
	for (uint32_t o = 0; tab->lists && o < names->count; o++)
		tab->lists[rank[o]].outcome = o;
	free(rank);
	if (!tab->lists || !ok) {
		outcomes_free(tab); /* the table is empty */
		return -1;
	}
	return 0;
}

void outcomes_free(struct outcome_table *tab)
{
	for (size_t r = 0; tab->lists && r < tab->count; r++)
		free(tab->lists[r].bytes);
	free(tab->lists);
	tab->lists = NULL;
	tab->count = 0;
}

static const char *execution_name(const struct execution *e)
{
	const char *name = shown_of(e).name;
	return name ? name : "(whole file)";
}

/* A segment named by a decimal number as it is written (digits only, no
 * leading zero: "007" and "00" are names of their own, not 7 and 0, and may
 * not stand inside a range "5-8"), or -1 (a number past LONG_MAX too:
 * strtol gives LONG_MAX for each, and a range of them overflowed). */
static long segment_number(const struct execution *x)
{
	const char *name = shown_of(x).name;
	char *end;
	long n;

	if (!name || !*name || (name[0] == '0' && name[1]))
		return -1;
	for (const char *c = name; *c; c++)
		if (*c < '0' || *c > '9')
			return -1;
	errno = 0;
	n = strtol(name, &end, 10);
	return *end || errno == ERANGE ? -1 : n;
}

/* The executions of one outcome; runs of numbered segments of one file as
 * ranges ("0-4 7 9-12"), at most TEXT_LIST_MAX items. */
static void print_executions(const struct outcome_table *tab, const struct outcome_list *l,
			     size_t nfiles)
{
	struct list_reader r;
	struct execution x, next = { 0 };
	size_t items = 0, listed = 0;
	bool more;

	printf("           in:");
	reader_begin(&r, l, tab->files);
	more = reader_next(&r, &x);
	while (more && items < TEXT_LIST_MAX) {
		long first = segment_number(&x);
		size_t run = 1;
		while ((more = reader_next(&r, &next)) && first >= 0 && next.file == x.file &&
		       segment_number(&next) - first == (long)run) /* both >= 0: no overflow */
			run++;
		printf(" ");
		if (nfiles > 1)
			printf("%s:", x.file->path);
		printf("%s", execution_name(&x));
		if (run > 1)
			printf("-%ld", first + (long)(run - 1));
		items++;
		listed += run;
		x = next;
	}
	if (listed < l->count)
		printf(" ... and %zu more (--json lists all)", l->count - listed);
	printf("\n");
}

/* An outcome in the text table: whole, or its first values (to the last
 * separator within TEXT_OUTCOME_MAX bytes) and how many values it has. */
static void print_outcome(const struct outcome_names *names, uint32_t outcome)
{
	bool far;
	uint64_t values;
	const char *text = outcome_names_start(names, outcome, &far, &values);
	size_t cut = TEXT_OUTCOME_MAX;

	if (!far && strlen(text) <= TEXT_OUTCOME_MAX) {
		printf("%s\n", text);
		return;
	}
	while (cut > 0 && text[cut] != ',' && text[cut] != ' ')
		cut--;
	/* a value after each ',' and each thread's first: a thread name may
	 * hold ':' (`tid:4242`), never ' ' */
	if (!far) {
		values = 1;
		for (const char *c = text; *c; c++)
			values += *c == ',' || *c == ' ';
	}
	printf("%.*s ... (%" PRIu64 " values read in all; --json gives them)\n", (int)cut, text,
	       values);
}

void outcomes_text(const struct outcome_table *tab, size_t nfiles)
{
	printf("outcomes (values read, per thread):\n");
	printf("  %8s %10s %12s %8s  %s\n", "count", "consistent", "inconsistent", "unknown",
	       "outcome");
	for (size_t k = 0; k < tab->count; k++) {
		const struct outcome_list *l = &tab->lists[k];
		if (!l->count)
			continue; /* seen only in a file given up */
		printf("  %8zu %10zu %12zu %8zu  ", l->count, l->by_status[EXIT_CONSISTENT],
		       l->by_status[EXIT_INCONSISTENT], l->by_status[EXIT_UNKNOWN]);
		print_outcome(tab->names, l->outcome);
		print_executions(tab, l, nfiles);
	}
}

static void put_escaped(const char *bytes, size_t n, void *ctx)
{
	json_write_escaped(ctx, bytes, n);
}

/* The outcome's whole text as a JSON string (a long one read back in
 * pieces; cut short, but well-formed, when it cannot be: said on stderr). */
static void outcome_json(struct json *j, struct outcome_names *names, uint32_t outcome)
{
	FILE *out = json_raw_value(j);

	fputc('"', out);
	(void)outcome_names_copy(names, outcome, put_escaped, out);
	fputc('"', out);
}

void outcomes_json(struct json *j, const struct outcome_table *tab)
{
	json_array_begin(j);
	for (size_t k = 0; k < tab->count; k++) {
		const struct outcome_list *l = &tab->lists[k];
		struct list_reader r;
		struct execution x;
		if (!l->count)
			continue;
		json_object_begin(j);
		json_key(j, "outcome");
		outcome_json(j, tab->names, l->outcome);
		json_key_uint(j, "count", l->count);
		json_key_uint(j, "consistent", l->by_status[EXIT_CONSISTENT]);
		json_key_uint(j, "inconsistent", l->by_status[EXIT_INCONSISTENT]);
		json_key_uint(j, "unknown", l->by_status[EXIT_UNKNOWN]);
		json_key(j, "executions");
		json_array_begin(j);
		for (reader_begin(&r, l, tab->files); reader_next(&r, &x);) {
			const char *name = shown_of(&x).name;
			json_object_begin(j);
			json_key_string(j, "file", x.file->path);
			json_key(j, "segment");
			if (name)
				json_string(j, name);
			else
				json_null(j);
			json_object_end(j);
		}
		json_array_end(j);
		json_object_end(j);
	}
	json_array_end(j);
}
