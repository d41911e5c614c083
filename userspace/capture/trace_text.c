/* SPDX-License-Identifier: MIT */
/* The text side of the trace writer (see trace_text.h). */
#include "trace_text.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "trace_names.h"

#define IO_BUF (1u << 20)

/* ---- destinations ------------------------------------------------------ */

static void keep_error(struct trace_text *t, int err)
{
	if (!t->err)
		t->err = err ? err : -EIO;
}

/* An unnamed file in dir (NULL: $TMPDIR or /tmp) for the event lines. */
static FILE *open_spill(const char *dir)
{
	char path[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	if (!dir)
		dir = tmp && *tmp ? tmp : "/tmp";
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) { /* no O_TMPFILE on this file system: a name, unlinked at once */
		snprintf(path, sizeof(path), "%s/.vsc-trace-XXXXXX", dir);
		fd = mkostemp(path, O_CLOEXEC);
		if (fd < 0)
			return NULL;
		unlink(path);
	}
	FILE *f = fdopen(fd, "w+");
	if (!f)
		close(fd);
	return f;
}

/* The directory of path, into buf. */
static const char *dir_of(const char *path, char *buf, size_t len)
{
	snprintf(buf, len, "%s", path);
	return dirname(buf);
}

static int set_buffers(struct trace_text *t)
{
	t->body_buf = malloc(IO_BUF);
	if (!t->body_buf)
		return -ENOMEM;
	setvbuf(t->body, t->body_buf, _IOFBF, IO_BUF);
	return 0;
}

/* Stream or spill, by what out is: a regular file can take the header at
 * the end; a pipe, a terminal or a memory stream cannot. */
static int choose_body(struct trace_text *t, const char *spill_dir)
{
	struct stat st;
	int fd = t->out ? fileno(t->out) : -1;
	if (t->out && (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		t->streaming = true;
		t->body = t->out;
		return 0;
	}
	char dir[PATH_MAX];
	if (!spill_dir && fd >= 0) {
		/* standard output sent to a file: spill next to that file */
		char link[64], target[PATH_MAX];
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		if (n > 0 && target[0] == '/') {
			target[n] = '\0';
			spill_dir = dir_of(target, dir, sizeof(dir));
		}
	}
	t->body = open_spill(spill_dir);
	if (!t->body && spill_dir)
		t->body = open_spill(NULL);
	if (!t->body)
		return -errno;
	return set_buffers(t);
}

int trace_text_open_stream(struct trace_text *t, FILE *out)
{
	memset(t, 0, sizeof(*t));
	t->out = out;
	return choose_body(t, NULL);
}

/* Only a regular file is ours to restrict: `-o /dev/null` as root must not
 * make /dev/null 0600 for everyone. */
static int restrict_mode(int fd)
{
	struct stat st;
	if (fstat(fd, &st) || (S_ISREG(st.st_mode) && fchmod(fd, 0600)))
		return -errno;
	return 0;
}

static FILE *fdopen_or_close(int fd)
{
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int err = errno;
		close(fd);
		errno = err;
	}
	return f;
}

FILE *trace_text_open_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	int err = restrict_mode(fd);
	if (err) {
		close(fd);
		errno = -err;
		return NULL;
	}
	return fdopen_or_close(fd);
}

/* Open path for writing without touching what it holds yet: a recording
 * refused later leaves an existing file as it was (and removes a new one). */
static int open_destination(struct trace_text *t, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	t->created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	t->path = strdup(path);
	t->out = t->path ? fdopen_or_close(fd) : NULL;
	if (!t->out) {
		if (t->path)
			return -errno;
		close(fd);
		return -ENOMEM;
	}
	t->own_out = true;
	t->out_buf = malloc(IO_BUF);
	if (t->out_buf)
		setvbuf(t->out, t->out_buf, _IOFBF, IO_BUF);
	return 0;
}

/* Now the destination's old content goes, and its mode becomes 0600. */
static int claim_destination(struct trace_text *t)
{
	if (!t->path || t->claimed)
		return 0;
	t->claimed = true;
	struct stat st;
	int fd = fileno(t->out);
	if (fstat(fd, &st))
		return -errno;
	if (S_ISREG(st.st_mode) && ftruncate(fd, 0))
		return -errno;
	return restrict_mode(fd);
}

int trace_text_open(struct trace_text *t, const char *path)
{
	char dir[PATH_MAX];
	memset(t, 0, sizeof(*t));
	if (!path)
		return choose_body(t, NULL);
	if (strcmp(path, "-") == 0)
		return trace_text_open_stream(t, stdout);
	int err = open_destination(t, path);
	if (!err)
		err = choose_body(t, dir_of(path, dir, sizeof(dir)));
	return err;
}

