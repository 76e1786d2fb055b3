/* SPDX-License-Identifier: MIT */
#include "cli/cli.h"
#include "harness/common/parse.h"
#include "maps/base/map.h"
#include "maps/base/rcu.h"

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


int cli_apply_rcu(const char *cmd, const char *text)
{
	char shown[80];
	if (strcmp(text, "memb") == 0)
		map_rcu_use(MAP_RCU_MEMB);
	else if (strcmp(text, "qsbr") == 0)
		map_rcu_use(MAP_RCU_QSBR);
	else
		return cli_error(cmd, "--rcu wants memb or qsbr, got '%s'",
				 parse_printable(text, shown, sizeof(shown)));
	return 0;
}

int cli_apply_flags(const char *cmd, const char *text, uint32_t *flags)
{
	char bad[80];
	if (parse_map_flags(text, flags, bad, sizeof(bad)))
		return cli_error(cmd, "unknown map flag '%s' (%s, or a number)",
				 bad, map_flag_name_list());
	return 0;
}

