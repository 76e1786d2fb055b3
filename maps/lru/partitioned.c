/* SPDX-License-Identifier: MIT */
/*
 * lru/partitioned: the LRU hash map of eBPF for Windows, after
 * libs/execution_context/ebpf_maps.c of microsoft/ebpf-for-windows (the
 * partitioned version, as of commit 0020d3188fd7), over maplab's core.
 *
 * Partitions.  P = min(ncpus, 8) (EBPF_LRU_MAXIMUM_PARTITIONS).  An
 * operation works in the partition of the cpu it runs on, slot % P
 * (Windows: the current CPU % P); a key does not pick one.  A key has a
 * place in every partition (a link, a generation and a last-use time
 * each) and is on the lists of each partition it was used from.
 *
 *   partition q  [lock]  generation g   hot_limit = max(max_entries / P / 10, 1)
 *     hot:  keys used in generation g       oldest -> ... -> newest
 *     cold: keys last used here before g    oldest -> ... -> newest
 *     free: unused elements (ours; Windows allocates)
 *
 * A key's state in q is its generation there: 0 absent, all ones deleted,
 * q's generation hot, anything else cold.
 *
 *   use (a program's lookup) on partition q: nothing, and no lock, if the
 *       key is hot or deleted there; else, under q's lock, to the tail of
 *       q's hot list with q's generation and the time now.  A hot
 *       list that then holds more than hot_limit keys is spliced onto the
 *       cold list's tail and q's generation advances: every key on it is
 *       cold at once, without a write to any of them (that is what the
 *       generations are for).
 *   insert: the new key's element is used in the inserting cpu's partition
 *       (Windows's ALLOCATE notification).
 *   delete, and a replace's old element: out of every partition, locking
 *       each in turn (Windows's FREE notification).
 *   reap (an insert finds no free element): a pass looks at the head of
 *       each partition's cold list, its oldest key there.  A head whose
 *       newest use (the latest last-use time over all partitions) is not
 *       this partition's is stale here: it leaves this cold list (absent
 *       here from now on) and the pass moves on.  Of the others, the
 *       oldest by newest use goes (a tie to the lowest partition); passes
 *       repeat until one is found or every cold list is empty.  One key
 *       per try.  A hot key is not a candidate: it is on no cold list of
 *       the partition it is hot in, and in any other its link is stale,
 *       unless the two uses fell in one tick of the clock (below).
 *
 * Time is Windows's kind too: ebpf_query_time_since_boot_approximate
 * reads the interrupt time (KeQueryInterruptTime), which advances once a
 * clock tick (15.6 ms by default), without a write to anything shared;
 * here CLOCK_MONOTONIC_COARSE (4 ms a tick on a kernel of HZ=250).  Uses within one tick tie: a key
 * inserted on one cpu and used on another within the tick keeps a live
 * link in both, and a cold one of them can be reaped although the key is
 * hot in the other, as in Windows.  On one thread only one partition is in
 * use, where the lists alone decide, so a replay does not depend on time.
 *
 * Where this differs from Windows, and why:
 *  - Order of work.  Windows inserts first and reaps only when the insert
 *    finds the table's count past max_entries (its plain hash maps have no
 *    limit, EBPF_HASH_TABLE_NO_LIMIT; the LRU map's table has one), then
 *    tries again.  The failed first try has put the new key on the hot
 *    list and taken it off again, which may have spliced the hot list:
 *    partitioned_note_failed_insert does that.  maplab's core pops before
 *    it looks (the kernel's order), so a replace, or a BPF_NOEXIST of a
 *    present key, in a full map reaps a key here; in Windows a replace
 *    needs no room and a refused insert reaps nothing.
 *  - Eviction of the element.  Windows deletes the reaped entry's key from
 *    the table with no partition lock held: a key deleted and inserted
 *    again meanwhile loses its new entry.  Here the reaper checks, under
 *    the candidate's partition lock, that it is still cold there, and
 *    unlinks exactly that element (lru_htab_evict).  A failed unlink is a
 *    failed try, as a failed delete is in Windows.
 *  - No cold key anywhere (every key hot, which a small map with many
 *    partitions can reach).  Windows tries again until some hot list
 *    overflows, which may wait on other CPUs; we splice every partition's
 *    hot list at once and try again.  If even that finds nothing, every
 *    element is mid-update elsewhere and the insert is -ENOMEM, as in
 *    lru/global.
 *  - Syscall lookups.  Windows's table notifies a use on every find, the
 *    syscall's included; maplab's lookup_copy never marks (the kernel's
 *    contract).
 *
 * Concurrency.  A partition's lock guards its lists, sizes and generation,
 * and every element's link and generation in that partition.  A use reads
 * the generations without the lock first (atomics, relaxed: a stale answer
 * only takes the lock for nothing or skips one use, as in Windows).  Every
 * last-use time is read without a lock by the reaper of any partition.
 * No thread holds two partition locks; lock order: a partition lock, then
 * a bucket lock (the reaper's lru_htab_evict).  An element reused while a
 * lookup that found it in its earlier life is still to mark it gets that
 * mark on its new key, which is harmless: a free element is deleted in
 * every partition, and a use of a deleted key does nothing.  Last-use
 * times are never reset: those of an element's earlier life are no newer
 * than any of its new one (which is stamped after it was reaped or freed),
 * so they cannot make a link of the new life stale.
 */
