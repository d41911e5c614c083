/* SPDX-License-Identifier: MIT */
/*
 * BPF maps keyed by thread id keep one entry per id ever seen (an ended
 * thread's entry numbers the id's next thread: ids are used again). A full
 * map would lose a thread's events, so such a map gets room for every id
 * the kernel can hand out: its preallocated entries, or, where pid_max is
 * larger (4194304 on many distributions), pid_max entries allocated as
 * they are used.
 */
#ifndef VSC_CAPTURE_PID_MAX_MAP_H
#define VSC_CAPTURE_PID_MAX_MAP_H

struct bpf_map;

/* Before the object is loaded. 0 or a negative errno. */
int pid_max_map_fit(struct bpf_map *map);

#endif /* VSC_CAPTURE_PID_MAX_MAP_H */
