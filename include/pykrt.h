/*
 * pykrt.h - the runtime for kernels compiled by pykc.
 *
 * pykc turns a .pyk file into PTX (or cubin) plus a YAML manifest that
 * describes every kernel's parameters (docs/manifest.md). libpykrt loads the
 * two, checks launch arguments against the manifest, packs them the way the
 * manifest's ptx_params list says, and launches over the CUDA Driver API.
 *
 * The driver (libcuda.so.1) is opened at run time, so a program linked with
 * libpykrt starts on a machine without a GPU and gets PYKRT_ERROR_NO_DRIVER or
 * PYKRT_ERROR_NO_DEVICE from its first call. The same program runs on the CPU,
 * the host device, with the modules of `pykc --target host` (see pykrt_init).
 *
 * Conventions:
 *  - Every function that can fail returns a pykrt_status and writes results
 *    through out-parameters. On failure pykrt_last_error() gives a message,
 *    kept per thread, that names the pykrt function, the object (kernel,
 *    manifest) and, for driver failures, the CUDA call and its error name:
 *      pykrt_launch(vadd): cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE: invalid argument
 *  - Nothing aborts, exits or prints.
 *  - All functions may be called from several threads.
 *  - Lifetimes. A context counts the modules, streams, events and
 *    allocations made through it: pykrt_context_destroy refuses with
 *    PYKRT_ERROR_IN_USE, naming them, while any is alive. A handle passed
 *    after its destroy (a kernel's after its module's unload) is
 *    PYKRT_ERROR_INVALID_HANDLE. What stays the caller's duty:
 *      - destroying an object only when no other thread uses it (objects
 *        are not reference counted);
 *      - dropping a destroyed handle: it is caught until 64 more objects
 *        of its kind are destroyed; after that its memory may hold a newer
 *        object of the same kind, which the stale handle would then name;
 *      - passing only pointers that pykrt returned (any other is not
 *        caught);
 *      - freeing memory through the context that allocated it (the counts
 *        are per context object);
 *      - keeping device memory alive while kernels, copies or descriptors
 *        use it: pykrt checks a descriptor's numbers, not the memory.
 *  - pykrt makes the object's context current on the calling thread when a
 *    call needs it, so a context may be used from any thread.
 *
 * docs/runtime.md is the guide, with a complete host program.
 */
#ifndef PYKRT_H
#define PYKRT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PYKRT_API __attribute__((visibility("default")))
#else
#define PYKRT_API
#endif

#define PYKRT_VERSION_MAJOR 0
#define PYKRT_VERSION_MINOR 1
#define PYKRT_VERSION_PATCH 0
#define PYKRT_VERSION "0.1.0"

/* The manifest format version this runtime reads. */
#define PYKRT_MANIFEST_FORMAT 1

/* Array descriptors hold at most this many dimensions. */
#define PYKRT_MAX_NDIM 8

/* ------------------------------------------------------------------ */
/* Status and errors                                                   */
/* ------------------------------------------------------------------ */

typedef enum pykrt_status {
    PYKRT_SUCCESS = 0,
    PYKRT_ERROR_INVALID_ARGUMENT, /* a NULL pointer, bad size, bad index given to pykrt */
    PYKRT_ERROR_NO_DRIVER,        /* libcuda.so.1 missing, or lacking an entry point */
    PYKRT_ERROR_NO_DEVICE,        /* a driver but no CUDA device */
    PYKRT_ERROR_OUT_OF_MEMORY,    /* host or device allocation failed */
    PYKRT_ERROR_CUDA,             /* another driver call failed */
    PYKRT_ERROR_IO,               /* a manifest or PTX/cubin file could not be read */
    PYKRT_ERROR_MANIFEST,         /* the manifest is malformed or of an unknown format */
    PYKRT_ERROR_STALE,            /* PTX/cubin digest differs from the manifest's */
    PYKRT_ERROR_NO_TARGET,        /* no target of the manifest runs on the device */
    PYKRT_ERROR_MODULE_LOAD,      /* the driver refused the PTX/cubin (JIT log in the message) */
    PYKRT_ERROR_NOT_FOUND,        /* no kernel or constant of that name */
    PYKRT_ERROR_BAD_LAUNCH,       /* arguments or launch shape do not fit the kernel */
    PYKRT_ERROR_INVALID_HANDLE,   /* a handle used after it was destroyed */
    PYKRT_ERROR_IN_USE,           /* a context destroyed while objects made through it live */
    PYKRT_ERROR_KERNEL_EXCEPTION, /* a debug=True kernel raised: the message says what, where, which thread */
    PYKRT_ERROR_NOT_SUPPORTED     /* the device cannot do that: graphs, linked code or cooperative kernels on
                                     the host device; the host device where the CUDA driver is in use */
} pykrt_status;

/* The message of the last failed pykrt call on this thread ("" if none).
 * A successful call leaves it unchanged; the next failing call on this
 * thread replaces it. The pointer is valid for the thread's lifetime. */
PYKRT_API const char *pykrt_last_error(void);

/* The enumerator's name, e.g. "PYKRT_ERROR_NO_DRIVER". */
PYKRT_API const char *pykrt_status_name(pykrt_status status);

/* ------------------------------------------------------------------ */
/* Driver and devices                                                  */
/* ------------------------------------------------------------------ */

