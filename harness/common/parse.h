/* SPDX-License-Identifier: MIT */
/*
 * parse.h: how every maplab input spells a number, one way everywhere (the
 * command line and trace files alike).
 *
 *  - Counts and sizes are decimal: digits only.  No sign, no spaces, no
 *    0x or 0 prefixes that change the base ("010" is ten), no suffixes.
 *    A value outside the caller's range is refused, never wrapped.
 *  - Flag bits may also be hexadecimal with a 0x prefix (documented where
 *    flags are read), since the kernel's flags are written that way.
 *  - Fractions (seconds, exponents) are plain decimals ("0.5", "2"): no
 *    exponent, no sign, never inf or nan.
 */
#ifndef MAPLAB_PARSE_H
#define MAPLAB_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* 0 and *out set, or -1 when text is not a decimal number in [min, max]. */
int parse_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out);

/* As parse_u64, but "0x..." is read as hexadecimal too. */
int parse_bits(const char *text, uint64_t max, uint64_t *out);

/* 0 and *out set, or -1 when text is not a plain decimal fraction in
 * [min, max] (seconds, a zipf exponent). */
int parse_decimal(const char *text, double min, double max, double *out);

/*
 * Call item(word, ctx) for each word of text between separators (any byte
 * of seps), in order; stops at the first non-zero return and returns it.
 * An empty text or an empty word ("a,,b", "a,") is -1 without a call for
 * it, as is a word of 256 bytes or more.  parse_list: comma-separated.
 */
int parse_split(const char *text, const char *seps,
		int (*item)(const char *word, void *ctx), void *ctx);
int parse_list(const char *text, int (*item)(const char *word, void *ctx),
	       void *ctx);

/* Whole numbers within [min, max], comma-separated, at most max_n: into
 * out[0..*n).  0, or -1 (nothing said: the caller words the message). */
int parse_u64_list(const char *text, uint64_t min, uint64_t max,
		   uint64_t *out, unsigned max_n, unsigned *n);

/* The value of hex digit c, or -1. */
int parse_hex_digit(char c);

/*
 * Map creation flags: names from maps/base/map.h's table ("no_prealloc",
 * "zero_seed", "rdonly", ...) or numbers (decimal or 0x hex, for bits that
 * have no name), joined by '|' or ','.  0, or -1 with the word that is
 * neither copied (made printable) into bad.
 */
int parse_map_flags(const char *text, uint32_t *out, char *bad, size_t badlen);

/* "no_prealloc|zero_seed", with unnamed bits as one 0x number; "0" for
 * none.  Into buf; returns buf. */
const char *format_map_flags(uint32_t flags, char *buf, size_t len);

/* The flag names, "no_prealloc, no_common_lru, ...", for messages. */
const char *map_flag_name_list(void);

/*
 * text, with every byte that is not printable ASCII (0x20..0x7e) written as
 * \xNN, cut to fit len (with "..." when cut): safe to put in a message on
 * a terminal.  Returns buf.  The one way maplab shows input in a message
 * or an output: an argument, a file name, a word of a trace; cut input
 * first ("%.*s" of the escaped text can split an escape).
 */
const char *parse_printable(const char *text, char *buf, size_t len);

#endif /* MAPLAB_PARSE_H */
