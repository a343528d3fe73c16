/*
 * Every file of the parquet-testing corpus (data/, bad_data/, shredded_variant/)
 * either opens — and its footer re-encodes to bytes that decode to the same
 * model — or fails with the specific error listed below. Every open is
 * repeated through read callbacks that deliver 1 byte at a time, prime-sized
 * and random short reads, and random "again", with identical results; and
 * truncated copies of each file fail cleanly.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "uparquet/uparquet.h"
#include "format/meta_desc.h"

static int passed, failed;
static void result(int ok, const char *file, const char *fmt, const char *detail)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL %s: ", file);
    printf(fmt, detail);
    printf("\n");
}

/* Files in bad_data/ and elsewhere whose footer or schema is unusable, with
 * the error opening them must give. Every other file must open. */
static const struct {
    const char *name;
    upq_status status;
    const char *why;
} expected_failures[] = {
    {"bad_data/ARROW-GH-41317.parquet", UPQ_ERR_CORRUPT,
     "row group 1 lists column chunks whose paths do not match the schema"},
    {"bad_data/ARROW-RS-GH-6229-DICTHEADER.parquet", UPQ_ERR_CORRUPT,
     "a column chunk claims bytes past the start of the footer"},
    {"bad_data/PARQUET-1481.parquet", UPQ_ERR_CORRUPT, "schema element with an invalid type"},
};

/* ---- in-memory files behind flaky read callbacks ---------------------- */

typedef struct mem_file {
    const uint8_t *data;
    uint64_t size;
    int mode;          /* 0 whole, 1 one byte, 2 primes, 3 random short, 4 random again */
    unsigned calls;
    unsigned rng;
} mem_file;

static unsigned next_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

static upq_status mem_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    static const size_t primes[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43};
    mem_file *m = (mem_file *)ctx;
    size_t n = len;
    m->calls++;
    if (m->mode == 4 && next_rand(&m->rng) % 3 == 0)
        return UPQ_AGAIN;
    if (m->mode == 1)
        n = 1;
    else if (m->mode == 2)
        n = primes[m->calls % 14];
    else if (m->mode >= 3)
        n = 1 + next_rand(&m->rng) % 64;
    if (off >= m->size) {
        *got = 0;
        return UPQ_OK;
    }
    if (n > len)
        n = len;
    if (n > m->size - off)
        n = (size_t)(m->size - off);
    memcpy(buf, m->data + off, n);
    *got = n;
    return UPQ_OK;
}

static uint8_t *arena_mem;
#define ARENA_SIZE (64u << 20)

/* Opens `m` (looping on UPQ_AGAIN) and returns the status; on success the
 * re-encoded footer goes to *enc / *enc_len (malloc'd). */
static upq_status open_mem(mem_file *m, upq_reader *r, uint8_t **enc, size_t *enc_len)
{
    upq_io io = {m, mem_read_at, m->size, NULL};
    upq_status st;
    unsigned spins = 0;
    upq_reader_init(r, &io, arena_mem, ARENA_SIZE, NULL);
    do {
        st = upq_reader_open(r);
    } while (st == UPQ_AGAIN && ++spins < 10000000u);
    if (st == UPQ_OK && enc) {
        size_t need = 0;
        upq_thrift_encode(&upq_file_metadata_desc, upq_reader_metadata(r), NULL, 0, &need);
        *enc = (uint8_t *)malloc(need ? need : 1);
        if (upq_thrift_encode(&upq_file_metadata_desc, upq_reader_metadata(r), *enc, need,
                              enc_len) != UPQ_OK)
            return UPQ_ERR_STATE;
    }
    return st;
}

static const char *rel_name(const char *path, const char *root)
{
    size_t n = strlen(root);
    return strncmp(path, root, n) == 0 && path[n] == '/' ? path + n + 1 : path;
}

