/* SPDX-License-Identifier: MIT */
/* Symbols of a running process with libelf (see symbols.h). */
#include "symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "userspace/util/array.h"

struct elf_sym {
	uint64_t value, size;
	const char *name; /* points into the file's name pool */
};

struct elf_section {
	uint64_t addr, size, offset;
	bool nobits;  /* .bss: zero-filled */
	bool initial; /* .data/.bss: holds initial values we may report */
};

struct elf_load {
	uint64_t vaddr, memsz;
};

struct elf_file {
	char *path;
	int fd;
	uint64_t bias; /* run-time address = file vaddr + bias */
	bool bias_known;
	struct elf_sym *objects, *funcs; /* sorted by value */
	size_t object_count, func_count;
	char *names;
	struct elf_section *sections;
	size_t section_count;
	struct elf_load *loads;
	size_t load_count;
};

struct vsc_symbols {
	int pid;
	struct elf_file *files;
	size_t file_count, file_cap;
};

static int compare_sym(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	/* at one address, prefer the larger (e.g. an array over an alias) */
	return x->size > y->size ? -1 : x->size < y->size;
}

static void elf_file_free(struct elf_file *f)
{
	free(f->path);
	if (f->fd >= 0)
		close(f->fd);
	free(f->objects);
	free(f->funcs);
	free(f->names);
	free(f->sections);
	free(f->loads);
}

static int push_sym(struct elf_sym **arr, size_t *count, size_t *cap, struct elf_sym sym)
{
	if (array_reserve((void **)arr, cap, *count + 1, sizeof(**arr), 256))
		return -ENOMEM;
	(*arr)[(*count)++] = sym;
	return 0;
}

static void read_loads(struct elf_file *f, Elf *elf, size_t phnum)
{
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			f->loads[f->load_count++] = (struct elf_load){ ph.p_vaddr, ph.p_memsz };
	}
}

/* Initial values only from plain .data/.bss: .data.rel* holds pointers
 * that the loader relocates, .tdata/.tbss is per thread. */
static bool gives_initial_values(const char *name, uint64_t flags)
{
	return !(flags & SHF_TLS) &&
	       (strcmp(name, ".data") == 0 || strcmp(name, ".bss") == 0 ||
		strncmp(name, ".bss.", 5) == 0 ||
		(strncmp(name, ".data.", 6) == 0 && strncmp(name, ".data.rel", 9) != 0));
}

/* The allocated sections; returns the symbol table's (.symtab, else
 * .dynsym), or NULL. */
static Elf_Scn *read_sections(struct elf_file *f, Elf *elf, size_t shstrndx)
{
	Elf_Scn *scn = NULL, *symscn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &shdr))
			continue;
		const char *name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (shdr.sh_type == SHT_SYMTAB)
			symscn = scn;
		else if (shdr.sh_type == SHT_DYNSYM && !symscn)
			symscn = scn;
		if (!(shdr.sh_flags & SHF_ALLOC) || !name)
			continue;
		f->sections[f->section_count++] = (struct elf_section){
			.addr = shdr.sh_addr,
			.size = shdr.sh_size,
			.offset = shdr.sh_offset,
			.nobits = shdr.sh_type == SHT_NOBITS,
			.initial = gives_initial_values(name, shdr.sh_flags),
		};
	}
	return symscn;
}

/* The object and function symbols of symscn, sorted by address; their
 * names in one pool (counted, then copied), so the ELF handle can be
 * closed. */
