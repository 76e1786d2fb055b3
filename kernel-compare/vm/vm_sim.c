/* SPDX-License-Identifier: MIT */
/*
 * vm_sim.c: the kernel engine of `maplab sim` in a VM (vm_sim.h).
 *
 * A request:  config, n_streams, then per stream its head (n,
 *             counted_from, cpu, whether the missed requests are wanted,
 *             whether per-request cpus follow), its keys (n * key_size
 *             bytes) and its cpus (n * 2 bytes) if any.
 * A reply:    rc, the error line, the run's result, then per stream its
 *             result and, where asked, its missed bytes (n).
 * Both sides are this binary: structs go as they are.
 */
#include "kernel-compare/vm/vm_sim.h"
#include "kernel-compare/vm/vm_session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct stream_head {
	uint64_t n, counted_from;
	int32_t cpu;
	uint8_t want_missed, has_cpus;
};

struct reply_head {
	int32_t rc;
	char err[512];
	double seconds;
	uint64_t live_at_end;
	uint32_t max_entries;
	uint32_t n_streams;
};

/* --- a growing buffer, and a cursor over one -------------------------------- */

struct buf {
	char *p;
	size_t len, cap;
	bool failed;
};

static void put(struct buf *b, const void *data, size_t len)
{
	if (b->failed || !len)
		return;
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + len)
			cap *= 2;
		char *grown = realloc(b->p, cap);
		if (!grown) {
			b->failed = true;
			return;
		}
		b->p = grown;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

struct cursor {
	const char *p, *end;
};

static const void *take(struct cursor *c, size_t len)
{
	if ((size_t)(c->end - c->p) < len)
		return NULL;
	const void *at = c->p;
	c->p += len;
	return at;
}

/* --- the host's side ------------------------------------------------------------- */

static struct vm_session *session;

static int encode_request(const struct ksim_config *c,
			  const struct ksim_stream *streams, unsigned n,
			  struct buf *b)
{
	uint32_t count = n;
	put(b, c, sizeof(*c));
	put(b, &count, sizeof(count));
	for (unsigned i = 0; i < n; i++) {
		const struct ksim_stream *s = &streams[i];
		struct stream_head h = { s->n, s->counted_from, s->cpu,
					 s->missed != NULL, s->cpus != NULL };
		put(b, &h, sizeof(h));
		put(b, s->keys, s->n * c->key_size);
		if (s->cpus)
			put(b, s->cpus, s->n * sizeof(*s->cpus));
	}
	return b->failed ? -ENOMEM : 0;
}

/* The reply into out and the streams' missed arrays: rc, or -EPROTO. */
static int decode_reply(const void *data, size_t len,
			const struct ksim_stream *streams, unsigned n,
			struct ksim_result *out, char *err, size_t errlen)
{
	struct cursor c = { data, (const char *)data + len };
	const struct reply_head *h = take(&c, sizeof(*h));
	if (!h || h->n_streams != n)
		return -EPROTO;
	if (h->rc) {
		snprintf(err, errlen, "%.*s", (int)sizeof(h->err), h->err);
		return h->rc;
	}
	out->seconds = h->seconds;
	out->live_at_end = h->live_at_end;
	out->max_entries = h->max_entries;
	for (unsigned i = 0; i < n; i++) {
		const struct ksim_stream_result *r = take(&c, sizeof(*r));
		if (!r)
			return -EPROTO;
		out->streams[i] = *r;
		if (streams[i].missed) {
			const void *m = take(&c, streams[i].n);
			if (!m)
				return -EPROTO;
			memcpy(streams[i].missed, m, streams[i].n);
		}
	}
	return 0;
}

static int vm_sim_run(const struct ksim_config *c,
		      const struct ksim_stream *streams, unsigned n,
		      struct ksim_result *out, char *err, size_t errlen)
{
	struct buf req = { 0 };
	void *reply;
	size_t len;
	if (!session) {
		snprintf(err, errlen, "no VM is up (vm_sim_open)");
		return -EOPNOTSUPP;
	}
	int rc = encode_request(c, streams, n, &req);
	if (rc) {
		free(req.p);
		snprintf(err, errlen, "out of memory");
		return rc;
	}
	rc = vm_session_call(session, VM_FRAME_KSIM, req.p, req.len, &reply,
			     &len, err, errlen);
	free(req.p);
	if (rc)
		return -EIO;
	rc = decode_reply(reply, len, streams, n, out, err, errlen);
	free(reply);
	if (rc == -EPROTO)
		snprintf(err, errlen, "%s: the reply is garbled",
			 vm_session_label(session));
	return rc;
}