/* Opens the driver and calls cuInit, once per process. Every other function
 * does this itself; call it to ask early whether a driver and a GPU exist.
 * The library opened is libcuda.so.1, or the path in $PYKRT_LIBCUDA.
 *
 * The host device. With $PYKRT_DEVICE=host the process runs on the host
 * CPU instead, with the kernels of `pykc --target host` modules: the CUDA
 * driver is never opened, and the host is the one device, ordinal 0, of
 * every call below. Passing PYKRT_DEVICE_HOST as the ordinal of
 * pykrt_device_query or pykrt_context_create chooses it too, also after
 * the driver failed to load (PYKRT_ERROR_NO_DRIVER, PYKRT_ERROR_NO_DEVICE),
 * so a program can fall back to the CPU. A process runs on either: once the
 * CUDA driver is loaded, PYKRT_DEVICE_HOST is PYKRT_ERROR_NOT_SUPPORTED;
 * once the host is chosen, pykrt_init succeeds and the driver is never
 * opened. docs/runtime.md, "The host device", says what the host device
 * does and lacks. */
PYKRT_API pykrt_status pykrt_init(void);

/* The ordinal that chooses the host device (see pykrt_init). */
#define PYKRT_DEVICE_HOST (-2)

/* The driver's CUDA version, e.g. 13000 for 13.0 (cuDriverGetVersion); 0
 * on the host device. */
PYKRT_API pykrt_status pykrt_driver_version(int *version);

/* The number of CUDA devices (1, the host, on the host device). */
PYKRT_API pykrt_status pykrt_device_count(int *count);

typedef struct pykrt_device_info {
    int ordinal;
    char name[256];
    int cc_major, cc_minor;         /* compute capability */
    int sm_count;                   /* multiprocessors */
    int warp_size;
    int max_threads_per_block;
    int max_block_dim[3];
    int max_grid_dim[3];
    int max_threads_per_sm;
    int max_registers_per_block;
    int clock_khz;
    int l2_cache_bytes;
    size_t max_shared_per_block;       /* without opting in */
    size_t max_shared_per_block_optin; /* the most a kernel may ask for */
    size_t total_constant_memory;
    size_t total_memory;
    bool cooperative_launch;
    bool host; /* the host device: the CPU runs the kernels (cc 0.0, sm_count its worker threads) */
} pykrt_device_info;

/* Name, compute capability and limits of device `ordinal` (or
 * PYKRT_DEVICE_HOST). */
PYKRT_API pykrt_status pykrt_device_query(int ordinal, pykrt_device_info *out);

/* ------------------------------------------------------------------ */
/* Contexts                                                            */
/* ------------------------------------------------------------------ */

typedef struct pykrt_context pykrt_context;

/* Retains the primary context of device `ordinal` (the one the CUDA runtime
 * and Numba use too) and makes it current on the calling thread.
 * PYKRT_DEVICE_HOST: the host device's context (see pykrt_init). */
PYKRT_API pykrt_status pykrt_context_create(int ordinal, pykrt_context **out);

/* Releases the primary context and frees `ctx`. Refused, with
 * PYKRT_ERROR_IN_USE and a message naming them, while modules, streams,
 * events or allocations made through `ctx` are alive. NULL is a no-op. */
PYKRT_API pykrt_status pykrt_context_destroy(pykrt_context *ctx);

/* The device the context runs on (queried once, when it was created). */
PYKRT_API pykrt_status pykrt_context_device(const pykrt_context *ctx, pykrt_device_info *out);

/* Waits for all work of the context (cuCtxSynchronize). */
PYKRT_API pykrt_status pykrt_context_synchronize(pykrt_context *ctx);

/* The CUcontext, for code that calls the driver itself (on the host device,
 * a handle that is no CUDA object; the same for streams and kernels). */
PYKRT_API pykrt_status pykrt_context_handle(const pykrt_context *ctx, void **cucontext);

/* ------------------------------------------------------------------ */
/* Streams and events                                                  */
/* ------------------------------------------------------------------ */

typedef struct pykrt_stream pykrt_stream;
typedef struct pykrt_event pykrt_event;

#define PYKRT_STREAM_DEFAULT 0u
#define PYKRT_STREAM_NON_BLOCKING 1u /* does not synchronize with the default stream */

/* Creates a stream; flags are PYKRT_STREAM_*. Where a function takes a
 * stream, NULL means the context's default stream. */
PYKRT_API pykrt_status pykrt_stream_create(pykrt_context *ctx, unsigned flags, pykrt_stream **out);

/* A stream made by other code (CuPy's, PyTorch's, the CUDA runtime's)
 * on ctx's device, for pykrt's launches and copies: `custream` is its
 * CUstream, which must belong to ctx's context (the primary context, the
 * one they share) and outlive the wrapper. pykrt_stream_destroy of the
 * wrapper leaves the stream itself to its owner. */
PYKRT_API pykrt_status pykrt_stream_wrap(pykrt_context *ctx, void *custream, pykrt_stream **out);

/* Destroys a stream (its pending work still completes); a wrapped one's
 * wrapper only. NULL is a no-op. */
PYKRT_API pykrt_status pykrt_stream_destroy(pykrt_stream *stream);

/* Waits until all work queued on the stream is done. */
PYKRT_API pykrt_status pykrt_stream_synchronize(pykrt_stream *stream);

/* The CUstream, for code that calls the driver itself. */
PYKRT_API pykrt_status pykrt_stream_handle(const pykrt_stream *stream, void **custream);

