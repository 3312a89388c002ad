/*
 * host_sched.c - the host device's launches: blocks over a pool of worker
 * threads, and a block's threads over one worker.
 *
 * A launch's blocks are claimed one at a time (an atomic counter) by the
 * calling thread and the pool's workers, created at the first launch of
 * more than one block and kept for the process: the caller works too, so a
 * pool of N-1 workers gives N blocks at once, and a launch of one block
 * never wakes the pool. cuLaunchKernel returns when every block has
 * finished, so launches on any stream run in order.
 *
 * A cooperative launch (a grid barrier, cuda.cg.this_grid().sync()) runs
 * every block at once instead, each on a thread of its own: a block whose
 * threads all wait at the grid barrier waits for the other blocks there.
 *
 * A worker runs whole blocks. The threads of a block are coroutines of the
 * module (host_abi.h): each is started in turn and runs until it finishes
 * or suspends at a barrier or a warp exchange; then rounds follow, each
 * resuming every thread that is not waiting at a barrier, until all have
 * finished. When every unfinished thread waits at a barrier, the barrier
 * is released first: a barrier that threads have left by finishing does
 * not wait for them, as on a GPU. A kernel that never suspends costs one
 * call per thread. The scheduler cannot wait forever: each round resumes
 * at least one thread.
 *
 * What a block needs (thread records, coroutine handles, warp slots, live
 * masks, the dynamic shared memory) is each worker's scratch, grown when a
 * launch needs more and kept for the next.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"

/* ---- the number of workers ---- */

static int workers = 1;

static int online_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 && n < 65536 ? (int)n : 1;
}

bool pk_host_sched_init(char *why, size_t size)
{
    const char *env = getenv("PYKRT_HOST_THREADS");
    if (!env || !*env) {
        workers = online_cpus();
        return true;
    }
    char *end;
    errno = 0;
    long n = strtol(env, &end, 10);
    if (errno || *end || n < 1 || n > 4096) {
        snprintf(why, size, "PYKRT_HOST_THREADS is '%.40s': it takes the number of worker threads, 1 to 4096", env);
        return false;
    }
    workers = (int)n;
    return true;
}

int pk_host_workers(void)
{
    return workers;
}

/* ---- warp votes ---- */

uint32_t pk_host_warp_vote(uint32_t op, const int64_t *warp_slots, uint32_t lane, uint32_t mask, uint32_t live)
{
    uint32_t lanes = mask & live, set = 0, like_lane = 0, like_first = 0;
    int64_t mine = warp_slots[lane & 31], first = lanes ? warp_slots[__builtin_ctz(lanes)] : 0;
    for (unsigned i = 0; i < 32; i++) {
        if (!(lanes >> i & 1))
            continue;
        set |= (uint32_t)(warp_slots[i] != 0) << i;
        like_lane |= (uint32_t)(warp_slots[i] == mine) << i;
        like_first |= (uint32_t)(warp_slots[i] == first) << i;
    }
    switch (op) {
    case PYKRT_HOST_VOTE_ALL:
        return set == lanes;
    case PYKRT_HOST_VOTE_ANY:
        return set != 0;
    case PYKRT_HOST_VOTE_EQ:
        return set == 0 || set == lanes;
    case PYKRT_HOST_VOTE_BALLOT:
        return set;
    case PYKRT_HOST_VOTE_MATCH_ANY:
        return like_lane;
    case PYKRT_HOST_VOTE_MATCH_ALL:
        return like_first == lanes ? lanes : 0;
    default:
        return 0;
    }
}

/* ---- a launch ---- */

/* The grid barrier of a cooperative launch, whose blocks each run on a
 * thread of their own: a block that finished no longer counts. */
typedef struct grid_barrier {
    pthread_mutex_t lock;
    pthread_cond_t passed;
    unsigned expected; /* blocks not finished */
    unsigned arrived;
    unsigned long generation;
} grid_barrier;

typedef struct run {
    const pk_host_func *f;
    grid_barrier *grid;    /* a cooperative launch's, else NULL */
    pk_host_shape shape;
    void **params;
    uint64_t nblocks;
    unsigned nthreads, nwarps;
    _Atomic uint64_t next; /* the next block to claim */
    _Atomic int error;     /* a CUresult: a block could not run */
    int users;             /* threads working on it: under pool.lock */
    bool queued;           /* in pool.queue: under pool.lock */
    struct run *next_run;
} run;

/* ---- a worker's scratch ---- */

