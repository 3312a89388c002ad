/*
 * split.c - a module's kernels compiled on several threads, their PTX joined.
 *
 * Kernels share nothing but module globals and the device functions they
 * call, so the middle and back ends, nine tenths of a compilation, can work
 * on a few kernels at a time. codegen builds the module of all kernels,
 * measures each kernel's work in it (split_kernel_size), cuts the kernels
 * into runs of about equal work, in source order (split_kernels), and gives
 * each run a module in its own LLVMContext: the whole one cut down to the
 * largest run (split_drop_kernels), new ones for the others, which the
 * thread that compiles each builds (build_module). split_compile links
 * libdevice into each, optimises and emits it, the pieces shared among a
 * few threads (each with its own target machine), and joins their PTX: one
 * header, then each piece's top-level items in order, an item that an
 * earlier piece already wrote (an extern declaration, a module constant)
 * left out.
 *
 * Joining is safe because names cannot clash: internal functions and
 * globals of every piece but the first get a `$pN` suffix (a name in PTX
 * may hold `$`, one in Python may not), and an external symbol is a module
 * global that every piece built alike, so it prints the same. If the
 * pieces' items still clash (a name, two texts), the join is refused and
 * codegen compiles the whole module on one thread, as it does for -j1, one
 * kernel, or debug information (whose DWARF sections do not join as text).
 */
#define _GNU_SOURCE /* sched_getaffinity, sched_getcpu, pthread_attr_setaffinity_np */
#include "pykc.h"

#include <llvm-c/Core.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct Piece {
    int index;
    LLVMModuleRef module;       /* in a context of its own; NULL: to build */
    const ModuleBuilder *builder;
    pthread_mutex_t *build_lock;
    bool build_failed;          /* its errors already counted */
    const TargetConfig *cfg;
    char *ptx;
    size_t len;
    char version[8];
    bool ok;
    char *messages;             /* what its diagnostics printed */
    size_t messages_len;
} Piece;

/* ---- which kernels go where --------------------------------------------- */

/* The cores this process may run on (taskset and cgroup cpusets narrow
 * them), else the cores online. */
static long usable_cores(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    return sysconf(_SC_NPROCESSORS_ONLN);
}

int split_threads(int jobs) {
    long n = jobs > 0 ? jobs : usable_cores();
    return n < 1 ? 1 : n > SPLIT_MAX_PIECES ? SPLIT_MAX_PIECES : (int)n;
}

int split_kernels(const int *sizes, int n, int pieces, int firsts[SPLIT_MAX_PIECES]) {
    if (pieces < 1) pieces = 1;
    if (pieces > SPLIT_MAX_PIECES) pieces = SPLIT_MAX_PIECES;
    if (pieces > n) pieces = n;
    long left = 0;
    for (int k = 0; k < n; k++) left += sizes[k];
    int runs = 0;
    /* Each run takes kernels until it holds its share of what is left,
     * leaving at least a kernel for each run after it. */
    for (int k = 0; k < n; runs++) {
        firsts[runs] = k;
        int after = pieces - runs - 1;
        long share = left / (after + 1), filled = sizes[k++];
        while (k < n && (after == 0 || (n - k > after && filled + sizes[k] / 2 <= share))) filled += sizes[k++];
        left -= filled;
    }
    return runs;
}

/* What a call of a libdevice function adds to a kernel's size: its body is
 * linked and inlined later, unseen here; a typical one is this big. */
enum { LIBDEVICE_CALL_SIZE = 100 };

static int instruction_count(LLVMValueRef fn) {
    int n = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) n++;
    return n;
}

/* A growable list of functions, each in it once. */
typedef struct FnSet {
    LLVMValueRef *items;
    int count, cap;
} FnSet;

static bool fnset_add(FnSet *s, LLVMValueRef fn) {
    for (int i = 0; i < s->count; i++)
        if (s->items[i] == fn) return false;
    if (s->count == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->items = realloc(s->items, sizeof *s->items * (size_t)s->cap);
        if (!s->items) ice("out of memory measuring a kernel");
    }
    s->items[s->count++] = fn;
    return true;
}

