/* SPDX-License-Identifier: MIT */
/*
 * lpm_trie/linux: the kernel's BPF_MAP_TYPE_LPM_TRIE (kernel/bpf/lpm_trie.c,
 * 6.18), reimplemented from its documented behaviour and checked against
 * the running kernel op for op (tests/kernel-compare/test_kernel_lpm.c).
 *
 * A key is a 4-byte prefix length in host order, then data_size bytes read
 * most significant bit first (an address in network order).  The trie is
 * binary and path-compressed: each node holds a prefix (its length and the
 * key's bytes as given, trailing bits included) and two children, chosen by
 * the first bit past its prefix.  Two kinds of node:
 *
 *   real          a stored key, with its value; 0, 1 or 2 children
 *   intermediate  (IM) no value; made where two keys' paths part, with the
 *                 prefix they share and exactly two children
 *
 *        192.168.0.0/16            a real node above its more specific keys
 *          /        \
 *   (IM) 192.168.0.0/23  192.168.128.0/24
 *       /          \
 *   .0.0/24      .1.0/24
 *
 * Invariants (under the trie's lock):
 *   - a child's prefix is longer than its parent's and starts with it; it
 *     hangs at child[b], b its bit at the parent's prefix length;
 *   - every IM node has exactly two children (delete keeps this: a leaf
 *     that goes takes its IM parent with it, and a real node with two
 *     children that is deleted becomes IM instead);
 *   - n_entries counts real nodes only, and never exceeds max_entries.
 *
 * Lookup walks from the root under RCU and answers with the last real node
 * whose whole prefix matched: the longest stored prefix no longer than the
 * key's own prefix length.  get_next_key walks in post-order (a prefix
 * after all its extensions, child[0]'s side first); a key not in the trie,
 * or a prefix length beyond the data's bits, starts again from the first.
 *
 * Work (map_ops.work, per cpu slot): trie nodes visited by lookups,
 * updates and deletes, the lock taken by each write, nodes allocated, and
 * the ns each write holds the lock (from taking it to releasing it,
 * work.h's clock): what the kernel's own trie does for each op, beside its
 * time.  The hold time is what every other writer waits behind.
 *
 * Locks: one spin lock for every writer (the kernel's rqspinlock, with
 * interrupts off).  Readers take no lock: children are published with a
 * release store after the node is complete, and a node leaves the trie
 * before it is freed, after an RCU grace period (the kernel's
 * bpf_mem_cache_free_rcu).  An update allocates its node before it takes
 * the lock and an intermediate node under it, as the kernel does.
 *
 * Kernel versions (map_attr.model; docs/kernels.md): 6.1, 6.12 and 6.18
 * as above.  5.10 checks for room before it looks for the key: a full
 * trie refuses every update with -ENOSPC, a replace of a stored prefix
 * and a BPF_NOEXIST or BPF_EXIST that would have failed on the key
 * included.  6.1 and 6.12 got "bpf: Handle in-place update for full LPM
 * trie correctly" (upstream 532d6b36b2bf, 6.13) and "bpf: Handle
 * BPF_EXIST and BPF_NOEXIST for LPM trie" (eae6a075e953) from their
 * stable trees; 5.10's has neither.
 */
#include "maps/base/attr.h"
#include "maps/base/cpu.h"
#include "maps/base/lock.h"
#include "maps/lpm_trie/core/lpm_key.h"
#include "maps/base/map.h"
#include "maps/base/rcu.h"
#include "maps/base/update_flags.h"
#include "maps/base/work.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODE_IM 1u /* an intermediate node: no value, two children */

/* The kernel's struct lpm_trie_node. */
struct lpm_linux_node {
	struct rcu_head rcu; /* first: map_rcu_free_block frees the node */
	_Atomic(struct lpm_linux_node *) child[2];
	uint32_t prefixlen;
	_Atomic uint32_t flags; /* delete may turn a real node IM under readers */
	uint8_t data[];         /* data_size bytes, then value_size bytes */
};

