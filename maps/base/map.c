/* SPDX-License-Identifier: MIT */
/* map.c: the dispatching helpers of map.h that are not inline. */
#include "maps/base/map.h"
#include "maps/base/cpu.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Per thread: creates run on any thread, and the reason is read right
 * after the create that failed. */
static _Thread_local char refusal[256];

void map_refuse(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(refusal, sizeof(refusal), fmt, ap);
	va_end(ap);
}

const char *map_refusal(void)
{
	return refusal;
}

int map_create(const struct map_ops *ops, const struct map_attr *attr,
	       struct map **out)
{
	struct map_attr a = *attr;

	refusal[0] = '\0';
	if (ops->type && a.type != ops->type)
		return -EINVAL;
	a.flags |= ops->mode_flags;
	if (a.ncpus == 0)
		a.ncpus = map_possible_cpus();
	if (a.ncpus > MAP_MAX_CPUS)
		return -EINVAL;
	if (ops->faithful) {
		if (a.model == 0)
			a.model = map_newest_model(ops);
		else if (!map_models(ops, a.model))
			return -EINVAL;
	}
	int err = ops->create(&a, out);
	if (!err)
		(*out)->ops = ops;
	return err;
}

int map_model_parse(const char *text, uint32_t *model)
{
	unsigned major, minor;
	int used = 0;
	if (sscanf(text, "%3u.%3u%n", &major, &minor, &used) != 2 ||
	    text[used] != '\0' || major == 0 || major > 255 || minor > 255)
		return -EINVAL;
	*model = MAP_MODEL(major, minor);
	return 0;
}

const char *map_model_text(uint32_t model, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u", model >> 8, model & 0xff);
	return buf;
}

/* Each of ops's models in turn: fn(model, ctx) until it returns true. */
static bool each_model(const struct map_ops *ops,
		       bool (*fn)(uint32_t model, void *ctx), void *ctx)
{
	const char *p = ops->models;
	while (p && *p) {
		char word[16];
		size_t n = strcspn(p, " ");
		uint32_t model;
		snprintf(word, sizeof(word), "%.*s", (int)(n < 15 ? n : 15), p);
		if (map_model_parse(word, &model) == 0 && fn(model, ctx))
			return true;
		p += n + (p[n] == ' ');
	}
	return false;
}

static bool is_model(uint32_t model, void *ctx)
{
	return model == *(uint32_t *)ctx;
}

static bool note_newest(uint32_t model, void *ctx)
{
	uint32_t *newest = ctx;
	if (model > *newest)
		*newest = model;
	return false;
}

bool map_models(const struct map_ops *ops, uint32_t model)
{
	return each_model(ops, is_model, &model);
}

uint32_t map_newest_model(const struct map_ops *ops)
{
	uint32_t newest = 0;
	each_model(ops, note_newest, &newest);
	return newest;
}

const struct map_flag_name map_flag_names[] = {
	{ MAP_F_NO_PREALLOC, "no_prealloc" },
	{ MAP_F_NO_COMMON_LRU, "no_common_lru" },
	{ MAP_F_NUMA_NODE, "numa_node" },
	{ MAP_F_RDONLY, "rdonly" },
	{ MAP_F_WRONLY, "wronly" },
	{ MAP_F_ZERO_SEED, "zero_seed" },
	{ MAP_F_RDONLY_PROG, "rdonly_prog" },
	{ MAP_F_WRONLY_PROG, "wronly_prog" },
};
const unsigned map_flag_name_count =
	sizeof(map_flag_names) / sizeof(map_flag_names[0]);

/* bpf_get_file_flag(): the fd's mode follows BPF_F_RDONLY / BPF_F_WRONLY. */
static int may_read(const struct map *m)
{
	return !(m->attr.flags & MAP_F_WRONLY);
}

static int may_write(const struct map *m)
{
	return !(m->attr.flags & MAP_F_RDONLY);
}

int map_sys_lookup(struct map *m, const void *key, void *value)
{
	return may_read(m) ? map_lookup_copy(m, key, value) : -EPERM;
}

int map_sys_update(struct map *m, const void *key, const void *value,
		   uint64_t flags)
{
	return may_write(m) ? map_update(m, key, value, flags) : -EPERM;
}

int map_sys_delete(struct map *m, const void *key)
{
	return may_write(m) ? map_delete(m, key) : -EPERM;
}

int map_sys_get_next_key(struct map *m, const void *key, void *next)
{
	return may_read(m) ? map_get_next_key(m, key, next) : -EPERM;
}

static const struct {
	uint32_t type;
	const char *name;
} type_names[] = {
	{ MAP_TYPE_HASH, "hash" },
	{ MAP_TYPE_LRU_HASH, "lru_hash" },
	{ MAP_TYPE_LPM_TRIE, "lpm_trie" },
};

const char *map_type_name(uint32_t type)
{
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (type_names[i].type == type)
			return type_names[i].name;
	return NULL;
}

uint32_t map_type_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
		if (strcmp(type_names[i].name, name) == 0)
			return type_names[i].type;
	return 0;
}

static const struct {
	int err;
	const char *name;
} errno_names[] = {
	{ EPERM, "EPERM" },       { ENOENT, "ENOENT" },
	{ EINTR, "EINTR" },       { EBADF, "EBADF" },
	{ ENOMEM, "ENOMEM" },     { EACCES, "EACCES" },
	{ EFAULT, "EFAULT" },     { EBUSY, "EBUSY" },
	{ EEXIST, "EEXIST" },     { EINVAL, "EINVAL" },
	{ ENOSPC, "ENOSPC" },     { E2BIG, "E2BIG" },
	{ EDEADLK, "EDEADLK" },   { EOPNOTSUPP, "EOPNOTSUPP" },
	{ ETIMEDOUT, "ETIMEDOUT" }, { ENOTSUPP, "ENOTSUPP" },
};

const char *map_errno_name(int err)
{
	for (size_t i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	return NULL;
}

const char *map_errno_text(int err)
{
	/* 524 is a kernel-internal errno (include/linux/errno.h) that bpf(2)
	 * returns all the same: htab_map_alloc_check refuses an LRU map
	 * without preallocation with it. */
	if (err == ENOTSUPP)
		return "ENOTSUPP (not supported: the kernel's errno 524, which "
		       "it gives an LRU map asked for with no_prealloc, among "
		       "others)";
	return strerror(err);
}

int map_errno_from_name(const char *name)
{
	for (size_t i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
		if (strcmp(errno_names[i].name, name) == 0)
			return errno_names[i].err;
	return 0;
}
