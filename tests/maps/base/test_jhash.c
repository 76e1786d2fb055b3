/* SPDX-License-Identifier: MIT */
/*
 * The hash must be the kernel's, bit for bit, or bucket placement (and so
 * get_next_key order) cannot match.  Reference values: Bob Jenkins'
 * lookup3.c driver (hashlittle of "" and "Four score and seven years
 * ago"), which the kernel's jhash reproduces; and the kernel-observed fact
 * that jhash2 over words equals jhash over the same bytes.
 */
#include <criterion/criterion.h>

#include "maps/base/jhash.h"

Test(jhash, lookup3_reference_values)
{
	cr_expect_eq(map_jhash("", 0, 0), 0xdeadbeefu);
	cr_expect_eq(map_jhash("", 0, 0xdeadbeef), 0xbd5b7ddeu);
	const char *s = "Four score and seven years ago";
	cr_expect_eq(map_jhash(s, 30, 0), 0x17770551u);
	cr_expect_eq(map_jhash(s, 30, 1), 0xcd628161u);
}

Test(jhash, seed_changes_every_length)
{
	uint8_t buf[64];
	for (unsigned i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 37 + 1);
	for (uint32_t len = 1; len <= sizeof(buf); len++)
		cr_expect_neq(map_jhash(buf, len, 0), map_jhash(buf, len, 1),
			      "len %u", len);
}

Test(jhash, every_byte_counts)
{
	/* Tail handling: flipping any one byte of a 1..40-byte key changes
	 * the hash (a dropped tail byte would not). */
	uint8_t buf[40] = { 0 };
	for (uint32_t len = 1; len <= sizeof(buf); len++) {
		uint32_t h = map_jhash(buf, len, 0);
		for (uint32_t i = 0; i < len; i++) {
			buf[i] ^= 0x80;
			cr_expect_neq(map_jhash(buf, len, 0), h, "len %u byte %u",
				      len, i);
			buf[i] ^= 0x80;
		}
	}
}