#include "maps/base/area.h"
#include "maps/base/lock.h"
#include "maps/lru/core/lru_dump.h"
#include "maps/lru/core/lru_htab.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_PARTITIONS 8     /* EBPF_LRU_MAXIMUM_PARTITIONS */
#define GENERATION_COUNT 10  /* EBPF_LRU_GENERATION_COUNT */
#define FIRST_GENERATION 1   /* EBPF_LRU_INITIAL_GENERATION */
#define GEN_ABSENT 0         /* not on this partition's lists */
#define GEN_DELETED UINT64_MAX

enum key_state { KEY_ABSENT, KEY_COLD, KEY_HOT, KEY_DELETED };
enum { ON_FREE, IN_USE }; /* lru_node.type */

/* An element's place in one partition. */
struct part_link {
	struct dlist link;           /* on the partition's hot or cold list */
	_Atomic uint64_t generation; /* the partition's, when last used there */
	_Atomic uint64_t last_used;  /* the approximate time then; 0: never */
};

struct partition {
	struct map_spinlock lock;
	struct dlist hot, cold;      /* of part_link; oldest at the head */
	struct dlist free;           /* of lru_node */
	_Atomic uint64_t generation; /* written under lock */
	uint32_t hot_size, hot_limit;
	_Atomic uint32_t cold_size, free_size; /* written under lock; read
						  without it to skip a list */
} __attribute__((aligned(64)));

struct partitioned_lru {
	struct partition parts[MAX_PARTITIONS];
	unsigned nparts;
	uint64_t born;           /* the approximate time at create (dumps) */
	struct part_link *links; /* element i's link in q: links[i * nparts + q] */
};

static struct partitioned_lru *partitioned_state(struct lru_htab *h)
{
	return h->policy_state;
}

static unsigned partitioned_part_of_cpu(const struct partitioned_lru *s,
					unsigned cpu)
{
	return cpu % s->nparts;
}

/* n's links, one per partition, side by side. */
static struct part_link *partitioned_links_of(struct lru_htab *h,
					      const struct lru_node *n)
{
	struct partitioned_lru *s = partitioned_state(h);
	return &s->links[(size_t)n->index * s->nparts];
}

static struct lru_node *partitioned_node_of_link(struct lru_htab *h,
						 struct dlist *p)
{
	struct partitioned_lru *s = partitioned_state(h);
	size_t i = (size_t)(dlist_entry(p, struct part_link, link) - s->links);
	return lru_htab_node(h, (uint32_t)(i / s->nparts));
}

/* Nanoseconds, advancing once a tick; a read of the vDSO's clock page,
 * which only the kernel's timekeeping writes. */
static uint64_t partitioned_approximate_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t partitioned_load(_Atomic uint64_t *v)
{
	return atomic_load_explicit(v, memory_order_relaxed);
}

static void partitioned_store(_Atomic uint64_t *v, uint64_t x)
{
	atomic_store_explicit(v, x, memory_order_relaxed);
}

/* Only the holder of the partition's lock writes these sizes. */
static void partitioned_add_size(_Atomic uint32_t *v, int32_t d)
{
	atomic_store_explicit(v, atomic_load_explicit(v, memory_order_relaxed) +
			      (uint32_t)d, memory_order_relaxed);
}