/* The kernel's struct lpm_trie. */
struct lpm_linux {
	struct map map;
	_Atomic(struct lpm_linux_node *) root;
	struct map_spinlock lock;
	uint32_t data_size;
	uint32_t max_prefixlen;
	size_t node_size;
	/* the kernel could kmalloc one node (else every update is -ENOMEM) */
	bool node_fits;
	size_t n_entries; /* real nodes, under lock */
	size_t n_nodes;   /* real and IM nodes, under lock: for memory() */
	/* The kernel's work, per cpu slot (map_ops.work): nodes visited by
	 * every op, the lock taken by each write and how long it was held,
	 * nodes allocated. */
	struct map_work_slot *work; /* [ncpus] */
};

/* A key as the kernel's struct bpf_lpm_trie_key_u8 lays it out (the
 * prefix length, then the data), read from the caller's bytes, which need
 * not be aligned. */
struct lpm_linux_key {
	uint32_t prefixlen;
	const uint8_t *data;
};

static struct lpm_linux_key key_of(const void *k)
{
	return (struct lpm_linux_key){ .prefixlen = lpm_prefixlen_of(k),
				 .data = lpm_data_of(k) };
}

static struct lpm_linux *lpm_linux_of(struct map *m)
{
	return (struct lpm_linux *)m;
}

/* This thread's work counters (only its slot's thread writes them). */
static struct map_work_slot *work_of(struct lpm_linux *t)
{
	return &t->work[map_this_cpu()];
}

/* The writer lock, its hold time counted (map_work_lock). */
static uint64_t lock_and_time(struct lpm_linux *t)
{
	return map_work_lock(&t->lock, work_of(t));
}

static void unlock_and_count(struct lpm_linux *t, uint64_t taken)
{
	map_work_unlock(&t->lock, work_of(t), taken);
}

static struct lpm_linux_node *load_child(struct lpm_linux_node *n, unsigned b)
{
	return atomic_load_explicit(&n->child[b], memory_order_acquire);
}

static struct lpm_linux_node *load_root(struct lpm_linux *t)
{
	return atomic_load_explicit(&t->root, memory_order_acquire);
}

static void publish(_Atomic(struct lpm_linux_node *) *slot,
		    struct lpm_linux_node *n)
{
	atomic_store_explicit(slot, n, memory_order_release);
}

static bool is_im(struct lpm_linux_node *n)
{
	return atomic_load_explicit(&n->flags, memory_order_relaxed) & NODE_IM;
}

/* Bit i of data, most significant first. */
static unsigned bit_at(const uint8_t *data, uint32_t i)
{
	return (data[i / 8] >> (7 - i % 8)) & 1;
}

/*
 * How many leading bits of node's data and key's data agree, counting no
 * further than the shorter of the two prefix lengths.
 */
static uint32_t match_len(const struct lpm_linux *t,
			  const struct lpm_linux_node *n,
			  const struct lpm_linux_key *key)
{
	uint32_t limit = n->prefixlen < key->prefixlen ? n->prefixlen
						      : key->prefixlen;
	uint32_t bits = 0;
	for (uint32_t i = 0; i < t->data_size && bits < limit; i++) {
		uint8_t diff = n->data[i] ^ key->data[i];
		if (diff) {
			bits += (uint32_t)__builtin_clz(diff) - 24;
			break;
		}
		bits += 8;
	}
	return bits < limit ? bits : limit;
}

static uint8_t *value_of(const struct lpm_linux *t, struct lpm_linux_node *n)
{
	return n->data + t->data_size;
}

/* --- reading ------------------------------------------------------------- */

/* The kernel's trie_lookup_elem. */
static void *lpm_linux_lookup(struct map *m, const void *k)
{
	struct lpm_linux *t = lpm_linux_of(m);
	struct lpm_linux_key key = key_of(k);
	struct lpm_linux_node *found = NULL;

	uint64_t visited = 0;
	if (key.prefixlen > t->max_prefixlen)
		return NULL;
	for (struct lpm_linux_node *n = load_root(t); n;) {
		visited++;
		uint32_t matched = match_len(t, n, &key);
		if (matched == t->max_prefixlen) {
			found = n; /* a full-length match: nothing below */
			break;
		}
		if (matched < n->prefixlen)
			break;
		if (!is_im(n))
			found = n;
		n = load_child(n, bit_at(key.data, n->prefixlen));
	}
	map_work_count(&work_of(t)->nodes_scanned, visited);
	return found ? value_of(t, found) : NULL;
}

