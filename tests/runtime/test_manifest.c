/*
 * test_manifest.c - the manifest reader: the fixtures parse to what they
 * say, and every kind of broken manifest (truncated, wrong types, unknown
 * format, missing fields, inconsistent ptx_params, aliases, too large,
 * stale or missing PTX) is refused with a message that says where and why.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_test.h"
#include "runtime.h"

static pk_manifest *parse_file(const char *name)
{
    size_t len = 0;
    char *text = t_read(t_path(name), &len);
    pk_manifest *m = NULL;
    if (text && pk_manifest_parse(text, len, name, &m) != PYKRT_SUCCESS)
        printf("%s\n", pykrt_last_error());
    free(text);
    return m;
}

static void test_parse_vadd(void)
{
    pk_manifest *m = parse_file("vadd.yaml");
    ASSERT(m != NULL);
    ASSERT_EQ(1, m->format);
    ASSERT_STR("pykc 0.1.0", m->compiler);
    ASSERT_STR("vadd.pyk", m->source_path);
    ASSERT_EQ(1, m->ntargets);
    ASSERT_STR("sm_75", m->targets[0].arch);
    ASSERT_EQ(75, m->targets[0].sm);
    ASSERT_STR("6.3", m->targets[0].ptx_version);
    ASSERT(!m->targets[0].cubin);
    ASSERT_STR("vadd.ptx", m->targets[0].file);
    ASSERT_EQ(1, m->nkernels);
    pk_kernel *k = &m->kernels[0];
    ASSERT_STR("vadd", k->name);
    ASSERT_STR("vadd", k->entry);
    ASSERT_EQ(3, k->nparams);
    ASSERT_STR("out", k->params[2].name);
    ASSERT_EQ(PYKRT_KIND_ARRAY, k->params[2].kind);
    ASSERT_EQ(PYKRT_FLOAT32, k->params[2].dtype);
    ASSERT_EQ(PYKRT_LAYOUT_A, k->params[2].layout);
    ASSERT_EQ(PYKRT_ACCESS_WRITE, k->params[2].access);
    ASSERT_EQ(9, k->nptx);
    ASSERT_EQ(2, k->ptx[8].param);
    ASSERT_EQ(PK_PART_STRIDES, k->ptx[8].part);
    ASSERT_EQ(0, k->ptx[8].dim);
    ASSERT_EQ(0, m->nconstants);
    pk_manifest_free(m);
}

/* linked.yaml (pykc's, fixtures/linked.pyk): a file to link, with its
 * kind and digest; a minimal manifest may ask for the device runtime. */
static void test_parse_links(void)
{
    pk_manifest *m = parse_file("linked.yaml");
    ASSERT(m != NULL);
    ASSERT_EQ(1, m->nlinks);
    ASSERT_STR("linked_dev.ptx", m->links[0].file);
    ASSERT_EQ(PK_LINK_PTX, m->links[0].kind);
    size_t len = 0;
    char *dev = t_read(t_path("linked_dev.ptx"), &len);
    ASSERT(dev != NULL);
    uint64_t digest = pk_fnv1a64(dev, len);
    free(dev);
    ASSERT_EQ((long long)digest, (long long)m->links[0].digest);
    ASSERT(!m->device_runtime);
    pk_manifest_free(m);
    static const char text[] = "format: 1\ntargets: [{arch: sm_75, kind: cubin, file: k.cubin, digest: "
                               "\"fnv1a64:0123456789abcdef\"}]\ndevice_runtime: true\nlink:\n"
                               "  - {file: a.a, kind: library, digest: \"fnv1a64:0123456789abcdef\"}\n"
                               "  - {file: b.fatbin, kind: fatbin, digest: \"fnv1a64:0123456789abcdef\"}\n"
                               "kernels: []\n";
    ASSERT_OK(pk_manifest_parse(text, sizeof text - 1, "t.yaml", &m));
    ASSERT(m->device_runtime);
    ASSERT_EQ(2, m->nlinks);
    ASSERT_EQ(PK_LINK_LIBRARY, m->links[0].kind);
    ASSERT_EQ(PK_LINK_FATBIN, m->links[1].kind);
    pk_manifest_free(m);
}

static void test_parse_abi(void)
{
    pk_manifest *m = parse_file("abi.yaml");
    ASSERT(m != NULL);
    ASSERT_EQ(8, m->nkernels);
    pk_kernel *s = &m->kernels[0];
    ASSERT_EQ(15, s->nparams);
    ASSERT_EQ(19, s->nptx);
    ASSERT_EQ(PYKRT_COMPLEX64, s->params[12].dtype);
    ASSERT_EQ(PK_PART_IMAG, s->ptx[13].part);
    ASSERT_EQ(PYKRT_BOOL, s->params[11].dtype);
    ASSERT_EQ(PYKRT_ACCESS_READ, s->params[0].access);
    pk_kernel *a = &m->kernels[1];
    ASSERT_EQ(PYKRT_LAYOUT_F, a->params[1].layout);
    pk_kernel *t = &m->kernels[6];
    ASSERT_STR("tuples", t->name);
    ASSERT_EQ(PYKRT_KIND_TUPLE, t->params[0].kind);
    ASSERT_EQ(4, t->params[0].nmembers);
    ASSERT_EQ(PYKRT_COMPLEX64, t->params[0].members[3].dtype);
    ASSERT_STR("t[3]", t->params[0].members[3].name);
    ASSERT_EQ(3, t->ptx[4].member);
    ASSERT_EQ(PK_PART_IMAG, t->ptx[4].part);
    ASSERT_EQ(3, a->params[2].ndim);
    ASSERT_EQ(PK_PART_STRIDES, a->ptx[16].part);
    ASSERT_EQ(2, a->ptx[16].dim);
    ASSERT(m->kernels[2].cooperative);
    ASSERT(m->kernels[3].shared_dynamic);
    ASSERT_EQ(64, m->kernels[4].max_threads);
    ASSERT_EQ(PYKRT_RECORD, m->kernels[5].params[0].dtype); /* numba.cuda.random's states, as pykc writes them */
    ASSERT(pk_record_same(m->kernels[5].params[0].record, pykrt_xoroshiro128p_record(), 0));
    ASSERT_EQ(2, m->kernels[5].params[0].record->nfields);
    ASSERT_STR("s1", m->kernels[5].params[0].record->fields[1].name);
    ASSERT_EQ(0, m->kernels[7].nparams);
    ASSERT_EQ(1, m->nconstants);
    ASSERT_STR("coeffs", m->constants[0].name);
    ASSERT_EQ(1, m->constants[0].ndim);
    ASSERT_EQ(16, m->constants[0].shape[0]);
    ASSERT_EQ(64, m->constants[0].size);
    pk_manifest_free(m);
}