/* The functions that fn calls. */
static void add_callees(FnSet *s, LLVMValueRef fn) {
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
            LLVMValueRef callee = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
            if (callee && LLVMIsAFunction(callee)) fnset_add(s, callee);
        }
}

int split_kernel_size(LLVMValueRef kernel) {
    FnSet reached = {0};
    fnset_add(&reached, kernel);
    long size = 0;
    /* reached grows as it is walked: each function's callees join it once */
    for (int i = 0; i < reached.count; i++) {
        LLVMValueRef fn = reached.items[i];
        size_t len;
        if (!LLVMIsDeclaration(fn)) {
            size += instruction_count(fn);
            add_callees(&reached, fn);
        } else if (strncmp(LLVMGetValueName2(fn, &len), "__nv_", 5) == 0) {
            size += LIBDEVICE_CALL_SIZE;
        }
    }
    free(reached.items);
    return size > INT_MAX ? INT_MAX : (int)size;
}

/* Whether fn may go once nothing uses it: a declaration, or a definition
 * that no other module sees. */
static bool is_droppable(LLVMValueRef fn) {
    LLVMLinkage l = LLVMGetLinkage(fn);
    return LLVMIsDeclaration(fn) || l == LLVMInternalLinkage || l == LLVMPrivateLinkage;
}

void split_drop_kernels(LLVMModuleRef m, LLVMValueRef *kernels, int n) {
    for (int k = 0; k < n; k++)
        if (!LLVMGetFirstUse(kernels[k])) LLVMDeleteFunction(kernels[k]);
    /* Then what only they used, so that a libdevice function they alone
     * called does not bring libdevice in. */
    for (bool dropped = true; dropped;) {
        dropped = false;
        for (LLVMValueRef fn = LLVMGetFirstFunction(m), next; fn; fn = next) {
            next = LLVMGetNextFunction(fn);
            if (!LLVMGetFirstUse(fn) && is_droppable(fn)) {
                LLVMDeleteFunction(fn);
                dropped = true;
            }
        }
    }
}

/* ---- one piece ------------------------------------------------------------ */

static void add_suffix(LLVMValueRef v, int index) {
    size_t n;
    const char *name = LLVMGetValueName2(v, &n);
    if (n == 0) return;
    char *renamed = malloc(n + 16);
    if (!renamed) ice("out of memory renaming '%s'", name);
    int len = snprintf(renamed, n + 16, "%s$p%d", name, index);
    LLVMSetValueName2(v, renamed, (size_t)len);
    free(renamed);
}

static bool is_local(LLVMValueRef v) {
    LLVMLinkage l = LLVMGetLinkage(v);
    return (l == LLVMInternalLinkage || l == LLVMPrivateLinkage) && !LLVMIsDeclaration(v);
}

static void suffix_local_names(LLVMModuleRef m, int index) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
        if (is_local(fn)) add_suffix(fn, index);
    for (LLVMValueRef gv = LLVMGetFirstGlobal(m); gv; gv = LLVMGetNextGlobal(gv))
        if (is_local(gv)) add_suffix(gv, index);
}

/* Builds the piece's module if it has none. Codegen reads and annotates the
 * unit's syntax tree and allocates in its arena, so builds take turns; the
 * thread that compiles a module builds it, so that its IR, freed and
 * remade all through the passes, stays in that thread's malloc arena (a
 * free from another thread takes the owner's lock, which its owner is
 * using), and a worker needs no other thread to start. */
static bool build_module(Piece *p) {
    if (p->module) return true;
    pthread_mutex_lock(p->build_lock);
    p->module = p->builder->build(p->builder->arg, p->index);
    pthread_mutex_unlock(p->build_lock);
    p->build_failed = !p->module;
    return p->module != NULL;
}

