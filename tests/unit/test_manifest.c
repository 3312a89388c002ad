/* test_manifest.c - FNV-1a digests, and a manifest of two kernels (arrays,
 * a scalar, a complex) written and read back with libyaml's parser: every
 * field, the key order, and the quoting of strings that YAML would take
 * for numbers or booleans. */
#include "pykc.h"
#include "unit.h"

#include <stdlib.h>
#include <unistd.h>
#include <yaml.h>

static void test_digest(void) {
    char out[25];
    digest_fnv1a64("", 0, out);
    ASSERT_STR("fnv1a64:cbf29ce484222325", out);
    digest_fnv1a64("a", 1, out);
    ASSERT_STR("fnv1a64:af63dc4c8601ec8c", out);
    digest_fnv1a64("foobar", 6, out);
    ASSERT_STR("fnv1a64:85944171f73967e8", out);
}

/* saxpy(a: float32, x: float32[::1], out: float32[:, :]) and
 * scale(z: complex64, on: int64[:], t: Tuple((int32, complex64))) - `on`
 * is a name YAML 1.1 reads as true. */
static ManifestParam saxpy_params[] = {
    {"a", false, "float32", 0, 0, "read", NULL, NULL, 0},
    {"x", true, "float32", 1, 'C', "read", NULL, NULL, 0},
    {"out", true, "float32", 2, 'A', "readwrite", NULL, NULL, 0},
};
static const char *tuple_members[] = {"int32", "complex64"};
static ManifestPtxParam saxpy_ptx[] = {
    {"f32", 4, 4, 0, "value"},   {"u64", 8, 8, 1, "data"},     {"u64", 8, 8, 1, "shape[0]"},
    {"u64", 8, 8, 2, "data"},    {"u64", 8, 8, 2, "shape[0]"}, {"u64", 8, 8, 2, "shape[1]"},
    {"u64", 8, 8, 2, "strides[0]"}, {"u64", 8, 8, 2, "strides[1]"},
};
static ManifestParam scale_params[] = {
    {"z", false, "complex64", 0, 0, "read", NULL, NULL, 0},
    {"on", true, "int64", 1, 'F', "write", NULL, NULL, 0},
    {"t", false, "Tuple(int32, complex64)", 0, 0, "read", NULL, tuple_members, 2},
};
static ManifestPtxParam scale_ptx[] = {
    {"f32", 4, 4, 0, "real"}, {"f32", 4, 4, 0, "imag"}, {"u64", 8, 8, 1, "data"},
    {"u64", 8, 8, 1, "shape[0]"}, {"u64", 8, 8, 1, "strides[0]"}, {"u32", 4, 4, 2, "[0]"},
    {"f32", 4, 4, 2, "[1].real"}, {"f32", 4, 4, 2, "[1].imag"},
};

static Manifest sample(void) {
    static EntryResources sm90a_resources[] = {{"_Z5scale", 40, 8}};
    static ManifestTarget targets[] = {
        {"sm_75", "6.3", "ptx", "k.sm_75.ptx", "fnv1a64:0123456789abcdef", NULL, 0},
        {"sm_90a", "8.0", "cubin", "k.sm_90a.cubin", "fnv1a64:fedcba9876543210", sm90a_resources, 1},
    };
    static ManifestKernel kernels[] = {
        {"saxpy", "saxpy", NULL, saxpy_params, 3, saxpy_ptx, 8, 0, false, {0, 0, 0, 0, false, 0}, 0, false, false, 0},
        {"scale", "_Z5scale", "_Z5scale__c", scale_params, 3, scale_ptx, 8, 4096, true, {256, 2, 0, 64, true, 100}, 32, true, true, CHECK_BOUNDS | CHECK_DIV0},
    };
    static const long lut_shape[] = {4, 4};
    static ManifestConst consts[] = {{"LUT", "float32", 2, lut_shape, 64}};
    static const ExceptionSite exceptions[] = {{EXC_RAISE, "AssertionError", "bad index", "scale", "src/k.pyk", 12, 5},
                                               {EXC_BOUNDS, "IndexError", NULL, "scale", "k.pyk", 14, 9}};
    return (Manifest){"samples/k.pyk", "fnv1a64:e71fa2190541574b", targets, 2, kernels, 2, consts, 1, exceptions, 2,
                      NULL, 0, false};
}

/* ---- reading back ----------------------------------------------------- */

static yaml_node_t *get(yaml_document_t *doc, yaml_node_t *map, const char *key) {
    if (!map || map->type != YAML_MAPPING_NODE) return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(doc, p->key);
        if (k && k->type == YAML_SCALAR_NODE && strcmp((char *)k->data.scalar.value, key) == 0)
            return yaml_document_get_node(doc, p->value);
    }
    return NULL;
}

static yaml_node_t *item(yaml_document_t *doc, yaml_node_t *seq, int i) {
    if (!seq || seq->type != YAML_SEQUENCE_NODE) return NULL;
    yaml_node_item_t *it = seq->data.sequence.items.start + i;
    return it < seq->data.sequence.items.top ? yaml_document_get_node(doc, *it) : NULL;
}

