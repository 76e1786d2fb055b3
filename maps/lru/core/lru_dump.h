/* SPDX-License-Identifier: MIT */
/*
 * lru_dump.h: the inner state of an LRU design on lru_htab, as `maplab
 * dump` shows it (map_ops.dump_state), in text or as a Graphviz digraph.
 * The core's half: map_ops.dump_state itself (lru_htab_dump_state,
 * declared with the other map_ops in lru_htab.h), which hands the map to
 * its policy's dump, and the pieces every policy's dump is drawn with (the
 * opening and closing of a digraph, one list, one key).
 *
 *   text:  "name (n): key* key [hand]key ..."   newest first, as the
 *                                               kernel draws a list;
 *                                               * a set ref bit
 *   dot:   subgraph cluster_<id> { head -> key -> key -> ... }
 *
 * A dump reads the policy's lists and the elements' keys and ref bits as
 * they are: the caller holds whatever keeps them still (the policy's lock,
 * or no other thread on the map, as in `maplab dump`).  Nothing here takes
 * a lock or writes to the map.
 */
#ifndef MAPLAB_LRU_DUMP_H
#define MAPLAB_LRU_DUMP_H

#include "maps/base/dlist.h"
#include "maps/base/map.h"
#include "maps/lru/core/lru_htab.h"

#include <stddef.h>
#include <stdio.h>

/* The digraph's opening (with its title) and closing lines (dot);
 * nothing for text. */
void lru_dump_begin(FILE *f, enum map_dump_format fmt, const char *title);
void lru_dump_end(FILE *f, enum map_dump_format fmt);

/*
 * One list, newest first as the kernel draws it: "name (n): key* key ..."
 * (text; * marks a set ref bit) or a dot cluster of nodes.  hand, if not
 * NULL, is marked.  `id` names the dot cluster (unique in the graph).
 */
void lru_dump_list(struct lru_htab *h, FILE *f, enum map_dump_format fmt,
		   const char *id, const char *name, const struct dlist *head,
		   const struct dlist *hand);

/* Nodes on a list, and a node's key as hex: for a policy's own lines. */
size_t lru_dump_list_length(const struct dlist *head);
void lru_dump_key(FILE *f, struct lru_htab *h, const struct lru_node *n);

#endif /* MAPLAB_LRU_DUMP_H */
