/*
 * host.h - what the host device's files share: host.c (devices, memory,
 * streams, events: the driver table), host_module.c (modules of `pykc
 * --target host`, their kernels and globals) and host_sched.c (the worker
 * pool and the scheduler of a block's threads).
 *
 * Their entry points are named pkh_ and the CUDA call they stand for
 * (pkh_cuMemAlloc), each with the parameters of PK_DRIVER_API, so host.c's
 * table is checked by the compiler against cuda_abi.h.
 */
#ifndef PYKRT_HOST_H
#define PYKRT_HOST_H

#include "host_abi.h"
#include "runtime.h"

/* The host device's limits, those of current GPUs so that a program made
 * for a GPU launches unchanged. */
#define PK_HOST_MAX_THREADS 1024
/* The most blocks of a cooperative launch: each runs on a thread of its own. */
#define PK_HOST_MAX_COOP_BLOCKS 1024
#define PK_HOST_SHARED_DEFAULT (48u << 10)
#define PK_HOST_SHARED_OPTIN (227u << 10)

/* A loaded module (a CUmodule): the shared object and its ABI functions. */
typedef struct pk_host_module {
    void *lib;
    int fd; /* the image's memory file, open while loaded: its name is dlopen's */
    void (*enter)(pykrt_host_thread *thread);
    int (*resume)(void *handle);
    void (*destroy)(void *handle);
    pthread_mutex_t lock; /* guards funcs */
    struct pk_host_func *funcs;
} pk_host_module;

/* A kernel (a CUfunction): its entry and dynamic shared memory limit. */
typedef struct pk_host_func {
    pk_host_module *module;
    void *(*entry)(void **params);
    /* ENTRY.block, where the kernel never suspends; else NULL */
    void (*block)(void **params, pykrt_host_thread *threads, uint32_t count);
    _Atomic unsigned dyn_limit; /* raised by cuFuncSetAttribute */
    struct pk_host_func *next;
} pk_host_func;

/* A launch's shape, counted as cuLaunchKernel counts it. */
typedef struct pk_host_shape {
    unsigned grid[3], block[3];
    unsigned shared;
} pk_host_shape;

/* ---- host_module.c ---- */

CUresult pkh_cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int nopts, CUjit_option *opts,
                                void **values);
CUresult pkh_cuModuleUnload(CUmodule module);
CUresult pkh_cuModuleGetFunction(CUfunction *func, CUmodule module, const char *name);
CUresult pkh_cuModuleGetGlobal(CUdeviceptr *ptr, size_t *bytes, CUmodule module, const char *name);
CUresult pkh_cuFuncGetAttribute(int *value, CUfunction_attribute attrib, CUfunction func);
CUresult pkh_cuFuncSetAttribute(CUfunction func, CUfunction_attribute attrib, int value);

/* ---- host_sched.c ---- */

/* Decides the number of worker threads ($PYKRT_HOST_THREADS, else the
 * CPUs this process may run on); false, with the reason, if the variable
 * is not a count. */
bool pk_host_sched_init(char *why, size_t size);

/* The number of worker threads: the device's multiprocessors. */
int pk_host_workers(void);

/* Runs every block of the launch and returns when all have finished. */
CUresult pk_host_run(const pk_host_func *f, const pk_host_shape *shape, void **params);

/* The vote `op` (PYKRT_HOST_VOTE_*) over a warp's slots, as host_abi.h
 * defines it: the pykrt_host_block.warp_vote a module calls. */
uint32_t pk_host_warp_vote(uint32_t op, const int64_t *warp_slots, uint32_t lane, uint32_t mask, uint32_t live);

CUresult pkh_cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                            unsigned int by, unsigned int bz, unsigned int shared, CUstream stream, void **params,
                            void **extra);
CUresult pkh_cuLaunchCooperativeKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                                       unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared,
                                       CUstream stream, void **params);
CUresult pkh_cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction func, int block_size,
                                                         size_t dynamic_shared);
CUresult pkh_cuOccupancyMaxPotentialBlockSize(int *min_grid, int *block_size, CUfunction func,
                                              CUoccupancyB2DSize shared_of_block, size_t dynamic_shared,
                                              int block_size_limit);

#endif /* PYKRT_HOST_H */
