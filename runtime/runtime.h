/*
 * runtime.h - libpykrt's internal header, one section per file. Internal
 * functions are prefixed pk_; the build keeps them out of the libraries'
 * exported symbols (hidden visibility in libpykrt.so, localized in
 * libpykrt.a), so only pykrt_* reaches the user's namespace.
 */
#ifndef PYKRT_RUNTIME_H
#define PYKRT_RUNTIME_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pykrt.h"
#include "cuda_abi.h"

#if defined(__GNUC__)
#define PK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define PK_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define PK_PRINTF(f, a)
#define PK_UNLIKELY(x) (x)
#endif

/* Manifests larger than this are refused before parsing: a real one is a
 * few kilobytes, and libyaml's document tree costs ~100 bytes a node. */
#define PK_MANIFEST_MAX_BYTES (1u << 20)

/* Images (PTX or cubin) larger than this are refused before reading. */
#define PK_IMAGE_MAX_BYTES ((size_t)1 << 30)

/* The most PTX-level parameters a kernel may have; the launch path keeps
 * one pointer per parameter on the stack. */
#define PK_MAX_PTX_PARAMS 512

/* ---- error.c: the per-thread message ---- */

/* Formats the thread's message and returns `status`. */
pykrt_status pk_fail(pykrt_status status, const char *fmt, ...) PK_PRINTF(2, 3);

/* Appends to the thread's message (e.g. a JIT log). */
void pk_append(const char *fmt, ...) PK_PRINTF(1, 2);

/* The thread's message buffer (read by tests and pykrt_last_error). */
const char *pk_message(void);

/* ---- handle.c: the objects behind handles ---- */

/* ORDER KIND: handle.c's table of kinds follows this order. */
typedef enum pk_kind { PK_CONTEXT, PK_MODULE, PK_KERNEL, PK_STREAM, PK_EVENT, PK_GRAPH, PK_KINDS } pk_kind;

/* The first member of every object a handle points to. */
typedef struct pk_obj {
    uint32_t magic; /* of its kind while alive, 0 once destroyed */
    struct pk_obj *next;
} pk_obj;

/* A zeroed object of `kind`, alive; NULL when out of memory. */
void *pk_obj_new(pk_kind kind);

/* Marks the object destroyed and keeps its memory for a later object of
 * the same kind. */
void pk_obj_release(void *obj, pk_kind kind);

/* Whether `obj` is a live object of `kind` (false for NULL). */
bool pk_alive(const void *obj, pk_kind kind);

/* The error for a handle that is not alive: PYKRT_ERROR_INVALID_HANDLE. */
pykrt_status pk_dead(const char *what, pk_kind kind);

/* Destroyed objects of `kind` held for reuse (tests). */
size_t pk_pool_count(pk_kind kind);

/* ---- driver.c: the driver table, devices, contexts ---- */

#define PK_REQUIRED true
#define PK_OPTIONAL false

#define PK_DRIVER_FIELD(member, sym, fallback, required, params) CUresult (*member) params;
typedef struct pk_driver {
    PK_DRIVER_API(PK_DRIVER_FIELD)
} pk_driver;
#undef PK_DRIVER_FIELD

/* Filled once by pk_driver_load or pk_host_select, read-only after. */
extern pk_driver pk_drv;

/* Loads the driver (once) and returns its status, setting the message on
 * failure. Every entry point calls it before touching pk_drv. With
 * $PYKRT_DEVICE=host, "the driver" is the host device's (host.c). */
pykrt_status pk_driver_load(void);

/* Makes the host device the process's device, unless the CUDA driver is
 * loaded already (PYKRT_ERROR_NOT_SUPPORTED); `what` names the caller. */
pykrt_status pk_host_select(const char *what);

/* Whether pk_drv holds the host device's entry points. */
bool pk_on_host(void);

/* Turns a failed CUresult into a status and the message
 * "<what>: <call> failed: <NAME>: <description>", `what` formatted from
 * what_fmt (e.g. "pykrt_launch(%s)" and the kernel's name). */
pykrt_status pk_cuda_fail(CUresult res, const char *call, const char *what_fmt, ...) PK_PRINTF(3, 4);

/* ORDER LIVE: driver.c's names of these follow this order. */
typedef enum pk_live {
    PK_LIVE_MODULE,
    PK_LIVE_STREAM,
    PK_LIVE_EVENT,
    PK_LIVE_DEVICE_MEMORY,
    PK_LIVE_HOST_MEMORY,
    PK_LIVE_GRAPH,
    PK_LIVE_KINDS
} pk_live;

struct pykrt_context {
    pk_obj obj;
    CUcontext cu;
    CUdevice dev;
    pykrt_device_info info;
    /* What was made through this context and not yet destroyed or freed:
     * pykrt_context_destroy refuses while any is alive. */
    _Atomic long live[PK_LIVE_KINDS];
};

