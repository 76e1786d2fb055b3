/* SPDX-License-Identifier: MIT */
/*
 * tsan_criterion_arena.c: lets Criterion's test runner start under
 * ThreadSanitizer.  Preloaded (LD_PRELOAD) into the tests of a
 * -Db_sanitize=thread build only: tests/meson.build.
 *
 * Criterion 2.4.1 (Debian 12) shares its runner's memory with each test's
 * process through an arena that BoxFort 0.1.2 maps at a fixed address, the
 * same in every process: 0x200000000000 + r * 16 MiB, r = rand_r() & 0x3fffff,
 * up to ten tries of r whose pages are all unmapped.  TSan reserves almost
 * all of that range for its shadow and metadata (and keeps the gaps
 * PROT_NONE); the only application memory in it is 0x550000000000 to
 * 0x568000000000, where a PIE executable and its brk heap live.  So ten
 * tries rarely find a place and the runner stops: "Could not initialize
 * inheritable arena: Resource temporarily unavailable" (Snaipe/Criterion
 * issue 274).
 *
 * Here rand_r, when its seed is BoxFort's (a static variable of
 * libcriterion), answers an r that puts the arena in 0x560000000000 to
 * 0x568000000000: application memory, above where the kernel puts a PIE
 * executable and its heap (0x55..., below 0x560000000000 even with ASLR),
 * and BoxFort still checks that every page is free.  Every other seed gets
 * the real rand_r.  The seed, not the caller, tells: under clang the
 * caller is TSan's rand_r interceptor, linked into the executable, which
 * calls the next rand_r (this one) with the caller's seed.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#define ARENA_R_FIRST 0x360000u /* 0x200000000000 + r * 2^24 = 0x560000000000 */
#define ARENA_R_COUNT 0x8000u   /* up to 0x568000000000 */

static int inside_criterion(const void *p)
{
	Dl_info info;
	return dladdr(p, &info) && info.dli_fname &&
	       strstr(info.dli_fname, "libcriterion") != NULL;
}

int rand_r(unsigned *seed);
int rand_r(unsigned *seed)
{
	static int (*real_rand_r)(unsigned *);
	if (!real_rand_r)
		real_rand_r = (int (*)(unsigned *))dlsym(RTLD_NEXT, "rand_r");
	int r = real_rand_r(seed);
	if (inside_criterion(seed))
		r = (int)(ARENA_R_FIRST + (unsigned)r % ARENA_R_COUNT);
	return r;
}
