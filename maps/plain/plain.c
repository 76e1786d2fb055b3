/* SPDX-License-Identifier: MIT */
/* plain.c: which plain table stands beside which adapter (plain.h). */
#include "maps/plain/plain.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#if MAPLAB_HAVE_DPDK
extern const struct map_ops plain_rte_fib_ops, plain_rte_hash_ops;
static const struct {
	const char *adapter;
	const struct map_ops *plain;
} beside[] = {
	{ "lpm_trie/dpdk", &plain_rte_fib_ops },
	{ "hash/dpdk", &plain_rte_hash_ops },
};
#define N_BESIDE (sizeof(beside) / sizeof(beside[0]))
#else
static const struct {
	const char *adapter;
	const struct map_ops *plain;
} *const beside = NULL;
#define N_BESIDE 0u
#endif

const struct map_ops *plain_for(const char *adapter)
{
	for (size_t i = 0; adapter && i < N_BESIDE; i++)
		if (!strcmp(beside[i].adapter, adapter))
			return beside[i].plain;
	return NULL;
}

bool plain_is(const struct map_ops *ops)
{
	for (size_t i = 0; ops && i < N_BESIDE; i++)
		if (beside[i].plain == ops)
			return true;
	return false;
}

uint64_t plain_answer(struct map *m, const void *key)
{
	const struct plain_map *p = (const struct plain_map *)m;
	return p->answer(p, key);
}

int plain_lookup_copy(struct map *m, const void *key, void *value)
{
	(void)m, (void)key, (void)value;
	return -EOPNOTSUPP;
}

int plain_delete(struct map *m, const void *key)
{
	(void)m, (void)key;
	return -EOPNOTSUPP;
}

int plain_get_next_key(struct map *m, const void *key, void *next)
{
	(void)m, (void)key, (void)next;
	return -EOPNOTSUPP;
}