typedef struct scratch {
    pykrt_host_block block;
    pykrt_host_thread *threads;
    void **handles; /* NULL once the thread finished */
    unsigned cap_threads, cap_warps;
    size_t cap_shared;
    unsigned laid_out[3]; /* the block shape threads[] was set up for */
} scratch;

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;

static void scratch_free(void *p)
{
    scratch *s = p;
    free(s->threads);
    free(s->handles);
    free(s->block.slots);
    free(s->block.live);
    free(s->block.dynamic_shared);
    free(s);
}

static void scratch_key_make(void)
{
    pthread_key_create(&scratch_key, scratch_free);
}

/* The calling thread's scratch, freed when the thread exits. */
static scratch *my_scratch(void)
{
    pthread_once(&scratch_once, scratch_key_make);
    scratch *s = pthread_getspecific(scratch_key);
    if (!s && (s = calloc(1, sizeof *s)) && pthread_setspecific(scratch_key, s) != 0) {
        free(s);
        s = NULL;
    }
    return s;
}

/* realloc of count elements, NULL on failure (old block kept). */
static void *resize(void *p, size_t count, size_t size)
{
    return realloc(p, count * size);
}

static bool grow_shared(scratch *s, size_t bytes)
{
    if (bytes <= s->cap_shared)
        return true;
    void *p = NULL;
    if (posix_memalign(&p, 16, bytes) != 0)
        return false;
    free(s->block.dynamic_shared);
    s->block.dynamic_shared = p;
    s->cap_shared = bytes;
    return true;
}

static bool reserve_threads(scratch *s, unsigned n)
{
    pykrt_host_thread *t = resize(s->threads, n, sizeof *t);
    if (t)
        s->threads = t;
    void **h = t ? resize(s->handles, n, sizeof *h) : NULL;
    if (!h)
        return false;
    s->handles = h;
    s->cap_threads = n;
    s->laid_out[0] = 0;
    return true;
}

static bool reserve_warps(scratch *s, unsigned n)
{
    int64_t *slots = resize(s->block.slots, (size_t)n * 32, sizeof *slots);
    if (slots)
        s->block.slots = slots;
    uint32_t *live = slots ? resize(s->block.live, n, sizeof *live) : NULL;
    if (!live)
        return false;
    s->block.live = live;
    s->cap_warps = n;
    return true;
}

/* Room for a block of r: at least 16 bytes of shared memory, so that the
 * pointer is never NULL. */
static bool reserve(scratch *s, const run *r)
{
    return (r->nthreads <= s->cap_threads || reserve_threads(s, r->nthreads)) &&
           (r->nwarps <= s->cap_warps || reserve_warps(s, r->nwarps)) &&
           grow_shared(s, r->shape.shared ? r->shape.shared : 16);
}

/* Readies the scratch for the launch's blocks: room, and each thread's
 * index where the block shape changed. */
static bool prepare(scratch *s, const run *r)
{
    if (!reserve(s, r))
        return false;
    const unsigned *b = r->shape.block;
    pykrt_host_block *blk = &s->block;
    memcpy(blk->block_dim, b, sizeof blk->block_dim);
    memcpy(blk->grid_dim, r->shape.grid, sizeof blk->grid_dim);
    blk->thread_count = r->nthreads;
    blk->warp_vote = pk_host_warp_vote;
    if (memcmp(s->laid_out, b, sizeof s->laid_out) == 0)
        return true;
    for (unsigned i = 0; i < r->nthreads; i++) {
        pykrt_host_thread *t = &s->threads[i];
        t->thread_idx[0] = i % b[0];
        t->thread_idx[1] = i / b[0] % b[1];
        t->thread_idx[2] = i / (b[0] * b[1]);
        t->linear = i;
        t->reserved = 0;
        t->block = blk;
    }
    memcpy(s->laid_out, b, sizeof s->laid_out);
    return true;
}

/* ---- a block ---- */

static void block_begin(scratch *s, const run *r, uint64_t index)
{
    pykrt_host_block *b = &s->block;
    const unsigned *g = r->shape.grid;
    b->block_idx[0] = (uint32_t)(index % g[0]);
    b->block_idx[1] = (uint32_t)(index / g[0] % g[1]);
    b->block_idx[2] = (uint32_t)(index / ((uint64_t)g[0] * g[1]));
    b->vote_count = 0, b->vote_and = 1, b->vote_or = 0;
    b->result_count = 0, b->result_and = 0, b->result_or = 0;
    for (unsigned w = 0; w < r->nwarps; w++) {
        unsigned lanes = r->nthreads - w * 32;
        b->live[w] = lanes >= 32 ? 0xffffffffu : (1u << lanes) - 1;
    }
    memset(b->slots, 0, (size_t)r->nwarps * 32 * sizeof(int64_t));
}