static int lpm_linux_lookup_copy(struct map *m, const void *key, void *value)
{
	return map_copy_value_rcu(m, lpm_linux_lookup, key, value);
}

/* --- writing --------------------------------------------------------------- */

static struct lpm_linux_node *node_alloc(struct lpm_linux *t, const void *value)
{
	/* The kernel's bpf_mem_cache_alloc fails for a node over
	 * KMALLOC_MAX_SIZE: every update, which allocates its node first. */
	struct lpm_linux_node *n = t->node_fits ? malloc(t->node_size) : NULL;
	if (!n)
		return NULL;
	map_work_count(&work_of(t)->allocations, 1);
	atomic_init(&n->flags, 0);
	atomic_init(&n->child[0], NULL);
	atomic_init(&n->child[1], NULL);
	if (value)
		memcpy(value_of(t, n), value, t->map.attr.value_size);
	return n;
}

/* A new real node may go in: the flags allow an insert and there is room.
 * Lock held; counts it. */
static int check_add(struct lpm_linux *t, uint64_t flags)
{
	if (flags == MAP_EXIST)
		return -ENOENT;
	if (t->n_entries == t->map.attr.max_entries)
		return -ENOSPC;
	t->n_entries++;
	return 0;
}

/*
 * The place for key: the slot of the first node on key's path that does
 * not fully match it or has its very prefix length, or the empty slot at
 * the path's end.  *node is that slot's node (NULL: empty), *matched the
 * bits it shares with key, and *parent (when asked) the node above.
 */
static _Atomic(struct lpm_linux_node *) *
find_slot(struct lpm_linux *t, const struct lpm_linux_key *key,
	  struct lpm_linux_node **node, uint32_t *matched,
	  struct lpm_linux_node **parent,
	  _Atomic(struct lpm_linux_node *) **parent_slot)
{
	_Atomic(struct lpm_linux_node *) *slot = &t->root, *above = &t->root;
	struct lpm_linux_node *n, *up = NULL;
	uint64_t visited = 0;
	*matched = 0;
	while ((n = atomic_load_explicit(slot, memory_order_relaxed))) {
		visited++;
		*matched = match_len(t, n, key);
		if (n->prefixlen != *matched || n->prefixlen == key->prefixlen)
			break;
		up = n;
		above = slot;
		slot = &n->child[bit_at(key->data, n->prefixlen)];
	}
	map_work_count(&work_of(t)->nodes_scanned, visited);
	*node = n;
	if (parent) {
		*parent = up;
		*parent_slot = above;
	}
	return slot;
}

/* The update cases of trie_update_elem, lock held.  *old: a replaced node
 * to free after a grace period. */
static int update_locked(struct lpm_linux *t, const struct lpm_linux_key *key,
			 struct lpm_linux_node *fresh, uint64_t flags,
			 struct lpm_linux_node **old)
{
	struct lpm_linux_node *n;
	uint32_t matched;
	_Atomic(struct lpm_linux_node *) *slot;
	int err;

	if (t->map.attr.model < MAP_MODEL(6, 1) &&
	    t->n_entries == t->map.attr.max_entries)
		return -ENOSPC; /* 5.10: room first, the key never looked at */
	slot = find_slot(t, key, &n, &matched, NULL, NULL);
	if (!n) { /* an empty slot: the new node is a leaf */
		if ((err = check_add(t, flags)))
			return err;
		publish(slot, fresh);
		return 0;
	}
	if (n->prefixlen == matched) { /* this very prefix: replace it */
		if (!is_im(n) && flags == MAP_NOEXIST)
			return -EEXIST;
		if (is_im(n) && (err = check_add(t, flags)))
			return err;
		atomic_init(&fresh->child[0], load_child(n, 0));
		atomic_init(&fresh->child[1], load_child(n, 1));
		publish(slot, fresh);
		*old = n;
		return 0;
	}
	if ((err = check_add(t, flags)))
		return err;
	if (matched == key->prefixlen) { /* the new key is n's prefix: above */
		atomic_init(&fresh->child[bit_at(n->data, matched)], n);
		publish(slot, fresh);
		return 0;
	}
	/* the paths part at bit `matched`: an IM node takes both */
	struct lpm_linux_node *im = node_alloc(t, NULL);
	if (!im) {
		t->n_entries--;
		return -ENOMEM;
	}
	im->prefixlen = matched;
	atomic_init(&im->flags, NODE_IM);
	memcpy(im->data, n->data, t->data_size);
	unsigned b = bit_at(key->data, matched);
	atomic_init(&im->child[b], fresh);
	atomic_init(&im->child[!b], n);
	publish(slot, im);
	t->n_nodes++;
	return 0;
}

