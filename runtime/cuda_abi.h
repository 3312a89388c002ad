/*
 * cuda_abi.h - the part of the CUDA Driver API that libpykrt uses, declared
 * here so that building needs no CUDA header. The driver's ABI is stable:
 * the types below are the handles and enums of cuda.h, and each entry point
 * is named by the versioned symbol that cuda.h's macros map it to
 * (cuMemAlloc -> cuMemAlloc_v2, ...), which drivers keep exporting.
 *
 * PK_DRIVER_API is the one list of entry points: member name, symbol,
 * fallback symbol (for drivers older than the first), whether pykrt cannot
 * work without it, and the parameter list. driver.c turns it into the
 * function-pointer struct and the lookup loop; the test double
 * (tests/runtime/fake_cuda.c) implements the same symbols.
 */
#ifndef PYKRT_CUDA_ABI_H
#define PYKRT_CUDA_ABI_H

#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef int CUjit_option;
typedef int CUdevice_attribute;
typedef int CUfunction_attribute;
typedef struct CUlinkState_st *CUlinkState;
typedef int CUjitInputType;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef int CUstreamCaptureMode;
typedef int CUstreamCaptureStatus;
/* cuOccupancyMaxPotentialBlockSize's dynamic shared memory per block size;
 * pykrt passes NULL and a fixed size. */
typedef size_t (*CUoccupancyB2DSize)(int block_size);

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
    CUDA_ERROR_INVALID_PTX = 218,
    CUDA_ERROR_FILE_NOT_FOUND = 301,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
    CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901,
    CUDA_ERROR_STREAM_CAPTURE_UNMATCHED = 903,
    CUDA_ERROR_STREAM_CAPTURE_UNJOINED = 904,
    CUDA_ERROR_STREAM_CAPTURE_IMPLICIT = 906,
    CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD = 908,
    CUDA_ERROR_UNKNOWN = 999
};

enum {
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY = 9,
    CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
    CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12,
    CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97
};

enum {
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9
};

enum {
    CU_JIT_INFO_LOG_BUFFER = 3,
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
};

/* What cuLinkAddData and cuLinkAddFile are given. */
enum {
    CU_JIT_INPUT_CUBIN = 0,
    CU_JIT_INPUT_PTX = 1,
    CU_JIT_INPUT_FATBINARY = 2,
    CU_JIT_INPUT_OBJECT = 3,
    CU_JIT_INPUT_LIBRARY = 4
};

enum { CU_STREAM_NON_BLOCKING = 1 };
enum { CU_EVENT_DEFAULT = 0 };
enum { CU_MEMHOSTALLOC_PORTABLE = 1 };
enum { CU_EVENT_WAIT_DEFAULT = 0 };

/* cuStreamBeginCapture's modes and cuStreamIsCapturing's answers. */
enum {
    CU_STREAM_CAPTURE_MODE_GLOBAL = 0,
    CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
    CU_STREAM_CAPTURE_MODE_RELAXED = 2
};
enum {
    CU_STREAM_CAPTURE_STATUS_NONE = 0,
    CU_STREAM_CAPTURE_STATUS_ACTIVE = 1,
    CU_STREAM_CAPTURE_STATUS_INVALIDATED = 2
};

