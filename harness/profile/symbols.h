/* SPDX-License-Identifier: MIT */
/*
 * symbols.h: addresses to function names, after the run.
 *
 * Kernel addresses: /proc/kallsyms (as root, kptr_restrict 0 or 1, the
 * addresses are real), read while the BPF programs of interest are still
 * loaded: a JITed program is listed as bpf_prog_<tag>_<name> in module
 * [bpf] when net.core.bpf_jit_kallsyms is 1 (prof_jit_kallsyms says).  Only
 * text symbols (types t, T, w, W) are named; a symbol ends where the next
 * one (of any type but a, A, U) starts, the last one 4 KiB past its start.
 * Of several symbols at one address, the global one is kept (T over t),
 * then the one that is not a "__pi_" alias, then the one with fewer leading
 * underscores, then the first in the file.
 *
 * User addresses: this process's own mappings, through libdw (dwfl on
 * /proc/self/maps and each mapped ELF's symbol table); a stripped library
 * gives its module name and its exported (.dynsym) functions only; an
 * address in it outside those is the module with no function.  The symbols
 * are copied out of libdw once, at prof_symbols_add_self: mappings made
 * after it (dlopen) are not known.  Symbolise after sampling, never during
 * it: reading symbols while sampling puts the symboliser in the samples.
 *
 * Not thread-safe while loading; lookups of a loaded table may run in
 * parallel, and neither allocate nor call libdw.
 */
#ifndef MAPLAB_PROFILE_SYMBOLS_H
#define MAPLAB_PROFILE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct prof_symbols;

struct prof_symbol {
	const char *name;    /* the function; NULL where unknown */
	const char *module;  /* "[kernel]", "[bpf]", "[nf_tables]" (a kernel
				module), or a user ELF's file name ("maplab",
				"libc.so.6"); NULL where the address is in no
				known mapping */
	uint64_t start;      /* the function's first address (0: unknown) */
};

struct prof_symbols *prof_symbols_new(void);

/* Add the text symbols of a kallsyms-format file (/proc/kallsyms, or a
 * recorded copy).  0; -errno where it cannot be read; -ENODATA where it
 * holds no text symbol at a non-zero address (kptr_restrict hides them:
 * not root).  A second file adds to the first. */
int prof_symbols_add_kallsyms(struct prof_symbols *s, const char *path);

/* Add this process's user-space mappings (libdw), replacing those of an
 * earlier call.  0 or -errno. */
int prof_symbols_add_self(struct prof_symbols *s);

/* The symbol at addr: kernel addresses from kallsyms, user ones from this
 * process.  false (and out->name NULL) where no function is known; out's
 * strings live as long as s. */
bool prof_symbolize(const struct prof_symbols *s, uint64_t addr,
		    struct prof_symbol *out);

void prof_symbols_free(struct prof_symbols *s);

/* net.core.bpf_jit_kallsyms: 1 when JITed programs are in kallsyms, 0 when
 * not, -errno where it cannot be read. */
int prof_jit_kallsyms(void);

#endif /* MAPLAB_PROFILE_SYMBOLS_H */
