/* SPDX-License-Identifier: MIT */
/*
 * kmap.h: the kernel's own BPF maps behind maplab's map interface.
 *
 * kmap_ops is a struct map_ops whose create makes a real kernel map with
 * bpf(BPF_MAP_CREATE) through libbpf, and whose calls are the bpf(2)
 * syscalls: lookup_copy = BPF_MAP_LOOKUP_ELEM, update, delete,
 * get_next_key.  The program-style lookup runs a small BPF program with
 * BPF_PROG_TEST_RUN that calls bpf_map_lookup_elem() inside the kernel, so
 * it acts exactly as a program's lookup (an LRU map marks the key
 * referenced); the pointer it returns is to a private copy of the value,
 * since a kernel pointer cannot cross into userspace.
 *
 * The same ops serve every map type: the replayer's "--map kernel" side.
 * Everything here needs root (or CAP_BPF) and a kernel with BPF.
 */
#ifndef MAPLAB_KMAP_H
#define MAPLAB_KMAP_H

#include "maps/common/map.h"

#include <stddef.h>

extern const struct map_ops kmap_ops;

/*
 * Whether this process can create kernel maps and run programs.  0 if so;
 * else a negative errno and a one-line reason in why ("not root: BPF map
 * creation needs CAP_BPF").
 */
int kmap_available(char *why, size_t len);

/* The kernel map's fd (for kernel-compare's own use). */
int kmap_fd(struct map *map);

#endif /* MAPLAB_KMAP_H */
