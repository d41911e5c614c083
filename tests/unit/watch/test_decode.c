/* SPDX-License-Identifier: MIT */
/*
 * The watchpoint decoder (userspace/capture/decode.c) on known machine code:
 * which instruction ends at (x86-64) or sits at (ARM64) the reported IP,
 * its kind, and the values rebuilt from registers. No kernel needed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "decode.h"
#include "llsc_guard.h"

/* x86-64, assembled with GNU as:
 *  0: mov rax, [rip+0x10]         7: mov edx, 1
 *  c: lock xadd [rdi], rdx       11: mov rcx, rsi
 * 14: xchg [rdi], rcx            17: lock cmpxchg [rdi], ecx
 * 1b: add dword [rdi], 1         1e: mov byte [rdi], 5
 * 21: cmp [rdi], rax             24: lock or word [rdi], cx
 * 28: mov r8d, 7                 2e: L: xchg [rdi], r8
 * 31: jmp L                      33: movsx ecx, byte [rdi]
 * 36: ret */
static const uint8_t x86_code[] = {
	0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00, 0xba, 0x01, 0x00, 0x00, 0x00, 0xf0, 0x48,
	0x0f, 0xc1, 0x17, 0x48, 0x89, 0xf1, 0x48, 0x87, 0x0f, 0xf0, 0x0f, 0xb1, 0x0f, 0x83,
	0x07, 0x01, 0xc6, 0x07, 0x05, 0x48, 0x39, 0x07, 0x66, 0xf0, 0x09, 0x0f, 0x41, 0xb8,
	0x07, 0x00, 0x00, 0x00, 0x4c, 0x87, 0x07, 0xeb, 0xfb, 0x0f, 0xbe, 0x0f, 0xc3,
};
#define BASE 0x401000u

/* pt_regs indices */
enum {
	R8 = 9,
	RAX = 10,
	RCX = 11,
	RDX = 12,
	RSI = 13,
	EFLAGS = 18
};

static struct watch_insn find_x86(uint64_t off, int want_err)
{
	struct watch_decoder *dec = watch_decoder_new(WATCH_ARCH_X86_64);
	struct watch_insn insn;
	assert_non_null(dec);
	int err = watch_decoder_find(dec, x86_code, sizeof(x86_code), BASE, BASE + off,
				     sizeof(x86_code), true, &insn);
	assert_int_equal(err, want_err);
	watch_decoder_free(dec);
	return insn;
}

static void test_x86_kinds(void **state)
{
	(void)state;
	struct watch_insn i;

	i = find_x86(0x7, 0);
	assert_int_equal(i.addr, BASE);
	assert_int_equal(i.access, WATCH_ACCESS_LOAD);
	assert_int_equal(i.op, WATCH_OP_MOV_LOAD);
	assert_int_equal(i.reg, RAX);
	assert_int_equal(i.mem_size, 8);

	i = find_x86(0x11, 0);
	assert_int_equal(i.access, WATCH_ACCESS_RMW);
	assert_int_equal(i.op, WATCH_OP_XADD);
	assert_int_equal(i.reg, RDX);
	assert_true(i.has_pre_imm); /* mov edx, 1 just before */
	assert_int_equal(i.pre_imm, 1);

	i = find_x86(0x17, 0);
	assert_int_equal(i.op, WATCH_OP_XCHG);
	assert_int_equal(i.reg, RCX);
	assert_int_equal(i.pre_reg, RSI); /* mov rcx, rsi; rsi unchanged since */

	i = find_x86(0x1b, 0);
	assert_int_equal(i.access, WATCH_ACCESS_RMW);
	assert_int_equal(i.op, WATCH_OP_CMPXCHG);
	assert_int_equal(i.reg, RCX);
	assert_int_equal(i.reg2, RAX);
	assert_int_equal(i.mem_size, 4);

	i = find_x86(0x1e, 0);
	assert_int_equal(i.access, WATCH_ACCESS_LOAD_STORE); /* not atomic */
	assert_int_equal(i.op, WATCH_OP_ADD);
	assert_true(i.has_imm);
	assert_int_equal(i.imm, 1);

	i = find_x86(0x21, 0);
	assert_int_equal(i.access, WATCH_ACCESS_STORE);
	assert_true(i.has_imm);
	assert_int_equal(i.imm, 5);
	assert_int_equal(i.mem_size, 1);

	i = find_x86(0x24, 0);
	assert_int_equal(i.access, WATCH_ACCESS_LOAD); /* cmp */

	i = find_x86(0x28, 0);
	assert_int_equal(i.access, WATCH_ACCESS_RMW);
	assert_int_equal(i.op, WATCH_OP_OR);
	assert_int_equal(i.mem_size, 2);

	/* xchg at a branch target: the mov before it may not have run */
	i = find_x86(0x31, 0);
	assert_int_equal(i.op, WATCH_OP_XCHG);
	assert_int_equal(i.reg, R8);
	assert_false(i.has_pre_imm);
	assert_int_equal(i.pre_reg, -1);

	i = find_x86(0x36, 0);
	assert_int_equal(i.access, WATCH_ACCESS_LOAD);
	assert_true(i.sign_extend);
	assert_int_equal(i.mem_size, 1);

	/* not an instruction boundary: no guess */
	i = find_x86(0x10, -ENOENT);
	assert_int_equal(i.access, WATCH_ACCESS_UNKNOWN);
}

