/* SPDX-License-Identifier: MIT */
/*
 * libvsc: decide whether an observed execution is sequentially consistent,
 * and with how few preemptions.
 *
 * Conventions (as in libbpf): every public name starts with vsc_; handles are
 * opaque; constructors return NULL and set errno on failure; other functions
 * return 0 or a negative errno; *_free() accepts NULL; options structs start
 * with their size so they can grow (use VSC_OPTS to declare one).
 */
#ifndef VSC_VSC_H
#define VSC_VSC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* libvsc is built with -fvisibility=hidden: what this header declares is the
 * API, and userspace/lib/libvsc.map lists the same names. */
#pragma GCC visibility push(default)

#define VSC_VERSION "0.1.0"

/* Declare an options struct with its size filled in:
 *   VSC_OPTS(vsc_check_opts, opts, .preemptions = 2, .minimize = true);
 * Every function reads options by one rule (libbpf's): NULL means defaults;
 * a program built against an older, shorter struct gets the fields it set
 * used and the newer ones defaulted; one built against a newer struct gets
 * -EINVAL (or NULL and errno EINVAL) if it set a field this library does not
 * know; a size smaller than the size field is -EINVAL too. */
#define VSC_OPTS(TYPE, NAME, ...) struct TYPE NAME = { .sz = sizeof(struct TYPE), __VA_ARGS__ }

struct vsc_trace;   /* a parsed file: one or more executions (segments) */
struct vsc_program; /* one execution: threads of events */
struct vsc_result;  /* the answer of vsc_check() */

enum vsc_kind {
	VSC_READ = 0,  /* reads value */
	VSC_WRITE = 1, /* writes value */
	VSC_RMW = 2,   /* reads value, writes new_value, indivisibly */
};

enum vsc_init {
	VSC_INIT_NONE = 0,    /* no initial value: a read needs a write first */
	VSC_INIT_KNOWN = 1,   /* init x 5 */
	VSC_INIT_UNKNOWN = 2, /* init x ? */
};

enum vsc_verdict {
	VSC_CONSISTENT = 0,
	VSC_INCONSISTENT = 1,
	VSC_UNKNOWN = 3, /* a limit stopped the search; the numbers match exit codes */
};

struct vsc_event {
	uint32_t kind;     /* enum vsc_kind */
	uint32_t var;      /* index into the program's variables */
	int64_t value;     /* value read or written; for RMW the old value */
	int64_t new_value; /* RMW only: the value written */
};

/* ---- parsing ---------------------------------------------------------- */

/* Called once per problem found in the input, with a whole message of the
 * form "FILE:LINE:COL: what is wrong" (no newline). */
typedef void (*vsc_error_fn)(void *ctx, const char *message);

/* Receives a progress line (no newline) during long work. */
typedef void (*vsc_progress_fn)(void *ctx, const char *line);

/* Receives one execution of a trace as soon as it is read whole (at the
 * next `segment` line, or at the end of the input) and owns it from then
 * on (vsc_program_free). Returns 0, or a negative errno to stop reading:
 * the parse then returns NULL with that errno. */
typedef int (*vsc_program_fn)(void *ctx, struct vsc_program *prog);

struct vsc_parse_opts {
	size_t sz;
	const char *filename;  /* used in messages; default "<input>" */
	vsc_error_fn on_error; /* NULL: messages are not reported (the library
				* never prints); the NULL return still says why */
	void *error_ctx;
	unsigned max_errors; /* stop after this many messages; 0 means 20 */
	double timeout_s;    /* give up reading and parsing after this (ETIME); 0: none */
	bool progress;       /* report progress while reading and parsing */
	/* With progress: called about once a second with a line such as
	 * "reading big.vsc: 3 s, 2400000 lines, 31 of 140 MB" (no newline). */
	vsc_progress_fn on_progress;
	void *progress_ctx;
	/* Keep no line number per event (vsc_program_event_line() returns 0):
	 * 4 bytes per event less, for a caller that cites no event by its
	 * line. Messages about bad input still give their lines. */
	bool no_event_lines;
	/* Hand each execution to on_program instead of keeping it in the
	 * trace, so that a file of many segments is decided segment by segment
	 * in the memory of one. The trace returned then holds no program
	 * (vsc_trace_program_count() is 0), only what the whole file says
	 * (completeness, lost events). No execution is handed over after the
	 * first error in the input; the caller drops those it was given when
	 * the parse returns NULL. */
	vsc_program_fn on_program;
	void *program_ctx;
};