static int read_symbols(struct elf_file *f, Elf *elf, Elf_Scn *symscn)
{
	size_t ocap = 0, fcap = 0, pool_len = 0, count;
	Elf_Data *data;
	GElf_Shdr shdr;
	int err = 0;

	if (!gelf_getshdr(symscn, &shdr) || !(data = elf_getdata(symscn, NULL)))
		return 0;
	count = shdr.sh_entsize ? shdr.sh_size / shdr.sh_entsize : 0;
	for (int pass = 0; pass < 2 && !err; pass++) {
		size_t used = 0;
		for (size_t i = 0; i < count && !err; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    sym.st_value == 0)
				continue;
			int type = GELF_ST_TYPE(sym.st_info);
			const char *name = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if ((type != STT_OBJECT && type != STT_FUNC) || !name || !name[0])
				continue;
			size_t n = strlen(name) + 1;
			if (pass == 0) {
				pool_len += n;
				continue;
			}
			memcpy(f->names + used, name, n);
			struct elf_sym s = { sym.st_value, sym.st_size, f->names + used };
			used += n;
			err = type == STT_OBJECT ? push_sym(&f->objects, &f->object_count, &ocap, s)
						 : push_sym(&f->funcs, &f->func_count, &fcap, s);
		}
		if (pass == 0 && !(f->names = malloc(pool_len ? pool_len : 1)))
			err = -ENOMEM;
	}
	/* a file without symbols of a kind has no array (qsort wants one) */
	if (f->object_count)
		qsort(f->objects, f->object_count, sizeof(*f->objects), compare_sym);
	if (f->func_count)
		qsort(f->funcs, f->func_count, sizeof(*f->funcs), compare_sym);
	return err;
}

/* Read sections, loadable segments and the symbol table (.symtab, else
 * .dynsym) of an open ELF file. */
static int elf_file_read(struct elf_file *f, Elf *elf)
{
	size_t shstrndx, phnum, shnum = 0;
	Elf_Scn *symscn;

	if (elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) ||
	    elf_getphdrnum(elf, &phnum))
		return -ENOEXEC;
	f->loads = calloc(phnum ? phnum : 1, sizeof(*f->loads));
	elf_getshdrnum(elf, &shnum);
	f->sections = calloc(shnum ? shnum : 1, sizeof(*f->sections));
	if (!f->loads || !f->sections)
		return -ENOMEM;
	read_loads(f, elf, phnum);
	symscn = read_sections(f, elf, shstrndx);
	return symscn ? read_symbols(f, elf, symscn) : 0; /* stripped: addresses stay hex */
}

static int open_in_process(int pid, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	/* the target may live in another mount namespace */
	char alt[4096 + 64];
	snprintf(alt, sizeof(alt), "/proc/%d/root%s", pid, path);
	return open(alt, O_RDONLY | O_CLOEXEC);
}

static struct elf_file *file_for_path(struct vsc_symbols *s, const char *path, bool *created)
{
	*created = false;
	for (size_t i = 0; i < s->file_count; i++)
		if (strcmp(s->files[i].path, path) == 0)
			return &s->files[i];
	if (ARRAY_RESERVE(s->files, s->file_cap, s->file_count + 1))
		return NULL;
	struct elf_file *f = &s->files[s->file_count];
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	s->file_count++;
	*created = true;
	f->fd = open_in_process(s->pid, path);
	if (f->fd < 0)
		return f; /* kept, empty: we will not retry on every refresh */
	Elf *elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (elf) {
		if (elf_file_read(f, elf) == -ENOMEM) {
			elf_end(elf);
			return NULL;
		}
		elf_end(elf);
	}
	return f;
}

/* One line of /proc/PID/maps: the mapping's start, file offset and path. */
static bool parse_maps_line(char *line, uint64_t *start, uint64_t *offset, char **path)
{
	unsigned long long lo, hi, off;
	char perms[8];
	int pos = 0;
	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms, &off, &pos) < 4 || !pos)
		return false;
	char *p = line + pos;
	p[strcspn(p, "\n")] = '\0';
	if (p[0] != '/')
		return false;
	char *deleted = strstr(p, " (deleted)");
	if (deleted)
		*deleted = '\0';
	*start = lo;
	*offset = off;
	*path = p;
	return true;
}

