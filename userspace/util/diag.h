/* SPDX-License-Identifier: MIT */
/*
 * How the vsc command tells its user something: one printer, so every
 * message reads "vsc CMD: what" on stderr, whichever file says it. The
 * library itself never prints; these are for the command (cli/, gen/,
 * capture/, the LTTng converter).
 */
#ifndef VSC_UTIL_DIAG_H
#define VSC_UTIL_DIAG_H

#include <stdarg.h>

/* "vsc WHO: MESSAGE\n" on stderr; who is the subcommand as the user typed it
 * ("check", "gen sc", "record --watch"), or NULL for plain "vsc: MESSAGE". */
void diag(const char *who, const char *format, ...) __attribute__((format(printf, 2, 3)));
void vdiag(const char *who, const char *format, va_list ap) __attribute__((format(printf, 2, 0)));

/* A vsc_error_fn for the parser: its messages already say "FILE:LINE:COL:",
 * so they are printed as they are, one per line. */
void diag_parse_error(void *ctx, const char *message);

/* A vsc_progress_fn: "vsc: LINE". */
void diag_progress(void *ctx, const char *line);

#endif /* VSC_UTIL_DIAG_H */
