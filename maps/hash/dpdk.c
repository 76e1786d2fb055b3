/* SPDX-License-Identifier: MIT */
/*
 * hash/dpdk: a baseline adapter over DPDK's rte_hash (Debian's libdpdk-dev,
 * DPDK 22.11 LTS), as hash/ck is over ck_ht: BPF hash semantics on top
 * where the table allows them.  The table that userspace data planes
 * (OVS-DPDK, VPP plugins, grout) keep their flows in.
 *
 * rte_hash is a cuckoo hash: buckets of 8 slots holding a 16-bit signature
 * and an index into a separate key store; every key has a primary and a
 * secondary bucket, and an insert into two full buckets moves keys along a
 * cuckoo path.  Made with
 *   RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF  lookups take no lock and write
 *       nothing shared (a change counter tells them to retry across a
 *       cuckoo move); implies NO_FREE_ON_DEL: a deleted key's slot in the
 *       key store stays reserved until we free it;
 *   RTE_HASH_EXTRA_FLAGS_MULTI_WRITER_ADD   several writers: rte_hash takes
 *       its own writer lock around each change of the buckets, and keeps
 *       free key slots in caches per lcore (rte_lcore_id());
 *   RTE_HASH_EXTRA_FLAGS_EXT_TABLE          a bucket whose two places are
 *       full chains an extra bucket instead of failing the insert.
 *
 *   buckets: [sig idx]x8 [sig idx]x8 ...  (+ extra buckets, chained)
 *                  |
 *   key store:     v  [pdata | key] ... pdata = id -> values: place id
 *
 * Values live at places by id (maps/base/value_table.h), one per key and
 * value generation, in a dense table; rte_hash's data pointer (pdata)
 * holds the id.  No value sits inline in pdata: a BPF lookup returns a
 * pointer into the map, and rte_hash does not give the address of its
 * pdata field.  (Until 2026-12-07 pdata pointed at a malloc'd element of
 * 40 bytes and the value: docs/hash.md, "hash/dpdk", has the builds in
 * turn.)
 *
 * Semantics on top, and how each is kept:
 *  - update of a present key: a new id, its place written, published by
 *    rte_hash with a release store of pdata; the old id goes back to the
 *    table after a grace period.
 *    A reader sees the whole old value or the whole new one, never a mix
 *    (the kernel's preallocated hash can show a mix; hash/dpdk cannot).
 *  - BPF_NOEXIST / BPF_EXIST and the replace: a key's lookup, check and
 *    change run under one of KEY_STRIPES stripe locks (by the key's hash),
 *    so two writers of one key never both replace the same id;
 *    writers of different keys run in parallel up to rte_hash's lock.
 *  - max_entries: our own atomic count of live keys, raised before an
 *    insert and lowered if it fails: the next new key is -E2BIG at exactly
 *    max_entries.  rte_hash's own capacity cannot say it: it reserves
 *    key-store room for the lcore caches (entries + (RTE_MAX_LCORE - 1) *
 *    63 slots with MULTI_WRITER_ADD), and a cuckoo table alone may refuse
 *    an insert (ENOSPC) well before `entries` keys are in.
 *  - room: the table is made for max_entries keys plus as many again (at
 *    least 262144) spare key slots, for deleted keys that wait for their
 *    grace period (MULTI_WRITER_ADD adds (RTE_MAX_LCORE - 1) * 63 more,
 *    for the lcore caches); the cuckoo buckets are then at most half full,
 *    and EXT_TABLE takes what still does not fit, so rte_hash's ENOSPC can
 *    only mean a key store full of deleted keys: deletes faster than grace
 *    periods end.  Then the insert hands back the slots whose grace period
 *    is over and tries again; then, where the thread may wait (urcu-memb,
 *    outside a read section), it waits for the grace period of every
 *    queued delete (map_rcu_barrier, with no lock of ours held) and tries
 *    a last time; then it
 *    answers -ENOMEM, as the kernel's no-prealloc hash does when it cannot
 *    get memory: not -E2BIG, since the map is not full, and never
 *    rte_hash's ENOSPC, which BPF's hash does not know.  A caller that
 *    updates inside a read section (bench, as a BPF program), and any
 *    caller under QSBR, can meet it under heavy delete churn.
 *  - delete: rte_hash_del_key takes the key out of its bucket at once;
 *    its key slot and value id go through map_rcu_call (a record of
 *    both, struct hash_dpdk_retired), whose callback (on liburcu's
 *    thread, which has no lcore id) gives the id back and only pushes the
 *    slot on the map's `ready` stack.  The next insert, on a
 *    registered writer thread, hands ready slots back with
 *    rte_hash_free_key_with_position under `reclaim`: that call is not
 *    safe from two threads at once (it pushes extra buckets back on a
 *    single-producer ring), and it fills the calling lcore's cache.
 *    (rte_hash_rcu_qsbr_add would tie the frees to DPDK's own QSBR, with
 *    every reader reporting to it: maplab's readers report to liburcu.)
 *  - writers need an lcore id: the first update from a thread
 *    registers it with EAL (map_dpdk_register_thread); at most
 *    RTE_MAX_LCORE threads at once.  An update from one more thread is
 *    -EBUSY, with one line on stderr.  Lookups need no id.
 *  - get_next_key: rte_hash_iterate's order: bucket by bucket through the
 *    main table, slot by slot within a bucket, then the extra buckets.
 *    The kernel's is also bucket by bucket, but its buckets are lists,
 *    newest first; a key's place here depends on cuckoo moves.  The walk
 *    cannot start at a key, so it finds the key's position with a lookup
 *    and iterates from the start to it: O(n) a call.  A key that is not
 *    in the map restarts at the first.  It runs in an RCU read section,
 *    which keeps every key slot it reads from being reused.
 *  - flags: BPF_F_NO_PREALLOC is accepted and changes nothing (the key
 *    store is made at create, the value table for min(max_entries, 65536)
 *    ids at create and in chunks as ids are taken); BPF_F_ZERO_SEED
 *    gives rte_hash's hash (its default: CRC32C on x86) the seed 0,
 *    otherwise a random one.
 *
 * Locks, and who owns what.  A key's stripe lock (stripes[sig %
 * KEY_STRIPES]) guards its lookup, flag check and change: one key's
 * writers run one at a time.  rte_hash's own writer lock guards its
 * buckets (MULTI_WRITER_ADD; free key slots are in its ring and its
 * per-lcore caches).  `reclaim` serialises handing
 * slots back (rte_hash_free_key_with_position).  `ready` is a lock-free
 * stack: liburcu's callback thread pushes with a release CAS, a writer
 * takes the whole stack with an acquire exchange.  `ids` guards the value
 * table's writer side (take, put_now, its byte count): writers of
 * different keys take ids one at a time.  `count` is atomic and relaxed:
 * it orders nothing, it only counts.  An id is its key's (rte_hash's
 * pdata) while the key is in; a replaced or deleted one goes back to the
 * table after a grace period, a deleted key's slot with it to `ready`.
 * Readers take no lock: a lookup sees a key's whole old value or its
 * whole new one, and neither place is reused while the reader's read
 * section may hold it.
 *
 * Memory comes from EAL's heap (rte_malloc: 3 GiB without hugepages,
 * maps/base/dpdk_eal.c); a table that does not fit, or an EAL that found
 * no room for its heap, is -ENOMEM, with nothing of DPDK's on stderr.
 */
