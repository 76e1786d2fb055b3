/* SPDX-License-Identifier: MIT */
#include "cli.h"
#include "../maps/common/map.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "maplab %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

int cli_parse_u64(const char *cmd, const char *opt, const char *text,
		  uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 0);
	if (*text == '-' || *text == '\0' || *end || errno || v < min ||
	    v > max) {
		cli_error(cmd, "--%s wants a whole number from %" PRIu64
			  " to %" PRIu64 ", got '%s'", opt, min, max, text);
		return -1;
	}
	*out = v;
	return 0;
}

int cli_parse_map_flags(const char *cmd, const char *text, uint32_t *out)
{
	static const struct {
		const char *name;
		uint32_t bit;
	} names[] = {
		{ "no_prealloc", MAP_F_NO_PREALLOC },
		{ "no_common_lru", MAP_F_NO_COMMON_LRU },
		{ "zero_seed", MAP_F_ZERO_SEED },
	};
	char *copy = strdup(text), *save = NULL;
	if (!copy)
		return -1;
	*out = 0;
	for (char *f = strtok_r(copy, "|,", &save); f;
	     f = strtok_r(NULL, "|,", &save)) {
		size_t i;
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strcmp(f, names[i].name) == 0)
				break;
		if (i == sizeof(names) / sizeof(names[0])) {
			cli_error(cmd, "unknown map flag '%s' (no_prealloc, "
				  "no_common_lru, zero_seed)", f);
			free(copy);
			return -1;
		}
		*out |= names[i].bit;
	}
	free(copy);
	return 0;
}
