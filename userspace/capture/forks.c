/* SPDX-License-Identifier: MIT */
/* Children of the target, unrecorded (see forks.h). */
#include "forks.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "userspace/util/diag.h"

void fork_watch_attach(struct fork_watch *fw, struct bpf_program *on_fork,
		       struct bpf_program *on_exec)
{
	struct bpf_program *progs[2] = { on_fork, on_exec };

	for (int i = 0; i < 2; i++) {
		fw->links[i] = bpf_program__attach(progs[i]);
		if (fw->links[i])
			continue;
		fw->unwatched = true;
		diag("record",
		     "warning: cannot attach %s (%s): children of the program cannot "
		     "be seen, so the trace gets no plain verdict",
		     bpf_program__section_name(progs[i]), strerror(errno));
	}
}

void fork_watch_detach(struct fork_watch *fw)
{
	for (int i = 0; i < 2; i++) {
		bpf_link__destroy(fw->links[i]);
		fw->links[i] = NULL;
	}
}

int fork_watch_shared(int pid, uint64_t addr, uint64_t len)
{
	char path[64], line[512], perms[8];
	uint64_t start, end;
	int shared = 0;
	FILE *maps;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	maps = fopen(path, "r");
	if (!maps)
		return -errno;
	while (fgets(line, sizeof(line), maps))
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s", &start, &end, perms) == 3 &&
		    addr < end && addr + len > start && perms[3] == 's')
			shared = 1;
	fclose(maps);
	return shared;
}

bool fork_watch_exact(const struct fork_watch *fw, uint64_t unrecorded)
{
	return !unrecorded && !fw->unwatched;
}

int fork_watch_why(const struct fork_watch *fw, uint64_t unrecorded, char *buf, size_t len, int n)
{
	if (unrecorded && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n,
			      "%s%" PRIu64 " child processes ran the program's code without exec, "
			      "not recorded (a MAP_SHARED mapping is their parent's memory too)",
			      n ? "; " : "", unrecorded);
	if (fw->unwatched && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n,
			      "%sthe program's children could not be watched (fork hook)",
			      n ? "; " : "");
	return n;
}