/* Parse a file ("-" reads standard input). On bad input, reports every
 * problem through on_error and returns NULL with errno EINVAL; on I/O
 * trouble returns NULL with the errno of the failure (ENOENT, EISDIR...);
 * past opts->timeout_s (waiting on a pipe or FIFO that never ends, say)
 * returns NULL with errno ETIME. */
struct vsc_trace *vsc_trace_parse_file(const char *path, const struct vsc_parse_opts *opts);
struct vsc_trace *vsc_trace_parse_buffer(const char *buf, size_t len,
					 const struct vsc_parse_opts *opts);
struct vsc_trace *vsc_trace_parse_stream(FILE *stream, const struct vsc_parse_opts *opts);
void vsc_trace_free(struct vsc_trace *trace);

/* A file without `segment` lines holds exactly one program. */
size_t vsc_trace_program_count(const struct vsc_trace *trace);
const struct vsc_program *vsc_trace_program(const struct vsc_trace *trace, size_t index);
/* Number of `# lost events: N` style loss reported in the header comments of
 * a recorded trace (0 when none is reported). */
uint64_t vsc_trace_lost_events(const struct vsc_trace *trace);

/* ---- recorded traces: are they whole? -------------------------------- */

/* A recorded trace says in comment lines how many events it holds, how many
 * were lost and how many values were not observed exactly, and ends with
 * `# end of trace: events=N lost=L uncertain=U` (docs/format.md, "Recorded
 * traces"). A verdict on a trace that is not whole is a verdict on the
 * events present only, not on what the program did. */
enum vsc_trace_state {
	VSC_TRACE_WHOLE = 0,      /* nothing lost or uncertain is reported */
	VSC_TRACE_INCOMPLETE = 1, /* events lost (or a loss count not exact) or
				   * values not observed exactly */
	VSC_TRACE_CUT_SHORT = 2,  /* a recorded trace without its end-of-trace
				   * line, or with another number of events */
};

struct vsc_trace_completeness {
	size_t sz;
	/* enum vsc_trace_state */
	uint32_t state;
	/* has a `# events:` header or an end-of-trace line */
	bool recorded;
	/* ends with a well-formed `# end of trace:` line */
	bool has_trailer;
	/* event lines in the file (every segment) */
	uint64_t events;
	/* the trailer's count (else the header's, else events) */
	uint64_t events_expected;
	/* the largest loss any count reports */
	uint64_t lost;
	/* false: `at least`, or a count that could not be read */
	bool lost_exact;
	/* values not observed exactly: the largest of the counts and the
	 * number of event lines marked `value unsure` */
	uint64_t uncertain;
	/* the `# loss mode:` word ("block", "drop"), or NULL */
	const char *loss_mode;
	/* state != VSC_TRACE_WHOLE: one sentence saying why, no newline; ""
	 * otherwise. Valid as long as the trace is. */
	const char *why;
	/* thread ids that may each stand for several threads (`# uncertain
	 * threads: N`: a converter could not exclude an id used again) */
	uint64_t uncertain_threads;
	/* objects the target maps shared that processes outside the
	 * recording may write (`# uncertain memory: N`, docs/format.md) */
	uint64_t uncertain_memory;
	/* every uncertain value is on a line marked `value unsure` that one
	 * execution holds (an event line, an init line of a segment): an
	 * execution whose vsc_program_unsure_values() is 0 has none. false
	 * when a count is more than the marks or cannot be read, or a mark is
	 * on a line every execution shares (an init line before the first
	 * segment). */
	bool uncertain_placed;
};

/* Fill *out (set out->sz first, e.g. with VSC_OPTS; fields beyond it are
 * left alone). Returns 0, or -EINVAL when an argument is NULL or out->sz is
 * too small to hold state. */
int vsc_trace_completeness(const struct vsc_trace *trace, struct vsc_trace_completeness *out);

/* ---- the program model ------------------------------------------------ */

