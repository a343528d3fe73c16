/*
 * The shared test helpers keep their promises: the flaky read_at honours the
 * read_at contract in every configuration (never 0 bytes before the end,
 * never more than asked, bounded runs of UPQ_AGAIN, the error at byte N), and
 * the corpus listing finds the files in place.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/check.h"
#include "util/files.h"
#include "util/flaky_io.h"

/* Reads the whole source through `f` the way a reader would: retry on
 * UPQ_AGAIN, continue after short reads. Returns the status that stopped it. */
static upq_status read_all(tu_flaky *f, uint8_t *out, size_t len, size_t ask, size_t *total)
{
    uint64_t off = 0;
    unsigned again_run = 0;
    *total = 0;
    for (;;) {
        size_t got = 0, want = ask;
        upq_status st;
        if (off + want > len + 16)
            want = (size_t)(len + 16 - off);
        st = tu_flaky_read_at(f, off, out + off, want, &got);
        if (st == UPQ_AGAIN) {
            if (++again_run > f->max_again_run)
                return UPQ_ERR_STATE; /* unbounded "again" would hang readers */
            continue;
        }
        again_run = 0;
        if (st != UPQ_OK)
            return st;
        if (got > want)
            return UPQ_ERR_STATE;
        if (got == 0)
            return UPQ_OK;
        off += got;
        *total = (size_t)off;
    }
}

static void test_configs(void)
{
    enum { N = 10007 };
    static uint8_t src[N], out[N + 16];
    size_t i, c;
    for (i = 0; i < N; i++)
        src[i] = (uint8_t)(i * 7 + (i >> 8));

    for (c = 0; c < tu_flaky_ncfgs; c++) {
        const tu_flaky_cfg *cfg = &tu_flaky_cfgs[c];
        tu_mem_src ms;
        tu_flaky f;
        size_t total = 0;
        upq_status st;

        tu_case("flaky read_at, %s", cfg->name);
        tu_mem_src_init(&ms, src, N);
        tu_flaky_init(&f, cfg, tu_mem_read_at, &ms, tu_seed() + c);
        memset(out, 0, sizeof out);
        st = read_all(&f, out, N, 4096, &total);
        TU_CHECK_STATUS(st, UPQ_OK);
        TU_CHECK_UINT(total, N);
        TU_CHECK_MEM(out, src, N);
        TU_CHECK_UINT(f.bytes, N);
        if (cfg->mode == TU_CHUNK_FIXED)
            TU_CHECK_UINT(f.calls - f.agains, (N + cfg->chunk - 1) / cfg->chunk + 1);
        if (cfg->again_pct >= 100)
            TU_CHECK_UINT(f.agains, f.calls / 2);
        else if (cfg->again_pct > 0)
            TU_CHECK(f.agains > 0);
        else
            TU_CHECK_UINT(f.agains, 0);
    }
}

static void test_fail_at(void)
{
    static const uint8_t src[100] = {1, 2, 3};
    uint8_t buf[100];
    tu_mem_src ms;
    tu_flaky f;
    size_t got = 99;

    tu_case("flaky read_at, I/O error at byte 40");
    tu_mem_src_init(&ms, src, sizeof src);
    tu_flaky_init(&f, &tu_flaky_cfgs[0], tu_mem_read_at, &ms, 1);
    f.fail_at = 40;
    TU_CHECK_STATUS(tu_flaky_read_at(&f, 0, buf, 100, &got), UPQ_OK);
    TU_CHECK_UINT(got, 40); /* the bytes before the failure arrive first */
    TU_CHECK_STATUS(tu_flaky_read_at(&f, 40, buf, 10, &got), UPQ_ERR_IO);
    TU_CHECK_STATUS(tu_flaky_read_at(&f, 0, buf, 40, &got), UPQ_OK);
    TU_CHECK_UINT(got, 40);
    TU_CHECK_UINT(f.errors, 1);
}

static void test_chunks(void)
{
    size_t c;
    for (c = 0; c < tu_flaky_ncfgs; c++) {
        tu_flaky f;
        size_t left = 5000, steps = 0, zeros = 0, run = 0, max_run = 0;
        int in_range = 1, fixed = 1;
        tu_case("push-mode chunks, %s", tu_flaky_cfgs[c].name);
        tu_flaky_init(&f, &tu_flaky_cfgs[c], NULL, NULL, tu_seed());
        while (left > 0 && steps < 100000) {
            size_t n = tu_flaky_next_chunk(&f, left);
            steps++;
            if (n == 0) {
                zeros++;
                if (++run > max_run)
                    max_run = run;
                continue;
            }
            run = 0;
            in_range &= n <= left;
            if (tu_flaky_cfgs[c].mode == TU_CHUNK_FIXED)
                fixed &= n == tu_flaky_cfgs[c].chunk || n == left;
            left -= n;
        }
        TU_CHECK(in_range);
        TU_CHECK(fixed);
        TU_CHECK_UINT(left, 0);
        TU_CHECK(max_run <= f.max_again_run);
        TU_CHECK_UINT(tu_flaky_next_chunk(&f, 0), 0);
    }
}

static void test_rand(void)
{
    uint64_t a = 42, b = 42;
    int i, same = 1, below = 1;
    tu_case("deterministic randomness");
    for (i = 0; i < 100; i++)
        same &= tu_rand(&a) == tu_rand(&b);
    TU_CHECK(same);
    for (i = 0; i < 1000; i++)
        below &= tu_rand_below(&a, 7) < 7;
    TU_CHECK(below);
}

static void test_files(void)
{
    tu_file_list all, plain;
    size_t i;
    int sorted = 1, suffix = 1, found_plain = 0, pare = 0;

    tu_case("corpus listing under %s", tu_corpus_dir());
    TU_CHECK_INT(tu_list_corpus("data", 0, &all), 0);
    TU_CHECK(all.n >= 50);
    for (i = 0; i < all.n; i++) {
        size_t l = strlen(all.paths[i]);
        suffix &= l > 8 && strcmp(all.paths[i] + l - 8, ".parquet") == 0;
        if (i > 0)
            sorted &= strcmp(all.paths[i - 1], all.paths[i]) < 0;
        found_plain |= strcmp(tu_basename(all.paths[i]), "alltypes_plain.parquet") == 0;
        pare += tu_file_has_encrypted_footer(all.paths[i]);
    }
    TU_CHECK(sorted);
    TU_CHECK(suffix);
    TU_CHECK(found_plain);
    TU_CHECK_INT(tu_list_corpus("data", TU_CORPUS_SKIP_PARE, &plain), 0);
    TU_CHECK_UINT(plain.n + (size_t)pare, all.n);
    tu_file_list_free(&all);
    tu_file_list_free(&plain);

    tu_case("read a whole file");
    {
        char path[4096];
        uint8_t *data = NULL;
        size_t len = 0;
        snprintf(path, sizeof path, "%s/data/alltypes_plain.parquet", tu_corpus_dir());
        TU_CHECK_INT(tu_read_file(path, &data, &len), 0);
        TU_CHECK_UINT(len, 1851);
        TU_CHECK(data && memcmp(data, "PAR1", 4) == 0 && memcmp(data + len - 4, "PAR1", 4) == 0);
        free(data);
        TU_CHECK_INT(tu_read_file("/nonexistent/file", &data, &len), -1);
    }
}

int main(void)
{
    tu_note("seed %llu", (unsigned long long)tu_seed());
    test_configs();
    test_fail_at();
    test_chunks();
    test_rand();
    test_files();
    return tu_summary();
}
