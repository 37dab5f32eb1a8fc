/* SPDX-License-Identifier: Apache-2.0 */
/* A rendezvous of the ranks of one launch over TCP, for launchers that give a process its rank
 * but no MPI (srun without PMIx, torchrun, mpirun without gv-nccl's MPI build): the process on
 * HOST listens on HOST:PORT and takes rank 0, the others connect to it; rank 0 then broadcasts
 * (NCCL's unique id) and gathers (every rank's result). Every call is bounded by its own
 * timeout: a rank that never comes or never answers is an error, never a hang. */
#ifndef GV_EXAMPLES_RENDEZVOUS_H
#define GV_EXAMPLES_RENDEZVOUS_H

#include <stddef.h>
#include <stdint.h>

typedef struct gv_rdv gv_rdv;

/* This process's rank, world size and local rank from the launcher's environment, the
 * innermost launcher's: torchrun (RANK, WORLD_SIZE, LOCAL_RANK; under srun too), Open MPI
 * (OMPI_COMM_WORLD_*), Slurm (SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID), PMI (PMI_RANK,
 * PMI_SIZE); *local is -1 where the launcher does not say; *key names the launch (its job or
 * run ID as the launcher sets it in every process). 0, or -1 when no launcher set them. */
int gv_rdv_from_env(int *rank, int *size, int *local, uint64_t *key);

/* Whether `where` reads as HOST:PORT (a port from 1 to 65535); 0, or -1 with a reason in err.
 * The host is not looked up here. */
int gv_rdv_check_where(const char *where, char *err, size_t cap);

/* Joins the rendezvous at "HOST:PORT" as the launcher's `rank` of `size` within timeout_s; NULL
 * with a reason in err. A process of another launch (another key or size) at that port is not
 * let in. *taken is the rank taken: 0 for the process on HOST that listens (the launcher's rank
 * 0 where it is one of them; so also when not every rank came), whose launcher rank the
 * launcher's rank 0 takes; -1 when it reached no listener. */
gv_rdv *gv_rdv_join(const char *where, int rank, int size, uint64_t key, double timeout_s,
                    int *taken, char *err, size_t cap);

/* Rank 0's len bytes of buf to every rank; 0, or -1 with a reason in err. */
int gv_rdv_bcast(gv_rdv *r, void *buf, size_t len, double timeout_s, char *err, size_t cap);

/* Every rank's len bytes of mine into rank 0's all (size x len, in rank order); 0 or -1. A
 * rank that sends nothing within timeout_s leaves its part zeroed and makes it -1 on rank 0,
 * with the missing ranks named in err. */
int gv_rdv_gather(gv_rdv *r, const void *mine, size_t len, void *all, double timeout_s, char *err,
                  size_t cap);

void gv_rdv_close(gv_rdv *r);

#endif
