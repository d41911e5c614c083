/* SPDX-License-Identifier: MIT */
/*
 * Read CTF trace directories with libbabeltrace2 (source.ctf.fs →
 * filter.utils.muxer → the vsc sink) into a converter.
 */
#ifndef VSC_LTTNG_CTF_GRAPH_H
#define VSC_LTTNG_CTF_GRAPH_H

#include <stddef.h>
#include <stdio.h>

#include "ctf_convert.h"

/* Every directory is searched for CTF traces (folders with a `metadata`
 * file), as `babeltrace2 DIR` does. Returns 0, or a negative errno after
 * saying what went wrong on stderr (-ENOENT: no trace found; -EINVAL: the
 * trace is corrupt or lacks what vsc needs). */
int ctf_graph_read(char *const *dirs, size_t ndirs, struct ctf_conv *conv);

#endif /* VSC_LTTNG_CTF_GRAPH_H */
