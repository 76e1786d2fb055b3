/* SPDX-License-Identifier: MIT */
/*
 * cli.h: what maplab's commands share: the command table, exit statuses
 * and option parsing helpers that print one clear line on bad input.
 */
#ifndef MAPLAB_CLI_H
#define MAPLAB_CLI_H

#include <stdint.h>

/* Exit statuses (DESIGN.md, "CLI"). */
enum {
	EXIT_OK = 0,
	EXIT_CHECK_FAILED = 1, /* validate found differences */
	EXIT_USAGE = 2,        /* bad usage or bad input */
};

struct cli_command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

int cmd_list(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_gentrace(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_stress(int argc, char **argv);
int cmd_kbench(int argc, char **argv);
int cmd_compare(int argc, char **argv);

/* "maplab <cmd>: <message>" on stderr; returns EXIT_USAGE. */
int cli_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Parse an unsigned option value within [min, max]; on failure print
 * "maplab CMD: --OPT wants ..." and return -1. */
int cli_parse_u64(const char *cmd, const char *opt, const char *text,
		  uint64_t min, uint64_t max, uint64_t *out);

/* Parse map flag names "no_prealloc|zero_seed" (or a number). */
int cli_parse_map_flags(const char *cmd, const char *text, uint32_t *out);

#endif /* MAPLAB_CLI_H */
