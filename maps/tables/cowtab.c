/* SPDX-License-Identifier: MIT */
/* cowtab.c: see cowtab.h. */
#include "maps/tables/cowtab.h"
#include "maps/base/area.h"
#include "maps/base/attr.h"
#include "maps/base/jhash.h"
#include "maps/base/rcu.h"
#include "maps/base/update_flags.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

struct cowtab_value {
	struct rcu_head rcu;
	_Alignas(8) uint8_t data[]; /* value_size bytes */
};

struct cowtab_entry {
	struct cowtab_value *value;
	/* key bytes follow, padded to 8 */
};

struct cowtab_array {
	struct rcu_head rcu;
	uint32_t count;
	struct cowtab_array *backup; /* count - 1 entries, for the next delete */
	/* count entries of entry_size bytes follow */
};

static struct cowtab_entry *entry_at(const struct cowtab *t,
				     const struct cowtab_array *a, uint32_t i)
{
	return (struct cowtab_entry *)((uint8_t *)(a + 1) + i * t->entry_size);
}

static void *entry_key(struct cowtab_entry *e)
{
	return e + 1;
}

static uint32_t bucket_index(const struct cowtab *t, const void *key)
{
	return map_jhash(key, t->key_size, t->seed) & (t->n_buckets - 1);
}

static struct cowtab_bucket *bucket_of(struct cowtab *t, const void *key)
{
	return &t->buckets[bucket_index(t, key)];
}

static struct cowtab_array *load_array(struct cowtab_bucket *b)
{
	return atomic_load_explicit(&b->data, memory_order_acquire);
}

/* --- allocation: every block is counted, freed after a grace period ---------- */

static size_t array_bytes(const struct cowtab *t, uint32_t count)
{
	return sizeof(struct cowtab_array) + (size_t)count * t->entry_size;
}

static size_t value_bytes(const struct cowtab *t)
{
	return sizeof(struct cowtab_value) + t->value_size;
}

static struct cowtab_array *array_new(struct cowtab *t, uint32_t count)
{
	struct cowtab_array *a = malloc(array_bytes(t, count));
	if (!a)
		return NULL;
	a->count = count;
	a->backup = NULL;
	atomic_fetch_add(&t->bytes, (int64_t)array_bytes(t, count));
	return a;
}

static struct cowtab_value *value_new(struct cowtab *t, const void *value)
{
	struct cowtab_value *v = malloc(value_bytes(t));
	if (!v)
		return NULL;
	memcpy(v->data, value, t->value_size);
	atomic_fetch_add(&t->bytes, (int64_t)value_bytes(t));
	return v;
}

/* The rcu heads do not know their table: sizes are uncounted when the
 * block is handed to RCU, not when it is freed. */
static void retire_array(struct cowtab *t, struct cowtab_array *a)
{
	if (!a)
		return;
	atomic_fetch_sub(&t->bytes, (int64_t)array_bytes(t, a->count));
	map_rcu_free_block(&a->rcu);
}

static void retire_value(struct cowtab *t, struct cowtab_value *v)
{
	atomic_fetch_sub(&t->bytes, (int64_t)value_bytes(t));
	map_rcu_free_block(&v->rcu);
}

static void free_array_now(struct cowtab *t, struct cowtab_array *a)
{
	if (!a)
		return;
	atomic_fetch_sub(&t->bytes, (int64_t)array_bytes(t, a->count));
	free(a);
}

static void free_value_now(struct cowtab *t, struct cowtab_value *v)
{
	if (!v)
		return;
	atomic_fetch_sub(&t->bytes, (int64_t)value_bytes(t));
	free(v);
}

/* --- init and destroy ------------------------------------------------------------ */

