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
 * since a kernel pointer cannot cross into userspace.  kmap_prog_lookup is
 * the same lookup with its whole outcome, for the trace replayer.
 *
 * The program only tests the pointer it gets for NULL, so the verifier
 * accepts it on BPF_F_RDONLY_PROG and BPF_F_WRONLY_PROG maps alike (the
 * _PROG flags limit what a program does with the value).
 *
 * The same ops serve every map type: the replayer's "--map kernel" side.
 * Everything here needs root (or CAP_BPF) and a kernel with BPF.
 */
#ifndef MAPLAB_KMAP_H
#define MAPLAB_KMAP_H

#include "maps/base/map.h"

#include <stdbool.h>
#include <stddef.h>

extern const struct map_ops kmap_ops;

/*
 * Whether this process can create kernel maps and run programs.  0 if so;
 * else a negative errno and a one-line reason in why ("not root: BPF map
 * creation needs CAP_BPF").
 */
int kmap_available(char *why, size_t len);

/*
 * The program-style lookup: 0 when the program found key, -ENOENT when it
 * did not, any other -errno when the program could not be loaded or run
 * (-EMFILE: no file descriptor left for it) -- not an answer of the map.
 * Nothing is copied, so it answers on a BPF_F_WRONLY map too, where
 * userspace may not read values.
 */
int kmap_prog_lookup(struct map *map, const void *key);

/*
 * Whether the verifier's log is printed on stderr when it refuses the
 * lookup program (off by default: --verbose).
 */
void kmap_set_verbose(bool on);

#endif /* MAPLAB_KMAP_H */