static enum key_state partitioned_key_state(struct partition *p,
					    struct part_link *l)
{
	/* Acquire: pairs with partitioned_start_life's release, so a
	 * partition that takes the element into its lists also sees its hash
	 * (a reaper there unlinks it by that hash). */
	uint64_t g = atomic_load_explicit(&l->generation, memory_order_acquire);
	if (g == GEN_ABSENT)
		return KEY_ABSENT;
	if (g == GEN_DELETED)
		return KEY_DELETED;
	return g == partitioned_load(&p->generation) ? KEY_HOT : KEY_COLD;
}

static void partitioned_lock_part(struct lru_htab *h, unsigned cpu,
				  struct partition *p)
{
	lru_lock(h, cpu, &p->lock);
}

/* --- create -------------------------------------------------------------------- */

static void partitioned_init_partition(struct partition *p, uint32_t hot_limit)
{
	map_spin_init(&p->lock);
	dlist_init(&p->hot);
	dlist_init(&p->cold);
	dlist_init(&p->free);
	atomic_init(&p->generation, FIRST_GENERATION);
	p->hot_limit = hot_limit;
}

static int partitioned_init(struct lru_htab *h)
{
	struct partitioned_lru *s = map_area_alloc(sizeof(*s), 64);
	if (!s)
		return -ENOMEM;
	memset(s, 0, sizeof(*s));
	s->born = partitioned_approximate_now();
	s->nparts = h->map.attr.ncpus < MAX_PARTITIONS ? h->map.attr.ncpus
						      : MAX_PARTITIONS;
	s->links = map_area_alloc_array((size_t)h->n_elems * s->nparts,
					sizeof(*s->links), 8);
	if (!s->links) {
		free(s);
		return -ENOMEM;
	}
	uint32_t per_part = h->n_elems / s->nparts;
	uint32_t hot_limit = per_part / GENERATION_COUNT;
	if (!hot_limit)
		hot_limit = 1;
	for (unsigned q = 0; q < s->nparts; q++)
		partitioned_init_partition(&s->parts[q], hot_limit);
	for (uint32_t i = 0; i < h->n_elems; i++) {
		struct lru_node *n = lru_htab_node(h, i);
		struct partition *p = &s->parts[i % s->nparts];
		for (unsigned q = 0; q < s->nparts; q++) {
			struct part_link *l = &s->links[(size_t)i * s->nparts + q];
			dlist_init(&l->link);
			atomic_init(&l->generation, GEN_DELETED);
			atomic_init(&l->last_used, 0);
		}
		n->type = ON_FREE;
		dlist_add_tail(&n->link, &p->free);
		partitioned_add_size(&p->free_size, 1);
	}
	h->policy_state = s;
	return 0;
}

static void partitioned_fini(struct lru_htab *h)
{
	free(partitioned_state(h)->links);
	free(h->policy_state);
}

/* --- one partition's lists (its lock held) ------------------------------------- */

/* The hot list onto the cold list's tail, and a new generation. */
static void partitioned_start_generation(struct partition *p)
{
	if (!dlist_empty(&p->hot)) {
		struct dlist *first = p->hot.next, *last = p->hot.prev;
		first->prev = p->cold.prev;
		p->cold.prev->next = first;
		last->next = &p->cold;
		p->cold.prev = last;
		dlist_init(&p->hot);
	}
	partitioned_add_size(&p->cold_size, (int32_t)p->hot_size);
	p->hot_size = 0;
	partitioned_store(&p->generation, partitioned_load(&p->generation) + 1);
}

/* l (absent or cold here) to the hot tail, used now. */
static void partitioned_make_hot(struct partition *p, struct part_link *l,
				 enum key_state st)
{
	if (st == KEY_COLD) {
		dlist_del(&l->link);
		partitioned_add_size(&p->cold_size, -1);
	}
	partitioned_store(&l->generation, partitioned_load(&p->generation));
	partitioned_store(&l->last_used, partitioned_approximate_now());
	dlist_add_tail(&l->link, &p->hot);
	if (++p->hot_size > p->hot_limit)
		partitioned_start_generation(p);
}

/* l off this partition's lists; its generation here becomes `gen`. */
static void partitioned_leave_partition(struct partition *p,
					struct part_link *l, uint64_t gen)
{
	enum key_state st = partitioned_key_state(p, l);
	if (st == KEY_HOT || st == KEY_COLD)
		dlist_del(&l->link);
	if (st == KEY_HOT)
		p->hot_size--;
	else if (st == KEY_COLD)
		partitioned_add_size(&p->cold_size, -1);
	partitioned_store(&l->generation, gen);
}

