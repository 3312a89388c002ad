/*
 * manifest.c - reads a launch manifest (docs/manifest.md) into a pk_manifest.
 *
 * Input: the manifest's bytes, untrusted (the fuzz harness feeds it
 * anything). libyaml's document API builds the node tree; this file walks
 * it against the format-1 schema and copies what the loader needs into a
 * pk_manifest whose allocations are chained for one free. Everything the
 * launch path relies on without checking again is validated here: every
 * ptx_params entry names an existing parameter and a part that exists for
 * it (data/shape[i]/strides[i] of an array with i < ndim, value of a
 * scalar, real/imag of a complex one), its size never reads past that
 * part's bytes in a pykrt_array or pykrt_arg, and the list gives every
 * part of every parameter exactly once.
 *
 * Errors read "FILE:LINE:COL: WHERE: problem", WHERE being a path such as
 * kernels[0].params[1].dtype. Keys the reader does not know are ignored, so
 * a newer compiler may add fields; a `format` other than 1 is refused before
 * anything else is read. Integers and booleans must be plain scalars.
 *
 * Input that libyaml would take too long or too much memory over is
 * refused before it loads a document: too large, brackets nested too deep
 * (its scanner is quadratic in that), and, found by a first pass over the
 * events, collections nested too deep (each level costs the loader a node
 * and a stack), anchors or aliases (its loader is quadratic in anchors,
 * and following aliases could multiply the reader's work without bound),
 * and a second document, which the loader would silently drop. A manifest
 * has none of these.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "runtime.h"

/* ---- allocation: every block chained to the manifest ---- */

struct pk_chunk {
    struct pk_chunk *next;
    max_align_t data[];
};

static void *alloc(pk_manifest *m, size_t n)
{
    struct pk_chunk *c = calloc(1, sizeof *c + (n ? n : 1));
    if (!c)
        return NULL;
    c->next = m->arena;
    m->arena = c;
    return c->data;
}

