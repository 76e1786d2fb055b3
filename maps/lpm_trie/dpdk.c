/* SPDX-License-Identifier: MIT */
/*
 * lpm_trie/dpdk: a baseline adapter over DPDK's rte_fib and rte_fib6
 * (Debian's libdpdk-dev, DPDK 22.11 LTS), as hash/dpdk is over rte_hash:
 * BPF LPM-trie semantics on top where the tables allow them.  The route
 * tables of userspace data planes (grout, VPP-like routers on DPDK).
 * docs/lpm_trie.md tells the DPDK defects this design works around, and
 * its figures.
 *
 * Two key sizes, each a 4-byte prefix length then the address, most
 * significant byte first:
 *   key_size 8   IPv4, rte_fib with its DIR-24-8 table;
 *   key_size 20  IPv6, rte_fib6 with its TRIE table.
 * Every other key size is refused at create with -EINVAL and one line on
 * stderr, never faked.  The two differ only in DPDK's calls and sizes
 * (struct lpm_dpdk_family: one table of operations each, the functions
 * lpm_dpdk_v4_* and lpm_dpdk_v6_*); places, the lock, flags, errors,
 * the top prefixes and the walk are written once.
 *
 * rte_fib and rte_fib6 keep two structures for one table:
 *   RIB  (rte_rib, rte_rib6) a binary trie of the prefixes, each with its
 *        next hop: exact-prefix lookups, covering prefixes, a walk
 *        (get_nxt);
 *   FIB  a 2^24-entry table (tbl24) indexed by an address's first 24 bits,
 *        then 256-entry tbl8 groups one byte a level: DIR-24-8 has one
 *        level (prefixes longer than /24), TRIE up to 13 (bytes 3 to 15
 *        of an IPv6 address); answers a full address with the longest
 *        match's next hop.
 *
 *   key -> RIB / FIB -> next hop n -> values: place n =
 *                                       [key bytes as given][value]
 *   top[0..W]: the prefixes of the all-ones address, beside the FIB
 *
 * Values live at places by id (maps/base/value_table.h, as lpm_trie/multibit's
 * compiled table keeps them), one per prefix and value generation, and
 * the next hop is the id: the FIB's answer leads to the value in one
 * load (the FIB's default next hop 0 means no route).  A BPF lookup
 * returns a pointer into the place.  Both tables keep one bit of each
 * entry as their "extended to a tbl8 group" mark, so an entry of b bytes
 * holds next hops up to 2^(8b - 1) - 1: both families' entries are 4
 * bytes, whatever max_entries, since ids may outnumber max_entries by a
 * grace period's updates (below).  The value table gives no id past the
 * entry's largest next hop.
 *
 * Semantics on top, and how each is kept (W = 32 or 128, the address's
 * bits):
 *  - lookup with prefix length L: the longest stored prefix of length
 *    <= L matching the key's first L bits (the kernel's rule).  L == W:
 *    one rte_fib_lookup_bulk / rte_fib6_lookup_bulk of the address (the
 *    FIB's fast path).  L < W: rte_rib(6)_lookup gives the longest match
 *    of the whole address, then rte_rib(6)_lookup_parent walks to shorter
 *    covering prefixes until one is no longer than L.  Every stored
 *    prefix that matches the address lies on that chain, so the first
 *    one <= L is the answer; a prefix longer than L never matches
 *    (masking the address to L bits would be wrong: 10.0.0.0/24 matches
 *    10.0.0.0 masked to /8).  L > W: no match (the kernel's lookup finds
 *    nothing either).
 *  - update: the exact prefix looked up in the RIB (lookup_exact) gives
 *    BPF_NOEXIST / BPF_EXIST.  Every update takes a new id and writes
 *    the key and value at its place first.  A new prefix:
 *    rte_fib(6)_add(address masked to L, L, id).  A present prefix moves
 *    to the new id (rte_fib(6)_add of a present prefix changes its next
 *    hop, every tbl24 and tbl8 entry of its range), and its old id is
 *    retired, so a reader sees the whole old value or the whole new one,
 *    never one written over.  A replace costs as much as an add where the
 *    kernel's trie swaps one node: the price of values in one load.
 *    max_entries prefixes in: -ENOSPC, as the kernel's trie (a replace is
 *    still allowed).
 *  - ids: an id retired by a replace or delete goes back to the value
 *    table after an RCU grace period (value_table_retire), since a program
 *    may hold its value's pointer for its read section.  A reader that
 *    holds grace periods back while one prefix is replaced over and over
 *    keeps every id it replaced out of use, and the value table grows:
 *    past the largest next hop (2^31 - 1) the update is -ENOMEM, the map
 *    unchanged, as the kernel's trie answers when it cannot allocate a
 *    node.
 *  - trailing bits (past the prefix length): the FIB and RIB keep the
 *    masked address, the place keeps the key's bytes as given (the
 *    kernel's node does too), and get_next_key returns those; a replace
 *    with other trailing bits keeps the new ones, as the kernel's does.
 *  - delete: rte_fib(6)_delete; the id is retired (above).
 *  - top prefixes: the W + 1 prefixes of the all-ones address (/0 to /W,
 *    the prefixes whose range ends at 2^W) never go into the FIB, whose
 *    22.11 add and delete send every address to such a prefix when more
 *    specific prefixes cover the end of its range (docs/lpm_trie.md).
 *    They sit in top[], and every lookup takes the longer of the FIB's
 *    (or RIB's) match and the longest stored top prefix the address
 *    falls in (its leading one bits say which can).  No other prefix
 *    reaches that edge: a prefix that covers one ending at 2^W ends
 *    there too.
 *  - reservations (IPv6): rte_fib6 refuses a prefix longer than /24 with
 *    -ENOSPC unless the tbl8 groups it may need fit beside those
 *    reserved (V6_TBL8_PER_PREFIX), and 22.11 never gives a reservation
 *    back (docs/lpm_trie.md).  So an add that meets -ENOSPC below
 *    max_entries rebuilds (fib_rebuild_locked): a new table of the
 *    prefixes held, the new one with them, built beside the old one and
 *    swapped in under the write lock; its reservations are the held
 *    prefixes' only, at most 13 each, so it fits.  Between two rebuilds
 *    at least (num_tbl8 - 13 * count) / 13 long prefixes can be added:
 *    rebuilds are rare in a map with room, and every add rebuilds,
 *    O(count), in one kept full of /121 to /128 prefixes in distinct
 *    /120s.  A delete that fails inside DPDK (it may need a group for a
 *    range's edge) rebuilds too.
 *  - get_next_key: the RIB's own order, rte_rib(6)_get_nxt over /0 with
 *    RTE_RIB(6)_GET_NXT_ALL (a post-order: more specific prefixes before
 *    the prefix that covers them, from the key's exact node; NULL key:
 *    from the start), then the top prefixes, longest first, /0 last.  Not
 *    the kernel's order (its post-order runs through all prefixes at
 *    once).  A key that is not in the map, or with a prefix length past
 *    W, restarts at the first, as the kernel's trie does.
 *  - flags: BPF_F_NO_PREALLOC is required (map_check_lpm_attr, as the
 *    kernel); nothing is preallocated but DPDK's tables.
 *
 * Concurrency.  rte_fib and rte_fib6 in 22.11 have no RCU reclamation: a
 * delete puts a tbl8 group back for reuse at once, and the RIB frees its
 * nodes to a mempool at once, so a lock-free reader could follow a
 * reused group or node.  Every reader therefore holds `lock` (a
 * reader-writer lock, writers preferred so that a stream of lookups
 * cannot starve updates) on its read side across the FIB or RIB lookup
 * (get_next_key's RIB walk and key copy too); updates and deletes
 * hold it exclusively, a rebuild too (the old table is freed under it).
 * Readers share the lock's cache line: lookups do not scale across cores
 * as the kernel's lock-free trie does.  `lock` guards `fib`, `rib`,
 * `fib_bytes`, the value table's writer side (take, put_now), `count`,
 * `top` and `n_top`.  An id is its prefix's while the FIB (or top[])
 * routes to it; a replace or delete takes it out under the write lock,
 * and it comes back through an RCU callback, never under a reader.
 *
 * Memory: DPDK's heap (rte_malloc, 3 GiB without hugepages,
 * maps/base/dpdk_eal.c).  IPv4: the tbl24, num_tbl8 = max_entries groups
 * of 256 entries (a prefix longer than /24 needs at most its /24's
 * group), the RIB's node pool (max_routes = max_entries).  IPv6: the
 * tbl24, num_tbl8 = 13 * max_entries + 1 groups, the RIB's pool.  Both:
 * the value table (places for min(max_entries, 65536) ids at create,
 * more in chunks of 4096).  memory() counts the EAL
 * heap that creating the table took (map_dpdk_heap_bytes before and
 * after), so all of it.  max_entries above the family's cap
 * (max_entries_cap: 2^20 for IPv4, 2^14 for IPv6) is refused with -E2BIG
 * and a message; an EAL that found no room for its heap is -ENOMEM, with
 * nothing of DPDK's on stderr (map_dpdk_start_for).
 */
