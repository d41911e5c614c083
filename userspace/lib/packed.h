/* SPDX-License-Identifier: MIT */
/* Packed events: a parsed program keeps each event in 4 or 8 bytes, not
 * the 24 of struct vsc_event, while every event fits: the parser writes a
 * sixth or a third of the bytes, and the greedy run (and the witness
 * verifier) reads as few; struct vsc_event arrays are made from them only
 * when another solver or a caller asks for them (program_unpack()).
 *
 * A word holds the kind in bits 0-1 (a read or a write: an RMW never
 * fits), the variable above it, the value (two's complement, the sign
 * kept by an arithmetic shift back) in the bits above that:
 *   narrow, 4 bytes: a variable below 2^8, a value in [-2^21, 2^21);
 *   wide, 8 bytes: a variable below 2^22, a value in [-2^39, 2^39).
 * The parser starts narrow and widens (then unpacks) a program at its
 * first event that does not fit. */
#ifndef VSC_PACKED_H
#define VSC_PACKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vsc/vsc.h"

/* Inlined into the parser's and the greedy run's loops, where k is known. */
#define PACKED_INLINE static inline __attribute__((always_inline))

enum packing {
	PACKING_NONE = 0, /* struct vsc_event */
	PACKING_WIDE = 1,
	PACKING_NARROW = 2,
};

PACKED_INLINE unsigned packing_var_bits(enum packing k)
{
	return k == PACKING_NARROW ? 8 : 22;
}

PACKED_INLINE size_t packing_bytes(enum packing k)
{
	return k == PACKING_NARROW ? 4 : 8;
}

PACKED_INLINE bool packing_fits(enum packing k, uint32_t kind, uint32_t var, int64_t value)
{
	unsigned value_bits = 8 * (unsigned)packing_bytes(k) - 2 - packing_var_bits(k);
	uint64_t half = 1ULL << (value_bits - 1);

	return kind != VSC_RMW && var < (1U << packing_var_bits(k)) &&
	       (uint64_t)value + half < 2 * half;
}

/* The word of an event that fits k (narrow: its low 32 bits). */
PACKED_INLINE uint64_t packing_word(enum packing k, uint32_t kind, uint32_t var, int64_t value)
{
	return (uint64_t)value << (2 + packing_var_bits(k)) | (uint64_t)var << 2 | kind;
}

PACKED_INLINE void packed_put(void *array, enum packing k, uint32_t i, uint64_t word)
{
	if (k == PACKING_NARROW)
		((uint32_t *)array)[i] = (uint32_t)word;
	else
		((uint64_t *)array)[i] = word;
}

PACKED_INLINE struct vsc_event packed_get(const void *array, enum packing k, uint32_t i)
{
	unsigned shift = 2 + packing_var_bits(k);
	int64_t w = k == PACKING_NARROW ? (int32_t)((const uint32_t *)array)[i]
					: (int64_t)((const uint64_t *)array)[i];

	/* bit 1 of the kind is 0 (no RMW): saying so spares the loops their
	 * RMW code */
	return (struct vsc_event){ (uint32_t)(w & 1),
				   (uint32_t)(w >> 2) & ((1U << packing_var_bits(k)) - 1),
				   w >> shift, 0 };
}

#endif
