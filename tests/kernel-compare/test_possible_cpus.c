/* SPDX-License-Identifier: MIT */
/*
 * maps/base/cpu.h's possible-CPU count against libbpf's.  It sizes the
 * kernel-faithful designs' per-CPU batches and shares, so it must be the
 * count the kernel's own maps are sized by.  Here, not beside the other
 * tests of maps/base: only kernel-compare's tests link libbpf.
 */
#include <bpf/libbpf.h>
#include <criterion/criterion.h>

#include "maps/base/cpu.h"

Test(cpu, possible_cpus_is_the_kernels)
{
	cr_expect_eq((int)map_possible_cpus(), libbpf_num_possible_cpus());
}