static void test_file(const char *path, const char *root)
{
    const char *name = rel_name(path, root);
    FILE *f = fopen(path, "rb");
    struct stat sb;
    uint8_t *data, *enc0 = NULL, *enc1 = NULL, *enc2 = NULL;
    size_t len0 = 0, len1 = 0, len2 = 0;
    mem_file m;
    upq_reader r;
    upq_status st0, expect = UPQ_OK;
    size_t k;
    char detail[256];

    if (!f || fstat(fileno(f), &sb) != 0) {
        result(0, name, "%s", "cannot open");
        return;
    }
    data = (uint8_t *)malloc((size_t)sb.st_size + 1);
    if (fread(data, 1, (size_t)sb.st_size, f) != (size_t)sb.st_size) {
        result(0, name, "%s", "cannot read");
        fclose(f);
        free(data);
        return;
    }
    fclose(f);
    for (k = 0; k < sizeof expected_failures / sizeof expected_failures[0]; k++)
        if (strcmp(name, expected_failures[k].name) == 0)
            expect = expected_failures[k].status;
    /* encrypted footers, opened without keys: no key (test_crypto_read
     * reads them with their keys), or no decryption in this build */
    if (sb.st_size >= 4 && memcmp(data + sb.st_size - 4, "PARE", 4) == 0)
        expect = UPQ_WITH_CRYPTO ? UPQ_ERR_AUTH : UPQ_ERR_UNSUPPORTED;

    memset(&m, 0, sizeof m);
    m.data = data;
    m.size = (uint64_t)sb.st_size;
    st0 = open_mem(&m, &r, &enc0, &len0);
    snprintf(detail, sizeof detail, "open gave %s (%s), expected %s", upq_strerror(st0),
             r.err.what ? r.err.what : "", upq_strerror(expect));
    result(st0 == expect, name, "%s", detail);

    if (st0 == UPQ_OK) {
        /* re-encoded footer decodes to a model that encodes identically */
        upq_arena a;
        upq_file_metadata again;
        upq_arena_init(&a, arena_mem + ARENA_SIZE / 2, ARENA_SIZE / 2);
        upq_status st = upq_thrift_decode(&upq_file_metadata_desc, &again, &a, enc0, len0, NULL, NULL);
        if (st == UPQ_OK) {
            size_t need = 0;
            upq_thrift_encode(&upq_file_metadata_desc, &again, NULL, 0, &need);
            enc1 = (uint8_t *)malloc(need ? need : 1);
            st = upq_thrift_encode(&upq_file_metadata_desc, &again, enc1, need, &len1);
        }
        result(st == UPQ_OK && len1 == len0 && memcmp(enc0, enc1, len0) == 0, name, "%s",
               "re-encoded footer does not round-trip");
        free(enc1);
    }

    /* the same result in every chunking */
    for (int mode = 1; mode <= 4; mode++) {
        for (int rep = 0; rep < (mode >= 3 ? 3 : 1); rep++) {
            upq_status st;
            memset(&m, 0, sizeof m);
            m.data = data;
            m.size = (uint64_t)sb.st_size;
            m.mode = mode;
            m.rng = (unsigned)(rep * 7919 + mode);
            enc2 = NULL;
            len2 = 0;
            st = open_mem(&m, &r, st0 == UPQ_OK ? &enc2 : NULL, &len2);
            snprintf(detail, sizeof detail, "chunking mode %d gave %s, whole reads %s", mode,
                     upq_strerror(st), upq_strerror(st0));
            result(st == st0 && len2 == len0 && (!len0 || memcmp(enc0, enc2, len0) == 0), name,
                   "%s", detail);
            free(enc2);
        }
    }

    /* truncated copies never open (all short lengths near both ends, some in between) */
    {
        unsigned bad = 0, rng = 99;
        uint64_t size = (uint64_t)sb.st_size;
        for (uint64_t cut = 0; cut < size; cut++) {
            if (cut > 64 && cut + 64 < size && next_rand(&rng) % 512 != 0)
                continue;
            memset(&m, 0, sizeof m);
            m.data = data;
            m.size = cut;
            if (open_mem(&m, &r, NULL, NULL) == UPQ_OK)
                bad++;
        }
        snprintf(detail, sizeof detail, "%u truncated copies opened", bad);
        result(bad == 0, name, "%s", detail);
    }
    free(enc0);
    free(data);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Collects files whose name contains ".parquet" (not key-material JSON). */
static void collect(const char *dir, char ***list, size_t *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        char path[4096];
        struct stat sb;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode)) {
            collect(path, list, n);
        } else if (strstr(e->d_name, ".parquet") && !strstr(e->d_name, ".json")) {
            *list = (char **)realloc(*list, (*n + 1) * sizeof **list);
            (*list)[(*n)++] = strdup(path);
        }
    }
    closedir(d);
}

int main(void)
{
    const char *root = getenv("PARQUET_TESTING_DIR");
    static const char *subdirs[] = {"data", "bad_data", "shredded_variant"};
    char **files = NULL;
    size_t n = 0, i;
    if (!root)
        root = "../shared/parquet-testing";
    for (i = 0; i < 3; i++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", root, subdirs[i]);
        collect(dir, &files, &n);
    }
    if (n < 100) {
        printf("FAIL: only %zu corpus files under %s (PARQUET_TESTING_DIR)\n", n, root);
        printf("0 passed, 1 failed\n");
        return 1;
    }
    qsort(files, n, sizeof *files, cmp_str);
    arena_mem = (uint8_t *)malloc(ARENA_SIZE);
    for (i = 0; i < n; i++) {
        test_file(files[i], root);
        free(files[i]);
    }
    free(files);
    free(arena_mem);
    printf("test_footer: %zu files\n", n);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