void pk_manifest_free(pk_manifest *m)
{
    if (!m)
        return;
    for (struct pk_chunk *c = m->arena, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(m);
}

/* FNV-1a over `len` more bytes, from the hash `h` so far. */
static uint64_t fnv_add(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

#define FNV_OFFSET 0xcbf29ce484222325ull

uint64_t pk_fnv1a64(const void *data, size_t len)
{
    return fnv_add(FNV_OFFSET, data, len);
}

static uint64_t fnv_str(uint64_t h, const char *s)
{
    return fnv_add(h, s, strlen(s));
}

/* A parameter in the interface text: its dtype, an array's "[ndim]" after
 * it, a tuple's member dtypes in parentheses. */
static uint64_t fnv_param(uint64_t h, const pk_param *p)
{
    if (p->kind == PYKRT_KIND_TUPLE) {
        h = fnv_str(h, "(");
        for (size_t j = 0; j < p->nmembers; j++)
            h = fnv_str(fnv_str(h, j ? "," : ""), pykrt_dtype_name(p->members[j].dtype));
        return fnv_str(h, ")");
    }
    h = fnv_str(h, pykrt_dtype_name(p->dtype));
    if (p->kind != PYKRT_KIND_ARRAY)
        return h;
    char dims[16];
    snprintf(dims, sizeof dims, "[%d]", p->ndim);
    return fnv_str(h, dims);
}

uint64_t pk_interface_digest(const pk_manifest *m)
{
    uint64_t h = FNV_OFFSET;
    for (size_t i = 0; i < m->nkernels; i++) {
        const pk_kernel *k = &m->kernels[i];
        h = fnv_str(fnv_str(h, k->entry), "(");
        for (size_t j = 0; j < k->nparams; j++)
            h = fnv_param(fnv_str(h, j ? "," : ""), &k->params[j]);
        h = fnv_str(h, ")\n");
    }
    return h;
}

/* ---- the reader and its error reporting ---- */

typedef struct reader {
    yaml_document_t doc;
    const char *name;
    pk_manifest *m;
} reader;

static pykrt_status bad(reader *r, const yaml_node_t *n, const char *where, const char *fmt, ...) PK_PRINTF(4, 5);

static pykrt_status bad(reader *r, const yaml_node_t *n, const char *where, const char *fmt, ...)
{
    char problem[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(problem, sizeof problem, fmt, ap);
    va_end(ap);
    return pk_fail(PYKRT_ERROR_MANIFEST, "%s:%zu:%zu: %s: %s", r->name, n->start_mark.line + 1,
                   n->start_mark.column + 1, where, problem);
}

static pykrt_status no_memory(reader *r)
{
    return pk_fail(PYKRT_ERROR_OUT_OF_MEMORY, "%s: out of host memory reading the manifest", r->name);
}

static yaml_node_t *node_at(reader *r, int index)
{
    return yaml_document_get_node(&r->doc, index);
}

/* Checks a node is a mapping or a sequence. */
static pykrt_status enter(reader *r, yaml_node_t *n, yaml_node_type_t type, const char *where)
{
    if (n->type != type)
        return bad(r, n, where, "expected a %s", type == YAML_MAPPING_NODE ? "mapping" : "sequence");
    return PYKRT_SUCCESS;
}

static bool key_is(const yaml_node_t *k, const char *key)
{
    size_t n = strlen(key);
    return k->type == YAML_SCALAR_NODE && k->data.scalar.length == n && memcmp(k->data.scalar.value, key, n) == 0;
}

/* Finds map[key]; *out is NULL when absent and not required. */
static pykrt_status field(reader *r, yaml_node_t *map, const char *key, bool required, const char *where,
                          yaml_node_t **out)
{
    *out = NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node_at(r, p->key);
        if (!k || !key_is(k, key))
            continue;
        if (*out)
            return bad(r, k, where, "duplicate key '%s'", key);
        *out = node_at(r, p->value);
    }
    if (!*out && required)
        return bad(r, map, where, "missing field '%s'", key);
    return PYKRT_SUCCESS;
}

static pykrt_status scalar_field(reader *r, yaml_node_t *map, const char *key, bool required, const char *where,
                                 const char *what, yaml_node_t **out)
{
    pykrt_status st = field(r, map, key, required, where, out);
    if (st == PYKRT_SUCCESS && *out && (*out)->type != YAML_SCALAR_NODE)
        return bad(r, *out, where, "'%s' must be %s", key, what);
    return st;
}

/* YAML's null: a plain ~, null or nothing. */
static bool is_null(const yaml_node_t *n)
{
    const char *s = (const char *)n->data.scalar.value;
    return n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
           (!*s || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0);
}

/* A required string is also non-empty and not null. Absent or null
 * optional strings read "". */
static pykrt_status get_string(reader *r, yaml_node_t *map, const char *key, bool required, const char *where,
                               const char **out)
{
    yaml_node_t *n;
    pykrt_status st = scalar_field(r, map, key, required, where, "a string", &n);
    if (st != PYKRT_SUCCESS)
        return st;
    *out = "";
    if (n && is_null(n) && required)
        return bad(r, n, where, "'%s' is null", key);
    if (!n || is_null(n))
        return PYKRT_SUCCESS;
    size_t len = n->data.scalar.length;
    if (strlen((const char *)n->data.scalar.value) != len)
        return bad(r, n, where, "'%s' contains a NUL byte", key);
    if (required && len == 0)
        return bad(r, n, where, "'%s' is empty", key);
    char *s = alloc(r->m, len + 1);
    if (!s)
        return no_memory(r);
    memcpy(s, n->data.scalar.value, len);
    *out = s;
    return PYKRT_SUCCESS;
}

static bool parse_int(const char *s, int64_t *out)
{
    const char *digits = s[0] == '-' ? s + 1 : s;
    if (*digits < '0' || *digits > '9')
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

static pykrt_status get_int(reader *r, yaml_node_t *map, const char *key, bool required, int64_t lo, int64_t hi,
                            const char *where, int64_t *out)
{
    yaml_node_t *n;
    pykrt_status st = scalar_field(r, map, key, required, where, "an integer", &n);
    if (st != PYKRT_SUCCESS || !n)
        return st;
    const char *s = (const char *)n->data.scalar.value;
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE || strlen(s) != n->data.scalar.length || !parse_int(s, out))
        return bad(r, n, where, "'%s' must be an integer, not '%.40s'", key, s);
    if (*out < lo || *out > hi)
        return bad(r, n, where, "'%s' is %lld, outside %lld..%lld", key, (long long)*out, (long long)lo,
                   (long long)hi);
    return PYKRT_SUCCESS;
}

static pykrt_status get_bool(reader *r, yaml_node_t *map, const char *key, const char *where, bool *out)
{
    yaml_node_t *n;
    pykrt_status st = scalar_field(r, map, key, false, where, "true or false", &n);
    if (st != PYKRT_SUCCESS || !n)
        return st;
    const char *s = (const char *)n->data.scalar.value;
    bool plain = n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    if (plain && (strcmp(s, "true") == 0 || strcmp(s, "True") == 0))
        *out = true;
    else if (plain && (strcmp(s, "false") == 0 || strcmp(s, "False") == 0))
        *out = false;
    else
        return bad(r, n, where, "'%s' must be true or false, not '%.40s'", key, s);
    return PYKRT_SUCCESS;
}

/* Picks one of `names` (NULL-terminated); *out is its index. */
static pykrt_status get_choice(reader *r, yaml_node_t *map, const char *key, bool required, const char *const *names,
                               const char *where, int *out)
{
    yaml_node_t *n;
    pykrt_status st = scalar_field(r, map, key, required, where, "a string", &n);
    if (st != PYKRT_SUCCESS || !n)
        return st;
    const char *s = (const char *)n->data.scalar.value;
    for (int i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return PYKRT_SUCCESS;
        }
    return bad(r, n, where, "unknown %s '%.40s'", key, s);
}

static pykrt_status get_dtype(reader *r, yaml_node_t *map, const char *where, pykrt_dtype *out)
{
    yaml_node_t *n;
    pykrt_status st = scalar_field(r, map, "dtype", true, where, "a string", &n);
    if (st != PYKRT_SUCCESS)
        return st;
    *out = pk_dtype_from_name((const char *)n->data.scalar.value);
    if (*out == PYKRT_DTYPE_INVALID)
        return bad(r, n, where, "unknown dtype '%.40s'", (const char *)n->data.scalar.value);
    return PYKRT_SUCCESS;
}

/* Reads map[key] as a sequence: its items and their count (0 if absent). */
static pykrt_status get_seq(reader *r, yaml_node_t *map, const char *key, bool required, const char *where,
                            yaml_node_item_t **items, size_t *count)
{
    yaml_node_t *n;
    pykrt_status st = field(r, map, key, required, where, &n);
    *items = NULL;
    *count = 0;
    if (st != PYKRT_SUCCESS || !n)
        return st;
    char at[160];
    snprintf(at, sizeof at, "%s.%s", where, key);
    if ((st = enter(r, n, YAML_SEQUENCE_NODE, at)) != PYKRT_SUCCESS)
        return st;
    *items = n->data.sequence.items.start;
    *count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
    return PYKRT_SUCCESS;
}

/* Allocates an array of `count` elements of `size` for the manifest. */
static pykrt_status alloc_array(reader *r, size_t count, size_t size, void **out)
{
    *out = NULL;
    if (count == 0)
        return PYKRT_SUCCESS;
    *out = alloc(r->m, count * size); /* count <= the node count, size small: no overflow */
    return *out ? PYKRT_SUCCESS : no_memory(r);
}

/* Enters the mapping that item `i` of a sequence is. */
static pykrt_status item_map(reader *r, yaml_node_item_t *items, size_t i, const char *where, yaml_node_t **out)
{
    *out = node_at(r, items[i]);
    return enter(r, *out, YAML_MAPPING_NODE, where);
}

/* ---- targets ---- */

static bool parse_arch(const char *s, int *sm, char *variant)
{
    if (strncmp(s, "sm_", 3) != 0)
        return false;
    int v = 0, digits = 0;
    for (s += 3; *s >= '0' && *s <= '9' && digits < 5; s++, digits++)
        v = v * 10 + (*s - '0');
    *variant = 0;
    if (*s == 'a' || *s == 'f')
        *variant = *s++;
    *sm = v;
    return digits >= 2 && digits <= 4 && *s == '\0';
}

bool pk_parse_digest(const char *s, uint64_t *out)
{
    static const char prefix[] = "fnv1a64:";
    if (strncmp(s, prefix, sizeof prefix - 1) != 0 || strlen(s) != sizeof prefix - 1 + 16)
        return false;
    uint64_t v = 0;
    for (s += sizeof prefix - 1; *s; s++) {
        int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;
        if (d < 0)
            return false;
        v = v << 4 | (uint64_t)d;
    }
    *out = v;
    return true;
}

/* A host target's arch names a CPU (x86-64-v2, aarch64): which ones run
 * here is the loader's business (module.c), the form is checked here. */
static bool host_arch(const char *s)
{
    size_t n = strlen(s);
    return n >= 1 && n <= 40 && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

static pykrt_status read_target(reader *r, yaml_node_t *map, const char *where, pk_target *t)
{
    static const char *const kinds[] = {"ptx", "cubin", "host", NULL};
    const char *digest;
    int kind = 0;
    yaml_node_t *n;
    pykrt_status st;
    if ((st = get_string(r, map, "arch", true, where, &t->arch)) != PYKRT_SUCCESS ||
        (st = get_string(r, map, "ptx_version", false, where, &t->ptx_version)) != PYKRT_SUCCESS ||
        (st = get_choice(r, map, "kind", true, kinds, where, &kind)) != PYKRT_SUCCESS ||
        (st = get_string(r, map, "file", true, where, &t->file)) != PYKRT_SUCCESS ||
        (st = get_string(r, map, "digest", true, where, &digest)) != PYKRT_SUCCESS)
        return st;
    t->cubin = kind == 1;
    t->host = kind == 2;
    if (t->host ? !host_arch(t->arch) : !parse_arch(t->arch, &t->sm, &t->variant)) {
        field(r, map, "arch", true, where, &n);
        return bad(r, n, where, t->host ? "arch '%.40s' is not a CPU's name, such as x86-64-v2"
                                        : "arch '%.40s' is not of the form sm_75", t->arch);
    }
    if (!pk_parse_digest(digest, &t->digest)) {
        field(r, map, "digest", true, where, &n);
        return bad(r, n, where, "digest '%.40s' is not fnv1a64: and 16 lowercase hex digits", digest);
    }
    return PYKRT_SUCCESS;
}

static pykrt_status read_targets(reader *r, yaml_node_t *root)
{
    yaml_node_item_t *items;
    pykrt_status st = get_seq(r, root, "targets", true, "manifest", &items, &r->m->ntargets);
    if (st != PYKRT_SUCCESS)
        return st;
    if (r->m->ntargets == 0) {
        yaml_node_t *n;
        field(r, root, "targets", true, "manifest", &n);
        return bad(r, n, "manifest.targets", "no targets");
    }
    if ((st = alloc_array(r, r->m->ntargets, sizeof(pk_target), (void **)&r->m->targets)) != PYKRT_SUCCESS)
        return st;
    for (size_t i = 0; i < r->m->ntargets; i++) {
        char where[64];
        yaml_node_t *map;
        snprintf(where, sizeof where, "targets[%zu]", i);
        if ((st = item_map(r, items, i, where, &map)) != PYKRT_SUCCESS ||
            (st = read_target(r, map, where, &r->m->targets[i])) != PYKRT_SUCCESS)
            return st;
    }
    return PYKRT_SUCCESS;
}

/* ---- files to link ---- */

static pykrt_status read_link(reader *r, yaml_node_t *map, const char *where, pk_link *l)
{
    static const char *const kinds[] = {"ptx", "cubin", "fatbin", "object", "library", NULL};
    const char *digest;
    int kind = 0;
    yaml_node_t *n;
    pykrt_status st;
    if ((st = get_string(r, map, "file", true, where, &l->file)) != PYKRT_SUCCESS ||
        (st = get_choice(r, map, "kind", true, kinds, where, &kind)) != PYKRT_SUCCESS ||
        (st = get_string(r, map, "digest", true, where, &digest)) != PYKRT_SUCCESS)
        return st;
    l->kind = (pk_link_kind)kind;
    if (!pk_parse_digest(digest, &l->digest)) {
        field(r, map, "digest", true, where, &n);
        return bad(r, n, where, "digest '%.40s' is not fnv1a64: and 16 lowercase hex digits", digest);
    }
    return PYKRT_SUCCESS;
}

static pykrt_status read_links(reader *r, yaml_node_t *root)
{
    yaml_node_item_t *items;
    pykrt_status st = get_bool(r, root, "device_runtime", "manifest", &r->m->device_runtime);
    if (st == PYKRT_SUCCESS)
        st = get_seq(r, root, "link", false, "manifest", &items, &r->m->nlinks);
    if (st != PYKRT_SUCCESS ||
        (st = alloc_array(r, r->m->nlinks, sizeof(pk_link), (void **)&r->m->links)) != PYKRT_SUCCESS)
        return st;
    for (size_t i = 0; i < r->m->nlinks; i++) {
        char where[64];
        yaml_node_t *map;
        snprintf(where, sizeof where, "link[%zu]", i);
        if ((st = item_map(r, items, i, where, &map)) != PYKRT_SUCCESS ||
            (st = read_link(r, map, where, &r->m->links[i])) != PYKRT_SUCCESS)
            return st;
    }
    return PYKRT_SUCCESS;
}

/* ---- records ---- */

static pykrt_status read_record(reader *r, yaml_node_t *owner, const char *where, int depth,
                                const pykrt_record **out);

/* An array field's shape: 1..PYKRT_MAX_NDIM positive extents. */
static pykrt_status read_field_shape(reader *r, yaml_node_t *map, const char *where, pykrt_field *f, uint64_t *count)
{
    yaml_node_item_t *items;
    size_t n;
    pykrt_status st = get_seq(r, map, "shape", false, where, &items, &n);
    *count = 1;
    if (st != PYKRT_SUCCESS || !items)
        return st;
    yaml_node_t *seq;
    field(r, map, "shape", true, where, &seq);
    if (n < 1 || n > PYKRT_MAX_NDIM)
        return bad(r, seq, where, "'shape' has %zu dimensions, outside 1..%d", n, PYKRT_MAX_NDIM);
    f->ndim = (int)n;
    for (size_t i = 0; i < n; i++) {
        yaml_node_t *e = node_at(r, items[i]);
        const char *s = e->type == YAML_SCALAR_NODE ? (const char *)e->data.scalar.value : "";
        if (e->type != YAML_SCALAR_NODE || e->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
            !parse_int(s, &f->shape[i]) || f->shape[i] < 1 || f->shape[i] > (1ll << 32))
            return bad(r, e, where, "shape[%zu] must be an integer in 1..2^32", i);
        *count *= (uint64_t)f->shape[i];
        if (*count > (1ull << 32))
            return bad(r, seq, where, "'shape' has more than 2^32 elements");
    }
    return PYKRT_SUCCESS;
}

/* One field: {name, dtype, offset[, shape][, record]}, within `size`. */
static pykrt_status read_field(reader *r, yaml_node_t *map, const char *where, int depth, uint64_t size,
                               pykrt_field *f)
{
    int64_t offset;
    uint64_t count;
    pykrt_status st;
    if ((st = get_string(r, map, "name", true, where, &f->name)) != PYKRT_SUCCESS ||
        (st = get_dtype(r, map, where, &f->dtype)) != PYKRT_SUCCESS ||
        (st = get_int(r, map, "offset", true, 0, INT32_MAX, where, &offset)) != PYKRT_SUCCESS ||
        (st = read_field_shape(r, map, where, f, &count)) != PYKRT_SUCCESS)
        return st;
    f->offset = (size_t)offset;
    if (f->dtype == PYKRT_RECORD && (st = read_record(r, map, where, depth + 1, &f->record)) != PYKRT_SUCCESS)
        return st;
    if (f->dtype == PYKRT_XOROSHIRO128P) {
        f->dtype = PYKRT_RECORD;
        f->record = pykrt_xoroshiro128p_record();
    }
    uint64_t bytes = count * (f->record ? f->record->size : pykrt_dtype_size(f->dtype));
    if ((uint64_t)offset > size || bytes > size - (uint64_t)offset) {
        yaml_node_t *n;
        field(r, map, "offset", true, where, &n);
        return bad(r, n, where, "the field's %llu bytes at offset %lld do not fit the record's %llu",
                   (unsigned long long)bytes, (long long)offset, (unsigned long long)size);
    }
    return PYKRT_SUCCESS;
}

static pykrt_status read_fields(reader *r, yaml_node_t *map, const char *where, int depth, pykrt_record *rec)
{
    yaml_node_item_t *items;
    pykrt_field *fields;
    pykrt_status st = get_seq(r, map, "fields", true, where, &items, &rec->nfields);
    if (st == PYKRT_SUCCESS && rec->nfields == 0) {
        yaml_node_t *n;
        field(r, map, "fields", true, where, &n);
        return bad(r, n, where, "a record needs at least one field");
    }
    if (st != PYKRT_SUCCESS ||
        (st = alloc_array(r, rec->nfields, sizeof(pykrt_field), (void **)&fields)) != PYKRT_SUCCESS)
        return st;
    rec->fields = fields;
    for (size_t i = 0; i < rec->nfields; i++) {
        char at[192];
        yaml_node_t *f;
        snprintf(at, sizeof at, "%s.fields[%zu]", where, i);
        if ((st = item_map(r, items, i, at, &f)) != PYKRT_SUCCESS ||
            (st = read_field(r, f, at, depth, rec->size, &fields[i])) != PYKRT_SUCCESS)
            return st;
        for (size_t k = 0; k < i; k++)
            if (strcmp(fields[k].name, fields[i].name) == 0)
                return bad(r, f, at, "field '%.40s' occurs more than once", fields[i].name);
    }
    return PYKRT_SUCCESS;
}

/* owner's `record` key: {size, align, fields}, nested at most
 * PK_RECORD_DEPTH deep. */
static pykrt_status read_record(reader *r, yaml_node_t *owner, const char *where, int depth,
                                const pykrt_record **out)
{
    yaml_node_t *map;
    int64_t size, align;
    char at[160];
    pykrt_status st = field(r, owner, "record", true, where, &map);
    snprintf(at, sizeof at, "%s.record", where);
    if (st != PYKRT_SUCCESS || (st = enter(r, map, YAML_MAPPING_NODE, at)) != PYKRT_SUCCESS)
        return st;
    if (depth > PK_RECORD_DEPTH)
        return bad(r, map, at, "records nest more than %d deep", PK_RECORD_DEPTH);
    pykrt_record *rec = alloc(r->m, sizeof *rec);
    if (!rec)
        return no_memory(r);
    if ((st = get_int(r, map, "size", true, 1, INT32_MAX, at, &size)) != PYKRT_SUCCESS ||
        (st = get_int(r, map, "align", true, 1, 4096, at, &align)) != PYKRT_SUCCESS)
        return st;
    if (align & (align - 1)) {
        yaml_node_t *n;
        field(r, map, "align", true, at, &n);
        return bad(r, n, at, "'align' is %lld, not a power of two", (long long)align);
    }
    rec->size = (size_t)size;
    rec->align = (size_t)align;
    if ((st = read_fields(r, map, at, depth, rec)) != PYKRT_SUCCESS)
        return st;
    *out = rec;
    return PYKRT_SUCCESS;
}

/* ---- kernels ---- */

/* A tuple's members: the dtype of each of its scalars, each a scalar
 * parameter of its own named NAME[j]. */
static pykrt_status read_members(reader *r, yaml_node_t *map, const char *where, pk_param *p)
{
    yaml_node_item_t *items;
    pykrt_status st = get_seq(r, map, "members", true, where, &items, &p->nmembers);
    if (st != PYKRT_SUCCESS)
        return st;
    if (p->nmembers == 0)
        return bad(r, map, where, "a tuple parameter without members");
    if ((st = alloc_array(r, p->nmembers, sizeof(pk_param), (void **)&p->members)) != PYKRT_SUCCESS)
        return st;
    for (size_t j = 0; j < p->nmembers; j++) {
        yaml_node_t *n = node_at(r, items[j]);
        pk_param *m = &p->members[j];
        if (n->type != YAML_SCALAR_NODE)
            return bad(r, n, where, "members[%zu] must be a dtype", j);
        m->dtype = pk_dtype_from_name((const char *)n->data.scalar.value);
        if (m->dtype == PYKRT_DTYPE_INVALID || m->dtype == PYKRT_XOROSHIRO128P)
            return bad(r, n, where, "members[%zu]: unknown scalar dtype '%.40s'", j, (const char *)n->data.scalar.value);
        char name[160];
        snprintf(name, sizeof name, "%s[%zu]", p->name, j);
        char *copy = alloc(r->m, strlen(name) + 1);
        if (!copy)
            return no_memory(r);
        m->name = strcpy(copy, name);
        m->kind = PYKRT_KIND_SCALAR;
        m->access = PYKRT_ACCESS_READ;
    }
    return PYKRT_SUCCESS;
}

static pykrt_status read_param(reader *r, yaml_node_t *map, const char *where, pk_param *p)
{
    static const char *const kinds[] = {"scalar", "array", "tuple", NULL};
    static const char *const layouts[] = {"A", "C", "F", NULL};
    static const char *const access[] = {"read", "write", "readwrite", NULL};
    int kind = 0, layout = 0, acc = -1;
    int64_t ndim = 0;
    const char *tuple_name;
    pykrt_status st;
    if ((st = get_string(r, map, "name", true, where, &p->name)) != PYKRT_SUCCESS ||
        (st = get_choice(r, map, "kind", true, kinds, where, &kind)) != PYKRT_SUCCESS ||
        (st = get_choice(r, map, "access", false, access, where, &acc)) != PYKRT_SUCCESS)
        return st;
    if (kind == 2) { /* a tuple: its dtype is Numba's name of it, its members say what it holds */
        p->kind = PYKRT_KIND_TUPLE;
        p->dtype = PYKRT_DTYPE_INVALID;
        p->access = PYKRT_ACCESS_READ;
        if ((st = get_string(r, map, "dtype", true, where, &tuple_name)) != PYKRT_SUCCESS)
            return st;
        return read_members(r, map, where, p);
    }
    if ((st = get_dtype(r, map, where, &p->dtype)) != PYKRT_SUCCESS)
        return st;
    p->kind = kind == 1 ? PYKRT_KIND_ARRAY : PYKRT_KIND_SCALAR;
    p->access = acc < 0 ? (kind == 1 ? PYKRT_ACCESS_READWRITE : PYKRT_ACCESS_READ) : (pykrt_access)(acc + 1);
    if (p->kind == PYKRT_KIND_SCALAR) {
        if (p->dtype == PYKRT_XOROSHIRO128P || p->dtype == PYKRT_RECORD) {
            yaml_node_t *n;
            field(r, map, "dtype", true, where, &n);
            return bad(r, n, where, "%s is an array dtype, not a scalar's", pykrt_dtype_name(p->dtype));
        }
        return PYKRT_SUCCESS;
    }
    if (p->dtype == PYKRT_RECORD && (st = read_record(r, map, where, 0, &p->record)) != PYKRT_SUCCESS)
        return st;
    if (p->dtype == PYKRT_XOROSHIRO128P) { /* the name of numba.cuda.random's record */
        p->dtype = PYKRT_RECORD;
        p->record = pykrt_xoroshiro128p_record();
    }
    if ((st = get_int(r, map, "ndim", true, 1, PYKRT_MAX_NDIM, where, &ndim)) != PYKRT_SUCCESS ||
        (st = get_choice(r, map, "layout", true, layouts, where, &layout)) != PYKRT_SUCCESS)
        return st;
    p->ndim = (int)ndim;
    p->layout = (pykrt_layout)"ACF"[layout];
    return PYKRT_SUCCESS;
}

/* Parses "shape[3]"-like text after `prefix`; false if it does not match. */
static bool parse_indexed(const char *s, const char *prefix, uint32_t *index)
{
    size_t n = strlen(prefix);
    if (strncmp(s, prefix, n) != 0 || s[n] != '[' || s[n + 1] < '0' || s[n + 1] > '9' || s[n + 2] != ']' ||
        s[n + 3] != '\0')
        return false;
    *index = (uint32_t)(s[n + 1] - '0');
    return true;
}

static bool parse_part(const char *s, pk_part *part, uint32_t *dim);

/* A tuple's part: "[j]", "[j].real" or "[j].imag", j its member. */
static bool parse_member_part(const char *s, pk_part *part, uint32_t *member)
{
    char *end;
    if (s[0] != '[' || s[1] < '0' || s[1] > '9')
        return false;
    errno = 0;
    unsigned long j = strtoul(s + 1, &end, 10);
    if (errno || *end != ']' || j > UINT32_MAX)
        return false;
    *member = (uint32_t)j;
    uint32_t dim;
    if (end[1] == '\0') {
        *part = PK_PART_VALUE;
        return true;
    }
    return end[1] == '.' && parse_part(end + 2, part, &dim) && (*part == PK_PART_REAL || *part == PK_PART_IMAG);
}

static bool parse_part(const char *s, pk_part *part, uint32_t *dim)
{
    static const struct {
        const char *name;
        pk_part part;
    } plain[] = {{"data", PK_PART_DATA}, {"value", PK_PART_VALUE}, {"real", PK_PART_REAL}, {"imag", PK_PART_IMAG}};
    *dim = 0;
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (strcmp(s, plain[i].name) == 0) {
            *part = plain[i].part;
            return true;
        }
    if (parse_indexed(s, "shape", dim)) {
        *part = PK_PART_SHAPE;
        return true;
    }
    if (parse_indexed(s, "strides", dim)) {
        *part = PK_PART_STRIDES;
        return true;
    }
    return false;
}

/* The width of a PTX parameter type; b8 may also be a byte array. */
static uint32_t ptx_type_width(const char *type)
{
    static const struct {
        const char *name;
        uint32_t width;
    } types[] = {{"b8", 1},  {"b16", 2}, {"b32", 4}, {"b64", 8}, {"u8", 1},  {"u16", 2}, {"u32", 4}, {"u64", 8},
                 {"s8", 1},  {"s16", 2}, {"s32", 4}, {"s64", 8}, {"f16", 2}, {"f32", 4}, {"f64", 8}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(type, types[i].name) == 0)
            return types[i].width;
    return 0;
}

/* The bytes a part may supply: the launch path reads `size` bytes from
 * there, so the size must not exceed it (a smaller size takes the low,
 * little-endian bytes). A scalar's value buffer is 16 bytes, zero beyond
 * the value, so any value size up to 16 is safe and zero-extends. */
static const char *part_problem(const pk_param *p, pk_part part, uint32_t dim, uint32_t size)
{
    bool array = p->kind == PYKRT_KIND_ARRAY;
    bool complex = p->dtype == PYKRT_COMPLEX64 || p->dtype == PYKRT_COMPLEX128;
    switch (part) {
    case PK_PART_DATA:
        return !array ? "data of a scalar" : size > 8 ? "data wider than 8 bytes" : NULL;
    case PK_PART_SHAPE:
    case PK_PART_STRIDES:
        if (!array)
            return "shape or strides of a scalar";
        return dim >= (uint32_t)p->ndim ? "dimension beyond the array's ndim" : size > 8 ? "wider than 8 bytes" : NULL;
    case PK_PART_VALUE:
        return array ? "value of an array" : complex ? "value of a complex parameter, which has real and imag" : NULL;
    case PK_PART_REAL:
    case PK_PART_IMAG:
        if (!complex)
            return "real or imag of a non-complex parameter";
        return size > pykrt_dtype_size(p->dtype) / 2 ? "wider than a complex part" : NULL;
    }
    return "unknown part";
}

static pykrt_status read_ptx_param(reader *r, yaml_node_t *map, const char *where, const pk_kernel *k,
                                   pk_ptx_param *x)
{
    int64_t size, align, param;
    const char *part;
    yaml_node_t *n;
    pykrt_status st;
    if ((st = get_string(r, map, "type", true, where, &x->type)) != PYKRT_SUCCESS ||
        (st = get_int(r, map, "size", true, 1, 16, where, &size)) != PYKRT_SUCCESS ||
        (st = get_int(r, map, "align", true, 1, 16, where, &align)) != PYKRT_SUCCESS ||
        (st = get_int(r, map, "param", true, 0, (int64_t)k->nparams - 1, where, &param)) != PYKRT_SUCCESS ||
        (st = get_string(r, map, "part", true, where, &part)) != PYKRT_SUCCESS)
        return st;
    x->size = (uint32_t)size;
    x->align = (uint32_t)align;
    x->param = (uint32_t)param;
    uint32_t width = ptx_type_width(x->type);
    field(r, map, "type", true, where, &n);
    if (width == 0)
        return bad(r, n, where, "unknown PTX type '%.20s'", x->type);
    if (width != x->size && strcmp(x->type, "b8") != 0)
        return bad(r, n, where, "type %s is %u bytes, but size is %u", x->type, width, x->size);
    if (align & (align - 1)) {
        field(r, map, "align", true, where, &n);
        return bad(r, n, where, "align %lld is not a power of two", (long long)align);
    }
    field(r, map, "part", true, where, &n);
    const pk_param *p = &k->params[x->param];
    bool tuple = p->kind == PYKRT_KIND_TUPLE;
    x->member = 0;
    if (tuple ? !parse_member_part(part, &x->part, &x->member) : !parse_part(part, &x->part, &x->dim))
        return bad(r, n, where, "unknown part '%.40s'%s", part, tuple ? " of a tuple ([j], [j].real or [j].imag)" : "");
    if (tuple && x->member >= p->nmembers)
        return bad(r, n, where, "part '%s' of parameter %u (%s): the tuple has %zu members", part, x->param, p->name,
                   p->nmembers);
    const char *problem = part_problem(tuple ? &p->members[x->member] : p, x->part, x->dim, x->size);
    if (problem)
        return bad(r, n, where, "part '%s' of parameter %u (%s): %s", part, x->param, k->params[x->param].name,
                   problem);
    return PYKRT_SUCCESS;
}

static pykrt_status read_params(reader *r, yaml_node_t *map, const char *where, pk_kernel *k)
{
    yaml_node_item_t *items;
    pykrt_status st = get_seq(r, map, "params", true, where, &items, &k->nparams);
    if (st != PYKRT_SUCCESS ||
        (st = alloc_array(r, k->nparams, sizeof(pk_param), (void **)&k->params)) != PYKRT_SUCCESS)
        return st;
    for (size_t i = 0; i < k->nparams; i++) {
        char at[160];
        yaml_node_t *p;
        snprintf(at, sizeof at, "%s.params[%zu]", where, i);
        if ((st = item_map(r, items, i, at, &p)) != PYKRT_SUCCESS ||
            (st = read_param(r, p, at, &k->params[i])) != PYKRT_SUCCESS)
            return st;
    }
    return PYKRT_SUCCESS;
}

/* ---- every part of every parameter, exactly once ---- */

/* A part as a bit of its parameter's mask: data, value and real are bit
 * 0, imag bit 1, shape[i] bit 1 + i, strides[i] bit 1 + PYKRT_MAX_NDIM + i
 * (parts of arrays and of scalars never meet in one mask). */
static uint32_t part_bit(pk_part part, uint32_t dim)
{
    switch (part) {
    case PK_PART_SHAPE:
        return 1u << (1 + dim);
    case PK_PART_STRIDES:
        return 1u << (1 + PYKRT_MAX_NDIM + dim);
    case PK_PART_IMAG:
        return 2u;
    case PK_PART_DATA:
    case PK_PART_VALUE:
    case PK_PART_REAL:
        break;
    }
    return 1u;
}

/* The mask of the parts a parameter has (docs/manifest.md): an array's
 * data, shape[0..ndim) and strides[0..ndim); a complex scalar's real and
 * imag; another scalar's value. */
static uint32_t parts_of(const pk_param *p)
{
    if (p->kind == PYKRT_KIND_ARRAY) {
        uint32_t dims = (1u << p->ndim) - 1;
        return 1u | dims << 1 | dims << (1 + PYKRT_MAX_NDIM);
    }
    return p->dtype == PYKRT_COMPLEX64 || p->dtype == PYKRT_COMPLEX128 ? 3u : 1u;
}

/* The name of the part that `bit` stands for in parameter p. */
static void part_name(const pk_param *p, uint32_t bit, char *buf, size_t size)
{
    int i = 0;
    while (!(bit >> i & 1))
        i++;
    if (p->kind != PYKRT_KIND_ARRAY)
        snprintf(buf, size, "%s", parts_of(p) == 3u ? (i ? "imag" : "real") : "value");
    else if (i == 0)
        snprintf(buf, size, "data");
    else
        snprintf(buf, size, "%s[%d]", i <= PYKRT_MAX_NDIM ? "shape" : "strides", (i - 1) % PYKRT_MAX_NDIM);
}

/* The launch path passes one pointer per ptx_params entry, and the kernel
 * reads every parameter it declares: a part given twice or not at all
 * means arguments in the wrong places or a slot never set. */
/* Each parameter is one unit of parts, a tuple one a member: the unit of
 * parameter p, member m is first[p] + m. */
static size_t *first_units(const pk_kernel *k, size_t *total)
{
    size_t *first = malloc((k->nparams + 1) * sizeof *first);
    if (!first)
        return NULL;
    *total = 0;
    for (size_t p = 0; p < k->nparams; p++) {
        first[p] = *total;
        *total += k->params[p].kind == PYKRT_KIND_TUPLE ? k->params[p].nmembers : 1;
    }
    first[k->nparams] = *total;
    return first;
}

/* The unit's own description: the parameter, or the tuple's member. */
static const pk_param *unit_param(const pk_kernel *k, size_t p, size_t m)
{
    return k->params[p].kind == PYKRT_KIND_TUPLE ? &k->params[p].members[m] : &k->params[p];
}

static pykrt_status check_parts(reader *r, yaml_node_t *map, yaml_node_item_t *items, const char *where,
                                const pk_kernel *k)
{
    size_t total;
    size_t *first = first_units(k, &total);
    uint32_t *have = first ? calloc(total ? total : 1, sizeof *have) : NULL;
    if (!have) {
        free(first);
        return no_memory(r);
    }
    pykrt_status st = PYKRT_SUCCESS;
    char part[32];
    for (size_t i = 0; i < k->nptx && st == PYKRT_SUCCESS; i++) {
        const pk_ptx_param *x = &k->ptx[i];
        uint32_t bit = part_bit(x->part, x->dim);
        const pk_param *u = unit_param(k, x->param, x->member);
        if (have[first[x->param] + x->member] & bit) {
            part_name(u, bit, part, sizeof part);
            st = bad(r, node_at(r, items[i]), where, "ptx_params[%zu] gives part '%s' of parameter %u (%s) again", i,
                     part, x->param, u->name);
        }
        have[first[x->param] + x->member] |= bit;
    }
    for (size_t p = 0; p < k->nparams && st == PYKRT_SUCCESS; p++)
        for (size_t m = 0; first[p] + m < first[p + 1] && st == PYKRT_SUCCESS; m++) {
            const pk_param *u = unit_param(k, p, m);
            uint32_t missing = parts_of(u) & ~have[first[p] + m];
            if (missing) {
                part_name(u, missing & -missing, part, sizeof part);
                st = bad(r, map, where, "ptx_params lack part '%s' of parameter %zu (%s)", part, p, u->name);
            }
        }
    free(have);
    free(first);
    return st;
}

static pykrt_status read_ptx_params(reader *r, yaml_node_t *map, const char *where, pk_kernel *k)
{
    yaml_node_item_t *items;
    pykrt_status st = get_seq(r, map, "ptx_params", true, where, &items, &k->nptx);
    if (st != PYKRT_SUCCESS)
        return st;
    if (k->nptx > 0 && k->nparams == 0)
        return bad(r, map, where, "ptx_params given for a kernel without params");
    if (k->nptx > PK_MAX_PTX_PARAMS)
        return bad(r, map, where, "%zu PTX parameters, more than the %d pykrt supports", k->nptx, PK_MAX_PTX_PARAMS);
    if ((st = alloc_array(r, k->nptx, sizeof(pk_ptx_param), (void **)&k->ptx)) != PYKRT_SUCCESS)
        return st;
    for (size_t i = 0; i < k->nptx; i++) {
        char at[160];
        yaml_node_t *p;
        snprintf(at, sizeof at, "%s.ptx_params[%zu]", where, i);
        if ((st = item_map(r, items, i, at, &p)) != PYKRT_SUCCESS ||
            (st = read_ptx_param(r, p, at, k, &k->ptx[i])) != PYKRT_SUCCESS)
            return st;
    }
    return check_parts(r, map, items, where, k);
}

/* checks: [bounds, div0, assert], what a checked kernel checks: any of
 * them, as debug=True, makes a launch report what a thread raised. */
static pykrt_status read_checks(reader *r, yaml_node_t *map, const char *where, pk_kernel *k)
{
    static const char *const names[] = {"bounds", "div0", "assert"};
    yaml_node_item_t *items;
    size_t count;
    pykrt_status st = get_seq(r, map, "checks", false, where, &items, &count);
    for (size_t i = 0; i < count && st == PYKRT_SUCCESS; i++) {
        yaml_node_t *n = node_at(r, items[i]);
        const char *s = n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : "";
        size_t j = 0;
        while (j < 3 && strcmp(s, names[j]) != 0)
            j++;
        if (j == 3)
            st = bad(r, n, where, "unknown check '%.40s' (bounds, div0, assert)", s);
    }
    k->reports = k->debug || count > 0;
    return st;
}

static pykrt_status read_kernel(reader *r, yaml_node_t *map, const char *where, pk_kernel *k)
{
    int64_t shared = 0;
    pykrt_status st;
    k->carveout = -1; /* absent: the driver's choice */
    if ((st = get_string(r, map, "name", true, where, &k->name)) != PYKRT_SUCCESS ||
        (st = get_string(r, map, "entry", true, where, &k->entry)) != PYKRT_SUCCESS ||
        (st = get_string(r, map, "contiguous", false, where, &k->contiguous)) != PYKRT_SUCCESS ||
        (st = read_params(r, map, where, k)) != PYKRT_SUCCESS ||
        (st = read_ptx_params(r, map, where, k)) != PYKRT_SUCCESS ||
        (st = get_int(r, map, "shared_static", false, 0, UINT32_MAX, where, &shared)) != PYKRT_SUCCESS ||
        (st = get_bool(r, map, "shared_dynamic", where, &k->shared_dynamic)) != PYKRT_SUCCESS ||
        (st = get_int(r, map, "max_threads", false, 0, 1 << 20, where, &k->max_threads)) != PYKRT_SUCCESS ||
        (st = get_int(r, map, "registers", false, 0, 1 << 16, where, &k->registers)) != PYKRT_SUCCESS ||
        (st = get_int(r, map, "shared_memory_carveout", false, -1, 100, where, &k->carveout)) != PYKRT_SUCCESS ||
        (st = get_bool(r, map, "cooperative", where, &k->cooperative)) != PYKRT_SUCCESS ||
        (st = get_bool(r, map, "debug", where, &k->debug)) != PYKRT_SUCCESS ||
        (st = read_checks(r, map, where, k)) != PYKRT_SUCCESS)
        return st;
    k->shared_static = (uint64_t)shared;
    return PYKRT_SUCCESS;
}

static int by_entry(const void *a, const void *b)
{
    return strcmp((*(const pk_kernel *const *)a)->entry, (*(const pk_kernel *const *)b)->entry);
}

/* Each kernel is its own entry, so entries must be unique (names may
 * repeat: a kernel's specialisations share its name); sorting keeps this
 * O(n log n) for the fuzzer's many-kernel inputs. */
static pykrt_status check_unique(reader *r, yaml_node_t *root)
{
    pk_manifest *m = r->m;
    if (m->nkernels < 2)
        return PYKRT_SUCCESS;
    const pk_kernel **sorted = malloc(m->nkernels * sizeof *sorted);
    if (!sorted)
        return no_memory(r);
    for (size_t i = 0; i < m->nkernels; i++)
        sorted[i] = &m->kernels[i];
    qsort(sorted, m->nkernels, sizeof *sorted, by_entry);
    const char *dup = NULL;
    for (size_t i = 1; i < m->nkernels && !dup; i++)
        if (strcmp(sorted[i - 1]->entry, sorted[i]->entry) == 0)
            dup = sorted[i]->entry;
    free(sorted);
    if (!dup)
        return PYKRT_SUCCESS;
    yaml_node_t *n;
    field(r, root, "kernels", true, "manifest", &n);
    return bad(r, n, "manifest.kernels", "two kernels with the entry '%.60s'", dup);
}

/* Whether c can be a's copy for contiguous arrays: the same source kernel
 * and parameters but for some layout-A arrays of a, which c takes
 * C-contiguous. */
static bool copy_fits(const pk_kernel *a, const pk_kernel *c)
{
    if (a == c || strcmp(a->name, c->name) != 0 || a->nparams != c->nparams || a->nptx != c->nptx)
        return false;
    for (size_t i = 0; i < a->nparams; i++) {
        const pk_param *p = &a->params[i], *q = &c->params[i];
        if (p->kind != q->kind || p->dtype != q->dtype || p->ndim != q->ndim || p->nmembers != q->nmembers ||
            (p->record && !(q->record && pk_record_same(p->record, q->record, 0))))
            return false;
        for (size_t j = 0; j < p->nmembers; j++)
            if (p->members[j].dtype != q->members[j].dtype)
                return false;
        if (p->layout != q->layout && !(p->layout == PYKRT_LAYOUT_A && q->layout == PYKRT_LAYOUT_C))
            return false;
    }
    return true;
}

/* `contiguous: ENTRY`: the entry of another kernel that is this one's
 * copy for contiguous arrays, and not a kernel with a copy of its own. */
static pykrt_status read_copies(reader *r, yaml_node_item_t *items)
{
    pk_manifest *m = r->m;
    for (size_t i = 0; i < m->nkernels; i++) {
        pk_kernel *k = &m->kernels[i];
        if (!*k->contiguous)
            continue;
        for (size_t j = 0; j < m->nkernels && !k->copy; j++)
            if (!strcmp(m->kernels[j].entry, k->contiguous))
                k->copy = &m->kernels[j];
        char where[64];
        snprintf(where, sizeof where, "kernels[%zu]", i);
        yaml_node_t *map = node_at(r, items[i]);
        if (!k->copy)
            return bad(r, map, where, "'contiguous' names entry '%.60s', which no kernel has", k->contiguous);
        if (!copy_fits(k, k->copy) || *k->copy->contiguous)
            return bad(r, map, where, "'contiguous' names entry '%.60s', which is not kernel '%.60s' with its "
                       "layout-A arrays C-contiguous", k->contiguous, k->name);
        k->copy->is_copy = true;
    }
    return PYKRT_SUCCESS;
}

static pykrt_status read_kernels(reader *r, yaml_node_t *root)
{
    yaml_node_item_t *items;
    pykrt_status st = get_seq(r, root, "kernels", true, "manifest", &items, &r->m->nkernels);
    if (st != PYKRT_SUCCESS ||
        (st = alloc_array(r, r->m->nkernels, sizeof(pk_kernel), (void **)&r->m->kernels)) != PYKRT_SUCCESS)
        return st;
    for (size_t i = 0; i < r->m->nkernels; i++) {
        char where[64];
        yaml_node_t *map;
        snprintf(where, sizeof where, "kernels[%zu]", i);
        if ((st = item_map(r, items, i, where, &map)) != PYKRT_SUCCESS ||
            (st = read_kernel(r, map, where, &r->m->kernels[i])) != PYKRT_SUCCESS)
            return st;
    }
    st = check_unique(r, root);
    return st == PYKRT_SUCCESS ? read_copies(r, items) : st;
}

/* ---- constants ---- */

static pykrt_status read_shape(reader *r, yaml_node_t *map, const char *where, pk_constant *c, uint64_t *count)
{
    yaml_node_item_t *items;
    pykrt_status st = get_seq(r, map, "shape", true, where, &items, &c->ndim);
    if (st != PYKRT_SUCCESS ||
        (st = alloc_array(r, c->ndim, sizeof(int64_t), (void **)&c->shape)) != PYKRT_SUCCESS)
        return st;
    *count = 1;
    for (size_t i = 0; i < c->ndim; i++) {
        yaml_node_t *n = node_at(r, items[i]);
        const char *s = n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : "";
        if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE || !parse_int(s, &c->shape[i]) ||
            c->shape[i] < 0 || c->shape[i] > (1ll << 32))
            return bad(r, n, where, "shape[%zu] must be an integer in 0..2^32", i);
        *count *= (uint64_t)c->shape[i];
        if (*count > (1ull << 32))
            return bad(r, n, where, "shape has more than 2^32 elements");
    }
    return PYKRT_SUCCESS;
}

static pykrt_status read_constant(reader *r, yaml_node_t *map, const char *where, pk_constant *c)
{
    int64_t size;
    uint64_t count;
    pykrt_status st;
    if ((st = get_string(r, map, "name", true, where, &c->name)) != PYKRT_SUCCESS ||
        (st = get_dtype(r, map, where, &c->dtype)) != PYKRT_SUCCESS ||
        (st = read_shape(r, map, where, c, &count)) != PYKRT_SUCCESS ||
        (st = get_int(r, map, "size", true, 0, INT64_MAX, where, &size)) != PYKRT_SUCCESS)
        return st;
    c->size = (uint64_t)size;
    if (c->dtype == PYKRT_RECORD || c->dtype == PYKRT_XOROSHIRO128P) {
        yaml_node_t *n;
        field(r, map, "dtype", true, where, &n);
        return bad(r, n, where, "a constant cannot be of records");
    }
    if (c->size != count * pykrt_dtype_size(c->dtype)) {
        yaml_node_t *n;
        field(r, map, "size", true, where, &n);
        return bad(r, n, where, "size %llu is not the shape's %llu elements of %s", (unsigned long long)c->size,
                   (unsigned long long)count, pykrt_dtype_name(c->dtype));
    }
    return PYKRT_SUCCESS;
}

static pykrt_status read_constants(reader *r, yaml_node_t *root)
{
    yaml_node_item_t *items;
    pykrt_status st = get_seq(r, root, "constants", false, "manifest", &items, &r->m->nconstants);
    if (st != PYKRT_SUCCESS ||
        (st = alloc_array(r, r->m->nconstants, sizeof(pk_constant), (void **)&r->m->constants)) != PYKRT_SUCCESS)
        return st;
    for (size_t i = 0; i < r->m->nconstants; i++) {
        char where[64];
        yaml_node_t *map;
        snprintf(where, sizeof where, "constants[%zu]", i);
        if ((st = item_map(r, items, i, where, &map)) != PYKRT_SUCCESS ||
            (st = read_constant(r, map, where, &r->m->constants[i])) != PYKRT_SUCCESS)
            return st;
    }
    return PYKRT_SUCCESS;
}

/* ---- exceptions ---- */

static pykrt_status read_exception(reader *r, yaml_node_t *map, const char *where, int64_t index, pk_exception *e)
{
    static const char *const kinds[] = {"raise", "bounds", "div0", NULL};
    pykrt_status st;
    e->kind = PK_EXC_RAISE; /* absent: a raise */
    if ((st = get_int(r, map, "code", true, 1, INT32_MAX, where, &e->code)) != PYKRT_SUCCESS ||
        (st = get_choice(r, map, "kind", false, kinds, where, &e->kind)) != PYKRT_SUCCESS ||
        (st = get_string(r, map, "type", true, where, &e->type)) != PYKRT_SUCCESS ||
        (st = get_string(r, map, "message", false, where, &e->message)) != PYKRT_SUCCESS ||
        (st = get_string(r, map, "function", true, where, &e->function)) != PYKRT_SUCCESS ||
        (st = get_string(r, map, "file", true, where, &e->file)) != PYKRT_SUCCESS ||
        (st = get_int(r, map, "line", true, 1, INT32_MAX, where, &e->line)) != PYKRT_SUCCESS ||
        (st = get_int(r, map, "column", false, 0, INT32_MAX, where, &e->column)) != PYKRT_SUCCESS)
        return st;
    if (e->code != index + 1) {
        yaml_node_t *n;
        field(r, map, "code", true, where, &n);
        return bad(r, n, where, "code %lld, but the exceptions are numbered 1, 2, ... in order", (long long)e->code);
    }
    return PYKRT_SUCCESS;
}

static pykrt_status read_exceptions(reader *r, yaml_node_t *root)
{
    yaml_node_item_t *items;
    pykrt_status st = get_seq(r, root, "exceptions", false, "manifest", &items, &r->m->nexceptions);
    if (st != PYKRT_SUCCESS ||
        (st = alloc_array(r, r->m->nexceptions, sizeof(pk_exception), (void **)&r->m->exceptions)) != PYKRT_SUCCESS)
        return st;
    for (size_t i = 0; i < r->m->nexceptions; i++) {
        char where[64];
        yaml_node_t *map;
        snprintf(where, sizeof where, "exceptions[%zu]", i);
        if ((st = item_map(r, items, i, where, &map)) != PYKRT_SUCCESS ||
            (st = read_exception(r, map, where, (int64_t)i, &r->m->exceptions[i])) != PYKRT_SUCCESS)
            return st;
    }
    return PYKRT_SUCCESS;
}

/* ---- the document ---- */

static pykrt_status read_source(reader *r, yaml_node_t *root)
{
    yaml_node_t *src;
    const char *digest;
    uint64_t d;
    pykrt_status st = field(r, root, "source", false, "manifest", &src);
    if (st != PYKRT_SUCCESS || !src)
        return st;
    if ((st = enter(r, src, YAML_MAPPING_NODE, "source")) != PYKRT_SUCCESS ||
        (st = get_string(r, src, "path", false, "source", &r->m->source_path)) != PYKRT_SUCCESS ||
        (st = get_string(r, src, "digest", false, "source", &digest)) != PYKRT_SUCCESS)
        return st;
    if (*digest && !pk_parse_digest(digest, &d))
        return bad(r, src, "source", "digest '%.40s' is not fnv1a64: and 16 lowercase hex digits", digest);
    return PYKRT_SUCCESS;
}

static pykrt_status read_root(reader *r)
{
    yaml_node_t *root = yaml_document_get_root_node(&r->doc);
    if (!root)
        return pk_fail(PYKRT_ERROR_MANIFEST, "%s: empty manifest", r->name);
    pykrt_status st = enter(r, root, YAML_MAPPING_NODE, "manifest");
    /* The format decides how to read the rest, so it comes first. */
    if (st != PYKRT_SUCCESS ||
        (st = get_int(r, root, "format", true, INT64_MIN, INT64_MAX, "manifest", &r->m->format)) != PYKRT_SUCCESS)
        return st;
    if (r->m->format != PYKRT_MANIFEST_FORMAT) {
        yaml_node_t *n;
        field(r, root, "format", true, "manifest", &n);
        return bad(r, n, "manifest", "unsupported manifest format %lld; this pykrt reads format %d",
                   (long long)r->m->format, PYKRT_MANIFEST_FORMAT);
    }
    if ((st = get_string(r, root, "compiler", false, "manifest", &r->m->compiler)) != PYKRT_SUCCESS ||
        (st = read_source(r, root)) != PYKRT_SUCCESS || (st = read_targets(r, root)) != PYKRT_SUCCESS ||
        (st = read_links(r, root)) != PYKRT_SUCCESS ||
        (st = read_kernels(r, root)) != PYKRT_SUCCESS || (st = read_constants(r, root)) != PYKRT_SUCCESS)
        return st;
    return read_exceptions(r, root);
}

static pykrt_status yaml_error(const yaml_parser_t *p, const char *name)
{
    const char *problem = p->problem ? p->problem : "unknown error";
    if (p->error == YAML_READER_ERROR)
        return pk_fail(PYKRT_ERROR_MANIFEST, "%s: invalid YAML at byte %zu: %s", name, p->problem_offset, problem);
    if (p->error == YAML_MEMORY_ERROR)
        return pk_fail(PYKRT_ERROR_OUT_OF_MEMORY, "%s: out of host memory parsing YAML", name);
    if (p->context)
        return pk_fail(PYKRT_ERROR_MANIFEST, "%s:%zu:%zu: invalid YAML: %s %s", name, p->problem_mark.line + 1,
                       p->problem_mark.column + 1, p->context, problem);
    return pk_fail(PYKRT_ERROR_MANIFEST, "%s:%zu:%zu: invalid YAML: %s", name, p->problem_mark.line + 1,
                   p->problem_mark.column + 1, problem);
}

/* Collections (block or flow) nest at most this deep. A manifest nests
 * five levels; unknown keys may hold a newer compiler's deeper data, but
 * not a 300,000-level sequence that libyaml would build into hundreds of
 * megabytes of nodes. */
#define PK_MAX_DEPTH 64

/* Refuses what the first pass must not let through to the loader. */
static pykrt_status check_event(const yaml_event_t *ev, int *depth, int *documents, const char *name)
{
    yaml_event_type_t type = ev->type;
    const yaml_char_t *anchor = type == YAML_SCALAR_EVENT           ? ev->data.scalar.anchor
                                : type == YAML_SEQUENCE_START_EVENT ? ev->data.sequence_start.anchor
                                : type == YAML_MAPPING_START_EVENT  ? ev->data.mapping_start.anchor
                                                                    : NULL;
    size_t line = ev->start_mark.line + 1, column = ev->start_mark.column + 1;
    if (type == YAML_ALIAS_EVENT || anchor)
        return pk_fail(PYKRT_ERROR_MANIFEST, "%s:%zu:%zu: YAML anchors and aliases are not supported", name, line,
                       column);
    if (type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT) {
        if (++*depth > PK_MAX_DEPTH)
            return pk_fail(PYKRT_ERROR_MANIFEST, "%s:%zu:%zu: YAML nests deeper than %d levels", name, line, column,
                           PK_MAX_DEPTH);
    } else if (type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT) {
        --*depth;
    } else if (type == YAML_DOCUMENT_START_EVENT && ++*documents > 1) {
        /* The loader would read the first and drop the rest unseen. */
        return pk_fail(PYKRT_ERROR_MANIFEST, "%s:%zu:%zu: a second YAML document; a manifest is one document", name,
                       line, column);
    }
    return PYKRT_SUCCESS;
}

/* The first pass: parse events only, refusing anchors and aliases, deep
 * nesting and a second document. */
static pykrt_status check_events(yaml_parser_t *p, const char *name)
{
    int depth = 0, documents = 0;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(p, &ev))
            return yaml_error(p, name);
        pykrt_status st = check_event(&ev, &depth, &documents, name);
        yaml_event_type_t type = ev.type;
        yaml_event_delete(&ev);
        if (st != PYKRT_SUCCESS || type == YAML_STREAM_END_EVENT)
            return st;
    }
}