void trace_text_discard(struct trace_text *t)
{
	if (t->path && t->created && !t->claimed)
		unlink(t->path);
	t->discarded = true;
}

/* The header of a recording that has not ended: it promises a trailer
 * that never comes, so `vsc check` calls the file cut short. */
static bool put_unfinished(FILE *out)
{
	fputs("vsc 1\n# vsc trace: the recording failed before its end\n"
	      "# events: see end of trace\n",
	      out);
	return fflush(out) == 0;
}

/* An empty file is a valid (empty, consistent) trace, so a recording that
 * failed before writing anything leaves that header instead. If even that
 * cannot be written (a full disk), the file goes. False then. */
static bool mark_unfinished(struct trace_text *t)
{
	if (claim_destination(t) == 0 && put_unfinished(t->out))
		return true;
	unlink(t->path);
	return false;
}

void trace_text_begin(struct trace_text *t)
{
	if (t->streaming || t->claimed || t->err || !t->out)
		return;
	if (t->path) {
		if (!mark_unfinished(t))
			keep_error(t, errno ? -errno : -EIO);
		t->begun_at = 0;
	} else {
		/* standard output sent to a file (`-o - > run.vsc`, or >>):
		 * the mark goes where the trace will start, which with >> is
		 * the end (the shell does not seek there: the offset is 0) */
		int flags = fcntl(fileno(t->out), F_GETFL);
		if (flags >= 0 && (flags & O_APPEND))
			fseeko(t->out, 0, SEEK_END);
		t->begun_at = ftello(t->out);
		if (t->begun_at < 0 || !put_unfinished(t->out))
			keep_error(t, errno ? -errno : -EIO);
	}
	t->begun = true;
}

/* The destination holds the mark of trace_text_begin(): start over there. */
static int restart_destination(struct trace_text *t)
{
	if (!t->begun)
		return 0;
	if (fflush(t->out) || ftruncate(fileno(t->out), t->begun_at) ||
	    fseeko(t->out, t->begun_at, SEEK_SET))
		return -errno;
	return 0;
}

void trace_text_close(struct trace_text *t)
{
	/* not finished: whatever the file held must not pass for a trace */
	if (t->path && !t->finished && !t->discarded && !t->claimed)
		mark_unfinished(t);
	if (t->body && t->body != t->out)
		fclose(t->body);
	if (t->own_out && t->out && fclose(t->out))
		keep_error(t, -errno);
	free(t->out_buf);
	free(t->body_buf);
	free(t->path);
	t->path = NULL;
	t->out = t->body = NULL;
	t->out_buf = t->body_buf = NULL;
}

/* ---- header and trailer ------------------------------------------------ */

static void put_count(FILE *out, const char *key, uint64_t n, bool known, bool at_least)
{
	if (!known)
		fprintf(out, "# %s: see end of trace\n", key);
	else
		fprintf(out, "# %s: %s%" PRIu64 "\n", key, at_least ? "at least " : "", n);
}

/* c NULL: streaming, the counts are not known yet. */
static void write_header(FILE *out, const struct trace_header *h, const struct trace_counts *c)
{
	struct utsname u;
	bool have_uname = uname(&u) == 0;
	fprintf(out, "vsc 1\n");
	fprintf(out, "# vsc trace: observed shared-memory accesses, per thread in program order\n");
	fprintf(out, "# what: %s\n", h->what ? h->what : "(not given)");
	fprintf(out, "# how: %s\n", h->how ? h->how : "(not given)");
	fprintf(out, "# when: %s\n", h->when ? h->when : "(not given)");
	fprintf(out, "# kernel: %s %s\n", have_uname ? u.sysname : "?",
		have_uname ? u.release : "?");
	fprintf(out, "# arch: %s\n", have_uname ? u.machine : "?");
	put_count(out, "threads", c ? c->threads : 0, c, false);
	put_count(out, "events", c ? c->events : 0, c, false);
	put_count(out, "lost events", c ? c->lost : 0, c, c && !c->lost_exact);
	put_count(out, "uncertain values", c ? c->uncertain : 0, c, false);
	if (h->loss_mode)
		fprintf(out, "# loss mode: %s\n", h->loss_mode);
	if (c && (c->lost || !c->lost_exact))
		fprintf(out, "# WARNING: events were lost; a verdict on this trace may be wrong\n");
	for (size_t i = 0; i < h->note_count; i++)
		fprintf(out, "# %s: %s\n", h->notes[i].key, h->notes[i].value);
}

static void write_trailer(FILE *out, const struct trace_counts *c)
{
	fprintf(out,
		"# end of trace: events=%" PRIu64 " lost=%s%" PRIu64 " uncertain=%" PRIu64 "\n",
		c->events, c->lost_exact ? "" : ">=", c->lost, c->uncertain);
}

