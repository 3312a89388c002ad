/*
 * test_link.c - modules that link other code at load: the manifest's
 * `link` files (pykc fixtures/linked.pyk, whose device functions are
 * declared with cuda.declare_device and defined in linked_dev.ptx) and
 * CUDA's device runtime (fixtures/launches.pyk, kernels launching
 * kernels), through the double's linker (cuLink*).
 */
#include <stdlib.h>

#include "cuda_abi.h"
#include "rt_test.h"
#include "runtime.h"

/* The double's description of the last link's inputs. */
static const char *last_link(void)
{
    static char text[4096];
    fake.last_link(text, sizeof text);
    return text;
}

static void test_load_linked(void)
{
    pykrt_module *m = NULL;
    ASSERT_OK(pykrt_module_load(t_ctx, t_path("linked.yaml"), &m));
    ASSERT_STR("ptx linked.ptx, ptx linked_dev.ptx", last_link());
    ASSERT_EQ(0, fake.live_links());
    pykrt_kernel *k;
    ASSERT_OK(pykrt_kernel_get(m, "linked", &k));
    pykrt_array x = {.data = 0x1000, .dtype = PYKRT_FLOAT32, .ndim = 1, .shape = {8}, .strides = {4}};
    pykrt_array kk = {.data = 0x2000, .dtype = PYKRT_INT32, .ndim = 1, .shape = {8}, .strides = {4}};
    pykrt_array out = {.data = 0x3000, .dtype = PYKRT_FLOAT64, .ndim = 1, .shape = {8}, .strides = {8}};
    pykrt_arg args[3] = {pykrt_arg_array(&x), pykrt_arg_array(&kk), pykrt_arg_array(&out)};
    pykrt_launch_config cfg = {{1, 1, 1}, {32, 1, 1}, 0, NULL};
    ASSERT_OK(pykrt_launch_unchecked(k, &cfg, args, 3));
    fake_launch l;
    fake.last_launch(&l);
    ASSERT_STR("linked", l.entry);
    ASSERT_EQ(9, l.nparams);
    ASSERT_OK(pykrt_module_unload(m));
}

/* A scratch directory holding linked.yaml as m.yaml and linked.ptx, with
 * `dev` (NULL: none) as linked_dev.ptx, and the manifest's text edited:
 * `from` replaced by `to` (from NULL: as it is). */
