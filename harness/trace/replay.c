/* SPDX-License-Identifier: MIT */
/*
 * replay.c: executes trace lines through map.h only, so the same code
 * replays on every design and, through kernel-compare's adapter, on the
 * kernel's own maps.
 *
 * A struct replay is one side's state between lines: the map of the map
 * line in force (or that line's errno) and scratch buffers sized for it.
 * replay_run drives one side and writes to the caller's stream;
 * replay_compare drives two in lock step, each line's results into a
 * per-side buffer that is rewound for every line, so neither grows with
 * the trace.  Everything runs on the calling thread: no locks.
 */
#include "harness/trace/replay.h"
#include "harness/trace/hex.h"
#include "harness/trace/membuf.h"
#include "maps/base/cpu.h"
#include "maps/base/rcu.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct replay {
	const struct trace *t;
	const char *trace_name;
	const struct replay_side *side;
	struct map *map;         /* NULL: the map line in force failed */
	size_t map_index;        /* that map line */
	int map_err;             /* its errno, when it failed */
	uint8_t *key_buf, *spare_key, *value_buf;
	uint8_t *records;        /* dump: key|value records, reused */
	size_t records_cap;      /* in records */
	char *why;               /* where a stop's message goes */
	size_t whylen;
};

static enum replay_stop stop_with(struct replay *r, enum replay_stop how,
				  size_t i, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Write "NAME:LINE: message" into r->why and return how. */
static enum replay_stop stop_with(struct replay *r, enum replay_stop how,
				  size_t i, const char *fmt, ...)
{
	int off = snprintf(r->why, r->whylen, "%s:%u: ", r->trace_name,
			   r->t->lines[i].lineno);
	if (off >= 0 && (size_t)off < r->whylen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->why + off, r->whylen - (size_t)off, fmt, ap);
		va_end(ap);
	}
	return how;
}

/* --- the thread a replay runs on ------------------------------------------- */

/* Run the calling thread as cpu: claim that slot (the designs' per-CPU
 * state) and, with pin, pin to that CPU (the kernel's), so both sides see
 * the same one.  0, or -1 with why in err. */
static int switch_cpu(int cpu, bool pin, char *err, size_t errlen)
{
	int slot = map_cpu_claim(cpu);
	if (slot < 0) {
		snprintf(err, errlen, "cpu slot %d, which the replay needs, is "
			 "held by another thread of this process", cpu);
		return -1;
	}
	if (!pin)
		return 0;
	int pinned = map_cpu_pin_id(cpu);
	if (pinned < 0) {
		char allowed[128];
		map_cpu_release();
		map_cpu_allowed_text(allowed, sizeof(allowed));
		if (pinned == -EINVAL)
			snprintf(err, errlen, "a replay runs on cpu %d, so that "
				 "per-CPU state matches on both sides, and this "
				 "process may not run there (taskset? allowed: "
				 "%s)", cpu, allowed);
		else
			snprintf(err, errlen, "cannot pin the replay to cpu %d: "
				 "%s", cpu, map_errno_text(-pinned));
		return -1;
	}
	return 0;
}

/* The thread starts as the cpu of the trace's first line (cpu 0 unless
 * the trace opens with a cpu line): an LRU's per-CPU state depends on the
 * cpu, so both sides must see the same one. */
static int enter_replay_thread(const struct trace *t, bool pin, char *err,
			       size_t errlen)
{
	if (switch_cpu(t->n ? t->lines[0].cpu : 0, pin, err, errlen))
		return -1;
	map_thread_online();
	return 0;
}

static void leave_replay_thread(void)
{
	map_thread_offline();
	map_cpu_release();
	map_cpu_unpin();
}

/* --- one side -------------------------------------------------------------- */

/* The map's work, added to the side's tally. */
static void add_work(struct map_work *to, const struct map *m)
{
	struct map_work w = map_work_of(m, -1);
	to->evictions += w.evictions;
	to->refills += w.refills;
	to->nodes_scanned += w.nodes_scanned;
	to->locks += w.locks;
	to->steals += w.steals;
	to->allocations += w.allocations;
	to->lock_ns += w.lock_ns;
}

