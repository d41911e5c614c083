/* SPDX-License-Identifier: MIT */
/* vsc check, reading and deciding at once. Each FILE is parsed in turn and
 * every execution (segment) is decided as soon as it is read whole, through
 * a queue of a few executions that --jobs threads take from. Executions are
 * let out of the queue in input order: what the reports need of each is
 * noted (check_note_facts), and a consistent one's program and result are
 * freed unless a picture may show it (its witness, when printed, waits in
 * a temporary file: witness_spill.c); an inconsistent one's too (its
 * explanation, with --explain, and its core as --core-out writes it, wait
 * there as well), unless it is one of the few --svg and --html show
 * (explained as it is let out). A lab run of 10^6 segments thus
 * takes the memory of a few segments plus its report (docs/lab.md,
 * "Memory"), not that of the whole file, whatever is asked. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "report.h"
#include "userspace/util/clock.h"
#include "userspace/util/diag.h"

enum slot_state {
	SLOT_WAITING,
	SLOT_DECIDING,
	SLOT_DONE
};

/* Executions go through the queue in batches: a lab run's are a few events
 * each, and one lock round per execution would cost more than deciding it.
 * A batch is full at BATCH_EXECUTIONS, or at BATCH_EVENTS events (then
 * the memory held stays that of a few executions however big they are). */
#define BATCH_EXECUTIONS 64
#define BATCH_EVENTS ((size_t)1 << 14)

struct slot {
	struct file_report *file;
	struct item items[BATCH_EXECUTIONS];
	size_t n, events;
	unsigned jobs; /* the library's threads for each (the parts of one execution) */
	int state;     /* enum slot_state */
};

/* The queue: count slots from head, in input order; ring has cap of them.
 * Only the reading thread adds and lets out; any thread decides. */
struct stream {
	const struct check_args *a;
	struct slot *ring;
	size_t cap, head, count;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	bool closing;
	int err;                  /* 0, or -ENOMEM once a decided execution could not be kept */
	struct file_report *file; /* being read */
	size_t file_queued;       /* of its executions, those queued so far */
	/* --explain: the comments its explanations cite, of the file of the
	 * executions let out */
	struct notes_reader *notes;
	const struct file_report *notes_file;
	/* The batch being filled. A full one is queued when the next execution
	 * comes, so that a file's last batch is queued when the file ends: one
	 * execution alone then gets every --jobs thread. */
	struct slot filling;
};

static void free_item(struct item *it)
{
	vsc_result_free(it->res);
	vsc_core_free(it->core);
	prefix_free(it->prefix);
	vsc_program_free(it->prog);
}

void check_free_items(struct file_report *f)
{
	item_list_free(&f->items, free_item);
	f->count = 0;
}

/* ---- deciding (with the lock held) --------------------------------------- */

static struct slot *slot_at(struct stream *st, size_t k)
{
	return &st->ring[(st->head + k) % st->cap];
}

static struct slot *waiting_slot(struct stream *st)
{
	for (size_t k = 0; k < st->count; k++)
		if (slot_at(st, k)->state == SLOT_WAITING)
			return slot_at(st, k);
	return NULL;
}

/* Decide s without the lock. Progress lines only from an execution that has
 * every thread: interleaved lines help nobody. */
static void decide_slot(struct stream *st, struct slot *s)
{
	struct check_args inner = *st->a;

	s->state = SLOT_DECIDING;
	pthread_mutex_unlock(&st->lock);
	inner.opts.jobs = s->jobs;
	inner.opts.progress = inner.opts.progress && (st->a->jobs <= 1 || s->jobs > 1);
	for (size_t i = 0; i < s->n; i++)
		check_decide_item(&s->items[i], &inner, s->file->deadline, s->file->path);
	pthread_mutex_lock(&st->lock);
	s->state = SLOT_DONE;
	pthread_cond_broadcast(&st->changed);
}

static void *worker(void *arg)
{
	struct stream *st = arg;

	pthread_mutex_lock(&st->lock);
	for (;;) {
		struct slot *s = waiting_slot(st);
		if (s)
			decide_slot(st, s);
		else if (st->closing)
			break;
		else
			pthread_cond_wait(&st->changed, &st->lock);
	}
	pthread_mutex_unlock(&st->lock);
	return NULL;
}

/* ---- letting out, in input order (the reading thread) -------------------- */

/* Does any report need the program and result of it, once its facts are
 * noted? (--explain's explanations and --core-out's cores wait in the
 * spill instead.) The pictures and the page, of the first few inconsistent ones of each file
 * and the first few of each file that are not (the others are never shown:
 * check_pictured_max). Counted in each file, not over all files: whether a
 * file's verdicts are withheld (its inconsistent ones then shown as
 * unknown, among the others in input order) is known only once it is
 * read, and the first few shown of all files are among the first few of
 * each. Unknown ones (their bounds with --min) and those not decided are
 * few and kept whole. A consistent one's witness waits in the spill
 * instead. */
