/* SPDX-License-Identifier: MIT */
/* What `vsc check` decided, and the ways it is shown: text, JSON, the
 * explanation story, SVG pictures, and the lab-run summary. */
#ifndef VSC_CLI_REPORT_H
#define VSC_CLI_REPORT_H

#include "json.h"
#include "run_store.h"
#include "witness_spill.h"
#include "vsc/vsc.h"

/* One execution (a file, or one segment of it) and what became of it. */
/* The longest SC prefix found of an inconsistent execution (prefix.c): the
 * first cut[t] events of each thread t, and their interleaving (the thread
 * of each step, verified). */
struct html_prefix {
	uint32_t *cut;
	uint32_t *witness;
	size_t steps;
};

/* What the reports say of every execution, kept when its program and
 * result are let go (check_stream.c): a consistent execution of a lab run
 * needs no more than this. */
struct item_facts {
	const char *name;   /* the segment's name (the file's copy), NULL: none */
	const char *solver; /* NULL when deciding failed */
	double time_s;
	uint64_t events;
	uint32_t threads, writers;      /* writers: with --json only (0 else) */
	uint32_t outcome;               /* with --summary: its number in check_args.outcomes */
	int32_t preemptions;            /* of the result's witness (least with --min), -1: none */
	uint32_t spins, dropped, parts; /* what the reductions took (vsc_reductions) */
	uint32_t parts_out_of_memory;   /* vsc_result_parts_out_of_memory */
	bool decided;                   /* there was a result */
	bool explained;                 /* witness holds its explanation instead (--explain) */
	bool unsure;                    /* has a value marked unsure (vsc_program_unsure_values) */
	struct spilled_witness witness; /* its witness, when let go before the report */
	struct spilled_witness core;    /* --core-out: its core as written, when let go */
};

struct item {
	struct vsc_program *prog;   /* NULL once let go (check_stream.c) */
	struct vsc_result *res;     /* NULL when deciding failed, or let go */
	struct vsc_core *core;      /* with --explain/--svg, for inconsistent ones */
	struct html_prefix *prefix; /* with --html, inconsistent: its violating prefix */
	int core_err;               /* why there is no core (negative errno) */
	int8_t status;              /* exit status of this execution */
	int8_t present_status;      /* with withheld: what the events present gave */
	bool withheld;              /* the trace is incomplete: status is unknown */
	bool not_decided;           /* an incomplete trace's one execution, not searched */
	struct item_facts facts;
};

struct line_notes; /* trailing comments of the lines explanations name */

/* A file's executions in input order (item_list.c): those kept whole as
 * they are, every other one as a record of a few bytes (what the reports
 * print of it). Read with a cursor, in input order. */
struct item_list {
	struct record_block *first, *last;
	struct item *whole; /* the executions kept whole, in input order */
	size_t nwhole, whole_cap;
};

struct item_cursor {
	const struct item_list *list;
	const struct record_block *block;
	size_t at;       /* in block */
	uint8_t *record; /* of the item last given */
	bool given_whole;
	struct item scratch; /* an execution let go, as its record says */
};

struct file_report {
	const char *path;
	struct line_notes *notes; /* with --explain and friends, once decided */
	struct vsc_trace *trace;  /* NULL when it could not be parsed */
	struct item_list items;
	size_t count;
	int status;
	int segmented;                      /* has `segment` lines: report per segment */
	double deadline;                    /* of --timeout, set when its first item is queued */
	struct vsc_trace_completeness comp; /* is the recorded trace whole? */
	int present_status;                 /* with a withheld verdict: the events present's */
	bool unsure_withheld;           /* --accept-incomplete: an inconsistent verdict resting on
			       * values marked unsure, withheld (check_decide.c) */
	double read_s;                  /* seconds spent reading and parsing, out of --timeout */
	double read_started, blocked_s; /* while reading: when, and how long it waited */
	bool read_done;
	const char *read_stopped; /* the limit that stopped reading: nothing decided */
	int keep_err;        /* keeping a decided execution failed: ENOMEM, or the spill's error */
	bool spill_lost;     /* that: what it put in the spill could not be written */
	uint64_t spill_end;  /* where the last of its witnesses in the spill ends */
	size_t may_be_shown; /* of its executions let out, those not inconsistent */
	size_t inconsistent_let_out; /* and those inconsistent (the first few are shown) */
	/* a recorded trace: why its first execution that reads a value no
	 * recorded write wrote and no initial value can be (check_nowhere.c)
	 * does, "" none */
	char nowhere[600];
};

struct check_args {
	struct vsc_check_opts opts;
	int json;
	int witness;
	int explain;
	int summary;
	const char *svg;
	const char *core_out; /* --core-out FILE */
	const char *html;     /* --html FILE */
	long jobs;
	int several;                    /* more than one FILE: prefix text lines with it */
	int accept_incomplete;          /* verdicts on incomplete traces' events present */
	struct outcome_names *outcomes; /* with --summary: every outcome seen */
	/* VSC_KEEP_EXECUTIONS=1: keep every execution whole, as when files
	 * were parsed whole (tests compare the reports of the two ways) */
	int keep_executions;
	struct witness_spill *spill; /* the witnesses of executions let go */
};