static void *compile_piece(void *arg) {
    Piece *p = arg;
    if (!build_module(p)) return NULL;
    FILE *out = open_memstream(&p->messages, &p->messages_len);
    if (!out) ice("out of memory opening a stream for diagnostics");
    Diag d;
    diag_init(&d, out);
    LLVMContextRef ctx = LLVMGetModuleContext(p->module);
    p->ok = target_link_libdevice(p->module, p->cfg, &d);
    if (p->ok && p->index > 0) suffix_local_names(p->module, p->index);
    p->ok = p->ok && target_optimize(p->module, p->cfg, &d) &&
            target_emit_ptx(p->module, p->cfg, &p->ptx, &p->len, p->version, &d) && d.error_count == 0;
    if (FREE_AT_EXIT) {
        LLVMDisposeModule(p->module);
        LLVMContextDispose(ctx);
    }
    diag_free(&d);
    fclose(out);
    return NULL;
}

/* ---- joining the PTX ------------------------------------------------------- */

/* The end of the header: the line after `.address_size`. */
static const char *header_end(const char *ptx) {
    const char *a = strstr(ptx, "\n.address_size");
    if (!a) return NULL;
    const char *nl = strchr(a + 1, '\n');
    return nl ? nl + 1 : a + strlen(a);
}

/* The end of the top-level item at s: a comment line, or the lines up to
 * where brackets balance on a line ending in ';' or '}'. */
static const char *item_end(const char *s) {
    const char *text = s + strspn(s, " \t");
    if (text[0] == '/' && text[1] == '/') {
        const char *nl = strchr(s, '\n');
        return nl ? nl + 1 : s + strlen(s);
    }
    int depth = 0;
    for (const char *line = s; *line;) {
        const char *nl = strchr(line, '\n');
        const char *end = nl ? nl : line + strlen(line);
        const char *last = NULL;
        for (const char *c = line; c < end; c++) {
            if (c[0] == '/' && c[1] == '/') break;
            if (*c == '{' || *c == '(') depth++;
            else if (*c == '}' || *c == ')') depth--;
            if (*c != ' ' && *c != '\t') last = c;
        }
        line = nl ? nl + 1 : end;
        if (depth == 0 && last && (*last == ';' || *last == '}')) return line;
    }
    return s + strlen(s);
}

static bool is_ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* The name an item declares or defines, into name ("" for a comment):
 * its first word that is neither a directive, a number nor a parenthesised
 * return value, as in `.visible .const .align 16 .b8 TABLE[12] = ...;` or
 * `.func (.param .b32 func_retval0) helper(`. */
static void item_name(const char *s, const char *end, char *name, size_t size) {
    name[0] = '\0';
    while (s < end) {
        while (s < end && (*s == ' ' || *s == '\t' || *s == '\n')) s++;
        if (s >= end || (s[0] == '/' && s[1] == '/')) return;
        if (*s == '(') {
            int depth = 0;
            do depth += *s == '(' ? 1 : *s == ')' ? -1 : 0;
            while (++s < end && depth > 0);
            continue;
        }
        const char *w = s;
        while (s < end && is_ident_char(*s)) s++;
        if (w == s) s++;
        else if (!(*w >= '0' && *w <= '9')) {
            size_t n = (size_t)(s - w) < size - 1 ? (size_t)(s - w) : size - 1;
            memcpy(name, w, n);
            name[n] = '\0';
            return;
        }
        while (s < end && *s != ' ' && *s != '\t' && *s != '\n' && *s != '(') s++; /* rest of a directive */
    }
}

typedef struct Item {
    const char *text;
    size_t len;
    char name[128];
    int piece;
} Item;

typedef struct Items {
    Item *v;
    int count, cap;
} Items;

static bool has_text(const Items *items, const char *text, size_t len) {
    for (int i = 0; i < items->count; i++)
        if (items->v[i].len == len && memcmp(items->v[i].text, text, len) == 0) return true;
    return false;
}