/* Segment name, or NULL for a program that is not a named segment. */
const char *vsc_program_name(const struct vsc_program *prog);
size_t vsc_program_thread_count(const struct vsc_program *prog);
const char *vsc_program_thread_name(const struct vsc_program *prog, size_t thread);
size_t vsc_program_thread_length(const struct vsc_program *prog, size_t thread);
/* The thread's events. A parsed program keeps them in a smaller form of
 * its own until they are first asked for (here, or by a solver other than
 * the first greedy run of vsc_check): this call then makes the arrays
 * (safe from several threads), and returns NULL when there is no memory
 * for them. */
const struct vsc_event *vsc_program_events(const struct vsc_program *prog, size_t thread);
size_t vsc_program_event_count(const struct vsc_program *prog);
size_t vsc_program_var_count(const struct vsc_program *prog);
const char *vsc_program_var_name(const struct vsc_program *prog, size_t var);
/* Returns enum vsc_init; *value is set for VSC_INIT_KNOWN. */
int vsc_program_var_init(const struct vsc_program *prog, size_t var, int64_t *value);
/* The largest number of threads that write one variable. */
size_t vsc_program_writers(const struct vsc_program *prog);
/* Its lines (events, its own init lines) marked `value unsure` in the trace
 * it was read from (docs/format.md); 0 for a program built by hand. */
size_t vsc_program_unsure_values(const struct vsc_program *prog);
/* Timestamp hint (@ts) of an event, or 0 when the trace has none. */
uint64_t vsc_program_event_ts(const struct vsc_program *prog, size_t thread, size_t index);
/* Line of the trace file the event came from (0 if built by the API). */
uint32_t vsc_program_event_line(const struct vsc_program *prog, size_t thread, size_t index);

/* Build a program without a file (generators, tests, explanations). */
struct vsc_program *vsc_program_new(void);
void vsc_program_free(struct vsc_program *prog);
/* Returns the thread index (>= 0) or a negative errno. */
int vsc_program_add_thread(struct vsc_program *prog, const char *name);
/* Returns the variable index (>= 0) or a negative errno. */
int vsc_program_add_var(struct vsc_program *prog, const char *name);
int vsc_program_set_init(struct vsc_program *prog, size_t var, enum vsc_init init, int64_t value);
int vsc_program_append(struct vsc_program *prog, size_t thread, const struct vsc_event *ev,
		       uint64_t ts);
/* Write the program in the text format (init lines, then events thread by
 * thread). */
int vsc_program_write(const struct vsc_program *prog, FILE *out);

/* ---- checking --------------------------------------------------------- */

struct vsc_check_opts {
	size_t sz;
	bool bounded;              /* false (the zero default): no bound on preemptions */
	unsigned long preemptions; /* with bounded: at most this many */
	bool minimize;             /* find the least number of preemptions */
	bool want_witness;         /* fill in the witness */
	double timeout_s;          /* 0: no limit */
	const char *solver;        /* "auto" (NULL), "exact", or another solver's name */
	size_t memory_limit;       /* bytes of search state; 0: a default (half of RAM) */
	bool progress;             /* report progress on long work to on_progress */
	/* With progress: called about once a second with a line such as
	 * "12s, 409600 steps" (no newline); NULL: progress goes nowhere. */
	vsc_progress_fn on_progress;
	void *progress_ctx;
	/* Keep, in an inconsistent result, what the verdict learnt about prog
	 * (its analysis: memory in proportion to prog), so that
	 * vsc_explain_result() does not make it again. */
	bool keep_for_explain;
	/* The auto solver splits an execution into independent parts (threads
	 * that share no variable): up to this many threads decide them at once,
	 * the caller's among them; 0 or 1: one after the other. The answer,
	 * witness and counts are the same for every value; the timeout and
	 * memory_limit bound all the threads together. */
	unsigned jobs;
};

/* Decide prog. Returns 0 and a result (verdict may be VSC_UNKNOWN: the
 * timeout, the memory limit or an allocation failing while solving stopped
 * it), or a negative errno (-EINVAL for bad options or a solver that does not
 * apply to prog, -E2BIG for a program too large for that solver, -ENOMEM
 * before any solving, -ENOENT for an unknown solver name). */
int vsc_check(const struct vsc_program *prog, const struct vsc_check_opts *opts,
	      struct vsc_result **result);

