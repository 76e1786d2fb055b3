/* SPDX-License-Identifier: MIT */
/*
 * kmap.c: see kmap.h.
 *
 * The program-style lookup is a raw-tracepoint program of fourteen
 * instructions, built here rather than compiled, because it must be loaded
 * against each map it looks into:
 *
 *   key  = bpf_map_lookup_elem(&key_array, &zero);   key bytes, written by us
 *   if (!key) return 0;
 *   return bpf_map_lookup_elem(&target, key) != NULL;
 *
 * BPF_PROG_TEST_RUN runs it once on the calling CPU (the replayer pins
 * itself to cpu 0, so the kernel's per-CPU LRU lists see cpu 0 as ours do).
 */
#include "kernel-compare/kmap.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct kmap {
	struct map map;
	int fd;
	int key_array_fd; /* -1 until the first program-style lookup */
	int prog_fd;
	void *value_copy; /* what the program-style lookup points at */
};

static struct kmap *kmap_of(struct map *m)
{
	return (struct kmap *)m;
}

static bool verbose;

void kmap_set_verbose(bool on)
{
	verbose = on;
}

/* --- the lookup program ---------------------------------------------------- */

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src,
			    int16_t off, int32_t imm)
{
	struct bpf_insn i = { .code = code, .dst_reg = dst, .src_reg = src,
			      .off = off, .imm = imm };
	return i;
}

/* r1 = map (two instruction slots). */
static void ld_map_fd(struct bpf_insn *at, int fd)
{
	at[0] = insn(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0,
		     fd);
	at[1] = insn(0, 0, 0, 0, 0);
}

static int load_lookup_prog(int key_array_fd, int target_fd)
{
	struct bpf_insn p[16];
	int n = 0;

	p[n++] = insn(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0);
	p[n++] = insn(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4);
	ld_map_fd(&p[n], key_array_fd);
	n += 2;
	p[n++] = insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem);
	p[n++] = insn(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 7, 0); /* miss */
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_0, 0, 0);
	ld_map_fd(&p[n], target_fd);
	n += 2;
	p[n++] = insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem);
	p[n++] = insn(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0); /* miss */
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1);
	p[n++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0); /* miss: */
	p[n++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);

	/* A log buffer only when asked: with one, libbpf loads a refused
	 * program a second time to fill it. */
	char log[4096] = "";
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = verbose ? log : NULL,
		    .log_size = verbose ? sizeof(log) : 0);
	int fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "maplab_plookup",
			       "Dual MIT/GPL", p, (size_t)n, &opts);
	if (fd < 0 && log[0])
		fprintf(stderr, "maplab: the lookup program was refused (%s); "
			"the verifier's log:\n%s\n", map_errno_text(-fd), log);
	return fd;
}

/* The key array and the program, made on the first program-style lookup
 * (a failed attempt leaves what it made, for the next one to reuse). */
static int ensure_lookup_prog(struct kmap *k)
{
	if (k->prog_fd >= 0)
		return 0;
	if (k->key_array_fd < 0)
		k->key_array_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "maplab_key",
						 4, k->map.attr.key_size, 1,
						 NULL);
	if (k->key_array_fd < 0)
		return k->key_array_fd;
	k->prog_fd = load_lookup_prog(k->key_array_fd, k->fd);
	return k->prog_fd < 0 ? k->prog_fd : 0;
}

/* --- map_ops --------------------------------------------------------------- */

static void kmap_destroy(struct map *m)
{
	struct kmap *k = kmap_of(m);
	if (k->prog_fd >= 0)
		close(k->prog_fd);
	if (k->key_array_fd >= 0)
		close(k->key_array_fd);
	close(k->fd);
	free(k->value_copy);
	free(k);
}

static int kmap_create(const struct map_attr *attr, struct map **out)
{
	struct kmap *k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->key_array_fd = k->prog_fd = -1;
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = attr->flags);
	k->fd = bpf_map_create((enum bpf_map_type)attr->type, "maplab",
			       attr->key_size, attr->value_size,
			       attr->max_entries, &opts);
	if (k->fd < 0) {
		int err = k->fd;
		free(k);
		return err;
	}
	k->map.attr = *attr;
	/* What the kernel made of the attributes (NO_COMMON_LRU rounds
	 * max_entries up to a multiple of the possible CPUs). */
	struct bpf_map_info info;
	uint32_t len = sizeof(info);
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(k->fd, &info, &len) == 0)
		k->map.attr.max_entries = info.max_entries;
	k->value_copy = malloc(attr->value_size);
	if (!k->value_copy) {
		kmap_destroy(&k->map);
		return -ENOMEM;
	}
	*out = &k->map;
	return 0;
}

int kmap_prog_lookup(struct map *m, const void *key)
{
	struct kmap *k = kmap_of(m);
	uint32_t zero = 0;
	int err;

	if ((err = ensure_lookup_prog(k)) ||
	    (err = bpf_map_update_elem(k->key_array_fd, &zero, key, BPF_ANY)))
		return err;
	LIBBPF_OPTS(bpf_test_run_opts, run);
	if ((err = bpf_prog_test_run_opts(k->prog_fd, &run)))
		return err;
	return run.retval == 1 ? 0 : -ENOENT;
}

/*
 * map_ops.lookup: the program's lookup, then a copy of the value by the
 * syscall, which never marks a reference, so the copy does not disturb
 * what the program's lookup did.  On a BPF_F_WRONLY map userspace may not
 * read the value: the key is there, and the copy holds zeros.
 */
static void *kmap_lookup(struct map *m, const void *key)
{
	struct kmap *k = kmap_of(m);

	if (kmap_prog_lookup(m, key))
		return NULL;
	if (bpf_map_lookup_elem(k->fd, key, k->value_copy))
		memset(k->value_copy, 0, m->attr.value_size);
	return k->value_copy;
}

static int kmap_lookup_copy(struct map *m, const void *key, void *value)
{
	return bpf_map_lookup_elem(kmap_of(m)->fd, key, value);
}

static int kmap_update(struct map *m, const void *key, const void *value,
		       uint64_t flags)
{
	return bpf_map_update_elem(kmap_of(m)->fd, key, value, flags);
}

static int kmap_delete(struct map *m, const void *key)
{
	return bpf_map_delete_elem(kmap_of(m)->fd, key);
}

static int kmap_get_next_key(struct map *m, const void *key, void *next)
{
	return bpf_map_get_next_key(kmap_of(m)->fd, key, next);
}

const struct map_ops kmap_ops = {
	.name = "kernel",
	.description = "the running kernel's own BPF map, through libbpf",
	.type = 0, /* any: the replayer asks for each type */
	.faithful = 1,
	.create = kmap_create,
	.destroy = kmap_destroy,
	.lookup = kmap_lookup,
	.lookup_copy = kmap_lookup_copy,
	.update = kmap_update,
	.delete = kmap_delete,
	.get_next_key = kmap_get_next_key,
};

int kmap_available(char *why, size_t len)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "maplab_probe", 4, 4, 1,
				NULL);
	if (fd < 0) {
		int err = fd;
		if (geteuid() != 0)
			snprintf(why, len, "not root: the kernel's BPF maps need "
				 "root or CAP_BPF (%s)", map_errno_text(-err));
		else
			snprintf(why, len, "this kernel refuses BPF map creation "
				 "(%s)", map_errno_text(-err));
		return err;
	}
	close(fd);
	return 0;
}
