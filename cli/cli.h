/* SPDX-License-Identifier: MIT */
/*
 * cli.h: what maplab's commands share: the command table, exit statuses
 * and option parsing helpers that print one clear line on bad input.
 */
#ifndef MAPLAB_CLI_H
#define MAPLAB_CLI_H

#include <stddef.h>
#include <stdint.h>

/* Exit statuses (docs/design.md, "The command line"). */
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
int cmd_dump(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_reproduce(int argc, char **argv);

struct trace;
/* Parse the trace in file ("-": stdin) into t.  0, or EXIT_USAGE after
 * one line (a file that cannot be opened, a malformed line). */
int cli_read_trace(const char *cmd, const char *file, struct trace *t);

/* A trace file's name as messages show it ("FILE:LINE: ..."): "stdin"
 * for "-", "random" for NULL (--random), else made printable.  Into buf
 * (CLI_TRACE_NAME_LEN); returns buf. */
#define CLI_TRACE_NAME_LEN 256
const char *cli_trace_name(const char *file, char *buf, size_t len);

/* "maplab <cmd>: <message>" on stderr; returns EXIT_USAGE. */
int cli_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* --rcu memb|qsbr: choose the flavour.  0 or EXIT_USAGE (message printed). */
int cli_apply_rcu(const char *cmd, const char *text);

/* --flags F|F: map creation flags.  0 or EXIT_USAGE (message printed). */
int cli_apply_flags(const char *cmd, const char *text, uint32_t *flags);

#endif /* MAPLAB_CLI_H */
