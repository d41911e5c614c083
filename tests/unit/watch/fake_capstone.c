/* SPDX-License-Identifier: MIT */
/* A library that calls itself Capstone but is of no version vsc was built
 * for (test_capstone_lazy.c): every function it has aborts, so a decoder
 * that called into it would fail the test. */
#include <stdlib.h>

unsigned int cs_version(int *major, int *minor)
{
	*major = 0;
	*minor = 0;
	return 0;
}

#define CALLED_ABORTS(name) \
	void name(void)     \
	{                   \
		abort();    \
	}
CALLED_ABORTS(cs_open)
CALLED_ABORTS(cs_close)
CALLED_ABORTS(cs_option)
CALLED_ABORTS(cs_malloc)
CALLED_ABORTS(cs_free)
CALLED_ABORTS(cs_disasm_iter)
CALLED_ABORTS(cs_insn_group)
CALLED_ABORTS(cs_regs_access)
