/* SPDX-License-Identifier: MIT */
/*
 * Reading an options struct of the API. Every one starts with its size
 * (VSC_OPTS fills it in), and every function reads it by the same rule, the
 * one libbpf uses, so the structs can grow without breaking callers:
 * - NULL: every option takes its default;
 * - a caller built against an older, shorter struct: the fields it has are
 *   used, the ones it lacks take their defaults (zero);
 * - a caller built against a newer, longer struct: accepted only when every
 *   byte past the fields this library knows is zero, since a field set there
 *   asks for something this library cannot do (-EINVAL otherwise);
 * - a size smaller than the size field itself: -EINVAL.
 */
#ifndef VSC_OPTS_H
#define VSC_OPTS_H

#include <errno.h>
#include <stddef.h>
#include <string.h>

/* Fill dst (a struct of `known` bytes) from opts by the rule above; dst's
 * size field is set to known. Returns 0 or -EINVAL (dst then all zero). */
static inline int opts_load(void *dst, size_t known, const void *opts)
{
	const unsigned char *bytes = opts;
	size_t given;

	memset(dst, 0, known);
	if (opts) {
		memcpy(&given, opts, sizeof(given));
		if (given < sizeof(given))
			return -EINVAL;
		for (size_t i = known; i < given; i++)
			if (bytes[i])
				return -EINVAL;
		memcpy(dst, opts, given < known ? given : known);
	}
	memcpy(dst, &known, sizeof(known));
	return 0;
}

/* OPTS_LOAD(local, opts): the comparison only makes the compiler check that
 * both are the same struct type. */
#define OPTS_LOAD(dst, opts) \
	((void)sizeof((opts) == &(dst)), opts_load(&(dst), sizeof(dst), (opts)))

#endif /* VSC_OPTS_H */
