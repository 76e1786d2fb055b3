/* SPDX-License-Identifier: MIT */
/* maplab list: every design in the registry. */
#include "cli/cli.h"
#include "cli/options.h"
#include "harness/common/outfile.h"
#include "maps/base/map.h"
#include "maps/base/unavailable.h"

#include <stdio.h>

static const char usage_list[] =
	"usage: maplab list\n\n"
	"Every map design maplab holds: its name (for --map), its map type,\n"
	"whether it matches the kernel op for op (*) and the kernel version\n"
	"whose behaviour it models, and what it is.\n";

static int no_options(void *ctx, enum opt_id id, const struct opt_value *v)
{
	(void)ctx, (void)id, (void)v;
	return cli_error("list", "takes no options (try --help)");
}

int cmd_list(int argc, char **argv)
{
	int rc = opts_parse("list", argc, argv, NULL, 0, no_options, NULL,
			    usage_list, NULL);
	if (rc)
		return rc == 1 ? EXIT_OK : rc;

	struct outfile out;
	out_stdout(&out);
	printf("%-22s %-9s %-18s %s\n", "design", "type", "kernels modelled",
	       "description");
	for (size_t i = 0; map_registry[i]; i++) {
		const struct map_ops *o = map_registry[i];
		char name[40];
		snprintf(name, sizeof(name), "%s%s", o->name,
			 o->faithful ? " *" : "");
		printf("%-22s %-9s %-18s %s\n", name, map_type_name(o->type),
		       o->faithful && o->models ? o->models : "",
		       o->description);
	}
	/* Designs this build lacks: named, so that a reader knows they exist. */
	for (size_t i = 0; map_unavailable[i].name; i++) {
		const struct map_unavailable *u = &map_unavailable[i];
		printf("%-22s %-9s %-18s (unavailable: %s)\n", u->name,
		       map_type_name(u->type), "", u->why);
	}
	puts("\n* kernel-faithful: matches the kernel's map op for op, on each "
	     "kernel version it models (maplab validate checks it; --model V "
	     "picks one, --kernel K boots one in a VM)");
	rc = out_close(&out);
	return rc ? opts_write_failed("list", &out, rc) : EXIT_OK;
}