static struct watch_record record(uint64_t mem, unsigned size)
{
	struct watch_record rec;
	memset(&rec, 0, sizeof(rec));
	rec.ev.value = (int64_t)mem;
	rec.ev.size = (uint16_t)size;
	rec.ev.tid = 7;
	rec.ev.flags = VSC_CAP_F_VALUE_UNSURE;
	rec.rec_flags = WATCH_REC_MEM_READ;
	return rec;
}

static int values(enum watch_arch arch, const struct watch_insn *i, const struct watch_record *rec,
		  struct vsc_capture_event out[2], struct watch_value_stats *st)
{
	memset(st, 0, sizeof(*st));
	return watch_access_values(arch, i, rec, out, st);
}

/* By pages (WATCH_REC_MEM_STILL): memory before (ev.new_value) and after
 * (ev.value), nothing else running: every value exact, whatever the
 * instruction. */
/* String instructions: movsq (48 a5) and cmpsb (a6) name two memory
 * operands, stosq (48 ab) one; then ret. */
static const uint8_t x86_strings[] = { 0x48, 0xa5, 0xa6, 0x48, 0xab, 0xc3 };

static int find_string_insn(uint64_t end, struct watch_insn *insn)
{
	struct watch_decoder *dec = watch_decoder_new(WATCH_ARCH_X86_64);
	assert_non_null(dec);
	int err = watch_decoder_find(dec, x86_strings, sizeof(x86_strings), BASE, BASE + end,
				     sizeof(x86_strings), true, insn);
	watch_decoder_free(dec);
	return err;
}

/* An access by movs or cmps is not taken for an access of its first
 * operand: not understood (its value marked unsure), never a store. */
static void test_x86_two_memory_operands(void **state)
{
	(void)state;
	struct watch_insn i;

	assert_int_equal(find_string_insn(2, &i), -ENOENT); /* movsq */
	assert_int_equal(i.access, WATCH_ACCESS_UNKNOWN);
	assert_int_equal(find_string_insn(3, &i), -ENOENT); /* cmpsb */
	assert_int_equal(i.access, WATCH_ACCESS_UNKNOWN);
	assert_int_equal(find_string_insn(5, &i), 0); /* stosq: one operand */
	assert_int_equal(i.access, WATCH_ACCESS_STORE);
}

