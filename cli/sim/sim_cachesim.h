/* SPDX-License-Identifier: MIT */
/*
 * sim_cachesim.h: `maplab sim` called the way cachesim is,
 *   maplab sim TRACE TYPE ALGO[,ALGO...] SIZE[,SIZE...] [cachesim options]
 * rewritten into maplab's own options (docs/sim.md, "cachesim's
 * conventions").
 */
#ifndef MAPLAB_SIM_CACHESIM_H
#define MAPLAB_SIM_CACHESIM_H

#include "cli/options.h"

/*
 * argv as maplab's options: cachesim's four arguments become --trace,
 * --trace-format, --policy and --sizes, its options their maplab
 * equivalents (-t: --trace-type-params).  An option maplab cannot honour
 * is refused with the maplab command line of the rest.  opts are sim's
 * (to tell an option's value from an argument).  0 with *out_argv (free()
 * it; its strings are argv's or static) and in notes, a line each, the
 * equivalent command line and what was taken with a note, for stderr once
 * the command line is known good; or EXIT_USAGE after one line.
 */
int sim_cachesim_translate(int argc, char **argv, const struct cmd_option *opts,
			   size_t n_opts, int *out_argc, char ***out_argv,
			   char *notes, size_t noteslen);

#endif /* MAPLAB_SIM_CACHESIM_H */
