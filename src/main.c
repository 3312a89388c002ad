/*
 * main.c - the command line, and the pipeline in order.
 *
 * Reads options as gcc, clang and nvcc spell them, then runs the passes over
 * one compilation unit, one line each. Exit status: 0 success, 1 errors in
 * the input, 2 bad usage.
 */
#include "pykc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: pykc [options] FILE.pyk -o OUT\n"
    "\n"
    "Compiles a Numba CUDA kernel module (.pyk) to PTX (or, with --target host, a\n"
    "shared object for the CPU) and a YAML launch manifest.\n"
    "\n"
    "options:\n"
    "  -o FILE              output file: -o x.ptx writes x.ptx and its manifest x.yaml;\n"
    "                       with several --arch, x.sm_75.ptx, x.sm_90.ptx ... and x.yaml\n"
    "                       (no x.ptx); without -o, the code goes to stdout\n"
    "  -O0 -O1 -O2 -O3      optimisation level (default -O3)\n"
    "  --target NAME        what to compile for: nvptx (CUDA GPUs, the default) or\n"
    "                       host (the CPU: a shared object that libpykrt's host\n"
    "                       device runs, -o k.so)\n"
    "  --arch ARCH          target architecture, repeatable: sm_XX for nvptx (default\n"
    "                       sm_75; sm_90a, sm_100f: that GPU, that family), x86-64,\n"
    "                       x86-64-v2 (the default), -v3 or -v4 for host; without\n"
    "                       --target each arch names its target: --arch sm_75 --arch\n"
    "                       x86-64-v2 compiles for both, one manifest\n"
    "  --emit KIND          ptx (nvptx's default), cubin, so (host's default), obj\n"
    "                       (host: an object, no manifest), llvm, manifest, header or c;\n"
    "                       --emit manifest -o k.yaml writes only the manifest, naming\n"
    "                       the k.ptx (or k.sm_XX.ptx) that --emit ptx -o k.ptx writes;\n"
    "                       --emit header -o k.h a C header of typed launchers;\n"
    "                       --emit c -o k.c the same and the module embedded (the\n"
    "                       manifest and the PTX of every --arch): no file at run time\n"
    "  -g, --lineinfo       debug information, or line tables only\n"
    "  --fastmath           fast floating-point math, as @cuda.jit(fastmath=True)\n"
    "  --checks=LIST        checked kernels: bounds (every index within its extent),\n"
    "                       div0 (integer // and % by zero), assert (asserts and\n"
    "                       raises active), comma-separated, or all; a failing\n"
    "                       thread ends, and libpykrt reports the first failure\n"
    "  --sig 'NAME(T, ...)' types for kernel NAME, which has no annotations, in Numba's\n"
    "                       syntax (float32[::1], int64); repeatable, each one a\n"
    "                       specialisation (entry NAME, then NAME__<digest>)\n"
    "  -DNAME=VALUE         override the module constant NAME\n"
    "  -I DIR               search DIR for imported .pyk modules\n"
    "  -M, -MD, -MF FILE    write make dependencies (instead of, beside, into FILE): a\n"
    "                       rule whose targets are exactly the files written; -MD\n"
    "                       writes x.d for -o x.ptx, x.h.d and x.c.d for x.h and x.c\n"
    "  -Werror              treat warnings as errors\n"
    "  -Wignored-options    warn of cuda.jit options that do nothing here (cache, lto)\n"
    "  -Wfp64-promotion     warn where a literal or an int widens float32 arithmetic to\n"
    "                       float64, with a fix-it (float32(2.0))\n"
    "  -Wall                every warning above\n"
    "  -ferror-limit=N      stop after N errors (default 20, 0 for no limit)\n"
    "  --diagnostics-format=FMT  text (default), json (GCC's JSON) or sarif (SARIF\n"
    "                       2.1.0): one document on stderr, every diagnostic with its\n"
    "                       range, notes and fix-its\n"
    "  -fsyntax-only        check the input, write nothing\n"
    "  -v                   list the host code skipped (module-level statements and\n"
    "                       functions that are not kernels, device functions,\n"
    "                       imports or constants), one line each\n"
    "  --libdevice PATH     libdevice bitcode for math functions\n"
    "  --math=LIB           the host target's math: libdevice (the default: the GPU's\n"
    "                       functions, its results) or libm (the C library's)\n"
    "  --dump-ast           print the syntax tree\n"
    "  --dump-types         print each function's signature and locals' types\n"
    "  --explain-types NAME why local NAME has its type: a note at each assignment\n"
    "                       and merge of its versions, as Numba types them\n"
    "  --version            print the version, LLVM's, the default target and arch, and\n"
    "                       the libdevice a compilation would use\n"
    "  --help               print this help\n";