#include "maps/base/attr.h"
#include "maps/base/dpdk_eal.h"
#include "maps/base/map.h"
#include "maps/base/rcu.h"
#include "maps/base/update_flags.h"
#include "maps/base/value_table.h"
#include "maps/lpm_trie/core/lpm_key.h"
#include "maps/lpm_trie/dpdk_fib.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_memory.h>
#include <rte_rib.h>
#include <rte_rib6.h>

#define ADDR_MAX 16u /* an address's bytes, at most (IPv6) */
#define BITS_MAX (8u * ADDR_MAX)
#define NO_ROUTE LPM_DPDK_NO_ROUTE

/* An address, most significant byte first, as in the key: the family's
 * bytes, zero past them. */
struct lpm_dpdk_addr {
	uint8_t b[ADDR_MAX];
};

/*
 * What differs between IPv4 (rte_fib, DIR-24-8) and IPv6 (rte_fib6,
 * TRIE): DPDK's calls, wrapped to take struct lpm_dpdk_addr, and the sizes.
 * `fib` is a struct rte_fib or rte_fib6, `rib` and `node` its RIB's.
 * Everything else (places, the lock, flags, errors, the top
 * prefixes, the walk) is the family's bits and these calls.
 */
struct lpm_dpdk_family {
	uint32_t key_size, bits;
	uint32_t max_entries_cap; /* see the top comment's "Memory" */
	void *(*fib_new)(const char *name, uint32_t max_entries);
	void (*fib_free)(void *fib);
	void *(*fib_rib)(void *fib);
	int (*fib_add)(void *fib, const struct lpm_dpdk_addr *a, uint8_t len,
		       uint64_t nh);
	int (*fib_delete)(void *fib, const struct lpm_dpdk_addr *a,
			  uint8_t len);
	/* n (1 to MAP_BATCH_MAX) full-length addresses' next hops */
	void (*fib_lookup)(void *fib, const struct lpm_dpdk_addr *a,
			   uint64_t *nh, unsigned n);
	void *(*rib_lookup)(void *rib, const struct lpm_dpdk_addr *a);
	void *(*rib_parent)(void *node);
	void *(*rib_exact)(void *rib, const struct lpm_dpdk_addr *a,
			   uint8_t len);
	/* the node after last (NULL: the first) in get_nxt's walk of all */
	void *(*rib_next)(void *rib, void *last);
	uint8_t (*rib_depth)(const void *node);
	uint64_t (*rib_nh)(const void *node);
};