#include "maps/base/attr.h"
#include "maps/base/dpdk_eal.h"
#include "maps/base/lock.h"
#include "maps/base/map.h"
#include "maps/base/rcu.h"
#include "maps/base/update_flags.h"
#include "maps/base/value_table.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_memory.h>

#define KEY_STRIPES 64

/* What a delete or a replace gives back after a grace period: a value's
 * id, and a deleted key's slot. */
struct hash_dpdk_retired {
	struct rcu_head rcu;
	struct hash_dpdk *owner;
	struct hash_dpdk_retired *next_ready; /* on owner->ready */
	int32_t position;                     /* the deleted key's slot, or
						 NO_SLOT (a replace) */
	uint32_t id;                          /* the old value's */
};

#define NO_SLOT (-1)

struct stripe {
	_Alignas(64) struct map_spinlock lock;
};

struct hash_dpdk {
	struct map map;
	struct rte_hash *table;
	size_t table_bytes;                      /* EAL heap that create took */
	atomic_uint count;                       /* live keys */
	struct value_table values;               /* a key's value at its id */
	struct map_spinlock ids;                 /* values' writer side */
	_Atomic(struct hash_dpdk_retired *) ready; /* deleted, grace period
						      over: slots to hand
						      back */
	struct map_spinlock reclaim;             /* serialises handing back */
	struct stripe stripes[KEY_STRIPES];      /* a key's read-check-change */
};