static const Item *find_name(const Items *items, const char *name) {
    for (int i = 0; i < items->count; i++)
        if (strcmp(items->v[i].name, name) == 0) return &items->v[i];
    return NULL;
}

/* Adds the items of one piece's PTX after its header; false when one
 * clashes with an earlier piece's item of the same name. */
static bool add_items(Items *items, const char *body, int piece) {
    for (const char *s = body; *s;) {
        if (*s == '\n') {
            s++;
            continue;
        }
        const char *end = item_end(s);
        size_t len = (size_t)(end - s);
        if (!has_text(items, s, len)) {
            char name[128];
            item_name(s, end, name, sizeof name);
            const Item *same = name[0] ? find_name(items, name) : NULL;
            if (same && same->piece != piece) return false;
            if (items->count == items->cap) {
                items->cap = items->cap ? items->cap * 2 : 64;
                if (!(items->v = realloc(items->v, sizeof(Item) * (size_t)items->cap))) ice("out of memory joining PTX");
            }
            Item *it = &items->v[items->count++];
            *it = (Item){s, len, "", piece};
            memcpy(it->name, name, sizeof name);
        }
        s = end;
    }
    return true;
}

/* Copies n bytes of PTX to out without the ` // callseq N` comments that
 * the back end puts around each call: it numbers them with one counter
 * for the whole process, which the threads share, so the numbers (and the
 * PTX's digest) would change from run to run. Returns the bytes written. */
static size_t copy_without_callseq(char *out, const char *text, size_t n) {
    static const char mark[] = " // callseq ";
    size_t at = 0;
    for (size_t i = 0; i < n;) {
        if (text[i] == ' ' && n - i >= sizeof mark - 1 && memcmp(text + i, mark, sizeof mark - 1) == 0) {
            while (i < n && text[i] != '\n') i++;
            continue;
        }
        out[at++] = text[i++];
    }
    return at;
}

/* One PTX text from the pieces' (malloc'd), or NULL if they do not join. */
static char *join_ptx(const Piece *pieces, int n, size_t *len) {
    const char *head_end = header_end(pieces[0].ptx);
    if (!head_end) return NULL;
    size_t head = (size_t)(head_end - pieces[0].ptx);
    Items items = {0};
    bool ok = true;
    for (int p = 0; p < n && ok; p++) {
        const char *body = header_end(pieces[p].ptx);
        ok = body && (size_t)(body - pieces[p].ptx) == head && memcmp(pieces[p].ptx, pieces[0].ptx, head) == 0 &&
             add_items(&items, body, p);
    }
    char *out = NULL;
    if (ok) {
        size_t total = head + 1;
        for (int i = 0; i < items.count; i++) total += items.v[i].len + 1;
        if (!(out = malloc(total + 1))) ice("out of memory joining PTX");
        memcpy(out, pieces[0].ptx, head);
        size_t at = head;
        for (int i = 0; i < items.count; i++) {
            out[at++] = '\n';
            at += copy_without_callseq(out + at, items.v[i].text, items.v[i].len);
        }
        out[at] = '\0';
        *len = at;
    }
    free(items.v);
    return out;
}

/* ---- the whole -------------------------------------------------------------- */

void split_order(const long *work, int n, int *order) {
    for (int i = 0; i < n; i++) {
        int at = i;
        while (at > 0 && work[order[at - 1]] < work[i]) {
            order[at] = order[at - 1];
            at--;
        }
        order[at] = i;
    }
}

/* The pieces, in the order they are handed out, and the next one to go. */
typedef struct Queue {
    Piece *pieces;
    int order[SPLIT_MAX_PIECES];
    int count, next;
    IdleTask *idle;             /* NULL once taken */
    pthread_mutex_t lock;
    cpu_set_t cores;            /* where the process may run, workers included */
} Queue;

/* Runs the idle task if no other thread has taken it. */
static void run_idle(Queue *q) {
    pthread_mutex_lock(&q->lock);
    IdleTask *idle = q->idle;
    q->idle = NULL;
    pthread_mutex_unlock(&q->lock);
    if (!idle) return;
    idle->run(idle->arg);
    idle->done = true;
}

