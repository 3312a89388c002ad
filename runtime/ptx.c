/*
 * ptx.c - checks a kernel's ptx_params against the parameters its entry
 * really has, as the driver reports them and as the PTX text declares
 * them.
 *
 * At a launch the driver reads as many parameter pointers as the entry
 * declares, each for as many bytes as the entry says, whatever the
 * manifest says. So a manifest that lists fewer parameters than the entry,
 * or a parameter narrower than the entry's, is refused at load: otherwise
 * the driver would read pointers that were never set, or bytes past an
 * argument. The driver can tell (cuFuncGetParamInfo, from CUDA 12.4), but
 * not every driver can, so for PTX the text is read as well; a cubin on an
 * older driver is one case neither can check, and a host target (a shared
 * object) the other (the kernel is marked unverified, and its launches
 * pass NULL for the pointers past the manifest's, never stale ones).
 *
 * Only what leads to `.entry NAME ( ... )` is understood: a small lexer
 * that skips comments and strings (either could hold ".entry" or a comma),
 * splits directives at their dots (".ptr.global" is two tokens), and takes
 * the parameter list as ".param" declarations separated by commas, each a
 * type such as .u64 or .b8 with an optional [N]. A size it cannot work out
 * is 0, "unknown", and the count still holds.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

typedef struct lexer {
    const char *p, *end;
    const char *tok; /* the current token and its length */
    size_t len;
} lexer;

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '%';
}

/* Skips white space, comments and strings; false at the end. */
static bool skip(lexer *lx)
{
    while (lx->p < lx->end) {
        const char *p = lx->p;
        if (isspace((unsigned char)*p)) {
            lx->p++;
        } else if (*p == '/' && p + 1 < lx->end && p[1] == '/') {
            const char *nl = memchr(p, '\n', (size_t)(lx->end - p));
            lx->p = nl ? nl : lx->end;
        } else if (*p == '/' && p + 1 < lx->end && p[1] == '*') {
            for (p += 2; p + 1 < lx->end && !(p[0] == '*' && p[1] == '/'); p++)
                ;
            lx->p = p + 1 < lx->end ? p + 2 : lx->end;
        } else if (*p == '"') {
            for (p++; p < lx->end && *p != '"'; p++)
                p += *p == '\\' && p + 1 < lx->end;
            lx->p = p < lx->end ? p + 1 : lx->end;
        } else {
            return true;
        }
    }
    return false;
}

/* The next token: a directive (.u64), an identifier or number, or one
 * other character; false at the end of the text. */
static bool next(lexer *lx)
{
    if (!skip(lx))
        return false;
    const char *start = lx->p;
    if (*lx->p == '.' || ident_char(*lx->p)) {
        lx->p++;
        while (lx->p < lx->end && ident_char(*lx->p))
            lx->p++;
    } else {
        lx->p++;
    }
    lx->tok = start;
    lx->len = (size_t)(lx->p - start);
    return true;
}

static bool is(const lexer *lx, const char *s)
{
    return lx->len == strlen(s) && memcmp(lx->tok, s, lx->len) == 0;
}

/* The width of a parameter type token (.u64 ...), 0 if not one. */
static uint32_t type_width(const lexer *lx)
{
    if (lx->len < 3 || lx->tok[0] != '.' || !strchr("busf", lx->tok[1]))
        return 0;
    char digits[4] = "";
    if (lx->len - 2 >= sizeof digits)
        return 0;
    memcpy(digits, lx->tok + 2, lx->len - 2);
    int bits = atoi(digits);
    return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? (uint32_t)bits / 8 : 0;
}

/* One declaration's size, from its type and an optional [N]. */
typedef struct decl {
    bool open;
    uint32_t width;
    uint64_t count;
} decl;

static void finish(decl *d, pk_ptx_entry *out)
{
    if (!d->open)
        return;
    if (out->count < PK_MAX_PTX_PARAMS)
        out->size[out->count] = d->width && d->count <= 4096 ? d->width * (uint32_t)d->count : 0;
    out->count++;
    d->open = false;
}

/* A number token as the count of an array declaration. */
static uint64_t array_count(const lexer *lx)
{
    uint64_t n = 0;
    for (size_t i = 0; i < lx->len; i++) {
        if (!isdigit((unsigned char)lx->tok[i]) || n > UINT32_MAX)
            return 0;
        n = n * 10 + (uint64_t)(lx->tok[i] - '0');
    }
    return n;
}