/* check_decide.c: deciding, and what was decided */
const char *verdict_name(int status);
/* present_status of an execution left undecided (check_stream.c) */
#define PRESENT_NOT_DECIDED (-1)
/* What the events present gave: a verdict's name, or "not decided". */
const char *present_name(int present_status);
/* Decide one execution (by --deadline, 0: none); path names it in messages. */
void check_decide_item(struct item *it, const struct check_args *a, double deadline,
		       const char *path);
/* Once decided: what the reports need of it into it->facts (its name the
 * program's; with --summary the outcome into a->outcomes). 0 or -ENOMEM. */
int check_note_facts(struct item *it, const struct check_args *a);
/* The file's name in messages, as the parser's own messages give it. */
const char *check_shown_path(const struct file_report *f);
/* A file whose completeness is known: checked, and its verdicts withheld
 * when it is not whole (or, cut short, dropped with exit status 2). */
void check_finish_file(struct file_report *f, const struct check_args *a);
/* check_nowhere.c: does prog read a value that no recorded event wrote
 * and that cannot be its variable's initial value (an unrecorded writer)?
 * 1 with the reason at why, 0 no, -ENOMEM. */
int check_find_nowhere(const struct vsc_program *prog, char *why, size_t len);

/* item_list.c. Its executions kept: a whole one (with its program, result,
 * core or prefix) is taken over, another one's facts are copied (its name
 * too). 0 or -ENOMEM. */
int item_list_add(struct item_list *l, const struct item *it);
void item_list_free(struct item_list *l, void (*free_item)(struct item *it));
/* for (items_begin(&c, f); (it = items_next(&c));): each execution of f in
 * input order, the whole one itself or a copy of the other that lasts
 * until the next call (a change of its verdict (withheld) is kept). */
void items_begin(struct item_cursor *c, const struct file_report *f);
struct item *items_next(struct item_cursor *c);
/* Where the item last given lies: item_at_record gives it again (the copy
 * in scratch, or the whole one). */
const void *items_record(const struct item_cursor *c);
const struct item *item_at_record(const struct file_report *f, const void *record,
				  struct item *scratch);
/* Its first execution, NULL when none. */
const struct item *items_first(const struct file_report *f, struct item *scratch);

/* check_stream.c: read every file and decide its executions as they are
 * read, on a->jobs threads; only what the reports need is kept. */
void check_read_and_decide(struct file_report *files, size_t nfiles, const struct check_args *a);
/* Let go of a file's executions. */
void check_free_items(struct file_report *f);
/* The status of several executions or files. */
int check_combine_status(int so_far, int next);
/* Does anything asked for need the minimal cores? */
bool check_wants_core(const struct check_args *a);
/* Of every inconsistent execution (--explain, --core-out), not only of the
 * few --svg and --html show: those are explained as they are let out
 * (check_stream.c), the others not at all. */
bool check_wants_every_core(const struct check_args *a);
/* An inconsistent execution's core (and with --html its violating prefix),
 * within --deadline (0: none), from its program and result. */
void check_explain_item(struct item *it, const struct check_args *a, double deadline);
/* The verdict an item's details are about: the events present's when its
 * verdict is withheld. */
int item_shown_status(const struct item *it);
/* An unknown --min that found an interleaving: the least preemptions lie in
 * [*lo, *hi] (the witness has *hi). */
bool item_least_bounds(const struct item *it, long *lo, long *hi);
long item_least_at_least(const struct item *it);

/* the reports of one FILE: check_text.c, check_json.c; *_unread: a file
 * whose reading a limit stopped (unknown, nothing else known) */
void check_text_file(const struct file_report *f, const struct check_args *a);
void check_text_unread(const struct file_report *f, const struct check_args *a);
void check_json_file(struct json *j, const struct file_report *f, const struct check_args *a);
void check_json_unread(struct json *j, const struct file_report *f);
/* the witness of a result in text (each line after indent), in JSON */
void text_witness(FILE *out, const struct vsc_program *prog, const struct vsc_result *res,
		  const char *indent);
void json_witness_array(struct json *j, const struct vsc_program *prog,
			const struct vsc_result *res);

/* the comments of the lines the cores name (with html: of every event the
 * page shows), read in one pass per file */
void notes_load(struct file_report *f, bool html);
const char *notes_find(const struct line_notes *notes, uint32_t line);
void notes_free(struct line_notes *notes);
/* The same for one execution at a time, its file read forward once for
 * executions in input order (check_stream.c): the comments its story
 * cites are those notes_load would give it. NULL: standard input, or the
 * file cannot be read (no comments then, as with notes_load). */
struct notes_reader;
struct notes_reader *notes_reader_open(const char *path);
void notes_reader_close(struct notes_reader *r);
/* The comments of the lines its core (with html: its page) names; NULL
 * when none, or out of memory. */
struct line_notes *notes_of_item(struct notes_reader *r, const struct item *it, bool html);