/* Creates an event that can time work on streams. */
PYKRT_API pykrt_status pykrt_event_create(pykrt_context *ctx, pykrt_event **out);

/* Destroys an event. NULL is a no-op. */
PYKRT_API pykrt_status pykrt_event_destroy(pykrt_event *event);

/* Records the event on `stream` (NULL: the default stream). */
PYKRT_API pykrt_status pykrt_event_record(pykrt_event *event, pykrt_stream *stream);

/* Waits until the work before the event's last record is done. */
PYKRT_API pykrt_status pykrt_event_synchronize(pykrt_event *event);

/* Milliseconds between two recorded, completed events. */
PYKRT_API pykrt_status pykrt_event_elapsed(pykrt_event *start, pykrt_event *end, float *ms);

/* Makes work queued on `stream` (NULL: the default stream) after this call
 * wait until the work before the event's last record is done, on the GPU:
 * the host does not wait (cuStreamWaitEvent). An event never recorded is
 * no wait. Stream and event must belong to the same context. */
PYKRT_API pykrt_status pykrt_stream_wait_event(pykrt_stream *stream, pykrt_event *event);

/* ------------------------------------------------------------------ */
/* Graphs                                                              */
/* ------------------------------------------------------------------ */

/* Launches (and async copies and memsets) queued on a stream between
 * pykrt_graph_begin and pykrt_graph_end are recorded into a CUDA graph
 * instead of running; pykrt_graph_launch then replays them all with one
 * call. The arguments' values are recorded: a replay reads and writes the
 * same device memory, which must stay allocated while the graph lives.
 *
 * While a stream captures, nothing may wait for it: a launch of a kernel
 * compiled with debug=True (or with bounds checks), which waits for its
 * stream to read the exception record, is refused with
 * PYKRT_ERROR_BAD_LAUNCH; pykrt_stream_synchronize on it is refused with
 * PYKRT_ERROR_INVALID_ARGUMENT; the synchronous copies and memsets fail
 * in the driver and end the capture's validity (pykrt_graph_end then
 * reports the driver's error). Graphs need a driver with CUDA graphs
 * (11.4 or newer); an older one gives PYKRT_ERROR_NO_DRIVER. */

typedef struct pykrt_graph pykrt_graph;

typedef enum pykrt_capture_mode {
    /* While the capture lasts, calls that could wait for it implicitly
     * (cuMemAlloc, synchronous copies ...) fail on every thread. */
    PYKRT_CAPTURE_GLOBAL = 0,
    /* The same, only on the thread that began the capture. */
    PYKRT_CAPTURE_THREAD_LOCAL = 1,
    /* No call is checked: the caller makes sure none waits for it. */
    PYKRT_CAPTURE_RELAXED = 2
} pykrt_capture_mode;

/* Starts recording the work queued on `stream` (cuStreamBeginCapture). The
 * default stream (NULL) cannot be captured: make a stream for it. */
PYKRT_API pykrt_status pykrt_graph_begin(pykrt_stream *stream, pykrt_capture_mode mode);

/* Ends the recording begun on `stream` and makes the graph ready to launch
 * (cuStreamEndCapture, cuGraphInstantiateWithFlags). A capture that the
 * driver invalidated is ended and reported, with *out NULL. */
PYKRT_API pykrt_status pykrt_graph_end(pykrt_stream *stream, pykrt_graph **out);

/* Replays the graph's work on `stream` (NULL: the default stream), which
 * must belong to the graph's context; it runs asynchronously, like the
 * launches it recorded, and launches on one stream run one after the
 * other (cuGraphLaunch). */
PYKRT_API pykrt_status pykrt_graph_launch(pykrt_graph *graph, pykrt_stream *stream);

/* Destroys a graph (replays already queued still complete). NULL is a
 * no-op. */
PYKRT_API pykrt_status pykrt_graph_destroy(pykrt_graph *graph);

/* ------------------------------------------------------------------ */
/* Memory                                                              */
/* ------------------------------------------------------------------ */

/* A device address (a CUdeviceptr). */
typedef uint64_t pykrt_devptr;

/* Allocates `bytes` of device memory. */
PYKRT_API pykrt_status pykrt_mem_alloc(pykrt_context *ctx, size_t bytes, pykrt_devptr *out);

/* Frees device memory from pykrt_mem_alloc. 0 is a no-op. */
PYKRT_API pykrt_status pykrt_mem_free(pykrt_context *ctx, pykrt_devptr ptr);

/* Copies host to device, device to host, device to device; these wait
 * until the copy is done. */
PYKRT_API pykrt_status pykrt_memcpy_htod(pykrt_context *ctx, pykrt_devptr dst, const void *src, size_t bytes);
PYKRT_API pykrt_status pykrt_memcpy_dtoh(pykrt_context *ctx, void *dst, pykrt_devptr src, size_t bytes);
PYKRT_API pykrt_status pykrt_memcpy_dtod(pykrt_context *ctx, pykrt_devptr dst, pykrt_devptr src, size_t bytes);

/* The same, queued on `stream` (NULL: the default stream). The host buffer
 * must stay valid until the stream reaches the copy; it overlaps with other
 * work only if it is pinned (pykrt_host_alloc). */
PYKRT_API pykrt_status pykrt_memcpy_htod_async(pykrt_context *ctx, pykrt_devptr dst, const void *src, size_t bytes,
                                               pykrt_stream *stream);
PYKRT_API pykrt_status pykrt_memcpy_dtoh_async(pykrt_context *ctx, void *dst, pykrt_devptr src, size_t bytes,
                                               pykrt_stream *stream);