/* --- an element's life ------------------------------------------------------------- */

/* n, deleted everywhere, begins a key's life: absent in every partition
 * but the cpu's own, where it is used now. */
static void partitioned_start_life(struct lru_htab *h, unsigned cpu,
				   struct lru_node *n, uint32_t hash)
{
	struct partitioned_lru *s = partitioned_state(h);
	struct part_link *links = partitioned_links_of(h, n);
	unsigned own = partitioned_part_of_cpu(s, cpu);
	lru_node_set_hash(n, hash);
	for (unsigned q = 0; q < s->nparts; q++)
		if (q != own) /* release: the hash before the key's new life */
			atomic_store_explicit(&links[q].generation, GEN_ABSENT,
					      memory_order_release);
	partitioned_lock_part(h, cpu, &s->parts[own]);
	n->type = IN_USE;
	partitioned_make_hot(&s->parts[own], &links[own], KEY_ABSENT);
	map_spin_unlock(&s->parts[own].lock);
}

/* n out of every partition, one lock at a time, the cpu's own last; then
 * onto its free list if to_free. */
static void partitioned_end_life(struct lru_htab *h, unsigned cpu,
				 struct lru_node *n, bool to_free)
{
	struct partitioned_lru *s = partitioned_state(h);
	struct part_link *links = partitioned_links_of(h, n);
	unsigned own = partitioned_part_of_cpu(s, cpu);
	for (unsigned i = 1; i <= s->nparts; i++) {
		unsigned q = (own + i) % s->nparts;
		struct partition *p = &s->parts[q];
		partitioned_lock_part(h, cpu, p);
		partitioned_leave_partition(p, &links[q], GEN_DELETED);
		if (q == own && to_free) {
			n->type = ON_FREE;
			dlist_add(&n->link, &p->free);
			partitioned_add_size(&p->free_size, 1);
		}
		map_spin_unlock(&p->lock);
	}
}

/* A free element: the cpu's own partition's first, then the others'. */
static struct lru_node *partitioned_take_free(struct lru_htab *h, unsigned cpu)
{
	struct partitioned_lru *s = partitioned_state(h);
	unsigned own = partitioned_part_of_cpu(s, cpu);
	for (unsigned i = 0; i < s->nparts; i++) {
		struct partition *p = &s->parts[(own + i) % s->nparts];
		if (!atomic_load_explicit(&p->free_size, memory_order_relaxed))
			continue;
		partitioned_lock_part(h, cpu, p);
		struct dlist *f = dlist_first(&p->free);
		if (f) {
			dlist_del(f);
			partitioned_add_size(&p->free_size, -1);
		}
		map_spin_unlock(&p->lock);
		if (f)
			return dlist_entry(f, struct lru_node, link);
	}
	return NULL;
}

/* --- the reaper ---------------------------------------------------------------------- */

/* Windows's failed first try at an insert into a full table: the new key
 * joined the hot list, which may have spliced it, and left again. */
static void partitioned_note_failed_insert(struct lru_htab *h, unsigned cpu)
{
	struct partitioned_lru *s = partitioned_state(h);
	struct partition *p = &s->parts[partitioned_part_of_cpu(s, cpu)];
	partitioned_lock_part(h, cpu, p);
	if (p->hot_size + 1 > p->hot_limit)
		partitioned_start_generation(p);
	map_spin_unlock(&p->lock);
}

static void partitioned_splice_every_partition(struct lru_htab *h, unsigned cpu)
{
	struct partitioned_lru *s = partitioned_state(h);
	for (unsigned q = 0; q < s->nparts; q++) {
		partitioned_lock_part(h, cpu, &s->parts[q]);
		if (s->parts[q].hot_size)
			partitioned_start_generation(&s->parts[q]);
		map_spin_unlock(&s->parts[q].lock);
	}
}

static uint64_t partitioned_newest_use(struct part_link *links, unsigned nparts)
{
	uint64_t newest = 0;
	for (unsigned q = 0; q < nparts; q++)
		if (partitioned_load(&links[q].last_used) > newest)
			newest = partitioned_load(&links[q].last_used);
	return newest;
}

