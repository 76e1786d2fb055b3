/* SPDX-License-Identifier: MIT */
/*
 * lpm_trie/dpdk: a baseline adapter over DPDK's rte_fib (Debian's
 * libdpdk-dev, DPDK 22.11 LTS), as hash/dpdk is over rte_hash: BPF
 * LPM-trie semantics on top where the table allows them.  The route table
 * of userspace data planes (grout, VPP-like routers on DPDK).
 *
 * IPv4 only: key_size 8 (a 4-byte prefix length, then 4 address bytes,
 * most significant first).  rte_fib6 (the TRIE type, key_size 20) is not
 * built yet; every other key size is refused at create with -EINVAL and
 * one line on stderr, never faked.
 *
 * rte_fib keeps two structures for one table:
 *   RIB  (rte_rib) a binary trie of the prefixes, each with its next hop:
 *        exact-prefix lookups, covering prefixes, and a walk (get_nxt);
 *   FIB  DIR-24-8: a 2^24-entry table indexed by an address's first 24
 *        bits, and 256-entry tbl8 groups for prefixes longer than /24:
 *        answers a full 32-bit address with the longest match's next hop.
 *
 *   key -> RIB / FIB -> next hop n (1..max_entries) -> slots[n - 1]
 *                                                        -> element:
 *                                        [rcu][key bytes as given][value]
 *
 * Values live in our own elements (malloc), one per prefix and value
 * generation; the next hop is an index into `slots`, an array of element
 * pointers (nh = index + 1: the FIB's default next hop 0 means no route).
 * A BPF lookup returns a pointer into the element.  Next hops are at most
 * 2^(8 * nh_sz - 1) - 1 (DIR-24-8 keeps one bit of each entry as its
 * "extended to a tbl8 group" mark), so nh_sz is the smallest of 1, 2 and
 * 4 bytes that holds max_entries.
 *
 * Semantics on top, and how each is kept:
 *  - lookup with prefix length L: the longest stored prefix of length
 *    <= L matching the key's first L bits (the kernel's rule).  L == 32:
 *    one rte_fib_lookup_bulk of the address (the FIB's fast path).
 *    L < 32: rte_rib_lookup gives the longest match of the whole address,
 *    then rte_rib_lookup_parent walks to shorter covering prefixes until
 *    one is no longer than L.  Every stored prefix that matches the
 *    address lies on that chain, so the first one <= L is the answer; a
 *    prefix longer than L never matches (masking the address to L bits
 *    would be wrong: 10.0.0.0/24 matches 10.0.0.0 masked to /8).
 *    L > 32: no match (the kernel's lookup finds nothing either).
 *  - update: the exact prefix looked up in the RIB (rte_rib_lookup_exact)
 *    gives BPF_NOEXIST / BPF_EXIST; a present prefix gets a new element in
 *    its slot (the FIB is not touched: the next hop stays), the old one
 *    freed after an RCU grace period, so a reader sees the whole old value
 *    or the whole new one.  A new prefix takes a free slot and
 *    rte_fib_add(address masked to L, L, slot + 1).  max_entries prefixes
 *    in: -ENOSPC, as the kernel's trie (a replace is still allowed).
 *  - trailing bits (past the prefix length): the FIB and RIB keep the
 *    masked address, the element keeps the key's bytes as given (the
 *    kernel's node does too), and get_next_key returns those; a replace
 *    with other trailing bits keeps the new ones, as the kernel's does.
 *  - delete: rte_fib_delete; the slot is free at once (a reader maps a
 *    next hop to its element under the read lock, so it never meets a
 *    reused slot), the element after a grace period (a program may hold
 *    the value's pointer for its RCU read section).
 *  - top prefixes: the 33 prefixes of 255.255.255.255 (/0 to /32, the
 *    prefixes whose range ends at 2^32) never go into rte_fib; they sit
 *    in top[], and every lookup takes the longer of the FIB's (or RIB's)
 *    match and the longest stored top prefix the address falls in (its
 *    leading one bits say which can).  Why: DPDK 22.11's DIR-24-8, adding
 *    or deleting such a prefix while more specific prefixes cover the end
 *    of its range with no gap before the last of them, wraps its range's
 *    edge to 0 and rewrites the whole 2^24 table with that prefix's next
 *    hop (its "0 to 0" means "all of it", meant for /0): /0 over 0/1 and
 *    128/1, or 128/1 over 128/2 and 192/2, sends every address to the
 *    new route.  The random comparison with lpm_trie/linux found it
 *    (tests/maps/lpm_trie/test_dpdk.c keeps the cases).  Other prefixes
 *    cannot reach that edge: a prefix that covers one ending at 2^32 ends
 *    there too.
 *  - get_next_key: the RIB's own order, rte_rib_get_nxt over 0.0.0.0/0
 *    with RTE_RIB_GET_NXT_ALL (a post-order: more specific prefixes
 *    before the prefix that covers them, from the key's exact node; NULL
 *    key: from the start), then the top prefixes, longest first, /0 last.
 *    Not the kernel's order (its post-order runs through all prefixes
 *    at once).  A key that is not in the map, or with a prefix length past
 *    32, restarts at the first, as the kernel's trie does.
 *  - flags: BPF_F_NO_PREALLOC is required (map_check_lpm_attr, as the
 *    kernel); nothing is preallocated but DPDK's tables.
 *
 * Concurrency.  rte_fib in 22.11 has no RCU reclamation: a delete puts a
 * tbl8 group back for reuse at once, and the RIB frees its nodes to a
 * mempool at once, so a lock-free reader could follow a reused group or
 * node.  Every reader therefore holds `lock` (a reader-writer lock,
 * writers preferred so that a stream of lookups cannot starve updates) on
 * its read side across the FIB or RIB lookup and the slot read
 * (get_next_key's RIB walk too); updates and deletes hold it
 * exclusively.  Readers share the lock's cache line: lookups do not
 * scale across cores as the kernel's lock-free trie does.  `lock` guards
 * the FIB, the RIB, `slots`, `free`, `nfree`, `count` and `top`.
 * Elements are freed through map_rcu_free_block, never under a reader.
 *
 * Memory: DPDK's heap (rte_malloc, 1 GiB without hugepages,
 * maps/base/dpdk_eal.c): the 2^24-entry table (16, 32 or 64 MiB for nh_sz
 * 1, 2, 4), num_tbl8 = max_entries groups of 256 entries (every prefix
 * longer than /24 may need a group of its own: 256 * nh_sz bytes per
 * max_entries entry), the RIB's node pool (rte_fib sizes it from
 * max_routes = max_entries); our slots and free stack (12 bytes a
 * max_entries entry) and the elements.  memory() counts the EAL heap that
 * create took (map_dpdk_heap_bytes before and after), so all of it.  max_entries above
 * MAX_ENTRIES_CAP is refused with -E2BIG and a message: its tbl8 groups
 * would not fit EAL's heap.
 */
