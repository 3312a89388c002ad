/* test_output.c - outputs written whole or not at all: nothing changes
 * before outputs_commit, which renames them into place in order; a
 * discarded run leaves no file; a symlink is written through; an input is
 * refused; a failed write is an error. */
#include "pykc.h"
#include "unit.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static bool holds(const char *path, const char *text) {
    char buf[64] = "";
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strcmp(buf, text) == 0;
}

static void put(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    ASSERT(f && fputs(text, f) >= 0 && fclose(f) == 0);
}

/* How many entries the directory holds. */
static int entries(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d) closedir(d);
    return n;
}

static void add(Outputs *o, const char *path, const char *text) { ASSERT(output_add(o, path, text, strlen(text))); }

void test_output(void) {
    char dir[] = "/tmp/pykc-output-XXXXXX";
    ASSERT(mkdtemp(dir) != NULL);
    char a[64], b[64], target[64], alias[64], input[64];
    snprintf(a, sizeof a, "%s/a.ptx", dir);
    snprintf(b, sizeof b, "%s/b.yaml", dir);
    snprintf(target, sizeof target, "%s/target.ptx", dir);
    snprintf(alias, sizeof alias, "%s/alias.ptx", dir);
    snprintf(input, sizeof input, "%s/k.pyk", dir);
    put(a, "old a");
    put(target, "old target");
    ASSERT(symlink("target.ptx", alias) == 0);
    put(input, "source");
    chmod(a, 0640);

    Diag d;
    diag_init(&d, stderr);
    const char *why;
    ASSERT(diag_load_file(&d, input, &why) >= 0);
    Outputs o;
    outputs_init(&o, &d);
    add(&o, a, "new a");
    add(&o, alias, "through");
    ASSERT(holds(a, "old a") && holds(target, "old target")); /* nothing yet */
    outputs_discard(&o);
    ASSERT(holds(a, "old a") && entries(dir) == 4);           /* no temporary left */

    outputs_init(&o, &d);
    add(&o, a, "new a");
    add(&o, alias, "through");
    add(&o, b, "new b");
    ASSERT(outputs_commit(&o));
    struct stat st;
    ASSERT(holds(a, "new a") && holds(b, "new b") && holds(target, "through"));
    ASSERT(lstat(alias, &st) == 0 && S_ISLNK(st.st_mode));
    ASSERT(stat(a, &st) == 0 && (st.st_mode & 0777) == 0640);
    ASSERT(entries(dir) == 5);

    /* an input, by its name or another, is refused */
    outputs_init(&o, &d);
    d.out = fopen("/dev/null", "w");
    ASSERT(!output_add(&o, input, "x", 1));
    ASSERT(d.error_count == 1 && holds(input, "source"));
    ASSERT(!output_add(&o, "/nonexistent-dir/x.ptx", "x", 1));
    ASSERT(d.error_count == 2);
    outputs_discard(&o);
    fclose(d.out);
    d.out = stderr;
    diag_free(&d);
    const char *names[] = {a, b, target, alias, input};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) unlink(names[i]);
    ASSERT(rmdir(dir) == 0);
}