/* One pass over the text: `load` false checks the events, true loads. */
static pykrt_status parse_pass(const char *text, size_t len, const char *name, yaml_document_t *doc, bool load)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return pk_fail(PYKRT_ERROR_OUT_OF_MEMORY, "%s: out of host memory parsing YAML", name);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    pykrt_status st = PYKRT_SUCCESS;
    if (!load)
        st = check_events(&parser, name);
    else if (!yaml_parser_load(&parser, doc))
        st = yaml_error(&parser, name);
    yaml_parser_delete(&parser);
    return st;
}

static pykrt_status load_document(const char *text, size_t len, const char *name, yaml_document_t *doc)
{
    pykrt_status st = parse_pass(text, len, name, doc, false);
    return st == PYKRT_SUCCESS ? parse_pass(text, len, name, doc, true) : st;
}

/* libyaml's scanner takes time quadratic in the nesting of flow
 * collections ("[[[...]]]": minutes for a megabyte), before the first pass
 * sees an event, so deeper brackets are refused before libyaml sees the
 * text. The count ignores quoting: brackets inside strings only make it
 * stricter, and no manifest string opens dozens of them. */
static bool too_deep(const char *text, size_t len)
{
    int depth = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '[' || text[i] == '{') {
            if (++depth > PK_MAX_DEPTH)
                return true;
        } else if ((text[i] == ']' || text[i] == '}') && depth > 0) {
            depth--;
        }
    }
    return false;
}

pykrt_status pk_manifest_parse(const char *text, size_t len, const char *name, pk_manifest **out)
{
    *out = NULL;
    if (len > PK_MANIFEST_MAX_BYTES)
        return pk_fail(PYKRT_ERROR_MANIFEST, "%s: manifest is %zu bytes, more than the limit of %u", name, len,
                       (unsigned)PK_MANIFEST_MAX_BYTES);
    if (too_deep(text, len))
        return pk_fail(PYKRT_ERROR_MANIFEST, "%s: brackets nest deeper than %d levels", name, PK_MAX_DEPTH);
    reader r;
    memset(&r, 0, sizeof r);
    r.name = name;
    pykrt_status st = load_document(text, len, name, &r.doc);
    if (st != PYKRT_SUCCESS)
        return st;
    r.m = calloc(1, sizeof *r.m);
    st = r.m ? read_root(&r) : no_memory(&r);
    yaml_document_delete(&r.doc);
    if (st != PYKRT_SUCCESS) {
        pk_manifest_free(r.m);
        return st;
    }
    *out = r.m;
    return PYKRT_SUCCESS;
}
