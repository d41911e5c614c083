/* SPDX-License-Identifier: MIT */
/*
 * Symbols of a running process, with libelf: which global an address falls
 * in (PIE and ASLR load offsets taken from /proc/PID/maps), the initial value
 * of a global from its ELF file (.data; 0 for .bss), the function an
 * instruction pointer is in, and the address of a named global.
 *
 * Shared by every capture path (USDT probes, watchpoints, LTTng). Its
 * functions have the shape of the trace writer's callbacks, see
 * vsc_symbols_name_cb() and friends, so a recorder wires them in directly.
 *
 * The tables are read while the process lives (vsc_symbols_refresh() picks
 * up libraries loaded later) and kept in memory, so naming still works after
 * the process has exited.
 */
#ifndef VSC_CAPTURE_SYMBOLS_H
#define VSC_CAPTURE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct vsc_symbols;

/* Read /proc/PID/maps and the symbol tables of the executable and every
 * loaded library. Returns NULL and sets errno (ESRCH: no such process). */
struct vsc_symbols *vsc_symbols_new(int pid);
void vsc_symbols_free(struct vsc_symbols *syms);
/* Without a live process (a trace read after the fact, e.g. LTTng's
 * statedump): start empty, then add each loaded object by its path and the
 * run-time address of its lowest PT_LOAD segment (lttng_ust_statedump:bin_info
 * `baddr`). Adding a path twice keeps the first base. 0 or -errno (-ENOENT:
 * the file cannot be opened or read as ELF). */
struct vsc_symbols *vsc_symbols_new_offline(void);
int vsc_symbols_add_object(struct vsc_symbols *syms, const char *path, uint64_t base);
/* Read /proc/PID/maps again and load files mapped since. 0 or -errno. */
int vsc_symbols_refresh(struct vsc_symbols *syms);
int vsc_symbols_pid(const struct vsc_symbols *syms);

/* Name the data at addr: "sym" at the start of a symbol, "sym:OFF" (decimal
 * byte offset) inside it. 0, or -ENOENT when no object symbol covers it. */
int vsc_symbols_name(const struct vsc_symbols *syms, uint64_t addr, char *buf, size_t len);
/* The initial value of `size` bytes at addr as the ELF file holds it (.data,
 * or 0 in .bss), native byte order, zero-extended. Returns 1 and sets *value,
 * 0 when not known (not in .data/.bss, e.g. heap, stack, or a relocated
 * pointer in .data.rel*). */
int vsc_symbols_init_value(const struct vsc_symbols *syms, uint64_t addr, uint32_t size,
			   int64_t *value);
/* "func+0xOFF (file)" for an instruction pointer. 0 or -ENOENT. */
int vsc_symbols_locate(const struct vsc_symbols *syms, uint64_t ip, char *buf, size_t len);
/* Address and size of the global object `name` (first match: executable,
 * then libraries in map order). 0 or -ENOENT. */
int vsc_symbols_find(const struct vsc_symbols *syms, const char *name, uint64_t *addr,
		     uint64_t *size);
/* Path of the ELF file addr belongs to, or NULL. */
const char *vsc_symbols_file_of(const struct vsc_symbols *syms, uint64_t addr);

/* The same, shaped as trace writer callbacks (ctx is the struct vsc_symbols;
 * pid is ignored: one symbols object serves one process). */
int vsc_symbols_name_cb(void *ctx, uint32_t pid, uint64_t addr, uint32_t size, char *buf,
			size_t len);
int vsc_symbols_init_cb(void *ctx, uint32_t pid, uint64_t addr, uint32_t size, int64_t *value);
int vsc_symbols_locate_cb(void *ctx, uint32_t pid, uint64_t ip, char *buf, size_t len);

#endif /* VSC_CAPTURE_SYMBOLS_H */