static void test_pages_values(void **state)
{
	(void)state;
	struct vsc_capture_event ev[2];
	struct watch_value_stats st;
	struct watch_insn i;
	struct watch_record rec;

	/* lock or (breakpoints: the write only, marked) */
	i = find_x86(0x28, 0);
	rec = record(0x103, 2);
	rec.ev.new_value = 0x101;
	rec.rec_flags |= WATCH_REC_MEM_STILL;
	assert_int_equal(values(WATCH_ARCH_X86_64, &i, &rec, ev, &st), 1);
	assert_int_equal(ev[0].kind, VSC_CAP_RMW);
	assert_int_equal(ev[0].value, 0x101);
	assert_int_equal(ev[0].new_value, 0x103);
	assert_int_equal(ev[0].flags & VSC_CAP_F_VALUE_UNSURE, 0);
	assert_int_equal(st.unsure, 0);

	/* lock cmpxchg that failed (ZF clear): a read of what was there */
	i = find_x86(0x1b, 0);
	rec = record(5, 8);
	rec.ev.new_value = 5;
	rec.rec_flags |= WATCH_REC_MEM_STILL;
	assert_int_equal(values(WATCH_ARCH_X86_64, &i, &rec, ev, &st), 1);
	assert_int_equal(ev[0].kind, VSC_CAP_LOAD);
	assert_int_equal(ev[0].value, 5);
	assert_int_equal(ev[0].flags & VSC_CAP_F_VALUE_UNSURE, 0);
	/* ... that succeeded (ZF set): old and new */
	rec.ev.value = 6;
	rec.regs[EFLAGS] = 1u << 6;
	values(WATCH_ARCH_X86_64, &i, &rec, ev, &st);
	assert_int_equal(ev[0].kind, VSC_CAP_RMW);
	assert_int_equal(ev[0].value, 5);
	assert_int_equal(ev[0].new_value, 6);

	/* addl $1 (not atomic): a read then a write, both exact */
	i = find_x86(0x1e, 0);
	rec = record(8, 4);
	rec.ev.new_value = 7;
	rec.rec_flags |= WATCH_REC_MEM_STILL;
	assert_int_equal(values(WATCH_ARCH_X86_64, &i, &rec, ev, &st), 2);
	assert_int_equal(ev[0].kind, VSC_CAP_LOAD);
	assert_int_equal(ev[0].value, 7);
	assert_int_equal(ev[1].kind, VSC_CAP_STORE);
	assert_int_equal(ev[1].value, 8);
	assert_int_equal(st.unsure, 0);
}

static void test_x86_values(void **state)
{
	(void)state;
	struct vsc_capture_event ev[2];
	struct watch_value_stats st;
	struct watch_insn i;
	struct watch_record rec;

	/* lock xadd: old from rdx, new = old + 1 from the mov before */
	i = find_x86(0x11, 0);
	rec = record(42, 8);
	rec.regs[RDX] = 41;
	assert_int_equal(values(WATCH_ARCH_X86_64, &i, &rec, ev, &st), 1);
	assert_int_equal(ev[0].kind, VSC_CAP_RMW);
	assert_int_equal(ev[0].value, 41);
	assert_int_equal(ev[0].new_value, 42);
	assert_int_equal(ev[0].flags & VSC_CAP_F_VALUE_UNSURE, 0);
	/* ... and when another thread wrote before the BPF read, the
	 * registers still give the truth and the race is counted */
	rec.ev.value = 50;
	values(WATCH_ARCH_X86_64, &i, &rec, ev, &st);
	assert_int_equal(ev[0].new_value, 42);
	assert_int_equal(st.raced, 1);

	/* xchg: old from rcx, new from rsi */
	i = find_x86(0x17, 0);
	rec = record(9, 8);
	rec.regs[RCX] = 3;
	rec.regs[RSI] = 9;
	values(WATCH_ARCH_X86_64, &i, &rec, ev, &st);
	assert_int_equal(ev[0].kind, VSC_CAP_RMW);
	assert_int_equal(ev[0].value, 3);
	assert_int_equal(ev[0].new_value, 9);
	assert_int_equal(st.unsure, 0);

	/* cmpxchg success (ZF) and failure */
	i = find_x86(0x1b, 0);
	rec = record(9, 4);
	rec.regs[RAX] = 5;
	rec.regs[RCX] = 9;
	rec.regs[EFLAGS] = 1u << 6;
	values(WATCH_ARCH_X86_64, &i, &rec, ev, &st);
	assert_int_equal(ev[0].kind, VSC_CAP_RMW);
	assert_int_equal(ev[0].value, 5);
	assert_int_equal(ev[0].new_value, 9);
	/* a success whose source register was not captured: it wrote, and
	 * what it wrote is only known from memory (unsure) */
	struct watch_insn blind = i;
	blind.reg = -1;
	blind.has_imm = false;
	rec.ev.value = 12;
	values(WATCH_ARCH_X86_64, &blind, &rec, ev, &st);
	assert_int_equal(ev[0].kind, VSC_CAP_RMW);
	assert_int_equal(ev[0].value, 5);
	assert_int_equal(ev[0].new_value, 12);
	assert_true(ev[0].flags & VSC_CAP_F_VALUE_UNSURE);
	assert_int_equal(st.unsure, 1);
	rec.regs[EFLAGS] = 0;
	rec.regs[RAX] = 0xffffffff; /* what it read: -1 as a 4-byte value */
	rec.ev.value = 0xffffffff;
	values(WATCH_ARCH_X86_64, &i, &rec, ev, &st);
	assert_int_equal(ev[0].kind, VSC_CAP_LOAD);
	assert_int_equal(ev[0].value, -1);
	assert_int_equal(st.unsure, 0);

	/* plain add: a read and a write, values from memory (unsure) */
	i = find_x86(0x1e, 0);
	rec = record(11, 4);
	assert_int_equal(values(WATCH_ARCH_X86_64, &i, &rec, ev, &st), 2);
	assert_int_equal(ev[0].kind, VSC_CAP_LOAD);
	assert_int_equal(ev[0].value, 10);
	assert_int_equal(ev[1].kind, VSC_CAP_STORE);
	assert_int_equal(ev[1].value, 11);
	assert_true(ev[0].flags & VSC_CAP_F_VALUE_UNSURE);

	/* store of an immediate: exact */
	i = find_x86(0x21, 0);
	rec = record(5, 1);
	values(WATCH_ARCH_X86_64, &i, &rec, ev, &st);
	assert_int_equal(ev[0].kind, VSC_CAP_STORE);
	assert_int_equal(ev[0].value, 5);
	assert_int_equal(ev[0].flags & VSC_CAP_F_VALUE_UNSURE, 0);

	/* lock or: the old value is gone; a store of the new one, unsure */
	i = find_x86(0x28, 0);
	rec = record(6, 2);
	values(WATCH_ARCH_X86_64, &i, &rec, ev, &st);
	assert_int_equal(ev[0].kind, VSC_CAP_STORE);
	assert_int_equal(ev[0].value, 6);
	assert_true(ev[0].flags & VSC_CAP_F_VALUE_UNSURE);

	/* load through movsx of a byte: the register is sign-extended */
	i = find_x86(0x36, 0);
	rec = record(0xff, 1);
	rec.regs[RCX] = 0xffffffff;
	values(WATCH_ARCH_X86_64, &i, &rec, ev, &st);
	assert_int_equal(ev[0].value, -1);
	assert_int_equal(st.unsure, 0);
}

