/* SPDX-License-Identifier: MIT */
/*
 * replay.c: executes trace lines through map.h only, so the same code
 * replays on every design and, through kernel-compare's adapter, on the
 * kernel's own maps.
 */
#include "replay.h"
#include "hex.h"
#include "maps/common/cpu.h"
#include "maps/common/rcu.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	uint8_t *key;
	uint8_t *value;
	uint32_t key_size;
};

struct replay_state {
	struct map *map;          /* NULL: no map, or the map line failed */
	const struct trace_line *map_line;
	int map_err;              /* the failed map line's errno */
	FILE *out;
	uint8_t *key_buf, *value_buf;
};

static void print_err(FILE *out, int err)
{
	char name[32];
	trace_format_errno(-err, name, sizeof(name));
	fprintf(out, "err %s\n", name);
}

static void print_status(FILE *out, int err)
{
	if (err)
		print_err(out, err);
	else
		fputs("ok\n", out);
}

static void close_map(struct replay_state *s)
{
	if (s->map)
		map_destroy(s->map);
	s->map = NULL;
	free(s->key_buf);
	free(s->value_buf);
	s->key_buf = s->value_buf = NULL;
}

static void do_map(struct replay_state *s, const struct trace_line *l,
		   const struct replay_side *side)
{
	close_map(s);
	s->map_line = l;
	const struct map_ops *ops = side->choose(l->attr.type, l->attr.flags,
						 side->ctx);
	int err = ops ? map_create(ops, &l->attr, &s->map) : -EOPNOTSUPP;
	if (!err) {
		s->key_buf = malloc(l->attr.key_size);
		s->value_buf = malloc(l->attr.value_size);
		if (!s->key_buf || !s->value_buf) {
			close_map(s);
			err = -ENOMEM;
		}
	}
	s->map_err = err;
	print_status(s->out, err);
}

static int compare_entries(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	return memcmp(x->key, y->key, x->key_size);
}

static void free_entries(struct entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(e[i].key);
		free(e[i].value);
	}
	free(e);
}

/* Append a copy of key and its value; -ENOMEM on failure. */
static int add_entry(struct entry **e, size_t *n, size_t *cap,
		     const struct map_attr *a, const uint8_t *key,
		     const uint8_t *value)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		struct entry *grown = realloc(*e, c * sizeof(**e));
		if (!grown)
			return -ENOMEM;
		*e = grown;
		*cap = c;
	}
	struct entry *x = &(*e)[*n];
	x->key_size = a->key_size;
	x->key = malloc(a->key_size);
	x->value = malloc(a->value_size);
	if (!x->key || !x->value) {
		free(x->key);
		free(x->value);
		return -ENOMEM;
	}
	memcpy(x->key, key, a->key_size);
	memcpy(x->value, value, a->value_size);
	(*n)++;
	return 0;
}

/*
 * Walk get_next_key from the first key, as a userspace dump of a kernel map
 * does.  A walk longer than max_entries steps (a broken design) is
 * reported as -ELOOP rather than hanging the replay.
 */
static void do_dump(struct replay_state *s)
{
	const struct map_attr *a = &s->map->attr;
	struct entry *e = NULL;
	size_t n = 0, cap = 0, steps = 0;
	uint8_t *prev = NULL, *next = s->key_buf;
	uint8_t *spare = malloc(a->key_size);
	int err = spare ? 0 : -ENOMEM;

	while (!err && (err = map_get_next_key(s->map, prev, next)) == 0) {
		if (++steps > a->max_entries) {
			err = -ELOOP;
			break;
		}
		/* A key deleted between next and lookup is skipped, as the
		 * kernel's generic batch lookup does. */
		if (map_lookup_copy(s->map, next, s->value_buf) == 0)
			err = add_entry(&e, &n, &cap, a, next, s->value_buf);
		uint8_t *t = prev ? prev : spare;
		prev = next;
		next = t;
	}
	if (err == -ENOENT)
		err = 0;
	if (err) {
		print_err(s->out, err);
	} else {
		if (n > 1)
			qsort(e, n, sizeof(*e), compare_entries);
		fprintf(s->out, "ok %zu\n", n);
		for (size_t i = 0; i < n; i++) {
			fputs("  ", s->out);
			hex_print(s->out, e[i].key, a->key_size);
			putc(' ', s->out);
			hex_print(s->out, e[i].value, a->value_size);
			putc('\n', s->out);
		}
	}
	free_entries(e, n);
	free(spare); /* prev and next only ever point at key_buf or spare */
}

