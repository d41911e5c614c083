/* SPDX-License-Identifier: MIT */
/* Count USDT probes in .note.stapsdt (see usdt_notes.h). */
#include "usdt_notes.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#define NT_STAPSDT 3

static int count_in_section(Elf *elf, Elf_Scn *scn, const char *provider, const char *name)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t offset = 0, name_off, desc_off;
	GElf_Nhdr nhdr;
	int count = 0;
	/* desc: pc, base, semaphore addresses, then provider, name, args */
	size_t addr_size = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8;

	while (data && (offset = gelf_getnote(data, offset, &nhdr, &name_off, &desc_off)) > 0) {
		const char *owner = (const char *)data->d_buf + name_off;
		const char *desc = (const char *)data->d_buf + desc_off;
		if (nhdr.n_type != NT_STAPSDT || nhdr.n_namesz != sizeof("stapsdt") ||
		    memcmp(owner, "stapsdt", sizeof("stapsdt")) != 0 ||
		    nhdr.n_descsz < 3 * addr_size + 2)
			continue;
		const char *prov = desc + 3 * addr_size;
		size_t room = nhdr.n_descsz - 3 * addr_size;
		size_t prov_len = strnlen(prov, room);
		if (prov_len + 1 >= room)
			continue;
		const char *probe = prov + prov_len + 1;
		if (strnlen(probe, room - prov_len - 1) == room - prov_len - 1)
			continue;
		if (strcmp(prov, provider) == 0 && (!name || strcmp(probe, name) == 0))
			count++;
	}
	return count;
}

int vsc_usdt_count(const char *path, const char *provider, const char *name)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOTSUP;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return -ENOEXEC;
	}
	size_t shstrndx;
	int count = 0;
	Elf_Scn *scn = NULL;
	if (elf_getshdrstrndx(elf, &shstrndx) == 0)
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr shdr;
			if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
				continue;
			const char *sname = elf_strptr(elf, shstrndx, shdr.sh_name);
			if (sname && strcmp(sname, ".note.stapsdt") == 0)
				count += count_in_section(elf, scn, provider, name);
		}
	elf_end(elf);
	close(fd);
	return count;
}