static void test_fnv1a64(void)
{
    ASSERT_EQ((long long)0xcbf29ce484222325ull, (long long)pk_fnv1a64("", 0));
    ASSERT_EQ((long long)0xaf63dc4c8601ec8cull, (long long)pk_fnv1a64("a", 1));
    ASSERT_EQ((long long)0x85944171f73967e8ull, (long long)pk_fnv1a64("foobar", 6));
}

/* A valid one-kernel manifest with one piece replaced. */
#define HEAD "format: 1\ntargets:\n  - {arch: sm_75, kind: ptx, file: k.ptx, digest: \"fnv1a64:0123456789abcdef\"}\n"
#define KERNEL(params, ptx) "kernels:\n  - name: k\n    entry: k\n    params:\n" params "    ptx_params:\n" ptx
#define P_ARRAY "      - {name: x, kind: array, dtype: float32, ndim: 1, layout: C}\n"
#define PTX_DATA "      - {type: u64, size: 8, align: 8, param: 0, part: data}\n"
/* an array parameter of records laid out as `layout` */
#define REC(layout) "      - {name: x, kind: array, dtype: record, ndim: 1, layout: C, record: " layout "}\n"
#define PTX_X PTX_DATA PTX_U64(0, "shape[0]") PTX_U64(0, "strides[0]")
#define PTX_U64(param, part) "      - {type: u64, size: 8, align: 8, param: " #param ", part: \"" part "\"}\n"
#define P_SCALAR(name, dtype) "      - {name: " name ", kind: scalar, dtype: " dtype "}\n"
#define P_TUPLE(members) "      - {name: t, kind: tuple, dtype: \"a tuple\", members: " members "}\n"
#define PTX_U32(param, part) "      - {type: u32, size: 4, align: 4, param: " #param ", part: \"" part "\"}\n"