static void close_map(struct replay *r)
{
	if (r->map && r->side->work)
		add_work(r->side->work, r->map);
	if (r->map)
		map_destroy(r->map);
	r->map = NULL;
	free(r->key_buf);
	free(r->spare_key);
	free(r->value_buf);
	free(r->records);
	r->key_buf = r->spare_key = r->value_buf = r->records = NULL;
	r->records_cap = 0;
}

static void replay_init(struct replay *r, const struct trace *t,
			const char *trace_name, const struct replay_side *side,
			char *why, size_t whylen)
{
	memset(r, 0, sizeof(*r));
	r->t = t;
	r->trace_name = trace_name;
	r->side = side;
	r->why = why;
	r->whylen = whylen;
}

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

/* "ok <hex>" or "err ERRNO". */
static void print_bytes_or_err(FILE *out, int err, const uint8_t *bytes,
			       size_t n)
{
	if (err) {
		print_err(out, err);
		return;
	}
	fputs("ok ", out);
	hex_print(out, bytes, n);
	putc('\n', out);
}

static enum replay_stop do_map(struct replay *r, size_t i, FILE *out)
{
	struct map_attr attr = r->t->lines[i].attr;
	const struct map_attr *a = &attr;
	close_map(r);
	r->map_index = i;
	attr.flags |= r->side->add_flags;
	if (r->side->ncpus)
		attr.ncpus = r->side->ncpus;
	if (r->side->model)
		attr.model = r->side->model;
	const struct map_ops *ops = r->side->choose(a->type, a->flags,
						    r->side->ctx);
	r->map_err = ops ? map_create(ops, a, &r->map) : -EOPNOTSUPP;
	print_status(out, r->map_err);
	if (r->map_err)
		return REPLAY_DONE;
	r->key_buf = malloc(a->key_size);
	r->spare_key = malloc(a->key_size);
	r->value_buf = malloc(a->value_size);
	if (!r->key_buf || !r->spare_key || !r->value_buf)
		return stop_with(r, REPLAY_FAILED, i, "out of memory");
	return REPLAY_DONE;
}

static int compare_keys(const void *x, const void *y, void *key_size)
{
	return memcmp(x, y, *(const uint32_t *)key_size);
}

/* Room for record n (key_size + value_size bytes each): 0 or -ENOMEM. */
static int reserve_record(struct replay *r, size_t n, size_t record)
{
	if (n < r->records_cap)
		return 0;
	size_t cap = r->records_cap ? 2 * r->records_cap : 64;
	uint8_t *grown = cap <= SIZE_MAX / record
				 ? realloc(r->records, cap * record) : NULL;
	if (!grown)
		return -ENOMEM;
	r->records = grown;
	r->records_cap = cap;
	return 0;
}

static void print_records(FILE *out, const struct map_attr *a,
			  const uint8_t *records, size_t n)
{
	size_t record = (size_t)a->key_size + a->value_size;
	fprintf(out, "ok %zu\n", n);
	for (size_t k = 0; k < n; k++) {
		const uint8_t *rec = records + k * record;
		fputs("  ", out);
		hex_print(out, rec, a->key_size);
		putc(' ', out);
		hex_print(out, rec + a->key_size, a->value_size);
		putc('\n', out);
	}
}

/*
 * Walk get_next_key from the first key and look each key up, as a
 * userspace dump of a kernel map does (through the syscall layer: a
 * BPF_F_WRONLY map answers EPERM).  A walk longer than max_entries steps
 * (a broken design) is reported as ELOOP rather than hanging the replay.
 */
static enum replay_stop do_dump(struct replay *r, size_t i, FILE *out)
{
	const struct map_attr *a = &r->map->attr;
	size_t record = (size_t)a->key_size + a->value_size, n = 0, steps = 0;
	uint8_t *prev = NULL, *next = r->key_buf;
	int err;

