/* SPDX-License-Identifier: MIT */
/*
 * symbols.c: two sorted tables of function starts, one for the kernel
 * (from a kallsyms file) and one for this process (from libdw), and a
 * binary search over each.
 *
 *   arena:   "[kernel]\0htab_map_update_elem\0[bpf]\0bpf_prog_..\0..."
 *   kernel:  | start end name mod | start end name mod | ...   (by start)
 *   user:    | start end name mod | ...                        (by start)
 *   modules: | name low high | ...   ("[kernel]", "[bpf]", "libc.so.6")
 *
 * Invariants, once a table is finished (finish_table):
 *   - entries are sorted by start, and no two share a start;
 *   - every entry has start < end: a function holds [start, end);
 *   - an entry whose name is NO_NAME is a boundary: a kernel data symbol,
 *     kept only so that the text symbol before it ends there;
 *   - names and module names are offsets into the one arena, so that a
 *     load of ~150k symbols is a handful of reallocs, not 150k mallocs;
 *     pointers are made at lookup time and stay valid until
 *     prof_symbols_free (the arena only grows).
 *
 * Lookups read only; they may run in parallel once loading is done.
 *
 * Kernel extents: kallsyms gives no sizes, so a symbol ends where the next
 * symbol of any type starts (the kernel's own kallsyms_lookup_size_offset
 * does the same); the last one gets KSYM_LAST_EXTENT bytes, and an address
 * past that is unknown.
 *
 * Several symbols at one address (aliases): the one kept is the first by
 * preference (see preference()): global over weak over local, then not a
 * "__pi_" position-independent alias, then fewer leading underscores, then
 * the first in the file.  So __x86_return_thunk, not its alias
 * __pi___x86_return_thunk; the global T over a local t.
 *
 * User extents: the ELF symbol's st_size, or, for a sizeless symbol, up to
 * the next symbol's start within the same mapping.  The symbols are copied
 * out of libdw at prof_symbols_add_self, so that a lookup is a binary
 * search that neither allocates nor touches libdw's lazily built state.
 */
#include "harness/profile/symbols.h"
#include "harness/common/grow.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NO_NAME UINT32_MAX
#define NO_MODULE UINT16_MAX
#define KSYM_LAST_EXTENT 4096u
#define KERNEL_ADDR_BIT (UINT64_C(1) << 63)
#define KALLSYMS_READ_BUF (1u << 20)

struct sym {
	uint64_t start;
	uint64_t end;       /* one past the last byte; 0 until finish_table */
	uint32_t name;      /* arena offset, or NO_NAME for a boundary */
	uint32_t seq;       /* order of arrival: the last tie-breaker */
	uint16_t module;    /* index into modules[] */
	uint8_t pref;       /* preference(): higher wins among aliases */
};

struct sym_table {
	struct sym *v;
	size_t n, cap;
};

struct module {
	uint32_t name;      /* arena offset */
	uint64_t low, high; /* a user mapping's range; 0, 0 for the kernel's */
};

struct prof_symbols {
	char *arena;
	size_t arena_len, arena_cap;
	struct module *modules;
	size_t n_modules, cap_modules;
	struct sym_table kernel, user;
	uint32_t next_seq;
};

/* ---- arena and modules ---------------------------------------------- */

/* Copy len bytes of str and a NUL into the arena; its offset, or NO_NAME
 * when out of memory (or past 4 GiB of names). */
static uint32_t arena_add(struct prof_symbols *s, const char *str, size_t len)
{
	size_t need = s->arena_len + len + 1;

	if (need >= NO_NAME)
		return NO_NAME;
	if (need > s->arena_cap) {
		size_t cap = s->arena_cap ? s->arena_cap : 1u << 16;
		char *p;

		while (cap < need)
			cap *= 2;
		p = realloc(s->arena, cap);
		if (!p)
			return NO_NAME;
		s->arena = p;
		s->arena_cap = cap;
	}
	memcpy(s->arena + s->arena_len, str, len);
	s->arena[s->arena_len + len] = '\0';
	s->arena_len = need;
	return (uint32_t)(need - len - 1);
}