static const struct {
    const char *text;
    pykrt_status status;
    const char *message;
} bad[] = {
    {"", PYKRT_ERROR_MANIFEST, "t.yaml: empty manifest"},
    {"- a\n- b\n", PYKRT_ERROR_MANIFEST, "t.yaml:1:1: manifest: expected a mapping"},
    {"format: 1\ntargets: [", PYKRT_ERROR_MANIFEST, "t.yaml:3:1: invalid YAML: while parsing a flow node"},
    {"format: 1\n  bad indent: [\n", PYKRT_ERROR_MANIFEST, "invalid YAML"},
    {"format: 2\ntargets: whatever\n", PYKRT_ERROR_MANIFEST,
     "t.yaml:1:9: manifest: unsupported manifest format 2; this pykrt reads format 1"},
    {"format: one\n", PYKRT_ERROR_MANIFEST, "'format' must be an integer, not 'one'"},
    {"format: \"1\"\n", PYKRT_ERROR_MANIFEST, "'format' must be an integer"},
    {"format: 99999999999999999999\n", PYKRT_ERROR_MANIFEST, "'format' must be an integer"},
    {"format: 1\nformat: 1\n", PYKRT_ERROR_MANIFEST, "duplicate key 'format'"},
    {"targets: []\n", PYKRT_ERROR_MANIFEST, "manifest: missing field 'format'"},
    {"format: 1\nkernels: []\n", PYKRT_ERROR_MANIFEST, "missing field 'targets'"},
    {"format: 1\ntargets: []\nkernels: []\n", PYKRT_ERROR_MANIFEST, "manifest.targets: no targets"},
    {"format: 1\ntargets: {a: 1}\n", PYKRT_ERROR_MANIFEST, "manifest.targets: expected a sequence"},
    {"format: 1\ntargets: [{arch: sm_75, kind: elf, file: k, digest: x}]\n", PYKRT_ERROR_MANIFEST,
     "targets[0]: unknown kind 'elf'"},
    {"format: 1\ntargets: [{arch: compute_75, kind: ptx, file: k, digest: \"fnv1a64:0123456789abcdef\"}]\n",
     PYKRT_ERROR_MANIFEST, "arch 'compute_75' is not of the form sm_75"},
    {"format: 1\ntargets: [{arch: x86 64, kind: host, file: k.so, digest: \"fnv1a64:0123456789abcdef\"}]\n",
     PYKRT_ERROR_MANIFEST, "targets[0]: arch 'x86 64' is not a CPU's name, such as x86-64-v2"},
    {"format: 1\ntargets: [{arch: x86-64-v2, kind: ptx, file: k, digest: \"fnv1a64:0123456789abcdef\"}]\n",
     PYKRT_ERROR_MANIFEST, "arch 'x86-64-v2' is not of the form sm_75"},
    {"format: 1\ntargets: [{arch: sm_75, kind: ptx, file: k, digest: \"fnv1a64:0123\"}]\n", PYKRT_ERROR_MANIFEST,
     "digest 'fnv1a64:0123' is not fnv1a64: and 16 lowercase hex digits"},
    {"format: 1\ntargets: [{arch: sm_75, kind: ptx, file: k, digest: \"fnv1a64:0123456789ABCDEF\"}]\n",
     PYKRT_ERROR_MANIFEST, "is not fnv1a64:"},
    {"format: 1\ntargets: [{arch: sm_75, kind: ptx, file: [k], digest: x}]\n", PYKRT_ERROR_MANIFEST,
     "'file' must be a string"},
    {HEAD, PYKRT_ERROR_MANIFEST, "missing field 'kernels'"},
    {HEAD "kernels:\n  - {name: k}\n", PYKRT_ERROR_MANIFEST, "kernels[0]: missing field 'entry'"},
    {HEAD "kernels:\n  - {name: '', entry: k}\n", PYKRT_ERROR_MANIFEST, "kernels[0]: 'name' is empty"},
    {HEAD KERNEL("      - {name: x, kind: array, dtype: float128, ndim: 1, layout: C}\n", PTX_DATA),
     PYKRT_ERROR_MANIFEST, "t.yaml:8:39: kernels[0].params[0]: unknown dtype 'float128'"},
    {HEAD KERNEL("      - {name: x, kind: array, dtype: float32, ndim: two, layout: C}\n", PTX_DATA),
     PYKRT_ERROR_MANIFEST, "'ndim' must be an integer, not 'two'"},
    {HEAD KERNEL("      - {name: x, kind: array, dtype: float32, ndim: 9, layout: C}\n", PTX_DATA),
     PYKRT_ERROR_MANIFEST, "'ndim' is 9, outside 1..8"},
    {HEAD KERNEL("      - {name: x, kind: array, dtype: float32, ndim: 1, layout: X}\n", PTX_DATA),
     PYKRT_ERROR_MANIFEST, "unknown layout 'X'"},
    {HEAD KERNEL("      - {name: x, kind: array, dtype: float32, ndim: 1}\n", PTX_DATA), PYKRT_ERROR_MANIFEST,
     "missing field 'layout'"},
    {HEAD KERNEL("      - {name: x, kind: pointer, dtype: float32}\n", PTX_DATA), PYKRT_ERROR_MANIFEST,
     "unknown kind 'pointer'"},
    {HEAD KERNEL("      - {name: s, kind: scalar, dtype: xoroshiro128p}\n", PTX_DATA), PYKRT_ERROR_MANIFEST,
     "xoroshiro128p is an array dtype"},
    {HEAD KERNEL("      - {name: s, kind: scalar, dtype: record}\n", PTX_DATA), PYKRT_ERROR_MANIFEST,
     "record is an array dtype, not a scalar's"},
    /* the name of numba.cuda.random's record reads as its layout */
    {HEAD KERNEL("      - {name: x, kind: array, dtype: xoroshiro128p, ndim: 1, layout: C}\n", PTX_DATA),
     PYKRT_ERROR_MANIFEST, "ptx_params lack part 'shape[0]' of parameter 0 (x)"},
    /* a well-formed record: the reader goes on to the ptx_params */
    {HEAD KERNEL(REC("{size: 8, align: 4, fields: [{name: x, dtype: float32, offset: 0}]}"), PTX_DATA),
     PYKRT_ERROR_MANIFEST, "ptx_params lack part 'shape[0]' of parameter 0 (x)"},
    {HEAD KERNEL("      - {name: x, kind: array, dtype: record, ndim: 1, layout: C}\n", PTX_DATA),
     PYKRT_ERROR_MANIFEST, "kernels[0].params[0]: missing field 'record'"},
    {HEAD KERNEL(REC("{size: 8, align: 3, fields: [{name: x, dtype: float32, offset: 0}]}"), PTX_DATA),
     PYKRT_ERROR_MANIFEST, "kernels[0].params[0].record: 'align' is 3, not a power of two"},
    {HEAD KERNEL(REC("{size: 8, align: 4, fields: []}"), PTX_DATA), PYKRT_ERROR_MANIFEST,
     "a record needs at least one field"},
    {HEAD KERNEL(REC("{size: 8, align: 4, fields: [{name: x, dtype: float64, offset: 4}]}"), PTX_DATA),
     PYKRT_ERROR_MANIFEST, "record.fields[0]: the field's 8 bytes at offset 4 do not fit the record's 8"},
    {HEAD KERNEL(REC("{size: 8, align: 4, fields: [{name: x, dtype: int8, offset: 0, shape: [3, 0]}]}"), PTX_DATA),
     PYKRT_ERROR_MANIFEST, "shape[1] must be an integer in 1..2^32"},
    {HEAD KERNEL(REC("{size: 8, align: 4, fields: [{name: x, dtype: int8, offset: 0}, {name: x, dtype: int8, "
                     "offset: 1}]}"), PTX_DATA),
     PYKRT_ERROR_MANIFEST, "record.fields[1]: field 'x' occurs more than once"},
    {HEAD KERNEL(REC("{size: 8, align: 4, fields: [{name: x, dtype: record, offset: 0}]}"), PTX_DATA),
     PYKRT_ERROR_MANIFEST, "record.fields[0]: missing field 'record'"},
    {HEAD KERNEL(REC("{size: 8, align: 4, fields: [{name: x, dtype: record, offset: 0, record: {size: 16, align: 8, "
                     "fields: [{name: s, dtype: int8, offset: 0}]}}]}"), PTX_DATA),
     PYKRT_ERROR_MANIFEST, "the field's 16 bytes at offset 0 do not fit the record's 8"},
    {HEAD KERNEL(P_ARRAY, "      - {type: u64, size: 8, align: 8, param: 5, part: data}\n"), PYKRT_ERROR_MANIFEST,
     "kernels[0].ptx_params[0]: 'param' is 5, outside 0..0"},
    {HEAD KERNEL(P_ARRAY, "      - {type: u64, size: 8, align: 8, param: 0, part: \"shape[1]\"}\n"),
     PYKRT_ERROR_MANIFEST, "part 'shape[1]' of parameter 0 (x): dimension beyond the array's ndim"},
    {HEAD KERNEL(P_ARRAY, "      - {type: u64, size: 8, align: 8, param: 0, part: value}\n"), PYKRT_ERROR_MANIFEST,
     "value of an array"},
    {HEAD KERNEL("      - {name: s, kind: scalar, dtype: float32}\n",
                 "      - {type: f32, size: 4, align: 4, param: 0, part: real}\n"),
     PYKRT_ERROR_MANIFEST, "real or imag of a non-complex parameter"},
    {HEAD KERNEL("      - {name: s, kind: scalar, dtype: int32}\n",
                 "      - {type: u64, size: 8, align: 8, param: 0, part: data}\n"),
     PYKRT_ERROR_MANIFEST, "data of a scalar"},
    {HEAD KERNEL(P_ARRAY, "      - {type: u64, size: 9, align: 8, param: 0, part: data}\n"), PYKRT_ERROR_MANIFEST,
     "type u64 is 8 bytes, but size is 9"},
    {HEAD KERNEL(P_ARRAY, "      - {type: q64, size: 8, align: 8, param: 0, part: data}\n"), PYKRT_ERROR_MANIFEST,
     "unknown PTX type 'q64'"},
    {HEAD KERNEL(P_ARRAY, "      - {type: u64, size: 8, align: 3, param: 0, part: data}\n"), PYKRT_ERROR_MANIFEST,
     "align 3 is not a power of two"},
    {HEAD KERNEL(P_ARRAY, "      - {type: u64, size: 8, align: 8, param: 0, part: \"dims[0]\"}\n"),
     PYKRT_ERROR_MANIFEST, "unknown part 'dims[0]'"},
    {HEAD KERNEL(P_ARRAY, "      - {type: b8, size: 16, align: 8, param: 0, part: data}\n"), PYKRT_ERROR_MANIFEST,
     "data wider than 8 bytes"},
    {HEAD "kernels:\n  - {name: k, entry: k, params: [], ptx_params: "
          "[{type: u64, size: 8, align: 8, param: 0, part: data}]}\n",
     PYKRT_ERROR_MANIFEST, "ptx_params given for a kernel without params"},
    {HEAD KERNEL(P_ARRAY, PTX_X) "    shared_dynamic: maybe\n", PYKRT_ERROR_MANIFEST,
     "'shared_dynamic' must be true or false, not 'maybe'"},
    {HEAD KERNEL(P_ARRAY, PTX_X) "    shared_static: -4\n", PYKRT_ERROR_MANIFEST, "'shared_static' is -4"},
    {HEAD "kernels:\n  - {name: a, entry: k, params: [], ptx_params: []}\n"
          "  - {name: b, entry: k, params: [], ptx_params: []}\n",
     PYKRT_ERROR_MANIFEST, "two kernels with the entry 'k'"},
    /* contiguous: names an entry that is this kernel with its layout-A arrays C */
    {HEAD "kernels:\n  - {name: a, entry: a, contiguous: a_c, params: [], ptx_params: []}\n",
     PYKRT_ERROR_MANIFEST, "'contiguous' names entry 'a_c', which no kernel has"},
    {HEAD "kernels:\n  - {name: a, entry: a, contiguous: b, params: [], ptx_params: []}\n"
          "  - {name: b, entry: b, params: [], ptx_params: []}\n",
     PYKRT_ERROR_MANIFEST, "'contiguous' names entry 'b', which is not kernel 'a' with its layout-A arrays C"},
    {HEAD "kernels:\n  - {name: a, entry: a, contiguous: a, params: [], ptx_params: []}\n",
     PYKRT_ERROR_MANIFEST, "'contiguous' names entry 'a', which is not kernel 'a'"},
    {HEAD "kernels:\n  - {name: k, entry: k, contiguous: k2, params: [{name: x, kind: array, dtype: float32, ndim: 1, "
          "layout: C}], ptx_params: [{type: u64, size: 8, align: 8, param: 0, part: data}, {type: u64, size: 8, "
          "align: 8, param: 0, part: \"shape[0]\"}, {type: u64, size: 8, align: 8, param: 0, part: \"strides[0]\"}]}\n"
          "  - {name: k, entry: k2, params: [{name: x, kind: array, dtype: float32, ndim: 1, layout: A}], "
          "ptx_params: [{type: u64, size: 8, align: 8, param: 0, part: data}, {type: u64, size: 8, align: 8, param: 0, "
          "part: \"shape[0]\"}, {type: u64, size: 8, align: 8, param: 0, part: \"strides[0]\"}]}\n",
     PYKRT_ERROR_MANIFEST, "'contiguous' names entry 'k2', which is not kernel 'k' with its layout-A arrays C"},
    {HEAD "kernels:\n  - {name: a, entry: a, params: &p [], ptx_params: []}\n"
          "  - {name: b, entry: b, params: *p, ptx_params: []}\n",
     PYKRT_ERROR_MANIFEST, "t.yaml:5:33: YAML anchors and aliases are not supported"},
    {"format: 1\ntargets: &t []\n", PYKRT_ERROR_MANIFEST, "t.yaml:2:10: YAML anchors and aliases are not supported"},
    {HEAD "kernels: []\nconstants:\n  - {name: c, dtype: float32, shape: [16], size: 60}\n", PYKRT_ERROR_MANIFEST,
     "size 60 is not the shape's 16 elements of float32"},
    {HEAD "kernels: []\nconstants:\n  - {name: c, dtype: float32, shape: [a], size: 4}\n", PYKRT_ERROR_MANIFEST,
     "shape[0] must be an integer"},
    {HEAD "kernels: []\nsource: {path: k.pyk, digest: md5}\n", PYKRT_ERROR_MANIFEST, "digest 'md5' is not fnv1a64:"},
    {"format: 1\ntargets: \"\xff\xfe\"\n", PYKRT_ERROR_MANIFEST, "invalid YAML"},
    /* ptx_params give every part of every parameter, once. */
    {HEAD KERNEL(P_ARRAY, PTX_DATA), PYKRT_ERROR_MANIFEST, "t.yaml:5:5: kernels[0]: ptx_params lack part 'shape[0]' "
                                                           "of parameter 0 (x)"},
    {HEAD "kernels:\n  - {name: k, entry: k, params: [{name: x, kind: array, dtype: float32, ndim: 1, layout: C}], "
          "ptx_params: []}\n",
     PYKRT_ERROR_MANIFEST, "ptx_params lack part 'data' of parameter 0 (x)"},
    {HEAD KERNEL(P_ARRAY, PTX_X PTX_DATA), PYKRT_ERROR_MANIFEST,
     "t.yaml:13:9: kernels[0]: ptx_params[3] gives part 'data' of parameter 0 (x) again"},
    {HEAD KERNEL(P_ARRAY, PTX_DATA PTX_U64(0, "strides[0]") PTX_U64(0, "strides[0]") PTX_U64(0, "shape[0]")),
     PYKRT_ERROR_MANIFEST, "ptx_params[2] gives part 'strides[0]' of parameter 0 (x) again"},
    {HEAD KERNEL(P_ARRAY P_SCALAR("n", "int32"), PTX_X), PYKRT_ERROR_MANIFEST,
     "ptx_params lack part 'value' of parameter 1 (n)"},
    {HEAD KERNEL("      - {name: a, kind: array, dtype: float32, ndim: 2, layout: A}\n",
                 PTX_DATA PTX_U64(0, "shape[0]") PTX_U64(0, "shape[1]") PTX_U64(0, "strides[0]")),
     PYKRT_ERROR_MANIFEST, "ptx_params lack part 'strides[1]' of parameter 0 (a)"},
    {HEAD KERNEL(P_SCALAR("z", "complex64"), "      - {type: f32, size: 4, align: 4, param: 0, part: real}\n"),
     PYKRT_ERROR_MANIFEST, "ptx_params lack part 'imag' of parameter 0 (z)"},
    {HEAD KERNEL(P_SCALAR("z", "complex64"), "      - {type: b8, size: 8, align: 4, param: 0, part: value}\n"),
     PYKRT_ERROR_MANIFEST, "part 'value' of parameter 0 (z): value of a complex parameter, which has real and imag"},
    /* tuples: members, parts [j], [j].real, [j].imag, each once */
    {HEAD KERNEL(P_TUPLE("[int32, float128]"), PTX_U32(0, "[0]")), PYKRT_ERROR_MANIFEST,
     "kernels[0].params[0]: members[1]: unknown scalar dtype 'float128'"},
    {HEAD KERNEL(P_TUPLE("[]"), ""), PYKRT_ERROR_MANIFEST, "a tuple parameter without members"},
    {HEAD KERNEL("      - {name: t, kind: tuple, dtype: \"UniTuple(int32 x 2)\"}\n", PTX_U32(0, "[0]")),
     PYKRT_ERROR_MANIFEST, "kernels[0].params[0]: missing field 'members'"},
    {HEAD KERNEL(P_TUPLE("[int32, int32]"), PTX_U32(0, "[0]") PTX_U32(0, "value")), PYKRT_ERROR_MANIFEST,
     "unknown part 'value' of a tuple ([j], [j].real or [j].imag)"},
    {HEAD KERNEL(P_TUPLE("[int32, int32]"), PTX_U32(0, "[0]") PTX_U32(0, "[2]")), PYKRT_ERROR_MANIFEST,
     "part '[2]' of parameter 0 (t): the tuple has 2 members"},
    {HEAD KERNEL(P_TUPLE("[int32, int32]"), PTX_U32(0, "[0]") PTX_U32(0, "[0]")), PYKRT_ERROR_MANIFEST,
     "ptx_params[1] gives part 'value' of parameter 0 (t[0]) again"},
    {HEAD KERNEL(P_TUPLE("[int32, int32]"), PTX_U32(0, "[1]")), PYKRT_ERROR_MANIFEST,
     "ptx_params lack part 'value' of parameter 0 (t[0])"},
    {HEAD KERNEL(P_TUPLE("[int32, complex64]"), PTX_U32(0, "[0]") PTX_U32(0, "[1].real")), PYKRT_ERROR_MANIFEST,
     "ptx_params lack part 'imag' of parameter 0 (t[1])"},
    {HEAD KERNEL(P_TUPLE("[int32, int32]"), PTX_U32(0, "[0].real")), PYKRT_ERROR_MANIFEST,
     "part '[0].real' of parameter 0 (t): real or imag of a non-complex parameter"},
    /* files to link */
    {HEAD "link: {file: a.ptx}\nkernels: []\n", PYKRT_ERROR_MANIFEST, "manifest.link: expected a sequence"},
    {HEAD "link: [{file: a.ptx, kind: ltoir, digest: \"fnv1a64:0123456789abcdef\"}]\nkernels: []\n",
     PYKRT_ERROR_MANIFEST, "link[0]: unknown kind 'ltoir'"},
    {HEAD "link: [{file: a.ptx, kind: ptx}]\nkernels: []\n", PYKRT_ERROR_MANIFEST, "link[0]: missing field 'digest'"},
    {HEAD "link: [{kind: ptx, digest: x}]\nkernels: []\n", PYKRT_ERROR_MANIFEST, "link[0]: missing field 'file'"},
    {HEAD "link: [{file: a.o, kind: object, digest: \"fnv1a64:01\"}]\nkernels: []\n", PYKRT_ERROR_MANIFEST,
     "link[0]: digest 'fnv1a64:01' is not fnv1a64:"},
    {HEAD "device_runtime: 1\nkernels: []\n", PYKRT_ERROR_MANIFEST, "'device_runtime' must be true or false, not '1'"},
    {"format: 1\n---\nformat: 2\n", PYKRT_ERROR_MANIFEST, "t.yaml:2:1: a second YAML document; a manifest is one"},
    {HEAD "kernels: []\n...\n--- {}\n", PYKRT_ERROR_MANIFEST, "t.yaml:6:1: a second YAML document"},
    {"--- {format: 1}\n--- \n", PYKRT_ERROR_MANIFEST, "t.yaml:2:1: a second YAML document"},
};

