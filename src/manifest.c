/*
 * manifest.c - the YAML launch manifest, written with libyaml's emitter.
 *
 * Takes a Manifest (filled by main from sema's kernels and target's PTX);
 * gives the YAML document that docs/manifest.md describes, format 1, as
 * text, its keys in the documented order. Each list
 * of small maps (parameters, PTX parameters, constants) is written one map
 * a line, in flow style, which reads like a table.
 *
 * Every byte goes through libyaml's events, so quoting and escaping are
 * libyaml's. One thing libyaml cannot know: a string such as "6.3", "on" or
 * "null" would come back from a YAML 1.1 reader (PyYAML, which CuPy users
 * load it with) as a number, a boolean or null, so such strings are written
 * double-quoted. A NULL string is written as YAML's null.
 */
#include "pykc.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#define MANIFEST_FORMAT 1

/* ---- events ----------------------------------------------------------- */

/* The emitter and whether everything so far went through. After the first
 * failure nothing more is emitted; the error is libyaml's `problem`. */
typedef struct Writer {
    yaml_emitter_t em;
    bool ok;
} Writer;

/* Emits an event that was made (made != 0) or reports that it was not. The
 * emitter owns an event once given, whatever the outcome. */
static void put(Writer *w, int made, yaml_event_t *ev) {
    if (!w->ok) {
        if (made) yaml_event_delete(ev);
        return;
    }
    if (!made || !yaml_emitter_emit(&w->em, ev)) w->ok = false;
}

/* Whether a YAML 1.1 reader would resolve plain s to something other than
 * a string: null, a boolean, an integer or a float. */
static bool looks_typed(const char *s) {
    static const char *const words[] = {
        "", "~", "null", "true", "false", "yes", "no", "on", "off", "y", "n", ".inf", "-.inf", "+.inf", ".nan",
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcasecmp(s, words[i]) == 0) return true;
    const char *p = s + (s[0] == '-' || s[0] == '+');
    if (*p == '.') p++;
    return *p >= '0' && *p <= '9';
}

static void put_scalar(Writer *w, const char *s, yaml_scalar_style_t style) {
    yaml_event_t ev;
    int made = yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1, style);
    put(w, made, &ev);
}

static void put_str(Writer *w, const char *s) {
    if (!s) put_scalar(w, "null", YAML_PLAIN_SCALAR_STYLE);
    else put_scalar(w, s, looks_typed(s) ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
}

static void put_int(Writer *w, long v) {
    char buf[24];
    snprintf(buf, sizeof buf, "%ld", v);
    put_scalar(w, buf, YAML_PLAIN_SCALAR_STYLE);
}

static void put_bool(Writer *w, bool v) { put_scalar(w, v ? "true" : "false", YAML_PLAIN_SCALAR_STYLE); }

static void begin_map(Writer *w, bool flow) {
    yaml_event_t ev;
    put(w, yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE), &ev);
}

static void end_map(Writer *w) {
    yaml_event_t ev;
    put(w, yaml_mapping_end_event_initialize(&ev), &ev);
}

static void begin_seq(Writer *w, bool flow) {
    yaml_event_t ev;
    put(w, yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE), &ev);
}

static void end_seq(Writer *w) {
    yaml_event_t ev;
    put(w, yaml_sequence_end_event_initialize(&ev), &ev);
}

static void key(Writer *w, const char *k) { put_scalar(w, k, YAML_PLAIN_SCALAR_STYLE); }

static void key_str(Writer *w, const char *k, const char *v) {
    key(w, k);
    put_str(w, v);
}

static void key_int(Writer *w, const char *k, long v) {
    key(w, k);
    put_int(w, v);
}

static void key_bool(Writer *w, const char *k, bool v) {
    key(w, k);
    put_bool(w, v);
}

/* ---- the document, in the order docs/manifest.md gives ---------------- */

static void write_source(Writer *w, const Manifest *m) {
    key(w, "source");
    begin_map(w, false);
    key_str(w, "path", m->source_path);
    key_str(w, "digest", m->source_digest);
    end_map(w);
}

/* A cubin's entries as ptxas built them: registers a thread, spills. */
static void write_resources(Writer *w, const ManifestTarget *t) {
    key(w, "resources");
    begin_seq(w, false);
    for (int i = 0; i < t->resource_count; i++) {
        begin_map(w, true);
        key_str(w, "entry", t->resources[i].entry);
        key_int(w, "registers", t->resources[i].registers);
        key_int(w, "spill_bytes", t->resources[i].spill_bytes);
        end_map(w);
    }
    end_seq(w);
}

/* A kernel's registers where one cubin says them; 0 (unknown) else. */
static int known_registers(const Manifest *m, const ManifestKernel *k) {
    if (k->registers || m->target_count != 1) return k->registers;
    for (int i = 0; i < m->targets[0].resource_count; i++)
        if (strcmp(m->targets[0].resources[i].entry, k->entry) == 0) return m->targets[0].resources[i].registers;
    return 0;
}