static void finished(scratch *s, unsigned i)
{
    s->handles[i] = NULL;
    s->block.live[i / 32] &= ~(1u << (i % 32));
}

/* Starts every thread; returns how many suspended. A kernel that never
 * suspends runs its block in one call of ENTRY.block. */
static unsigned start_threads(scratch *s, const run *r)
{
    const pk_host_module *m = r->f->module;
    unsigned pending = 0;
    if (r->f->block) {
        r->f->block(r->params, s->threads, r->nthreads);
        return 0;
    }
    for (unsigned i = 0; i < r->nthreads; i++) {
        s->threads[i].wait = PYKRT_HOST_RUNNING;
        m->enter(&s->threads[i]);
        if ((s->handles[i] = r->f->entry(r->params)))
            pending++;
        else
            finished(s, i);
    }
    return pending;
}

/* Whether every unfinished thread waits at a barrier of this kind. */
static bool all_at(const scratch *s, unsigned n, uint32_t kind)
{
    for (unsigned i = 0; i < n; i++)
        if (s->handles[i] && s->threads[i].wait != kind)
            return false;
    return true;
}

/* Opens the barrier for everyone waiting at it (g->lock held). */
static void grid_open(grid_barrier *g)
{
    g->arrived = 0;
    g->generation++;
    pthread_cond_broadcast(&g->passed);
}

/* The block waits until every unfinished block is at the grid barrier. */
static void grid_wait(grid_barrier *g)
{
    pthread_mutex_lock(&g->lock);
    unsigned long generation = g->generation;
    if (++g->arrived == g->expected)
        grid_open(g);
    else
        while (generation == g->generation)
            pthread_cond_wait(&g->passed, &g->lock);
    pthread_mutex_unlock(&g->lock);
}

/* A block that finished: the others no longer wait for it. */
static void grid_leave(grid_barrier *g)
{
    pthread_mutex_lock(&g->lock);
    g->expected--;
    if (g->arrived && g->arrived == g->expected)
        grid_open(g);
    pthread_mutex_unlock(&g->lock);
}

/* Lets every thread past the barrier, with the votes they cast at it. */
static void release_barrier(scratch *s, unsigned n)
{
    pykrt_host_block *b = &s->block;
    b->result_count = b->vote_count, b->result_and = b->vote_and, b->result_or = b->vote_or;
    b->vote_count = 0, b->vote_and = 1, b->vote_or = 0;
    for (unsigned i = 0; i < n; i++)
        if (s->handles[i])
            s->threads[i].wait = PYKRT_HOST_RUNNING;
}

/* Resumes the suspended threads round after round until all finished. */
static void run_rounds(scratch *s, const run *r, unsigned pending)
{
    const pk_host_module *m = r->f->module;
    while (pending) {
        if (all_at(s, r->nthreads, PYKRT_HOST_AT_BARRIER)) {
            release_barrier(s, r->nthreads);
        } else if (r->grid && all_at(s, r->nthreads, PYKRT_HOST_AT_GRID)) {
            grid_wait(r->grid);
            release_barrier(s, r->nthreads);
        }
        for (unsigned i = 0; i < r->nthreads; i++) {
            uint32_t wait = s->threads[i].wait;
            if (!s->handles[i] || wait == PYKRT_HOST_AT_BARRIER || wait == PYKRT_HOST_AT_GRID)
                continue;
            m->enter(&s->threads[i]);
            if (m->resume(s->handles[i])) {
                finished(s, i);
                pending--;
            }
        }
    }
}

static void run_block(scratch *s, const run *r, uint64_t index)
{
    block_begin(s, r, index);
    unsigned pending = start_threads(s, r);
    if (pending)
        run_rounds(s, r, pending);
}

/* Claims and runs blocks until none is left. A thread without room for
 * a block counts its blocks as failed rather than leave them unclaimed. */
static void work_on(run *r)
{
    scratch *s = my_scratch();
    bool ready = false;
    for (;;) {
        uint64_t i = atomic_fetch_add(&r->next, 1);
        if (i >= r->nblocks)
            return;
        if (!ready && !(ready = s && prepare(s, r))) {
            atomic_store(&r->error, CUDA_ERROR_OUT_OF_MEMORY);
            continue;
        }
        run_block(s, r, i);
    }
}

