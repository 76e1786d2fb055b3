/* SPDX-License-Identifier: MIT */
/*
 * value_table.c: ids and the places of their values (value_table.h).  A
 * free id's place holds the next free id in its first 4 bytes: the free
 * lists cost no memory of their own.
 */
#include "maps/base/value_table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static size_t chunk_bytes(const struct value_table *t)
{
	return (size_t)VALUE_CHUNK_IDS * t->stride;
}

static size_t chunks_bytes(uint32_t n)
{
	return sizeof(struct value_chunks) + n * sizeof(unsigned char *);
}

static uint32_t next_of(const struct value_table *t, uint32_t id)
{
	uint32_t next;
	memcpy(&next, value_table_at(t, id), sizeof(next));
	return next;
}

static void link_to(const struct value_table *t, uint32_t id, uint32_t next)
{
	memcpy(value_table_at(t, id), &next, sizeof(next));
}

/* Writer: one chunk more, in a pointer array one longer (the old array
 * freed after a grace period: readers may hold it). */
static int grow(struct value_table *t)
{
	struct value_chunks *old =
		atomic_load_explicit(&t->chunks, memory_order_relaxed);
	uint32_t n = old ? old->n : 0;
	unsigned char *chunk = calloc(1, chunk_bytes(t));
	struct value_chunks *c = malloc(chunks_bytes(n + 1));
	if (!chunk || !c) {
		free(chunk);
		free(c);
		return -ENOMEM;
	}
	c->n = n + 1;
	if (n)
		memcpy(c->chunk, old->chunk, n * sizeof(c->chunk[0]));
	c->chunk[n] = chunk;
	atomic_store_explicit(&t->chunks, c, memory_order_release);
	if (old)
		map_rcu_free_block(&old->rcu);
	t->capacity = (n + 1) * VALUE_CHUNK_IDS;
	t->bytes += chunk_bytes(t) + sizeof(c->chunk[0]);
	return 0;
}

int value_table_init(struct value_table *t, uint32_t value_size,
		     uint32_t max_ids)
{
	memset(t, 0, sizeof(*t));
	t->stride = (value_size + 7) & ~7u;
	t->next = 1; /* id 0: no value */
	t->last = UINT32_MAX;
	t->bytes = chunks_bytes(0);
	atomic_init(&t->chunks, NULL);
	atomic_init(&t->released, 0);
	while ((uint64_t)t->capacity < (uint64_t)max_ids + 1)
		if (grow(t)) {
			value_table_destroy(t);
			return -ENOMEM;
		}
	return 0;
}

void value_table_destroy(struct value_table *t)
{
	struct value_chunks *c =
		atomic_load_explicit(&t->chunks, memory_order_relaxed);
	if (!c)
		return;
	for (uint32_t i = 0; i < c->n; i++)
		free(c->chunk[i]);
	free(c);
	atomic_store_explicit(&t->chunks, NULL, memory_order_relaxed);
}

uint32_t value_table_take(struct value_table *t)
{
	if (!t->free_list)
		t->free_list = atomic_exchange_explicit(&t->released, 0,
							memory_order_acquire);
	if (t->free_list) {
		uint32_t id = t->free_list;
		t->free_list = next_of(t, id);
		return id;
	}
	if (t->next > t->last)
		return 0;
	if (t->next == t->capacity &&
	    (t->capacity > UINT32_MAX - VALUE_CHUNK_IDS || grow(t)))
		return 0;
	return t->next++;
}

void value_table_put_now(struct value_table *t, uint32_t id)
{
	link_to(t, id, t->free_list);
	t->free_list = id;
}

static void retired_grace_over(struct rcu_head *head)
{
	struct value_retired *r = caa_container_of(head, struct value_retired, rcu);
	value_table_release_later(r->values, r->id);
	free(r);
}

void value_table_retire(struct value_table *t, struct value_retired *r,
			uint32_t id)
{
	r->values = t;
	r->id = id;
	map_rcu_call(&r->rcu, retired_grace_over);
}

void value_table_release_later(struct value_table *t, uint32_t id)
{
	/* the chunk pointers may be replaced meanwhile: read them as a
	 * reader does */
	map_rcu_read_lock();
	uint32_t head = atomic_load_explicit(&t->released, memory_order_relaxed);
	do
		link_to(t, id, head);
	while (!atomic_compare_exchange_weak_explicit(&t->released, &head, id,
						      memory_order_release,
						      memory_order_relaxed));
	map_rcu_read_unlock();
}
