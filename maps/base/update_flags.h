/* SPDX-License-Identifier: MIT */
/*
 * update_flags.h: what BPF_ANY, BPF_NOEXIST and BPF_EXIST mean, in one
 * place for every family (the kernel's check_flags() in hashtab.c; the LPM
 * trie answers the same way).
 */
#ifndef MAPLAB_UPDATE_FLAGS_H
#define MAPLAB_UPDATE_FLAGS_H

#include "maps/base/map.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

/* Flags an update may carry at all: -EINVAL for anything above
 * BPF_EXIST, BPF_F_LOCK included (no maplab value holds a spin lock). */
static inline int map_update_flags_valid(uint64_t flags)
{
	return flags > MAP_EXIST ? -EINVAL : 0;
}

/* Given whether the key is present: -EEXIST (NOEXIST on a present key),
 * -ENOENT (EXIST on an absent one), or 0 to go on. */
static inline int map_update_flags_check(bool present, uint64_t flags)
{
	if (present && flags == MAP_NOEXIST)
		return -EEXIST;
	if (!present && flags == MAP_EXIST)
		return -ENOENT;
	return 0;
}

#endif /* MAPLAB_UPDATE_FLAGS_H */