/* The kernel's trie_update_elem. */
static int lpm_linux_update(struct map *m, const void *k, const void *value,
			    uint64_t flags)
{
	struct lpm_linux *t = lpm_linux_of(m);
	struct lpm_linux_key key = key_of(k);
	struct lpm_linux_node *old = NULL;

	if (flags > MAP_EXIST || key.prefixlen > t->max_prefixlen)
		return -EINVAL;
	struct lpm_linux_node *fresh = node_alloc(t, value);
	if (!fresh)
		return -ENOMEM;
	fresh->prefixlen = key.prefixlen;
	memcpy(fresh->data, key.data, t->data_size); /* trailing bits too */

	uint64_t taken = lock_and_time(t);
	int err = update_locked(t, &key, fresh, flags, &old);
	if (!err && !old)
		t->n_nodes++;
	unlock_and_count(t, taken);

	if (err)
		free(fresh); /* never seen by a reader */
	if (old)
		map_rcu_free_block(&old->rcu);
	return err;
}

/* The delete cases of trie_delete_elem, lock held.  Nodes that leave the
 * trie go to gone[0..1]. */
static int delete_locked(struct lpm_linux *t, const struct lpm_linux_key *key,
			 struct lpm_linux_node *gone[2])
{
	struct lpm_linux_node *n, *parent;
	_Atomic(struct lpm_linux_node *) *parent_slot;
	uint32_t matched;
	_Atomic(struct lpm_linux_node *) *slot =
		find_slot(t, key, &n, &matched, &parent, &parent_slot);

	if (!n || n->prefixlen != key->prefixlen || n->prefixlen != matched ||
	    is_im(n))
		return -ENOENT;
	t->n_entries--;
	struct lpm_linux_node *left = load_child(n, 0), *right = load_child(n, 1);
	if (left && right) { /* still needed as a fork: it turns IM */
		atomic_store_explicit(&n->flags, NODE_IM, memory_order_relaxed);
		return 0;
	}
	if (parent && is_im(parent) && !left && !right) {
		/* a leaf under an IM node: the fork goes too, the sibling up */
		unsigned mine = load_child(parent, 1) == n;
		publish(parent_slot, load_child(parent, !mine));
		gone[0] = parent;
		gone[1] = n;
		return 0;
	}
	publish(slot, left ? left : right);
	gone[0] = n;
	return 0;
}

/* The kernel's trie_delete_elem. */
static int lpm_linux_delete(struct map *m, const void *k)
{
	struct lpm_linux *t = lpm_linux_of(m);
	struct lpm_linux_key key = key_of(k);
	struct lpm_linux_node *gone[2] = { NULL, NULL };

	if (key.prefixlen > t->max_prefixlen)
		return -EINVAL;
	uint64_t taken = lock_and_time(t);
	int err = delete_locked(t, &key, gone);
	for (int i = 0; i < 2; i++)
		t->n_nodes -= gone[i] != NULL;
	unlock_and_count(t, taken);
	for (int i = 0; i < 2; i++)
		if (gone[i])
			map_rcu_free_block(&gone[i]->rcu);
	return err;
}

/* --- get_next_key ---------------------------------------------------------- */

/* The first real node of from's subtree in post-order: down child[0]
 * where there is one, else child[1]; IM nodes always have both, so the
 * walk ends at a real leaf. */
static struct lpm_linux_node *leftmost(struct lpm_linux_node *from)
{
	struct lpm_linux_node *last = NULL;
	for (struct lpm_linux_node *n = from; n;) {
		if (!is_im(n))
			last = n;
		struct lpm_linux_node *next = load_child(n, 0);
		n = next ? next : load_child(n, 1);
	}
	return last;
}

static void copy_key(const struct lpm_linux *t, const struct lpm_linux_node *n,
		     void *next)
{
	memcpy(next, &n->prefixlen, MAP_LPM_PREFIX_BYTES);
	memcpy((uint8_t *)next + MAP_LPM_PREFIX_BYTES, n->data, t->data_size);
}