static void test_bad_manifests(void)
{
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pk_manifest *m = NULL;
        pykrt_status st = pk_manifest_parse(bad[i].text, strlen(bad[i].text), "t.yaml", &m);
        if (st != bad[i].status || !strstr(pykrt_last_error(), bad[i].message)) {
            t_fail(__FILE__, __LINE__, "case %zu: %s with \"%s\" expected but got %s: %s", i,
                   pykrt_status_name(bad[i].status), bad[i].message, pykrt_status_name(st), pykrt_last_error());
            pk_manifest_free(m);
            return;
        }
        ASSERT(m == NULL);
    }
}

/* libyaml's scanner is quadratic in flow nesting: deep input is refused
 * before it, at once. */
static void test_too_deep(void)
{
    size_t n = 200000;
    char *text = malloc(2 * n);
    ASSERT(text != NULL);
    memset(text, '[', n);
    memset(text + n, ']', n);
    pk_manifest *m = NULL;
    pykrt_status st = pk_manifest_parse(text, 2 * n, "deep.yaml", &m);
    free(text);
    ASSERT_EQ(PYKRT_ERROR_MANIFEST, st);
    ASSERT_CONTAINS(pykrt_last_error(), "deep.yaml: brackets nest deeper than 64 levels");
    static const char ok[] = HEAD "kernels: []\nextra: [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]\n";
    ASSERT_OK(pk_manifest_parse(ok, sizeof ok - 1, "t.yaml", &m));
    pk_manifest_free(m);
}

