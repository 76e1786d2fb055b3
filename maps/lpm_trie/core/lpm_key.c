/* SPDX-License-Identifier: MIT */
/* lpm_key.c: see lpm_key.h. */
#include "maps/lpm_trie/core/lpm_key.h"

void lpm_print_prefix(FILE *f, const uint8_t *data, uint32_t data_size,
		      uint32_t prefixlen)
{
	for (uint32_t i = 0; i < data_size; i++) {
		if (data_size == 4)
			fprintf(f, i ? ".%u" : "%u", data[i]);
		else if (data_size == 16)
			fprintf(f, i && i % 2 == 0 ? ":%02x" : "%02x", data[i]);
		else
			fprintf(f, "%02x", data[i]);
	}
	fprintf(f, "/%u", prefixlen);
}