#include "maps/base/attr.h"
#include "maps/base/dpdk_eal.h"
#include "maps/base/map.h"
#include "maps/base/rcu.h"
#include "maps/base/update_flags.h"
#include "maps/lpm_trie/core/lpm_key.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_fib.h>
#include <rte_memory.h>
#include <rte_rib.h>

#define V4_KEY_SIZE (MAP_LPM_PREFIX_BYTES + 4)
#define V4_BITS 32u
#define NO_ROUTE 0u /* the FIB's default next hop: no prefix matched */

/* 2^18 prefixes: 256 MiB of 4-byte tbl8 groups and a 64 MiB tbl24, a
 * third of EAL's 1 GiB heap. */
#define MAX_ENTRIES_CAP (1u << 18)

struct lpm_elem {
	struct rcu_head rcu; /* first: map_rcu_free_block frees it */
	uint8_t key[V4_KEY_SIZE]; /* as the update gave it */
	_Alignas(8) uint8_t value[];
};

struct lpm_dpdk {
	struct map map;
	struct rte_fib *fib;
	struct rte_rib *rib;           /* the FIB's own, rte_fib_get_rib */
	size_t fib_bytes;              /* EAL heap that create took */
	pthread_rwlock_t lock;         /* see the top comment */
	struct lpm_elem **slots;       /* [max_entries]: next hop - 1 */
	uint32_t *free;                /* [max_entries]: free slot stack */
	uint32_t nfree;
	uint32_t count;                /* prefixes in, top[] included */
	/* The prefixes of 255.255.255.255, /0 included, kept beside the FIB
	 * (see "top prefixes" above): top[len] is /len's element or NULL. */
	struct lpm_elem *top[V4_BITS + 1];
};

