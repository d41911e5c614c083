/* SPDX-License-Identifier: MIT */
/* No probes here: every recorded access is in liblib_counter.so.
 *   uses_lib N    bumps the library's counter N times */
#include <stdlib.h>

void lib_counter_bump(void);

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	for (long i = 0; i < n; i++)
		lib_counter_bump();
	return 0;
}