PYKRT_API pykrt_status pykrt_memcpy_dtod_async(pykrt_context *ctx, pykrt_devptr dst, pykrt_devptr src, size_t bytes,
                                               pykrt_stream *stream);

/* Sets `count` bytes to `value`. */
PYKRT_API pykrt_status pykrt_memset_d8(pykrt_context *ctx, pykrt_devptr dst, uint8_t value, size_t count);

/* Sets `count` 32-bit words to `value` (dst 4-byte aligned). */
PYKRT_API pykrt_status pykrt_memset_d32(pykrt_context *ctx, pykrt_devptr dst, uint32_t value, size_t count);

/* Sets `count` bytes to `value`, queued on `stream`. */
PYKRT_API pykrt_status pykrt_memset_d8_async(pykrt_context *ctx, pykrt_devptr dst, uint8_t value, size_t count,
                                             pykrt_stream *stream);

/* Allocates page-locked (pinned) host memory, usable from any context. */
PYKRT_API pykrt_status pykrt_host_alloc(pykrt_context *ctx, size_t bytes, void **out);

/* Frees memory from pykrt_host_alloc. NULL is a no-op. */
PYKRT_API pykrt_status pykrt_host_free(pykrt_context *ctx, void *ptr);

/* ------------------------------------------------------------------ */
/* Data types and array descriptors                                    */
/* ------------------------------------------------------------------ */

/* Element types, with Numba's names (pykrt_dtype_name). ORDER DTYPE: the
 * runtime's dtype table (runtime/memory.c) follows this order. */
typedef enum pykrt_dtype {
    PYKRT_DTYPE_INVALID = 0, /* so that a zeroed descriptor is caught */
    PYKRT_BOOL,
    PYKRT_INT8,
    PYKRT_INT16,
    PYKRT_INT32,
    PYKRT_INT64,
    PYKRT_UINT8,
    PYKRT_UINT16,
    PYKRT_UINT32,
    PYKRT_UINT64,
    PYKRT_FLOAT16,
    PYKRT_FLOAT32,
    PYKRT_FLOAT64,
    PYKRT_COMPLEX64,
    PYKRT_COMPLEX128,
    PYKRT_XOROSHIRO128P, /* numba.cuda.random's state record {uint64 s0, s1} */
    PYKRT_RECORD,        /* a structured dtype: the array's `record` lays it out */
    PYKRT_BFLOAT16,      /* bfloat16: the top half of a float32's bits */
    PYKRT_DTYPE_COUNT
} pykrt_dtype;

/* The layout of a structured dtype (a record), as NumPy lays it out and the
 * manifest gives it (docs/manifest.md, Records). */
typedef struct pykrt_record pykrt_record;

typedef struct pykrt_field {
    const char *name;
    pykrt_dtype dtype;            /* a scalar dtype, or PYKRT_RECORD */
    size_t offset;                /* bytes from the element's start */
    int ndim;                     /* an array field's dimensions; 0 for a scalar */
    int64_t shape[PYKRT_MAX_NDIM];
    const pykrt_record *record;   /* PYKRT_RECORD: the nested layout */
} pykrt_field;

struct pykrt_record {
    size_t size;                  /* bytes per element: NumPy's itemsize */
    size_t align;                 /* NumPy's alignment: 1 for a packed record */
    size_t nfields;
    const pykrt_field *fields;
};

/* The layout of numba.cuda.random's xoroshiro128p_dtype: {uint64 s0 at 0,
 * uint64 s1 at 8}, 16 bytes. */
PYKRT_API const pykrt_record *pykrt_xoroshiro128p_record(void);

/* The field of `record` called `name` (PYKRT_ERROR_NOT_FOUND if none). */
PYKRT_API pykrt_status pykrt_record_field(const pykrt_record *record, const char *name, const pykrt_field **out);

/* Bytes per element; 0 for an invalid dtype and for PYKRT_RECORD, whose
 * size is its record's. */
PYKRT_API size_t pykrt_dtype_size(pykrt_dtype dtype);

/* Numba's name ("float32", "bool", ...); "invalid" for an invalid dtype. */
PYKRT_API const char *pykrt_dtype_name(pykrt_dtype dtype);

typedef enum pykrt_layout {
    PYKRT_LAYOUT_A = 'A', /* any strides */
    PYKRT_LAYOUT_C = 'C', /* C-contiguous (row major), Numba's T[:, ::1] */
    PYKRT_LAYOUT_F = 'F'  /* Fortran-contiguous (column major), T[::1, :] */
} pykrt_layout;

/* An array in device memory, as a kernel parameter sees it: Numba's
 * data pointer, shape and strides (in bytes, may be negative or zero). */
typedef struct pykrt_array {
    pykrt_devptr data;
    pykrt_dtype dtype;
    int ndim;
    int64_t shape[PYKRT_MAX_NDIM];
    int64_t strides[PYKRT_MAX_NDIM];
    const pykrt_record *record; /* PYKRT_RECORD: the elements' layout; else NULL */
} pykrt_array;

/* Describes existing device memory as a contiguous array of `order`
 * (PYKRT_LAYOUT_C or PYKRT_LAYOUT_F): fills shape and computes strides. */
PYKRT_API pykrt_status pykrt_array_init(pykrt_array *out, pykrt_devptr data, pykrt_dtype dtype, int ndim,
                                        const int64_t *shape, pykrt_layout order);