	while ((err = map_sys_get_next_key(r->map, prev, next)) == 0) {
		if (++steps > a->max_entries) {
			err = -ELOOP;
			break;
		}
		if (reserve_record(r, n, record))
			return stop_with(r, REPLAY_FAILED, i, "out of memory");
		uint8_t *rec = r->records + n * record;
		/* A key deleted between next and lookup is skipped, as the
		 * kernel's generic batch lookup does. */
		if (map_sys_lookup(r->map, next, rec + a->key_size) == 0) {
			memcpy(rec, next, a->key_size);
			n++;
		}
		prev = next;
		next = next == r->key_buf ? r->spare_key : r->key_buf;
	}
	if (err != -ENOENT) {
		print_err(out, err);
		return REPLAY_DONE;
	}
	uint32_t key_size = a->key_size;
	if (n > 1)
		qsort_r(r->records, n, record, compare_keys, &key_size);
	print_records(out, a, r->records, n);
	return REPLAY_DONE;
}

static int program_lookup(struct replay *r, const void *key)
{
	if (r->side->prog_lookup)
		return r->side->prog_lookup(r->map, key);
	map_rcu_read_lock();
	int err = map_lookup(r->map, key) ? 0 : -ENOENT;
	map_rcu_read_unlock();
	return err;
}

static enum replay_stop do_op(struct replay *r, size_t i, FILE *out)
{
	const struct trace_line *l = &r->t->lines[i];
	struct map *m = r->map;
	int err;

	switch (l->op) {
	case TRACE_UPDATE:
		print_status(out, map_sys_update(m, l->key, l->value, l->flags));
		break;
	case TRACE_LOOKUP:
		err = map_sys_lookup(m, l->key, r->value_buf);
		print_bytes_or_err(out, err, r->value_buf, m->attr.value_size);
		break;
	case TRACE_PLOOKUP:
		err = program_lookup(r, l->key);
		if (err && err != -ENOENT)
			return stop_with(r, REPLAY_FAILED, i, "the %s's lookup "
					 "program could not run: %s",
					 r->side->label, map_errno_text(-err));
		print_status(out, err);
		break;
	case TRACE_DELETE:
		print_status(out, map_sys_delete(m, l->key));
		break;
	case TRACE_NEXT:
		err = map_sys_get_next_key(m, l->key, r->key_buf);
		print_bytes_or_err(out, err, r->key_buf, m->attr.key_size);
		break;
	case TRACE_DUMP:
		return do_dump(r, i, out);
	case TRACE_MAP:
	case TRACE_CPU:
		break;
	}
	return REPLAY_DONE;
}

/* The message of a trace error at line i: who refused the map line. */
static enum replay_stop trace_error(struct replay *r, size_t i,
				    const char *who)
{
	char name[32];
	trace_format_errno(-r->map_err, name, sizeof(name));
	return stop_with(r, REPLAY_TRACE_ERROR, i, "operation on the map of "
			 "line %u, which could not be created (%s on %s)",
			 r->t->lines[r->map_index].lineno, name,
			 who ? who : r->side->label);
}

/* A cpu line: the thread runs as that cpu from here on ("ok").  In a
 * comparison both sides switch, the second to where it already is. */
static enum replay_stop do_cpu(struct replay *r, size_t i, FILE *out)
{
	char why[256];
	if (switch_cpu(r->t->lines[i].cpu, !r->side->slots_only, why,
		       sizeof(why)))
		return stop_with(r, REPLAY_FAILED, i, "%s", why);
	print_status(out, 0);
	return REPLAY_DONE;
}

/* Replay line i (lines go in order), its results to out. */
static enum replay_stop replay_line(struct replay *r, size_t i, FILE *out)
{
	if (r->t->lines[i].op == TRACE_CPU)
		return do_cpu(r, i, out);
	if (r->t->lines[i].op == TRACE_MAP)
		return do_map(r, i, out);
	if (!r->map)
		return trace_error(r, i, NULL);
	return do_op(r, i, out);
}