struct lpm_dpdk {
	struct map map;
	const struct lpm_dpdk_family *fam;
	void *fib;                     /* rte_fib or rte_fib6 */
	void *rib;                     /* the FIB's own */
	size_t fib_bytes;              /* EAL heap that the FIB took */
	pthread_rwlock_t lock;         /* see the top comment */
	/* Places by next hop: [key as given][value], ids 1 and up. */
	struct value_table values;
	uint32_t count;                /* prefixes in, top[] included */
	/* The prefixes of the all-ones address, /0 included, kept beside
	 * the FIB (see "top prefixes" above): top[len] is /len's id or
	 * NO_ROUTE. */
	uint32_t top[BITS_MAX + 1];
	uint32_t n_top; /* top[] entries in use: none, and a lookup never
			   reads the FIB's place to compare lengths */
};

static struct lpm_dpdk *lpm_dpdk_of(struct map *m)
{
	return (struct lpm_dpdk *)m;
}

/* Where a place's value starts: past its key, 8-aligned. */
static size_t value_offset(const struct map *m)
{
	return (m->attr.key_size + 7u) & ~(size_t)7;
}

/* The key bytes an update gave for next hop id's prefix. */
static const uint8_t *key_of(const struct lpm_dpdk *t, uint32_t id)
{
	return value_table_at(&t->values, id);
}

/* Next hop id's value, or NULL for NO_ROUTE. */
static void *value_of(const struct lpm_dpdk *t, uint32_t id)
{
	return id == NO_ROUTE ? NULL
			      : (uint8_t *)value_table_at(&t->values, id) +
					value_offset(&t->map);
}

/* --- IPv4: rte_fib, DIR-24-8 -------------------------------------------------- */

static uint32_t lpm_dpdk_v4_of(const struct lpm_dpdk_addr *a)
{
	return (uint32_t)a->b[0] << 24 | (uint32_t)a->b[1] << 16 |
	       (uint32_t)a->b[2] << 8 | a->b[3];
}

static void *lpm_dpdk_v4_fib_new(const char *name, uint32_t max_entries)
{
	struct rte_fib_conf conf = lpm_dpdk_v4_conf(max_entries);
	return rte_fib_create(name, SOCKET_ID_ANY, &conf);
}

static void lpm_dpdk_v4_fib_free(void *fib)
{
	rte_fib_free(fib);
}

static void *lpm_dpdk_v4_fib_rib(void *fib)
{
	return rte_fib_get_rib(fib);
}

static int lpm_dpdk_v4_fib_add(void *fib, const struct lpm_dpdk_addr *a,
			       uint8_t len, uint64_t nh)
{
	return rte_fib_add(fib, lpm_dpdk_v4_of(a), len, nh);
}

static int lpm_dpdk_v4_fib_delete(void *fib, const struct lpm_dpdk_addr *a,
				  uint8_t len)
{
	return rte_fib_delete(fib, lpm_dpdk_v4_of(a), len);
}

static void lpm_dpdk_v4_fib_lookup(void *fib, const struct lpm_dpdk_addr *a,
				   uint64_t *nh, unsigned n)
{
	uint32_t ips[MAP_BATCH_MAX];
	for (unsigned i = 0; i < n; i++)
		ips[i] = lpm_dpdk_v4_of(&a[i]);
	rte_fib_lookup_bulk(fib, ips, nh, (int)n);
}

static void *lpm_dpdk_v4_rib_lookup(void *rib, const struct lpm_dpdk_addr *a)
{
	return rte_rib_lookup(rib, lpm_dpdk_v4_of(a));
}

static void *lpm_dpdk_v4_rib_parent(void *node)
{
	return rte_rib_lookup_parent(node);
}

static void *lpm_dpdk_v4_rib_exact(void *rib, const struct lpm_dpdk_addr *a,
				   uint8_t len)
{
	return rte_rib_lookup_exact(rib, lpm_dpdk_v4_of(a), len);
}

static void *lpm_dpdk_v4_rib_next(void *rib, void *last)
{
	return rte_rib_get_nxt(rib, 0, 0, last, RTE_RIB_GET_NXT_ALL);
}

static uint8_t lpm_dpdk_v4_rib_depth(const void *node)
{
	uint8_t depth = 0;
	rte_rib_get_depth(node, &depth);
	return depth;
}

static uint64_t lpm_dpdk_v4_rib_nh(const void *node)
{
	uint64_t nh = NO_ROUTE;
	rte_rib_get_nh(node, &nh);
	return nh;
}

static const struct lpm_dpdk_family ipv4 = {
	.key_size = MAP_LPM_PREFIX_BYTES + 4, .bits = 32,
	/* 2^20 prefixes: 1 GiB of 4-byte tbl8 groups and a 64 MiB tbl24,
	 * a third of EAL's 3 GiB heap. */
	.max_entries_cap = 1u << 20,
	.fib_new = lpm_dpdk_v4_fib_new,
	.fib_free = lpm_dpdk_v4_fib_free,
	.fib_rib = lpm_dpdk_v4_fib_rib,
	.fib_add = lpm_dpdk_v4_fib_add,
	.fib_delete = lpm_dpdk_v4_fib_delete,
	.fib_lookup = lpm_dpdk_v4_fib_lookup,
	.rib_lookup = lpm_dpdk_v4_rib_lookup,
	.rib_parent = lpm_dpdk_v4_rib_parent,
	.rib_exact = lpm_dpdk_v4_rib_exact,
	.rib_next = lpm_dpdk_v4_rib_next,
	.rib_depth = lpm_dpdk_v4_rib_depth,
	.rib_nh = lpm_dpdk_v4_rib_nh,
};

/* --- IPv6: rte_fib6, TRIE ----------------------------------------------------- */

/*
 * tbl8 groups a prefix may take, at most: TRIE indexes an address's first
 * 24 bits in tbl24, then one byte a level in 256-entry tbl8 groups, so a
 * /128 runs through a group at each of the 13 bytes 3..15.  trie_modify
 * (lib/fib/trie.c) refuses a prefix longer than /24 with -ENOSPC unless
 * its reservation fits: it reserves (CEIL8(depth) - CEIL8(parent)) / 8
 * groups, parent the longest stored prefix covering it but at least /24,
 * so at most (128 - 24) / 8 = 13 (and none when a stored prefix already
 * shares its last byte's group).  max_entries prefixes reserve at most 13
 * each (max_entries /128s in distinct /120s: a group at each level for
 * each), and 22.11 refuses when reserved + asked reaches num_tbl8 (one
 * group is never usable), hence 13 * max_entries + 1.  trie.c's
 * accounting keeps the groups in use within those reserved.  22.11 never
 * gives a reservation back (see "reservations" in the top comment):
 * fib_rebuild_locked.
 */