/* pykrt_array_init for an array of records laid out as `record` (which
 * must outlive the descriptor): dtype PYKRT_RECORD, strides in record->size. */
PYKRT_API pykrt_status pykrt_array_init_record(pykrt_array *out, pykrt_devptr data, const pykrt_record *record,
                                               int ndim, const int64_t *shape, pykrt_layout order);

/* Shorthand for a 1-D array of n elements. */
PYKRT_API pykrt_status pykrt_array_1d(pykrt_array *out, pykrt_devptr data, pykrt_dtype dtype, int64_t n);

/* Allocates device memory for a C-contiguous array and describes it. */
PYKRT_API pykrt_status pykrt_array_alloc(pykrt_context *ctx, pykrt_dtype dtype, int ndim, const int64_t *shape,
                                         pykrt_array *out);

/* pykrt_array_alloc for an array of records laid out as `record`, e.g. the
 * layout pykrt_kernel_param reports for a kernel's record parameter. */
PYKRT_API pykrt_status pykrt_array_alloc_record(pykrt_context *ctx, const pykrt_record *record, int ndim,
                                                const int64_t *shape, pykrt_array *out);

/* Frees the array's memory (pykrt_array_alloc) and zeroes the descriptor. */
PYKRT_API pykrt_status pykrt_array_free(pykrt_context *ctx, pykrt_array *array);

/* Number of elements times element size, as NumPy's nbytes. */
PYKRT_API pykrt_status pykrt_array_nbytes(const pykrt_array *array, size_t *out);

/* Whether the array is contiguous in `order` (C or F), by NumPy's rule:
 * strides of length-1 dimensions do not matter, an empty array is both. */
PYKRT_API pykrt_status pykrt_array_is_contiguous(const pykrt_array *array, pykrt_layout order, bool *out);

/* Copies a contiguous array's whole contents from or to the host; `bytes`
 * must equal its nbytes. */
PYKRT_API pykrt_status pykrt_array_copy_from_host(pykrt_context *ctx, const pykrt_array *dst, const void *src,
                                                  size_t bytes);
PYKRT_API pykrt_status pykrt_array_copy_to_host(pykrt_context *ctx, void *dst, size_t bytes, const pykrt_array *src);

/* ------------------------------------------------------------------ */
/* Modules and kernels                                                 */
/* ------------------------------------------------------------------ */

typedef struct pykrt_module pykrt_module;
typedef struct pykrt_kernel pykrt_kernel;

/* Loads a module from its manifest (e.g. "vadd.yaml"). Of the manifest's
 * targets it picks the best for the device: the highest arch not above the
 * device's compute capability, a cubin only for the device's own major
 * version; it reads the target's file, relative to the manifest's
 * directory and within it (PYKRT_LOAD_ANY_PATH below), checks its digest,
 * and on a JIT failure the message carries the driver's error log. Only
 * regular files are read: the manifest at most 1 MiB, the image 1 GiB. */
PYKRT_API pykrt_status pykrt_module_load(pykrt_context *ctx, const char *manifest_path, pykrt_module **out);

/* Flags of pykrt_module_load_ex. */
#define PYKRT_LOAD_DEFAULT 0u
/* Let the manifest's targets name their files anywhere: absolute paths and
 * ".." components. Without it, a target's file must lie in the manifest's
 * directory or below, so that a manifest from an untrusted place cannot
 * make the program read another file (/etc/passwd); pass it only for
 * manifests you trust. */
#define PYKRT_LOAD_ANY_PATH 1u

/* pykrt_module_load with flags (PYKRT_LOAD_*). pykrt_module_load is this
 * with PYKRT_LOAD_DEFAULT. */
PYKRT_API pykrt_status pykrt_module_load_ex(pykrt_context *ctx, const char *manifest_path, unsigned flags,
                                            pykrt_module **out);

/* A target's bytes held in memory: `file` is the name the manifest's target
 * gives (e.g. "vadd.ptx"). */
typedef struct pykrt_image {
    const char *file;
    const void *data;
    size_t size;
} pykrt_image;

/* Loads a module embedded in the program: the manifest's text and the
 * images of (some of) its targets; the target is chosen among those given.
 * Sizes over the limits (1 MiB for the manifest, 1 GiB for an image) are
 * refused before they are used. */
PYKRT_API pykrt_status pykrt_module_load_memory(pykrt_context *ctx, const char *manifest, size_t manifest_len,
                                                const pykrt_image *images, size_t nimages, pykrt_module **out);

/* Checks that the module's kernels are the ones `digest` describes and
 * gives them, in the manifest's order, in kernels[0..nkernels) (kernels
 * NULL and nkernels 0: only checks). `digest` ("fnv1a64:" and 16 hex
 * digits) is the interface digest of the kernels' entries and parameter
 * types (docs/manifest.md): the one a header of `pykc --emit header` or
 * `--emit c` was generated for, whose loaders call this right after the
 * load, so that a header and a module compiled from different sources are
 * PYKRT_ERROR_STALE rather than launched with the wrong arguments.
 * nkernels other than the module's kernel count is
 * PYKRT_ERROR_INVALID_ARGUMENT. */
PYKRT_API pykrt_status pykrt_module_bind(pykrt_module *module, const char *digest, pykrt_kernel **kernels,
                                         size_t nkernels);

/* Unloads the module; its kernels become invalid. NULL is a no-op. */
PYKRT_API pykrt_status pykrt_module_unload(pykrt_module *module);