static bool vm_sim_available(char *why, size_t whylen)
{
	if (session)
		return true;
	snprintf(why, whylen, "no VM is up");
	return false;
}

static unsigned session_cpus;

static unsigned vm_sim_cpus(void)
{
	return session_cpus;
}

const struct sim_kernel_engine vm_sim_engine = {
	.run = vm_sim_run,
	.available = vm_sim_available,
	.machine_cpus = vm_sim_cpus,
};

int vm_sim_open(const struct vm_kernel *k, unsigned cpus, bool quiet,
		char *err, size_t errlen)
{
	session_cpus = cpus;
	return vm_session_start(k, cpus, quiet, &session, err, errlen);
}

const char *vm_sim_label(void)
{
	return session ? vm_session_label(session) : "";
}

void vm_sim_close(void)
{
	vm_session_stop(session);
	session = NULL;
}

/* --- the agent's side --------------------------------------------------------- */

int vm_sim_decode_request(const void *req, size_t len, struct ksim_config *cfg,
			  struct ksim_stream **out, unsigned *n_streams)
{
	struct cursor c = { req, (const char *)req + len };
	const struct ksim_config *rc = take(&c, sizeof(*rc));
	const uint32_t *n = take(&c, sizeof(*n));
	if (!rc || !n || *n == 0 || *n > 1024 || rc->key_size == 0 ||
	    rc->key_size > KSIM_MAX_KEY_SIZE)
		return -EPROTO;
	*cfg = *rc;
	struct ksim_stream *s = calloc(*n, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0; i < *n; i++) {
		const struct stream_head *h = take(&c, sizeof(*h));
		const void *keys = h && h->n <= len / cfg->key_size
				   ? take(&c, h->n * cfg->key_size) : NULL;
		const void *cpus = keys && h->has_cpus
				   ? take(&c, h->n * sizeof(uint16_t)) : NULL;
		if (!keys || (h->has_cpus && !cpus)) {
			vm_sim_free_request(s, i);
			return -EPROTO;
		}
		s[i] = (struct ksim_stream){ .n = h->n,
					     .counted_from = h->counted_from,
					     .cpu = h->cpu };
		void *k = malloc(h->n * cfg->key_size + 1);
		uint16_t *cp = h->has_cpus ? malloc(h->n * sizeof(*cp) + 1) : NULL;
		uint8_t *m = h->want_missed ? calloc(h->n + 1, 1) : NULL;
		if (!k || (h->has_cpus && !cp) || (h->want_missed && !m)) {
			free(k);
			free(cp);
			free(m);
			vm_sim_free_request(s, i);
			return -ENOMEM;
		}
		memcpy(k, keys, h->n * cfg->key_size);
		if (cp)
			memcpy(cp, cpus, h->n * sizeof(*cp));
		s[i].keys = k;
		s[i].cpus = cp;
		s[i].missed = m;
	}
	*out = s;
	*n_streams = *n;
	return 0;
}

void vm_sim_free_request(struct ksim_stream *streams, unsigned n)
{
	for (unsigned i = 0; streams && i < n; i++) {
		free((void *)streams[i].keys);
		free((void *)streams[i].cpus);
		free(streams[i].missed);
	}
	free(streams);
}

int vm_sim_encode_reply(const struct ksim_stream *streams, unsigned n,
			const struct ksim_result *r, int rc, const char *err,
			void **out, size_t *len)
{
	struct buf b = { 0 };
	struct reply_head h = { .rc = rc, .n_streams = n };
	if (rc)
		snprintf(h.err, sizeof(h.err), "%s", err);
	else {
		h.seconds = r->seconds;
		h.live_at_end = r->live_at_end;
		h.max_entries = r->max_entries;
	}
	put(&b, &h, sizeof(h));
	for (unsigned i = 0; !rc && i < n; i++) {
		put(&b, &r->streams[i], sizeof(r->streams[i]));
		if (streams[i].missed)
			put(&b, streams[i].missed, streams[i].n);
	}
	if (b.failed) {
		free(b.p);
		return -ENOMEM;
	}
	*out = b.p;
	*len = b.len;
	return 0;
}
