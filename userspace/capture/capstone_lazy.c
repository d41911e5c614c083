/* SPDX-License-Identifier: MIT */
/* Capstone, loaded when the first decoder opens (vsc record --watch), not
 * when vsc starts: its tables make ~77,000 relocations, which the dynamic
 * linker used to apply before every `vsc check` (most of the 4-5 ms its
 * start took, where `wc -l` starts in under 1 ms). The decoder (decode*.c)
 * calls the functions below as it would call the library's; each goes
 * through the symbol looked up once. When the library cannot be loaded,
 * or is of another major version than the headers it was built with (its
 * structures differ: decoding with it would misread instructions), no
 * call goes to it: cs_open() fails as for an architecture it lacks, and
 * watch_capstone_error() says why. */
#include <capstone/capstone.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include "decode.h"

#define CS_STR2(x) #x
#define CS_STR(x) CS_STR2(x)

static struct {
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_err (*close)(csh *);
	cs_err (*option)(csh, cs_opt_type, size_t);
	cs_insn *(*malloc)(csh);
	void (*free)(cs_insn *, size_t);
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *);
	bool (*insn_group)(csh, const cs_insn *, unsigned int);
	cs_err (*regs_access)(csh, const cs_insn *, cs_regs, uint8_t *, cs_regs, uint8_t *);
} lib;
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;
static int lib_loaded;
static char lib_error[256];

/* The major version of the library h, -1 when it does not say. */
static int major_of(void *h)
{
	unsigned int (*version)(int *, int *);
	int major = -1, minor = -1;

	*(void **)&version = dlsym(h, "cs_version");
	if (version)
		version(&major, &minor);
	return major;
}

/* Every symbol or none: a partial table is never used. */
static void load(void)
{
	void *h = dlopen("libcapstone.so." CS_STR(CS_API_MAJOR), RTLD_NOW | RTLD_LOCAL);

	if (!h)
		h = dlopen("libcapstone.so", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(lib_error, sizeof(lib_error), "cannot load Capstone: %s", dlerror());
		return;
	}
	if (major_of(h) != CS_API_MAJOR) {
		snprintf(lib_error, sizeof(lib_error),
			 "Capstone %d found, vsc was built for version %d", major_of(h),
			 CS_API_MAJOR);
		return;
	}
	*(void **)&lib.open = dlsym(h, "cs_open");
	*(void **)&lib.close = dlsym(h, "cs_close");
	*(void **)&lib.option = dlsym(h, "cs_option");
	*(void **)&lib.malloc = dlsym(h, "cs_malloc");
	*(void **)&lib.free = dlsym(h, "cs_free");
	*(void **)&lib.disasm_iter = dlsym(h, "cs_disasm_iter");
	*(void **)&lib.insn_group = dlsym(h, "cs_insn_group");
	*(void **)&lib.regs_access = dlsym(h, "cs_regs_access");
	lib_loaded = lib.open && lib.close && lib.option && lib.malloc && lib.free &&
		     lib.disasm_iter && lib.insn_group && lib.regs_access;
	if (!lib_loaded)
		snprintf(lib_error, sizeof(lib_error), "Capstone lacks a function vsc calls");
}

const char *watch_capstone_error(void)
{
	return lib_error[0] ? lib_error : NULL;
}

cs_err cs_open(cs_arch arch, cs_mode mode, csh *handle)
{
	pthread_once(&lib_once, load);
	return lib_loaded ? lib.open(arch, mode, handle) : CS_ERR_ARCH;
}

/* The rest are called only on a handle cs_open() gave: the table is whole. */
cs_err cs_close(csh *handle)
{
	return lib.close(handle);
}

cs_err cs_option(csh handle, cs_opt_type type, size_t value)
{
	return lib.option(handle, type, value);
}

cs_insn *cs_malloc(csh handle)
{
	return lib.malloc(handle);
}

void cs_free(cs_insn *insn, size_t count)
{
	lib.free(insn, count);
}

bool cs_disasm_iter(csh handle, const uint8_t **code, size_t *size, uint64_t *address,
		    cs_insn *insn)
{
	return lib.disasm_iter(handle, code, size, address, insn);
}

bool cs_insn_group(csh handle, const cs_insn *insn, unsigned int group_id)
{
	return lib.insn_group(handle, insn, group_id);
}

cs_err cs_regs_access(csh handle, const cs_insn *insn, cs_regs regs_read, uint8_t *regs_read_count,
		      cs_regs regs_write, uint8_t *regs_write_count)
{
	return lib.regs_access(handle, insn, regs_read, regs_read_count, regs_write,
			       regs_write_count);
}
