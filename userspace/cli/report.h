/* SPDX-License-Identifier: MIT */
/* What `vsc check` decided, and the ways it is shown: text, JSON, the
 * explanation story, SVG pictures, and the lab-run summary. */
#ifndef VSC_CLI_REPORT_H
#define VSC_CLI_REPORT_H

#include "json.h"
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

struct item {
	const struct vsc_program *prog;
	struct vsc_result *res;     /* NULL when deciding failed */
	struct vsc_core *core;      /* with --explain/--svg, for inconsistent ones */
	int core_err;               /* why there is no core (negative errno) */
	int status;                 /* exit status of this execution */
	int present_status;         /* with withheld: what the events present gave */
	bool withheld;              /* the trace is incomplete: status is unknown */
	struct html_prefix *prefix; /* with --html, inconsistent: its violating prefix */
};

struct line_notes; /* trailing comments of the lines explanations name */

struct file_report {
	const char *path;
	struct line_notes *notes; /* with --explain and friends, once decided */
	struct vsc_trace *trace;  /* NULL when it could not be parsed */
	struct item *items;
	size_t count;
	int status;
	int segmented;                      /* has `segment` lines: report per segment */
	double deadline;                    /* of --timeout, set when its first item starts */
	struct vsc_trace_completeness comp; /* is the recorded trace whole? */
	int present_status;                 /* with a withheld verdict: the events present's */
	double read_s;            /* seconds spent reading and parsing, out of --timeout */
	const char *read_stopped; /* the limit that stopped reading: nothing decided */
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
	int several;           /* more than one FILE: prefix text lines with it */
	int accept_incomplete; /* verdicts on incomplete traces' events present */
};

/* check_decide.c: reading, deciding, and what was decided */
const char *verdict_name(int status);
/* Parse FILE and check that a recorded trace is whole; -1 when there is
 * nothing to decide (f->status says why). */
int check_load(struct file_report *f, const struct check_args *a);
/* Decide every item of every file, with a->jobs workers. */
void check_decide_all(struct file_report *files, size_t nfiles, const struct check_args *a);
/* The executions of the files that were read. */
size_t check_execution_count(const struct file_report *files, size_t nfiles);
/* An incomplete trace's verdicts become unknown unless accepted. */
void check_withhold(struct file_report *f, const struct check_args *a);
/* The status of several executions or files. */
int check_combine_status(int so_far, int next);
/* Does anything asked for need the minimal cores? */
bool check_wants_core(const struct check_args *a);
/* The verdict an item's details are about: the events present's when its
 * verdict is withheld. */
int item_shown_status(const struct item *it);
/* An unknown --min that found an interleaving: the least preemptions lie in
 * [*lo, *hi] (the witness has *hi). */
bool item_least_bounds(const struct item *it, long *lo, long *hi);

/* the reports of one FILE: check_text.c, check_json.c; *_unread: a file
 * whose reading a limit stopped (unknown, nothing else known) */
void check_text_file(const struct file_report *f, const struct check_args *a);
void check_text_unread(const struct file_report *f, const struct check_args *a);
void check_json_file(struct json *j, const struct file_report *f, const struct check_args *a);
void check_json_unread(struct json *j, const struct file_report *f);

/* the comments of the lines the cores name (with html: of every event the
 * page shows), read in one pass per file */
void notes_load(struct file_report *f, bool html);
const char *notes_find(const struct line_notes *notes, uint32_t line);
void notes_free(struct line_notes *notes);

/* order of event refs: by thread, then index (qsort/bsearch) */
int event_ref_compare(const void *a, const void *b);
/* The core's events and `around` neighbours on each side in their threads,
 * sorted and distinct, into a new array; 0 or -1 (out of memory). */
int core_neighbourhood(const struct item *it, size_t around, struct vsc_event_ref **out,
		       size_t *count);

/* explanation: text story, one-line brief, JSON keys */
void story_event(const struct vsc_program *p, struct vsc_event_ref r, char *out, size_t len);
void story_describe(const struct file_report *f, const struct vsc_program *p,
		    struct vsc_event_ref r, char *out, size_t len);
void story_print(const struct file_report *f, const struct item *it, const char *indent);
void story_brief(const struct item *it, const char *indent);
void story_json(struct json *j, const struct item *it);

/* --core-out: every core as a standalone trace (a segment each when there
 * are several); 0 or -1 with errno */
int core_out_write(const char *path, const struct file_report *files, size_t nfiles);

/* --html: one self-contained page (html.c, html_page.c) */
int html_write(const char *path, const struct file_report *files, size_t nfiles);
/* the events the page shows of it, in a new array (NULL when none); 0 or -1 */
int html_shown_events(const struct item *it, struct vsc_event_ref **events, size_t *count);
/* the violating prefix of an item with a core (prefix.c); 0 or -errno */
int prefix_find(const struct item *it, struct html_prefix **out);
void prefix_free(struct html_prefix *pre);

/* one SVG picture of an item: witness lanes, or the core with its orders */
int svg_write(const char *path, const struct item *it, const char *title);

/* the lab-run table over every item of every file */
void summary_print(const struct file_report *files, size_t nfiles, const struct check_args *a);

#endif
