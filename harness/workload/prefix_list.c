/* SPDX-License-Identifier: MIT */
/* prefix_list.c: prefixes read from a file (prefix_list.h). */
#include "harness/workload/prefix_list.h"
#include "harness/common/rng.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#ifndef MAPLAB_DATA_DIR
#error "MAPLAB_DATA_DIR: the build names maplab's data folder"
#endif

/* The longest line worth reading: an IPv6 CIDR and a comment. */
#define LINE_MAX_BYTES 512

const char *prefix_data_path(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", MAPLAB_DATA_DIR, name);
	return buf;
}

/* A growing list, and the set of what it holds (to refuse a repeat). */
struct reader {
	struct prefix_list *l;
	uint64_t cap;
	uint32_t *slot;   /* prefix number + 1; 0: empty */
	uint64_t mask;
	uint64_t *line_of; /* prefix i's line, for "listed twice" */
	const char *path;
	char *err;
	size_t errlen;
};

static uint64_t hash_prefix(unsigned len, const uint8_t *data, uint32_t size)
{
	uint64_t w[2] = { 0, 0 };
	memcpy(w, data, size);
	return rng_mix64(w[0] ^ rng_mix64(w[1] + len));
}

static int grow_set(struct reader *r)
{
	uint64_t slots = 2 * (r->mask + 1);
	uint32_t *slot = calloc(slots, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (uint64_t s = 0; s <= r->mask; s++) {
		if (!r->slot[s])
			continue;
		uint64_t p = r->slot[s] - 1, d = r->l->data_size;
		uint64_t i = hash_prefix(r->l->len[p], r->l->data + p * d, d) &
			     (slots - 1);
		while (slot[i])
			i = (i + 1) & (slots - 1);
		slot[i] = r->slot[s];
	}
	free(r->slot);
	r->slot = slot;
	r->mask = slots - 1;
	return 0;
}

static int grow_list(struct reader *r)
{
	uint64_t cap = r->cap ? 2 * r->cap : 4096;
	uint8_t *len = realloc(r->l->len, cap);
	if (len)
		r->l->len = len;
	uint8_t *data = realloc(r->l->data, cap * r->l->data_size);
	if (data)
		r->l->data = data;
	uint64_t *line_of = realloc(r->line_of, cap * sizeof(*line_of));
	if (line_of)
		r->line_of = line_of;
	if (!len || !data || !line_of)
		return -ENOMEM;
	r->cap = cap;
	return 0;
}

/* The slot of (len, data), or the empty one where it would go. */
static uint64_t find(const struct reader *r, unsigned len, const uint8_t *data)
{
	const uint32_t d = r->l->data_size;
	uint64_t i = hash_prefix(len, data, d) & r->mask;
	for (; r->slot[i]; i = (i + 1) & r->mask) {
		uint64_t p = r->slot[i] - 1;
		if (r->l->len[p] == len && memcmp(r->l->data + p * d, data, d) == 0)
			break;
	}
	return i;
}

static int fail(struct reader *r, uint64_t line, int rc, const char *fmt,
		const char *what)
{
	char msg[160];
	snprintf(msg, sizeof(msg), fmt, what);
	snprintf(r->err, r->errlen, "%s:%llu: %s", r->path,
		 (unsigned long long)line, msg);
	return rc;
}

/* Whether data has a bit set past its first len bits. */
static bool host_bits_set(const uint8_t *data, unsigned len, uint32_t size)
{
	for (uint32_t i = len / 8; i < size; i++) {
		uint8_t keep = i == len / 8 ? (uint8_t)(0xff00u >> (len % 8)) : 0;
		if (data[i] & ~keep)
			return true;
	}
	return false;
}

static void clear_host_bits(uint8_t *data, unsigned len, uint32_t size)
{
	for (uint32_t i = len / 8; i < size; i++)
		data[i] &= i == len / 8 ? (uint8_t)(0xff00u >> (len % 8)) : 0;
}

/* The text of one line, its comment and surrounding blanks cut: NULL for
 * a line with nothing left. */
static char *cidr_text(char *line)
{
	char *hash = strchr(line, '#');
	if (hash)
		*hash = '\0';
	while (isspace((unsigned char)*line))
		line++;
	size_t n = strlen(line);
	while (n && isspace((unsigned char)line[n - 1]))
		line[--n] = '\0';
	return n ? line : NULL;
}

/* One CIDR: into the list if of the list's family; 0 or an error. */
static int take(struct reader *r, char *text, uint64_t line)
{
	char *slash = strchr(text, '/'), *end;
	uint8_t data[16];
	const bool v6 = strchr(text, ':') != NULL;
	const uint32_t size = v6 ? 16 : 4;

	if (!slash)
		return fail(r, line, -EINVAL, "'%s' is not a CIDR (ADDRESS/LENGTH)",
			    text);
	*slash = '\0';
	if (inet_pton(v6 ? AF_INET6 : AF_INET, text, data) != 1) {
		*slash = '/';
		return fail(r, line, -EINVAL, "'%s' is not a CIDR: no IPv4 or IPv6 "
			    "address before the /", text);
	}
	*slash = '/';
	errno = 0;
	unsigned long len = strtoul(slash + 1, &end, 10);
	if (!isdigit((unsigned char)slash[1]) || *end || errno || len > 8 * size)
		return fail(r, line, -EINVAL, v6 ? "'%s': an IPv6 prefix length "
			    "is 0 to 128" : "'%s': an IPv4 prefix length is 0 to 32",
			    text);
	if (host_bits_set(data, (unsigned)len, size)) {
		/* len is at most 128 here: "/128" fits, as a u32's digits do
		 * (room the compiler's truncation check asks for) */
		char fixed[INET6_ADDRSTRLEN + 16], addr[INET6_ADDRSTRLEN];
		clear_host_bits(data, (unsigned)len, size);
		inet_ntop(v6 ? AF_INET6 : AF_INET, data, addr, sizeof(addr));
		*slash = '\0';
		snprintf(fixed, sizeof(fixed), "%s/%u", addr, (unsigned)len);
		char what[sizeof(fixed) + 64];
		snprintf(what, sizeof(what), "%s/%lu has bits set past its length "
			 "(%s?)", text, len, fixed);
		return fail(r, line, -EINVAL, "%s", what);
	}
	if (size != r->l->data_size) {
		r->l->other++;
		return 0;
	}
	uint64_t s = find(r, (unsigned)len, data);
	if (r->slot[s]) {
		char what[96];
		snprintf(what, sizeof(what), "%s is listed twice (first on line "
			 "%llu)", text,
			 (unsigned long long)r->line_of[r->slot[s] - 1]);
		return fail(r, line, -EINVAL, "%s", what);
	}
	if (r->l->n == r->cap && grow_list(r))
		return -ENOMEM;
	if (r->l->n >= UINT32_MAX - 1)
		return fail(r, line, -EFBIG, "%s: more prefixes than a set holds",
			    text);
	uint64_t p = r->l->n++;
	r->l->len[p] = (uint8_t)len;
	memcpy(r->l->data + p * size, data, size);
	r->line_of[p] = line;
	r->slot[s] = (uint32_t)(p + 1);
	r->l->count[len]++;
	return 2 * r->l->n > r->mask ? grow_set(r) : 0;
}

static int read_lines(struct reader *r, gzFile f)
{
	char buf[LINE_MAX_BYTES];
	uint64_t line = 0;
	int rc = 0;

	while (!rc && gzgets(f, buf, sizeof(buf))) {
		size_t n = strlen(buf);
		line++;
		if (n == sizeof(buf) - 1 && buf[n - 1] != '\n' && !gzeof(f))
			return fail(r, line, -EINVAL, "%s", "the line is longer "
				    "than a CIDR and its comment can be");
		char *text = cidr_text(buf);
		if (text)
			rc = take(r, text, line);
	}
	int zerr;
	const char *why = gzerror(f, &zerr);
	if (!rc && zerr && zerr != Z_STREAM_END)
		rc = fail(r, line + 1, -EIO, "%s",
			  zerr == Z_ERRNO ? strerror(errno) : why);
	return rc;
}

int prefix_list_read(const char *path, uint32_t data_size,
		     struct prefix_list *out, char *err, size_t errlen)
{
	struct reader r = { .l = out, .path = path, .err = err,
			    .errlen = errlen, .mask = 4095 };
	memset(out, 0, sizeof(*out));
	out->data_size = data_size;
	gzFile f = gzopen(path, "rb");
	if (!f) {
		int e = errno ? errno : ENOMEM;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	r.slot = calloc(r.mask + 1, sizeof(*r.slot));
	int rc = r.slot ? read_lines(&r, f) : -ENOMEM;
	gzclose(f);
	free(r.slot);
	free(r.line_of);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", path);
	if (!rc && !out->n) {
		snprintf(err, errlen, "%s holds no %s prefix (%llu %s one%s%s)",
			 path, data_size == 4 ? "IPv4" : "IPv6",
			 (unsigned long long)out->other,
			 data_size == 4 ? "IPv6" : "IPv4",
			 out->other == 1 ? "" : "s", out->other ? data_size == 4 ? ": --key-size 20 reads them"
						     : ": --key-size 8 reads them"
				    : "");
		rc = -ENODATA;
	}
	if (rc)
		prefix_list_free(out);
	return rc;
}

void prefix_list_free(struct prefix_list *l)
{
	free(l->len);
	free(l->data);
	memset(l, 0, sizeof(*l));
}