/* The node after key's exact node in post-order, or NULL after the last;
 * *first set when key is not a real node of the trie. */
static int next_after(struct lpm_linux *t, const struct lpm_linux_key *key,
		      struct lpm_linux_node *root, struct lpm_linux_node **next)
{
	struct lpm_linux_node **path = malloc(sizeof(*path) * (t->max_prefixlen + 1));
	struct lpm_linux_node *n;
	int depth = -1;
	uint32_t matched = 0;

	if (!path)
		return -ENOMEM;
	for (n = root; n;) {
		path[++depth] = n;
		matched = match_len(t, n, key);
		if (n->prefixlen != matched || n->prefixlen == key->prefixlen)
			break;
		n = load_child(n, bit_at(key->data, n->prefixlen));
	}
	*next = NULL;
	if (!n || n->prefixlen != matched || is_im(n)) {
		*next = leftmost(root); /* not in the trie: from the first */
		free(path);
		return 0;
	}
	for (; depth > 0; depth--) {
		struct lpm_linux_node *parent = path[depth - 1], *right;
		if (load_child(parent, 0) == path[depth] &&
		    (right = load_child(parent, 1))) {
			*next = leftmost(right);
			break;
		}
		if (!is_im(parent)) {
			*next = parent;
			break;
		}
	}
	free(path);
	return 0;
}

/* The kernel's trie_get_next_key. */
static int lpm_linux_get_next_key(struct map *m, const void *k, void *next)
{
	struct lpm_linux *t = lpm_linux_of(m);
	struct lpm_linux_key key = k ? key_of(k) : (struct lpm_linux_key){ 0 };
	struct lpm_linux_node *found = NULL;
	int err = 0;

	map_rcu_read_lock();
	struct lpm_linux_node *root = load_root(t);
	if (!root)
		err = -ENOENT;
	else if (!k || key.prefixlen > t->max_prefixlen)
		found = leftmost(root);
	else
		err = next_after(t, &key, root, &found);
	if (!err && !found)
		err = -ENOENT;
	if (!err)
		copy_key(t, found, next);
	map_rcu_read_unlock();
	return err;
}

/* --- dump_state: the trie as text or Graphviz ------------------------------- */

/* A prefix as people write it: dotted quad for 4 data bytes, groups of
 * hex for 16, hex otherwise; the bytes as stored, trailing bits too. */
static void print_prefix(FILE *f, const struct lpm_linux *t,
			 const struct lpm_linux_node *n)
{
	lpm_print_prefix(f, n->data, t->data_size, n->prefixlen);
}

struct dump_counts {
	size_t real, im;
};

static void count_nodes(struct lpm_linux_node *n, struct dump_counts *c)
{
	for (; n; n = load_child(n, 1)) {
		*(is_im(n) ? &c->im : &c->real) += 1;
		count_nodes(load_child(n, 0), c);
	}
}

/* Text: the tree indented, each child with its bit; (im) for forks. */
static void dump_text(FILE *f, const struct lpm_linux *t,
		      struct lpm_linux_node *n, int depth, int bit)
{
	fprintf(f, "%*s", 2 * depth, "");
	if (bit >= 0)
		fprintf(f, "[%d] ", bit);
	if (is_im(n))
		fputs("(im) ", f);
	print_prefix(f, t, n);
	fputc('\n', f);
	for (unsigned b = 0; b < 2; b++) {
		struct lpm_linux_node *c = load_child(n, b);
		if (c)
			dump_text(f, t, c, depth + 1, (int)b);
	}
}

/* Dot: a box per real node, a dashed ellipse per fork, edges by bit; the
 * nodes numbered in pre-order, so the same trie draws the same text.
 * Returns n's number. */
static unsigned dump_dot(FILE *f, const struct lpm_linux *t,
			 struct lpm_linux_node *n, unsigned *next_id)
{
	unsigned id = (*next_id)++;
	fprintf(f, "  n%u [label=\"", id);
	print_prefix(f, t, n);
	fprintf(f, "%s\"%s];\n", is_im(n) ? "\\n(intermediate)" : "",
		is_im(n) ? ", shape=ellipse, style=dashed" : "");
	for (unsigned b = 0; b < 2; b++) {
		struct lpm_linux_node *c = load_child(n, b);
		if (c)
			fprintf(f, "  n%u -> n%u [label=\"%u\"];\n", id,
				dump_dot(f, t, c, next_id), b);
	}
	return id;
}