int vsc_symbols_refresh(struct vsc_symbols *s)
{
	char maps[64], line[4096 + 256];
	snprintf(maps, sizeof(maps), "/proc/%d/maps", s->pid);
	FILE *in = fopen(maps, "re");
	if (!in)
		return errno == ENOENT ? -ESRCH : -errno;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t mask = ~(uint64_t)(page > 0 ? page - 1 : 4095);
	int err = 0;
	while (fgets(line, sizeof(line), in)) {
		uint64_t start, offset;
		char *path;
		bool created;
		if (!parse_maps_line(line, &start, &offset, &path))
			continue;
		struct elf_file *f = file_for_path(s, path, &created);
		if (!f) {
			err = -ENOMEM;
			break;
		}
		if (f->bias_known || f->fd < 0)
			continue;
		/* The mapping at file offset `offset` holds the PT_LOAD segment
		 * that starts in that page: its page-rounded vaddr lands at
		 * `start`. We need the segment's file offset, so re-read it. */
		Elf *elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
		size_t phnum = 0;
		if (elf && !elf_getphdrnum(elf, &phnum))
			for (size_t i = 0; i < phnum; i++) {
				GElf_Phdr ph;
				if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
					continue;
				if ((ph.p_offset & mask) == offset) {
					f->bias = start - (ph.p_vaddr & mask);
					f->bias_known = true;
					break;
				}
			}
		if (elf)
			elf_end(elf);
	}
	fclose(in);
	return err;
}

struct vsc_symbols *vsc_symbols_new_offline(void)
{
	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = ENOTSUP;
		return NULL;
	}
	struct vsc_symbols *s = calloc(1, sizeof(*s));
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	s->pid = -1; /* paths are opened as they are */
	return s;
}

struct vsc_symbols *vsc_symbols_new(int pid)
{
	struct vsc_symbols *s = vsc_symbols_new_offline();
	if (!s)
		return NULL;
	s->pid = pid;
	int err = vsc_symbols_refresh(s);
	if (err) {
		vsc_symbols_free(s);
		errno = -err;
		return NULL;
	}
	return s;
}

int vsc_symbols_add_object(struct vsc_symbols *s, const char *path, uint64_t base)
{
	bool created;
	struct elf_file *f = file_for_path(s, path, &created);
	if (!f)
		return -ENOMEM;
	if (f->bias_known)
		return 0;
	if (f->fd < 0 || f->load_count == 0)
		return -ENOENT;
	uint64_t lowest = f->loads[0].vaddr;
	for (size_t i = 1; i < f->load_count; i++)
		if (f->loads[i].vaddr < lowest)
			lowest = f->loads[i].vaddr;
	f->bias = base - lowest;
	f->bias_known = true;
	return 0;
}

void vsc_symbols_free(struct vsc_symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->file_count; i++)
		elf_file_free(&s->files[i]);
	free(s->files);
	free(s);
}

int vsc_symbols_pid(const struct vsc_symbols *s)
{
	return s->pid;
}

/* The file whose loadable segments cover addr; *vaddr gets the file address. */
static const struct elf_file *file_of(const struct vsc_symbols *s, uint64_t addr, uint64_t *vaddr)
{
	for (size_t i = 0; i < s->file_count; i++) {
		const struct elf_file *f = &s->files[i];
		if (!f->bias_known)
			continue;
		uint64_t v = addr - f->bias;
		for (size_t j = 0; j < f->load_count; j++)
			if (v >= f->loads[j].vaddr && v - f->loads[j].vaddr < f->loads[j].memsz) {
				*vaddr = v;
				return f;
			}
	}
	return NULL;
}