/* replay_run, its end whole in *end (end->why is err). */
static enum replay_stop run_side(const struct trace *t, const char *trace_name,
				 const struct replay_side *side, FILE *out,
				 bool echo, struct replay_end *end, char *err,
				 size_t errlen)
{
	struct replay r;
	enum replay_stop stop = REPLAY_DONE;
	size_t i = 0;

	*end = (struct replay_end){ .stop = REPLAY_DONE };
	if (enter_replay_thread(t, !side->slots_only, err, errlen))
		return end->stop = REPLAY_FAILED;
	replay_init(&r, t, trace_name, side, err, errlen);
	for (; i < t->n && !stop; i++) {
		if (echo) {
			fputs("# ", out);
			trace_print_line(out, t, i);
			putc('\n', out);
		}
		stop = replay_line(&r, i, out);
		if (!stop && ferror(out))
			stop = stop_with(&r, REPLAY_FAILED, i, "writing the "
					 "results failed: %s",
					 map_errno_text(errno));
	}
	if (stop) {
		end->stop = stop;
		end->line = i - 1;
		end->map_err = r.map_err;
	}
	close_map(&r);
	leave_replay_thread();
	return stop;
}

enum replay_stop replay_run(const struct trace *t, const char *trace_name,
			    const struct replay_side *side, FILE *out,
			    bool echo, char *err, size_t errlen)
{
	struct replay_end end;
	return run_side(t, trace_name, side, out, echo, &end, err, errlen);
}

void replay_record(const struct trace *t, const char *trace_name,
		   const struct replay_side *side, FILE *out,
		   struct replay_end *end)
{
	char why[sizeof(end->why)] = "";
	run_side(t, trace_name, side, out, false, end, why, sizeof(why));
	memcpy(end->why, why, sizeof(why));
}

/* --- two sides in lock step ------------------------------------------------ */

/*
 * One side of a comparison, and its answer to the current line: text[0 ..
 * len), or why it stopped.  A live side replays into its buffer (emptied
 * for every line, so it holds one line's); a recorded one reads its next
 * answer from the recording.
 */
struct compare_side {
	const char *label;
	const char *text;
	size_t len;
	int map_err;       /* where it stopped at a trace error: its map's */
	char why[512];
	/* live */
	struct replay r;
	FILE *f;
	struct membuf out; /* membuf.h: a write it cannot hold fails */
	/* recorded */
	const struct replay_recorded *rec;
	size_t at;         /* the next answer's offset in rec->text */
};

static int compare_side_open(struct compare_side *s, const struct trace *t,
			     const char *trace_name,
			     const struct replay_side *side)
{
	memset(s, 0, sizeof(*s));
	s->label = side->label;
	replay_init(&s->r, t, trace_name, side, s->why, sizeof(s->why));
	s->f = membuf_open(&s->out);
	return s->f ? 0 : -1;
}

static void compare_side_record(struct compare_side *s,
				const struct replay_recorded *rec)
{
	memset(s, 0, sizeof(*s));
	s->label = rec->label;
	s->rec = rec;
}

static void compare_side_close(struct compare_side *s)
{
	if (s->rec)
		return;
	close_map(&s->r);
	if (s->f)
		fclose(s->f);
	free(s->out.text);
}

/* Replay line i into the side's buffer. */
static enum replay_stop live_line(struct compare_side *s, size_t i)
{
	s->out.len = 0; /* the stream's own buffer was flushed last line */
	enum replay_stop stop = replay_line(&s->r, i, s->f);
	if ((fflush(s->f) || ferror(s->f)) && !stop)
		stop = stop_with(&s->r, REPLAY_FAILED, i, "out of memory for "
				 "the results of one line");
	s->text = s->out.text;
	s->len = s->out.len;
	s->map_err = s->r.map_err;
	return stop;
}

/* The end of the recorded line at p (its '\n' included), or NULL. */
static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	return nl ? nl + 1 : NULL;
}