static int usage_error(const char *fmt, const char *arg) {
    fputs("pykc: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n(run 'pykc --help' for usage)\n", stderr);
    return EXIT_USAGE;
}

/* The value of an option given as `-xVALUE`, `--opt=VALUE` or `-x VALUE`. */
static const char *option_value(int argc, char **argv, int *i, const char *name) {
    const char *arg = argv[*i];
    size_t n = strlen(name);
    if (arg[n] == '=') return arg + n + 1;
    if (arg[n] != '\0') return name[1] != '-' ? arg + n : NULL;
    if (*i + 1 >= argc) return NULL;
    return argv[++*i];
}

static bool is_option(const char *arg, const char *name) {
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0) return false;
    return arg[n] == '\0' || arg[n] == '=' || (name[1] != '-' && strlen(name) == 2);
}

static const struct { const char *name; EmitKind kind; } emit_kinds[] = {
        {"ptx", EMIT_PTX}, {"llvm", EMIT_LLVM}, {"cubin", EMIT_CUBIN},
        {"manifest", EMIT_MANIFEST}, {"header", EMIT_HEADER}, {"c", EMIT_C},
        {"obj", EMIT_OBJECT}, {"so", EMIT_SHARED},
};

static bool parse_emit(const char *v, EmitKind *out) {
    for (size_t i = 0; i < sizeof emit_kinds / sizeof emit_kinds[0]; i++)
        if (strcmp(v, emit_kinds[i].name) == 0) {
            *out = emit_kinds[i].kind;
            return true;
        }
    return false;
}

static const char *emit_name(EmitKind kind) {
    for (size_t i = 0; i < sizeof emit_kinds / sizeof emit_kinds[0]; i++)
        if (emit_kinds[i].kind == kind) return emit_kinds[i].name;
    return "?";
}

static int parse_define(Options *o, const char *v) {
    const char *eq = strchr(v, '=');
    size_t n = eq ? (size_t)(eq - v) : strlen(v);
    if (n == 0) return usage_error("-D needs NAME=VALUE, got '%s'", v);
    Define *grown = realloc(o->defines, sizeof(Define) * (size_t)(o->define_count + 1));
    char *name = strndup(v, n);
    if (!grown || !name) ice("out of memory reading -D");
    o->defines = grown;
    o->defines[o->define_count++] = (Define){name, eq ? eq + 1 : "1"};
    return 0;
}

static void add_sig(Options *o, const char *sig) {
    const char **grown = realloc(o->sigs, sizeof(char *) * (size_t)(o->sig_count + 1));
    if (!grown) ice("out of memory reading --sig");
    o->sigs = grown;
    o->sigs[o->sig_count++] = sig;
}

static int add_include(Options *o, const char *dir) {
    const char **grown = realloc(o->include_dirs, sizeof(char *) * (size_t)(o->include_count + 1));
    if (!grown) ice("out of memory reading -I");
    o->include_dirs = grown;
    o->include_dirs[o->include_count++] = dir;
    return 0;
}