typedef struct pykrt_module_info {
    const char *manifest; /* its path, or "(embedded manifest)" */
    const char *compiler; /* the manifest's compiler field, "" if absent */
    const char *arch;     /* the target loaded, e.g. "sm_75" */
    const char *file;     /* its file name */
    bool cubin;           /* a cubin rather than PTX */
    size_t nkernels;
    size_t nconstants;
} pykrt_module_info;

/* What was loaded. The strings live as long as the module. */
PYKRT_API pykrt_status pykrt_module_describe(const pykrt_module *module, pykrt_module_info *out);

/* Finds a kernel by its source name: the first in the manifest of that
 * name (a kernel compiled for several --sig has an entry each, all of its
 * name: see pykrt_kernel_get_for_args). */
PYKRT_API pykrt_status pykrt_kernel_get(pykrt_module *module, const char *name, pykrt_kernel **out);

/* The index-th kernel of the module, in manifest order. */
PYKRT_API pykrt_status pykrt_kernel_at(pykrt_module *module, size_t index, pykrt_kernel **out);

/* A tuple parameter (UniTuple(float32, 3), Tuple((int32, float64))) takes
 * its scalars, nested tuples flattened in order, as Numba passes them. */
typedef enum pykrt_kind { PYKRT_KIND_SCALAR = 1, PYKRT_KIND_ARRAY = 2, PYKRT_KIND_TUPLE = 3 } pykrt_kind;

typedef enum pykrt_access { PYKRT_ACCESS_READ = 1, PYKRT_ACCESS_WRITE = 2, PYKRT_ACCESS_READWRITE = 3 } pykrt_access;

typedef struct pykrt_kernel_info {
    const char *name;  /* source name */
    const char *entry; /* PTX .entry name */
    size_t nparams;     /* source parameters */
    size_t nptx_params; /* PTX-level parameters */
    size_t shared_static;    /* bytes, as the driver reports */
    bool shared_dynamic;     /* uses cuda.shared.array(0, ...) */
    bool cooperative;        /* launched with cuLaunchCooperativeKernel */
    int max_threads;         /* the most threads per block it may be launched with */
    int registers;           /* per thread, as the driver reports */
    /* Another kernel's copy compiled for C-contiguous arrays (pykc makes
     * one of a kernel that takes T[:] arrays): launches of that kernel run
     * it where the arrays are contiguous; the lookups by name skip it. */
    bool contiguous_copy;
} pykrt_kernel_info;

/* The kernel's properties. The strings live as long as the module. */
PYKRT_API pykrt_status pykrt_kernel_describe(const pykrt_kernel *kernel, pykrt_kernel_info *out);

typedef struct pykrt_param_info {
    const char *name;
    pykrt_kind kind;
    pykrt_dtype dtype;   /* PYKRT_DTYPE_INVALID for a tuple */
    int ndim;            /* arrays only */
    pykrt_layout layout; /* arrays only */
    pykrt_access access;
    const pykrt_record *record; /* PYKRT_RECORD: the layout, living as long as the module */
    size_t nmembers;     /* tuples only: its scalars */
} pykrt_param_info;

/* The index-th source parameter of the kernel. */
PYKRT_API pykrt_status pykrt_kernel_param(const pykrt_kernel *kernel, size_t index, pykrt_param_info *out);

/* The member-th scalar of the index-th source parameter, a tuple: a
 * scalar parameter named NAME[member]. */
PYKRT_API pykrt_status pykrt_kernel_param_member(const pykrt_kernel *kernel, size_t index, size_t member,
                                                 pykrt_param_info *out);

/* The CUfunction, for code that calls the driver itself. */
PYKRT_API pykrt_status pykrt_kernel_handle(const pykrt_kernel *kernel, void **cufunction);

/* How many blocks of `block_threads` threads, each with
 * `dynamic_shared_bytes` of dynamic shared memory, can be resident at once
 * on one multiprocessor, given the kernel's registers and static shared
 * memory (cuOccupancyMaxActiveBlocksPerMultiprocessor). 0 when the block
 * cannot fit. block_threads must be from 1 to the kernel's
 * max_threads_per_block. Multiply by the device's sm_count for the whole
 * GPU. */
PYKRT_API pykrt_status pykrt_kernel_occupancy(const pykrt_kernel *kernel, int block_threads,
                                              size_t dynamic_shared_bytes, int *blocks_per_sm);

/* The block size that gives the kernel its highest occupancy with
 * `dynamic_shared_bytes` per block, whatever the block size, and the
 * fewest blocks that fill the GPU at it (cuOccupancyMaxPotentialBlockSize).
 * min_grid_blocks may be NULL. */
PYKRT_API pykrt_status pykrt_kernel_block_size(const pykrt_kernel *kernel, size_t dynamic_shared_bytes,
                                               int *block_threads, int *min_grid_blocks);

/* Copies `bytes` into the module's constant-memory symbol `name` (a
 * cuda.const.array_like); `bytes` must equal the symbol's size. */
PYKRT_API pykrt_status pykrt_constant_set(pykrt_module *module, const char *name, const void *src, size_t bytes);

/* Copies the constant-memory symbol `name` out; `bytes` must equal its size. */
PYKRT_API pykrt_status pykrt_constant_get(pykrt_module *module, const char *name, void *dst, size_t bytes);

/* ------------------------------------------------------------------ */
/* Launching                                                           */
/* ------------------------------------------------------------------ */