/* X(member, symbol, fallback symbol or NULL, PK_REQUIRED|PK_OPTIONAL, (params)) */
#define PK_DRIVER_API(X)                                                                                         \
    X(cuGetErrorName, "cuGetErrorName", NULL, PK_REQUIRED, (CUresult error, const char **str))                    \
    X(cuGetErrorString, "cuGetErrorString", NULL, PK_REQUIRED, (CUresult error, const char **str))                \
    X(cuInit, "cuInit", NULL, PK_REQUIRED, (unsigned int flags))                                                 \
    X(cuDriverGetVersion, "cuDriverGetVersion", NULL, PK_REQUIRED, (int *version))                               \
    X(cuDeviceGet, "cuDeviceGet", NULL, PK_REQUIRED, (CUdevice *device, int ordinal))                            \
    X(cuDeviceGetCount, "cuDeviceGetCount", NULL, PK_REQUIRED, (int *count))                                     \
    X(cuDeviceGetName, "cuDeviceGetName", NULL, PK_REQUIRED, (char *name, int len, CUdevice dev))                \
    X(cuDeviceGetAttribute, "cuDeviceGetAttribute", NULL, PK_REQUIRED,                                           \
      (int *value, CUdevice_attribute attrib, CUdevice dev))                                                     \
    X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", NULL, PK_REQUIRED, (size_t *bytes, CUdevice dev))                 \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL, PK_REQUIRED, (CUcontext *ctx, CUdevice dev))   \
    X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", NULL, PK_REQUIRED, (CUdevice dev))              \
    X(cuCtxGetCurrent, "cuCtxGetCurrent", NULL, PK_REQUIRED, (CUcontext *ctx))                                   \
    X(cuCtxSetCurrent, "cuCtxSetCurrent", NULL, PK_REQUIRED, (CUcontext ctx))                                    \
    X(cuCtxSynchronize, "cuCtxSynchronize", NULL, PK_REQUIRED, (void))                                           \
    X(cuModuleLoadDataEx, "cuModuleLoadDataEx", NULL, PK_REQUIRED,                                               \
      (CUmodule *module, const void *image, unsigned int nopts, CUjit_option *opts, void **values))              \
    X(cuModuleUnload, "cuModuleUnload", NULL, PK_REQUIRED, (CUmodule module))                                    \
    X(cuLinkCreate, "cuLinkCreate_v2", "cuLinkCreate", PK_OPTIONAL,                                              \
      (unsigned int nopts, CUjit_option *opts, void **values, CUlinkState *state))                               \
    X(cuLinkAddData, "cuLinkAddData_v2", "cuLinkAddData", PK_OPTIONAL,                                           \
      (CUlinkState state, CUjitInputType type, void *data, size_t size, const char *name, unsigned int nopts,    \
       CUjit_option *opts, void **values))                                                                       \
    X(cuLinkAddFile, "cuLinkAddFile_v2", "cuLinkAddFile", PK_OPTIONAL,                                           \
      (CUlinkState state, CUjitInputType type, const char *path, unsigned int nopts, CUjit_option *opts,         \
       void **values))                                                                                           \
    X(cuLinkComplete, "cuLinkComplete", NULL, PK_OPTIONAL, (CUlinkState state, void **cubin, size_t *size))     \
    X(cuLinkDestroy, "cuLinkDestroy", NULL, PK_OPTIONAL, (CUlinkState state))                                   \
    X(cuModuleGetFunction, "cuModuleGetFunction", NULL, PK_REQUIRED,                                             \
      (CUfunction *func, CUmodule module, const char *name))                                                     \
    X(cuModuleGetGlobal, "cuModuleGetGlobal_v2", NULL, PK_REQUIRED,                                              \
      (CUdeviceptr *ptr, size_t *bytes, CUmodule module, const char *name))                                      \
    X(cuFuncGetAttribute, "cuFuncGetAttribute", NULL, PK_REQUIRED,                                               \
      (int *value, CUfunction_attribute attrib, CUfunction func))                                                \
    X(cuFuncSetAttribute, "cuFuncSetAttribute", NULL, PK_REQUIRED,                                               \
      (CUfunction func, CUfunction_attribute attrib, int value))                                                 \
    X(cuFuncGetParamInfo, "cuFuncGetParamInfo", NULL, PK_OPTIONAL,                                               \
      (CUfunction func, size_t index, size_t *offset, size_t *size))                                             \
    X(cuMemAlloc, "cuMemAlloc_v2", NULL, PK_REQUIRED, (CUdeviceptr *ptr, size_t bytes))                          \
    X(cuMemFree, "cuMemFree_v2", NULL, PK_REQUIRED, (CUdeviceptr ptr))                                           \
    X(cuMemHostAlloc, "cuMemHostAlloc", NULL, PK_REQUIRED, (void **ptr, size_t bytes, unsigned int flags))       \
    X(cuMemFreeHost, "cuMemFreeHost", NULL, PK_REQUIRED, (void *ptr))                                            \
    X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", NULL, PK_REQUIRED, (CUdeviceptr dst, const void *src, size_t bytes))      \
    X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", NULL, PK_REQUIRED, (void *dst, CUdeviceptr src, size_t bytes))            \
    X(cuMemcpyDtoD, "cuMemcpyDtoD_v2", NULL, PK_REQUIRED, (CUdeviceptr dst, CUdeviceptr src, size_t bytes))      \
    X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", NULL, PK_REQUIRED,                                              \
      (CUdeviceptr dst, const void *src, size_t bytes, CUstream stream))                                         \
    X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", NULL, PK_REQUIRED,                                              \
      (void *dst, CUdeviceptr src, size_t bytes, CUstream stream))                                               \
    X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", NULL, PK_REQUIRED,                                              \
      (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream))                                         \
    X(cuMemsetD8, "cuMemsetD8_v2", NULL, PK_REQUIRED, (CUdeviceptr dst, unsigned char value, size_t count))      \
    X(cuMemsetD32, "cuMemsetD32_v2", NULL, PK_REQUIRED, (CUdeviceptr dst, unsigned int value, size_t count))     \
    X(cuMemsetD8Async, "cuMemsetD8Async", NULL, PK_REQUIRED,                                                     \
      (CUdeviceptr dst, unsigned char value, size_t count, CUstream stream))                                     \
    X(cuStreamCreate, "cuStreamCreate", NULL, PK_REQUIRED, (CUstream *stream, unsigned int flags))               \
    X(cuStreamDestroy, "cuStreamDestroy_v2", NULL, PK_REQUIRED, (CUstream stream))                               \
    X(cuStreamSynchronize, "cuStreamSynchronize", NULL, PK_REQUIRED, (CUstream stream))                          \
    X(cuStreamWaitEvent, "cuStreamWaitEvent", NULL, PK_REQUIRED, (CUstream stream, CUevent event, unsigned int flags)) \
    X(cuStreamBeginCapture, "cuStreamBeginCapture_v2", NULL, PK_OPTIONAL,                                     \
      (CUstream stream, CUstreamCaptureMode mode))                                                               \
    X(cuStreamEndCapture, "cuStreamEndCapture", NULL, PK_OPTIONAL, (CUstream stream, CUgraph *graph))           \
    X(cuStreamIsCapturing, "cuStreamIsCapturing", NULL, PK_OPTIONAL,                                           \
      (CUstream stream, CUstreamCaptureStatus *status))                                                          \
    X(cuGraphInstantiate, "cuGraphInstantiateWithFlags", NULL, PK_OPTIONAL,                                    \
      (CUgraphExec *exec, CUgraph graph, unsigned long long flags))                                              \
    X(cuGraphLaunch, "cuGraphLaunch", NULL, PK_OPTIONAL, (CUgraphExec exec, CUstream stream))                   \
    X(cuGraphExecDestroy, "cuGraphExecDestroy", NULL, PK_OPTIONAL, (CUgraphExec exec))                          \
    X(cuGraphDestroy, "cuGraphDestroy", NULL, PK_OPTIONAL, (CUgraph graph))                                     \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor", NULL,         \
      PK_REQUIRED, (int *blocks, CUfunction func, int block_size, size_t dynamic_shared))                       \
    X(cuOccupancyMaxPotentialBlockSize, "cuOccupancyMaxPotentialBlockSize", NULL, PK_REQUIRED,                 \
      (int *min_grid, int *block_size, CUfunction func, CUoccupancyB2DSize shared_of_block, size_t dynamic_shared, \
       int block_size_limit))                                                                                    \
    X(cuEventCreate, "cuEventCreate", NULL, PK_REQUIRED, (CUevent *event, unsigned int flags))                   \
    X(cuEventDestroy, "cuEventDestroy_v2", NULL, PK_REQUIRED, (CUevent event))                                   \
    X(cuEventRecord, "cuEventRecord", NULL, PK_REQUIRED, (CUevent event, CUstream stream))                       \
    X(cuEventSynchronize, "cuEventSynchronize", NULL, PK_REQUIRED, (CUevent event))                              \
    X(cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime", PK_REQUIRED,                            \
      (float *ms, CUevent start, CUevent end))                                                                   \
    X(cuLaunchKernel, "cuLaunchKernel", NULL, PK_REQUIRED,                                                       \
      (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,       \
       unsigned int bz, unsigned int shared, CUstream stream, void **params, void **extra))                     \
    X(cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel", NULL, PK_OPTIONAL,                                 \
      (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by,       \
       unsigned int bz, unsigned int shared, CUstream stream, void **params))

#endif /* PYKRT_CUDA_ABI_H */