/* bounds,div0,assert or all, into CHECK_* bits. */
static bool parse_checks(const char *v, unsigned *out) {
    static const struct { const char *name; unsigned bits; } checks[] = {
        {"bounds", CHECK_BOUNDS}, {"div0", CHECK_DIV0}, {"assert", CHECK_ASSERT},
        {"all", CHECK_BOUNDS | CHECK_DIV0 | CHECK_ASSERT}, {"none", 0},
    };
    *out = 0;
    while (*v) {
        size_t n = strcspn(v, ","), i = 0;
        while (i < sizeof checks / sizeof checks[0] && (strlen(checks[i].name) != n || strncmp(v, checks[i].name, n)))
            i++;
        if (i == sizeof checks / sizeof checks[0]) return false;
        *out |= checks[i].bits;
        v += n + (v[n] == ',');
    }
    return true;
}

static bool parse_diag_format(const char *v, DiagFormat *out) {
    static const struct { const char *name; DiagFormat format; } formats[] = {
        {"text", DIAG_FORMAT_TEXT}, {"json", DIAG_FORMAT_JSON}, {"sarif", DIAG_FORMAT_SARIF},
    };
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (strcmp(v, formats[i].name) == 0) return *out = formats[i].format, true;
    return false;
}

static int parse_flag(Options *o, const char *arg) {
    static const struct { const char *name; size_t field; } flags[] = {
        {"-g", offsetof(Options, debug_info)},   {"--lineinfo", offsetof(Options, lineinfo)},
        {"--fastmath", offsetof(Options, fastmath)}, {"-Werror", offsetof(Options, werror)},
        {"--dump-ast", offsetof(Options, dump_ast)}, {"--dump-types", offsetof(Options, dump_types)},
        {"-fsyntax-only", offsetof(Options, syntax_only)}, {"-M", offsetof(Options, dep_only)},
        {"-MD", offsetof(Options, dep_file)},  {"-v", offsetof(Options, verbose)},
        {"-Wignored-options", offsetof(Options, warn_ignored_options)},
        {"-Wfp64-promotion", offsetof(Options, warn_fp64_promotion)},
        {"-Wextra", offsetof(Options, warn_ignored_options)}, {"-W", offsetof(Options, warn_ignored_options)},
    };
    if (strcmp(arg, "-Wall") == 0) { /* every warning pykc has */
        o->warn_ignored_options = o->warn_fp64_promotion = true;
        return 1;
    }
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (strcmp(arg, flags[i].name) == 0) {
            *(bool *)((char *)o + flags[i].field) = true;
            return 1;
        }
    if (strlen(arg) == 3 && arg[0] == '-' && arg[1] == 'O' && arg[2] >= '0' && arg[2] <= '3') {
        o->opt_level = arg[2] - '0';
        return 1;
    }
    return 0;
}

/* Options that take a value. Returns 1 if arg was one, 0 if not, or
 * EXIT_USAGE + 1 on a bad value. */
