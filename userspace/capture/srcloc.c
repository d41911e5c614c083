/* SPDX-License-Identifier: MIT */
/* Code and source locations with libdw (see srcloc.h). */
#include "srcloc.h"

#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdwfl.h>

struct srcloc {
	pid_t pid;
	Dwfl *dwfl;
};

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

struct srcloc *srcloc_new(pid_t pid)
{
	struct srcloc *sl = calloc(1, sizeof(*sl));

	if (!sl)
		return NULL;
	sl->pid = pid;
	sl->dwfl = dwfl_begin(&proc_callbacks);
	if (!sl->dwfl) {
		free(sl);
		errno = ENOMEM;
		return NULL;
	}
	if (srcloc_refresh(sl) < 0) {
		int err = errno;
		srcloc_free(sl);
		errno = err;
		return NULL;
	}
	return sl;
}

void srcloc_free(struct srcloc *sl)
{
	if (!sl)
		return;
	dwfl_end(sl->dwfl);
	free(sl);
}

int srcloc_refresh(struct srcloc *sl)
{
	int err;

	dwfl_report_begin(sl->dwfl);
	err = dwfl_linux_proc_report(sl->dwfl, sl->pid);
	dwfl_report_end(sl->dwfl, NULL, NULL);
	if (err) {
		errno = err > 0 ? err : ESRCH;
		return -errno;
	}
	return 0;
}

/* The bytes of the section that holds file address addr, from addr on. */
static int section_bytes(Elf *elf, uint64_t file_addr, const uint8_t **code, size_t *len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_PROGBITS ||
		    !(shdr.sh_flags & SHF_EXECINSTR))
			continue;
		if (file_addr < shdr.sh_addr || file_addr >= shdr.sh_addr + shdr.sh_size)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || data->d_size < shdr.sh_size)
			return -ENOENT;
		*code = (const uint8_t *)data->d_buf + (file_addr - shdr.sh_addr);
		*len = shdr.sh_addr + shdr.sh_size - file_addr;
		return 0;
	}
	return -ENOENT;
}

/* Stripped code has no symbols but keeps .eh_frame for unwinding: its FDE
 * for ip gives the function's first and last address. */
static void cfi_bounds(Dwfl_Module *mod, uint64_t ip, struct srcloc_function *fn)
{
	Dwarf_Addr bias = 0, start, end;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
	Dwarf_Frame *frame = NULL;

	if (!cfi)
		cfi = dwfl_module_dwarf_cfi(mod, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, ip - bias, &frame) != 0)
		return;
	if (dwarf_frame_info(frame, &start, &end, NULL) >= 0 && start <= ip - bias &&
	    ip - bias < end) {
		fn->start = start + bias;
		fn->size = end - start;
		fn->bounded = true;
	}
	free(frame);
}

int srcloc_function(struct srcloc *sl, uint64_t ip, struct srcloc_function *fn)
{
	Dwfl_Module *mod;
	GElf_Sym sym;
	GElf_Off off = 0;
	Elf *elf = NULL;
	Dwarf_Addr bias = 0;
	const char *name;

	memset(fn, 0, sizeof(*fn));
	mod = dwfl_addrmodule(sl->dwfl, ip);
	if (!mod)
		return -ENOENT;
	name = dwfl_module_addrinfo(mod, ip, &off, &sym, NULL, &elf, &bias);
	if (!elf)
		elf = dwfl_module_getelf(mod, &bias);
	if (!elf)
		return -ENOENT;
	fn->name = name;
	fn->start = name ? ip - off : ip;
	fn->size = name ? sym.st_size : 0;
	fn->bounded = name != NULL;
	if (!name)
		cfi_bounds(mod, ip, fn);
	if (section_bytes(elf, fn->start - bias, &fn->code, &fn->code_len) < 0) {
		fn->code = NULL;
		return -ENOENT;
	}
	return 0;
}

int srcloc_line(struct srcloc *sl, uint64_t ip, char *buf, size_t len)
{
	Dwfl_Module *mod = dwfl_addrmodule(sl->dwfl, ip);
	Dwfl_Line *line;
	const char *file, *base;
	int lineno = 0;

	if (!mod)
		return -ENOENT;
	line = dwfl_module_getsrc(mod, ip);
	if (!line)
		return -ENOENT;
	file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	if (!file || lineno <= 0)
		return -ENOENT;
	base = strrchr(file, '/');
	snprintf(buf, len, "%s:%d", base ? base + 1 : file, lineno);
	return 0;
}