#define V6_TBL8_PER_PREFIX 13u

static uint32_t lpm_dpdk_v6_num_tbl8(uint32_t max_entries)
{
	return V6_TBL8_PER_PREFIX * max_entries + 1;
}

static void *lpm_dpdk_v6_fib_new(const char *name, uint32_t max_entries)
{
	struct rte_fib6_conf conf = {
		.type = RTE_FIB6_TRIE,
		.default_nh = NO_ROUTE,
		.max_routes = (int)max_entries,
		/* next hops and num_tbl8 both at most LPM_DPDK_NH_MAX */
		.trie = { .nh_sz = RTE_FIB6_TRIE_4B,
			  .num_tbl8 = lpm_dpdk_v6_num_tbl8(max_entries) },
	};
	return rte_fib6_create(name, SOCKET_ID_ANY, &conf);
}

static void lpm_dpdk_v6_fib_free(void *fib)
{
	rte_fib6_free(fib);
}

static void *lpm_dpdk_v6_fib_rib(void *fib)
{
	return rte_fib6_get_rib(fib);
}

static int lpm_dpdk_v6_fib_add(void *fib, const struct lpm_dpdk_addr *a,
			       uint8_t len, uint64_t nh)
{
	return rte_fib6_add(fib, a->b, len, nh);
}

static int lpm_dpdk_v6_fib_delete(void *fib, const struct lpm_dpdk_addr *a,
				  uint8_t len)
{
	return rte_fib6_delete(fib, a->b, len);
}

static void lpm_dpdk_v6_fib_lookup(void *fib, const struct lpm_dpdk_addr *a,
				   uint64_t *nh, unsigned n)
{
	_Static_assert(sizeof(struct lpm_dpdk_addr) == RTE_FIB6_IPV6_ADDR_SIZE,
		       "an array of lpm_dpdk_addr is rte_fib6's array of "
		       "addresses");
	rte_fib6_lookup_bulk(fib, (uint8_t(*)[RTE_FIB6_IPV6_ADDR_SIZE])a, nh,
			     (int)n);
}

static void *lpm_dpdk_v6_rib_lookup(void *rib, const struct lpm_dpdk_addr *a)
{
	return rte_rib6_lookup(rib, a->b);
}

static void *lpm_dpdk_v6_rib_parent(void *node)
{
	return rte_rib6_lookup_parent(node);
}

static void *lpm_dpdk_v6_rib_exact(void *rib, const struct lpm_dpdk_addr *a,
				   uint8_t len)
{
	return rte_rib6_lookup_exact(rib, a->b, len);
}

static void *lpm_dpdk_v6_rib_next(void *rib, void *last)
{
	static const uint8_t any[RTE_RIB6_IPV6_ADDR_SIZE];
	return rte_rib6_get_nxt(rib, any, 0, last, RTE_RIB6_GET_NXT_ALL);
}

static uint8_t lpm_dpdk_v6_rib_depth(const void *node)
{
	uint8_t depth = 0;
	rte_rib6_get_depth(node, &depth);
	return depth;
}

static uint64_t lpm_dpdk_v6_rib_nh(const void *node)
{
	uint64_t nh = NO_ROUTE;
	rte_rib6_get_nh(node, &nh);
	return nh;
}

static const struct lpm_dpdk_family ipv6 = {
	.key_size = MAP_LPM_PREFIX_BYTES + 16, .bits = 128,
	/* 2^14 prefixes: a 64 MiB tbl24 and 208 MiB of tbl8 groups (279
	 * MiB of EAL's heap in all), and room for a second such table while
	 * fib_rebuild_locked builds it. */
	.max_entries_cap = 1u << 14,
	.fib_new = lpm_dpdk_v6_fib_new,
	.fib_free = lpm_dpdk_v6_fib_free,
	.fib_rib = lpm_dpdk_v6_fib_rib,
	.fib_add = lpm_dpdk_v6_fib_add,
	.fib_delete = lpm_dpdk_v6_fib_delete,
	.fib_lookup = lpm_dpdk_v6_fib_lookup,
	.rib_lookup = lpm_dpdk_v6_rib_lookup,
	.rib_parent = lpm_dpdk_v6_rib_parent,
	.rib_exact = lpm_dpdk_v6_rib_exact,
	.rib_next = lpm_dpdk_v6_rib_next,
	.rib_depth = lpm_dpdk_v6_rib_depth,
	.rib_nh = lpm_dpdk_v6_rib_nh,
};

static const struct lpm_dpdk_family *family_of(uint32_t key_size)
{
	if (key_size == ipv4.key_size)
		return &ipv4;
	if (key_size == ipv6.key_size)
		return &ipv6;
	return NULL;
}

/* --- keys ------------------------------------------------------------------- */

/* The key's address masked to its first len bits (len <= the family's). */
static struct lpm_dpdk_addr masked(const struct lpm_dpdk_family *f,
				   const void *key, uint32_t len)
{
	struct lpm_dpdk_addr a = { { 0 } };
	memcpy(a.b, lpm_data_of(key), f->bits / 8);
	for (uint32_t i = len / 8; i < ADDR_MAX; i++)
		a.b[i] &= i == len / 8 ? (uint8_t)(0xff00u >> (len % 8)) : 0;
	return a;
}

/* The key's whole address. */
static struct lpm_dpdk_addr addr_of(const struct lpm_dpdk_family *f,
				    const void *key)
{
	return masked(f, key, f->bits);
}