/* The symbol of arr covering v (size 0 symbols cover their own address). */
static const struct elf_sym *sym_covering(const struct elf_sym *arr, size_t count, uint64_t v)
{
	size_t lo = 0, hi = count;
	while (lo < hi) { /* first symbol with value > v */
		size_t mid = lo + (hi - lo) / 2;
		if (arr[mid].value <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* look back a little: nested or aliased symbols share ranges */
	for (size_t i = lo, steps = 0; i > 0 && steps < 32; i--, steps++) {
		const struct elf_sym *sym = &arr[i - 1];
		if (v == sym->value || v - sym->value < sym->size)
			return sym;
	}
	return NULL;
}

const char *vsc_symbols_file_of(const struct vsc_symbols *s, uint64_t addr)
{
	uint64_t v;
	const struct elf_file *f = file_of(s, addr, &v);
	return f ? f->path : NULL;
}

/* The object (or, with funcs, the function) that covers addr, and its
 * file; *v: addr in the file's own addresses. */
static const struct elf_sym *symbol_at(const struct vsc_symbols *s, uint64_t addr, bool funcs,
				       const struct elf_file **file, uint64_t *v)
{
	const struct elf_file *f = file_of(s, addr, v);

	*file = f;
	if (!f)
		return NULL;
	return funcs ? sym_covering(f->funcs, f->func_count, *v)
		     : sym_covering(f->objects, f->object_count, *v);
}

int vsc_symbols_name(const struct vsc_symbols *s, uint64_t addr, char *buf, size_t len)
{
	const struct elf_file *f;
	uint64_t v;
	const struct elf_sym *sym = symbol_at(s, addr, false, &f, &v);
	if (!sym)
		return -ENOENT;
	if (v == sym->value)
		snprintf(buf, len, "%s", sym->name);
	else
		snprintf(buf, len, "%s:%" PRIu64, sym->name, v - sym->value);
	return 0;
}

int vsc_symbols_init_value(const struct vsc_symbols *s, uint64_t addr, uint32_t size,
			   int64_t *value)
{
	uint64_t v;
	const struct elf_file *f = file_of(s, addr, &v);
	if (!f || size == 0 || size > 8)
		return 0;
	for (size_t i = 0; i < f->section_count; i++) {
		const struct elf_section *sec = &f->sections[i];
		if (!sec->initial || v < sec->addr || v - sec->addr + size > sec->size)
			continue;
		if (sec->nobits) {
			*value = 0;
			return 1;
		}
		uint64_t raw = 0; /* little or big endian: copy into the low bytes */
		unsigned char bytes[8] = { 0 };
		if (pread(f->fd, bytes, size, (off_t)(sec->offset + (v - sec->addr))) !=
		    (ssize_t)size)
			return 0;
		switch (size) {
		case 1:
			raw = bytes[0];
			break;
		case 2: {
			uint16_t x;
			memcpy(&x, bytes, 2);
			raw = x;
			break;
		}
		case 4: {
			uint32_t x;
			memcpy(&x, bytes, 4);
			raw = x;
			break;
		}
		case 8:
			memcpy(&raw, bytes, 8);
			break;
		default:
			return 0;
		}
		*value = (int64_t)raw;
		return 1;
	}
	return 0;
}

int vsc_symbols_locate(const struct vsc_symbols *s, uint64_t ip, char *buf, size_t len)
{
	const struct elf_file *f;
	uint64_t v;
	const struct elf_sym *sym = symbol_at(s, ip, true, &f, &v);
	if (!sym)
		return -ENOENT;
	const char *base = strrchr(f->path, '/');
	snprintf(buf, len, "%s+0x%" PRIx64 " (%s)", sym->name, v - sym->value,
		 base ? base + 1 : f->path);
	return 0;
}

int vsc_symbols_find(const struct vsc_symbols *s, const char *name, uint64_t *addr, uint64_t *size)
{
	for (size_t i = 0; i < s->file_count; i++) {
		const struct elf_file *f = &s->files[i];
		if (!f->bias_known)
			continue;
		for (size_t j = 0; j < f->object_count; j++)
			if (strcmp(f->objects[j].name, name) == 0) {
				*addr = f->objects[j].value + f->bias;
				*size = f->objects[j].size;
				return 0;
			}
	}
	return -ENOENT;
}

int vsc_symbols_name_cb(void *ctx, uint32_t pid, uint64_t addr, uint32_t size, char *buf,
			size_t len)
{
	(void)pid, (void)size;
	return vsc_symbols_name(ctx, addr, buf, len);
}

int vsc_symbols_init_cb(void *ctx, uint32_t pid, uint64_t addr, uint32_t size, int64_t *value)
{
	(void)pid;
	return vsc_symbols_init_value(ctx, addr, size, value);
}

int vsc_symbols_locate_cb(void *ctx, uint32_t pid, uint64_t ip, char *buf, size_t len)
{
	(void)pid;
	return vsc_symbols_locate(ctx, ip, buf, len);
}
