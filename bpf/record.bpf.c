// SPDX-License-Identifier: (MIT OR GPL-2.0)
/*
 * vsc record: BPF half of the USDT probe path. Target threads log accesses
 * into a thread-local log (include/vsc/probe.h) and fire vsc:batch when it is
 * full; this program copies the batch into the ring buffer as capture events
 * (bpf/vsc_event.h), one per access, with the per-thread sequence numbers
 * the log carries. Events that do not fit are counted in `lost`, never
 * dropped silently. vsc:log tells where each thread's log lives, so the
 * recorder can read a part-filled log when the recording stops.
 *
 * No architecture-specific code: USDT arguments come through libbpf's
 * usdt.bpf.h, which reads them per the note's argument specs on x86-64 and
 * ARM64 alike.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#include "vsc_event.h"
#include "record.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, VSC_RECORD_DEFAULT_RING); /* --ring-size sets it */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct vsc_record_log_ref);
} logs SEC(".maps");

/* Events that did not fit into the ring buffer or could not be read. */
__u64 lost = 0;
/* Batches seen (for the recorder's statistics). */
__u64 batches = 0;

SEC("usdt")
int BPF_USDT(vsc_batch, __u64 log_addr, __u64 count_arg)
{
	struct vsc_record_log *log = (struct vsc_record_log *)log_addr;
	__u64 id = bpf_get_current_pid_tgid();
	struct vsc_record_entry entry;
	__u64 seq0 = 0, count;
	__u32 count32 = 0, i;

	__sync_fetch_and_add(&batches, 1);
	/* the header is the truth; the probe argument is a cross-check */
	if (bpf_probe_read_user(&seq0, sizeof(seq0), &log->seq) ||
	    bpf_probe_read_user(&count32, sizeof(count32), &log->count)) {
		__sync_fetch_and_add(&lost, count_arg <= VSC_RECORD_LOG_CAP ? count_arg : 0);
		return 0;
	}
	count = count32;
	if (count > VSC_RECORD_LOG_CAP)
		count = VSC_RECORD_LOG_CAP;
	for (i = 0; i < VSC_RECORD_LOG_CAP; i++) {
		struct vsc_capture_event *e;

		if (i >= count)
			break;
		if (bpf_probe_read_user(&entry, sizeof(entry), &log->entries[i])) {
			__sync_fetch_and_add(&lost, 1);
			continue;
		}
		e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
		if (!e) {
			__sync_fetch_and_add(&lost, 1);
			continue;
		}
		e->seq = seq0 + i;
		e->addr = entry.addr;
		e->value = entry.value;
		e->new_value = entry.new_value;
		e->ts_ns = entry.ts_ns;
		e->ip = entry.ip;
		e->pid = id >> 32;
		e->tid = (__u32)id;
		e->kind = entry.kind;
		e->size = entry.size;
		e->flags = 0;
		/* wake the reader once per batch, not once per event */
		bpf_ringbuf_submit(e, i + 1 == count ? 0 : BPF_RB_NO_WAKEUP);
	}
	return 0;
}

SEC("usdt")
int BPF_USDT(vsc_log, __u64 log_addr)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct vsc_record_log_ref ref = { .addr = log_addr, .pid = id >> 32 };

	bpf_map_update_elem(&logs, &tid, &ref, BPF_ANY);
	return 0;
}