/*
 * Windows's _reap_lru_cold_lists: the oldest cold head whose link is not
 * stale, dropping stale heads on the way; *part is its partition.  NULL
 * when every cold list is empty.
 */
static struct lru_node *partitioned_oldest_cold(struct lru_htab *h,
						unsigned cpu, unsigned *part)
{
	struct partitioned_lru *s = partitioned_state(h);
	struct map_work_slot *w = lru_work(h, cpu);
	struct lru_node *oldest = NULL;
	uint64_t oldest_use = UINT64_MAX;
	for (bool any = true; !oldest && any;) {
		any = false;
		for (unsigned q = 0; q < s->nparts; q++) {
			struct partition *p = &s->parts[q];
			if (!atomic_load_explicit(&p->cold_size,
						  memory_order_relaxed))
				continue;
			any = true;
			partitioned_lock_part(h, cpu, p);
			struct dlist *head = dlist_first(&p->cold);
			if (head) {
				struct part_link *l =
					dlist_entry(head, struct part_link, link);
				struct lru_node *n =
					partitioned_node_of_link(h, head);
				uint64_t used = partitioned_newest_use(
					partitioned_links_of(h, n), s->nparts);
				map_work_count(&w->nodes_scanned, 1);
				if (used != partitioned_load(&l->last_used)) {
					partitioned_leave_partition(p, l,
								    GEN_ABSENT);
				} else if (used < oldest_use) {
					oldest = n;
					oldest_use = used;
					*part = q;
				}
			}
			map_spin_unlock(&p->lock);
		}
	}
	return oldest;
}

enum reap_result { REAPED, TRY_AGAIN, NO_CANDIDATE };

/* One try: the oldest cold key out of the table and off every list. */
static enum reap_result partitioned_reap_one(struct lru_htab *h, unsigned cpu,
					     struct lru_node **out)
{
	struct partitioned_lru *s = partitioned_state(h);
	unsigned q = 0;
	map_work_count(&lru_work(h, cpu)->refills, 1);
	struct lru_node *n = partitioned_oldest_cold(h, cpu, &q);
	if (!n)
		return NO_CANDIDATE;
	struct partition *p = &s->parts[q];
	partitioned_lock_part(h, cpu, p);
	struct part_link *l = &partitioned_links_of(h, n)[q];
	bool gone = partitioned_key_state(p, l) == KEY_COLD &&
		    lru_htab_evict(h, cpu, n);
	map_spin_unlock(&p->lock);
	if (!gone)
		return TRY_AGAIN;
	partitioned_end_life(h, cpu, n, false);
	*out = n;
	return REAPED;
}

/* --- the policy ------------------------------------------------------------------------ */

static struct lru_node *partitioned_pop_free(struct lru_htab *h, unsigned cpu,
					     uint32_t hash)
{
	bool spliced_all = false;
	struct lru_node *n;
	while (!(n = partitioned_take_free(h, cpu))) {
		partitioned_note_failed_insert(h, cpu);
		enum reap_result r = partitioned_reap_one(h, cpu, &n);
		if (r == REAPED)
			break;
		if (r == TRY_AGAIN) {
			sched_yield(); /* the candidate is mid-update elsewhere */
		} else if (!spliced_all) {
			partitioned_splice_every_partition(h, cpu);
			spliced_all = true;
		} else {
			return NULL;
		}
	}
	partitioned_start_life(h, cpu, n, hash);
	return n;
}

static void partitioned_push_free(struct lru_htab *h, unsigned cpu,
				  struct lru_node *n)
{
	partitioned_end_life(h, cpu, n, true);
}

/* Windows's _insert_into_hot_list. */
static void partitioned_referenced(struct lru_htab *h, unsigned cpu,
				   struct lru_node *n)
{
	struct partitioned_lru *s = partitioned_state(h);
	unsigned q = partitioned_part_of_cpu(s, cpu);
	struct partition *p = &s->parts[q];
	struct part_link *l = &partitioned_links_of(h, n)[q];
	enum key_state st = partitioned_key_state(p, l);
	if (st == KEY_HOT || st == KEY_DELETED)
		return;
	partitioned_lock_part(h, cpu, p);
	st = partitioned_key_state(p, l);
	if (st == KEY_ABSENT || st == KEY_COLD)
		partitioned_make_hot(p, l, st);
	map_spin_unlock(&p->lock);
}