static struct lpm_dpdk *ld_of(struct map *m)
{
	return (struct lpm_dpdk *)m;
}

/* --- keys ------------------------------------------------------------------- */

/* The key's address as a host-order integer, first byte most significant. */
static uint32_t addr_of(const void *key)
{
	const uint8_t *d = lpm_data_of(key);
	return (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 |
	       (uint32_t)d[2] << 8 | d[3];
}

static uint32_t masked(uint32_t addr, uint32_t len)
{
	return len ? addr & (~0u << (V4_BITS - len)) : 0;
}

static struct lpm_elem *elem_of_nh(const struct lpm_dpdk *t, uint64_t nh)
{
	return nh == NO_ROUTE ? NULL : t->slots[nh - 1];
}

static struct lpm_elem *elem_of_node(const struct lpm_dpdk *t,
				     const struct rte_rib_node *n)
{
	uint64_t nh;
	if (!n || rte_rib_get_nh(n, &nh) != 0)
		return NULL;
	return elem_of_nh(t, nh);
}

/* A prefix of 255.255.255.255 (its range ends at 2^32; /0 is one)? */
static bool is_top(uint32_t addr, uint32_t len)
{
	return addr == masked(~0u, len);
}

/* The longest top prefix no longer than len that addr falls in and that
 * is longer than `than` (-1: any), or NULL.  Lock held. */
static struct lpm_elem *top_match(const struct lpm_dpdk *t, uint32_t addr,
				  uint32_t len, int than)
{
	uint32_t ones = addr == ~0u ? V4_BITS : (uint32_t)__builtin_clz(~addr);
	for (int l = (int)(ones < len ? ones : len); l > than; l--)
		if (t->top[l])
			return t->top[l];
	return NULL;
}

/* --- create and destroy ------------------------------------------------------ */

static enum rte_fib_dir24_8_nh_sz nh_size_for(uint32_t max_entries)
{
	if (max_entries <= 127)
		return RTE_FIB_DIR24_8_1B;
	if (max_entries <= 32767)
		return RTE_FIB_DIR24_8_2B;
	return RTE_FIB_DIR24_8_4B;
}

static struct rte_fib *fib_new(uint32_t max_entries)
{
	static atomic_uint serial; /* rte_fib names are process-wide */
	char name[32];
	snprintf(name, sizeof(name), "mll%u", atomic_fetch_add(&serial, 1));
	struct rte_fib_conf conf = {
		.type = RTE_FIB_DIR24_8,
		.default_nh = NO_ROUTE,
		.max_routes = (int)max_entries,
		.dir24_8 = { .nh_sz = nh_size_for(max_entries),
			     .num_tbl8 = max_entries },
	};
	return rte_fib_create(name, SOCKET_ID_ANY, &conf);
}

/* Our checks beyond the kernel's: IPv4 keys, a table that fits. */
static int check_dpdk_attr(const struct map_attr *attr)
{
	if (attr->key_size != V4_KEY_SIZE) {
		fprintf(stderr, "lpm_trie/dpdk: key_size %u: only IPv4 keys "
			"(key_size 8) are built; rte_fib6 (key_size 20) is "
			"not yet, and rte_fib has no other sizes\n",
			attr->key_size);
		return -EINVAL;
	}
	if (attr->max_entries > MAX_ENTRIES_CAP) {
		fprintf(stderr, "lpm_trie/dpdk: max_entries %u: at most %u "
			"(each may need a tbl8 group in EAL's heap)\n",
			attr->max_entries, MAX_ENTRIES_CAP);
		return -E2BIG;
	}
	return 0;
}

static void ld_free(struct lpm_dpdk *t)
{
	if (t->fib)
		rte_fib_free(t->fib);
	pthread_rwlock_destroy(&t->lock);
	free(t->slots);
	free(t->free);
	free(t);
}

static void ld_destroy(struct map *m)
{
	struct lpm_dpdk *t = ld_of(m);
	map_rcu_barrier(); /* replaced and deleted elements still queued */
	for (uint32_t i = 0; i < m->attr.max_entries; i++)
		free(t->slots[i]);
	for (uint32_t l = 0; l <= V4_BITS; l++)
		free(t->top[l]);
	ld_free(t);
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

static int ld_create(const struct map_attr *attr, struct map **out)
{
	int err = map_check_lpm_attr(attr);
	if (err || (err = check_dpdk_attr(attr)))
		return err;
	char why[256];
	if (map_dpdk_start(why, sizeof(why)) != 0) {
		fprintf(stderr, "lpm_trie/dpdk: %s\n", why);
		return -EOPNOTSUPP;
	}
	struct lpm_dpdk *t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->map.attr = *attr;
	if ((err = lock_init(&t->lock))) {
		free(t);
		return err;
	}
	t->slots = calloc(attr->max_entries, sizeof(*t->slots));
	t->free = malloc(attr->max_entries * sizeof(*t->free));
	size_t heap_before = map_dpdk_heap_bytes();
	t->fib = t->slots && t->free ? fib_new(attr->max_entries) : NULL;
	/* Another thread's create at the same moment would be counted too. */
	t->fib_bytes = map_dpdk_heap_bytes() - heap_before;
	if (!t->fib) {
		ld_free(t);
		return -ENOMEM;
	}
	t->rib = rte_fib_get_rib(t->fib);
	for (uint32_t i = 0; i < attr->max_entries; i++)
		t->free[i] = attr->max_entries - 1 - i; /* slot 0 on top */
	t->nfree = attr->max_entries;
	*out = &t->map;
	return 0;
}

/* --- lookup ------------------------------------------------------------------- */

/* The longest prefix of length <= len in the FIB and RIB matching addr.
 * Read lock. */
static struct lpm_elem *fib_longest(struct lpm_dpdk *t, uint32_t addr,
				    uint32_t len)
{
	if (len == V4_BITS) {
		uint64_t nh = NO_ROUTE;
		rte_fib_lookup_bulk(t->fib, &addr, &nh, 1);
		return elem_of_nh(t, nh);
	}
	struct rte_rib_node *n = rte_rib_lookup(t->rib, addr);
	uint8_t depth;
	while (n && rte_rib_get_depth(n, &depth) == 0 && depth > len)
		n = rte_rib_lookup_parent(n);
	return elem_of_node(t, n);
}

/* The longest stored prefix of length <= len matching addr: the FIB's
 * (or RIB's) answer, unless a top prefix is longer.  Read lock. */
static struct lpm_elem *find_longest(struct lpm_dpdk *t, uint32_t addr,
				     uint32_t len)
{
	struct lpm_elem *e = fib_longest(t, addr, len);
	int found = e ? (int)lpm_prefixlen_of(e->key) : -1;
	struct lpm_elem *top = top_match(t, addr, len, found);
	return top ? top : e;
}

static void *ld_lookup(struct map *m, const void *key)
{
	struct lpm_dpdk *t = ld_of(m);
	uint32_t len = lpm_prefixlen_of(key);
	if (len > V4_BITS)
		return NULL;
	pthread_rwlock_rdlock(&t->lock);
	struct lpm_elem *e = find_longest(t, addr_of(key), len);
	pthread_rwlock_unlock(&t->lock);
	return e ? e->value : NULL;
}

/* The FIB's answer for addr (a /32 lookup's), given its next hop, with
 * find_longest's top prefixes.  Read lock. */
static struct lpm_elem *with_top(struct lpm_dpdk *t, uint32_t addr,
				 struct lpm_elem *e)
{
	int found = e ? (int)lpm_prefixlen_of(e->key) : -1;
	struct lpm_elem *top = top_match(t, addr, V4_BITS, found);
	return top ? top : e;
}

/*
 * A batch under one read lock: the /32 keys' addresses in one
 * rte_fib_lookup_bulk (DIR-24-8's lookups of several addresses at once),
 * the shorter keys through the RIB one at a time, as ld_lookup.
 */
static unsigned ld_lookup_batch(struct map *m, const void *keys, unsigned n,
				void **values)
{
	struct lpm_dpdk *t = ld_of(m);
	const uint8_t *k = keys;
	uint32_t ks = m->attr.key_size, addr[MAP_BATCH_MAX];
	uint64_t nh[MAP_BATCH_MAX];
	unsigned full[MAP_BATCH_MAX], n_full = 0, hits = 0;
	pthread_rwlock_rdlock(&t->lock);
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *key = k + (size_t)i * ks;
		uint32_t len = lpm_prefixlen_of(key);
		values[i] = NULL;
		if (len == V4_BITS) {
			addr[n_full] = addr_of(key);
			full[n_full++] = i;
		} else if (len < V4_BITS) {
			struct lpm_elem *e = find_longest(t, addr_of(key), len);
			values[i] = e ? e->value : NULL;
		}
	}
	if (n_full)
		rte_fib_lookup_bulk(t->fib, addr, nh, (int)n_full);
	for (unsigned j = 0; j < n_full; j++) {
		struct lpm_elem *e = with_top(t, addr[j], elem_of_nh(t, nh[j]));
		values[full[j]] = e ? e->value : NULL;
	}
	pthread_rwlock_unlock(&t->lock);
	for (unsigned i = 0; i < n; i++)
		hits += values[i] != NULL;
	return hits;
}

static int ld_lookup_copy(struct map *m, const void *key, void *value)
{
	return map_copy_value_rcu(m, ld_lookup, key, value);
}

/* --- update and delete ---------------------------------------------------------- */

static struct lpm_elem *elem_new(const struct lpm_dpdk *t, const void *key,
				 const void *value)
{
	struct lpm_elem *e = malloc(sizeof(*e) + t->map.attr.value_size);
	if (e) {
		memcpy(e->key, key, V4_KEY_SIZE);
		memcpy(e->value, value, t->map.attr.value_size);
	}
	return e;
}

/* The slot of the exact prefix (next hop - 1), or -1.  Lock held. */
static int64_t slot_of_prefix(struct lpm_dpdk *t, uint32_t addr, uint32_t len)
{
	uint64_t nh;
	struct rte_rib_node *n = rte_rib_lookup_exact(t->rib, addr, len);
	if (!n || rte_rib_get_nh(n, &nh) != 0 || nh == NO_ROUTE)
		return -1;
	return (int64_t)nh - 1;
}

/* A new prefix: a free slot and the FIB's route to it.  Write lock. */
static int add_locked(struct lpm_dpdk *t, uint32_t addr, uint32_t len,
		      struct lpm_elem *e)
{
	if (t->count == t->map.attr.max_entries)
		return -ENOSPC;
	uint32_t slot = t->free[--t->nfree];
	t->slots[slot] = e;
	int rc = rte_fib_add(t->fib, addr, (uint8_t)len, (uint64_t)slot + 1);
	if (rc < 0) {
		/* num_tbl8 and the RIB's pool are sized for max_entries
		 * prefixes, so only an allocation inside DPDK can fail. */
		t->slots[slot] = NULL;
		t->free[t->nfree++] = slot;
		return -ENOMEM;
	}
	t->count++;
	return 0;
}

/* A top prefix: its own place, never the FIB.  Write lock. */
static int update_top(struct lpm_dpdk *t, uint32_t len, struct lpm_elem *e,
		      uint64_t flags, struct lpm_elem **old)
{
	int err = map_update_flags_check(t->top[len] != NULL, flags);
	if (err)
		return err;
	if (!t->top[len] && t->count == t->map.attr.max_entries)
		return -ENOSPC;
	t->count += !t->top[len];
	*old = t->top[len];
	t->top[len] = e;
	return 0;
}

static int update_locked(struct lpm_dpdk *t, uint32_t addr, uint32_t len,
			 struct lpm_elem *e, uint64_t flags,
			 struct lpm_elem **old)
{
	if (is_top(addr, len))
		return update_top(t, len, e, flags, old);
	int64_t slot = slot_of_prefix(t, addr, len);
	int err = map_update_flags_check(slot >= 0, flags);
	if (err)
		return err;
	if (slot < 0)
		return add_locked(t, addr, len, e);
	*old = t->slots[slot];
	t->slots[slot] = e;
	return 0;
}

static int ld_update(struct map *m, const void *key, const void *value,
		     uint64_t flags)
{
	struct lpm_dpdk *t = ld_of(m);
	uint32_t len = lpm_prefixlen_of(key);
	int err = map_update_flags_valid(flags);
	if (err)
		return err;
	if (len > V4_BITS)
		return -EINVAL;
	struct lpm_elem *e = elem_new(t, key, value), *old = NULL;
	if (!e)
		return -ENOMEM;
	pthread_rwlock_wrlock(&t->lock);
	err = update_locked(t, masked(addr_of(key), len), len, e, flags, &old);
	pthread_rwlock_unlock(&t->lock);
	if (err)
		free(e); /* never seen by a reader */
	if (old)
		map_rcu_free_block(&old->rcu);
	return err;
}

static int ld_delete(struct map *m, const void *key)
{
	struct lpm_dpdk *t = ld_of(m);
	uint32_t len = lpm_prefixlen_of(key);
	if (len > V4_BITS)
		return -EINVAL;
	uint32_t addr = masked(addr_of(key), len);
	struct lpm_elem *gone = NULL;
	pthread_rwlock_wrlock(&t->lock);
	int64_t slot = is_top(addr, len) ? -1 : slot_of_prefix(t, addr, len);
	if (is_top(addr, len) && t->top[len]) {
		gone = t->top[len];
		t->top[len] = NULL;
		t->count--;
	} else if (slot >= 0 &&
		   rte_fib_delete(t->fib, addr, (uint8_t)len) == 0) {
		gone = t->slots[slot];
		t->slots[slot] = NULL;
		t->free[t->nfree++] = (uint32_t)slot;
		t->count--;
	}
	pthread_rwlock_unlock(&t->lock);
	if (!gone)
		return -ENOENT;
	map_rcu_free_block(&gone->rcu);
	return 0;
}

/* --- get_next_key ------------------------------------------------------------------ */

/* The stored top prefix after /len (the next shorter one), or NULL. */
static struct lpm_elem *top_after(const struct lpm_dpdk *t, int len)
{
	for (int l = len - 1; l >= 0; l--)
		if (t->top[l])
			return t->top[l];
	return NULL;
}

/* The element after key in the walk: the RIB's nodes in get_nxt's order,
 * then the top prefixes, longest first.  key NULL or not in the map: the
 * first.  Read lock. */
static struct lpm_elem *walk_next(struct lpm_dpdk *t, const void *key)
{
	uint32_t len = key ? lpm_prefixlen_of(key) : 0;
	uint32_t addr = key && len <= V4_BITS ? masked(addr_of(key), len) : 0;
	struct rte_rib_node *from = NULL;
	if (key && len <= V4_BITS && is_top(addr, len) && t->top[len])
		return top_after(t, (int)len);
	if (key && len <= V4_BITS && !is_top(addr, len))
		from = rte_rib_lookup_exact(t->rib, addr, len);
	struct rte_rib_node *n =
		rte_rib_get_nxt(t->rib, 0, 0, from, RTE_RIB_GET_NXT_ALL);
	return n ? elem_of_node(t, n) : top_after(t, V4_BITS + 1);
}

static int ld_get_next_key(struct map *m, const void *key, void *next_key)
{
	struct lpm_dpdk *t = ld_of(m);
	int err = -ENOENT;
	pthread_rwlock_rdlock(&t->lock);
	struct lpm_elem *e = walk_next(t, key);
	if (e) {
		memcpy(next_key, e->key, V4_KEY_SIZE);
		err = 0;
	}
	pthread_rwlock_unlock(&t->lock);
	return err;
}

/* DPDK's tables in EAL's heap (tbl24, tbl8 groups, the RIB's pool), our
 * slot arrays, and one element a prefix. */
static size_t ld_memory(const struct map *m)
{
	struct lpm_dpdk *t = ld_of((struct map *)m);
	size_t elem = sizeof(struct lpm_elem) + m->attr.value_size;
	size_t slots = (size_t)m->attr.max_entries *
		       (sizeof(*t->slots) + sizeof(*t->free));
	pthread_rwlock_rdlock(&t->lock);
	size_t n = t->count;
	pthread_rwlock_unlock(&t->lock);
	return sizeof(*t) + t->fib_bytes + slots + n * elem;
}

const struct map_ops lpm_trie_dpdk_ops = {
	.name = "lpm_trie/dpdk",
	.description = "baseline: BPF LPM-trie semantics over DPDK's rte_fib "
		       "(DIR-24-8 and its RIB; IPv4 only; reader-writer lock)",
	.type = MAP_TYPE_LPM_TRIE,
	.create = ld_create,
	.destroy = ld_destroy,
	.lookup = ld_lookup,
	.lookup_batch = ld_lookup_batch,
	.lookup_copy = ld_lookup_copy,
	.update = ld_update,
	.delete = ld_delete,
	.get_next_key = ld_get_next_key,
	.memory = ld_memory,
};