static bool needs_program(const struct check_args *a, struct file_report *f, const struct item *it)
{
	if (a->keep_executions)
		return true;
	if (it->status == EXIT_INCONSISTENT) /* --core-out's core waits in the spill */
		return f->inconsistent_let_out++ < check_pictured_max(a);
	if (f->may_be_shown++ < check_pictured_max(a))
		return true;
	return it->status != EXIT_CONSISTENT;
}

/* Its explanation into the spill, with the comments of the lines it
 * cites (the text one only); 0 or -1. */
static int spill_explanation(struct stream *st, const struct line_notes *notes, struct item *it)
{
	const struct check_args *a = st->a;
	int err = explain_spill_add(a->spill, a, a->json || a->summary ? NULL : notes, it,
				    &it->facts.witness);

	it->facts.explained = err == 0;
	return err;
}

/* The comments of the lines its core names, for its explanation or its
 * core under --core-out; NULL: none. */
static struct line_notes *item_notes(struct stream *st, const struct file_report *f,
				     const struct item *it)
{
	const struct check_args *a = st->a;

	if (!it->core || !(a->core_out || (a->explain && !a->json && !a->summary)))
		return NULL;
	if (st->notes_file != f) { /* executions are let out file by file */
		notes_reader_close(st->notes);
		st->notes = notes_reader_open(f->path);
		st->notes_file = f;
	}
	return st->notes ? notes_of_item(st->notes, it, a->html != NULL) : NULL;
}

/* Is what the report prints of it from its program, result or core
 * waiting in the spill (or nothing to print)? */
static bool spilled(struct stream *st, struct file_report *f, struct item *it)
{
	const struct check_args *a = st->a;
	struct spilled_witness *last = NULL;
	struct line_notes *notes;
	int err = 0;

	if (witness_spill_wanted(a, it)) {
		err = witness_spill_add(a->spill, a, it, &it->facts.witness);
		last = &it->facts.witness;
	} else if (explain_spill_wanted(a, it) || (a->core_out && it->core)) {
		notes = item_notes(st, f, it);
		if (explain_spill_wanted(a, it)) {
			err = spill_explanation(st, notes, it);
			last = &it->facts.witness;
		}
		if (!err && a->core_out && it->core) {
			err = core_spill_add(a->spill, a, f->path, notes, it, &it->facts.core);
			last = &it->facts.core;
		}
		notes_free(notes);
	}
	if (!err && last)
		f->spill_end = last->at + last->len;
	if (err) { /* what it placed before (its explanation) may be lost with
		    * the write that failed: the report draws it from the item,
		    * kept whole */
		it->facts.explained = false;
		it->facts.witness = it->facts.core = (struct spilled_witness){ 0 };
	}
	return !err;
}

/* A decided execution into its file's items, with its facts noted; its
 * program, result and core go unless a report needs them (or its witness
 * or explanation could not be spilled: the report then prints it from
 * them), and then its facts are kept in a few bytes (item_list.c). */
/* A recorded trace (docs/format.md: a `# events:` header or an end-of-trace
 * line), as far as it is read: the reading thread's own. */
static bool recorded(const struct file_report *f)
{
	struct vsc_trace_completeness c = { .sz = sizeof(c) };

	return f->trace && vsc_trace_completeness(f->trace, &c) == 0 && c.recorded;
}

static void keep(struct stream *st, struct file_report *f, struct item *it)
{
	const struct check_args *a = st->a;
	int err = check_note_facts(it, a); /* its name: the program's until kept */
	bool whole = !err && needs_program(a, f, it);
	struct vsc_program *prog = it->prog;

	if (!err && it->status == EXIT_INCONSISTENT && prog && !f->nowhere[0] && recorded(f) &&
	    check_find_nowhere(prog, f->nowhere, sizeof(f->nowhere)) < 0)
		err = -ENOMEM;

	/* only a picture or the page shows its core: explained now, in input
	 * order, rather than every inconsistent one as it is decided */
	if (whole && it->status == EXIT_INCONSISTENT && it->res && check_wants_core(a) &&
	    !check_wants_every_core(a))
		check_explain_item(it, a, f->deadline);
	if (!err && !whole && spilled(st, f, it)) {
		vsc_result_free(it->res);
		vsc_core_free(it->core);
		prefix_free(it->prefix);
		*it = (struct item){ .status = it->status,
				     .present_status = it->present_status,
				     .withheld = it->withheld,
				     .not_decided = it->not_decided,
				     .facts = it->facts };
		err = item_list_add(&f->items, it); /* its name copied from the program */
		vsc_program_free(prog);
	} else if (!err && !whole && witness_spill_lost(a->spill, f->spill_end)) {
		/* the spill failed (a full disk): it is kept whole, but those
		 * before it whose writing failed are lost */
		f->spill_lost = true;
		err = -a->spill->err;
	} else if (!err) {
		err = item_list_add(&f->items, it);
	}
	if (err) { /* the file's report would miss it: the file is not decided */
		free_item(it);
		f->keep_err = -err;
		st->err = err;
		return;
	}
	f->count++;
}