/* Block collections nest without brackets: "- - - ... 1" is a sequence
 * 300,000 levels deep in 600 kB, which libyaml would load into hundreds of
 * megabytes of nodes. The first pass refuses it at the 65th level. */
static char *nested(const char *head, const char *level, size_t n, const char *tail, size_t *len)
{
    size_t hl = strlen(head), ll = strlen(level), tl = strlen(tail);
    char *text = malloc(hl + n * ll + tl + 1);
    if (!text)
        return NULL;
    memcpy(text, head, hl);
    for (size_t i = 0; i < n; i++)
        memcpy(text + hl + i * ll, level, ll);
    memcpy(text + hl + n * ll, tail, tl + 1);
    *len = hl + n * ll + tl;
    return text;
}

static void test_block_nesting(void)
{
    size_t len = 0;
    pk_manifest *m = NULL;
    char *deep = nested(HEAD "kernels: []\nunknown:\n", "- ", 300000, "1\n", &len);
    ASSERT(deep != NULL);
    pykrt_status st = pk_manifest_parse(deep, len, "deep.yaml", &m);
    free(deep);
    ASSERT_EQ(PYKRT_ERROR_MANIFEST, st);
    ASSERT_CONTAINS(pykrt_last_error(), "deep.yaml:6:127: YAML nests deeper than 64 levels");
    /* 62 levels under the root mapping and its key: 63 in all, allowed. */
    char *fits = nested(HEAD "kernels: []\nunknown:\n", "- ", 62, "1\n", &len);
    ASSERT(fits != NULL);
    st = pk_manifest_parse(fits, len, "fits.yaml", &m);
    free(fits);
    ASSERT_OK(st);
    pk_manifest_free(m);
    /* Mappings count the same, in block or flow style. */
    char map[4096] = HEAD "kernels: []\nx:\n";
    for (int i = 0; i < 70; i++)
        snprintf(map + strlen(map), sizeof map - strlen(map), "%*sk%d:\n", i + 1, "", i);
    ASSERT_ERR(PYKRT_ERROR_MANIFEST, pk_manifest_parse(map, strlen(map), "map.yaml", &m),
               "map.yaml:69:65: YAML nests deeper than 64 levels");
}