static struct watch_insn find_a64(uint32_t word, int want_err)
{
	struct watch_decoder *dec = watch_decoder_new(WATCH_ARCH_ARM64);
	struct watch_insn insn;
	uint8_t code[4];
	assert_non_null(dec);
	memcpy(code, &word, 4); /* little-endian host, as the target */
	int err = watch_decoder_find(dec, code, 4, BASE, BASE, 4, true, &insn);
	assert_int_equal(err, want_err);
	watch_decoder_free(dec);
	return insn;
}

static void test_arm64(void **state)
{
	(void)state;
	struct watch_insn i;
	struct vsc_capture_event ev[2];
	struct watch_value_stats st;
	struct watch_record rec;

	i = find_a64(0xf9400001, 0); /* ldr x1, [x0] */
	assert_int_equal(i.access, WATCH_ACCESS_LOAD);
	assert_int_equal(i.reg, 1);
	assert_int_equal(i.mem_size, 8);
	i = find_a64(0x39400002, 0); /* ldrb w2, [x0] */
	assert_int_equal(i.mem_size, 1);
	i = find_a64(0x79800003, 0); /* ldrsh x3, [x0] */
	assert_int_equal(i.mem_size, 2);
	assert_true(i.sign_extend);
	i = find_a64(0x79000001, 0); /* strh w1, [x0] */
	assert_int_equal(i.access, WATCH_ACCESS_STORE);
	assert_int_equal(i.mem_size, 2);
	i = find_a64(0xb900001f, 0); /* str wzr, [x0]: 4 bytes */
	assert_int_equal(i.access, WATCH_ACCESS_STORE);
	assert_int_equal(i.mem_size, 4);
	i = find_a64(0xb9800001, 0); /* ldrsw x1, [x0]: 4 bytes */
	assert_int_equal(i.mem_size, 4);
	assert_true(i.sign_extend);
	i = find_a64(0xc85f7c01, 0); /* ldxr x1, [x0] */
	assert_int_equal(i.access, WATCH_ACCESS_LOAD_EXCL);
	assert_int_equal(i.mem_size, 8);
	i = find_a64(0x885ffc01, 0); /* ldaxr w1, [x0] */
	assert_int_equal(i.access, WATCH_ACCESS_LOAD_EXCL);
	assert_int_equal(i.mem_size, 4);
	i = find_a64(0x085f7c01, 0); /* ldxrb w1, [x0] */
	assert_int_equal(i.access, WATCH_ACCESS_LOAD_EXCL);
	assert_int_equal(i.mem_size, 1);
	i = find_a64(0xc8dffc01, 0); /* ldar x1, [x0]: acquire, not exclusive */
	assert_int_equal(i.access, WATCH_ACCESS_LOAD);
	i = find_a64(0xc8027c01, 0); /* stxr w2, x1, [x0] */
	assert_int_equal(i.access, WATCH_ACCESS_STORE_EXCL);
	assert_int_equal(i.reg, 1);
	i = find_a64(0xf8210002, 0); /* ldadd x1, x2, [x0] */
	assert_int_equal(i.access, WATCH_ACCESS_RMW);
	assert_int_equal(i.op, WATCH_OP_ADD);
	assert_int_equal(i.reg, 1);
	assert_int_equal(i.reg2, 2);
	i = find_a64(0xf8238004, 0); /* swp x3, x4, [x0] */
	assert_int_equal(i.op, WATCH_OP_XCHG);
	i = find_a64(0xb8e18002 & ~0x8000u, 0); /* ldaddal w1, w2, [x0] */
	assert_int_equal(i.op, WATCH_OP_ADD);
	assert_int_equal(i.mem_size, 4);
	i = find_a64(0xc8a57c06, 0); /* cas x5, x6, [x0] */
	assert_int_equal(i.op, WATCH_OP_CMPXCHG);
	assert_int_equal(i.reg, 6);
	assert_int_equal(i.reg2, 5);

	/* ARM64 stops before the access: a store's value is its register */
	i = find_a64(0xf9000001, 0); /* str x1, [x0] */
	rec = record(3, 8);
	rec.regs[1] = 77;
	values(WATCH_ARCH_ARM64, &i, &rec, ev, &st);
	assert_int_equal(ev[0].kind, VSC_CAP_STORE);
	assert_int_equal(ev[0].value, 77);
	assert_int_equal(st.unsure, 0);
	/* str wzr to a 4-byte variable: exactly 0 (was: 8 bytes, unsure) */
	i = find_a64(0xb900001f, 0);
	rec = record(1, 4);
	values(WATCH_ARCH_ARM64, &i, &rec, ev, &st);
	assert_int_equal(ev[0].kind, VSC_CAP_STORE);
	assert_int_equal(ev[0].value, 0);
	assert_int_equal(st.unsure, 0);
	/* ldadd: old is the memory before, new = old + x1 */
	i = find_a64(0xf8210002, 0);
	rec = record(10, 8);
	rec.regs[1] = 5;
	values(WATCH_ARCH_ARM64, &i, &rec, ev, &st);
	assert_int_equal(ev[0].kind, VSC_CAP_RMW);
	assert_int_equal(ev[0].value, 10);
	assert_int_equal(ev[0].new_value, 15);
	/* cas: succeeds when memory equals the expected register */
	i = find_a64(0xc8a57c06, 0);
	rec = record(5, 8);
	rec.regs[5] = 5;
	rec.regs[6] = 9;
	values(WATCH_ARCH_ARM64, &i, &rec, ev, &st);
	assert_int_equal(ev[0].kind, VSC_CAP_RMW);
	assert_int_equal(ev[0].new_value, 9);
	rec.ev.value = 4;
	values(WATCH_ARCH_ARM64, &i, &rec, ev, &st);
	assert_int_equal(ev[0].kind, VSC_CAP_LOAD);
	assert_int_equal(ev[0].value, 4);
}

