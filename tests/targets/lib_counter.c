/* SPDX-License-Identifier: MIT */
/* A shared library with vsc probes of its own (its executable, uses_lib.c,
 * has none): vsc record must find and attach them, and name the library's
 * global with the library's symbol table. */
#include <vsc/probe.h>

int64_t lib_counter;

void lib_counter_bump(void)
{
	int64_t v = vsc_load64(&lib_counter);
	vsc_store64(&lib_counter, v + 1);
}