/* Counts one more, or one less (never below 0: memory that pykrt did
 * not allocate may be freed through it), of `what` on ctx. */
void pk_live_add(pykrt_context *ctx, pk_live what);
void pk_live_sub(pykrt_context *ctx, pk_live what);

/* Makes ctx current on this thread if it is not yet: primary contexts are
 * current per thread, and a pykrt object may be used from any thread. */
CUresult pk_bind(const pykrt_context *ctx);

/* The common prologue of calls that take a context: checks ctx is a live
 * context and binds it; `what` names the caller in messages. */
pykrt_status pk_enter(const pykrt_context *ctx, const char *what);

/* ---- host.c: the host device's driver (host_module.c and host_sched.c
 * are its modules and its launches; host.h is theirs) ---- */

/* pykrt's own JIT option, which only the host device's cuModuleLoadDataEx
 * reads: the image's size in bytes (a shared object, unlike PTX, has no
 * terminator to find its end by). */
#define PK_JIT_HOST_IMAGE_BYTES ((CUjit_option)0x706b0001)

/* Fills `d` with the host device's entry points; false, with the reason in
 * `why`, where the environment ($PYKRT_HOST_THREADS) is wrong. */
bool pk_host_install(pk_driver *d, char *why, size_t size);

/* How well this CPU runs code built for the host target `arch`
 * (x86-64-v2 ...): -1 not at all, else higher for a newer level. */
int pk_host_arch_rank(const char *arch);

/* ---- file.c: reading the manifest and image files ---- */

/* Reads the regular file `path` whole, plus a terminating NUL, into a
 * malloc'd buffer; a file larger than `limit` is the error `too_big`,
 * anything else than a regular file PYKRT_ERROR_IO, both found before
 * reading. `what` names the caller in messages. */
pykrt_status pk_read_file(const char *path, size_t limit, pykrt_status too_big, const char *what, char **out,
                          size_t *len);

/* The path of a target's `file` (or a linked file's), relative to the
 * manifest's directory, in a malloc'd string. Unless `any_path`, a file
 * that could lie outside that directory (absolute, or with a ".."
 * component) is PYKRT_ERROR_MANIFEST. */
pykrt_status pk_image_path(const char *manifest_path, const char *file, bool any_path, const char *what, char **out);

/* ---- manifest.c: the manifest reader ---- */

typedef enum pk_part { PK_PART_DATA, PK_PART_SHAPE, PK_PART_STRIDES, PK_PART_VALUE, PK_PART_REAL, PK_PART_IMAG } pk_part;

typedef struct pk_param {
    const char *name;
    pykrt_kind kind;
    pykrt_dtype dtype;   /* PYKRT_DTYPE_INVALID for a tuple */
    int ndim;
    pykrt_layout layout;
    pykrt_access access;
    const pykrt_record *record; /* PYKRT_RECORD: its layout */
    struct pk_param *members; /* a tuple: its scalars, each a scalar parameter */
    size_t nmembers;
} pk_param;

typedef struct pk_ptx_param {
    const char *type; /* PTX type without the dot: u64, f32, b8 ... */
    uint32_t size;
    uint32_t align;
    uint32_t param; /* index into the kernel's params */
    uint32_t member; /* a tuple's: index into its members */
    pk_part part;
    uint32_t dim;   /* for shape[i] and strides[i] */
} pk_ptx_param;

typedef struct pk_kernel {
    const char *name;
    const char *entry;
    const char *contiguous; /* "" if none */
    pk_param *params;
    size_t nparams;
    pk_ptx_param *ptx;
    size_t nptx;
    uint64_t shared_static;
    bool shared_dynamic;
    int64_t max_threads;
    int64_t registers;
    int64_t carveout; /* shared_memory_carveout: -1 (the driver's choice) to 100 */
    bool cooperative;
    bool debug;   /* debug=True */
    bool reports; /* debug=True or checks: a launch reports what a thread raised */
    /* `contiguous`: its copy compiled for C-contiguous arrays, which a
     * launch runs where every argument of its layout-A arrays that the copy
     * takes C-contiguous is so; NULL if none. */
    struct pk_kernel *copy;
    bool is_copy; /* another kernel's copy */
} pk_kernel;

enum { PK_EXC_RAISE, PK_EXC_BOUNDS, PK_EXC_DIV0 };

/* What a debug=True or checked kernel's thread raised, by its code: a
 * raise or assert, or a failed check (kind), whose values are in
 * pykc_exception_detail. */
typedef struct pk_exception {
    int64_t code;
    int kind; /* PK_EXC_* */
    const char *type, *message, *function, *file; /* message "" when none */
    int64_t line, column;
} pk_exception;