/* The index of the module named name[0..len) with range [low, high),
 * added if new; NO_MODULE when out of memory.  Kernel modules are few and
 * come in runs, so a linear search from the end finds them at once. */
static uint16_t module_intern(struct prof_symbols *s, const char *name,
			      size_t len, uint64_t low, uint64_t high)
{
	for (size_t i = s->n_modules; i-- > 0;) {
		const struct module *m = &s->modules[i];
		const char *have = s->arena + m->name;

		if (m->low == low && m->high == high &&
		    strlen(have) == len && memcmp(have, name, len) == 0)
			return (uint16_t)i;
	}
	if (s->n_modules >= NO_MODULE)
		return NO_MODULE;
	struct module *m = grow_array(s->modules, &s->cap_modules,
				      s->n_modules + 1, sizeof(*m), 16);
	if (!m)
		return NO_MODULE;
	s->modules = m;
	uint32_t off = arena_add(s, name, len);

	if (off == NO_NAME)
		return NO_MODULE;
	s->modules[s->n_modules] = (struct module){ off, low, high };
	return (uint16_t)s->n_modules++;
}

/* ---- tables ------------------------------------------------------------ */

enum binding { BIND_NONE, BIND_LOCAL, BIND_WEAK, BIND_GLOBAL };

/* Which alias to keep at one address: binding first, then the real name
 * over a "__pi_" alias (x86's position-independent startup copies), then
 * the name with fewer leading underscores (as perf chooses). */
static uint8_t preference(enum binding bind, const char *name)
{
	unsigned underscores = 0;

	if (!name)
		return 0;
	while (name[underscores] == '_' && underscores < 31)
		underscores++;
	return (uint8_t)((unsigned)bind << 6 |
			 (strncmp(name, "__pi_", 5) != 0) << 5 |
			 (31 - underscores));
}

static int table_push(struct prof_symbols *s, struct sym_table *t,
		      struct sym e)
{
	struct sym *v = grow_array(t->v, &t->cap, t->n + 1, sizeof(*v), 4096);
	if (!v)
		return -ENOMEM;
	t->v = v;
	e.seq = s->next_seq++;
	t->v[t->n++] = e;
	return 0;
}

static int sym_order(const void *pa, const void *pb)
{
	const struct sym *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->pref != b->pref)
		return a->pref > b->pref ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The end of a symbol that gave no size: the next start, bounded by its
 * mapping for user symbols; the last kernel one gets KSYM_LAST_EXTENT. */
static uint64_t implied_end(const struct prof_symbols *s,
			    const struct sym *e, const struct sym *next)
{
	const struct module *m = &s->modules[e->module];
	uint64_t end = next ? next->start : e->start + KSYM_LAST_EXTENT;

	if (m->high > e->start && m->high < end)
		end = m->high;
	return end;
}

/* Sort, keep the preferred symbol at each address, and fill in the ends
 * that were not given (see the invariants at the top). */
static void finish_table(const struct prof_symbols *s, struct sym_table *t)
{
	size_t kept = 0;

	if (t->n == 0)
		return;
	qsort(t->v, t->n, sizeof(*t->v), sym_order);
	for (size_t i = 0; i < t->n; i++)
		if (kept == 0 || t->v[i].start != t->v[kept - 1].start)
			t->v[kept++] = t->v[i];
	t->n = kept;
	for (size_t i = 0; i < t->n; i++) {
		struct sym *e = &t->v[i];

		if (e->end <= e->start)
			e->end = implied_end(s, e, i + 1 < t->n ? e + 1 : NULL);
	}
}

/* The entry with the greatest start <= addr, or NULL. */
static const struct sym *table_find(const struct sym_table *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->v[lo - 1] : NULL;
}

/* ---- kallsyms ---------------------------------------------------------- */

static enum binding ksym_binding(char type)
{
	switch (type) {
	case 'T': return BIND_GLOBAL;
	case 'W': case 'w': return BIND_WEAK;
	case 't': return BIND_LOCAL;
	default: return BIND_NONE;
	}
}