/* A host target: a CPU arch, a shared object, no PTX version. */
static void test_host_target(void)
{
    static const char text[] = "format: 1\ntargets:\n"
                               "  - {arch: x86-64-v2, kind: host, file: k.so, digest: \"fnv1a64:0123456789abcdef\"}\n"
                               "  - {arch: sm_80, kind: cubin, file: k.cubin, digest: \"fnv1a64:0123456789abcdef\"}\n"
                               "kernels: []\n";
    pk_manifest *m = NULL;
    ASSERT_OK(pk_manifest_parse(text, strlen(text), "t.yaml", &m));
    ASSERT_EQ(2, m->ntargets);
    ASSERT(m->targets[0].host && !m->targets[0].cubin);
    ASSERT_STR("x86-64-v2", m->targets[0].arch);
    ASSERT_STR("k.so", m->targets[0].file);
    ASSERT_EQ(0, m->targets[0].sm);
    ASSERT(!m->targets[1].host && m->targets[1].cubin);
    pk_manifest_free(m);
}

static void test_minimal_manifest(void)
{
    const char *text = HEAD KERNEL(P_ARRAY, PTX_X);
    pk_manifest *m = NULL;
    ASSERT_OK(pk_manifest_parse(text, strlen(text), "t.yaml", &m));
    ASSERT_EQ(PYKRT_ACCESS_READWRITE, m->kernels[0].params[0].access);
    ASSERT_EQ(0, m->kernels[0].max_threads);
    ASSERT(!m->kernels[0].cooperative);
    ASSERT_STR("", m->compiler);
    pk_manifest_free(m);
}

/* Every prefix of a real manifest either parses (it may stop between
 * kernels) or fails cleanly with a message; none crashes. */
static void test_truncated(void)
{
    size_t len = 0;
    char *text = t_read(t_path("abi.yaml"), &len);
    ASSERT(text != NULL);
    int refused = 0;
    for (size_t n = 0; n < len; n++) {
        pk_manifest *m = NULL;
        pykrt_status st = pk_manifest_parse(text, n, "abi.yaml", &m);
        if (st == PYKRT_SUCCESS) {
            pk_manifest_free(m);
            continue;
        }
        refused++;
        if (st != PYKRT_ERROR_MANIFEST || !strstr(pykrt_last_error(), "abi.yaml")) {
            t_fail(__FILE__, __LINE__, "prefix of %zu bytes: %s: %s", n, pykrt_status_name(st), pykrt_last_error());
            break;
        }
    }
    free(text);
    ASSERT(refused > (int)len * 9 / 10);
}

static void test_too_large_text(void)
{
    size_t n = (size_t)10 << 20;
    char *text = malloc(n);
    ASSERT(text != NULL);
    memset(text, '#', n);
    pk_manifest *m = NULL;
    pykrt_status st = pk_manifest_parse(text, n, "big.yaml", &m);
    free(text);
    ASSERT_EQ(PYKRT_ERROR_MANIFEST, st);
    ASSERT_CONTAINS(pykrt_last_error(), "big.yaml: manifest is 10485760 bytes, more than the limit of 1048576");
}

