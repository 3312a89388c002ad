/*
 * link.c - the files a module links: what each holds, where it is, and
 * its copy beside the manifest.
 *
 * pykc writes PTX, so code that @cuda.jit(link=[...]) or
 * cuda.declare_device(..., link=[...]) names is linked when the module is
 * loaded: the manifest lists the files (key `link`), and the loader hands
 * them to the driver's linker with the module's own code. A path is
 * relative to the .pyk file that names it, as an import is. Each file is
 * copied beside the manifest under its base name (unless it is there
 * already), so that the manifest's directory holds everything a load
 * needs and names nothing outside it; the manifest records each copy's
 * digest, as it does the PTX's.
 */
#include "pykc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What each extension holds, as numba-cuda's linker guesses it; the ones
 * pykc refuses say why. */
static const struct {
    const char *ext;
    int kind;               /* a LinkKind, or -1: refused */
    const char *why;
} extensions[] = {
    {"ptx", LINK_PTX, NULL},
    {"cubin", LINK_CUBIN, NULL},
    {"fatbin", LINK_FATBIN, NULL},
    {"o", LINK_OBJECT, NULL},
    {"a", LINK_LIBRARY, NULL},
    {"lib", LINK_LIBRARY, NULL},
    {"cu", -1, "numba-cuda compiles CUDA C++ with NVRTC when the kernel is first launched; pykc links compiled "
               "code only: compile it with 'nvcc -ptx -rdc=true -arch=sm_XX FILE.cu' and link the .ptx"},
    {"ltoir", -1, "LTO-IR is linked by nvJitLink, and pykc's code is linked by the driver's linker, which "
                  "cannot: link the file's PTX or cubin instead"},
};

const char *link_kind_name(LinkKind kind) {
    static const char *const names[] = {
        [LINK_PTX] = "ptx", [LINK_CUBIN] = "cubin", [LINK_FATBIN] = "fatbin",
        [LINK_OBJECT] = "object", [LINK_LIBRARY] = "library",
    };
    return names[kind];
}

const char *link_classify(Arena *a, const char *path, LinkKind *kind) {
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    const char *ext = dot && (!slash || dot > slash) ? dot + 1 : "";
    for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++) {
        if (strcmp(ext, extensions[i].ext) != 0) continue;
        if (extensions[i].kind < 0) return extensions[i].why;
        *kind = (LinkKind)extensions[i].kind;
        return NULL;
    }
    return arena_printf(a, "pykc does not know how to link a file with %s%s%s: it links .ptx, .cubin, .fatbin, "
                        ".o and .a files", *ext ? "the extension '." : "no extension", ext, *ext ? "'" : "");
}

const char *link_resolve(Arena *a, const char *pyk_path, const char *written) {
    if (written[0] == '/') return arena_strdup(a, written);
    const char *slash = strrchr(pyk_path, '/');
    return arena_printf(a, "%.*s%s", slash ? (int)(slash - pyk_path + 1) : 0, pyk_path, written);
}

const char *link_base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The whole file at path, malloc'd, or NULL with errno set. */
static char *read_whole(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *data = malloc(cap);
    while (data) {
        n += fread(data + n, 1, cap - n, f);
        if (n < cap) break;
        char *grown = realloc(data, cap *= 2);
        if (!grown) free(data);
        data = grown;
    }
    int err = ferror(f) ? EIO : 0;
    fclose(f);
    if (!data) ice("out of memory reading a file to link");
    if (err) {
        free(data);
        errno = err;
        return NULL;
    }
    *len = n;
    return data;
}

/* Whether the copy at dest would be the file itself. */
static bool same_file(const char *a, const char *b) {
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool link_is_output(Unit *u, const char *output) {
    for (int i = 0; output && strcmp(output, "-") != 0 && i < u->link_count; i++)
        if (same_file(u->links[i].path, output)) {
            diag_error(u->diag, u->links[i].at, "cannot link '%s': it is an output of this run, which would replace it",
                       u->links[i].path);
            return true;
        }
    return false;
}

const char *link_copy_path(Arena *a, const char *manifest_path, const LinkInput *in) {
    const char *slash = strrchr(manifest_path, '/');
    int dir = slash ? (int)(slash - manifest_path + 1) : 0;
    const char *copy = arena_printf(a, "%.*s%s", dir, manifest_path, in->name);
    return same_file(in->path, copy) ? NULL : copy;
}

bool link_outputs(Unit *u, const char *manifest_path, Outputs *outs, ManifestLink *out, Code *keep) {
    for (int i = 0; i < u->link_count; i++) {
        const LinkInput *in = &u->links[i];
        size_t len = 0;
        char *data = read_whole(in->path, &len);
        if (!data) {
            diag_error(u->diag, in->at, "cannot read '%s' to link: %s", in->path, strerror(errno));
            return false;
        }
        char digest[25];
        digest_fnv1a64(data, len, digest);
        out[i] = (ManifestLink){in->name, link_kind_name(in->kind), arena_strdup(u->arena, digest)};
        const char *copy = outs ? link_copy_path(u->arena, manifest_path, in) : NULL;
        bool ok = !copy || output_add(outs, copy, data, len);
        if (keep) keep[i] = (Code){.bytes = data, .len = len};
        else free(data);
        if (!ok) return false;
    }
    return true;
}
