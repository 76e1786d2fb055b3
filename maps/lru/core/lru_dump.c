/* SPDX-License-Identifier: MIT */
/*
 * lru_dump.c: the dumps of the LRU designs on lru_htab (lru_dump.h says
 * what they draw).  Read-only: the caller keeps the lists still.
 */
#include "maps/lru/core/lru_dump.h"

#include <errno.h>
#include <stdint.h>

int lru_htab_dump_state(struct map *m, FILE *f, enum map_dump_format fmt)
{
	struct lru_htab *h = lru_htab_of(m);
	if (!h->policy->dump)
		return -EOPNOTSUPP;
	return h->policy->dump(h, f, fmt);
}

void lru_dump_key(FILE *f, struct lru_htab *h, const struct lru_node *n)
{
	const uint8_t *k = lru_node_key(n);
	for (uint32_t i = 0; i < h->map.attr.key_size; i++)
		fprintf(f, "%02x", k[i]);
}

void lru_dump_begin(FILE *f, enum map_dump_format fmt, const char *title)
{
	if (fmt != MAP_DUMP_DOT)
		return;
	fprintf(f, "digraph maplab {\n  label=\"%s\";\n  labelloc=t;\n"
		"  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n",
		title);
}

void lru_dump_end(FILE *f, enum map_dump_format fmt)
{
	if (fmt == MAP_DUMP_DOT)
		fputs("}\n", f);
}

size_t lru_dump_list_length(const struct dlist *head)
{
	size_t n = 0;
	for (const struct dlist *p = head->next; p != head; p = p->next)
		n++;
	return n;
}

static void lru_dump_list_text(struct lru_htab *h, FILE *f, const char *name,
			       const struct dlist *head,
			       const struct dlist *hand)
{
	fprintf(f, "%s (%zu):", name, lru_dump_list_length(head));
	if (hand == head)
		fputs(" [hand]", f);
	for (const struct dlist *p = head->next; p != head; p = p->next) {
		const struct lru_node *n = dlist_entry(p, struct lru_node, link);
		fputc(' ', f);
		if (p == hand)
			fputs("[hand]", f);
		lru_dump_key(f, h, n);
		if (lru_node_is_ref(n))
			fputc('*', f);
	}
	fputc('\n', f);
}

static void lru_dump_list_dot(struct lru_htab *h, FILE *f, const char *id,
			      const char *name, const struct dlist *head,
			      const struct dlist *hand)
{
	size_t i = 0;
	fprintf(f, "  subgraph cluster_%s {\n    label=\"%s (%zu)\";\n"
		"    %s_head [label=\"head\", shape=plaintext];\n", id, name,
		lru_dump_list_length(head), id);
	char prev_id[32] = "head";
	for (const struct dlist *p = head->next; p != head; p = p->next, i++) {
		const struct lru_node *n = dlist_entry(p, struct lru_node, link);
		fprintf(f, "    %s_%zu [label=\"", id, i);
		lru_dump_key(f, h, n);
		fprintf(f, "%s\"%s%s];\n", lru_node_is_ref(n) ? " ref" : "",
			lru_node_is_ref(n) ? ", style=filled, fillcolor=\"#ffd27f\""
					   : "",
			p == hand ? ", penwidth=3, color=\"#c03030\"" : "");
		fprintf(f, "    %s_%s -> %s_%zu;\n", id, prev_id, id, i);
		snprintf(prev_id, sizeof(prev_id), "%zu", i);
	}
	if (hand == head)
		fprintf(f, "    %s_head [color=\"#c03030\", label=\"head [hand]\"];\n",
			id);
	fputs("  }\n", f);
}

void lru_dump_list(struct lru_htab *h, FILE *f, enum map_dump_format fmt,
		   const char *id, const char *name, const struct dlist *head,
		   const struct dlist *hand)
{
	if (fmt == MAP_DUMP_DOT)
		lru_dump_list_dot(h, f, id, name, head, hand);
	else
		lru_dump_list_text(h, f, name, head, hand);
}