typedef struct pk_target {
    const char *arch; /* as written: sm_75, sm_90a, x86-64-v2 */
    bool host;        /* kind host: a shared object for the host device */
    int sm;           /* 75, 90; 0 for a host target */
    char variant;     /* 0, 'a' (this exact arch only) or 'f' (this family) */
    const char *ptx_version;
    bool cubin;
    const char *file;
    uint64_t digest;
} pk_target;

/* What a file of the manifest's `link` holds: ORDER as the manifest's names. */
typedef enum pk_link_kind { PK_LINK_PTX, PK_LINK_CUBIN, PK_LINK_FATBIN, PK_LINK_OBJECT, PK_LINK_LIBRARY } pk_link_kind;

/* A file the module's code is linked with at load. */
typedef struct pk_link {
    const char *file; /* relative to the manifest, as a target's */
    pk_link_kind kind;
    uint64_t digest;
} pk_link;

typedef struct pk_constant {
    const char *name;
    pykrt_dtype dtype;
    int64_t *shape;
    size_t ndim;
    uint64_t size;
} pk_constant;

typedef struct pk_manifest {
    int64_t format;
    const char *compiler;
    const char *source_path;
    pk_target *targets;
    size_t ntargets;
    pk_link *links;
    size_t nlinks;
    bool device_runtime; /* kernels launch kernels: link CUDA's libcudadevrt.a */
    pk_kernel *kernels;
    size_t nkernels;
    pk_constant *constants;
    size_t nconstants;
    pk_exception *exceptions;
    size_t nexceptions;
    struct pk_chunk *arena;
} pk_manifest;

/* After a launch of debug=True kernel k on `stream`: waits for it, and
 * reports what one of its threads raised as PYKRT_ERROR_KERNEL_EXCEPTION. */
pykrt_status pk_check_exception(pykrt_kernel *k, CUstream stream, const char *what);

/* Parses and validates manifest text; `name` is used in messages. */
pykrt_status pk_manifest_parse(const char *text, size_t len, const char *name, pk_manifest **out);
void pk_manifest_free(pk_manifest *m);

/* FNV-1a, 64 bits: the manifest's staleness digest. */
uint64_t pk_fnv1a64(const void *data, size_t len);

/* "fnv1a64:" and 16 lowercase hex digits into *out; false if s is not one. */
bool pk_parse_digest(const char *s, uint64_t *out);

/* The digest of the kernels' interface (docs/manifest.md, Interface
 * digest): FNV-1a of each kernel's entry and parameter types, the text
 * pykc's generated headers were made from. */
uint64_t pk_interface_digest(const pk_manifest *m);

/* The dtype named by Numba's name, or PYKRT_DTYPE_INVALID. */
pykrt_dtype pk_dtype_from_name(const char *name);

/* Records nest at most this deep (the manifest's YAML nesting bounds it). */
#define PK_RECORD_DEPTH 32
/* An array's element size: its record's for PYKRT_RECORD (0 without one). */
size_t pk_itemsize(const pykrt_array *a);
/* The layout of an array's records: its own, or xoroshiro128p's; else NULL. */
const pykrt_record *pk_array_record(const pykrt_array *a);
/* Whether two layouts are the same dtype: size, and every field's name,
 * dtype, offset, shape and nested layout. */
bool pk_record_same(const pykrt_record *a, const pykrt_record *b, int depth);
void pk_record_describe(const pykrt_record *r, char *out, size_t size);

/* ---- module.c: modules, kernels, constants ---- */

/* One PTX parameter of the launch plan: where its bytes are in the
 * argument (the pykrt_array for arrays, pykrt_arg.value for scalars). */
typedef struct pk_slot {
    uint32_t param;
    uint32_t member; /* of a tuple: which of pykrt_arg.members */
    uint32_t offset;
    bool array;
    bool tuple;
} pk_slot;

struct pykrt_kernel {
    pk_obj obj;
    pykrt_module *module;
    const pk_kernel *desc;
    CUfunction fn;
    pk_slot *slots;        /* desc->nptx of them */
    int max_threads;       /* from the driver, capped by the manifest's hint */
    uint32_t shared_static;
    /* Dynamic shared memory the kernel may use now; raised (under the
     * module's dyn_lock) with cuFuncSetAttribute when a launch asks for more
     * than the default. Never lowered, so a launch that read a large enough
     * value can go ahead without the lock. */
    _Atomic uint32_t dyn_limit;
    int registers;
    /* The kernel of desc->copy; NULL if none. */
    pykrt_kernel *contiguous;
    /* Neither the driver nor the PTX could confirm the parameter count
     * (a cubin on a driver without cuFuncGetParamInfo). */
    bool unverified;
};

/* Raises the kernel's dynamic shared memory limit to `bytes` (module.c). */
pykrt_status pk_raise_dyn_limit(pykrt_kernel *k, uint32_t bytes, const char *what);