static int parse_valued(Options *o, int argc, char **argv, int *i) {
    const char *arg = argv[*i], *v;
#define VALUE(name) (is_option(arg, name) ? ((v = option_value(argc, argv, i, name)) ? v : (usage_error("missing value after '%s'", name), NULL)) : NULL)
    if (is_option(arg, "-o")) {
        if (!(v = VALUE("-o"))) return EXIT_USAGE + 1;
        o->output = v;
    } else if (is_option(arg, "--arch")) {
        if (!(v = VALUE("--arch"))) return EXIT_USAGE + 1;
        if (o->arch_count == PYKC_MAX_ARCHS) return usage_error("too many --arch options (at most %s)", "8"), EXIT_USAGE + 1;
        o->archs[o->arch_count++] = v;
    } else if (is_option(arg, "--target")) {
        if (!(v = VALUE("--target"))) return EXIT_USAGE + 1;
        if (!(o->target = target_find(v))) return usage_error("unknown target '%s' (nvptx, host)", v), EXIT_USAGE + 1;
        o->target_given = true;
    } else if (is_option(arg, "--emit")) {
        if (!(v = VALUE("--emit"))) return EXIT_USAGE + 1;
        if (!parse_emit(v, &o->emit)) return usage_error("unknown --emit kind '%s'", v), EXIT_USAGE + 1;
        o->emit_given = true;
    } else if (is_option(arg, "-D")) {
        if (!(v = VALUE("-D"))) return EXIT_USAGE + 1;
        if (parse_define(o, v)) return EXIT_USAGE + 1;
    } else if (is_option(arg, "--sig")) {
        if (!(v = VALUE("--sig"))) return EXIT_USAGE + 1;
        add_sig(o, v);
    } else if (is_option(arg, "-I")) {
        if (!(v = VALUE("-I"))) return EXIT_USAGE + 1;
        add_include(o, v);
    } else if (is_option(arg, "-MF")) {
        if (!(v = VALUE("-MF"))) return EXIT_USAGE + 1;
        o->dep_output = v;
    } else if (is_option(arg, "--libdevice")) {
        if (!(v = VALUE("--libdevice"))) return EXIT_USAGE + 1;
        o->libdevice = v;
    } else if (is_option(arg, "--explain-types")) {
        if (!(v = VALUE("--explain-types"))) return EXIT_USAGE + 1;
        o->explain_types = v;
    } else if (is_option(arg, "--checks")) {
        if (!(v = VALUE("--checks"))) return EXIT_USAGE + 1;
        if (!parse_checks(v, &o->checks)) return usage_error("bad --checks '%s' (bounds, div0, assert, all, comma-separated)", v), EXIT_USAGE + 1;
    } else if (is_option(arg, "--math")) {
        if (!(v = VALUE("--math"))) return EXIT_USAGE + 1;
        if (strcmp(v, "libdevice") && strcmp(v, "libm")) return usage_error("unknown --math '%s' (libdevice, libm)", v), EXIT_USAGE + 1;
        o->libm = !strcmp(v, "libm");
    } else if (is_option(arg, "--diagnostics-format")) {
        if (!(v = VALUE("--diagnostics-format"))) return EXIT_USAGE + 1;
        if (!parse_diag_format(v, &o->diag_format)) return usage_error("unknown diagnostics format '%s' (text, json, sarif)", v), EXIT_USAGE + 1;
    } else if (strncmp(arg, "-ferror-limit=", 14) == 0) {
        char *end;
        long n = strtol(arg + 14, &end, 10);
        if (*end || end == arg + 14 || n < 0 || n > 1000000) return usage_error("bad value in '%s'", arg), EXIT_USAGE + 1;
        o->error_limit = (int)n;
    } else {
        return 0;
    }
#undef VALUE
    return 1;
}

static bool is_code_kind(EmitKind k) { return k == EMIT_PTX || k == EMIT_CUBIN || k == EMIT_OBJECT || k == EMIT_SHARED; }

/* The target of --arch number i: --target's, else the one whose machine
 * the arch names. */
static const Target *arch_target(const Options *o, int i) {
    return o->target_given ? o->target : target_of_arch(o->target, o->archs[i]);
}

/* What arch i writes: --emit's kind, or its target's own code where
 * --emit names another target's (--emit cubin --arch x86-64-v2: a .so). */
static EmitKind arch_emit(const Options *o, int i) {
    const Target *t = arch_target(o, i);
    return is_code_kind(o->emit) && !target_emits(t, o->emit) ? target_code_kind(t) : o->emit;
}

/* Each --arch, as its target knows it, and --emit as one of them writes it. */
static int check_archs(const Options *o) {
    Diag d;
    diag_init(&d, stderr);
    bool ok = true;
    for (int i = 0; i < o->arch_count && ok; i++) ok = target_check_arch(arch_target(o, i), o->archs[i], &d);
    bool writes = !is_code_kind(o->emit);
    for (int i = 0; i < o->arch_count; i++) writes = writes || target_emits(arch_target(o, i), o->emit);
    if (ok && !writes) {
        diag_free(&d);
        return usage_error("--emit %s is not code that the target of any --arch here writes", emit_name(o->emit));
    }
    diag_free(&d);
    if (ok) return 0;
    fputs("(run 'pykc --help' for usage)\n", stderr);
    return EXIT_USAGE;
}

