/*
 * fake_cuda.h - the test controls of the driver double (fake_cuda.c).
 *
 * The double is built as a libcuda.so.1 that libpykrt dlopens; a test opens
 * the same file with dlopen (same path, so the same instance) and finds
 * these functions with dlsym: see fake_open() in rt_test.h.
 */
#ifndef FAKE_CUDA_H
#define FAKE_CUDA_H

#include <stddef.h>

#define FAKE_MAX_PARAMS 64
#define FAKE_PARAM_BYTES 4096

/* What the last launch passed, laid out as the driver lays out a kernel's
 * parameters: each at its PTX alignment, sizes from the PTX. */
typedef struct fake_launch {
    char entry[128];
    unsigned grid[3], block[3];
    unsigned shared;
    void *stream;
    int cooperative;
    int nparams;
    size_t offset[FAKE_MAX_PARAMS];
    size_t size[FAKE_MAX_PARAMS];
    unsigned char bytes[FAKE_PARAM_BYTES];
} fake_launch;

typedef struct fake_hooks {
    /* Compute capability the devices report from now on. */
    void (*set_cc)(int major, int minor);
    /* The next call of `symbol` (e.g. "cuLaunchKernel") returns `code`. */
    void (*fail_next)(const char *symbol, int code);
    /* Launches so far, and a copy of the last one. */
    long (*launch_count)(void);
    void (*last_launch)(fake_launch *out);
    /* Device and pinned allocations not yet freed. */
    long (*live_allocations)(void);
    /* The dynamic shared memory limit set on kernel `entry` (or -1). */
    int (*dyn_shared_limit)(const char *entry);
    /* The image of the last module loaded, and its size. */
    size_t (*last_image)(const void **data);
    /* Primary context retains of device `dev` not yet released. */
    int (*retains)(int dev);
    /* 0: cuFuncGetParamInfo answers CUDA_ERROR_NOT_SUPPORTED, as a driver
     * that cannot tell; 1 (the default): it answers from the PTX. */
    void (*set_param_info)(int on);
    /* The next launch's thread raises exception `code` (pykc's debug=True
     * record: threadIdx x y z, blockIdx x y z), and for a failed check its
     * values (index, axis, extent; NULL for a raise). */
    void (*raise_next)(int code, const int thread[6], const long long detail[3]);
    /* Link states made and not destroyed. */
    int (*live_links)(void);
    /* The inputs of the last cuLinkComplete: "ptx k.ptx, library /x/libcudadevrt.a". */
    void (*last_link)(char *out, size_t size);
    /* Captured graphs (CUgraph) not yet destroyed. */
    long (*live_graphs)(void);
    /* The CUevent the CUstream last waited on (cuStreamWaitEvent), or NULL. */
    void *(*waited_event)(void *stream);
} fake_hooks;

#define FAKE_HOOK_NAMES(X)                                                                                       \
    X(set_cc, fake_cuda_set_cc)                                                                                  \
    X(fail_next, fake_cuda_fail_next)                                                                            \
    X(launch_count, fake_cuda_launch_count)                                                                      \
    X(last_launch, fake_cuda_last_launch)                                                                        \
    X(live_allocations, fake_cuda_live_allocations)                                                              \
    X(dyn_shared_limit, fake_cuda_dyn_shared_limit)                                                              \
    X(last_image, fake_cuda_last_image)                                                                          \
    X(retains, fake_cuda_retains)                                                                                \
    X(set_param_info, fake_cuda_set_param_info)                                                                  \
    X(raise_next, fake_cuda_raise_next)                                                                          \
    X(live_links, fake_cuda_live_links)                                                                          \
    X(last_link, fake_cuda_last_link)                                                                            \
    X(live_graphs, fake_cuda_live_graphs)                                                                        \
    X(waited_event, fake_cuda_waited_event)

#endif /* FAKE_CUDA_H */