static void write_targets(Writer *w, const Manifest *m) {
    key(w, "targets");
    begin_seq(w, false);
    for (int i = 0; i < m->target_count; i++) {
        const ManifestTarget *t = &m->targets[i];
        begin_map(w, false);
        key_str(w, "arch", t->arch);
        if (t->ptx_version[0]) key_str(w, "ptx_version", t->ptx_version);
        key_str(w, "kind", t->kind);
        key_str(w, "file", t->file);
        key_str(w, "digest", t->digest);
        if (t->resource_count) write_resources(w, t);
        end_map(w);
    }
    end_seq(w);
}

static void write_record(Writer *w, const Record *r);

/* A record's field: {name, dtype, offset}, with the shape of an array
 * field and the layout of a record one. */
static void write_field(Writer *w, const RecordField *f) {
    const Type *t = f->type->kind == TY_ARRAY ? f->type->dtype : f->type;
    char name[16];
    begin_map(w, true);
    key_str(w, "name", f->name);
    if (t->kind == TY_RECORD) snprintf(name, sizeof name, "record");
    else if (t->kind == TY_BOOL) snprintf(name, sizeof name, "bool");
    else if (t->kind == TY_BFLOAT16) snprintf(name, sizeof name, "bfloat16");
    else if (t->kind == TY_INT) snprintf(name, sizeof name, "%sint%d", t->is_signed ? "" : "u", t->bits);
    else snprintf(name, sizeof name, "%s%d", t->kind == TY_FLOAT ? "float" : "complex", t->bits);
    key_str(w, "dtype", name);
    key_int(w, "offset", f->offset);
    if (f->type->kind == TY_ARRAY) {
        key(w, "shape");
        begin_seq(w, true);
        for (int i = 0; i < f->type->ndim; i++) put_int(w, f->type->nested[i]);
        end_seq(w);
    }
    if (t->kind == TY_RECORD) write_record(w, t->record);
    end_map(w);
}

/* record: {size, align, fields: [...]}: the layout of a structured dtype,
 * NumPy's offsets and itemsize, so that a host can build its buffers. */
static void write_record(Writer *w, const Record *r) {
    key(w, "record");
    begin_map(w, true);
    key_int(w, "size", r->size);
    key_int(w, "align", r->align);
    key(w, "fields");
    begin_seq(w, true);
    for (int i = 0; i < r->count; i++) write_field(w, &r->fields[i]);
    end_seq(w);
    end_map(w);
}

/* {name, kind, dtype, ndim, layout, members, access}: ndim and layout for
 * arrays, members for tuples, the layout of a record. */
static void write_param(Writer *w, const ManifestParam *p) {
    begin_map(w, true);
    key_str(w, "name", p->name);
    key_str(w, "kind", p->members ? "tuple" : p->is_array ? "array" : "scalar");
    key_str(w, "dtype", p->dtype);
    if (p->members) {
        key(w, "members");
        begin_seq(w, true);
        for (int i = 0; i < p->member_count; i++) put_str(w, p->members[i]);
        end_seq(w);
    }
    if (p->is_array) {
        char layout[2] = {p->layout, '\0'};
        key_int(w, "ndim", p->ndim);
        key_str(w, "layout", layout);
    }
    key_str(w, "access", p->access);
    if (p->record) write_record(w, p->record);
    end_map(w);
}

static void write_ptx_param(Writer *w, const ManifestPtxParam *p) {
    begin_map(w, true);
    key_str(w, "type", p->type);
    key_int(w, "size", p->size);
    key_int(w, "align", p->align);
    key_int(w, "param", p->param);
    key_str(w, "part", p->part);
    end_map(w);
}

static void write_kernel(Writer *w, const Manifest *m, const ManifestKernel *k) {
    begin_map(w, false);
    key_str(w, "name", k->name);
    key_str(w, "entry", k->entry);
    if (k->contiguous) key_str(w, "contiguous", k->contiguous);
    key(w, "params");
    begin_seq(w, false);
    for (int i = 0; i < k->param_count; i++) write_param(w, &k->params[i]);
    end_seq(w);
    key(w, "ptx_params");
    begin_seq(w, false);
    for (int i = 0; i < k->ptx_param_count; i++) write_ptx_param(w, &k->ptx_params[i]);
    end_seq(w);
    key_int(w, "shared_static", k->shared_static);
    key_bool(w, "shared_dynamic", k->shared_dynamic);
    key_int(w, "max_threads", k->limits.max_threads);
    key_int(w, "min_blocks_per_sm", k->limits.min_blocks);
    key_int(w, "max_blocks_per_cluster", k->limits.max_cluster_blocks);
    key_int(w, "max_registers", k->limits.max_registers);
    key_int(w, "shared_memory_carveout", k->limits.has_carveout ? k->limits.carveout : -1);
    key_int(w, "registers", known_registers(m, k));
    key_bool(w, "cooperative", k->cooperative);
    key_bool(w, "debug", k->debug);
    key(w, "checks");
    begin_seq(w, true);
    static const char *const checks[] = {"bounds", "div0", "assert"};
    for (int i = 0; i < 3; i++)
        if (k->checks & (1u << i)) put_str(w, checks[i]);
    end_seq(w);
    end_map(w);
}