/* How many leading bits of a are ones (the family's bits at most). */
static uint32_t leading_ones(const struct lpm_dpdk_family *f,
			     const struct lpm_dpdk_addr *a)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < f->bits / 8; i++) {
		if (a->b[i] != 0xff)
			return n + (uint32_t)__builtin_clz(~(uint32_t)a->b[i] << 24);
		n += 8;
	}
	return n;
}

/* The next hop of a RIB node: its prefix's id, or NO_ROUTE for none. */
static uint32_t id_of_node(const struct lpm_dpdk *t, void *n)
{
	return n ? (uint32_t)t->fam->rib_nh(n) : NO_ROUTE;
}

/* A prefix of the all-ones address (its range ends at the end of the
 * address space; /0 is one)?  a masked to len. */
static bool is_top(const struct lpm_dpdk *t, const struct lpm_dpdk_addr *a,
		   uint32_t len)
{
	return leading_ones(t->fam, a) >= len;
}

/* The id of the longest top prefix no longer than len that a falls in
 * and that is longer than `than` (-1: any), or NO_ROUTE.  Lock held. */
static uint32_t top_match(const struct lpm_dpdk *t,
			  const struct lpm_dpdk_addr *a, uint32_t len, int than)
{
	uint32_t ones = leading_ones(t->fam, a);
	for (int l = (int)(ones < len ? ones : len); l > than; l--)
		if (t->top[l] != NO_ROUTE)
			return t->top[l];
	return NO_ROUTE;
}

/* --- create and destroy ------------------------------------------------------ */

/* A new FIB (and its RIB) for max_entries prefixes, with the EAL heap it
 * took in *bytes (another thread's allocation at the same moment would be
 * counted too). */
static void *fib_new(const struct lpm_dpdk_family *f, uint32_t max_entries,
		     size_t *bytes)
{
	static atomic_uint serial; /* rte_fib names are process-wide */
	char name[32];
	snprintf(name, sizeof(name), "mll%u", atomic_fetch_add(&serial, 1));
	size_t heap_before = map_dpdk_heap_bytes();
	void *fib = f->fib_new(name, max_entries);
	*bytes = map_dpdk_heap_bytes() - heap_before;
	return fib;
}

/* Our checks beyond the kernel's: IPv4 or IPv6 keys, a table that fits. */
static int check_dpdk_attr(const struct map_attr *attr)
{
	const struct lpm_dpdk_family *f = family_of(attr->key_size);
	if (!f) {
		map_refuse("lpm_trie/dpdk takes IPv4 keys (key_size 8, "
			   "rte_fib) and IPv6 keys (key_size 20, rte_fib6), "
			   "not key_size %u: DPDK has no other sizes",
			   attr->key_size);
		return -EINVAL;
	}
	if (attr->max_entries > f->max_entries_cap) {
		map_refuse("lpm_trie/dpdk takes max_entries %u at most for "
			   "key_size %u (tbl8 groups for every prefix in EAL's "
			   "heap), not %u", f->max_entries_cap, attr->key_size,
			   attr->max_entries);
		return -E2BIG;
	}
	return 0;
}

static void lpm_dpdk_free(struct lpm_dpdk *t)
{
	if (t->fib)
		t->fam->fib_free(t->fib);
	pthread_rwlock_destroy(&t->lock);
	value_table_destroy(&t->values);
	free(t);
}

static void lpm_dpdk_destroy(struct map *m)
{
	map_rcu_barrier(); /* every retired id is back in its table */
	lpm_dpdk_free(lpm_dpdk_of(m));
}

