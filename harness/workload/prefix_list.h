/* SPDX-License-Identifier: MIT */
/*
 * prefix_list.h: prefixes read from a file, one CIDR a line: the Internet
 * routing table maplab ships (data/internet/prefixes.txt.gz, the sets
 * "internet" and "internet6") and any list a user names (--prefixes FILE).
 *
 * The format:
 *
 *   # a comment; blank lines are skipped too
 *   1.0.0.0/24
 *   2001:db8::/32      # a comment after the prefix
 *
 * gzip-compressed or plain (zlib reads both).  A file may hold both
 * families: a list is read for one of them (4 data bytes: IPv4, 16: IPv6)
 * and the other family's lines are counted, not kept.  A line that is not
 * a CIDR, a length past the family's bits, bits set past the length, or a
 * prefix listed twice is an error that names FILE:LINE: a prefix set must
 * hold distinct prefixes, and a table with host bits set was most likely
 * cut wrong (the message shows the prefix it would have been).
 */
#ifndef MAPLAB_PREFIX_LIST_H
#define MAPLAB_PREFIX_LIST_H

#include <stddef.h>
#include <stdint.h>

/* The shipped table: gaissmai/iprbench's testdata/prefixes.txt.gz (MIT,
 * its notice beside it), a full Internet table of 901,899 IPv4 and
 * 160,147 IPv6 prefixes (docs/bench.md, "LPM workloads"). */
#define PREFIX_INTERNET_FILE "internet/prefixes.txt.gz"

struct prefix_list {
	uint32_t data_size;        /* 4 (IPv4) or 16 (IPv6) */
	uint64_t n;                /* prefixes of that family */
	uint64_t other;            /* lines of the other family, skipped */
	uint8_t *len;              /* prefix i's length */
	uint8_t *data;             /* its bytes at data + i * data_size */
	uint64_t count[8 * 16 + 1]; /* prefixes of each length */
};

/*
 * Read path's prefixes of one family (data_size 4 or 16) into *out.  0,
 * or a negative errno with one line in err: -ENOENT and the like for a
 * file that cannot be read ("PATH: No such file or directory"), -EINVAL
 * for a bad line ("PATH:LINE: ..."), -ENODATA for a file without a
 * prefix of that family (the message counts the other family's), -ENOMEM.
 * prefix_list_free must follow a success.
 */
int prefix_list_read(const char *path, uint32_t data_size,
		     struct prefix_list *out, char *err, size_t errlen);
void prefix_list_free(struct prefix_list *l);

/* The path of a file in maplab's data folder (its source tree's data/)
 * into buf; returns buf. */
const char *prefix_data_path(const char *name, char *buf, size_t len);

#endif /* MAPLAB_PREFIX_LIST_H */
