/* SPDX-License-Identifier: MIT */
/* A thread-id map with room for every thread id (see pid_max_map.h). */
#include "pid_max_map.h"

#include <stdio.h>

#include <bpf/libbpf.h>

int pid_max_map_fit(struct bpf_map *map)
{
	unsigned long pid_max = 0;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	if (f) {
		if (fscanf(f, "%lu", &pid_max) != 1)
			pid_max = 0;
		fclose(f);
	}
	if (pid_max <= bpf_map__max_entries(map))
		return 0;
	int err = bpf_map__set_max_entries(map, (uint32_t)pid_max);
	return err ? err : bpf_map__set_map_flags(map, bpf_map__map_flags(map) | BPF_F_NO_PREALLOC);
}