static int linked_dir(char dir[64], const char *dev, const char *from, const char *to)
{
    size_t mlen = 0, plen = 0;
    char *text = t_read(t_path("linked.yaml"), &mlen), *ptx = t_read(t_path("linked.ptx"), &plen);
    char *at = text && from ? strstr(text, from) : NULL;
    char *edited = malloc(mlen + (to ? strlen(to) : 0) + 1);
    int ok = text && ptx && edited && (!from || at) && t_mkdtemp(dir) == 0;
    if (ok && at)
        sprintf(edited, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    else if (ok)
        memcpy(edited, text, mlen + 1);
    ok = ok && t_write(dir, "m.yaml", edited, strlen(edited)) == 0 && t_write(dir, "linked.ptx", ptx, plen) == 0 &&
         (!dev || t_write(dir, "linked_dev.ptx", dev, strlen(dev)) == 0);
    free(text);
    free(ptx);
    free(edited);
    return ok ? 0 : -1;
}

static pykrt_status load_in(const char *dir, pykrt_module **m)
{
    char path[128];
    return pykrt_module_load(t_ctx, t_join(path, sizeof path, dir, "m.yaml"), m);
}

/* A linked file that changed since pykc compiled the module is stale, as
 * the module's own code would be; one that is missing cannot be read. */
static void test_linked_file_checked(void)
{
    char dir[64];
    pykrt_module *m = NULL;
    ASSERT_EQ(0, linked_dir(dir, ".version 6.3\n.target sm_75\n", NULL, NULL));
    pykrt_status stale = load_in(dir, &m);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", pykrt_last_error());
    t_rmdir(dir);
    ASSERT_EQ(PYKRT_ERROR_STALE, stale);
    ASSERT_CONTAINS(msg, "linked_dev.ptx does not match ");
    ASSERT_CONTAINS(msg, "m.yaml (which it links): recompile");

    ASSERT_EQ(0, linked_dir(dir, NULL, NULL, NULL));
    pykrt_status missing = load_in(dir, &m);
    snprintf(msg, sizeof msg, "%s", pykrt_last_error());
    t_rmdir(dir);
    ASSERT_EQ(PYKRT_ERROR_IO, missing);
    ASSERT_CONTAINS(msg, "linked_dev.ptx: No such file or directory");
    ASSERT(m == NULL);
    ASSERT_EQ(0, fake.live_links());
}

/* A linked file lies beside the manifest, as a target's file does. */
static void test_linked_file_outside(void)
{
    char dir[64];
    pykrt_module *m = NULL;
    ASSERT_EQ(0, linked_dir(dir, NULL, "file: linked_dev.ptx", "file: ../linked_dev.ptx"));
    pykrt_status st = load_in(dir, &m);
    t_rmdir(dir);
    ASSERT_EQ(PYKRT_ERROR_MANIFEST, st);
    ASSERT_CONTAINS(pykrt_last_error(), "the file '../linked_dev.ptx' has a '..' component");
}

/* The linker's error log reaches the message: a linked file that does not
 * define what the code calls. Without the link, the JIT cannot resolve
 * the call either. */
static void test_link_errors(void)
{
    static const char empty[] = ".version 6.3\n.target sm_75\n.address_size 64\n";
    char dir[64], digest[64], edited[128];
    pykrt_module *m = NULL;
    snprintf(digest, sizeof digest, "fnv1a64:%016llx", (unsigned long long)pk_fnv1a64(empty, strlen(empty)));
    size_t len = 0;
    char *yaml = t_read(t_path("linked.yaml"), &len), *at = yaml ? strstr(yaml, "digest: 'fnv1a64:") : NULL;
    char old[64];
    snprintf(old, sizeof old, "%.33s", at ? at : "");
    free(yaml);
    ASSERT(at != NULL);
    snprintf(edited, sizeof edited, "digest: '%s", digest);
    ASSERT_EQ(0, linked_dir(dir, empty, old, edited));
    pykrt_status undefined = load_in(dir, &m);
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", pykrt_last_error());
    t_rmdir(dir);
    ASSERT_EQ(PYKRT_ERROR_MODULE_LOAD, undefined);
    ASSERT_CONTAINS(msg, "m.yaml): linking linked.ptx (sm_75) with what its manifest links: cuLinkComplete failed: "
                         "CUDA_ERROR_INVALID_IMAGE");
    ASSERT_CONTAINS(msg, "\nerror   : Undefined reference to 'checked' in 'linked.ptx'");
    ASSERT_EQ(0, fake.live_links());

    ASSERT_EQ(0, linked_dir(dir, NULL, "link:", "unlinked:"));
    pykrt_status unresolved = load_in(dir, &m);
    snprintf(msg, sizeof msg, "%s", pykrt_last_error());
    t_rmdir(dir);
    ASSERT_EQ(PYKRT_ERROR_MODULE_LOAD, unresolved);
    ASSERT_CONTAINS(msg, "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX");
    ASSERT_CONTAINS(msg, "Unresolved extern function 'checked'");

    fake.fail_next("cuLinkAddData_v2", CUDA_ERROR_OUT_OF_MEMORY);
    ASSERT_ERR(PYKRT_ERROR_OUT_OF_MEMORY, pykrt_module_load(t_ctx, t_path("linked.yaml"), &m),
               "linking linked.ptx (sm_75) with linked.ptx: cuLinkAddData failed: CUDA_ERROR_OUT_OF_MEMORY");
    fake.fail_next("cuLinkCreate_v2", CUDA_ERROR_UNKNOWN);
    ASSERT_ERR(PYKRT_ERROR_MODULE_LOAD, pykrt_module_load(t_ctx, t_path("linked.yaml"), &m),
               "cuLinkCreate failed: CUDA_ERROR_UNKNOWN");
    ASSERT(m == NULL);
    ASSERT_EQ(0, fake.live_links());
}

/* From memory: the linked files are among the images, by their names. */
static void test_linked_from_memory(void)
{
    size_t mlen = 0, plen = 0, dlen = 0;
    char *manifest = t_read(t_path("linked.yaml"), &mlen), *ptx = t_read(t_path("linked.ptx"), &plen);
    char *dev = t_read(t_path("linked_dev.ptx"), &dlen);
    pykrt_image images[2] = {{"linked.ptx", ptx, plen}, {"linked_dev.ptx", dev, dlen}};
    pykrt_module *m = NULL, *without = NULL;
    pykrt_status st = pykrt_module_load_memory(t_ctx, manifest, mlen, images, 2, &m);
    char link[4096];
    fake.last_link(link, sizeof link);
    pykrt_status missing = pykrt_module_load_memory(t_ctx, manifest, mlen, images, 1, &without);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", pykrt_last_error());
    pykrt_module_unload(m);
    free(manifest);
    free(ptx);
    free(dev);
    ASSERT_EQ(PYKRT_SUCCESS, st);
    ASSERT_STR("ptx linked.ptx, ptx linked_dev.ptx", link);
    ASSERT_EQ(PYKRT_ERROR_INVALID_ARGUMENT, missing);
    ASSERT_CONTAINS(msg, "the module links linked_dev.ptx, which is not among the images given");
    ASSERT(without == NULL);
}

/* device_runtime: libcudadevrt.a, from $PYKRT_CUDADEVRT (or where the
 * toolkit is), is linked last; where it is not found, the message says
 * where it was looked for. */
static void test_device_runtime(void)
{
    char dir[64], lib[128];
    pykrt_module *m = NULL;
    size_t dlen = 0;
    char *dev = t_read(t_path("linked_dev.ptx"), &dlen);
    int made = dev ? linked_dir(dir, dev, "link:", "device_runtime: true\nlink:") : -1;
    free(dev);
    ASSERT_EQ(0, made);
    t_join(lib, sizeof lib, dir, "libcudadevrt.a");
    ASSERT_EQ(0, t_write(dir, "libcudadevrt.a", "!<arch>\n", 8));
    setenv("PYKRT_CUDADEVRT", lib, 1);
    pykrt_status found = load_in(dir, &m);
    char link[4096], want[256];
    fake.last_link(link, sizeof link);
    pykrt_module_unload(m);
    setenv("PYKRT_CUDADEVRT", "/nonexistent/libcudadevrt.a", 1);
    pykrt_status absent = load_in(dir, &m);
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", pykrt_last_error());
    unsetenv("PYKRT_CUDADEVRT");
    t_rmdir(dir);
    ASSERT_EQ(PYKRT_SUCCESS, found);
    snprintf(want, sizeof want, "ptx linked.ptx, ptx linked_dev.ptx, library %s", lib);
    ASSERT_STR(want, link);
    ASSERT_EQ(PYKRT_ERROR_MODULE_LOAD, absent);
    ASSERT_CONTAINS(msg, "its kernels launch kernels, which needs CUDA's device runtime, libcudadevrt.a, and it is "
                         "in none of $PYKRT_CUDADEVRT, $CUDA_HOME/lib64");
    ASSERT(m == NULL);
    ASSERT_EQ(0, fake.live_links());
}

/* pykc's kernels launching kernels (fixtures/launches.pyk): the manifest
 * asks for the device runtime alone, which defines the launch functions
 * the code calls. */
static void test_load_launches(void)
{
    char dir[64], lib[128], want[256], link[4096];
    ASSERT_EQ(0, t_mkdtemp(dir));
    t_join(lib, sizeof lib, dir, "libcudadevrt.a");
    ASSERT_EQ(0, t_write(dir, "libcudadevrt.a", "!<arch>\n", 8));
    setenv("PYKRT_CUDADEVRT", lib, 1);
    pykrt_module *m = NULL;
    pykrt_status st = pykrt_module_load(t_ctx, t_path("launches.yaml"), &m);
    fake.last_link(link, sizeof link);
    pykrt_kernel *k = NULL;
    pykrt_status got = st == PYKRT_SUCCESS ? pykrt_kernel_get(m, "launch", &k) : st;
    pykrt_module_unload(m);
    unsetenv("PYKRT_CUDADEVRT");
    t_rmdir(dir);
    ASSERT_OK(st);
    ASSERT_OK(got);
    snprintf(want, sizeof want, "ptx launches.ptx, library %s", lib);
    ASSERT_STR(want, link);
}

const t_case link_tests[] = {
    T(test_load_launches),
    T(test_load_linked),
    T(test_linked_file_checked),
    T(test_linked_file_outside),
    T(test_link_errors),
    T(test_linked_from_memory),
    T(test_device_runtime),
};
const size_t link_ntests = sizeof link_tests / sizeof link_tests[0];