enum vsc_verdict vsc_result_verdict(const struct vsc_result *res);
/* Preemptions of the witness found (with minimize, the least possible);
 * -1 when inconsistent or unknown. */
long vsc_result_preemptions(const struct vsc_result *res);
/* The witness: *threads gets an array of thread indices, one per event, in
 * interleaving order (the i-th time thread t appears is its event i).
 * Returns the length, 0 when there is none. */
size_t vsc_result_witness(const struct vsc_result *res, const uint32_t **threads);
/* Name of the solver that decided. */
const char *vsc_result_solver(const struct vsc_result *res);
/* Seconds spent deciding. */
double vsc_result_time(const struct vsc_result *res);
/* The search's own counts, for tuning: nodes it expanded and steps it took
 * (the auto solver keeps them; 0 from solvers that keep none). */
uint64_t vsc_result_nodes(const struct vsc_result *res);
uint64_t vsc_result_steps(const struct vsc_result *res);
/* What the auto solver's exact reductions took away before searching
 * (docs/solvers.md, "Reductions"): reads collapsed into the identical read
 * just before them (spins), events of variables that cannot matter, and
 * the independent parts the rest was split into (0: not split). */
struct vsc_reductions {
	uint64_t spins, dropped, parts;
};
void vsc_result_reductions(const struct vsc_result *res, struct vsc_reductions *out);
/* Of those parts, how many ran out of memory (the memory limit) before
 * their answer: the verdict is inconsistent when another part is (or, with
 * a bound, their least preemptions proven add up past it), else unknown;
 * with minimize the least proven of every part adds up. 0 when none. */
uint64_t vsc_result_parts_out_of_memory(const struct vsc_result *res);
/* With minimize, when a limit stopped the search (verdict unknown) after an
 * interleaving was found: the least preemptions lie in [*lower, *upper]; the
 * result's witness is an SC interleaving with *upper preemptions. Returns 0,
 * or -1 when there are no such bounds. */
int vsc_result_least_bounds(const struct vsc_result *res, long *lower, long *upper);
/* When a limit stopped the search (verdict unknown), whether or not an
 * interleaving was found: no SC interleaving has fewer than the returned
 * number of preemptions (a bound that failed, the stops every interleaving
 * must make; with minimize, vsc_result_least_bounds()'s lower when there
 * is a witness). -1 when nothing above 0 is proven, or the verdict is not
 * unknown. */
long vsc_result_least_at_least(const struct vsc_result *res);
void vsc_result_free(struct vsc_result *res);

/* The verdict of executions decided apart (the segments of a trace, or
 * several traces), by the rule vsc check reports: unknown when any is
 * unknown, else inconsistent when any is, else consistent. Fold a list
 * from VSC_CONSISTENT. */
enum vsc_verdict vsc_verdict_combine(enum vsc_verdict so_far, enum vsc_verdict next);

/* ---- explanations ----------------------------------------------------- */

/* An event of a program: its thread and its index in that thread. */
struct vsc_event_ref {
	uint32_t thread;
	uint32_t index;
};

enum vsc_order_kind {
	VSC_ORDER_PROGRAM = 0,     /* program order */
	VSC_ORDER_READS_FROM = 1,  /* the only write a read can see comes first */
	VSC_ORDER_READ_FIRST = 2,  /* a read must come before a write that would hide its value */
	VSC_ORDER_WRITE_FIRST = 3, /* a write must come before the write a read sees */
};

/* A forced order: `before` must come before `after` in every SC
 * interleaving of the core. */
struct vsc_order {
	struct vsc_event_ref before;
	struct vsc_event_ref after;
	uint32_t kind;             /* enum vsc_order_kind */
	struct vsc_event_ref read; /* the read that forces it (not for program order) */
};

struct vsc_core;

/* For an inconsistent program (under opts' bound): a minimal inconsistent
 * core, a subset of its events (program order kept) that is itself
 * inconsistent under the same bound, in which every read keeps a possible
 * source (a write of its value, or an initial value that may be it; the
 * only exception is a read of a value nothing in prog writes), and from
 * which no single event can be removed keeping both. Found around the cycle
 * of forced orders that refutes prog when there is one, so the time grows
 * with the core, not with prog. Returns -EINVAL when prog is consistent,
 * -ETIME when a limit stopped the first check. When a later limit stops the
 * shrinking, the core is still inconsistent but may not be minimal. */