/* ---- the loader's file errors ---- */

static void test_too_large_file(void)
{
    char path[] = "/tmp/pykrt-big-XXXXXX";
    int fd = mkstemp(path);
    ASSERT(fd >= 0);
    static const char line[] = "# padding, padding, padding, padding, padding, padding, padding\n";
    int ok = 1;
    for (size_t written = 0; ok && written < ((size_t)10 << 20); written += sizeof line - 1)
        ok = write(fd, line, sizeof line - 1) == (ssize_t)(sizeof line - 1);
    close(fd);
    pykrt_module *m = NULL;
    pykrt_status st = pykrt_module_load(t_ctx, path, &m);
    unlink(path);
    ASSERT(ok);
    ASSERT_EQ(PYKRT_ERROR_MANIFEST, st);
    ASSERT_CONTAINS(pykrt_last_error(), "bytes, larger than the limit of 1048576 bytes");
    ASSERT(m == NULL);
}

static void test_stale_ptx(void)
{
    pykrt_module *m = NULL;
    char want[4200];
    snprintf(want, sizeof want, "%s/vadd.ptx does not match %s/stale.yaml: recompile", t_fixtures, t_fixtures);
    ASSERT_ERR(PYKRT_ERROR_STALE, pykrt_module_load(t_ctx, t_path("stale.yaml"), &m), want);
    ASSERT(m == NULL);
}

static void test_missing_ptx(void)
{
    pykrt_module *m = NULL;
    ASSERT_ERR(PYKRT_ERROR_IO, pykrt_module_load(t_ctx, t_path("missing.yaml"), &m),
               "no_such_file.ptx: No such file or directory");
    ASSERT_ERR(PYKRT_ERROR_IO, pykrt_module_load(t_ctx, t_path("nothing.yaml"), &m),
               "cannot read tests/runtime/fixtures/nothing.yaml: No such file or directory");
    ASSERT_ERR(PYKRT_ERROR_IO, pykrt_module_load(t_ctx, t_fixtures, &m), "not a regular file but a directory");
}

/* A scratch directory holding vadd.yaml as m.yaml, its target's file
 * renamed to `file`, for tests that put something else beside it. */
static int vadd_dir_with(char dir[64], const char *file)
{
    size_t len = 0;
    char *text = t_read(t_path("vadd.yaml"), &len), *at = text ? strstr(text, "file: vadd.ptx") : NULL;
    char edited[8192];
    int n = at ? snprintf(edited, sizeof edited, "%.*sfile: \"%s\"%s", (int)(at - text), text, file,
                          at + strlen("file: vadd.ptx"))
               : -1;
    int ok = n > 0 && n < (int)sizeof edited && t_mkdtemp(dir) == 0 && t_write(dir, "m.yaml", edited, (size_t)n) == 0;
    free(text);
    return ok ? 0 : -1;
}

static int vadd_dir(char dir[64])
{
    return vadd_dir_with(dir, "vadd.ptx");
}

/* What is not a regular file is refused before it is read, at once: a
 * FIFO without a writer would block the open or the read for ever, and
 * /dev/zero would be read until memory runs out. The alarm turns a
 * regression into a failure rather than a hung suite. */
static void test_not_regular_files(void)
{
    char dir[64], path[128], manifest[128];
    pykrt_module *m = NULL;
    ASSERT_EQ(0, vadd_dir(dir));
    t_join(manifest, sizeof manifest, dir, "m.yaml");
    alarm(20);
    int fifo = mkfifo(t_join(path, sizeof path, dir, "fifo.yaml"), 0600);
    pykrt_status st1 = pykrt_module_load(t_ctx, path, &m);
    char m1[512];
    snprintf(m1, sizeof m1, "%s", pykrt_last_error());
    int fifo2 = mkfifo(t_join(path, sizeof path, dir, "vadd.ptx"), 0600);
    pykrt_status st2 = pykrt_module_load(t_ctx, manifest, &m);
    char m2[512];
    snprintf(m2, sizeof m2, "%s", pykrt_last_error());
    unlink(path);
    int link = symlink("/dev/zero", path);
    pykrt_status st3 = pykrt_module_load(t_ctx, manifest, &m);
    char m3[512];
    snprintf(m3, sizeof m3, "%s", pykrt_last_error());
    pykrt_status st4 = pykrt_module_load(t_ctx, "/dev/zero", &m);
    alarm(0);
    t_rmdir(dir);
    ASSERT(fifo == 0 && fifo2 == 0 && link == 0);
    ASSERT_EQ(PYKRT_ERROR_IO, st1);
    ASSERT_CONTAINS(m1, "fifo.yaml: not a regular file but a FIFO");
    ASSERT_EQ(PYKRT_ERROR_IO, st2);
    ASSERT_CONTAINS(m2, "vadd.ptx: not a regular file but a FIFO");
    ASSERT_EQ(PYKRT_ERROR_IO, st3);
    ASSERT_CONTAINS(m3, "vadd.ptx: not a regular file but a character device");
    ASSERT_EQ(PYKRT_ERROR_IO, st4);
    ASSERT_CONTAINS(pykrt_last_error(), "pykrt_module_load(/dev/zero): cannot read /dev/zero: not a regular file");
    ASSERT(m == NULL);
}

/* A huge image is refused by its size, before it is read: the file is
 * sparse, so making it costs nothing, and reading it would take seconds. */
static void test_too_large_image(void)
{
    char dir[64], path[128], manifest[128];
    pykrt_module *m = NULL;
    ASSERT_EQ(0, vadd_dir(dir));
    int fd = open(t_join(path, sizeof path, dir, "vadd.ptx"), O_WRONLY | O_CREAT, 0600);
    int sized = fd >= 0 && ftruncate(fd, (off_t)2 << 30) == 0;
    if (fd >= 0)
        close(fd);
    pykrt_status st = pykrt_module_load(t_ctx, t_join(manifest, sizeof manifest, dir, "m.yaml"), &m);
    t_rmdir(dir);
    ASSERT(sized);
    ASSERT_EQ(PYKRT_ERROR_IO, st);
    ASSERT_CONTAINS(pykrt_last_error(), "vadd.ptx is 2147483648 bytes, larger than the limit of 1073741824 bytes");
    ASSERT(m == NULL);
}