static bool exact_at(uint64_t off, unsigned size)
{
	struct watch_insn i = find_x86(off, 0);
	return watch_insn_values_exact(WATCH_ARCH_X86_64, &i, size);
}

/* Which accesses let the BPF program skip reading the variable. */
static void test_exact(void **state)
{
	(void)state;
	struct watch_insn i;
	struct vsc_capture_event ev[2];
	struct watch_value_stats st;
	struct watch_record rec;

	i = find_x86(0x7, 0);
	assert_true(watch_insn_values_exact(WATCH_ARCH_X86_64, &i, 8));
	assert_false(watch_insn_values_exact(WATCH_ARCH_X86_64, &i, 4)); /* wider */
	assert_true(exact_at(0x11, 8));
	assert_true(exact_at(0x17, 8));
	assert_true(exact_at(0x1b, 4));
	assert_true(exact_at(0x21, 1));
	assert_false(exact_at(0x1e, 4));
	assert_false(exact_at(0x24, 8));
	assert_false(exact_at(0x28, 2));
	assert_false(exact_at(0x31, 8));

	/* without a memory value, an exact load still gets its register ... */
	rec = record(0, 8);
	rec.rec_flags = 0;
	rec.regs[RAX] = 12;
	values(WATCH_ARCH_X86_64, &i, &rec, ev, &st);
	assert_int_equal(ev[0].value, 12);
	assert_int_equal(st.unsure + st.unknown + st.raced, 0);
	/* ... and an access that needs memory is marked, never guessed */
	i = find_x86(0x24, 0);
	values(WATCH_ARCH_X86_64, &i, &rec, ev, &st);
	assert_true(ev[0].flags & VSC_CAP_F_VALUE_UNSURE);
	assert_int_equal(st.unknown, 1);
}

