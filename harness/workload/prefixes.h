/* SPDX-License-Identifier: MIT */
/*
 * prefixes.h: the prefix sets of LPM workloads: which prefixes a trie
 * stores, and which addresses its lookups ask for.
 *
 *   set        data   stored prefixes (distinct, trailing bits zero)
 *   random32   4 B    /32s: random IPv4 addresses
 *   bgp        4 B    IPv4, lengths as in a public BGP table (below)
 *   ipv6       16 B   IPv6 in 2000::/3, /48 and /64 heavy, /32 to /128
 *   bpf_performance
 *              4 B    IPv4, the bgp table as bpf_performance's lpm.h reads it
 *   dense      4 B    /32s: 0, 1, 2, ... as the host's u32, the keys of
 *                     the kernel's LPM benchmark (below)
 *   internet   4 B    IPv4 prefixes of a real Internet routing table,
 *                     shipped (prefix_list.h): 901,899 of them
 *   internet6  16 B   its IPv6 prefixes: 160,147
 *   FILE       4 B    IPv4 prefixes read from a file (prefix_list.h)
 *   FILE6      16 B   that file's IPv6 prefixes
 *
 * The BGP mix is bpf_performance's (microsoft/bpf_performance bpf/lpm.h:
 * a cumulative count of prefix lengths "from bgp.potaroo.net
 * bgp-active.html", 895,537 routes).  Its entry N sums the routes of
 * lengths up to N + 1 (so read, /24 is 58.5 % of the table, /22 12.2 %,
 * /23 10.9 %, /16 1.5 % and /8 16 routes, as in public BGP tables;
 * lpm.h's own select_prefix_length reads it one length shorter, which
 * makes /23 the mode: bpf/lpm.h of github.com/microsoft/bpf_performance).
 * The bpf_performance set is that reading, so that the suite's LPM tests
 * can be measured on the prefixes they run on: /23 58.5 %, /21 12.2 %,
 * /22 10.9 %, /24 0.16 %, nothing shorter than /7 and no /32.
 * The IPv6 mix is ours (docs/bench.md, "LPM workloads").
 *
 * dense is tools/testing/selftests/bpf/progs/lpm_trie_bench.c's key:
 * prefix i is i stored as a host-order __u32 (so on x86 its first byte,
 * the trie's first bits, is i's lowest), in order, never shuffled: the
 * kernel's benchmark inserts and deletes 0, 1, 2, ...
 *
 * The list sets (internet, internet6, FILE, FILE6) take their prefixes
 * from a list: N of them are a sample that keeps the list's shape, each
 * length's share of N by largest remainders, the prefixes of a length
 * drawn uniformly among the list's of that length; all of them when N is
 * the list's size.  Their order is shuffled.  Prefixes beyond N (the
 * pools) are drawn as the synthetic sets' are, lengths by the list's mix.
 * Their lookups that hit ask for addresses drawn uniformly from the space
 * the N prefixes cover (a /8 is asked for 65,536 times as often as a
 * /24), as an Internet router sees random destinations; the misses from
 * the space they leave uncovered.
 *
 * A prefix table holds, for one workload and seed:
 *  - prefixes: the first `exact` follow the set's mix exactly (each
 *    length's share of `exact`, rounded by largest remainders), in a
 *    shuffled order; any beyond (the workers' pools of new prefixes) draw
 *    their lengths one by one from the mix.  All distinct: no two have
 *    the same length and masked bits.  They nest where they happen to.
 *  - hits: address k (k < hits) lies inside prefix k, its host bits
 *    random: a lookup of it finds prefix k or a longer prefix inside it.
 *  - misses: addresses no prefix of the table covers.
 * Everything follows from the spec alone (the seed included): two tables
 * made from one spec are equal byte for byte.
 *
 * A key is the kernel's LPM key (a 4-byte host-order prefix length, then
 * the data) for an LPM map; a map of another type takes the data bytes
 * alone, so a hash keyed by the address runs on the same addresses.
 */
#ifndef MAPLAB_PREFIXES_H
#define MAPLAB_PREFIXES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum prefix_set {
	PREFIXES_NONE,     /* not a prefix workload */
	PREFIXES_RANDOM32,
	PREFIXES_BGP,
	PREFIXES_IPV6,
	PREFIXES_BPF_PERFORMANCE,
	PREFIXES_DENSE,
	PREFIXES_INTERNET,
	PREFIXES_INTERNET6,
	PREFIXES_FILE,
	PREFIXES_FILE6,
	PREFIXES_COUNT
};