int options_parse(Options *o, int argc, char **argv) {
    memset(o, 0, sizeof *o);
    o->opt_level = 3;
    o->error_limit = 20;
    bool version = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage_text, stdout);
            return -1;
        }
        if (strcmp(arg, "--list-names") == 0) { /* undocumented: docs/language.md's name tables */
            names_list(stdout);
            return -1;
        }
        if (strcmp(arg, "--version") == 0) {
            version = true;
            continue;
        }
        if (parse_flag(o, arg)) continue;
        int r = parse_valued(o, argc, argv, &i);
        if (r > 1) return EXIT_USAGE;
        if (r == 1) continue;
        if (arg[0] == '-' && arg[1] != '\0') return usage_error("unknown option '%s'", arg);
        if (o->input) return usage_error("more than one input file ('%s')", arg);
        o->input = arg;
    }
    if (version) { /* after the other options: --target and --libdevice change what it says */
        printf("pykc %s\n", PYKC_VERSION);
        target_describe(o->target ? o->target : target_find(NULL), stdout, o->libdevice);
        return -1;
    }
    if (!o->input) return usage_error("%s", "no input file");
    if (!o->target) o->target = target_find(NULL);
    if (!o->emit_given) o->emit = target_code_kind(o->target);
    if (o->arch_count == 0) o->archs[o->arch_count++] = target_default_arch(o->target);
    return check_archs(o);
}

void options_free(Options *o) {
    for (int i = 0; i < o->define_count; i++) free((void *)o->defines[i].name);
    free(o->defines);
    free(o->include_dirs);
    free(o->sigs);
}

/* out.ptx -> out.yaml; with an arch, out.sm_90.ptx. */
static char *sibling(const char *path, const char *arch, const char *ext) {
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - path) : strlen(path);
    size_t n = stem + (arch ? strlen(arch) + 1 : 0) + strlen(ext) + 2;
    char *out = malloc(n);
    if (!out) ice("out of memory");
    snprintf(out, n, "%.*s%s%s.%s", (int)stem, path, arch ? "." : "", arch ? arch : "", ext);
    return out;
}

static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The files a run writes, as the manifest and -MD name them (malloc'd,
 * NULL where there is none). `-o x.ptx` writes x.ptx and the manifest
 * x.yaml; with several --arch, x.sm_75.ptx, x.sm_90.ptx ... and x.yaml.
 * --emit manifest, header and c write only their one file, at -o, and name
 * in the manifest (written or embedded) the PTX that --emit ptx would write
 * beside it (k.yaml describes k.ptx). Without -o the code goes to stdout
 * and no manifest is written; the manifest of --emit manifest and the rule
 * of -M name the input's stem (x.pyk: x.ptx). */
typedef struct OutputNames {
    char *code[PYKC_MAX_ARCHS];      /* each arch's code file ("-": stdout) */
    char *described[PYKC_MAX_ARCHS]; /* the file each manifest target names */
    char *manifest;                  /* "-": stdout */
    char *generated;                 /* --emit header or c: the C file */
} OutputNames;

/* What -o names: x.ptx, x.ll, x.cubin, x.yaml, x.h or x.c. */
static const char *output_extension(EmitKind emit) {
    static const char *const ext[] = {
        [EMIT_PTX] = "ptx", [EMIT_LLVM] = "ll", [EMIT_CUBIN] = "cubin",
        [EMIT_MANIFEST] = "yaml", [EMIT_HEADER] = "h", [EMIT_C] = "c",
        [EMIT_OBJECT] = "o", [EMIT_SHARED] = "so",
    };
    return ext[emit];
}

/* Whether the run writes no code files, only one that describes the PTX
 * that --emit ptx would write. */
static bool describes_only(EmitKind emit) { return emit == EMIT_MANIFEST || emit == EMIT_HEADER || emit == EMIT_C; }