/* ---- the pool ---- */

static struct {
    pthread_mutex_t lock;
    pthread_cond_t work, left;
    run *queue; /* launches with blocks left to claim */
    int helpers;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0};

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

/* Takes r out of the queue (the lock held); it has no block to claim. */
static void unqueue(run *r)
{
    if (!r->queued)
        return;
    for (run **p = &pool.queue; *p; p = &(*p)->next_run)
        if (*p == r) {
            *p = r->next_run;
            break;
        }
    r->queued = false;
}

/* Done with r (the lock held): its caller waits for the last to leave. */
static void leave(run *r)
{
    unqueue(r);
    if (--r->users == 0)
        pthread_cond_broadcast(&pool.left);
}

static void *helper(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (!pool.queue)
            pthread_cond_wait(&pool.work, &pool.lock);
        run *r = pool.queue;
        r->users++;
        pthread_mutex_unlock(&pool.lock);
        work_on(r);
        pthread_mutex_lock(&pool.lock);
        leave(r);
    }
    return NULL;
}

/* The workers besides the caller; signals stay with the program's own
 * threads. Fewer start if the system refuses some: the caller still
 * runs every block. */
static void pool_start(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int started = 0;
    for (int i = 1; i < workers; i++) {
        pthread_t t;
        started += pthread_create(&t, &attr, helper, NULL) == 0;
    }
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_mutex_lock(&pool.lock);
    pool.helpers = started;
    pthread_mutex_unlock(&pool.lock);
}

/* Offers r's blocks to the pool; false if there is no pool to offer to. */
static bool offer(run *r)
{
    if (r->nblocks < 2 || workers < 2)
        return false;
    pthread_once(&pool_once, pool_start);
    pthread_mutex_lock(&pool.lock);
    bool shared = pool.helpers > 0;
    if (shared) {
        run **tail = &pool.queue;
        while (*tail)
            tail = &(*tail)->next_run;
        *tail = r;
        r->queued = true;
        r->users = 1;
        pthread_cond_broadcast(&pool.work);
    }
    pthread_mutex_unlock(&pool.lock);
    return shared;
}

/* Waits until no helper works on r any more. */
static void withdraw(run *r)
{
    pthread_mutex_lock(&pool.lock);
    leave(r);
    while (r->users > 0)
        pthread_cond_wait(&pool.left, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
}

CUresult pk_host_run(const pk_host_func *f, const pk_host_shape *shape, void **params)
{
    run r;
    memset(&r, 0, sizeof r);
    r.f = f;
    r.shape = *shape;
    r.params = params;
    r.nblocks = (uint64_t)shape->grid[0] * shape->grid[1] * shape->grid[2];
    r.nthreads = shape->block[0] * shape->block[1] * shape->block[2];
    r.nwarps = (r.nthreads + 31) / 32;
    atomic_init(&r.next, 0);
    atomic_init(&r.error, CUDA_SUCCESS);
    scratch *s = my_scratch();
    if (!s || !reserve(s, &r)) /* before any block runs: the launch fails whole */
        return CUDA_ERROR_OUT_OF_MEMORY;
    bool shared = offer(&r);
    work_on(&r);
    if (shared)
        withdraw(&r);
    return (CUresult)atomic_load(&r.error);
}

/* ---- the driver's entry points ---- */

static bool fits(const unsigned g[3], const unsigned b[3])
{
    static const unsigned max_g[3] = {0x7fffffffu, 65535, 65535}, max_b[3] = {1024, 1024, 64};
    for (int i = 0; i < 3; i++)
        if (!g[i] || !b[i] || g[i] > max_g[i] || b[i] > max_b[i])
            return false;
    return (uint64_t)b[0] * b[1] * b[2] <= PK_HOST_MAX_THREADS;
}

CUresult pkh_cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                            unsigned int by, unsigned int bz, unsigned int shared, CUstream stream, void **params,
                            void **extra)
{
    (void)stream; /* each launch is done when it returns: in order on every stream */
    const pk_host_func *fn = (const pk_host_func *)(void *)f;
    if (!fn)
        return CUDA_ERROR_INVALID_HANDLE;
    if (extra)
        return CUDA_ERROR_NOT_SUPPORTED;
    pk_host_shape s = {{gx, gy, gz}, {bx, by, bz}, shared};
    if (!fits(s.grid, s.block) || shared > atomic_load(&fn->dyn_limit))
        return CUDA_ERROR_INVALID_VALUE;
    return pk_host_run(fn, &s, params);
}

