/*
 * host_kernels.c - a module of the host device's interface (runtime/
 * host_abi.h) written by hand, standing in for `pykc --target host` in
 * the runtime's tests (built with cc -shared -fPIC).
 *
 * A compiled module's threads are LLVM coroutines; here each is a frame
 * with a state number that the kernel's step function advances: a step
 * returns 1 when the thread finished, 0 when it suspended (having set the
 * thread's `wait`), and the next call goes on from the state it left.
 * Besides computing, the module checks the scheduler's side of the
 * interface and ORs what it finds wrong into host_errors (HE_*), which
 * the tests read through pykrt_constant_get.
 *
 * Variants: -DTEST_ABI=N declares interface version N; -DOMIT_RESUME
 * leaves out pykrt_host_resume.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "host_abi.h"

#ifndef TEST_ABI
#define TEST_ABI PYKRT_HOST_ABI_VERSION
#endif

#define EXPORT __attribute__((visibility("default")))

EXPORT uint32_t pykrt_host_abi = TEST_ABI;

/* What the module found wrong; ORDER as the tests' HE_* names. */
enum { HE_ENTER = 1, HE_ALIGN = 2, HE_RELEASE = 4, HE_BLOCK = 8 };
EXPORT uint32_t host_errors;
EXPORT float coeffs[4] = {1, 2, 3, 4};
/* The exception record of debug=True kernels (docs/manifest.md). */
EXPORT int32_t pykc_exception;
EXPORT int32_t pykc_exception_thread[6];

static _Thread_local pykrt_host_thread *current;

static void error(uint32_t what)
{
    __atomic_fetch_or(&host_errors, what, __ATOMIC_RELAXED);
}

EXPORT void pykrt_host_enter(pykrt_host_thread *t)
{
    current = t;
}

typedef struct frame frame;
struct frame {
    int (*step)(frame *f);
    int state;
    pykrt_host_thread *t;
    void **params;
};

/* A thread's start: the entered thread, run to its first suspension. */
static void *start(int (*step)(frame *), void **params)
{
    frame *f = malloc(sizeof *f);
    if (!f)
        abort();
    *f = (frame){step, 0, current, params};
    if (!current || current->block->thread_count == 0)
        error(HE_BLOCK);
    if (!step(f))
        return f;
    free(f);
    return NULL;
}

#ifndef OMIT_RESUME
EXPORT int pykrt_host_resume(void *handle)
{
    frame *f = handle;
    if (current != f->t)
        error(HE_ENTER);
    if (!f->step(f))
        return 0;
    free(f);
    return 1;
}
#endif

EXPORT void pykrt_host_destroy(void *handle)
{
    free(handle);
}

/* ---- helpers as compiled code would inline them ---- */

/* The i-th array parameter's data (each array is data, shape, strides). */
#define ARRAY(f, i, type) (*(type **)(f)->params[(i) * 3])

static uint64_t block_linear(const pykrt_host_block *b)
{
    return b->block_idx[0] + (uint64_t)b->block_idx[1] * b->grid_dim[0] +
           (uint64_t)b->block_idx[2] * b->grid_dim[0] * b->grid_dim[1];
}

/* The thread's index in the whole grid. */
static uint64_t global(const pykrt_host_thread *t)
{
    return block_linear(t->block) * t->block->thread_count + t->linear;
}

static int suspend(frame *f, uint32_t why, int next)
{
    f->t->wait = why;
    f->state = next;
    return 0;
}

/* After a barrier the scheduler set wait back to RUNNING. */
static void check_released(const frame *f)
{
    if (f->t->wait != PYKRT_HOST_RUNNING)
        error(HE_RELEASE);
}

/* ---- ids(out: int32[:]): each thread writes its indices ---- */

static int ids_step(frame *f)
{
    const pykrt_host_thread *t = f->t;
    const pykrt_host_block *b = t->block;
    int32_t *out = ARRAY(f, 0, int32_t) + global(t) * 8;
    for (int i = 0; i < 3; i++) {
        out[i] = (int32_t)t->thread_idx[i];
        out[3 + i] = (int32_t)b->block_idx[i];
    }
    out[6] = (int32_t)b->thread_count;
    out[7] = (int32_t)(b->grid_dim[0] * b->grid_dim[1] * b->grid_dim[2]);
    return 1;
}

EXPORT void *ids(void **params)
{
    return start(ids_step, params);
}

/* ---- barrier(out: int32[:], votes: int32[:]) ----
 * The last two threads finish at once; the others write their slot of
 * the dynamic shared memory, vote (linear % 3 == 0) at a barrier, read
 * their neighbour's slot, and vote 1 at a second barrier. Thread 0 writes
 * each barrier's count, and, or into votes[block * 6 ...]. Every fourth
 * thread first suspends twice for a warp exchange, so it reaches the
 * barrier rounds after the others: only a barrier that holds them makes
 * their neighbours read what they wrote. */