static int lock_init(pthread_rwlock_t *lock)
{
	pthread_rwlockattr_t a;
	pthread_rwlockattr_init(&a);
	pthread_rwlockattr_setkind_np(
		&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	int err = pthread_rwlock_init(lock, &a);
	pthread_rwlockattr_destroy(&a);
	return -err;
}

/* Places made at create: max_entries up to this many (a map may be
 * created far larger than it is filled); more chunks as ids are taken. */
#define PLACES_AT_CREATE (1u << 16)

static int lpm_dpdk_create(const struct map_attr *attr, struct map **out)
{
	int err = map_check_lpm_attr(attr);
	if (err || (err = check_dpdk_attr(attr)))
		return err;
	if ((err = map_dpdk_start_for("lpm_trie/dpdk")))
		return err;
	struct lpm_dpdk *t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->map.attr = *attr;
	t->fam = family_of(attr->key_size);
	if ((err = lock_init(&t->lock))) {
		free(t);
		return err;
	}
	uint32_t room = attr->max_entries < PLACES_AT_CREATE
				? attr->max_entries
				: PLACES_AT_CREATE;
	if (value_table_init(&t->values,
			     (uint32_t)(value_offset(&t->map) + attr->value_size),
			     room) == 0)
		t->fib = fib_new(t->fam, attr->max_entries, &t->fib_bytes);
	if (!t->fib) {
		lpm_dpdk_free(t);
		return -ENOMEM;
	}
	t->rib = t->fam->fib_rib(t->fib);
	value_table_limit(&t->values, LPM_DPDK_NH_MAX);
	*out = &t->map;
	return 0;
}

/* --- lookup ------------------------------------------------------------------- */

/* The id of the longest prefix of length <= len in the FIB and RIB
 * matching a.  Read lock. */
static uint32_t fib_longest(struct lpm_dpdk *t, const struct lpm_dpdk_addr *a,
			    uint32_t len)
{
	const struct lpm_dpdk_family *f = t->fam;
	if (len == f->bits) {
		uint64_t nh = NO_ROUTE;
		f->fib_lookup(t->fib, a, &nh, 1);
		return (uint32_t)nh;
	}
	void *n = f->rib_lookup(t->rib, a);
	while (n && f->rib_depth(n) > len)
		n = f->rib_parent(n);
	return id_of_node(t, n);
}

/* id (the FIB's or RIB's answer for a, at most len long), unless a stored
 * top prefix that a falls in is longer.  Read lock. */
static uint32_t with_top(struct lpm_dpdk *t, const struct lpm_dpdk_addr *a,
			 uint32_t len, uint32_t id)
{
	if (!t->n_top) /* the common case: skip the place's line */
		return id;
	int found = id != NO_ROUTE ? (int)lpm_prefixlen_of(key_of(t, id)) : -1;
	uint32_t top = top_match(t, a, len, found);
	return top != NO_ROUTE ? top : id;
}

/* The id of the longest stored prefix of length <= len matching a.  Read
 * lock. */
static uint32_t find_longest(struct lpm_dpdk *t, const struct lpm_dpdk_addr *a,
			     uint32_t len)
{
	return with_top(t, a, len, fib_longest(t, a, len));
}

/* Whether t's full-length IPv4 lookups may take the FIB's answer as it
 * is: no top prefix to weigh against it (the common case). */
static bool v4_direct(const struct lpm_dpdk *t)
{
	return t->fam == &ipv4 && !t->n_top;
}

/* A full-length IPv4 key's next hop, read lock held: its address straight
 * from the key (a load and a byte swap) into the FIB. */
static uint32_t v4_full_lookup(struct lpm_dpdk *t, const void *key)
{
	uint32_t addr = lpm_dpdk_v4_address(key);
	uint64_t nh = NO_ROUTE;
	rte_fib_lookup_bulk(t->fib, &addr, &nh, 1);
	return (uint32_t)nh;
}

static void *lpm_dpdk_lookup(struct map *m, const void *key)
{
	struct lpm_dpdk *t = lpm_dpdk_of(m);
	uint32_t len = lpm_prefixlen_of(key);
	if (len > t->fam->bits)
		return NULL;
	if (len == 32 && v4_direct(t)) {
		pthread_rwlock_rdlock(&t->lock);
		uint32_t id = v4_full_lookup(t, key);
		pthread_rwlock_unlock(&t->lock);
		return value_of(t, id);
	}
	struct lpm_dpdk_addr a = addr_of(t->fam, key);
	pthread_rwlock_rdlock(&t->lock);
	uint32_t id = find_longest(t, &a, len);
	pthread_rwlock_unlock(&t->lock);
	return value_of(t, id);
}

/* lpm_dpdk_lookup_batch where v4_direct: the full-length keys'
 * addresses straight from the keys into one rte_fib_lookup_bulk, the
 * others through the RIB.  Read lock held. */
static void v4_lookup_batch(struct lpm_dpdk *t, const uint8_t *k, unsigned n,
			    void **values)
{
	uint32_t addr[MAP_BATCH_MAX];
	uint64_t nh[MAP_BATCH_MAX];
	unsigned full[MAP_BATCH_MAX], n_full = 0;
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *key = k + (size_t)i * ipv4.key_size;
		uint32_t len = lpm_prefixlen_of(key);
		values[i] = NULL;
		if (len == 32) {
			addr[n_full] = lpm_dpdk_v4_address(key);
			full[n_full++] = i;
		} else if (len < 32) {
			struct lpm_dpdk_addr a = addr_of(&ipv4, key);
			values[i] = value_of(t, find_longest(t, &a, len));
		}
	}
	if (n_full)
		rte_fib_lookup_bulk(t->fib, addr, nh, (int)n_full);
	for (unsigned j = 0; j < n_full; j++)
		values[full[j]] = value_of(t, (uint32_t)nh[j]);
}

/* A batch of either family, read lock held: the full-length keys'
 * addresses in one bulk lookup, the shorter ones through the RIB. */
static void family_lookup_batch(struct lpm_dpdk *t, const uint8_t *k,
				unsigned n, void **values)
{
	const struct lpm_dpdk_family *f = t->fam;
	uint32_t ks = t->map.attr.key_size;
	struct lpm_dpdk_addr addr[MAP_BATCH_MAX];
	uint64_t nh[MAP_BATCH_MAX];
	unsigned full[MAP_BATCH_MAX], n_full = 0;
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *key = k + (size_t)i * ks;
		uint32_t len = lpm_prefixlen_of(key);
		values[i] = NULL;
		if (len == f->bits) {
			addr[n_full] = addr_of(f, key);
			full[n_full++] = i;
		} else if (len < f->bits) {
			struct lpm_dpdk_addr a = addr_of(f, key);
			values[i] = value_of(t, find_longest(t, &a, len));
		}
	}
	if (n_full)
		f->fib_lookup(t->fib, addr, nh, n_full);
	for (unsigned j = 0; j < n_full; j++)
		values[full[j]] = value_of(
			t, with_top(t, &addr[j], f->bits, (uint32_t)nh[j]));
}

/*
 * A batch under one read lock: the full-length keys' addresses in one
 * rte_fib_lookup_bulk or rte_fib6_lookup_bulk (DIR-24-8's and TRIE's
 * lookups of several addresses at once), the shorter keys through the RIB
 * one at a time, as lpm_dpdk_lookup.
 */
static unsigned lpm_dpdk_lookup_batch(struct map *m, const void *keys,
				      unsigned n, void **values)
{
	struct lpm_dpdk *t = lpm_dpdk_of(m);
	unsigned hits = 0;
	pthread_rwlock_rdlock(&t->lock);
	if (v4_direct(t))
		v4_lookup_batch(t, keys, n, values);
	else
		family_lookup_batch(t, keys, n, values);
	pthread_rwlock_unlock(&t->lock);
	for (unsigned i = 0; i < n; i++)
		hits += values[i] != NULL;
	return hits;
}

static int lpm_dpdk_lookup_copy(struct map *m, const void *key, void *value)
{
	return map_copy_value_rcu(m, lpm_dpdk_lookup, key, value);
}

/* --- update and delete ---------------------------------------------------------- */

/* A place for a new prefix or a new value: an id the FIB can hold, with
 * the key and value written, not yet routed to; NO_ROUTE without memory,
 * or when every id the next hops can name is in use or waiting out its
 * grace period.  Write lock. */