/* Fills *n for o; false, with a usage message, where the names clash. */
static bool name_outputs(const Options *o, OutputNames *n) {
    memset(n, 0, sizeof *n);
    bool to_stdout = !o->output || !strcmp(o->output, "-");
    bool only = describes_only(o->emit);
    char *stem_name = sibling(base_name(o->input), NULL, output_extension(only ? target_code_kind(arch_target(o, 0))
                                                                                : arch_emit(o, 0)));
    const char *out = to_stdout ? "-" : o->output;
    const char *named = only ? (to_stdout ? stem_name : o->output) : out;
    for (int i = 0; i < o->arch_count; i++) {
        const char *arch = o->arch_count > 1 ? o->archs[i] : NULL;
        const char *ext = output_extension(only ? target_code_kind(arch_target(o, i)) : arch_emit(o, i));
        n->described[i] = !strcmp(named, "-") ? strdup("-") : arch || only ? sibling(named, arch, ext) : strdup(named);
        if (!n->described[i]) ice("out of memory");
        if (!only) n->code[i] = strdup(n->described[i]);
    }
    if (o->emit == EMIT_MANIFEST) n->manifest = strdup(out);
    else if (o->emit == EMIT_HEADER || o->emit == EMIT_C) n->generated = strdup(out);
    else if (o->emit != EMIT_LLVM && o->emit != EMIT_OBJECT && !to_stdout) n->manifest = sibling(out, NULL, "yaml");
    free(stem_name);
    for (int i = 0; n->manifest && i < o->arch_count; i++)
        if (strcmp(n->manifest, "-") && !strcmp(n->manifest, n->described[i])) {
            usage_error("--emit manifest -o %s: the manifest would name itself as the PTX it describes (write it to a .yaml file)",
                        o->output);
            return false;
        }
    return true;
}

static void free_names(OutputNames *n) {
    for (int i = 0; i < PYKC_MAX_ARCHS; i++) free(n->code[i]), free(n->described[i]);
    free(n->manifest);
    free(n->generated);
}

/* What a manifest's target says its code is. */
static const char *code_kind_name(EmitKind kind) {
    return kind == EMIT_CUBIN ? "cubin" : kind == EMIT_SHARED ? "host" : "ptx";
}

/* A cubin's resources, as ptxas reported them, into the manifest's target. */
static void keep_resources(Unit *u, const Code *code, ManifestTarget *t) {
    EntryResources *r = ARENA_ARRAY(u->arena, EntryResources, code->resource_count ? code->resource_count : 1);
    for (int i = 0; i < code->resource_count; i++)
        r[i] = (EntryResources){arena_strdup(u->arena, code->resources[i].entry), code->resources[i].registers,
                                code->resources[i].spill_bytes};
    t->resources = r;
    t->resource_count = code->resource_count;
}

/* The back half of the pipeline for one arch: IR, libraries, passes, then
 * PTX (or IR, or a cubin) among the outputs, or into *keep, and what the
 * manifest says of it in *t. */
static bool compile_arch(Unit *u, const Options *o, const OutputNames *names, int arch, Outputs *outs,
                         ManifestTarget *t, Code *keep) {
    DebugLevel debug = cg_debug_level(u);
    TargetConfig cfg = {.target = arch_target(o, arch), .arch = o->archs[arch], .opt_level = o->opt_level,
                        .debug_info = debug >= DEBUG_LINES, .lineinfo = debug != DEBUG_NONE, .libdevice = o->libdevice,
                        .relocatable = u->extern_count > 0 || u->launches, .libm = o->libm};
    Code code = {0};
    IrModule *ir = cg_module(u, &cfg);                           /* build the IR */
    bool ok = ir && target_link(ir, u->diag);                    /* link libdevice */
    ok = ok && target_optimize(ir, u->diag);                     /* optimise */
    ok = ok && target_emit(ir, arch_emit(o, arch), &code, u->diag); /* emit PTX, a cubin, a .so or IR */
    ir_module_free(ir);
    if (ok && names->code[arch]) ok = output_add(outs, names->code[arch], code.bytes, code.len);
    if (ok) {
        char digest[25];
        digest_fnv1a64(code.bytes, code.len, digest);
        *t = (ManifestTarget){.arch = cfg.arch, .ptx_version = arena_strdup(u->arena, code.version),
                              .kind = code_kind_name(describes_only(o->emit) ? target_code_kind(cfg.target)
                                                                             : arch_emit(o, arch)),
                              .file = arena_strdup(u->arena, base_name(names->described[arch])),
                              .digest = arena_strdup(u->arena, digest)};
        keep_resources(u, &code, t);
    }
    if (ok && keep) *keep = code;
    else code_free(&code);
    return ok;
}