struct pykrt_module {
    pk_obj obj;
    pykrt_context *ctx;
    CUmodule cu;
    pk_manifest *mf;
    const pk_target *target;
    pykrt_kernel **kernels; /* mf->nkernels of them, each its own object */
    CUdeviceptr exception, exception_thread; /* pykc_exception and its thread; 0 if none */
    CUdeviceptr exception_detail;            /* a failed check's values; 0 if no checks */
    char *name; /* manifest path, for messages */
    pthread_mutex_t dyn_lock;
};

/* ---- link.c: modules that link other code ---- */

/* Where a load finds the files of the manifest's `link`: beside the
 * manifest (manifest_path; any_path as PYKRT_LOAD_ANY_PATH), or among the
 * images of pykrt_module_load_memory (manifest_path NULL). */
typedef struct pk_link_source {
    const char *manifest_path;
    bool any_path;
    const pykrt_image *images;
    size_t nimages;
} pk_link_source;

/* Whether the module's code is linked with other code before it loads. */
bool pk_needs_link(const pk_manifest *mf);

/* Links the target's code `image` (NUL-terminated past `size`) with the
 * manifest's link files and, where it asks, CUDA's device runtime, and
 * loads the result into m->cu. */
pykrt_status pk_link_module(pykrt_module *m, const char *image, size_t size, const pk_link_source *src);

/* ---- ptx.c: the entry's own parameters ---- */

/* An entry's parameter list as its PTX declares it. */
typedef struct pk_ptx_entry {
    size_t count;                     /* parameters declared */
    uint32_t size[PK_MAX_PTX_PARAMS]; /* bytes of each of the first ones; 0 if unknown */
} pk_ptx_entry;

/* Finds `.entry name` in the PTX text and reads its parameter list; false
 * if the text has no such entry, or one this reader does not follow. */
bool pk_ptx_read_entry(const char *ptx, size_t len, const char *name, pk_ptx_entry *out);

/* Checks the kernel's ptx_params against its entry's parameters (count and
 * sizes), as the driver reports them and, for PTX, as `image` declares
 * them; sets k->unverified where neither can tell. */
pykrt_status pk_check_entry(pykrt_kernel *k, const char *image, size_t size);

/* ---- memory.c: dtypes and arrays ---- */

bool pk_is_contiguous(const pykrt_array *a, pykrt_layout order);

/* Why the bytes an array's elements reach, [data + lowest offset, data +
 * highest offset + item size), cannot be addressed, or NULL: computed
 * without overflow from a descriptor whose dtype, ndim (within
 * PYKRT_MAX_NDIM) and shape (not negative) are known good. */
const char *pk_extent_problem(const pykrt_array *a);

/* ---- launch.c: the checks of a launch, shared with offline.c ---- */

/* Grid and block with y and z left 0 counted as 1. */
typedef struct pk_shape {
    unsigned g[3], b[3];
} pk_shape;

void pk_normalize(const pykrt_launch_config *cfg, pk_shape *s);

/* The limits a launch shape is checked against, and whose they are in
 * messages ("more than the device's 64"). */
typedef struct pk_limits {
    const pykrt_device_info *dev; /* max_block_dim, max_grid_dim, max_shared_per_block_optin */
    const char *whose; /* "the device's" */
    int max_threads; /* per block, for this kernel */
    uint64_t shared_static;
} pk_limits;

/* The arguments against the kernel's parameters; `what` names the caller
 * in messages. */
pykrt_status pk_check_args(const pk_kernel *d, const pykrt_arg *args, size_t nargs, const char *what);

/* Grid, block and shared memory against `lim`. */
pykrt_status pk_check_shape(const pk_kernel *d, const pk_limits *lim, const pykrt_launch_config *cfg,
                            const pk_shape *s, const char *what);

/* ---- stream.c ---- */

struct pykrt_stream {
    pk_obj obj;
    pykrt_context *ctx;
    CUstream cu;
    bool borrowed; /* pykrt_stream_wrap's: its owner destroys it */
};

struct pykrt_event {
    pk_obj obj;
    pykrt_context *ctx;
    CUevent cu;
};

/* ---- graph.c ---- */

struct pykrt_graph {
    pk_obj obj;
    pykrt_context *ctx;
    CUgraph cu;
    CUgraphExec exec;
};

/* PYKRT_ERROR_BAD_LAUNCH when `stream` (NULL: the default stream) is
 * capturing into a graph: a launch that waits for its stream (a debug=True
 * kernel's, to read its exception record) must not run there. */
pykrt_status pk_refuse_capture(CUstream stream, const char *what, const char *kernel);

/* Whether `stream` (NULL: the default stream) is capturing into a graph. */
bool pk_stream_capturing(const pykrt_stream *stream);

#endif /* PYKRT_RUNTIME_H */