/* One launch argument: a scalar (its value's bytes, of its dtype), an
 * array (a pointer to a descriptor) or a tuple (a pointer to its members,
 * scalar arguments, one a scalar of the tuple); what is pointed to is read
 * during the launch call only. Make them with the pykrt_arg_* functions
 * below. */
typedef struct pykrt_arg {
    pykrt_kind kind;
    pykrt_dtype dtype; /* of the scalar */
    const pykrt_array *array;
    const struct pykrt_arg *members; /* of the tuple */
    size_t nmembers;
    union {
        unsigned char bytes[16]; /* little-endian value; complex: real then imag */
        uint64_t align_;
        double align_d_;
    } value;
} pykrt_arg;

/* Finds the kernel `name` whose parameters take these arguments, as
 * pykrt_launch checks them (count, kinds, dtypes, ndim, layout): a kernel
 * compiled for several --sig has one entry a signature, all of its source
 * name, and this picks the one that fits, preferring where several do the
 * one with more C- or F-layout array parameters, then the first in the
 * manifest. PYKRT_ERROR_NOT_FOUND, with what each entry of that name takes,
 * if none fits. The arguments are only read. */
PYKRT_API pykrt_status pykrt_kernel_get_for_args(pykrt_module *module, const char *name, const pykrt_arg *args,
                                                 size_t nargs, pykrt_kernel **out);

typedef struct pykrt_dim3 {
    uint32_t x, y, z; /* y or z left 0 count as 1 */
} pykrt_dim3;

typedef struct pykrt_launch_config {
    pykrt_dim3 grid;        /* blocks */
    pykrt_dim3 block;       /* threads per block */
    uint32_t shared_bytes;  /* dynamic shared memory */
    pykrt_stream *stream;   /* NULL: the default stream */
} pykrt_launch_config;

/* Launches `kernel` after checking the arguments against the manifest
 * (count; scalar, array or tuple; dtype, a record's layout field by field,
 * where PYKRT_XOROSHIRO128P is the record of pykrt_xoroshiro128p_record;
 * ndim; a tuple's member count and each member's dtype; layout: a C-layout
 * parameter refuses
 * an array that is not C-contiguous, F likewise) and each array for itself
 * (no negative shape; a data pointer other than 0 when it has elements;
 * the bytes its shape and strides reach, computed without overflow, within
 * the 64-bit address space), the grid and block against the device and
 * kernel limits, and the dynamic shared memory against the device limit
 * (raising the kernel's limit when more than the default is asked).
 * Cooperative kernels go through cuLaunchCooperativeKernel. */
PYKRT_API pykrt_status pykrt_launch(pykrt_kernel *kernel, const pykrt_launch_config *config,
                                    const pykrt_arg *args, size_t nargs);

/* The same without the checks of arguments and launch shape, for hot loops
 * whose arguments were checked once. Wrong arguments are undefined
 * behaviour on the device; the host side still refuses args NULL with a
 * count, too few arguments, a NULL array descriptor and a tuple with too
 * few members. */
PYKRT_API pykrt_status pykrt_launch_unchecked(pykrt_kernel *kernel, const pykrt_launch_config *config,
                                              const pykrt_arg *args, size_t nargs);

/* ------------------------------------------------------------------ */
/* Offline validation: a manifest without a driver                     */
/* ------------------------------------------------------------------ */

/* A manifest read for its kernels' interfaces only: no driver, context or
 * module is needed (libcuda.so.1 is never opened), so a program's launch
 * arguments can be checked on a machine without a GPU, in CI. */
typedef struct pykrt_manifest pykrt_manifest;
typedef struct pykrt_kernel_spec pykrt_kernel_spec; /* a kernel of a pykrt_manifest */

/* Reads and validates the manifest at `path` as pykrt_module_load does
 * (same limits and messages); its targets' files are not read. */
PYKRT_API pykrt_status pykrt_manifest_open(const char *path, pykrt_manifest **out);

/* Frees the manifest; its kernels become invalid. NULL is a no-op. */
PYKRT_API pykrt_status pykrt_manifest_close(pykrt_manifest *manifest);

/* The first kernel of that source name in the manifest (as
 * pykrt_kernel_get); PYKRT_ERROR_NOT_FOUND, listing the names, if none. */
PYKRT_API pykrt_status pykrt_manifest_kernel(const pykrt_manifest *manifest, const char *name,
                                             const pykrt_kernel_spec **out);

/* The index-th kernel, in manifest order (each --sig specialisation is one). */
PYKRT_API pykrt_status pykrt_manifest_kernel_at(const pykrt_manifest *manifest, size_t index,
                                                const pykrt_kernel_spec **out);

/* Checks a launch as pykrt_launch would, with the same code: the arguments
 * (everything pykrt_launch's comment lists) and, unless `config` is NULL,
 * the grid, block and shared memory. It returns the status pykrt_launch
 * would, and the same message but for its first word, pykrt_check_args for
 * pykrt_launch. With no device to ask, the shape is held to the limits of
 * every device (block 1024 x 1024 x 64 and 1024 threads, or the kernel's
 * max_threads; grid 2^31-1 x 65535 x 65535; 227 KiB of shared memory), so
 * what it refuses any GPU refuses; a launch may still exceed a given
 * device's smaller limits, need cooperative launch it lacks, or name a
 * stream of another context (config->stream is not looked at). */
