/* SPDX-License-Identifier: MIT */
/*
 * memlimit.h: memory defects are tested under an address-space limit
 * (setrlimit RLIMIT_AS), so a leak or an unbounded buffer fails the test
 * with ENOMEM instead of taking the machine's memory.  Criterion runs each
 * test in its own process, so the limit ends with the test.
 *
 * AddressSanitizer and ThreadSanitizer reserve terabytes of address space
 * for their shadow, so under them such a test cannot run: it says so and
 * is skipped (the normal build, which CI also runs, runs it).
 */
#ifndef MAPLAB_TEST_MEMLIMIT_H
#define MAPLAB_TEST_MEMLIMIT_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MAPLAB_UNDER_SHADOW_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define MAPLAB_UNDER_SHADOW_SANITIZER 1
#endif
#endif

/* The process's address space now, in bytes (/proc/self/statm). */
static inline size_t address_space_now(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f) {
		if (fscanf(f, "%lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* Allow the process `extra` bytes of address space beyond what it has. */
static inline void limit_address_space(size_t extra)
{
#ifdef MAPLAB_UNDER_SHADOW_SANITIZER
	(void)extra;
	cr_skip_test("a sanitizer's shadow memory cannot live under an "
		     "address-space limit; the normal build runs this test");
#else
	size_t limit = address_space_now() + extra;
	struct rlimit r = { limit, limit };
	cr_assert_eq(setrlimit(RLIMIT_AS, &r), 0, "setrlimit(RLIMIT_AS)");
#endif
}

#endif /* MAPLAB_TEST_MEMLIMIT_H */
