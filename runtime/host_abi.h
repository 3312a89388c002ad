/*
 * host_abi.h - the interface between a module that `pykc --target host`
 * compiles (a shared object) and the host device of libpykrt that runs it.
 *
 * The threads of a block run on one CPU thread, one after another: a
 * thread runs until it finishes or reaches a barrier or a warp operation,
 * where it suspends (the module's kernels are LLVM coroutines there), and
 * the scheduler runs the next. A block's threads therefore share its
 * shared memory (thread-local storage of the CPU thread, as the module
 * defines it) without locks; blocks run on several CPU threads at once and
 * share global memory through real atomics.
 *
 * What the module exports:
 *   uint32_t pykrt_host_abi;                the version below
 *   void pykrt_host_enter(pykrt_host_thread *t);
 *       makes t the running thread of the calling CPU thread: every
 *       special value (threadIdx, blockIdx, ...) reads it. Called before
 *       each start and resume.
 *   void *ENTRY(void **params);             one per kernel entry
 *       runs the entered thread with the launch's parameters (as
 *       cuLaunchKernel takes them: params[i] points at the i-th value of
 *       the entry's parameter list); NULL when the thread finished, else
 *       the handle of the suspended thread, whose `wait` says why.
 *   void ENTRY.block(void **params, pykrt_host_thread *threads, uint32_t count);
 *       for a kernel that never suspends (and only there): runs
 *       threads[0] to threads[count - 1] to their ends, in order, each
 *       made the running thread in turn; what one ENTRY call a thread
 *       does, without a call a thread. Optional.
 *   int pykrt_host_resume(void *handle);    1 finished (handle freed), 0 suspended again
 *   void pykrt_host_destroy(void *handle);  frees a suspended thread
 *
 * Both sides hold these layouts; the compiler builds its loads from the
 * offsets below (src/host.c).
 */
#ifndef PYKRT_HOST_ABI_H
#define PYKRT_HOST_ABI_H

#include <stdint.h>

#define PYKRT_HOST_ABI_VERSION 1u

/* Why a thread suspended (pykrt_host_thread.wait). */
enum {
    PYKRT_HOST_RUNNING = 0,
    PYKRT_HOST_AT_BARRIER = 1, /* syncthreads and its predicate forms: resumed
                                  when every live thread of the block is at one */
    PYKRT_HOST_AT_WARP = 2,    /* a warp operation's exchange: resumed in the
                                  scheduler's next round */
    PYKRT_HOST_AT_GRID = 3,    /* cuda.cg.this_grid().sync() of a cooperative
                                  launch: resumed when every live thread of
                                  every unfinished block is at one */
};

/* A round resumes a warp's lanes one after another. So a thread that has
 * read the slots (or `live`) of an exchange suspends AT_WARP once more
 * before it writes a slot again or finishes: else the lanes resumed first
 * would change what the later ones of the same exchange read. */

/* The votes warp_vote computes over a warp's slots. */
enum {
    PYKRT_HOST_VOTE_ALL = 0,       /* 1 if every lane of mask has a nonzero slot */
    PYKRT_HOST_VOTE_ANY = 1,       /* 1 if any has */
    PYKRT_HOST_VOTE_EQ = 2,        /* 1 if all of them are zero or all nonzero */
    PYKRT_HOST_VOTE_BALLOT = 3,    /* the lanes of mask with a nonzero slot */
    PYKRT_HOST_VOTE_MATCH_ANY = 4, /* the lanes of mask whose slot equals lane's */
    PYKRT_HOST_VOTE_MATCH_ALL = 5, /* mask (its live lanes) if all their slots are equal, else 0 */
};

typedef struct pykrt_host_block {
    uint32_t block_idx[3];    /*  0 */
    uint32_t block_dim[3];    /* 12 */
    uint32_t grid_dim[3];     /* 24 */
    uint32_t thread_count;    /* 36: block_dim's product */
    void *dynamic_shared;     /* 40: the launch's dynamic shared memory, this
                                 block's copy, 16-byte aligned */
    int64_t *slots;           /* 48: one a thread, by linear index, rounded
                                 up to whole warps: warp exchanges */
    uint32_t *live;           /* 56: one a warp, the lanes not finished */
    /* 64: the vote `op` over the 32 slots of a warp (warp_slots: its lane
     * 0's), seen from `lane`, over the lanes of mask that are live. */
    uint32_t (*warp_vote)(uint32_t op, const int64_t *warp_slots, uint32_t lane, uint32_t mask, uint32_t live);
    /* 72: syncthreads_count/and/or: each thread adds its predicate (0 or
     * 1) before the barrier; releasing the barrier, the scheduler moves
     * them to result_* and resets them to 0, 1, 0. */
    int32_t vote_count, vote_and, vote_or;
    int32_t result_count, result_and, result_or; /* 84 */
} pykrt_host_block;

typedef struct pykrt_host_thread {
    uint32_t thread_idx[3];   /*  0 */
    uint32_t linear;          /* 12: x + y*bx + z*bx*by; lane = linear % 32 */
    uint32_t wait;            /* 16: PYKRT_HOST_AT_*, set before suspending */
    uint32_t reserved;        /* 20 */
    pykrt_host_block *block;  /* 24 */
} pykrt_host_thread;

#endif /* PYKRT_HOST_ABI_H */