static struct hash_dpdk *hash_dpdk_of(struct map *m)
{
	return (struct hash_dpdk *)m;
}

/* --- deleted key slots: back to rte_hash after a grace period ---------- */

/* liburcu's callback thread: the value's id back to the table; a
 * deleted key's slot needs an lcore id, which this thread has not, so it
 * is only pushed. */
static void slot_grace_over(struct rcu_head *head)
{
	struct hash_dpdk_retired *e =
		caa_container_of(head, struct hash_dpdk_retired, rcu);
	struct hash_dpdk *h = e->owner;
	value_table_release_later(&h->values, e->id);
	if (e->position == NO_SLOT) {
		free(e);
		return;
	}
	struct hash_dpdk_retired *top = atomic_load_explicit(&h->ready,
							     memory_order_relaxed);
	do
		e->next_ready = top;
	while (!atomic_compare_exchange_weak_explicit(
		&h->ready, &top, e, memory_order_release, memory_order_relaxed));
}

/* A registered writer: every ready slot back to rte_hash.  The exchange
 * takes the whole stack, so no record is seen twice (no ABA). */
static void reclaim_ready(struct hash_dpdk *h)
{
	if (!atomic_load_explicit(&h->ready, memory_order_relaxed))
		return;
	struct hash_dpdk_retired *e = atomic_exchange_explicit(
		&h->ready, NULL, memory_order_acquire);
	map_spin_lock(&h->reclaim);
	for (struct hash_dpdk_retired *p = e; p; p = p->next_ready)
		rte_hash_free_key_with_position(h->table, p->position);
	map_spin_unlock(&h->reclaim);
	while (e) {
		struct hash_dpdk_retired *next = e->next_ready;
		free(e);
		e = next;
	}
}

/* --- values, by id ---------------------------------------------------------- */

/* rte_hash's data pointer holds the value's id, not an address. */
static void *data_of_id(uint32_t id)
{
	return (void *)(uintptr_t)id;
}

static uint32_t id_of_data(const void *data)
{
	return (uint32_t)(uintptr_t)data;
}

/* A new id with value at its place, not yet any key's; 0 without
 * memory.  The copy too under `ids`: another writer's take may replace
 * the chunk array, and this writer need not be in a read section. */
static uint32_t value_new(struct hash_dpdk *h, const void *value)
{
	map_spin_lock(&h->ids);
	uint32_t id = value_table_take(&h->values);
	if (id)
		memcpy(value_table_at(&h->values, id), value,
		       h->map.attr.value_size);
	map_spin_unlock(&h->ids);
	return id;
}

/* An id from value_new that no reader has seen: free again now. */
static void value_unused(struct hash_dpdk *h, uint32_t id)
{
	map_spin_lock(&h->ids);
	value_table_put_now(&h->values, id);
	map_spin_unlock(&h->ids);
}

/* --- writer threads ------------------------------------------------------ */

/* The calling thread's lcore id, taken on its first write. */
static int need_lcore(void)
{
	int err = map_dpdk_register_thread();
	if (err) {
		static atomic_bool said;
		if (!atomic_exchange(&said, true))
			fprintf(stderr, "hash/dpdk: a writer thread got no DPDK "
				"lcore id (RTE_MAX_LCORE threads hold one): "
				"its updates are -EBUSY\n");
	}
	return err;
}

/* --- create and destroy ---------------------------------------------------- */

/* max_entries live keys, and as many again (at least SPARE_SLOTS) deleted
 * ones in their grace period: the buckets are at most half full.
 * SPARE_SLOTS (some 8 MB of key store and buckets) is more than the
 * heaviest delete churn of the tests deletes in all (docs/hash.md,
 * "hash/dpdk": what smaller figures met). */
#define SPARE_SLOTS 262144u

static uint32_t table_entries(uint32_t max_entries)
{
	uint64_t n = (uint64_t)max_entries +
		     (max_entries > SPARE_SLOTS ? max_entries : SPARE_SLOTS);
	return n > RTE_HASH_ENTRIES_MAX ? RTE_HASH_ENTRIES_MAX : (uint32_t)n;
}