int cowtab_init(struct cowtab *t, uint32_t max_entries, uint32_t key_size,
		uint32_t value_size, bool zero_seed, int full_err)
{
	memset(t, 0, sizeof(*t));
	t->key_size = key_size;
	t->value_size = value_size;
	t->max_entries = max_entries;
	t->full_err = full_err;
	t->n_buckets = map_roundup_pow2(max_entries < COWTAB_MAX_BUCKETS
					 ? max_entries : COWTAB_MAX_BUCKETS);
	t->entry_size = sizeof(struct cowtab_entry) + ((key_size + 7u) & ~7u);
	if (!zero_seed &&
	    getrandom(&t->seed, sizeof(t->seed), 0) != sizeof(t->seed))
		t->seed = 0x9e3779b9u;
	t->buckets = map_area_alloc_array(t->n_buckets, sizeof(*t->buckets), 64);
	if (!t->buckets)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->n_buckets; i++) {
		map_spin_init(&t->buckets[i].lock);
		atomic_init(&t->buckets[i].data, NULL);
	}
	return 0;
}

void cowtab_destroy(struct cowtab *t)
{
	for (uint32_t i = 0; t->buckets && i < t->n_buckets; i++) {
		struct cowtab_array *a = atomic_load(&t->buckets[i].data);
		if (!a)
			continue;
		for (uint32_t e = 0; e < a->count; e++)
			free(entry_at(t, a, e)->value);
		free(a->backup);
		free(a);
	}
	map_rcu_barrier(); /* what updates retired */
	free(t->buckets);
	t->buckets = NULL;
}

size_t cowtab_bytes(const struct cowtab *t)
{
	int64_t bytes = atomic_load(&((struct cowtab *)t)->bytes);
	return (size_t)t->n_buckets * sizeof(*t->buckets) +
	       (bytes > 0 ? (size_t)bytes : 0);
}

/* --- readers ------------------------------------------------------------------------ */

/* The key's index in a, or -1. */
static int index_of(const struct cowtab *t, struct cowtab_array *a,
		    const void *key)
{
	for (uint32_t i = 0; a && i < a->count; i++)
		if (memcmp(entry_key(entry_at(t, a, i)), key, t->key_size) == 0)
			return (int)i;
	return -1;
}

void *cowtab_lookup(struct cowtab *t, const void *key)
{
	struct cowtab_array *a = load_array(bucket_of(t, key));
	int i = index_of(t, a, key);
	return i < 0 ? NULL : entry_at(t, a, (uint32_t)i)->value->data;
}

/* --- writers (the bucket's lock held) ---------------------------------------------- */

/* A copy of old with entry i's value replaced by v (old's backup kept). */
static struct cowtab_array *with_value(struct cowtab *t,
				       struct cowtab_array *old, uint32_t i,
				       struct cowtab_value *v)
{
	struct cowtab_array *a = array_new(t, old->count);
	if (!a)
		return NULL;
	memcpy(entry_at(t, a, 0), entry_at(t, old, 0),
	       (size_t)old->count * t->entry_size);
	entry_at(t, a, i)->value = v;
	a->backup = old->backup;
	return a;
}

/* old (may be NULL) and one more entry; its backup, one smaller, made too. */
static struct cowtab_array *with_key(struct cowtab *t,
				     struct cowtab_array *old,
				     const void *key, struct cowtab_value *v)
{
	uint32_t n = old ? old->count : 0;
	struct cowtab_array *a = array_new(t, n + 1);
	struct cowtab_array *backup = array_new(t, n);
	if (!a || !backup) {
		free_array_now(t, a);
		free_array_now(t, backup);
		return NULL;
	}
	if (n)
		memcpy(entry_at(t, a, 0), entry_at(t, old, 0), n * t->entry_size);
	struct cowtab_entry *e = entry_at(t, a, n);
	e->value = v;
	memset(entry_key(e), 0, t->entry_size - sizeof(*e));
	memcpy(entry_key(e), key, t->key_size);
	a->backup = backup;
	return a;
}

/* A place for one more key, unless max_entries are in. */
static bool take_count(struct cowtab *t)
{
	if (atomic_fetch_add(&t->count, 1) < t->max_entries)
		return true;
	atomic_fetch_sub(&t->count, 1);
	return false;
}