/* The longest data of a set (IPv6), and so its longest prefix. */
#define PREFIX_MAX_DATA 16
#define PREFIX_MAX_LEN (8 * PREFIX_MAX_DATA)

/* "random32", "bgp", "ipv6", "bpf_performance", "dense", "internet",
 * "internet6" into *out: 0, or -1 for any other word. */
int prefix_set_parse(const char *text, enum prefix_set *out);
/* Its name ("none" for PREFIXES_NONE); FILE's and FILE6's are the file's
 * path as prefix_set_use_file was given it. */
const char *prefix_set_name(enum prefix_set s);

/* The file of the FILE sets, for this process (one file at a time). */
void prefix_set_use_file(const char *path);

/* The set with the same prefixes for data_size address bytes (4 or 16):
 * internet <-> internet6, FILE <-> FILE6; any other set itself. */
enum prefix_set prefix_set_family(enum prefix_set s, uint32_t data_size);

/* Whether the set's prefixes come from a list (prefix_list.h). */
bool prefix_set_listed(enum prefix_set s);

/* Read a list set's list, once per process (others: nothing to do).  0, or
 * a negative errno with one line in err (prefix_list_read's).  The
 * functions below answer for a list set as if it were empty until this
 * succeeded. */
int prefix_set_load(enum prefix_set s, char *err, size_t errlen);
/* A list set's prefixes (0 for the others). */
uint64_t prefix_set_listed_count(enum prefix_set s);
/* Data bytes of its addresses (4 or 16); 0 for PREFIXES_NONE. */
uint32_t prefix_set_data_size(enum prefix_set s);
/* Whether every prefix is a full-length one (random32, dense): an
 * address inside prefix k is prefix k itself. */
bool prefix_set_full_length(enum prefix_set s);

/* Prefix length len's weight in the set's mix, and the weights' sum. */
uint64_t prefix_set_weight(enum prefix_set s, unsigned len);
uint64_t prefix_set_total_weight(enum prefix_set s);

/* How many of n prefixes have each length (count[0..8 * data size]): the
 * mix scaled to n, rounded so the counts sum to n. */
void prefix_set_counts(enum prefix_set s, uint64_t n, uint64_t *count);

/*
 * Whether `exact` prefixes by the mix fit: no length may need more than
 * half of its 2^len prefixes, so drawing distinct ones stays quick.  (The
 * largest BGP set that fits, about 2.1M prefixes, leaves some 10 % of the
 * addresses uncovered, room enough for misses.)  A list set fits up to
 * its list's size.  0, or -1 with a reason in err.
 */
int prefix_set_fits(enum prefix_set s, uint64_t exact, char *err,
		    size_t errlen);

struct prefix_index;

struct prefix_table {
	enum prefix_set set;
	uint32_t data_size;
	uint64_t prefixes, hits, misses;
	uint8_t *len;        /* prefix i's length */
	uint8_t *data;       /* prefix i's data at data + i * data_size */
	uint8_t *hit;        /* address k at hit + k * data_size */
	uint8_t *miss;       /* address j at miss + j * data_size */
	struct prefix_index *index; /* every prefix: distinctness, cover */
};

struct prefix_spec {
	enum prefix_set set;
	uint64_t exact;    /* the first `exact` prefixes follow the mix */
	uint64_t prefixes; /* prefixes in all, at least exact */
	uint64_t hits;     /* addresses inside prefixes 0..hits-1 */
	uint64_t misses;   /* addresses no prefix covers */
	uint64_t seed;
};

/* 0, or -ENOMEM, -EINVAL (a spec that cannot be: hits > prefixes, no
 * set) or -ENOSPC (no room for distinct prefixes or for misses: see
 * prefix_set_fits), with a reason in err.  On success
 * prefix_table_free must follow. */
int prefix_table_make(const struct prefix_spec *spec, struct prefix_table *t,
		      char *err, size_t errlen);
void prefix_table_free(struct prefix_table *t);

/* Whether some prefix of t covers addr (data_size bytes). */
bool prefix_table_covers(const struct prefix_table *t, const uint8_t *addr);

/* The key bytes of a prefix: for an LPM map, its length (host order) and
 * its data (key_size = 4 + data_size); for any other map the data alone
 * (key_size = data_size). */
void prefix_key(uint8_t *key, bool lpm, unsigned len, const uint8_t *data,
		uint32_t data_size);

#endif /* MAPLAB_PREFIXES_H */