static uint32_t place_new(struct lpm_dpdk *t, const void *key, const void *value)
{
	uint32_t id = value_table_take(&t->values);
	if (id != NO_ROUTE) {
		memcpy(value_table_at(&t->values, id), key, t->map.attr.key_size);
		memcpy(value_of(t, id), value, t->map.attr.value_size);
	}
	return id;
}

/* id's place back after a grace period (a reader may hold a pointer into
 * it for its read section), through r, or r freed if there is none. */
static void retire_id(struct lpm_dpdk *t, struct value_retired *r, uint32_t id)
{
	if (id == NO_ROUTE)
		free(r);
	else
		value_table_retire(&t->values, r, id);
}

/* The id of the exact prefix (its next hop), or NO_ROUTE.  Lock held. */
static uint32_t id_of_prefix(struct lpm_dpdk *t, const struct lpm_dpdk_addr *a,
			     uint32_t len)
{
	return id_of_node(t, t->fam->rib_exact(t->rib, a, (uint8_t)len));
}

/* A route for fib_rebuild_locked to add or leave out. */
struct route {
	struct lpm_dpdk_addr a;
	uint32_t len, id;
};

/*
 * A new FIB with every prefix of the RIB, leaving out the one routed to
 * `skip` (a delete's, NO_ROUTE: none) and adding `extra` (an add's, or
 * NULL), in place of the old one (rte_fib6 in 22.11 never gives back a
 * reservation: see the top comment).  Built beside the old one, so that
 * the old one stays whole if EAL's heap cannot hold both (-ENOMEM).
 * Write lock: no reader is in the old one when it is freed.
 */
static int fib_rebuild_locked(struct lpm_dpdk *t, uint32_t skip,
			      const struct route *extra)
{
	const struct lpm_dpdk_family *f = t->fam;
	size_t bytes;
	void *fib = fib_new(f, t->map.attr.max_entries, &bytes);
	if (!fib)
		return -ENOMEM;
	int rc = extra ? f->fib_add(fib, &extra->a, (uint8_t)extra->len,
				    extra->id)
		       : 0;
	for (void *n = f->rib_next(t->rib, NULL); n && rc >= 0;
	     n = f->rib_next(t->rib, n)) {
		uint32_t id = id_of_node(t, n);
		if (id == skip)
			continue;
		uint32_t len = lpm_prefixlen_of(key_of(t, id));
		struct lpm_dpdk_addr a = masked(f, key_of(t, id), len);
		rc = f->fib_add(fib, &a, (uint8_t)len, id);
	}
	if (rc < 0) {
		f->fib_free(fib);
		return -ENOMEM;
	}
	f->fib_free(t->fib);
	t->fib = fib;
	t->rib = f->fib_rib(fib);
	t->fib_bytes = bytes;
	return 0;
}

/* A new prefix routed to its place id.  Write lock. */
static int add_locked(struct lpm_dpdk *t, const struct lpm_dpdk_addr *a,
		      uint32_t len, uint32_t id)
{
	if (t->count == t->map.attr.max_entries)
		return -ENOSPC;
	int rc = t->fam->fib_add(t->fib, a, (uint8_t)len, id);
	/* -ENOSPC: the table's tbl8 reservations ran out, though sized for
	 * max_entries prefixes (rte_fib6 keeps those of prefixes gone); a
	 * new table of the prefixes, the new one in, reserves only theirs. */
	if (rc == -ENOSPC) {
		struct route r = { .a = *a, .len = len, .id = id };
		rc = fib_rebuild_locked(t, NO_ROUTE, &r);
	}
	if (rc < 0)
		return -ENOMEM;
	t->count++;
	return 0;
}

/* A top prefix: its own place, never the FIB.  Write lock. */
static int update_top(struct lpm_dpdk *t, uint32_t len, uint32_t id,
		      uint64_t flags, uint32_t *old)
{
	bool present = t->top[len] != NO_ROUTE;
	int err = map_update_flags_check(present, flags);
	if (err)
		return err;
	if (!present && t->count == t->map.attr.max_entries)
		return -ENOSPC;
	t->count += !present;
	t->n_top += !present;
	*old = t->top[len];
	t->top[len] = id;
	return 0;
}

/*
 * A present prefix moved to the place *id: its value is never written
 * where it is, since a reader may be reading it.  The FIB's add of a
 * present prefix changes its next hop; where that fails part way it
 * still returns 0 (22.11's dir24_8_modify and trie_modify) with the RIB
 * unchanged, so the RIB says whether it moved.  If not, a table rebuilt
 * from the RIB routes nothing to *id; if even that fails, *id stays taken
 * (NO_ROUTE: never given again).  Write lock.
 */
static int replace_locked(struct lpm_dpdk *t, const struct lpm_dpdk_addr *a,
			  uint32_t len, uint32_t *id)
{
	int rc = t->fam->fib_add(t->fib, a, (uint8_t)len, *id);
	if (rc >= 0 && id_of_prefix(t, a, len) == *id)
		return 0;
	if (fib_rebuild_locked(t, NO_ROUTE, NULL) < 0)
		*id = NO_ROUTE;
	return -ENOMEM;
}

/*
 * The prefix a/len routed to *id (its place written), in *old the id it
 * replaces (retired by the caller).  On an error *id is the caller's to
 * put back (NO_ROUTE: not to be).  Write lock.
 */
static int update_locked(struct lpm_dpdk *t, const struct lpm_dpdk_addr *a,
			 uint32_t len, uint32_t *id, uint64_t flags,
			 uint32_t *old)
{
	if (is_top(t, a, len))
		return update_top(t, len, *id, flags, old);
	uint32_t present = id_of_prefix(t, a, len);
	int err = map_update_flags_check(present != NO_ROUTE, flags);
	if (err)
		return err;
	if (present == NO_ROUTE)
		return add_locked(t, a, len, *id);
	if ((err = replace_locked(t, a, len, id)))
		return err;
	*old = present;
	return 0;
}