PYKRT_API pykrt_status pykrt_check_args(const pykrt_kernel_spec *kernel, const pykrt_launch_config *config,
                                        const pykrt_arg *args, size_t nargs);

/* Argument constructors. */
static inline pykrt_arg pykrt_arg_scalar(pykrt_dtype dtype, const void *value, size_t size)
{
    pykrt_arg a;
    memset(&a, 0, sizeof a);
    a.kind = PYKRT_KIND_SCALAR;
    a.dtype = dtype;
    memcpy(a.value.bytes, value, size < sizeof a.value.bytes ? size : sizeof a.value.bytes);
    return a;
}

static inline pykrt_arg pykrt_arg_array(const pykrt_array *array)
{
    pykrt_arg a;
    memset(&a, 0, sizeof a);
    a.kind = PYKRT_KIND_ARRAY;
    a.dtype = array ? array->dtype : PYKRT_DTYPE_INVALID;
    a.array = array;
    return a;
}

/* A tuple: `members` scalar arguments, nested tuples flattened in order
 * (pykrt_kernel_param_member says each one's dtype). */
static inline pykrt_arg pykrt_arg_tuple(const pykrt_arg *members, size_t nmembers)
{
    pykrt_arg a;
    memset(&a, 0, sizeof a);
    a.kind = PYKRT_KIND_TUPLE;
    a.dtype = PYKRT_DTYPE_INVALID;
    a.members = members;
    a.nmembers = nmembers;
    return a;
}

static inline pykrt_arg pykrt_arg_bool(bool v) { uint8_t b = v ? 1 : 0; return pykrt_arg_scalar(PYKRT_BOOL, &b, 1); }
static inline pykrt_arg pykrt_arg_int8(int8_t v) { return pykrt_arg_scalar(PYKRT_INT8, &v, sizeof v); }
static inline pykrt_arg pykrt_arg_int16(int16_t v) { return pykrt_arg_scalar(PYKRT_INT16, &v, sizeof v); }
static inline pykrt_arg pykrt_arg_int32(int32_t v) { return pykrt_arg_scalar(PYKRT_INT32, &v, sizeof v); }
static inline pykrt_arg pykrt_arg_int64(int64_t v) { return pykrt_arg_scalar(PYKRT_INT64, &v, sizeof v); }
static inline pykrt_arg pykrt_arg_uint8(uint8_t v) { return pykrt_arg_scalar(PYKRT_UINT8, &v, sizeof v); }
static inline pykrt_arg pykrt_arg_uint16(uint16_t v) { return pykrt_arg_scalar(PYKRT_UINT16, &v, sizeof v); }
static inline pykrt_arg pykrt_arg_uint32(uint32_t v) { return pykrt_arg_scalar(PYKRT_UINT32, &v, sizeof v); }
static inline pykrt_arg pykrt_arg_uint64(uint64_t v) { return pykrt_arg_scalar(PYKRT_UINT64, &v, sizeof v); }
/* float16 travels as its IEEE binary16 bits. */
static inline pykrt_arg pykrt_arg_float16_bits(uint16_t bits) { return pykrt_arg_scalar(PYKRT_FLOAT16, &bits, 2); }
/* bfloat16 travels as its bits: a float32's upper half, rounded. */
static inline pykrt_arg pykrt_arg_bfloat16_bits(uint16_t bits) { return pykrt_arg_scalar(PYKRT_BFLOAT16, &bits, 2); }
static inline pykrt_arg pykrt_arg_float32(float v) { return pykrt_arg_scalar(PYKRT_FLOAT32, &v, sizeof v); }
static inline pykrt_arg pykrt_arg_float64(double v) { return pykrt_arg_scalar(PYKRT_FLOAT64, &v, sizeof v); }

static inline pykrt_arg pykrt_arg_complex64(float re, float im)
{
    float v[2];
    v[0] = re;
    v[1] = im;
    return pykrt_arg_scalar(PYKRT_COMPLEX64, v, sizeof v);
}

static inline pykrt_arg pykrt_arg_complex128(double re, double im)
{
    double v[2];
    v[0] = re;
    v[1] = im;
    return pykrt_arg_scalar(PYKRT_COMPLEX128, v, sizeof v);
}

/* ------------------------------------------------------------------ */
/* Random numbers                                                      */
/* ------------------------------------------------------------------ */

/* One xoroshiro128+ generator state, numba.cuda.random's record layout. */
typedef struct pykrt_xoroshiro128p {
    uint64_t s0, s1;
} pykrt_xoroshiro128p;

/* Fills `states[0..n)` on the host exactly as Numba's
 * create_xoroshiro128p_states(n, seed, subsequence_start) does: state 0 from
 * `seed` through SplitMix64, jumped 2**64 steps `subsequence_start` times;
 * each next state the previous one jumped 2**64 steps. */
PYKRT_API pykrt_status pykrt_random_states_host(pykrt_xoroshiro128p *states, size_t n, uint64_t seed,
                                                uint64_t subsequence_start);

/* Makes the same states in new device memory, described as a 1-D array of
 * dtype PYKRT_XOROSHIRO128P; the copy is done when the call returns. Free
 * it with pykrt_array_free. */
PYKRT_API pykrt_status pykrt_random_states_create(pykrt_context *ctx, size_t n, uint64_t seed,
                                                  uint64_t subsequence_start, pykrt_stream *stream,
                                                  pykrt_array *out);

#ifdef __cplusplus
}
#endif

#endif /* PYKRT_H */
