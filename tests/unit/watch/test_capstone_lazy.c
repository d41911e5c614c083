/* SPDX-License-Identifier: MIT */
/* Capstone loaded by the first decoder (userspace/capture/capstone_lazy.c):
 * with the library the build used, a decoder opens; with a library of
 * another version first in the search path (VSC_FAKE_CAPSTONE set: the
 * make rule puts fake_capstone.c's build there), no decoder, nothing
 * called in it, and the reason names the version. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "decode.h"

static void decoder_opens_or_says_why(void **state)
{
	struct watch_decoder *dec = watch_decoder_new(WATCH_ARCH_X86_64);

	(void)state;
	if (!getenv("VSC_FAKE_CAPSTONE")) {
		assert_non_null(dec);
		assert_null(watch_capstone_error());
		watch_decoder_free(dec);
		return;
	}
	assert_null(dec);
	assert_int_equal(errno, ENOTSUP);
	assert_non_null(watch_capstone_error());
	assert_non_null(strstr(watch_capstone_error(), "version"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decoder_opens_or_says_why),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