/* Absolute (a, A) and undefined (U) symbols say nothing about where code
 * is; every other non-text type is data that ends the text before it. */
static bool ksym_is_boundary(char type)
{
	return type != 'a' && type != 'A' && type != 'U' && type != 'u';
}

/* One line "ffffffff81000000 T _stext" or "... t name\t[module]".  1 when
 * a text symbol was added, 0 when the line was skipped, -ENOMEM. */
static int ksym_parse_line(struct prof_symbols *s, const char *line,
			   uint16_t kernel)
{
	char *p;
	const char *name, *mod;
	uint64_t addr = strtoull(line, &p, 16);
	enum binding bind;
	size_t name_len;
	uint16_t module = kernel;

	if (p == line || *p != ' ' || !p[1] || p[2] != ' ' || addr == 0)
		return 0;
	bind = ksym_binding(p[1]);
	if (bind == BIND_NONE && !ksym_is_boundary(p[1]))
		return 0;
	name = p + 3;
	name_len = strcspn(name, "\t\n");
	mod = name + name_len;
	if (*mod == '\t' && mod[1] == '[') {
		size_t mod_len = strcspn(mod + 1, "\n");

		module = module_intern(s, mod + 1, mod_len, 0, 0);
		if (module == NO_MODULE)
			return -ENOMEM;
	}
	struct sym e = { .start = addr, .module = module, .name = NO_NAME };

	if (bind != BIND_NONE) {
		e.pref = preference(bind, name);
		e.name = arena_add(s, name, name_len);
		if (e.name == NO_NAME)
			return -ENOMEM;
	}
	if (table_push(s, &s->kernel, e))
		return -ENOMEM;
	return bind != BIND_NONE;
}

int prof_symbols_add_kallsyms(struct prof_symbols *s, const char *path)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0, n_before = s->kernel.n;
	ssize_t len;
	long text = 0;
	int err = 0;

	if (!f)
		return -errno;
	/* /proc/kallsyms is a seq_file: a big read buffer makes each read()
	 * return many lines, not a page's worth. */
	setvbuf(f, NULL, _IOFBF, KALLSYMS_READ_BUF);
	uint16_t kernel = module_intern(s, "[kernel]", 8, 0, 0);

	if (kernel == NO_MODULE)
		err = -ENOMEM;
	while (!err && (len = getline(&line, &cap, f)) > 0) {
		int r = ksym_parse_line(s, line, kernel);

		if (r < 0)
			err = r;
		text += r > 0;
	}
	if (!err && ferror(f))
		err = -EIO;
	if (!err && text == 0)
		err = -ENODATA;
	if (err)
		s->kernel.n = n_before; /* its names stay in the arena, unused */
	else
		finish_table(s, &s->kernel);
	free(line);
	fclose(f);
	return err;
}

/* ---- this process (libdw) ---------------------------------------------- */

struct self_load {
	struct prof_symbols *s;
	int err;
};

static enum binding elf_binding(unsigned char info)
{
	switch (GELF_ST_BIND(info)) {
	case STB_GLOBAL: case STB_GNU_UNIQUE: return BIND_GLOBAL;
	case STB_WEAK: return BIND_WEAK;
	default: return BIND_LOCAL;
	}
}

static bool elf_is_function(const GElf_Sym *sym, GElf_Word shndx,
			    GElf_Addr addr, const char *name)
{
	unsigned type = GELF_ST_TYPE(sym->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) &&
	       shndx != SHN_UNDEF && addr != 0 && name && *name;
}

/* The functions of one module's symbol table (its .symtab, or .dynsym in
 * a stripped file, and any MiniDebugInfo), copied into the user table. */