static void do_op(struct replay_state *s, const struct trace_line *l)
{
	struct map *m = s->map;
	int err;

	switch (l->op) {
	case TRACE_UPDATE:
		print_status(s->out, map_update(m, l->key, l->value, l->flags));
		break;
	case TRACE_LOOKUP:
		err = map_lookup_copy(m, l->key, s->value_buf);
		if (err) {
			print_err(s->out, err);
		} else {
			fputs("ok ", s->out);
			hex_print(s->out, s->value_buf, m->attr.value_size);
			putc('\n', s->out);
		}
		break;
	case TRACE_PLOOKUP:
		map_rcu_read_lock();
		err = map_lookup(m, l->key) ? 0 : -ENOENT;
		map_rcu_read_unlock();
		print_status(s->out, err);
		break;
	case TRACE_DELETE:
		print_status(s->out, map_delete(m, l->key));
		break;
	case TRACE_NEXT:
		err = map_get_next_key(m, l->key, s->key_buf);
		if (err) {
			print_err(s->out, err);
		} else {
			fputs("ok ", s->out);
			hex_print(s->out, s->key_buf, m->attr.key_size);
			putc('\n', s->out);
		}
		break;
	case TRACE_DUMP:
		do_dump(s);
		break;
	case TRACE_MAP:
		break;
	}
}

int replay_run(const struct trace *t, const char *trace_name,
	       const struct replay_side *side, struct replay_result *result,
	       char *err, size_t errlen)
{
	struct replay_state s = { 0 };
	int rc = 0;

	memset(result, 0, sizeof(*result));
	result->starts = calloc(t->n + 1, sizeof(*result->starts));
	s.out = open_memstream(&result->text, &result->len);
	if (!result->starts || !s.out) {
		snprintf(err, errlen, "out of memory");
		if (s.out)
			fclose(s.out);
		return -1;
	}
	map_thread_online();
	map_cpu_pin(0);
	int slot = map_cpu_claim(0);

	for (size_t i = 0; i < t->n; i++) {
		const struct trace_line *l = &t->lines[i];
		fflush(s.out);
		result->starts[i] = result->len;
		if (l->op == TRACE_MAP) {
			do_map(&s, l, side);
		} else if (!s.map) {
			char name[32];
			trace_format_errno(-s.map_err, name, sizeof(name));
			snprintf(err, errlen,
				 "%s:%u: operation on the map of line %u, which "
				 "could not be created (%s on %s)", trace_name,
				 l->lineno, s.map_line->lineno, name, side->label);
			rc = -1;
			break;
		} else {
			do_op(&s, l);
		}
		result->n = i + 1;
	}
	close_map(&s);
	fclose(s.out);
	result->starts[result->n] = result->len;
	if (slot == 0)
		map_cpu_release();
	map_thread_offline();
	return rc;
}

void replay_result_free(struct replay_result *r)
{
	free(r->text);
	free(r->starts);
	memset(r, 0, sizeof(*r));
}

static const struct map_ops *choose_user(uint32_t type, uint32_t flags,
					 void *ctx)
{
	const struct map_ops *design = ctx;
	if (design && design->type == type)
		return design;
	return map_find_faithful(type, flags);
}

struct replay_side replay_user_side(const struct map_ops *design)
{
	struct replay_side side = {
		.label = design ? design->name : "maplab (kernel-faithful designs)",
		.choose = choose_user,
		.ctx = (void *)design,
	};
	return side;
}

const struct map_attr *replay_attr_at(const struct trace *t, size_t i)
{
	for (size_t j = i + 1; j-- > 0;)
		if (t->lines[j].op == TRACE_MAP)
			return &t->lines[j].attr;
	return NULL;
}

int replay_line_comparable(const struct trace *t, size_t i)
{
	const struct map_attr *a = replay_attr_at(t, i);
	return t->lines[i].op != TRACE_NEXT || (a && (a->flags & MAP_F_ZERO_SEED));
}

const char *replay_line_text(const struct replay_result *r, size_t i,
			     size_t *len)
{
	if (i >= r->n) {
		*len = 0;
		return "";
	}
	*len = r->starts[i + 1] - r->starts[i];
	return r->text + r->starts[i];
}

size_t replay_next_difference(const struct trace *t,
			      const struct replay_result *a,
			      const struct replay_result *b, size_t from)
{
	for (size_t i = from; i < t->n; i++) {
		size_t la, lb;
		const char *ta = replay_line_text(a, i, &la);
		const char *tb = replay_line_text(b, i, &lb);
		if (!replay_line_comparable(t, i))
			continue;
		if (la != lb || memcmp(ta, tb, la) != 0 || i >= a->n || i >= b->n)
			return i;
	}
	return t->n;
}

static const struct map_ops *choose_fixed(uint32_t type, uint32_t flags,
					  void *ctx)
{
	(void)type, (void)flags;
	return ctx;
}

struct replay_side replay_fixed_side(const char *label,
				     const struct map_ops *ops)
{
	struct replay_side side = { .label = label, .choose = choose_fixed,
				    .ctx = (void *)ops };
	return side;
}