static void test_jit_log(void)
{
    pykrt_module *m = NULL;
    ASSERT_ERR(PYKRT_ERROR_MODULE_LOAD, pykrt_module_load(t_ctx, t_path("broken.yaml"), &m),
               "broken.yaml): broken.ptx (sm_75): cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX: "
               "a PTX JIT compilation failed\nptxas application ptx input, line 1; fatal   : Missing .version");
    ASSERT(m == NULL);
}

static void test_manifest_errors_through_load(void)
{
    static const char text[] = "format: 3\n";
    pykrt_module *m = NULL;
    ASSERT_ERR(PYKRT_ERROR_MANIFEST, pykrt_module_load_memory(t_ctx, text, sizeof text - 1, NULL, 0, &m),
               "(embedded manifest):1:9: manifest: unsupported manifest format 3");
}

/* A target's file stays in the manifest's directory unless the caller
 * allows more. */
static void test_image_names(void)
{
    static const struct {
        const char *file;
        const char *problem; /* NULL: allowed */
    } cases[] = {
        {"vadd.ptx", NULL},        {"sub/vadd.ptx", NULL},       {"./vadd.ptx", NULL},
        {"..vadd.ptx", NULL},      {"a..b/...", NULL},           {"sub//x.ptx", NULL},
        {"/etc/passwd", "is an absolute path"},                  {"../vadd.ptx", "has a '..' component"},
        {"sub/../../x", "has a '..' component"},                 {"sub/..", "has a '..' component"},
        {"..", "has a '..' component"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *path = NULL, *any = NULL;
        pykrt_status st = pk_image_path("dir/m.yaml", cases[i].file, false, "t", &path);
        pykrt_status st_any = pk_image_path("dir/m.yaml", cases[i].file, true, "t", &any);
        int ok = cases[i].problem ? st == PYKRT_ERROR_MANIFEST && strstr(pykrt_last_error(), cases[i].problem) && !path
                                  : st == PYKRT_SUCCESS && strncmp(path, "dir/", 4) == 0 &&
                                        strcmp(path + 4, cases[i].file) == 0;
        ok &= st_any == PYKRT_SUCCESS && (cases[i].file[0] == '/' ? strcmp(any, cases[i].file) == 0 : 1);
        free(path);
        free(any);
        if (!ok) {
            t_fail(__FILE__, __LINE__, "case %zu (%s): %s: %s", i, cases[i].file, pykrt_status_name(st),
                   pykrt_last_error());
            return;
        }
    }
    char *path = NULL;
    ASSERT_OK(pk_image_path("m.yaml", "v.ptx", false, "t", &path));
    ASSERT_STR("v.ptx", path);
    free(path);
}

/* End to end: a manifest naming a file outside its directory loads only
 * when the caller passes PYKRT_LOAD_ANY_PATH. */
static void test_load_outside_paths(void)
{
    char fixtures[4096], abs_ptx[4200], dir[64], manifest[128];
    ASSERT(realpath(t_fixtures, fixtures) != NULL);
    snprintf(abs_ptx, sizeof abs_ptx, "%s/vadd.ptx", fixtures);
    ASSERT_EQ(0, vadd_dir_with(dir, abs_ptx));
    t_join(manifest, sizeof manifest, dir, "m.yaml");
    pykrt_module *m = NULL, *any = NULL;
    pykrt_status refused = pykrt_module_load(t_ctx, manifest, &m);
    char msg[8192];
    snprintf(msg, sizeof msg, "%s", pykrt_last_error());
    pykrt_status allowed = pykrt_module_load_ex(t_ctx, manifest, PYKRT_LOAD_ANY_PATH, &any);
    pykrt_status flags = pykrt_module_load_ex(t_ctx, manifest, 6, &m);
    pykrt_module_unload(any);
    t_rmdir(dir);
    ASSERT_EQ(PYKRT_ERROR_MANIFEST, refused);
    ASSERT_CONTAINS(msg, "/m.yaml): the file '");
    ASSERT_CONTAINS(msg, "vadd.ptx' is an absolute path; without PYKRT_LOAD_ANY_PATH, libpykrt reads only files "
                         "in the manifest's directory or below");
    ASSERT_OK(allowed);
    ASSERT(any != NULL);
    ASSERT_EQ(PYKRT_ERROR_INVALID_ARGUMENT, flags);
    ASSERT_CONTAINS(pykrt_last_error(), "unknown flags 0x6");
    ASSERT(m == NULL);

    ASSERT_EQ(0, vadd_dir_with(dir, "../../../../../../../../../../etc/passwd"));
    pykrt_status dots = pykrt_module_load(t_ctx, t_join(manifest, sizeof manifest, dir, "m.yaml"), &m);
    t_rmdir(dir);
    ASSERT_EQ(PYKRT_ERROR_MANIFEST, dots);
    ASSERT_CONTAINS(pykrt_last_error(), "etc/passwd' has a '..' component");
}

const t_case manifest_tests[] = {
    T(test_parse_vadd),
    T(test_parse_abi),
    T(test_parse_links),
    T(test_fnv1a64),
    T(test_bad_manifests),
    T(test_host_target),
    T(test_minimal_manifest),
    T(test_truncated),
    T(test_too_large_text),
    T(test_too_deep),
    T(test_block_nesting),
    T(test_too_large_file),
    T(test_stale_ptx),
    T(test_missing_ptx),
    T(test_not_regular_files),
    T(test_too_large_image),
    T(test_image_names),
    T(test_load_outside_paths),
    T(test_jit_log),
    T(test_manifest_errors_through_load),
};
const size_t manifest_ntests = sizeof manifest_tests / sizeof manifest_tests[0];