int vsc_explain(const struct vsc_program *prog, const struct vsc_check_opts *opts,
		struct vsc_core **core);
/* vsc_explain() for the inconsistent result of vsc_check(prog, opts) with
 * keep_for_explain set: what the verdict kept is used instead of a second
 * pass over prog (at 10^7 events, seconds), then freed (result keeps its
 * verdict, witness and counts). The same answers as vsc_explain(); without
 * anything kept (keep_for_explain unset, another prog, or a verdict that
 * needed no analysis) it is vsc_explain(). -EINVAL when result is not
 * inconsistent. */
int vsc_explain_result(const struct vsc_program *prog, struct vsc_result *result,
		       const struct vsc_check_opts *opts, struct vsc_core **core);
/* The core's events, sorted by thread and index (of prog). */
size_t vsc_core_events(const struct vsc_core *core, const struct vsc_event_ref **events);
/* The same events as vsc_core_events (kept for older callers: the core
 * itself now keeps each read's possible sources). */
size_t vsc_core_context(const struct vsc_core *core, const struct vsc_event_ref **events);
/* A cycle of forced orders among the core's events, when one was found
 * (the usual reason); 0 when the reason is subtler (e.g. the bound). */
size_t vsc_core_cycle(const struct vsc_core *core, const struct vsc_order **orders);
/* Why an order of the cycle (or of a justification) is forced, as a chain
 * of orders: for read-before-overwrite, the path from the read's source to
 * the write (none when the read sees the initial value); for
 * write-before-source, the path from the write to the read; then, for each
 * other write of the read's value, the path from the read to it (it comes
 * later, so it is no source). Program order needs none. Returns the length
 * (0 when none, or for a pointer not from this core). */
size_t vsc_core_order_why(const struct vsc_core *core, const struct vsc_order *order,
			  const struct vsc_order **why);
bool vsc_core_is_minimal(const struct vsc_core *core);
/* Whether the core proves the execution inconsistent: 1 when the core with
 * every write the execution offers its reads (their own thread's last write
 * of the variable before them, and every other thread's write of the value
 * that orders holding in every SC interleaving do not rule out:
 * docs/explain.md, "Proof or not") is still inconsistent, 0 when that is
 * consistent (the core then holds only for the writes it keeps), -1 when
 * not known (too many such writes, or a limit). events: how many events
 * that closure has. */
int vsc_core_proof(const struct vsc_core *core, size_t *events);
void vsc_core_free(struct vsc_core *core);
/* The source rule a core keeps for its reads (docs/explain.md): whether
 * the read `read` of prog (a read, or an RMW's read) may see `write` in some
 * interleaving, as far as program order goes. write must write the value
 * read to the same variable, and be another thread's write or the read's
 * own thread's last write of the variable before it. write NULL asks about
 * the initial value: the read's thread writes the variable nowhere before
 * it, and the initial value may be the value read (`init x v`, `init x ?`).
 * false when read is not a read of prog. A core keeps, for each read, at
 * least one source this allows. */
bool vsc_read_may_see(const struct vsc_program *prog, struct vsc_event_ref read,
		      const struct vsc_event_ref *write);

/* A new program made of the given events of prog (program order kept,
 * initial values kept, thread names kept). */
struct vsc_program *vsc_program_subset(const struct vsc_program *prog,
				       const struct vsc_event_ref *events, size_t count);

/* Write the SAT encoding of "is prog SC with no preemption?" in DIMACS
 * (satisfiable exactly when it is). Returns 0 or a negative errno (-E2BIG
 * beyond 1500 threads). */
int vsc_encode_dimacs(const struct vsc_program *prog, FILE *out);

/* Names of available solvers, NULL-terminated. */
const char *const *vsc_solver_names(void);

/* Check an interleaving on its own, by a path that shares nothing with the
 * solvers: every event exactly once, program order kept, every read sees the
 * last write (or the initial value), as CONTRACT.md section 2 defines.
 * Returns 0 and sets *preemptions, or -EINVAL and (when why is not NULL)
 * a short reason in why[0..why_len). */
int vsc_witness_verify(const struct vsc_program *prog, const uint32_t *threads, size_t length,
		       long *preemptions, char *why, size_t why_len);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* VSC_VSC_H */