/* The parameter list after "(": declarations up to the closing ")". */
static bool read_list(lexer *lx, pk_ptx_entry *out)
{
    decl d = {false, 0, 1};
    while (next(lx)) {
        if (is(lx, ")") || is(lx, ",")) {
            finish(&d, out);
            if (is(lx, ")"))
                return true;
        } else if (is(lx, ".param")) {
            finish(&d, out);
            d = (decl){true, 0, 1};
        } else if (is(lx, ".align")) {
            next(lx); /* its number */
        } else if (is(lx, "[")) {
            d.count = next(lx) ? array_count(lx) : 0;
        } else if (!d.width) {
            d.width = type_width(lx);
        }
    }
    return false;
}

bool pk_ptx_read_entry(const char *ptx, size_t len, const char *name, pk_ptx_entry *out)
{
    lexer lx = {ptx, ptx + len, NULL, 0};
    memset(out, 0, sizeof *out);
    while (next(&lx)) {
        if (!is(&lx, ".entry") || !next(&lx) || !is(&lx, name))
            continue;
        if (!next(&lx) || !is(&lx, "("))
            return true; /* no parameter list: no parameters */
        return read_list(&lx, out);
    }
    return false;
}

/* ---- the checks ---- */

static pykrt_status compare(const pykrt_kernel *k, size_t count, const uint32_t *sizes, const char *by)
{
    const pk_kernel *d = k->desc;
    if (count != d->nptx)
        return pk_fail(PYKRT_ERROR_MANIFEST,
                       "pykrt_module_load(%s): kernel %s: ptx_params list %zu parameters, but %s has %zu",
                       k->module->name, d->name, d->nptx, by, count);
    for (size_t i = 0; i < count; i++)
        if (sizes[i] && sizes[i] != d->ptx[i].size)
            return pk_fail(PYKRT_ERROR_MANIFEST,
                           "pykrt_module_load(%s): kernel %s: ptx_params[%zu] is %u bytes, but parameter %zu of %s "
                           "is %u",
                           k->module->name, d->name, i, d->ptx[i].size, i, by, sizes[i]);
    return PYKRT_SUCCESS;
}

/* The entry's parameters as the driver reports them, asked one index at a
 * time until it refuses one as out of range (CUDA_ERROR_INVALID_VALUE, its
 * documented answer). False where it cannot tell: no cuFuncGetParamInfo,
 * or any other answer, which leaves the check to the PTX text rather than
 * failing a load over a query that only guards it. */
static bool driver_params(const pykrt_kernel *k, pk_ptx_entry *e)
{
    if (!pk_drv.cuFuncGetParamInfo)
        return false;
    for (size_t i = 0; i <= PK_MAX_PTX_PARAMS; i++) {
        size_t offset = 0, size = 0;
        CUresult res = pk_drv.cuFuncGetParamInfo(k->fn, i, &offset, &size);
        if (res == CUDA_ERROR_INVALID_VALUE)
            break;
        if (res != CUDA_SUCCESS)
            return false;
        if (i < PK_MAX_PTX_PARAMS)
            e->size[i] = size <= UINT32_MAX ? (uint32_t)size : 0;
        e->count = i + 1;
    }
    return true;
}

pykrt_status pk_check_entry(pykrt_kernel *k, const char *image, size_t size)
{
    const pk_kernel *d = k->desc;
    const pk_target *t = k->module->target;
    char by[512];
    pykrt_status st = PYKRT_SUCCESS;
    pk_ptx_entry e;
    memset(&e, 0, sizeof e);
    bool by_driver = driver_params(k, &e), by_text = false;
    snprintf(by, sizeof by, "the driver (cuFuncGetParamInfo) for entry %s", d->entry);
    if (by_driver)
        st = compare(k, e.count, e.size, by);
    if (st == PYKRT_SUCCESS && !t->cubin && !t->host && (by_text = pk_ptx_read_entry(image, size, d->entry, &e))) {
        snprintf(by, sizeof by, "entry %s in %s", d->entry, t->file);
        st = compare(k, e.count, e.size, by);
    }
    k->unverified = !by_driver && !by_text;
    return st;
}