static int add_module_symbols(struct prof_symbols *s, Dwfl_Module *mod,
			      uint16_t module)
{
	int n = dwfl_module_getsymtab(mod);

	/* No table at all: the module is known, its functions are not. */
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr,
							   &shndx, NULL, NULL);

		if (!name || !elf_is_function(&sym, shndx, addr, name))
			continue;
		struct sym e = {
			.start = addr,
			.end = addr + sym.st_size,
			.module = module,
			.pref = preference(elf_binding(sym.st_info), name),
			.name = arena_add(s, name, strlen(name)),
		};
		if (e.name == NO_NAME || table_push(s, &s->user, e))
			return -ENOMEM;
	}
	return 0;
}

static int add_module(Dwfl_Module *mod, void **userdata, const char *name,
		      Dwarf_Addr low, void *arg)
{
	struct self_load *load = arg;
	Dwarf_Addr high;
	const char *base;
	uint16_t module;

	(void)userdata;
	dwfl_module_info(mod, NULL, NULL, &high, NULL, NULL, NULL, NULL);
	base = strrchr(name, '/');
	base = base ? base + 1 : name;
	module = module_intern(load->s, base, strlen(base), low, high);
	load->err = module == NO_MODULE ? -ENOMEM
					: add_module_symbols(load->s, mod, module);
	return load->err ? DWARF_CB_ABORT : DWARF_CB_OK;
}

int prof_symbols_add_self(struct prof_symbols *s)
{
	static char *debuginfo_path;
	static const Dwfl_Callbacks callbacks = {
		.find_elf = dwfl_linux_proc_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.debuginfo_path = &debuginfo_path,
	};
	struct self_load load = { .s = s };
	Dwfl *dwfl = dwfl_begin(&callbacks);
	int r;

	if (!dwfl)
		return -ENOMEM;
	/* A second call replaces the first: mappings may have changed. */
	s->user.n = 0;
	r = dwfl_linux_proc_report(dwfl, getpid());
	if (r == 0 && dwfl_report_end(dwfl, NULL, NULL) != 0)
		r = -1;
	if (r == 0)
		dwfl_getmodules(dwfl, add_module, &load, 0);
	dwfl_end(dwfl);
	/* dwfl_linux_proc_report: 0, an errno, or -1 for a libdwfl error. */
	if (r != 0)
		return r > 0 ? -r : -EIO;
	if (load.err) {
		s->user.n = 0;
		return load.err;
	}
	finish_table(s, &s->user);
	return 0;
}

/* ---- lookups ----------------------------------------------------------- */

/* The user mapping holding addr, or NO_MODULE. */
static uint16_t user_module_at(const struct prof_symbols *s, uint64_t addr)
{
	for (size_t i = 0; i < s->n_modules; i++)
		if (s->modules[i].low <= addr && addr < s->modules[i].high)
			return (uint16_t)i;
	return NO_MODULE;
}

bool prof_symbolize(const struct prof_symbols *s, uint64_t addr,
		    struct prof_symbol *out)
{
	bool kernel = addr & KERNEL_ADDR_BIT;
	const struct sym *e = table_find(kernel ? &s->kernel : &s->user, addr);
	uint16_t module = NO_MODULE;

	*out = (struct prof_symbol){ 0 };
	if (e && addr < e->end) {
		module = e->module;
		if (e->name != NO_NAME) {
			out->name = s->arena + e->name;
			out->start = e->start;
		}
	} else if (!kernel) {
		module = user_module_at(s, addr);
	}
	if (module != NO_MODULE)
		out->module = s->arena + s->modules[module].name;
	return out->name != NULL;
}

/* ---- lifetime and the sysctl ------------------------------------------- */

struct prof_symbols *prof_symbols_new(void)
{
	return calloc(1, sizeof(struct prof_symbols));
}

void prof_symbols_free(struct prof_symbols *s)
{
	if (!s)
		return;
	free(s->kernel.v);
	free(s->user.v);
	free(s->modules);
	free(s->arena);
	free(s);
}

int prof_jit_kallsyms(void)
{
	FILE *f = fopen("/proc/sys/net/core/bpf_jit_kallsyms", "re");
	int v, r;

	if (!f)
		return -errno;
	r = fscanf(f, "%d", &v) == 1 ? (v != 0) : -EIO;
	fclose(f);
	return r;
}