static int update_locked(struct cowtab *t, struct cowtab_bucket *b,
			 const void *key, const void *value, uint64_t flags)
{
	struct cowtab_array *old =
		atomic_load_explicit(&b->data, memory_order_relaxed);
	int i = index_of(t, old, key);
	int err = map_update_flags_check(i >= 0, flags);
	if (err)
		return err;
	if (i < 0 && !take_count(t))
		return t->full_err;
	struct cowtab_value *v = value_new(t, value);
	struct cowtab_array *a = !v ? NULL
				 : i >= 0 ? with_value(t, old, (uint32_t)i, v)
					  : with_key(t, old, key, v);
	if (!a) {
		free_value_now(t, v);
		if (i < 0)
			atomic_fetch_sub(&t->count, 1);
		return -ENOMEM;
	}
	atomic_store_explicit(&b->data, a, memory_order_release);
	if (i >= 0)
		retire_value(t, entry_at(t, old, (uint32_t)i)->value);
	else if (old) /* the new array made its own backup: the old one's goes */
		retire_array(t, old->backup);
	retire_array(t, old);
	return 0;
}

int cowtab_update(struct cowtab *t, const void *key, const void *value,
		  uint64_t flags)
{
	struct cowtab_bucket *b = bucket_of(t, key);
	map_spin_lock(&b->lock);
	int err = update_locked(t, b, key, value, flags);
	map_spin_unlock(&b->lock);
	return err;
}

static int delete_locked(struct cowtab *t, struct cowtab_bucket *b,
			 const void *key)
{
	struct cowtab_array *old =
		atomic_load_explicit(&b->data, memory_order_relaxed);
	int i = index_of(t, old, key);
	if (i < 0)
		return -ENOENT;
	/* The backup the last insert made (or, if making it failed, one made
	 * now: the only way a delete can run out of memory). */
	struct cowtab_array *a = old->backup ? old->backup
					     : array_new(t, old->count - 1);
	if (!a)
		return -ENOMEM;
	for (uint32_t s = 0, d = 0; s < old->count; s++)
		if (s != (uint32_t)i)
			memcpy(entry_at(t, a, d++), entry_at(t, old, s),
			       t->entry_size);
	/* the next delete's backup; without memory, that delete makes one */
	a->backup = a->count ? array_new(t, a->count - 1) : NULL;
	struct cowtab_value *gone = entry_at(t, old, (uint32_t)i)->value;
	atomic_store_explicit(&b->data, a->count ? a : NULL,
			      memory_order_release);
	if (!a->count)
		retire_array(t, a);
	retire_value(t, gone);
	retire_array(t, old); /* not its backup: that is a, published */
	atomic_fetch_sub(&t->count, 1);
	return 0;
}

int cowtab_delete(struct cowtab *t, const void *key)
{
	struct cowtab_bucket *b = bucket_of(t, key);
	map_spin_lock(&b->lock);
	int err = delete_locked(t, b, key);
	map_spin_unlock(&b->lock);
	return err;
}

/* --- the walk --------------------------------------------------------------------- */

int cowtab_next_rcu(struct cowtab *t, const void *key, const void **next_key,
		    void **next_value)
{
	uint32_t b = 0, from = 0;
	if (key) {
		uint32_t home = bucket_index(t, key);
		int i = index_of(t, load_array(&t->buckets[home]), key);
		if (i >= 0) {
			b = home;
			from = (uint32_t)i + 1;
		}
	}
	for (; b < t->n_buckets; b++, from = 0) {
		struct cowtab_array *a = load_array(&t->buckets[b]);
		if (!a || from >= a->count)
			continue;
		struct cowtab_entry *e = entry_at(t, a, from);
		*next_key = entry_key(e);
		*next_value = e->value->data;
		return 0;
	}
	return -ENOENT;
}