static int count(yaml_node_t *n) {
    if (n && n->type == YAML_SEQUENCE_NODE) return (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (n && n->type == YAML_MAPPING_NODE) return (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    return -1;
}

static const char *text(yaml_node_t *n) {
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : "(none)";
}

/* The scalar at path "a/b/c" of the document's root; numbers index lists. */
static yaml_node_t *at(yaml_document_t *doc, const char *path) {
    yaml_node_t *n = yaml_document_get_root_node(doc);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *part = strtok(buf, "/"); part && n; part = strtok(NULL, "/"))
        n = part[0] >= '0' && part[0] <= '9' ? item(doc, n, atoi(part)) : get(doc, n, part);
    return n;
}

#define ASSERT_AT(doc, path, want) ASSERT_STR((want), text(at((doc), (path))))

static bool load(const char *text, size_t len, yaml_document_t *doc) {
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    bool ok = yaml_parser_load(&parser, doc) && yaml_document_get_root_node(doc);
    yaml_parser_delete(&parser);
    return ok;
}

static void check_top(yaml_document_t *doc) {
    static const char *const order[] = {"format", "compiler", "source", "targets", "kernels", "constants", "exceptions"};
    yaml_node_t *root = yaml_document_get_root_node(doc);
    ASSERT(count(root) == 7);
    for (int i = 0; i < 7 && i < count(root); i++)
        ASSERT_STR(order[i], text(yaml_document_get_node(doc, root->data.mapping.pairs.start[i].key)));
    ASSERT_AT(doc, "format", "1");
    ASSERT_AT(doc, "compiler", "pykc " PYKC_VERSION);
    ASSERT_AT(doc, "source/path", "samples/k.pyk");
    ASSERT_AT(doc, "source/digest", "fnv1a64:e71fa2190541574b");
    ASSERT(count(at(doc, "targets")) == 2);
    ASSERT_AT(doc, "targets/0/arch", "sm_75");
    ASSERT_AT(doc, "targets/0/ptx_version", "6.3");
    ASSERT(at(doc, "targets/0/ptx_version")->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE);
    ASSERT_AT(doc, "targets/0/kind", "ptx");
    ASSERT_AT(doc, "targets/1/kind", "cubin");
    ASSERT_AT(doc, "targets/1/file", "k.sm_90a.cubin");
    ASSERT_AT(doc, "targets/1/digest", "fnv1a64:fedcba9876543210");
}

static void check_kernels(yaml_document_t *doc) {
    ASSERT(count(at(doc, "kernels")) == 2);
    ASSERT_AT(doc, "kernels/0/name", "saxpy");
    ASSERT(count(at(doc, "kernels/0/params")) == 3);
    ASSERT(count(at(doc, "kernels/0/params/0")) == 4); /* a scalar: no ndim, no layout */
    ASSERT_AT(doc, "kernels/0/params/0/kind", "scalar");
    ASSERT_AT(doc, "kernels/0/params/0/access", "read");
    ASSERT_AT(doc, "kernels/0/params/1/kind", "array");
    ASSERT_AT(doc, "kernels/0/params/1/ndim", "1");
    ASSERT_AT(doc, "kernels/0/params/1/layout", "C");
    ASSERT_AT(doc, "kernels/0/params/2/access", "readwrite");
    ASSERT(count(at(doc, "kernels/0/ptx_params")) == 8);
    ASSERT_AT(doc, "kernels/0/ptx_params/7/part", "strides[1]");
    ASSERT_AT(doc, "kernels/0/ptx_params/7/param", "2");
    ASSERT_AT(doc, "kernels/0/ptx_params/0/type", "f32");
    ASSERT_AT(doc, "kernels/0/shared_dynamic", "false");
    ASSERT_AT(doc, "kernels/1/entry", "_Z5scale");
    ASSERT(at(doc, "kernels/0/contiguous") == NULL); /* no copy for contiguous arrays: no key */
    ASSERT_AT(doc, "kernels/1/contiguous", "_Z5scale__c");
    ASSERT_AT(doc, "kernels/1/params/0/dtype", "complex64");
    ASSERT_AT(doc, "kernels/1/params/1/name", "on");
    ASSERT(at(doc, "kernels/1/params/1/name")->data.scalar.style != YAML_PLAIN_SCALAR_STYLE);
    ASSERT_AT(doc, "kernels/1/params/1/layout", "F");
    ASSERT_AT(doc, "kernels/1/params/2/kind", "tuple");
    ASSERT_AT(doc, "kernels/1/params/2/dtype", "Tuple(int32, complex64)");
    ASSERT(count(at(doc, "kernels/1/params/2/members")) == 2);
    ASSERT_AT(doc, "kernels/1/params/2/members/1", "complex64");
    ASSERT(count(at(doc, "kernels/1/params/2")) == 5); /* name kind dtype members access */
    ASSERT_AT(doc, "kernels/1/ptx_params/6/part", "[1].real");
    ASSERT_AT(doc, "kernels/1/ptx_params/1/part", "imag");
    ASSERT_AT(doc, "kernels/1/ptx_params/1/size", "4");
    ASSERT_AT(doc, "kernels/1/shared_static", "4096");
    ASSERT_AT(doc, "kernels/1/shared_dynamic", "true");
    ASSERT_AT(doc, "kernels/1/max_threads", "256");
    ASSERT_AT(doc, "kernels/1/min_blocks_per_sm", "2");
    ASSERT_AT(doc, "kernels/1/max_blocks_per_cluster", "0");
    ASSERT_AT(doc, "kernels/1/max_registers", "64");
    ASSERT_AT(doc, "kernels/1/shared_memory_carveout", "100");
    ASSERT_AT(doc, "kernels/0/shared_memory_carveout", "-1");
    ASSERT_AT(doc, "kernels/1/registers", "32");
    ASSERT_AT(doc, "kernels/1/cooperative", "true");
    ASSERT_AT(doc, "kernels/1/debug", "true");
    ASSERT_AT(doc, "kernels/0/debug", "false");
    ASSERT(count(at(doc, "exceptions")) == 2);
    ASSERT_AT(doc, "exceptions/0/code", "1");
    ASSERT_AT(doc, "exceptions/0/type", "AssertionError");
    ASSERT_AT(doc, "exceptions/0/message", "bad index");
    ASSERT_AT(doc, "exceptions/0/file", "k.pyk");
    ASSERT_AT(doc, "exceptions/0/line", "12");
    ASSERT_AT(doc, "exceptions/0/kind", "raise");
    ASSERT_AT(doc, "exceptions/0/column", "5");
    ASSERT_AT(doc, "exceptions/1/code", "2");
    ASSERT_AT(doc, "exceptions/1/kind", "bounds");
    ASSERT_AT(doc, "kernels/1/checks/0", "bounds");
    ASSERT_AT(doc, "targets/1/resources/0/entry", "_Z5scale");
    ASSERT_AT(doc, "targets/1/resources/0/registers", "40");
    ASSERT_AT(doc, "targets/1/resources/0/spill_bytes", "8");
    ASSERT(at(doc, "targets/0/resources") == NULL);
    ASSERT_AT(doc, "kernels/1/checks/1", "div0");
    ASSERT(count(at(doc, "kernels/1/checks")) == 2);
    ASSERT(count(at(doc, "kernels/0/checks")) == 0);
    ASSERT(at(doc, "exceptions/1/message") == NULL);
    ASSERT_AT(doc, "constants/0/name", "LUT");
    ASSERT(count(at(doc, "constants/0/shape")) == 2);
    ASSERT_AT(doc, "constants/0/shape/1", "4");
    ASSERT_AT(doc, "constants/0/size", "64");
}

/* Files to link and the device runtime: keys after the targets, written
 * only where there is something to say (a manifest without them is the
 * one above, byte for byte what it was). */
static void check_links(Diag *d) {
    static const ManifestLink links[] = {{"dev.ptx", "ptx", "fnv1a64:00000000000000aa"},
                                         {"util.a", "library", "fnv1a64:00000000000000bb"}};
    Manifest m = sample();
    m.links = links;
    m.link_count = 2;
    m.device_runtime = true;
    size_t len = 0;
    char *yaml = manifest_render(&m, &len, d);
    yaml_document_t doc;
    bool loaded = yaml && load(yaml, len, &doc);
    free(yaml);
    ASSERT(loaded);
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    ASSERT(count(root) == 9);
    ASSERT_STR("link", text(yaml_document_get_node(&doc, root->data.mapping.pairs.start[4].key)));
    ASSERT_STR("device_runtime", text(yaml_document_get_node(&doc, root->data.mapping.pairs.start[5].key)));
    ASSERT_AT(&doc, "link/0/file", "dev.ptx");
    ASSERT_AT(&doc, "link/0/kind", "ptx");
    ASSERT_AT(&doc, "link/1/kind", "library");
    ASSERT_AT(&doc, "link/1/digest", "fnv1a64:00000000000000bb");
    ASSERT_AT(&doc, "device_runtime", "true");
    yaml_document_delete(&doc);
}

void test_manifest(void) {
    test_digest();
    Diag d;
    diag_init(&d, stderr);
    Manifest m = sample();
    size_t len = 0;
    char *text = manifest_render(&m, &len, &d);
    ASSERT(text && memchr(text, '\0', len) == NULL);
    yaml_document_t doc;
    if (text && load(text, len, &doc)) {
        check_top(&doc);
        check_kernels(&doc);
        yaml_document_delete(&doc);
    } else {
        ASSERT(!"the manifest parses");
    }
    free(text);
    check_links(&d);
    diag_free(&d);
}