static uint32_t table_seed(const struct map_attr *attr)
{
	uint32_t seed = 0;
	if (!(attr->flags & MAP_F_ZERO_SEED) &&
	    getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		seed = 0x9e3779b9u;
	return seed;
}

static struct rte_hash *table_new(const struct map_attr *attr)
{
	static atomic_uint serial; /* rte_hash names are process-wide */
	char name[RTE_HASH_NAMESIZE];
	snprintf(name, sizeof(name), "mlh%u", atomic_fetch_add(&serial, 1));
	struct rte_hash_parameters p = {
		.name = name,
		.entries = table_entries(attr->max_entries),
		.key_len = attr->key_size,
		.hash_func_init_val = table_seed(attr),
		.socket_id = SOCKET_ID_ANY,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF |
			      RTE_HASH_EXTRA_FLAGS_MULTI_WRITER_ADD |
			      RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	return rte_hash_create(&p);
}

static void hash_dpdk_destroy(struct map *m)
{
	struct hash_dpdk *h = hash_dpdk_of(m);
	map_rcu_barrier(); /* every delete's callback has pushed its slot */
	struct hash_dpdk_retired *e = atomic_load(&h->ready);
	while (e) {
		struct hash_dpdk_retired *after = e->next_ready;
		free(e);
		e = after;
	}
	rte_hash_free(h->table);
	value_table_destroy(&h->values);
	free(h);
}

/* Value places made at create: max_entries up to this many (a map may be
 * created far larger than it is filled); more chunks as ids are taken. */
#define VALUES_AT_CREATE (1u << 16)

static int hash_dpdk_create(const struct map_attr *attr, struct map **out)
{
	int err = map_check_hash_attr(attr);
	if (err)
		return err;
	if ((err = map_dpdk_start_for("hash/dpdk")))
		return err;
	/* sizeof is a multiple of the stripes' 64-byte alignment */
	struct hash_dpdk *h =
		aligned_alloc(_Alignof(struct hash_dpdk), sizeof(*h));
	if (!h)
		return -ENOMEM;
	memset(h, 0, sizeof(*h));
	h->map.attr = *attr;
	map_spin_init(&h->reclaim);
	map_spin_init(&h->ids);
	for (unsigned i = 0; i < KEY_STRIPES; i++)
		map_spin_init(&h->stripes[i].lock);
	size_t heap_before = map_dpdk_heap_bytes();
	h->table = table_new(attr);
	/* Another thread's create at the same moment would be counted too. */
	h->table_bytes = map_dpdk_heap_bytes() - heap_before;
	if (!h->table) {
		err = rte_errno == EINVAL ? -EINVAL : -ENOMEM;
		free(h);
		return err;
	}
	uint32_t room = attr->max_entries < VALUES_AT_CREATE ? attr->max_entries
							     : VALUES_AT_CREATE;
	if (value_table_init(&h->values, attr->value_size, room)) {
		rte_hash_free(h->table);
		free(h);
		return -ENOMEM;
	}
	*out = &h->map;
	return 0;
}

/* --- operations ---------------------------------------------------------------- */

static struct map_spinlock *stripe_of(struct hash_dpdk *h, hash_sig_t sig)
{
	return &h->stripes[sig % KEY_STRIPES].lock;
}

/* key's value id, or 0 if it is not in. */
static uint32_t find_hashed(struct hash_dpdk *h, const void *key,
			    hash_sig_t sig)
{
	void *data;
	return rte_hash_lookup_with_hash_data(h->table, key, sig, &data) >= 0
		       ? id_of_data(data) : 0;
}

static void *hash_dpdk_lookup(struct map *m, const void *key)
{
	struct hash_dpdk *h = hash_dpdk_of(m);
	void *data;
	if (rte_hash_lookup_data(h->table, key, &data) < 0)
		return NULL;
	return value_table_at(&h->values, id_of_data(data));
}

/* A batch through rte_hash_lookup_bulk_data, which computes every key's
 * signature and prefetches its buckets before comparing any (at most
 * RTE_HASH_LOOKUP_BULK_MAX keys a call: MAP_BATCH_MAX is that). */
_Static_assert(MAP_BATCH_MAX <= RTE_HASH_LOOKUP_BULK_MAX,
	       "a batch is one rte_hash bulk lookup");

static unsigned hash_dpdk_lookup_batch(struct map *m, const void *keys,
				       unsigned n, void **values)
{
	struct hash_dpdk *h = hash_dpdk_of(m);
	const void *key[MAP_BATCH_MAX];
	void *data[MAP_BATCH_MAX];
	uint64_t hit_mask = 0;
	for (unsigned i = 0; i < n; i++)
		key[i] = (const uint8_t *)keys + (size_t)i * m->attr.key_size;
	int hits = rte_hash_lookup_bulk_data(h->table, key, n, &hit_mask, data);
	for (unsigned i = 0; i < n; i++)
		values[i] = (hit_mask >> i) & 1
			? value_table_at(&h->values, id_of_data(data[i])) : NULL;
	return hits < 0 ? 0 : (unsigned)hits;
}

static int hash_dpdk_lookup_copy(struct map *m, const void *key, void *value)
{
	return map_copy_value_rcu(m, hash_dpdk_lookup, key, value);
}

/* One more live key, unless max_entries are in: 0 or -E2BIG. */
static int count_reserve(struct hash_dpdk *h)
{
	unsigned n = atomic_fetch_add_explicit(&h->count, 1,
					       memory_order_relaxed);
	if (n < h->map.attr.max_entries)
		return 0;
	atomic_fetch_sub_explicit(&h->count, 1, memory_order_relaxed);
	return -E2BIG;
}

/*
 * May this thread wait for a grace period?  Under urcu-memb, when it is in
 * no read section (a BPF-style caller updates inside one, and its own
 * section would hold the grace period back).  Under QSBR never: waiting
 * takes the thread offline, and a caller may hold a pointer that a lookup
 * gave it across the update, as a BPF program may.
 */
static bool may_wait_for_readers(void)
{
	return map_rcu_flavor == MAP_RCU_MEMB && !urcu_memb_read_ongoing();
}

/*
 * Put id in as key's data (for a present key, rte_hash's release store of
 * the data pointer).  A new key that finds the key store full (of deleted
 * keys in their grace period) gets a second try after handing back the
 * slots whose grace period is over.  0, -ENOSPC (still full) or -ENOMEM.
 */
static int table_put(struct hash_dpdk *h, const void *key, hash_sig_t sig,
		     uint32_t id, bool present)
{
	int rc = rte_hash_add_key_with_hash_data(h->table, key, sig,
						 data_of_id(id));
	if (rc == -ENOSPC && !present) {
		reclaim_ready(h);
		rc = rte_hash_add_key_with_hash_data(h->table, key, sig,
						     data_of_id(id));
	}
	return rc == -ENOSPC ? -ENOSPC : rc < 0 ? -ENOMEM : 0;
}

/* id (and slot, or NO_SLOT) back after a grace period, through r. */
static void retire(struct hash_dpdk *h, struct hash_dpdk_retired *r,
		   uint32_t id, int32_t slot)
{
	r->owner = h;
	r->id = id;
	r->position = slot;
	map_rcu_call(&r->rcu, slot_grace_over);
}

/*
 * Under key's stripe: the flag check, the count, the new value's id, the
 * change.  A present key's value is never written where it is (a reader
 * may be reading it): the key moves to a new id, and the old one is
 * retired.  Undoes its own steps on failure, in reverse order.
 */
static int update_locked(struct hash_dpdk *h, const void *key, hash_sig_t sig,
			 const void *value, uint64_t flags)
{
	uint32_t old = find_hashed(h, key, sig);
	int err = map_update_flags_check(old != 0, flags);
	if (err)
		return err;
	if (!old && (err = count_reserve(h)))
		return err;
	struct hash_dpdk_retired *r = old ? malloc(sizeof(*r)) : NULL;
	uint32_t id = !old || r ? value_new(h, value) : 0;
	err = id ? table_put(h, key, sig, id, old != 0) : -ENOMEM;
	if (err) {
		if (id)
			value_unused(h, id);
		free(r);
		if (!old)
			atomic_fetch_sub_explicit(&h->count, 1,
						  memory_order_relaxed);
		return err;
	}
	if (old)
		retire(h, r, old, NO_SLOT);
	return 0;
}

static int hash_dpdk_update(struct map *m, const void *key, const void *value,
			    uint64_t flags)
{
	struct hash_dpdk *h = hash_dpdk_of(m);
	int err = map_update_flags_valid(flags);
	if (err || (err = need_lcore()))
		return err;
	reclaim_ready(h);
	hash_sig_t sig = rte_hash_hash(h->table, key);
	struct map_spinlock *stripe = stripe_of(h, sig);
	map_spin_lock(stripe);
	err = update_locked(h, key, sig, value, flags);
	map_spin_unlock(stripe);
	if (err == -ENOSPC && may_wait_for_readers()) {
		/* Not under the stripe: a writer spinning on it inside a read
		 * section would hold back the grace period waited for. */
		map_rcu_barrier(); /* every queued delete's slot is ready */
		reclaim_ready(h);
		map_spin_lock(stripe);
		err = update_locked(h, key, sig, value, flags);
		map_spin_unlock(stripe);
	}
	return err == -ENOSPC ? -ENOMEM : err;
}

static int hash_dpdk_delete(struct map *m, const void *key)
{
	struct hash_dpdk *h = hash_dpdk_of(m);
	hash_sig_t sig = rte_hash_hash(h->table, key);
	struct map_spinlock *stripe = stripe_of(h, sig);
	/* taken first: once the key is out, its slot must be retired */
	struct hash_dpdk_retired *r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	map_spin_lock(stripe);
	uint32_t id = find_hashed(h, key, sig);
	int32_t pos = id ? rte_hash_del_key_with_hash(h->table, key, sig)
			 : -ENOENT;
	if (pos >= 0) {
		atomic_fetch_sub_explicit(&h->count, 1, memory_order_relaxed);
		retire(h, r, id, pos);
	}
	map_spin_unlock(stripe);
	if (pos < 0)
		free(r);
	return pos >= 0 ? 0 : -ENOENT;
}

/* The iterator value just past key's slot, or 0 (from the first) when
 * key is not in the map. */
static uint32_t iterator_after(struct hash_dpdk *h, const void *key)
{
	int32_t want = key ? rte_hash_lookup(h->table, key) : -ENOENT;
	if (want < 0)
		return 0;
	const void *k;
	void *data;
	uint32_t next = 0;
	int32_t pos;
	while ((pos = rte_hash_iterate(h->table, &k, &data, &next)) >= 0)
		if (pos == want)
			return next;
	return 0; /* moved or gone meanwhile: start again */
}

static int hash_dpdk_get_next_key(struct map *m, const void *key,
				  void *next_key)
{
	struct hash_dpdk *h = hash_dpdk_of(m);
	const void *k;
	void *data;
	int err = -ENOENT;
	map_rcu_read_lock();
	uint32_t next = iterator_after(h, key);
	if (rte_hash_iterate(h->table, &k, &data, &next) >= 0) {
		memcpy(next_key, k, m->attr.key_size);
		err = 0;
	}
	map_rcu_read_unlock();
	return err;
}

/* The table in EAL's heap (buckets, extra buckets, key store, free-slot
 * rings and lcore caches), and the value table: a place for every id, in
 * use or not. */
static size_t hash_dpdk_memory(const struct map *m)
{
	struct hash_dpdk *h = hash_dpdk_of((struct map *)m);
	map_spin_lock(&h->ids);
	size_t values = h->values.bytes;
	map_spin_unlock(&h->ids);
	return sizeof(*h) + h->table_bytes + values;
}

const struct map_ops hash_dpdk_ops = {
	.name = "hash/dpdk",
	.description = "baseline: BPF hash semantics over DPDK's rte_hash "
		       "(cuckoo, lock-free readers, several writers)",
	.type = MAP_TYPE_HASH,
	/* writers need an lcore id (the top of the file) */
	.max_threads = RTE_MAX_LCORE - 1,
	.max_threads_why = "DPDK gives each writer thread one of its "
			   "RTE_MAX_LCORE lcore ids, and the thread that "
			   "started DPDK holds one",
	.create = hash_dpdk_create,
	.destroy = hash_dpdk_destroy,
	.lookup = hash_dpdk_lookup,
	.lookup_batch = hash_dpdk_lookup_batch,
	.lookup_copy = hash_dpdk_lookup_copy,
	.update = hash_dpdk_update,
	.delete = hash_dpdk_delete,
	.get_next_key = hash_dpdk_get_next_key,
	.memory = hash_dpdk_memory,
};