/* The results a line of t->lines[i]'s op takes: one, or a dump's "ok N"
 * and its N records (read from the first line). */
static size_t answer_lines(const struct trace *t, size_t i, const char *first)
{
	unsigned long long n;
	if (t->lines[i].op == TRACE_DUMP && sscanf(first, "ok %llu", &n) == 1)
		return 1 + (size_t)n;
	return 1;
}

/* Line i's answer from the recording: its results in turn, or the stop
 * the recording ended with at this line. */
static enum replay_stop recorded_line(struct compare_side *s,
				      const struct trace *t, size_t i)
{
	const struct replay_recorded *rec = s->rec;
	if (rec->end.stop != REPLAY_DONE && rec->end.line == i) {
		snprintf(s->why, sizeof(s->why), "%s", rec->end.why);
		s->map_err = rec->end.map_err;
		return rec->end.stop;
	}
	const char *start = rec->text + s->at, *end = rec->text + rec->len;
	const char *p = start;
	size_t want = 1;
	for (size_t k = 0; k < want; k++) {
		const char *next = p < end ? line_end(p, end) : NULL;
		if (!next) {
			snprintf(s->why, sizeof(s->why), "%s's recording ends "
				 "before its answer to trace line %u",
				 rec->label, t->lines[i].lineno);
			return REPLAY_FAILED;
		}
		if (k == 0)
			want = answer_lines(t, i, p);
		p = next;
	}
	s->text = start;
	s->len = (size_t)(p - start);
	s->at += s->len;
	return REPLAY_DONE;
}

static enum replay_stop compare_side_line(struct compare_side *s,
					  const struct trace *t, size_t i)
{
	return s->rec ? recorded_line(s, t, i) : live_line(s, i);
}

static struct replay_answer answer_of(const struct compare_side *s,
				      enum replay_stop stop)
{
	struct replay_answer a = { .side = s->label, .stop = stop };
	a.text = stop ? s->why : s->text;
	a.len = stop ? strlen(s->why) : s->len;
	return a;
}

static bool same_answer(const struct compare_side *a,
			const struct compare_side *b)
{
	return a->len == b->len &&
	       (a->len == 0 || memcmp(a->text, b->text, a->len) == 0);
}

/*
 * Where either side stopped at line i: fill out and say whether it is a
 * difference (one side stopped, or a side failed: then it is not).  live
 * is a side that replays here, for the message of an agreement.
 */
static bool record_stop(struct compare_side *a, enum replay_stop sa,
			struct compare_side *b, enum replay_stop sb, size_t i,
			struct compare_side *live, struct replay_comparison *out)
{
	struct compare_side *first = sa ? a : b;
	enum replay_stop how = sa ? sa : sb;

	if (sa == REPLAY_FAILED || sb == REPLAY_FAILED) {
		first = sa == REPLAY_FAILED ? a : b;
		how = REPLAY_FAILED;
	} else if (sa && sb && a->map_err == b->map_err) {
		trace_error(&live->r, i, "both sides"); /* agreement */
		first = live;
	}
	out->stop = how;
	snprintf(out->why, sizeof(out->why), "%s", first->why);
	return how == REPLAY_TRACE_ERROR && !(sa && sb);
}

/* The lock step over sa and sb (sb live), from an entered thread. */
static void compare_lines(const struct trace *t, struct compare_side *sa,
			  struct compare_side *sb,
			  replay_difference_fn on_difference, void *ctx,
			  struct replay_comparison *out)
{
	for (size_t i = 0; i < t->n && !out->stop; i++) {
		enum replay_stop stop_a = compare_side_line(sa, t, i);
		enum replay_stop stop_b = stop_a == REPLAY_FAILED
						  ? REPLAY_DONE
						  : compare_side_line(sb, t, i);
		bool differ;
		if (stop_a || stop_b) {
			differ = record_stop(sa, stop_a, sb, stop_b, i, sb, out);
			out->lines += differ;
		} else {
			out->lines++;
			bool comparable = replay_line_comparable(t, i);
			out->unordered += !comparable;
			differ = comparable && !same_answer(sa, sb);
		}
		if (!differ)
			continue;
		out->differences++;
		struct replay_answer ans_a = answer_of(sa, stop_a);
		struct replay_answer ans_b = answer_of(sb, stop_b);
		if (on_difference)
			on_difference(ctx, t, i, &ans_a, &ans_b);
	}
}

