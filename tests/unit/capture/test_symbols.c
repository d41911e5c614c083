/* SPDX-License-Identifier: MIT */
/* The libelf symbolizer on this very test program (a PIE): globals by name
 * and name:offset, initial values from .data and .bss, functions of
 * instruction pointers, lookup by name, and hex for the heap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols.h"

int64_t sym_data_global = 42;
int32_t sym_bss_global;
struct {
	int32_t a, b;
} sym_pair = { 7, -3 };
int64_t sym_changed = 5;

__attribute__((noinline)) int sym_function(int x)
{
	return x * 3 + 1;
}

static struct vsc_symbols *syms;

static int setup(void **state)
{
	(void)state;
	syms = vsc_symbols_new(getpid());
	return syms ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	vsc_symbols_free(syms);
	return 0;
}

static void test_names(void **state)
{
	(void)state;
	char buf[128];
	assert_int_equal(vsc_symbols_name(syms, (uintptr_t)&sym_data_global, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "sym_data_global");
	assert_int_equal(vsc_symbols_name(syms, (uintptr_t)&sym_pair.b, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "sym_pair:4");
	void *heap = malloc(64);
	assert_int_equal(vsc_symbols_name(syms, (uintptr_t)heap, buf, sizeof(buf)), -ENOENT);
	free(heap);
}

static void test_initial_values(void **state)
{
	(void)state;
	int64_t v = -1;
	sym_changed = 9; /* the ELF file still says 5 */
	assert_int_equal(vsc_symbols_init_value(syms, (uintptr_t)&sym_data_global, 8, &v), 1);
	assert_int_equal(v, 42);
	assert_int_equal(vsc_symbols_init_value(syms, (uintptr_t)&sym_bss_global, 4, &v), 1);
	assert_int_equal(v, 0);
	assert_int_equal(vsc_symbols_init_value(syms, (uintptr_t)&sym_pair.b, 4, &v), 1);
	assert_int_equal((int32_t)v, -3); /* raw bits, zero-extended */
	assert_int_equal(vsc_symbols_init_value(syms, (uintptr_t)&sym_changed, 8, &v), 1);
	assert_int_equal(v, 5);
	int64_t on_stack = 1;
	assert_int_equal(vsc_symbols_init_value(syms, (uintptr_t)&on_stack, 8, &v), 0);
}

static void test_locate_and_find(void **state)
{
	(void)state;
	char buf[256];
	assert_int_equal(sym_function(2), 7);
	uintptr_t ip = (uintptr_t)&sym_function + 1;
	assert_int_equal(vsc_symbols_locate(syms, ip, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "sym_function+0x1"));
	uint64_t addr = 0, size = 0;
	assert_int_equal(vsc_symbols_find(syms, "sym_pair", &addr, &size), 0);
	assert_int_equal(addr, (uintptr_t)&sym_pair);
	assert_int_equal(size, sizeof(sym_pair));
	assert_int_equal(vsc_symbols_find(syms, "no_such_symbol_here", &addr, &size), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_initial_values),
		cmocka_unit_test(test_locate_and_find),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
