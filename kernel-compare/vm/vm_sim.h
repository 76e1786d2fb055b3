/* SPDX-License-Identifier: MIT */
/*
 * vm_sim.h: `maplab sim --policy kernel --kernel K`: the kernel's LRU hash
 * as a cache policy, inside a virtual machine booted from K (vm.h) and
 * kept up for the whole command (vm_session.h), so that every point of
 * the run costs one request, not one boot.  Each run of the engine is
 * ksim's (kernel-compare/ksim.h), run by the VM's agent on the VM's own
 * cpus: the streams, their keys and their cpus go in, the results and the
 * missed requests come back.
 */
#ifndef MAPLAB_VM_SIM_H
#define MAPLAB_VM_SIM_H

#include "harness/sim/kernel_engine.h"
#include "kernel-compare/vm/vm.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Boot k with cpus vCPUs for the engine: 0, or -1 with one line in err.
 * The engine (vm_sim_engine) then runs there until vm_sim_close.
 */
int vm_sim_open(const struct vm_kernel *k, unsigned cpus, bool quiet,
		char *err, size_t errlen);

/* The engine, for sim_set_kernel_engine; its label ("kernel 6.12... (VM,
 * 2 cpus)"), for the report. */
extern const struct sim_kernel_engine vm_sim_engine;
const char *vm_sim_label(void);

/* Power the VM off (none left, nor its folder). */
void vm_sim_close(void);

/* The agent's side (vm_agent.c): a request read into a config and its
 * streams (keys, cpus and missed arrays malloc'd, freed by
 * vm_sim_free_request), and the reply written: 0, or -EPROTO / -ENOMEM. */
int vm_sim_decode_request(const void *req, size_t len, struct ksim_config *c,
			  struct ksim_stream **streams, unsigned *n_streams);
void vm_sim_free_request(struct ksim_stream *streams, unsigned n_streams);
int vm_sim_encode_reply(const struct ksim_stream *streams, unsigned n_streams,
			const struct ksim_result *r, int rc, const char *err,
			void **out, size_t *len);

#endif /* MAPLAB_VM_SIM_H */