static int lpm_dpdk_update(struct map *m, const void *key, const void *value,
			   uint64_t flags)
{
	struct lpm_dpdk *t = lpm_dpdk_of(m);
	uint32_t len = lpm_prefixlen_of(key);
	int err = map_update_flags_valid(flags);
	if (err)
		return err;
	if (len > t->fam->bits)
		return -EINVAL;
	struct lpm_dpdk_addr a = masked(t->fam, key, len);
	struct value_retired *r = malloc(sizeof(*r)); /* for the id replaced */
	if (!r)
		return -ENOMEM;
	uint32_t old = NO_ROUTE;
	pthread_rwlock_wrlock(&t->lock);
	uint32_t id = place_new(t, key, value);
	err = id == NO_ROUTE ? -ENOMEM
			     : update_locked(t, &a, len, &id, flags, &old);
	if (err && id != NO_ROUTE)
		value_table_put_now(&t->values, id); /* never routed to */
	pthread_rwlock_unlock(&t->lock);
	retire_id(t, r, old);
	return err;
}

/* The exact prefix a/len out of the FIB (or top[]), its id in *gone: 0,
 * -ENOENT if it is not in, -ENOMEM (still in) if DPDK could not delete it
 * and no new table could be built.  Write lock. */
static int delete_locked(struct lpm_dpdk *t, const struct lpm_dpdk_addr *a,
			 uint32_t len, uint32_t *gone)
{
	if (is_top(t, a, len)) {
		if ((*gone = t->top[len]) == NO_ROUTE)
			return -ENOENT;
		t->top[len] = NO_ROUTE;
		t->count--;
		t->n_top--;
		return 0;
	}
	uint32_t id = id_of_prefix(t, a, len);
	if (id == NO_ROUTE)
		return -ENOENT;
	/* A delete may need a tbl8 group too (its range's edges): on a
	 * failure, a new table of the prefixes left. */
	if (t->fam->fib_delete(t->fib, a, (uint8_t)len) < 0 &&
	    fib_rebuild_locked(t, id, NULL) < 0)
		return -ENOMEM;
	*gone = id;
	t->count--;
	return 0;
}

static int lpm_dpdk_delete(struct map *m, const void *key)
{
	struct lpm_dpdk *t = lpm_dpdk_of(m);
	uint32_t len = lpm_prefixlen_of(key);
	if (len > t->fam->bits)
		return -EINVAL;
	struct lpm_dpdk_addr a = masked(t->fam, key, len);
	struct value_retired *r = malloc(sizeof(*r)); /* for the id deleted */
	if (!r)
		return -ENOMEM;
	uint32_t gone = NO_ROUTE;
	pthread_rwlock_wrlock(&t->lock);
	int err = delete_locked(t, &a, len, &gone);
	pthread_rwlock_unlock(&t->lock);
	retire_id(t, r, gone);
	return err;
}

/* --- get_next_key ------------------------------------------------------------------ */

/* The stored top prefix after /len (the next shorter one), or NO_ROUTE. */
static uint32_t top_after(const struct lpm_dpdk *t, int len)
{
	for (int l = len - 1; l >= 0; l--)
		if (t->top[l] != NO_ROUTE)
			return t->top[l];
	return NO_ROUTE;
}

/* The id after key's in the walk: the RIB's nodes in get_nxt's order,
 * then the top prefixes, longest first.  key NULL or not in the map: the
 * first.  Read lock. */
static uint32_t walk_next(struct lpm_dpdk *t, const void *key)
{
	const struct lpm_dpdk_family *f = t->fam;
	uint32_t len = key ? lpm_prefixlen_of(key) : 0;
	bool valid = key && len <= f->bits;
	struct lpm_dpdk_addr a =
		valid ? masked(f, key, len) : (struct lpm_dpdk_addr){ 0 };
	void *from = NULL;
	if (valid && is_top(t, &a, len) && t->top[len] != NO_ROUTE)
		return top_after(t, (int)len);
	if (valid && !is_top(t, &a, len))
		from = f->rib_exact(t->rib, &a, (uint8_t)len);
	void *n = f->rib_next(t->rib, from);
	return n ? id_of_node(t, n) : top_after(t, (int)f->bits + 1);
}

static int lpm_dpdk_get_next_key(struct map *m, const void *key, void *next_key)
{
	struct lpm_dpdk *t = lpm_dpdk_of(m);
	int err = -ENOENT;
	pthread_rwlock_rdlock(&t->lock);
	uint32_t id = walk_next(t, key);
	if (id != NO_ROUTE) {
		memcpy(next_key, key_of(t, id), m->attr.key_size);
		err = 0;
	}
	pthread_rwlock_unlock(&t->lock);
	return err;
}

/* DPDK's tables in EAL's heap (tbl24, tbl8 groups, the RIB's pool) and
 * the places, every id's whether in use or not. */
static size_t lpm_dpdk_memory(const struct map *m)
{
	struct lpm_dpdk *t = lpm_dpdk_of((struct map *)m);
	pthread_rwlock_rdlock(&t->lock);
	size_t fib = t->fib_bytes, places = t->values.bytes;
	pthread_rwlock_unlock(&t->lock);
	return sizeof(*t) + fib + places;
}

const struct map_ops lpm_trie_dpdk_ops = {
	.name = "lpm_trie/dpdk",
	.description = "baseline: BPF LPM-trie semantics over DPDK's rte_fib "
		       "(IPv4: DIR-24-8) and rte_fib6 (IPv6: TRIE) and their "
		       "RIBs; reader-writer lock",
	.type = MAP_TYPE_LPM_TRIE,
	.create = lpm_dpdk_create,
	.destroy = lpm_dpdk_destroy,
	.lookup = lpm_dpdk_lookup,
	.lookup_batch = lpm_dpdk_lookup_batch,
	.lookup_copy = lpm_dpdk_lookup_copy,
	.update = lpm_dpdk_update,
	.delete = lpm_dpdk_delete,
	.get_next_key = lpm_dpdk_get_next_key,
	.memory = lpm_dpdk_memory,
};