/* The files the module links, as the manifest lists them: copied beside
 * it where the code is written too, embedded (their bytes in keep) in the
 * C of --emit c. */
static bool describe_links(Unit *u, const Options *o, const OutputNames *names, Outputs *outs, Manifest *m, Code *keep) {
    const char *beside = names->manifest ? names->manifest : names->generated;
    bool clash = link_is_output(u, beside);
    for (int i = 0; i < o->arch_count && !clash; i++) clash = link_is_output(u, names->code[i]);
    if (clash) return false;
    if (!u->link_count || !beside || o->emit == EMIT_HEADER) return true;
    ManifestLink *links = ARENA_ARRAY(u->arena, ManifestLink, u->link_count);
    m->links = links;
    m->link_count = u->link_count;
    bool copies = !describes_only(o->emit) && strcmp(beside, "-") != 0;
    return link_outputs(u, beside, copies ? outs : NULL, links, o->emit == EMIT_C ? keep : NULL);
}

/* Each arch's code, then the manifest, the last output; or the C of
 * --emit header or c, which embeds each arch's code. */
static bool generate(Unit *u, const Options *o, const OutputNames *names, Outputs *outs) {
    const SourceFile *src = diag_file(u->diag, u->module->span.file);
    char digest[25];
    digest_fnv1a64(src->text, src->size, digest);
    ManifestTarget targets[PYKC_MAX_ARCHS] = {{0}};
    Manifest m = {.source_path = base_name(o->input), .source_digest = digest, .targets = targets,
                  .target_count = o->arch_count, .device_runtime = u->launches};
    int ncodes = o->arch_count + u->link_count;
    Code *codes = ARENA_ARRAY(u->arena, Code, ncodes);
    bool ok = true;
    for (int i = 0; i < o->arch_count && ok; i++)
        ok = compile_arch(u, o, names, i, outs, &targets[i], o->emit == EMIT_C ? &codes[i] : NULL);
    if (ok) ok = describe_links(u, o, names, outs, &m, codes + o->arch_count); /* files to link, copied */
    if (ok && names->generated) {
        abi_describe_module(u, &m);
        ok = emitc_module(u, &m, o->emit == EMIT_C ? codes : NULL, names->generated, outs); /* C launchers */
    }
    for (int i = 0; i < ncodes; i++) code_free(&codes[i]);
    if (ok && names->manifest) {
        abi_describe_module(u, &m);
        size_t len;
        char *yaml = manifest_render(&m, &len, u->diag);
        ok = yaml && output_add(outs, names->manifest, yaml, len);
        free(yaml);
    }
    return ok;
}

/* Where -MD writes without -MF: beside the output, x.d for x.ptx, but
 * x.h.d and x.c.d for the C of --emit header and c, so that neither takes
 * the x.d of x.ptx, nor the C compiler's x.d of x.c. */
static char *dep_file_name(const Options *o) {
    if (o->emit != EMIT_HEADER && o->emit != EMIT_C) return sibling(o->output, NULL, "d");
    size_t n = strlen(o->output) + 3;
    char *out = malloc(n);
    if (!out) ice("out of memory");
    snprintf(out, n, "%s.d", o->output);
    return out;
}

/* -M, -MD: a make rule whose targets are exactly the files the run writes
 * (named after the input where they go to stdout), and what they depend on. */