/* The next piece to compile, or -1 when none is left. */
static int take(Queue *q) {
    pthread_mutex_lock(&q->lock);
    int p = q->next < q->count ? q->order[q->next++] : -1;
    pthread_mutex_unlock(&q->lock);
    return p;
}

static void *work(void *arg) {
    Queue *q = arg;
    if (CPU_COUNT(&q->cores) > 0) sched_setaffinity(0, sizeof q->cores, &q->cores);
    for (int p; (p = take(q)) >= 0;) compile_piece(&q->pieces[p]);
    run_idle(q);
    target_release_machine();
    return NULL;
}

/* Starts a worker on a core other than this thread's. Left to itself, the
 * scheduler puts a new thread on its creator's core, busy here, and moves it
 * to an idle one only at its next balancing, a few ms later: as long as
 * compiling a piece takes. Once running, the worker may go anywhere. */
static bool start_worker(pthread_t *worker, Queue *q) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return false;
    cpu_set_t others = q->cores;
    int here = sched_getcpu();
    if (here >= 0 && here < CPU_SETSIZE) CPU_CLR(here, &others);
    if (CPU_COUNT(&others) > 0) pthread_attr_setaffinity_np(&attr, sizeof others, &others);
    bool started = pthread_create(worker, &attr, work, q) == 0;
    pthread_attr_destroy(&attr);
    return started;
}

/* Runs the pieces on `threads` threads, this one among them, the most work
 * first: this thread takes it while the workers start, and a worker's
 * first piece also pays for making its target machine. True when all
 * succeeded. Their diagnostics go to d in piece order. */
static bool run_pieces(Piece *pieces, const long *work, int n, int threads, IdleTask *idle, Diag *d) {
    Queue q = {.pieces = pieces, .count = n, .lock = PTHREAD_MUTEX_INITIALIZER};
    q.idle = idle && !idle->done ? idle : NULL;
    split_order(work, n, q.order);
    if (sched_getaffinity(0, sizeof q.cores, &q.cores) != 0) CPU_ZERO(&q.cores);
    pthread_t workers[SPLIT_MAX_PIECES];
    int started = 0;
    while (started + 1 < threads && started < SPLIT_MAX_PIECES && start_worker(&workers[started], &q)) started++;
    for (int p; (p = take(&q)) >= 0;) compile_piece(&pieces[p]);
    run_idle(&q);
    for (int w = 0; w < started; w++) pthread_join(workers[w], NULL);
    bool ok = true;
    for (int p = 0; p < n; p++) {
        if (pieces[p].messages_len) fwrite(pieces[p].messages, 1, pieces[p].messages_len, d->out);
        if (!pieces[p].ok) {
            ok = false;
            if (!pieces[p].build_failed) d->error_count++;
        }
        free(pieces[p].messages);
    }
    return ok;
}

SplitResult split_compile(LLVMModuleRef *modules, const ModuleBuilder *builder, const TargetConfig *cfgs,
                          const long *work, int n, int threads, IdleTask *idle, char **ptx, size_t *len,
                          char version[8], Diag *d) {
    Piece pieces[SPLIT_MAX_PIECES];
    pthread_mutex_t build_lock = PTHREAD_MUTEX_INITIALIZER;
    for (int p = 0; p < n; p++)
        pieces[p] = (Piece){.index = p, .module = modules[p], .builder = builder, .build_lock = &build_lock,
                            .cfg = &cfgs[p]};
    bool ok = run_pieces(pieces, work, n, threads, idle, d);
    char *joined = ok ? join_ptx(pieces, n, len) : NULL;
    for (int p = 0; p < n; p++) free(pieces[p].ptx);
    if (!ok) return SPLIT_FAILED;
    if (!joined) return SPLIT_CLASH;
    *ptx = joined;
    memcpy(version, pieces[0].version, 8);
    return SPLIT_OK;
}
