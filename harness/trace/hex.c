/* SPDX-License-Identifier: MIT */
/* hex.c: see hex.h. */
#include "harness/trace/hex.h"
#include "harness/common/parse.h"

#include <string.h>

int hex_decode(const char *s, uint8_t *out, size_t n)
{
	if (strlen(s) != 2 * n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int hi = parse_hex_digit(s[2 * i]);
		int lo = parse_hex_digit(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

/* A chunk at a time into a local buffer: one stdio call per 64 bytes,
 * not one per digit (a replay's dumps print most of its output). */
void hex_print(FILE *f, const uint8_t *bytes, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char buf[128];
	while (n) {
		size_t chunk = n < sizeof(buf) / 2 ? n : sizeof(buf) / 2;
		for (size_t i = 0; i < chunk; i++) {
			buf[2 * i] = digits[bytes[i] >> 4];
			buf[2 * i + 1] = digits[bytes[i] & 15];
		}
		fwrite(buf, 1, 2 * chunk, f);
		bytes += chunk;
		n -= chunk;
	}
}