/* One step towards a free slot (lock held): let the oldest out when it is
 * decided, else decide a waiting one here, else wait for a worker. */
static void make_room(struct stream *st)
{
	struct slot *oldest = slot_at(st, 0), *s;

	if (oldest->state == SLOT_DONE) {
		/* only this thread adds slots: the oldest stays put unlocked */
		pthread_mutex_unlock(&st->lock);
		for (size_t i = 0; i < oldest->n; i++)
			keep(st, oldest->file, &oldest->items[i]);
		pthread_mutex_lock(&st->lock);
		st->head = (st->head + 1) % st->cap;
		st->count--;
	} else if ((s = waiting_slot(st))) {
		decide_slot(st, s);
	} else {
		pthread_cond_wait(&st->changed, &st->lock);
	}
}

/* --timeout bounds reading and deciding a file: its executions get what
 * reading left, from when the first of them is queued (not while the
 * executions of the files before it are decided). */
static void start_clock(const struct check_args *a, struct file_report *f)
{
	double now = clock_now_s(), read_s;

	if (f->deadline != 0 || a->opts.timeout_s <= 0)
		return;
	read_s = f->read_done ? f->read_s : now - f->read_started - f->blocked_s;
	f->deadline = now + a->opts.timeout_s - read_s;
}

/* The batch being filled into the queue, with jobs threads for each of its
 * executions. */
static void push_filling(struct stream *st, unsigned jobs)
{
	struct slot *s;

	pthread_mutex_lock(&st->lock);
	while (st->count == st->cap)
		make_room(st);
	start_clock(st->a, st->file);
	s = slot_at(st, st->count++);
	*s = st->filling;
	s->file = st->file;
	s->jobs = jobs;
	s->state = SLOT_WAITING;
	pthread_cond_broadcast(&st->changed);
	pthread_mutex_unlock(&st->lock);
	st->file_queued += st->filling.n;
	st->filling.n = st->filling.events = 0;
}

/* Every execution in the queue decided and let out. */
static void drain(struct stream *st)
{
	pthread_mutex_lock(&st->lock);
	while (st->count > 0)
		make_room(st);
	pthread_mutex_unlock(&st->lock);
}

/* The parser's on_program: into the batch, once the full one is queued. */
static int take_program(void *ctx, struct vsc_program *prog)
{
	struct stream *st = ctx;
	struct slot *b = &st->filling;

	if (b->n == BATCH_EXECUTIONS || b->events >= BATCH_EVENTS) {
		double started = clock_now_s();
		push_filling(st, 1);
		st->file->blocked_s += clock_now_s() - started; /* not reading */
	}
	b->items[b->n++] = (struct item){ .prog = prog };
	b->events += vsc_program_event_count(prog);
	return st->err;
}

/* The file's last batch: every --jobs thread for an execution alone. */
static void push_last(struct stream *st)
{
	bool alone;

	if (st->filling.n == 0)
		return;
	pthread_mutex_lock(&st->lock);
	alone = st->count == 0 && st->filling.n == 1;
	pthread_mutex_unlock(&st->lock);
	push_filling(st, alone && st->a->jobs > 1 ? (unsigned)st->a->jobs : 1);
}

/* ---- reading ------------------------------------------------------------- */

/* A file of one execution whose trace is incomplete gets no verdict, so it
 * is not searched either (unless --accept-incomplete asks for one): a
 * recording whose target was killed took minutes of search for a line
 * that can only say `unknown`. The segments of a segmented file are
 * decided as they are read, before its end says whether it is whole, and
 * keep their verdicts on the events present. */
static void leave_undecided_if_incomplete(struct stream *st, struct file_report *f)
{
	struct vsc_trace_completeness c = { .sz = sizeof(c) };

	if (st->a->accept_incomplete || st->file_queued != 0 || st->filling.n != 1 ||
	    vsc_trace_completeness(f->trace, &c) != 0 || c.state != VSC_TRACE_INCOMPLETE)
		return;
	st->filling.items[0].not_decided = true;
}