/* ---- cooperative launches ---- */

typedef struct coop_block {
    run *r;
    uint64_t index;
    pthread_t thread;
} coop_block;

static void *run_coop_block(void *arg)
{
    coop_block *c = arg;
    scratch *s = my_scratch();
    if (s && prepare(s, c->r))
        run_block(s, c->r, c->index);
    else
        atomic_store(&c->r->error, CUDA_ERROR_OUT_OF_MEMORY);
    grid_leave(c->r->grid);
    return NULL;
}

/* Every block of a cooperative launch at once, each on a thread of its
 * own, so that a grid barrier can wait for all of them; the calling thread
 * runs block 0. At most PK_HOST_MAX_COOP_BLOCKS, as a GPU holds at most so
 * many blocks resident. */
static CUresult run_cooperative(run *r)
{
    grid_barrier g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, (unsigned)r->nblocks, 0, 0};
    r->grid = &g;
    coop_block *blocks = calloc(r->nblocks, sizeof *blocks);
    if (!blocks)
        return CUDA_ERROR_OUT_OF_MEMORY;
    uint64_t started = 1;
    for (uint64_t i = 0; i < r->nblocks; i++)
        blocks[i] = (coop_block){r, i, 0};
    for (; started < r->nblocks; started++)
        if (pthread_create(&blocks[started].thread, NULL, run_coop_block, &blocks[started]) != 0)
            break;
    if (started < r->nblocks) { /* the blocks that did start cannot pass a grid barrier: */
        pthread_mutex_lock(&g.lock); /* let them by, and fail the launch */
        g.expected -= (unsigned)(r->nblocks - started);
        if (g.arrived && g.arrived == g.expected)
            grid_open(&g);
        pthread_mutex_unlock(&g.lock);
        atomic_store(&r->error, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
    }
    run_coop_block(&blocks[0]);
    for (uint64_t i = 1; i < started; i++)
        pthread_join(blocks[i].thread, NULL);
    free(blocks);
    return (CUresult)atomic_load(&r->error);
}

CUresult pkh_cuLaunchCooperativeKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
                                       unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared,
                                       CUstream stream, void **params)
{
    (void)stream; /* done when it returns, as every launch */
    const pk_host_func *fn = (const pk_host_func *)(void *)f;
    if (!fn)
        return CUDA_ERROR_INVALID_HANDLE;
    pk_host_shape shape = {{gx, gy, gz}, {bx, by, bz}, shared};
    if (!fits(shape.grid, shape.block) || shared > atomic_load(&fn->dyn_limit))
        return CUDA_ERROR_INVALID_VALUE;
    if ((uint64_t)gx * gy * gz > PK_HOST_MAX_COOP_BLOCKS)
        return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
    run r;
    memset(&r, 0, sizeof r);
    r.f = fn;
    r.shape = shape;
    r.params = params;
    r.nblocks = (uint64_t)gx * gy * gz;
    r.nthreads = bx * by * bz;
    r.nwarps = (r.nthreads + 31) / 32;
    atomic_init(&r.error, CUDA_SUCCESS);
    return run_cooperative(&r);
}

/* A worker holds one block at a time, of any size the device allows. */
CUresult pkh_cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction func, int block_size,
                                                         size_t dynamic_shared)
{
    const pk_host_func *f = (const pk_host_func *)(void *)func;
    *blocks = block_size >= 1 && block_size <= PK_HOST_MAX_THREADS && dynamic_shared <= atomic_load(&f->dyn_limit);
    return CUDA_SUCCESS;
}

/* Every size is as good: the largest allowed, one block a worker. */
CUresult pkh_cuOccupancyMaxPotentialBlockSize(int *min_grid, int *block_size, CUfunction func,
                                              CUoccupancyB2DSize shared_of_block, size_t dynamic_shared,
                                              int block_size_limit)
{
    (void)func, (void)shared_of_block, (void)dynamic_shared;
    *block_size = block_size_limit > 0 && block_size_limit < PK_HOST_MAX_THREADS ? block_size_limit
                                                                                  : PK_HOST_MAX_THREADS;
    *min_grid = workers;
    return CUDA_SUCCESS;
}
