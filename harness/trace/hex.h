/* SPDX-License-Identifier: MIT */
/* hex.h: the byte strings of traces, as lowercase hex in memory order. */
#ifndef MAPLAB_HEX_H
#define MAPLAB_HEX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Decode exactly n bytes from the string s (2n hex digits, either case).
 * 0, or -1 if s has another length or a non-hex character.
 */
int hex_decode(const char *s, uint8_t *out, size_t n);

/* Write n bytes as 2n lowercase hex digits. */
void hex_print(FILE *f, const uint8_t *bytes, size_t n);

#endif /* MAPLAB_HEX_H */