static void vote(pykrt_host_block *b, int p)
{
    b->vote_count += p;
    b->vote_and &= p;
    b->vote_or |= p;
}

static void results(const pykrt_host_block *b, int32_t *v)
{
    v[0] = b->result_count, v[1] = b->result_and, v[2] = b->result_or;
}

static int barrier_step(frame *f)
{
    pykrt_host_thread *t = f->t;
    pykrt_host_block *b = t->block;
    int32_t *shared = b->dynamic_shared;
    uint32_t n = b->thread_count - 2;
    int32_t *votes = ARRAY(f, 1, int32_t) + block_linear(b) * 6;
    switch (f->state) {
    case 0:
        if (t->linear >= n)
            return 1;
        if (t->linear % 4 == 1)
            return suspend(f, PYKRT_HOST_AT_WARP, 3);
        /* fall through */
    case 4:
        if ((uintptr_t)shared % 16)
            error(HE_ALIGN);
        shared[t->linear] = (int32_t)(t->linear * 10 + b->block_idx[0]);
        vote(b, t->linear % 3 == 0);
        return suspend(f, PYKRT_HOST_AT_BARRIER, 1);
    case 1:
        check_released(f);
        ARRAY(f, 0, int32_t)[global(t)] = shared[(t->linear + 1) % n];
        if (t->linear == 0)
            results(b, votes);
        vote(b, 1);
        return suspend(f, PYKRT_HOST_AT_BARRIER, 2);
    case 2:
        check_released(f);
        if (t->linear == 0)
            results(b, votes + 3);
        return 1;
    default: /* 3: the delayed threads' second suspension */
        return suspend(f, PYKRT_HOST_AT_WARP, 4);
    }
}

EXPORT void *barrier(void **params)
{
    return start(barrier_step, params);
}

/* ---- warp(vals: int64[:], out: int64[:]) ----
 * A thread whose value is -1 finishes at once; the others put their value
 * in their warp slot, suspend for the exchange, then read the votes over
 * the whole warp and their lane ^ 1 neighbour's slot, into out[g * 7 ...],
 * and suspend once more so that no slot changes while others read. */

static int warp_step(frame *f)
{
    pykrt_host_thread *t = f->t;
    pykrt_host_block *b = t->block;
    uint32_t lane = t->linear % 32, warp = t->linear / 32;
    const int64_t *slots = b->slots + warp * 32;
    int64_t *out = ARRAY(f, 1, int64_t) + global(t) * 7;
    static const uint32_t ops[] = {PYKRT_HOST_VOTE_ALL,       PYKRT_HOST_VOTE_ANY,      PYKRT_HOST_VOTE_EQ,
                                   PYKRT_HOST_VOTE_BALLOT,    PYKRT_HOST_VOTE_MATCH_ANY, PYKRT_HOST_VOTE_MATCH_ALL};
    switch (f->state) {
    case 0: {
        int64_t v = ARRAY(f, 0, int64_t)[global(t)];
        if (v == -1)
            return 1;
        b->slots[t->linear] = v;
        return suspend(f, PYKRT_HOST_AT_WARP, 1);
    }
    case 1:
        for (int i = 0; i < 6; i++)
            out[i] = b->warp_vote(ops[i], slots, lane, 0xffffffffu, b->live[warp]);
        out[6] = slots[lane ^ 1];
        return suspend(f, PYKRT_HOST_AT_WARP, 2);
    default:
        return 1;
    }
}

EXPORT void *warp(void **params)
{
    return start(warp_step, params);
}

/* ---- spin(ms: int32): thread 0 of block 0 sleeps ms milliseconds ---- */

static int spin_step(frame *f)
{
    int32_t ms = *(const int32_t *)f->params[0];
    if (f->t->linear == 0 && block_linear(f->t->block) == 0) {
        struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0)
            ;
    }
    return 1;
}

EXPORT void *spin(void **params)
{
    return start(spin_step, params);
}

/* ---- count(counter: int64[:]): every thread adds 1, atomically ---- */

static int count_step(frame *f)
{
    __atomic_fetch_add(ARRAY(f, 0, int64_t), 1, __ATOMIC_RELAXED);
    return 1;
}

EXPORT void *count(void **params)
{
    return start(count_step, params);
}

/* ---- raises(a: int64[:]), debug=True: a thread whose a[g] is negative
 * raises exception 1; the first to do so records itself ---- */

static int raises_step(frame *f)
{
    const pykrt_host_thread *t = f->t;
    int32_t none = 0;
    if (ARRAY(f, 0, int64_t)[global(t)] < 0 &&
        __atomic_compare_exchange_n(&pykc_exception, &none, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        for (int i = 0; i < 3; i++) {
            pykc_exception_thread[i] = (int32_t)t->thread_idx[i];
            pykc_exception_thread[3 + i] = (int32_t)t->block->block_idx[i];
        }
    return 1;
}

EXPORT void *raises(void **params)
{
    return start(raises_step, params);
}