/* {code, kind, type, message, function, file, line, column}: what a
 * thread of a debug=True or checked kernel raised, by the code it leaves
 * in pykc_exception. */
static void write_exception(Writer *w, int code, const ExceptionSite *e) {
    static const char *const kinds[] = {"raise", "bounds", "div0"};
    begin_map(w, true);
    key_int(w, "code", code);
    key_str(w, "kind", kinds[e->kind]);
    key_str(w, "type", e->type);
    if (e->message) key_str(w, "message", e->message);
    key_str(w, "function", e->function);
    const char *slash = strrchr(e->file, '/');
    key_str(w, "file", slash ? slash + 1 : e->file);
    key_int(w, "line", e->line);
    key_int(w, "column", e->column);
    end_map(w);
}

static void write_const(Writer *w, const ManifestConst *c) {
    begin_map(w, true);
    key_str(w, "name", c->name);
    key_str(w, "dtype", c->dtype);
    key(w, "shape");
    begin_seq(w, true);
    for (int i = 0; i < c->ndim; i++) put_int(w, c->shape[i]);
    end_seq(w);
    key_int(w, "size", c->size);
    end_map(w);
}

/* link: what the loader links with the targets' code, where there is any;
 * device_runtime: whether that includes CUDA's device runtime. */
static void write_links(Writer *w, const Manifest *m) {
    if (m->link_count) {
        key(w, "link");
        begin_seq(w, false);
        for (int i = 0; i < m->link_count; i++) {
            begin_map(w, true);
            key_str(w, "file", m->links[i].file);
            key_str(w, "kind", m->links[i].kind);
            key_str(w, "digest", m->links[i].digest);
            end_map(w);
        }
        end_seq(w);
    }
    if (m->device_runtime) key_bool(w, "device_runtime", true);
}

/* The root mapping's first keys, which the targets and what they link end. */
static void write_head(Writer *w, const Manifest *m) {
    key_int(w, "format", MANIFEST_FORMAT);
    key_str(w, "compiler", "pykc " PYKC_VERSION);
    write_source(w, m);
    write_targets(w, m);
    write_links(w, m);
}

/* Its last keys: what the kernels and the constants are. */
static void write_kernels(Writer *w, const Manifest *m) {
    key(w, "kernels");
    begin_seq(w, false);
    for (int i = 0; i < m->kernel_count; i++) write_kernel(w, m, &m->kernels[i]);
    end_seq(w);
    key(w, "constants");
    begin_seq(w, false);
    for (int i = 0; i < m->const_count; i++) write_const(w, &m->consts[i]);
    end_seq(w);
    key(w, "exceptions");
    begin_seq(w, false);
    for (int i = 0; i < m->exception_count; i++) write_exception(w, i + 1, &m->exceptions[i]);
    end_seq(w);
}

/* ---- the text ----------------------------------------------------------- */

typedef struct Text {
    char *data;
    size_t len, cap;
} Text;

/* libyaml's output handler: appends to a Text; 0 when out of memory. */
static int append_text(void *data, unsigned char *bytes, size_t size) {
    Text *t = data;
    if (t->len + size > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + size) cap *= 2;
        char *grown = realloc(t->data, cap);
        if (!grown) return 0;
        t->data = grown;
        t->cap = cap;
    }
    memcpy(t->data + t->len, bytes, size);
    t->len += size;
    return 1;
}

/* The manifest as YAML text into out; false, with libyaml's problem, on
 * failure. */
static bool render(Text *out, const Manifest *m, const char **problem) {
    Writer w = {.ok = true};
    if (!yaml_emitter_initialize(&w.em)) ice("out of memory starting the YAML emitter");
    yaml_emitter_set_output(&w.em, append_text, out);
    yaml_emitter_set_unicode(&w.em, 1); /* Python names may be any letters */
    yaml_emitter_set_width(&w.em, -1);  /* a flow map stays on its line */
    yaml_event_t ev;
    put(&w, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING), &ev);
    put(&w, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1), &ev);
    begin_map(&w, false);
    write_head(&w, m);
    write_kernels(&w, m);
    end_map(&w);
    put(&w, yaml_document_end_event_initialize(&ev, 1), &ev);
    put(&w, yaml_stream_end_event_initialize(&ev), &ev);
    *problem = w.ok ? NULL : w.em.problem ? w.em.problem : "out of memory";
    yaml_emitter_delete(&w.em);
    return w.ok;
}

char *manifest_render(const Manifest *m, size_t *len, Diag *d) {
    Text t = {0};
    const char *problem = NULL;
    if (render(&t, m, &problem)) {
        *len = t.len;
        return t.data;
    }
    diag_plain(d, DIAG_ERROR, "cannot write the manifest: %s", problem);
    free(t.data);
    return NULL;
}