void replay_compare(const struct trace *t, const char *trace_name,
		    const struct replay_side *a, const struct replay_side *b,
		    replay_difference_fn on_difference, void *ctx,
		    struct replay_comparison *out)
{
	struct compare_side sa, sb;

	memset(out, 0, sizeof(*out));
	if (enter_replay_thread(t, !(a->slots_only && b->slots_only),
				out->why, sizeof(out->why))) {
		out->stop = REPLAY_FAILED;
		return;
	}
	/* Both opened before either is checked: both are closed below. */
	int open_a = compare_side_open(&sa, t, trace_name, a);
	int open_b = compare_side_open(&sb, t, trace_name, b);
	if (open_a || open_b) {
		out->stop = REPLAY_FAILED;
		snprintf(out->why, sizeof(out->why), "out of memory");
	}
	compare_lines(t, &sa, &sb, on_difference, ctx, out);
	compare_side_close(&sa);
	compare_side_close(&sb);
	leave_replay_thread();
}

void replay_compare_recorded(const struct trace *t, const char *trace_name,
			     const struct replay_recorded *a,
			     const struct replay_side *b,
			     replay_difference_fn on_difference, void *ctx,
			     struct replay_comparison *out)
{
	struct compare_side sa, sb;

	memset(out, 0, sizeof(*out));
	if (enter_replay_thread(t, false, out->why, sizeof(out->why))) {
		out->stop = REPLAY_FAILED;
		return;
	}
	/* The recording's cpus were another machine's: b needs their slots
	 * alone, not CPUs of this one. */
	struct replay_side slots = *b;
	slots.slots_only = true;
	compare_side_record(&sa, a);
	if (compare_side_open(&sb, t, trace_name, &slots)) {
		out->stop = REPLAY_FAILED;
		snprintf(out->why, sizeof(out->why), "out of memory");
	}
	compare_lines(t, &sa, &sb, on_difference, ctx, out);
	compare_side_close(&sb);
	leave_replay_thread();
}

enum replay_stop replay_print_recorded(const struct trace *t,
				       const struct replay_recorded *rec,
				       FILE *out, bool echo, char *err,
				       size_t errlen)
{
	struct compare_side s;
	enum replay_stop stop = REPLAY_DONE;
	compare_side_record(&s, rec);
	for (size_t i = 0; i < t->n && !stop; i++) {
		if (echo) {
			fputs("# ", out);
			trace_print_line(out, t, i);
			putc('\n', out);
		}
		stop = recorded_line(&s, t, i);
		if (!stop)
			fwrite(s.text, 1, s.len, out);
	}
	snprintf(err, errlen, "%s", stop ? s.why : "");
	return stop;
}

bool replay_line_comparable(const struct trace *t, size_t i)
{
	const struct map_attr *a = trace_attr_at(t, i);
	/* the trie's order is its keys' (post-order), seed or not */
	return t->lines[i].op != TRACE_NEXT || a->type == MAP_TYPE_LPM_TRIE ||
	       (a->flags & MAP_F_ZERO_SEED);
}

/* --- sides ----------------------------------------------------------------- */

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

static const struct map_ops *choose_fixed(uint32_t type, uint32_t flags,
					  void *ctx)
{
	(void)type, (void)flags;
	return ctx;
}

struct replay_side replay_fixed_side(const char *label,
				     const struct map_ops *ops,
				     int (*prog_lookup)(struct map *map,
							const void *key))
{
	struct replay_side side = { .label = label, .choose = choose_fixed,
				    .ctx = (void *)ops,
				    .prog_lookup = prog_lookup };
	return side;
}
