/* SPDX-License-Identifier: MIT */
/* maplab list: every design in the registry. */
#include "cli.h"
#include "maps/common/map.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

int cmd_list(int argc, char **argv)
{
	static const struct option opts[] = { { "help", no_argument, 0, 'h' },
					      { 0, 0, 0, 0 } };
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			puts("usage: maplab list\n\nEvery map design maplab "
			     "holds: its name (for --map), its map type,\nwhether "
			     "it matches the kernel op for op (*), and what it is.");
			return EXIT_OK;
		}
		return cli_error("list", "unknown option (try --help)");
	}
	if (optind < argc)
		return cli_error("list", "takes no arguments (try --help)");

	printf("%-22s %-9s %s\n", "design", "type", "description");
	for (size_t i = 0; map_registry[i]; i++) {
		const struct map_ops *o = map_registry[i];
		char name[40];
		snprintf(name, sizeof(name), "%s%s", o->name,
			 o->faithful ? " *" : "");
		printf("%-22s %-9s %s\n", name, map_type_name(o->type),
		       o->description);
	}
	puts("\n* kernel-faithful: matches the kernel's map op for op "
	     "(maplab validate checks it)");
	return EXIT_OK;
}
