/* Files and corpus listing for tests (see files.h). */
#define _POSIX_C_SOURCE 200809L
#include "util/files.h"
#include "util/check.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int tu_read_file(const char *path, uint8_t **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;

    *data = NULL;
    *len = 0;
    if (!f)
        return -1;
    for (;;) {
        size_t got;
        if (cap - n < 65536) {
            size_t ncap = cap ? cap * 2 : 65536;
            uint8_t *nb = (uint8_t *)realloc(buf, ncap + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                errno = ENOMEM;
                return -1;
            }
            buf = nb;
            cap = ncap;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        fclose(f);
        errno = e;
        return -1;
    }
    fclose(f);
    buf[n] = 0;
    *data = buf;
    *len = n;
    return 0;
}

int tu_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    int ok;
    if (!f)
        return -1;
    ok = fwrite(data, 1, len, f) == len;
    if (fclose(f) != 0)
        ok = 0;
    return ok ? 0 : -1;
}

const char *tu_corpus_dir(void)
{
    const char *d = getenv("PARQUET_TESTING_DIR");
    return (d && *d) ? d : "../shared/parquet-testing";
}

static int push(tu_file_list *l, size_t *cap, const char *path)
{
    char *p;
    if (l->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        char **np = (char **)realloc(l->paths, ncap * sizeof *np);
        if (!np)
            return -1;
        l->paths = np;
        *cap = ncap;
    }
    p = strdup(path);
    if (!p)
        return -1;
    l->paths[l->n++] = p;
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* Walks with an explicit list of pending directories; collects files. */
static int walk(const char *root, const char *suffix, tu_file_list *out, size_t *cap)
{
    tu_file_list dirs = {NULL, 0};
    size_t dcap = 0, next = 0;
    int rc = 0;

    if (push(&dirs, &dcap, root) != 0)
        return -1;
    while (next < dirs.n) {
        const char *dir = dirs.paths[next++];
        DIR *d = opendir(dir);
        struct dirent *e;
        if (!d) {
            if (next == 1)
                rc = -1;
            continue;
        }
        while ((e = readdir(d)) != NULL) {
            char path[4096];
            struct stat st;
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path)
                continue;
            if (stat(path, &st) != 0)
                continue;
            if (S_ISDIR(st.st_mode)) {
                if (push(&dirs, &dcap, path) != 0)
                    rc = -1;
            } else if (S_ISREG(st.st_mode) && (!suffix || !*suffix || ends_with(e->d_name, suffix))) {
                if (push(out, cap, path) != 0)
                    rc = -1;
            }
        }
        closedir(d);
    }
    tu_file_list_free(&dirs);
    return rc;
}

static int cmp_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int tu_list_files(const char *dir, const char *suffix, tu_file_list *out)
{
    size_t cap = 0;
    out->paths = NULL;
    out->n = 0;
    if (walk(dir, suffix, out, &cap) != 0) {
        tu_file_list_free(out);
        return -1;
    }
    if (out->n > 1)
        qsort(out->paths, out->n, sizeof *out->paths, cmp_paths);
    return 0;
}

void tu_file_list_free(tu_file_list *l)
{
    size_t i;
    for (i = 0; i < l->n; i++)
        free(l->paths[i]);
    free(l->paths);
    l->paths = NULL;
    l->n = 0;
}

int tu_file_has_encrypted_footer(const char *path)
{
    FILE *f = fopen(path, "rb");
    char tail[4];
    int r = 0;
    if (!f)
        return 0;
    if (fseek(f, -4, SEEK_END) == 0 && fread(tail, 1, 4, f) == 4)
        r = memcmp(tail, "PARE", 4) == 0;
    fclose(f);
    return r;
}

int tu_list_corpus(const char *subdir, unsigned flags, tu_file_list *out)
{
    char dir[4096];
    size_t i, j;
    const char *root = tu_corpus_dir();

    if (subdir && *subdir)
        snprintf(dir, sizeof dir, "%s/%s", root, subdir);
    else
        snprintf(dir, sizeof dir, "%s", root);
    if (tu_list_files(dir, ".parquet", out) != 0)
        return -1;
    if (flags & TU_CORPUS_SKIP_PARE) {
        for (i = j = 0; i < out->n; i++) {
            if (tu_file_has_encrypted_footer(out->paths[i]))
                free(out->paths[i]);
            else
                out->paths[j++] = out->paths[i];
        }
        out->n = j;
    }
    return 0;
}

const char *tu_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

void tu_for_each_corpus_file(const char *const *subdirs, size_t n, unsigned flags,
                             void (*fn)(const char *path))
{
    for (size_t d = 0; d < n; d++) {
        tu_file_list l;
        if (tu_list_corpus(subdirs[d], flags, &l) != 0) {
            TU_CHECK_MSG(0, "cannot list %s/%s", tu_corpus_dir(), subdirs[d]);
            continue;
        }
        for (size_t i = 0; i < l.n; i++)
            fn(l.paths[i]);
        tu_file_list_free(&l);
    }
}