/* A thread at one load-exclusive, reading one value, hit after hit: stuck
 * only after enough hits AND enough time; progress of any kind resets. */
static void test_llsc_guard(void **state)
{
	(void)state;
	struct llsc_guard g = { 0 };
	const uint64_t step = LLSC_STUCK_NS / LLSC_STUCK_HITS; /* hits fill the time */
	uint64_t t = 1000;
	bool stuck = false;
	unsigned n = 0;
	while (!stuck && n < 10 * LLSC_STUCK_HITS) {
		stuck = llsc_guard_stuck(&g, WATCH_ACCESS_LOAD_EXCL, 0x40, 7, t);
		/* a failing store-exclusive that traps is part of the loop */
		stuck = stuck || llsc_guard_stuck(&g, WATCH_ACCESS_STORE_EXCL, 0x44, 7, t + 1);
		t += step;
		n++;
	}
	assert_true(stuck);
	assert_in_range(n, LLSC_STUCK_HITS, LLSC_STUCK_HITS + 1);

	/* many hits quickly: not yet (a contended CAS loop retries fast) */
	g = (struct llsc_guard){ 0 };
	for (unsigned i = 0; i < 5 * LLSC_STUCK_HITS; i++)
		assert_false(llsc_guard_stuck(&g, WATCH_ACCESS_LOAD_EXCL, 0x40, 7, 1000 + i));
	/* a long time but few hits: not either */
	g = (struct llsc_guard){ 0 };
	for (unsigned i = 0; i < LLSC_STUCK_HITS - 1; i++)
		assert_false(llsc_guard_stuck(&g, WATCH_ACCESS_LOAD_EXCL, 0x40, 7,
					      (uint64_t)i * LLSC_STUCK_NS));

	/* a loop of atomic increments: the value changes every time */
	g = (struct llsc_guard){ 0 };
	for (unsigned i = 0; i < 3 * LLSC_STUCK_HITS; i++)
		assert_false(llsc_guard_stuck(&g, WATCH_ACCESS_LOAD_EXCL, 0x40, (int64_t)i,
					      (uint64_t)i * step * 4));
	/* another access between the loads: progress */
	g = (struct llsc_guard){ 0 };
	for (unsigned i = 0; i < 3 * LLSC_STUCK_HITS; i++) {
		assert_false(llsc_guard_stuck(&g, WATCH_ACCESS_LOAD_EXCL, 0x40, 7,
					      (uint64_t)i * step * 4));
		assert_false(llsc_guard_stuck(&g, WATCH_ACCESS_STORE, 0x80, 1,
					      (uint64_t)i * step * 4 + 1));
	}
	/* two load-exclusives taking turns (two loops, or a loop and a
	 * retry path): neither run grows */
	g = (struct llsc_guard){ 0 };
	for (unsigned i = 0; i < 3 * LLSC_STUCK_HITS; i++)
		assert_false(llsc_guard_stuck(&g, WATCH_ACCESS_LOAD_EXCL, i % 2 ? 0x40 : 0x60, 7,
					      (uint64_t)i * step * 4));
}

static void test_normalize(void **state)
{
	(void)state;
	assert_int_equal(watch_value_normalize(0xff, 1), -1);
	assert_int_equal(watch_value_normalize(0x17f, 1), 127);
	assert_int_equal(watch_value_normalize(0x8000, 2), -32768);
	assert_int_equal(watch_value_normalize(0xffffffffu, 4), -1);
	assert_int_equal(watch_value_normalize(0x7fffffffu, 4), 0x7fffffff);
	assert_int_equal(watch_value_normalize(UINT64_MAX, 8), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_kinds),    cmocka_unit_test(test_x86_values),
		cmocka_unit_test(test_pages_values), cmocka_unit_test(test_arm64),
		cmocka_unit_test(test_exact),        cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_llsc_guard),   cmocka_unit_test(test_x86_two_memory_operands),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