/* Nothing of f is decided (its status says why): its executions decided so
 * far are dropped. */
static void give_up_file(struct file_report *f, int err)
{
	check_free_items(f);
	vsc_trace_free(f->trace);
	f->trace = NULL;
	if (f->spill_lost) { /* an error, never a report that misses some */
		diag(NULL,
		     "%s: no report: its witnesses or explanations could not be kept, their "
		     "temporary file could not be written: %s",
		     f->path, strerror(err));
		f->status = EXIT_USAGE;
		return;
	}
	if (err == ETIME || err == ENOMEM) {
		f->read_stopped = err == ETIME ? "--timeout" : "the memory limit";
		diag(NULL, "%s: %s reached while reading the input", f->path, f->read_stopped);
		f->status = EXIT_UNKNOWN;
		return;
	}
	if (err != EINVAL)
		diag(NULL, "%s: %s", f->path, strerror(err));
	f->status = EXIT_USAGE;
}

static void read_file(struct stream *st, struct file_report *f)
{
	const struct check_args *a = st->a;
	VSC_OPTS(vsc_parse_opts, popts, .filename = check_shown_path(f),
		 .on_error = diag_parse_error, .timeout_s = a->opts.timeout_s,
		 .progress = a->opts.progress, .on_progress = a->opts.on_progress,
		 .progress_ctx = a->opts.progress_ctx,
		 .no_event_lines = !check_wants_core(a), /* only the reports cite lines */
		 .on_program = take_program, .program_ctx = st);
	int err;

	st->file = f;
	st->file_queued = 0;
	f->read_started = clock_now_s();
	f->trace = vsc_trace_parse_file(f->path, &popts);
	err = st->err ? -st->err : errno;
	f->read_s = clock_now_s() - f->read_started - f->blocked_s;
	f->read_done = true;
	if (f->trace) {
		leave_undecided_if_incomplete(st, f);
		push_last(st);
		return;
	}
	for (size_t i = 0; i < st->filling.n; i++)
		vsc_program_free(st->filling.items[i].prog);
	st->filling.n = st->filling.events = 0;
	drain(st); /* its executions still in the queue, before they are dropped */
	give_up_file(f, err);
}

/* The workers, each file read in turn, and every execution let out. */
static void read_all(struct stream *st, struct file_report *files, size_t nfiles)
{
	long workers = st->a->jobs > 1 ? st->a->jobs - 1 : 0, started = 0;
	pthread_t *threads = calloc((size_t)workers + 1, sizeof(*threads));

	for (long i = 0; threads && i < workers; i++, started++)
		if (pthread_create(&threads[i], NULL, worker, st) != 0)
			break;
	for (size_t i = 0; i < nfiles; i++) {
		st->err = 0;
		read_file(st, &files[i]);
	}
	drain(st);
	pthread_mutex_lock(&st->lock);
	st->closing = true;
	pthread_cond_broadcast(&st->changed);
	pthread_mutex_unlock(&st->lock);
	for (long i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	free(threads);
}

void check_read_and_decide(struct file_report *files, size_t nfiles, const struct check_args *a)
{
	/* --jobs N: N - 1 workers, and this thread reads and decides too; two
	 * batches a thread in the queue keep every thread busy */
	struct stream *st = calloc(1, sizeof(*st));
	size_t cap = a->jobs > 1 ? (size_t)(2 * a->jobs) : 1;

	if (st)
		st->ring = calloc(cap, sizeof(*st->ring));
	if (!st || !st->ring) {
		free(st);
		diag("check", "out of memory");
		for (size_t i = 0; i < nfiles; i++)
			files[i].status = EXIT_UNKNOWN;
		return;
	}
	st->a = a;
	st->cap = cap;
	pthread_mutex_init(&st->lock, NULL);
	pthread_cond_init(&st->changed, NULL);
	read_all(st, files, nfiles);
	notes_reader_close(st->notes);
	pthread_cond_destroy(&st->changed);
	pthread_mutex_destroy(&st->lock);
	free(st->ring);
	free(st);
	/* what waits in the spill written out: a file whose witnesses or
	 * explanations are lost gets no report (the first lines, its verdict,
	 * would print before they are found missing) */
	witness_spill_finish(a->spill);
	for (size_t i = 0; i < nfiles; i++) {
		if (files[i].trace && witness_spill_lost(a->spill, files[i].spill_end)) {
			files[i].spill_lost = true;
			files[i].keep_err = a->spill->err;
		}
		if (files[i].keep_err && files[i].trace)
			give_up_file(&files[i], files[i].keep_err);
		if (files[i].trace)
			check_finish_file(&files[i], a);
	}
}