/* The new element was used in its cpu's partition when it was popped (as
 * Windows's ALLOCATE of the new value); the old one leaves in push_free. */
static void partitioned_replaced(struct lru_htab *h, unsigned cpu,
				 struct lru_node *n, struct lru_node *old)
{
	(void)h, (void)cpu, (void)n, (void)old;
}

/* --- dumps ------------------------------------------------------------------------------- */

static void partitioned_print_key_at(struct lru_htab *h, FILE *f,
				     struct dlist *p)
{
	struct part_link *l = dlist_entry(p, struct part_link, link);
	uint64_t used = partitioned_load(&l->last_used);
	lru_dump_key(f, h, partitioned_node_of_link(h, p));
	fprintf(f, "@%llu",
		(unsigned long long)(used - partitioned_state(h)->born) / 1000);
}

/* One list, newest first: "  name: key@time ..." or a dot chain. */
static void partitioned_dump_chain(struct lru_htab *h, FILE *f,
				   enum map_dump_format fmt, unsigned q,
				   const char *name, struct dlist *head)
{
	if (fmt == MAP_DUMP_TEXT) {
		fprintf(f, "  %s:", name);
		for (struct dlist *p = head->prev; p != head; p = p->prev) {
			fputc(' ', f);
			partitioned_print_key_at(h, f, p);
		}
		fputc('\n', f);
		return;
	}
	fprintf(f, "    p%u_%s [label=\"%s\", shape=plaintext];\n", q, name,
		name);
	char from[48];
	snprintf(from, sizeof(from), "p%u_%s", q, name);
	unsigned i = 0;
	for (struct dlist *p = head->prev; p != head; p = p->prev, i++) {
		fprintf(f, "    p%u_%s_%u [label=\"", q, name, i);
		partitioned_print_key_at(h, f, p);
		fprintf(f, "\"];\n    %s -> p%u_%s_%u;\n", from, q, name, i);
		snprintf(from, sizeof(from), "p%u_%s_%u", q, name, i);
	}
}

static int partitioned_dump(struct lru_htab *h, FILE *f,
			    enum map_dump_format fmt)
{
	struct partitioned_lru *s = partitioned_state(h);
	lru_dump_begin(f, fmt, "lru/partitioned: each partition's hot and "
			       "cold lists, newest first, key@last use (us)");
	if (fmt == MAP_DUMP_TEXT)
		fprintf(f, "lru/partitioned: %u partitions, hot limit %u; "
			"key@last use, in us since the map was made\n",
			s->nparts, s->parts[0].hot_limit);
	for (unsigned q = 0; q < s->nparts; q++) {
		struct partition *p = &s->parts[q];
		map_spin_lock(&p->lock);
		unsigned long long gen = partitioned_load(&p->generation);
		if (fmt == MAP_DUMP_TEXT)
			fprintf(f, "partition %u: generation %llu, hot %u, "
				"cold %u, free %u\n", q, gen, p->hot_size,
				atomic_load(&p->cold_size),
				atomic_load(&p->free_size));
		else
			fprintf(f, "  subgraph cluster_p%u {\n    label=\"partition "
				"%u, generation %llu\";\n", q, q, gen);
		partitioned_dump_chain(h, f, fmt, q, "hot", &p->hot);
		partitioned_dump_chain(h, f, fmt, q, "cold", &p->cold);
		if (fmt == MAP_DUMP_DOT)
			fputs("  }\n", f);
		map_spin_unlock(&p->lock);
	}
	lru_dump_end(f, fmt);
	return 0;
}

static const struct lru_policy partitioned_policy = {
	.init = partitioned_init,
	.fini = partitioned_fini,
	.pop_free = partitioned_pop_free,
	.push_free = partitioned_push_free,
	.referenced = partitioned_referenced,
	.replaced = partitioned_replaced,
	.dump = partitioned_dump,
};

static int partitioned_create(const struct map_attr *attr, struct map **out)
{
	return lru_htab_create(&partitioned_policy, attr, out);
}

const struct map_ops lru_partitioned_ops = {
	.name = "lru/partitioned",
	.description = "eBPF for Windows: hot and cold lists in up to 8 "
		       "partitions, generations, a reaper of the oldest cold key",
	LRU_HTAB_MAP_OPS,
	.create = partitioned_create,
};