/* order of event refs: by thread, then index (qsort/bsearch) */
int event_ref_compare(const void *a, const void *b);
/* The core's events and `around` neighbours on each side in their threads,
 * sorted and distinct, into a new array; 0 or -1 (out of memory). A core
 * of more than PICTURE_MAX_CORE events (one a limit stopped before it was
 * shrunk: 10^6 events drew a 168 MB picture) gives the events of the first
 * PICTURE_MAX_CYCLE steps of its cycle alone; the pictures and the page
 * draw those steps only. */
#define PICTURE_MAX_CORE 500
#define PICTURE_MAX_CYCLE 250
int core_neighbourhood(const struct item *it, size_t around, struct vsc_event_ref **out,
		       size_t *count);

/* explanation: text story, one-line brief, JSON keys; each lists the
 * justifications of justifications down to so many levels (the --svg
 * picture draws as many) */
#define STORY_WHY_DEPTH 3
/* A step the explanation lists: the cycle's (depth 0), numbered 1, 2, ...,
 * and those of the chains that force them, numbered under them (2.1, then
 * 2.1.1), in the text's order. */
struct story_step {
	const struct vsc_order *order; /* the core's (vsc_core_order_why takes it) */
	unsigned depth;
	char number[40];
};
/* The steps a picture draws, into a new array (NULL when out of memory):
 * the cycle's first PICTURE_MAX_CYCLE and their chains while there is
 * room, PICTURE_MAX_STEPS in all, in the text's order; *count how many,
 * *listed how many the text lists. */
#define PICTURE_MAX_STEPS 1000
struct story_step *story_steps(const struct vsc_core *core, size_t *count, size_t *listed);
/* core_neighbourhood, and the events of the n steps too (a core too big
 * to show whole shows its cycle's alone). */
int picture_events(const struct item *it, size_t around, const struct story_step *steps, size_t n,
		   struct vsc_event_ref **out, size_t *count);
void story_event(const struct vsc_program *p, struct vsc_event_ref r, char *out, size_t len);
void story_describe(const struct line_notes *notes, const struct vsc_program *p,
		    struct vsc_event_ref r, char *out, size_t len);
/* The bound its checks had (-p N), or -1 when none: a core is inconsistent
 * on its own within it, and may be consistent without it, so the text and
 * --core-out name it. */
long story_bound(const struct check_args *a);
/* (to out; each line begins with indent; bound as story_bound) */
void story_print(FILE *out, const struct line_notes *notes, const struct item *it, long bound,
		 const char *indent);
void story_brief(FILE *out, const struct item *it, const char *indent);
/* Whether the core is a proof, in a few words (docs/explain.md). */
const char *story_proof(const struct vsc_core *core);
/* Why an inconsistent item has no core: "the time limit came first", or
 * the error (out of memory, ...). */
const char *story_no_core(const struct item *it);
void story_json(struct json *j, const struct item *it);

/* --core-out: every core as a standalone trace (a segment each when there
 * are several); 0 or -1 with errno. a->spill holds the cores of the
 * executions let go (core_out_render). */
int core_out_write(const char *path, const struct file_report *files, size_t nfiles,
		   const struct check_args *a);
/* Its core as core_out_write writes it, but for the segment line (which
 * depends on how many there are): into out, its comments from notes;
 * bound as story_bound. */
void core_out_render(FILE *out, const char *path, const struct line_notes *notes,
		     const struct item *it, long bound);

/* --html: one self-contained page (html.c, html_page.c) */
int html_write(const char *path, const struct file_report *files, size_t nfiles);
/* the events the page shows of it, in a new array (NULL when none); 0 or -1 */
int html_shown_events(const struct item *it, struct vsc_event_ref **events, size_t *count);
/* the violating prefix of an item with a core (prefix.c); 0 or -errno */
int prefix_find(const struct item *it, double deadline, struct html_prefix **out);
void prefix_free(struct html_prefix *pre);

/* one SVG picture of an item: witness lanes, or the core with its orders */
int svg_write(const char *path, const struct item *it, const char *title);

/* --svg over every file (check_pictures.c): at most SVG_MAX_PICTURES
 * pictures, the inconsistent executions first; the page of --html shows
 * at most HTML_MAX_EXECUTIONS executions, the same way */
#define SVG_MAX_PICTURES 100
#define HTML_MAX_EXECUTIONS 50
/* The executions of the files that were read. */
size_t check_execution_count(const struct file_report *files, size_t nfiles);
/* Of each file, how many executions that are not inconsistent, the first
 * in input order, a picture or the page may show: kept whole. */
size_t check_pictured_max(const struct check_args *a);
/* Before any verdict is printed: 1 when every picture file can be written,
 * else 0 (and a message). */
int check_pictures_writable(const struct file_report *files, size_t nfiles, const char *svg);
/* Draw them; 0, or exit status 2 when a picture could not be written. */
int check_draw_pictures(const struct file_report *files, size_t nfiles, const char *svg);

/* the lab-run table over every item of every file */
void summary_print(const struct file_report *files, size_t nfiles, const struct check_args *a);

#endif