static bool write_deps(const Unit *u, const Options *o, Outputs *outs) {
    Options named = *o;
    char *stem = NULL;
    if (!o->output || !strcmp(o->output, "-"))
        named.output = stem = sibling(base_name(o->input), NULL, output_extension(o->emit));
    OutputNames names;
    if (!name_outputs(&named, &names)) ice("output names not checked before");
    char *owned = NULL;
    const char *path = o->dep_output ? o->dep_output : o->dep_only ? "-" : (owned = dep_file_name(&named));
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) ice("out of memory writing dependencies");
    const char *sep = "";
    for (int i = 0; i < o->arch_count; i++)
        if (names.code[i]) fprintf(f, "%s%s", sep, names.code[i]), sep = " ";
    for (int i = 0; names.manifest && !describes_only(o->emit) && i < u->link_count; i++) {
        const char *copy = link_copy_path(u->arena, names.manifest, &u->links[i]);
        if (copy) fprintf(f, "%s%s", sep, copy), sep = " ";
    }
    if (names.manifest) fprintf(f, "%s%s", sep, names.manifest), sep = " ";
    if (names.generated) fprintf(f, "%s%s", sep, names.generated);
    fprintf(f, ": %s", o->input);
    for (int i = 0; i < u->dep_count; i++) fprintf(f, " \\\n  %s", u->deps[i]);
    for (int i = 0; i < u->link_count; i++) fprintf(f, " \\\n  %s", u->links[i].path);
    fputc('\n', f);
    for (int i = 0; i < u->dep_count; i++) fprintf(f, "\n%s:\n", u->deps[i]);
    for (int i = 0; i < u->link_count; i++) fprintf(f, "\n%s:\n", u->links[i].path);
    fclose(f);
    bool ok = output_add(outs, path, text, len);
    free(text);
    free(owned);
    free(stem);
    free_names(&names);
    return ok;
}

/* -v: a line for each piece of host code skipped. */
static void print_skipped(const Unit *u) {
    for (int i = 0; i < u->skipped_count; i++) {
        const Skipped *k = &u->skipped[i];
        int line, col;
        diag_line_col(u->diag, k->where.file, k->where.begin, &line, &col);
        fprintf(stderr, "%s:%d:%d: note: skipped host code: %s\n", diag_file(u->diag, k->where.file)->path, line, col,
                k->what);
    }
}

static int compile(const Options *o) {
    OutputNames names;
    if (!name_outputs(o, &names)) {
        free_names(&names);
        return EXIT_USAGE;
    }
    Diag diag;
    diag_init(&diag, stderr);
    diag.error_limit = o->error_limit;
    diag.werror = o->werror;
    diag.format = o->diag_format;
    const char *why;
    int file = diag_load_file(&diag, o->input, &why);
    if (file < 0) {
        fprintf(stderr, "pykc: error: cannot read '%s': %s\n", o->input, why);
        diag_free(&diag);
        free_names(&names);
        return EXIT_INPUT_ERROR;
    }
    Arena arena = {0};
    TokenArray toks = lex_file(&arena, &diag, file);                        /* lex */
    Node *module = parse_module(&arena, &diag, file, &toks);                /* parse */
    Unit unit = {.arena = &arena, .diag = &diag, .opts = o, .module = module};
    if (o->dump_ast && diag.error_count == 0) ast_dump(stdout, &diag, module);
    bool front_only = o->dump_ast || o->dump_types || o->explain_types || o->syntax_only;
    if (diag.error_count == 0 && !o->dump_ast) sema_module(&unit);         /* names, types */
    if (o->verbose) print_skipped(&unit);
    if (o->dump_types && diag.error_count == 0) sema_dump_types(stdout, &unit);
    if (o->explain_types && diag.error_count == 0) explain_types(&unit, o->explain_types);
    Outputs outs;
    outputs_init(&outs, &diag);
    if (diag.error_count == 0 && (o->dep_only || o->dep_file)) write_deps(&unit, o, &outs);
    if (diag.error_count == 0 && !front_only && !o->dep_only) generate(&unit, o, &names, &outs); /* code, manifest */
    if (diag.error_count == 0) outputs_commit(&outs);                      /* rename into place */
    outputs_discard(&outs);
    int status = unit.usage_error ? EXIT_USAGE : diag.error_count ? EXIT_INPUT_ERROR : EXIT_OK;
    arena_release(&arena);
    diag_free(&diag);
    free_names(&names);
    return status;
}

int main(int argc, char **argv) {
    Options opts;
    int r = options_parse(&opts, argc, argv);
    if (r != 0) {
        options_free(&opts);
        return r < 0 ? EXIT_OK : r;
    }
    int status = compile(&opts);
    options_free(&opts);
    return status;
}