void trace_text_put(struct trace_text *t, const struct trace_header *h, const char *line,
		    size_t len)
{
	if (t->err)
		return;
	if (t->streaming && !t->header_done) {
		int err = claim_destination(t);
		if (err) {
			keep_error(t, err);
			return;
		}
		write_header(t->body, h, NULL);
		t->header_done = true;
		t->notes_in_header = h->note_count;
	}
	if (fwrite(line, 1, len, t->body) != len)
		keep_error(t, -errno);
}

/* Copy the spilled lines to out: in the kernel when it can, else by hand. */
static int copy_body(FILE *body, FILE *out)
{
	char buf[1 << 16];
	if (fflush(body) || fflush(out))
		return -errno;
	off_t end = lseek(fileno(body), 0, SEEK_END);
	if (end < 0)
		return -errno;
	off_t at = 0;
	while (at < end) {
		ssize_t n = copy_file_range(fileno(body), &at, fileno(out), NULL,
					    (size_t)(end - at), 0);
		if (n < 0 && at == 0 &&
		    (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP ||
		     errno == EBADF))
			break; /* not between these files: copy by hand */
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
	}
	if (at == end)
		return 0;
	if (fseeko(body, at, SEEK_SET))
		return -errno;
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), body)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			return -errno;
	return ferror(body) ? -EIO : 0;
}

int trace_text_finish(struct trace_text *t, const struct trace_header *h,
		      const struct trace_counts *c, FILE *out)
{
	if (t->err)
		return t->err;
	if (!t->out)
		t->out = out;
	if (!t->out)
		return -EINVAL;
	int claim = claim_destination(t);
	if (!claim)
		claim = restart_destination(t);
	if (claim) {
		keep_error(t, claim);
		return t->err;
	}
	t->finished = true;
	errno = 0;
	if (t->streaming) {
		if (!t->header_done)
			write_header(t->out, h, NULL);
		/* notes that came after the header: comments before the trailer */
		for (size_t i = t->header_done ? t->notes_in_header : h->note_count;
		     i < h->note_count; i++)
			fprintf(t->out, "# %s: %s\n", h->notes[i].key, h->notes[i].value);
		t->header_done = true;
	} else {
		write_header(t->out, h, c);
		int err = copy_body(t->body, t->out);
		if (err) {
			keep_error(t, err);
			return t->err;
		}
	}
	write_trailer(t->out, c);
	if (fflush(t->out) || ferror(t->out))
		keep_error(t, errno ? -errno : -EIO);
	return t->err;
}

/* ---- event lines ------------------------------------------------------- */

/* Decimal digits of v at p; returns the end. By hand: fprintf was the
 * largest cost of writing a big trace. */
static char *append_u64(char *p, uint64_t v)
{
	char tmp[20];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *append_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return append_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return append_u64(p, (uint64_t)v);
}

static char *append_text(char *p, const char *s, size_t len)
{
	memcpy(p, s, len);
	return p + len;
}

size_t trace_text_format_event(char *line, const struct vsc_capture_event *e, uint32_t instance,
			       const char *name, size_t name_len, const char *location,
			       bool timestamps)
{
	static const char unsure_alone[] = " # value unsure", unsure_after[] = " (value unsure)";
	bool unsure = e->flags & VSC_CAP_F_VALUE_UNSURE;
	char *p = append_u64(line, e->tid);
	if (instance) {
		*p++ = '.';
		p = append_u64(p, instance);
	}
	*p++ = ' ';
	*p++ = e->kind == VSC_CAP_RMW ? 'u' : e->kind == VSC_CAP_LOAD ? 'r' : 'w';
	*p++ = ' ';
	p = append_text(p, name, name_len < 64 ? name_len : 64);
	*p++ = ' ';
	p = append_i64(p, trace_sign_extend(e->value, e->size));
	if (e->kind == VSC_CAP_RMW) {
		*p++ = ' ';
		p = append_i64(p, trace_sign_extend(e->new_value, e->size));
	}
	if (timestamps) {
		*p++ = ' ';
		*p++ = '@';
		p = append_u64(p, (uint64_t)e->ts_ns);
	}
	if (location) {
		size_t len = strnlen(location, TRACE_LOC_MAX);
		p = append_text(p, " # ", 3);
		p = append_text(p, location, len);
	}
	if (unsure && location)
		p = append_text(p, unsure_after, sizeof(unsure_after) - 1);
	else if (unsure)
		p = append_text(p, unsure_alone, sizeof(unsure_alone) - 1);
	*p++ = '\n';
	return (size_t)(p - line);
}