static int lpm_linux_dump_state(struct map *m, FILE *f,
				enum map_dump_format fmt)
{
	struct lpm_linux *t = lpm_linux_of(m);
	struct lpm_linux_node *root = load_root(t);
	struct dump_counts c = { 0, 0 };
	count_nodes(root, &c);
	if (fmt == MAP_DUMP_DOT) {
		fprintf(f, "digraph maplab {\n  label=\"lpm_trie/linux: %zu "
			"prefixes, %zu intermediate\";\n  labelloc=t;\n"
			"  node [shape=box, fontname=\"monospace\"];\n",
			c.real, c.im);
		unsigned next_id = 0;
		if (root)
			dump_dot(f, t, root, &next_id);
		fputs("}\n", f);
		return 0;
	}
	fprintf(f, "lpm_trie/linux: %zu prefixes, %zu intermediate (im); "
		"each child after the bit that leads to it\n", c.real, c.im);
	if (root)
		dump_text(f, t, root, 0, -1);
	return 0;
}

/* --- create, destroy, memory ------------------------------------------------ */

/* The kernel's trie_alloc; its checks are map_check_lpm_attr's. */
static int lpm_linux_create(const struct map_attr *attr, struct map **out)
{
	int err = map_check_lpm_attr(attr);
	if (err)
		return err;
	struct lpm_linux *t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->map.attr = *attr;
	t->data_size = attr->key_size - MAP_LPM_PREFIX_BYTES;
	t->max_prefixlen = 8 * t->data_size;
	t->node_size =
		sizeof(struct lpm_linux_node) + t->data_size + attr->value_size;
	/* The kernel's node: its 24-byte header, the data, the value
	 * (trie_alloc's leaf_size, intermediate nodes alike); bpf_mem_alloc
	 * adds its link (maps/base/attr.h). */
	t->node_fits = map_bpf_mem_alloc_fits((uint64_t)MAP_LPM_NODE_HEADER +
					      t->data_size + attr->value_size);
	map_spin_init(&t->lock);
	t->work = map_work_slots_new(attr->ncpus);
	if (!t->work) {
		free(t);
		return -ENOMEM;
	}
	*out = &t->map;
	return 0;
}

static void free_subtree(struct lpm_linux_node *n)
{
	while (n) {
		free_subtree(load_child(n, 0));
		struct lpm_linux_node *right = load_child(n, 1);
		free(n);
		n = right; /* the right spine iteratively: depth is the prefix's */
	}
}

/* The kernel's trie_free. */
static void lpm_linux_destroy(struct map *m)
{
	struct lpm_linux *t = lpm_linux_of(m);
	map_rcu_barrier(); /* replaced and deleted nodes still queued */
	free_subtree(load_root(t));
	free(t->work);
	free(t);
}

static void lpm_linux_work(const struct map *m, int cpu, struct map_work *w)
{
	const struct lpm_linux *t = (const struct lpm_linux *)m;
	map_work_sum(t->work, m->attr.ncpus, cpu, w);
}

static size_t lpm_linux_memory(const struct map *m)
{
	const struct lpm_linux *t = (const struct lpm_linux *)m;
	return sizeof(*t) + t->n_nodes * t->node_size;
}

const struct map_ops lpm_trie_linux_ops = {
	.name = "lpm_trie/linux",
	.description = "kernel-faithful BPF_MAP_TYPE_LPM_TRIE: binary trie with "
		       "intermediate nodes, one writer lock, RCU readers",
	.type = MAP_TYPE_LPM_TRIE,
	.faithful = 1,
	.models = "5.10 6.1 6.12 6.18",
	.create = lpm_linux_create,
	.destroy = lpm_linux_destroy,
	.lookup = lpm_linux_lookup,
	.lookup_copy = lpm_linux_lookup_copy,
	.update = lpm_linux_update,
	.delete = lpm_linux_delete,
	.get_next_key = lpm_linux_get_next_key,
	.memory = lpm_linux_memory,
	.work = lpm_linux_work,
	.dump_state = lpm_linux_dump_state,
};
