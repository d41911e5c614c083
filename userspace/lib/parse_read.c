/* SPDX-License-Identifier: MIT */
/* Reading a trace for the parser: a file, a pipe or FIFO, or a stdio
 * stream is read in pieces of whole lines into one buffer that is used
 * again, and each piece is parsed at once. The input is never held whole:
 * memory does not grow with the file, and parsing overlaps reading. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "opts.h"
#include "parse.h"
#include "solver.h"
#include "userspace/util/array.h"

/* Small enough to stay in the cache between read() and parsing; a longer
 * line makes the buffer grow. The fuzz build makes it tiny so that short
 * inputs cross piece boundaries too. */
#ifndef PARSE_PIECE_BYTES
#define PARSE_PIECE_BYTES ((size_t)1 << 18)
#endif

/* Where the bytes come from: the caller's buffer holding them all (whole),
 * or read, which reads up to n bytes into buf and returns how many (0 at
 * the end) or -1 with errno. */
struct source {
	const char *whole;
	ssize_t (*read)(struct source *src, char *buf, size_t n);
	int fd;
	FILE *stream;
	const struct timespec *deadline;
};

/* Wait until fd has something to read (or its end); -1 with ETIME once the
 * deadline has passed. Regular files are always ready. */
static int wait_readable(int fd, const struct timespec *deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	for (;;) {
		int ms = -1, r;
		if (deadline->tv_sec) {
			double left = seconds_until(deadline);
			if (left <= 0) {
				errno = ETIME;
				return -1;
			}
			ms = left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
		}
		r = poll(&pfd, 1, ms);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

/* A pipe or FIFO is waited on with poll() so that the deadline bounds an
 * input that never ends (or never starts). */
static ssize_t read_fd(struct source *src, char *buf, size_t n)
{
	for (;;) {
		ssize_t got = wait_readable(src->fd, src->deadline) ? -1 : read(src->fd, buf, n);
		if (got >= 0 || (errno != EINTR && errno != EAGAIN))
			return got;
	}
}

/* Through stdio itself: the stream may have no descriptor (fmemopen) or
 * hold bytes already buffered (ungetc). */
static ssize_t read_stream(struct source *src, char *buf, size_t n)
{
	size_t got = fread(buf, 1, n, src->stream);

	if (got == 0 && ferror(src->stream)) {
		errno = EIO;
		return -1;
	}
	return (ssize_t)got;
}

/* Read until buf[0..cap) is full or the input ends: *len bytes in all.
 * Returns 1 at the end of the input, 0 when full, or a negative errno. */
static int fill(struct parser *ps, struct source *src, char *buf, size_t *len, size_t cap)
{
	while (*len < cap) {
		ssize_t got = src->read(src, buf + *len, cap - *len);
		if (got < 0)
			return -errno;
		if (got == 0)
			return 1;
		*len += (size_t)got;
		read_progress_note(ps->progress, ps->line, ps->bytes_before + *len,
				   ps->bytes_total);
	}
	return 0;
}

/* Parse everything src gives, a piece of whole lines at a time; a line
 * longer than the buffer doubles it. Returns 0 or a negative errno. */
static int parse_source(struct parser *ps, struct source *src)
{
	size_t cap = PARSE_PIECE_BYTES, len = 0;
	char *buf = malloc(cap);
	int err = buf ? 0 : -ENOMEM;

	while (!err && !parser_stopped(ps)) {
		int end = fill(ps, src, buf, &len, cap);
		const char *last_nl;

		if (end < 0) {
			err = end;
		} else if (end) {
			err = parser_lines(ps, buf, buf + len);
			break;
		} else if ((last_nl = memrchr(buf, '\n', len))) {
			size_t done = (size_t)(last_nl + 1 - buf);
			err = parser_lines(ps, buf, last_nl + 1);
			memmove(buf, buf + done, len - done);
			len -= done;
		} else if (ARRAY_RESERVE(buf, cap, cap + 1)) {
			err = -ENOMEM;
		}
	}
	free(buf);
	return err;
}

/* Parse src with the caller's opts; name: the input's name in messages
 * when opts has none; total: its size when known (progress), else 0. */
static struct vsc_trace *parse_from(struct source *src, const char *name, size_t total,
				    const struct vsc_parse_opts *opts)
{
	struct vsc_parse_opts o;
	struct read_progress rp;
	struct parser *ps;

	if (OPTS_LOAD(o, opts)) {
		errno = EINVAL;
		return NULL;
	}
	if (!o.filename)
		o.filename = name;
	read_progress_init(&rp, &o, o.filename);
	ps = parser_new(&o, &rp);
	if (!ps)
		return NULL;
	ps->bytes_total = total;
	src->deadline = &ps->deadline;
	return parser_finish(ps, src->whole ? parser_lines(ps, src->whole, src->whole + total)
					    : parse_source(ps, src));
}

struct vsc_trace *vsc_trace_parse_buffer(const char *buf, size_t len,
					 const struct vsc_parse_opts *opts)
{
	struct source src = { .whole = buf };

	return parse_from(&src, "<input>", len, opts);
}

static struct vsc_trace *parse_fd(int fd, const char *name, const struct vsc_parse_opts *opts)
{
	struct source src = { .read = read_fd, .fd = fd };
	struct stat st;
	size_t total = 0;

	if (fstat(fd, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			return NULL;
		}
		if (S_ISREG(st.st_mode))
			total = (size_t)st.st_size;
	}
	return parse_from(&src, name, total, opts);
}

struct vsc_trace *vsc_trace_parse_stream(FILE *stream, const struct vsc_parse_opts *opts)
{
	struct source src = { .read = read_stream, .stream = stream };

	if (!stream) {
		errno = EINVAL;
		return NULL;
	}
	return parse_from(&src, "<stream>", 0, opts);
}

struct vsc_trace *vsc_trace_parse_file(const char *path, const struct vsc_parse_opts *opts)
{
	struct vsc_trace *trace;
	int fd, saved;

	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	if (strcmp(path, "-") == 0)
		return parse_fd(STDIN_FILENO, "<stdin>", opts);
	/* O_NONBLOCK: opening a FIFO would wait for a writer, past any
	 * deadline; read_fd waits with poll() instead */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	trace = parse_fd(fd, path, opts);
	saved = errno;
	close(fd);
	errno = saved;
	return trace;
}
