/*
 * Reading parquet-testing's encrypted files (data/ and
 * data/aes256/, written by parquet-mr) with the keys of KEYS.md, every column
 * through the column reader with chunked and "again" I/O, values checked
 * against the generator those files come from (parquet-cpp's encryption
 * interop data, test_encryption_util.cc: row i has boolean i%2==0, int32 i,
 * int64 list [2i, 2i+1] x 10^12, int96 {i, i+1, i+2}, float i*1.1f, double
 * i*1.1111111, ba "parquetNNN" on even rows and null on odd ones, flba ten
 * bytes of i).
 *
 * And the failures: wrong footer key, wrong column key, missing AAD prefix,
 * wrong AAD prefix: UPQ_ERR_AUTH, never data. The plaintext-footer file's
 * unencrypted columns read without any key; its encrypted ones fail with
 * UPQ_ERR_AUTH naming the column.
 *
 * external_key_material_java.parquet.encrypted (parquet-mr, key-tools key
 * material in _KEY_MATERIAL_FOR_<file>.json beside it, double wrapping
 * under InMemoryKMS) is read through port/adapters/keytools with KEYS.md's kf, kc1
 * and kc2 as master keys: every value of its 100 rows against its
 * generator (integers i, strings "a".."j" by i % 10 followed by i; no other
 * corpus file holds these rows), with chunked and "again" I/O; and a wrong
 * or missing master key, a missing side file, a side file without the
 * footer's reference and altered material give UPQ_ERR_AUTH with the
 * adapter's reason (a GCM tag, the master key id, the file, the reference).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "uparquet/uparquet.h"
#include "uparquet/column.h"
#include "upq_port.h"
#include "util/check.h"
#include "util/files.h"
#include "util/flaky_io.h"
#include "keytools/upq_keytools.h"

#define ARENA_SIZE (4u << 20)
static uint8_t arena[ARENA_SIZE] __attribute__((aligned(16)));

typedef struct keyring {
    int aes256;
    int wrong_footer, wrong_columns, no_column_keys, no_keys;
} keyring;

/* Keys by key_metadata, as KEYS.md lists them ("kf", "kc1".."kc8"). */
static upq_status get_key(void *ctx, const upq_bytes *md, const upq_bytes_list *path, uint8_t *key,
                          size_t *len)
{
    const keyring *k = ctx;
    size_t n = k->aes256 ? 32 : 16;
    if (k->no_keys)
        return UPQ_ERR_AUTH;
    if (!path || (md->len == 2 && memcmp(md->ptr, "kf", 2) == 0)) {
        memcpy(key, k->aes256 ? "01234567890123456789012345678901" : "0123456789012345", n);
        if (k->wrong_footer)
            key[0] ^= 1;
    } else if (md->len == 3 && memcmp(md->ptr, "kc", 2) == 0 && md->ptr[2] >= '1' &&
               md->ptr[2] <= '8') {
        if (k->no_column_keys)
            return UPQ_ERR_AUTH;
        if (k->aes256) {
            memcpy(key, "1234567890123456789012345678901", 31);
            key[31] = (uint8_t)('2' + (md->ptr[2] - '1'));
        } else {
            memcpy(key, "123456789012345", 15);
            key[15] = (uint8_t)('0' + (md->ptr[2] - '1'));
        }
        if (k->wrong_columns)
            key[3] ^= 0x40;
    } else {
        return UPQ_ERR_AUTH;
    }
    *len = n;
    return UPQ_OK;
}

typedef struct src {
    uint8_t *data;
    size_t len;
    tu_mem_src mem;
    tu_flaky flaky;
} src;

static upq_status open_file(upq_reader *r, src *s, const tu_flaky_cfg *cfg, keyring *k,
                            const char *prefix)
{
    upq_io io = {0};
    upq_reader_opts o;
    static upq_decrypt_opts d;
    upq_status st;
    tu_mem_src_init(&s->mem, s->data, s->len);
    tu_flaky_init(&s->flaky, cfg, tu_mem_read_at, &s->mem, tu_seed());
    io.ctx = &s->flaky;
    io.read_at = tu_flaky_read_at;
    io.size = s->len;
    memset(&o, 0, sizeof o);
    memset(&d, 0, sizeof d);
    d.get_key = get_key;
    d.key_ctx = k;
    if (prefix) {
        d.aad_prefix = (const uint8_t *)prefix;
        d.aad_prefix_len = (uint32_t)strlen(prefix);
        d.aad_prefix_given = 1;
    }
    o.decrypt = &d;
    upq_reader_init(r, &io, arena, sizeof arena, &o);
    do
        st = upq_reader_open(r);
    while (st == UPQ_AGAIN);
    return st;
}

/* The value row i must hold in leaf column c (by name). */
static int no_generator; /* the file's values have no published generator */

static int check_value(const char *name, uint64_t i, const uint8_t *v, int null, uint64_t *slot)
{
    if (no_generator)
        return 1;
    if (!strcmp(name, "boolean_field"))
        return !null && *v == (i % 2 == 0);
    if (!strcmp(name, "int32_field"))
        return !null && *(const int32_t *)(const void *)v == (int32_t)i;
    if (!strcmp(name, "element") || !strcmp(name, "int64_field")) {
        /* two per row: a LIST (aes256/) or a repeated field (data/) */
        int64_t want = (int64_t)(*slot)++ * 1000000000000LL;
        return !null && *(const int64_t *)(const void *)v == want;
    }
    if (!strcmp(name, "int96_field")) {
        const uint8_t *b = v;
        return !null && upq_load_le32(b) == (uint32_t)i && upq_load_le32(b + 4) == (uint32_t)i + 1 &&
               upq_load_le32(b + 8) == (uint32_t)i + 2;
    }
    if (!strcmp(name, "float_field"))
        return !null && *(const float *)(const void *)v == (float)i * 1.1f;
    if (!strcmp(name, "double_field"))
        return !null && *(const double *)(const void *)v == (double)i * 1.1111111;
    if (!strcmp(name, "ba_field")) {
        char want[11];
        const upq_bytes *b = (const upq_bytes *)(const void *)v;
        if (i % 2)
            return null;
        snprintf(want, sizeof want, "parquet%03u", (unsigned)(i % 1000));
        return !null && b->len == 10 && memcmp(b->ptr, want, 10) == 0;
    }
    if (!strcmp(name, "flba_field")) {
        const upq_bytes *b = (const upq_bytes *)(const void *)v;
        uint32_t k;
        if (null || b->len != 10)
            return 0;
        for (k = 0; k < 10; k++)
            if (b->ptr[k] != (uint8_t)i)
                return 0;
        return 1;
    }
    return 0;
}

/* Reads leaf column `col` of every row group; returns the status that ended
 * it (UPQ_DONE when complete) and counts bad values in *bad. */
static upq_status read_column(upq_reader *r, uint32_t col, unsigned long *bad, uint64_t *rows)
{
    const upq_schema *s = upq_reader_schema(r);
    const upq_file_metadata *m = upq_reader_metadata(r);
    const upq_column_desc *cd = &s->columns[col];
    const upq_bytes *nm = &s->nodes[cd->path[cd->path_len - 1]].elem->name;
    char name[64];
    uint64_t row = 0, slot = 0;
    uint32_t g;
    snprintf(name, sizeof name, "%.*s", (int)nm->len, (const char *)nm->ptr);
    for (g = 0; g < m->row_groups.n; g++) {
        upq_column_reader c;
        uint16_t def[97], rep[97];
        uint8_t vals[97 * 16];
        upq_batch b;
        upq_status st = upq_column_open(&c, r, g, col);
        if (st != UPQ_OK)
            return st;
        for (;;) {
            size_t k, v = 0;
            memset(&b, 0, sizeof b);
            b.def = def;
            b.rep = rep;
            b.values = vals;
            b.cap = 97;
            st = upq_column_read(&c, &b);
            if (st == UPQ_AGAIN)
                continue;
            if (st != UPQ_OK)
                break;
            for (k = 0; k < b.levels; k++) {
                int null = cd->max_def && def[k] < cd->max_def;
                if (!cd->max_rep || rep[k] == 0)
                    row++;
                if (!check_value(name, row - 1, null ? NULL : vals + v * upq_value_size(cd->physical_type),
                                 null, &slot))
                    (*bad)++;
                if (!null)
                    v++;
            }
        }
        upq_column_close(&c);
        if (st != UPQ_DONE)
            return st;
    }
    *rows = row;
    return UPQ_DONE;
}

static void read_all(const char *path, src *s, int aes256, const char *prefix)
{
    const char *base = tu_basename(path);
    size_t ci;
    for (ci = 0; ci < tu_flaky_ncfgs; ci += 3) { /* whole, primes, random + again */
        upq_reader r;
        keyring k;
        upq_status st;
        uint32_t col;
        memset(&k, 0, sizeof k);
        k.aes256 = aes256;
        tu_case("%s%s (%s): every column, every value", aes256 ? "aes256/" : "", base,
                tu_flaky_cfgs[ci].name);
        st = open_file(&r, s, &tu_flaky_cfgs[ci], &k, prefix);
        if (!TU_CHECK_STATUS(st, UPQ_OK)) {
            tu_note("%s", r.err.what ? r.err.what : "");
            continue;
        }
        TU_CHECK(upq_reader_file_crypto(&r) != NULL);
        for (col = 0; col < upq_reader_schema(&r)->num_columns; col++) {
            unsigned long bad = 0;
            uint64_t rows = 0;
            st = read_column(&r, col, &bad, &rows);
            TU_CHECK_MSG(st == UPQ_DONE, "column %u: %s (%s)", col, upq_strerror(st),
                         r.err.what ? r.err.what : "");
            TU_CHECK_MSG(bad == 0, "column %u: %lu values differ from the generator", col, bad);
            TU_CHECK_UINT(rows, (uint64_t)upq_reader_metadata(&r)->num_rows);
        }
    }
}

/* The arena upq_reader_workspace_size() plans is enough, exactly. */
static void planned_arena(const char *path, src *s, int aes256, const char *prefix)
{
    static uint8_t *small;
    upq_reader r;
    upq_workspace ws;
    keyring k;
    upq_status st;
    uint32_t col;
    upq_io io = {0};
    upq_reader_opts o;
    upq_decrypt_opts d;
    memset(&k, 0, sizeof k);
    k.aes256 = aes256;
    tu_case("%s%s: reading in the arena upq_reader_workspace_size plans", aes256 ? "aes256/" : "",
            tu_basename(path));
    if (!TU_CHECK_STATUS(open_file(&r, s, &tu_flaky_cfgs[0], &k, prefix), UPQ_OK))
        return;
    upq_workspace_init(&ws);
    while ((st = upq_reader_workspace_size(&r, &ws)) == UPQ_AGAIN)
        ;
    if (!TU_CHECK_STATUS(st, UPQ_OK))
        return;
    small = malloc(ws.sequential);
    memset(&o, 0, sizeof o);
    memset(&d, 0, sizeof d);
    d.get_key = get_key;
    d.key_ctx = &k;
    if (prefix) {
        d.aad_prefix = (const uint8_t *)prefix;
        d.aad_prefix_len = (uint32_t)strlen(prefix);
        d.aad_prefix_given = 1;
    }
    o.decrypt = &d;
    tu_mem_src_init(&s->mem, s->data, s->len);
    io.ctx = &s->mem;
    io.read_at = tu_mem_read_at;
    io.size = s->len;
    upq_reader_init(&r, &io, small, ws.sequential, &o);
    if (TU_CHECK_STATUS(upq_reader_open(&r), UPQ_OK))
        for (col = 0; col < upq_reader_schema(&r)->num_columns; col++) {
            unsigned long bad = 0;
            uint64_t rows = 0;
            TU_CHECK_STATUS(read_column(&r, col, &bad, &rows), UPQ_DONE);
        }
    free(small);
}

static int is_plain_footer(const char *base)
{
    return strstr(base, "plaintext_footer") != NULL;
}

static void failures(const char *path, src *s, int aes256, const char *prefix)
{
    const char *base = tu_basename(path);
    upq_reader r;
    keyring k;
    upq_status st;
    uint32_t col;
    const tu_flaky_cfg *whole = &tu_flaky_cfgs[0];

    tu_case("%s%s: wrong keys and AAD prefixes fail with UPQ_ERR_AUTH", aes256 ? "aes256/" : "", base);
    memset(&k, 0, sizeof k);
    k.aes256 = aes256;
    k.wrong_footer = 1;
    TU_CHECK_STATUS(open_file(&r, s, whole, &k, prefix), UPQ_ERR_AUTH);

    /* a wrong column key: the column's metadata or pages fail */
    memset(&k, 0, sizeof k);
    k.aes256 = aes256;
    k.wrong_columns = 1;
    st = open_file(&r, s, whole, &k, prefix);
    if (st == UPQ_OK) {
        int auth = 0;
        for (col = 0; col < upq_reader_schema(&r)->num_columns; col++) {
            unsigned long bad = 0;
            uint64_t rows;
            st = read_column(&r, col, &bad, &rows);
            TU_CHECK(st == UPQ_DONE || st == UPQ_ERR_AUTH);
            TU_CHECK(bad == 0);
            auth += st == UPQ_ERR_AUTH;
        }
        TU_CHECK_MSG(auth > 0 || strstr(base, "uniform"), "no column failed with a wrong key");
    } else {
        TU_CHECK_STATUS(st, UPQ_ERR_AUTH);
    }

    /* a wrong AAD prefix; and none, where the file does not store it */
    memset(&k, 0, sizeof k);
    k.aes256 = aes256;
    TU_CHECK_STATUS(open_file(&r, s, whole, &k, "tester2"), UPQ_ERR_AUTH);
    if (prefix)
        TU_CHECK_STATUS(open_file(&r, s, whole, &k, NULL),
                        strstr(base, "disable_aad_storage") ? UPQ_ERR_AUTH : UPQ_OK);

    if (is_plain_footer(base)) {
        int plain_ok = 0, enc_auth = 0;
        tu_case("%s%s: without keys, unencrypted columns read and encrypted ones say AUTH",
                aes256 ? "aes256/" : "", base);
        memset(&k, 0, sizeof k);
        k.aes256 = aes256;
        k.no_keys = 1;
        TU_CHECK_STATUS(open_file(&r, s, whole, &k, prefix), UPQ_OK);
        for (col = 0; col < upq_reader_schema(&r)->num_columns; col++) {
            const upq_column_chunk *ch = upq_reader_chunk(&r, 0, col);
            unsigned long bad = 0;
            uint64_t rows = 0;
            int encrypted = UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_CRYPTO_METADATA);
            st = read_column(&r, col, &bad, &rows);
            if (encrypted) {
                TU_CHECK_STATUS(st, UPQ_ERR_AUTH);
                TU_CHECK_INT(r.err.column, (int)col);
                enc_auth++;
            } else {
                TU_CHECK_STATUS(st, UPQ_DONE);
                TU_CHECK(bad == 0);
                plain_ok++;
            }
        }
        TU_CHECK(plain_ok > 0 || aes256); /* aes256: every column is encrypted */
        TU_CHECK(enc_auth > 0);
    }
}

/* ---- key-tools key material ----------------------------------------------- */

static const uint8_t MK_KF[16] = "0123456789012345";
static const uint8_t MK_KC1[16] = "1234567890123450";
static const uint8_t MK_KC2[16] = "1234567890123451";
static const uint8_t MK_BAD[16] = "0123456789012346";

/* Opens s with a key-tools context over `keys` (side file `side`, or its
 * text `side_text`); the adapter in *ktp. */
static upq_status kt_open(upq_reader *r, src *s, const tu_flaky_cfg *cfg, const upq_local_kms_key *keys,
                          size_t nkeys, const char *side, const char *side_text, upq_keytools **ktp,
                          upq_local_kms *lk, upq_kms *kms)
{
    upq_io io = {0};
    upq_reader_opts o;
    static upq_decrypt_opts d;
    upq_status st;
    memset(lk, 0, sizeof *lk);
    lk->keys = keys;
    lk->nkeys = nkeys;
    upq_local_kms_init(kms, lk);
    *ktp = upq_keytools_new(kms, NULL, NULL);
    if (side_text)
        upq_keytools_material_text(*ktp, side_text, strlen(side_text));
    else
        upq_keytools_material_file(*ktp, side);
    tu_mem_src_init(&s->mem, s->data, s->len);
    tu_flaky_init(&s->flaky, cfg, tu_mem_read_at, &s->mem, tu_seed());
    io.ctx = &s->flaky;
    io.read_at = tu_flaky_read_at;
    io.size = s->len;
    memset(&o, 0, sizeof o);
    memset(&d, 0, sizeof d);
    d.get_key = upq_keytools_get_key;
    d.key_ctx = *ktp;
    o.decrypt = &d;
    upq_reader_init(r, &io, arena, sizeof arena, &o);
    do
        st = upq_reader_open(r);
    while (st == UPQ_AGAIN);
    return st;
}

/* Every value of leaf column col: integers i, strings "a".."j" (i % 10) then i. */
static upq_status kt_read_column(upq_reader *r, uint32_t col, unsigned long *bad, uint64_t *rows)
{
    const upq_file_metadata *m = upq_reader_metadata(r);
    uint64_t row = 0;
    uint32_t g;
    for (g = 0; g < m->row_groups.n; g++) {
        upq_column_reader c;
        uint16_t def[37], rep[37];
        uint8_t vals[37 * 16];
        upq_batch b;
        upq_status st = upq_column_open(&c, r, g, col);
        if (st != UPQ_OK)
            return st;
        for (;;) {
            size_t k;
            memset(&b, 0, sizeof b);
            b.def = def;
            b.rep = rep;
            b.values = vals;
            b.cap = 37;
            st = upq_column_read(&c, &b);
            if (st == UPQ_AGAIN)
                continue;
            if (st != UPQ_OK)
                break;
            for (k = 0; k < b.levels; k++, row++) {
                if (col == 0) {
                    if (*(const int32_t *)(const void *)(vals + k * 4) != (int32_t)row)
                        (*bad)++;
                } else {
                    const upq_bytes *v = (const upq_bytes *)(const void *)(vals + k * sizeof(upq_bytes));
                    char want[16];
                    snprintf(want, sizeof want, "%c%u", 'a' + (int)(row % 10), (unsigned)row);
                    if (v->len != strlen(want) || memcmp(v->ptr, want, v->len) != 0)
                        (*bad)++;
                }
            }
        }
        upq_column_close(&c);
        if (st != UPQ_DONE)
            return st;
    }
    *rows = row;
    return UPQ_DONE;
}

/* The reason the adapter kept contains `word`. */
static void kt_reason(upq_keytools *kt, upq_status want, const char *word)
{
    const char *msg;
    TU_CHECK_STATUS(upq_keytools_error(kt, &msg), want);
    TU_CHECK_MSG(strstr(msg, word) != NULL, "reason '%s' lacks '%s'", msg, word);
}

static void key_material_file(const char *path)
{
    static const upq_local_kms_key keys[] = {{"kf", MK_KF, 16}, {"kc1", MK_KC1, 16}, {"kc2", MK_KC2, 16}};
    static const upq_local_kms_key wrong_kf[] = {{"kf", MK_BAD, 16}, {"kc1", MK_KC1, 16}, {"kc2", MK_KC2, 16}};
    static const upq_local_kms_key no_kc2[] = {{"kf", MK_KF, 16}, {"kc1", MK_KC1, 16}};
    const char *base = tu_basename(path);
    char side[1200];
    upq_local_kms lk;
    upq_kms kms;
    upq_keytools *kt;
    upq_reader r;
    upq_status st;
    src s;
    size_t ci;
    uint32_t col;
    char *text;
    size_t tlen;
    memset(&s, 0, sizeof s);
    if (!TU_CHECK_MSG(tu_read_file(path, &s.data, &s.len) == 0, "cannot read %s", path))
        return;
    TU_CHECK_STATUS(upq_keytools_material_path(path, side, sizeof side), UPQ_OK);
    for (ci = 0; ci < tu_flaky_ncfgs; ci += 3) {
        tu_case("%s (%s): master keys kf, kc1, kc2 through its side file, every value", base,
                tu_flaky_cfgs[ci].name);
        st = kt_open(&r, &s, &tu_flaky_cfgs[ci], keys, 3, side, NULL, &kt, &lk, &kms);
        if (TU_CHECK_STATUS(st, UPQ_OK)) {
            const upq_column_chunk *ch;
            TU_CHECK_UINT(upq_reader_schema(&r)->num_columns, 2);
            TU_CHECK_INT(upq_reader_metadata(&r)->num_rows, 100);
            for (col = 0; col < 2 && col < upq_reader_schema(&r)->num_columns; col++) {
                unsigned long bad = 0;
                uint64_t rows = 0;
                ch = upq_reader_chunk(&r, 0, col);
                /* each column under its own key (kc1, kc2), not the footer's */
                TU_CHECK(UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_CRYPTO_METADATA) &&
                         UPQ_ISSET(ch->crypto_metadata, UPQ_COLUMN_CRYPTO_METADATA_ENCRYPTION_WITH_COLUMN_KEY));
                st = kt_read_column(&r, col, &bad, &rows);
                TU_CHECK_MSG(st == UPQ_DONE, "column %u: %s (%s)", col, upq_strerror(st),
                             r.err.what ? r.err.what : "");
                TU_CHECK_MSG(bad == 0, "column %u: %lu values differ", col, bad);
                TU_CHECK_UINT(rows, 100);
            }
        }
        upq_keytools_free(kt);
    }

    tu_case("%s: a wrong master key kf: UPQ_ERR_AUTH, the KEK's GCM tag", base);
    TU_CHECK_STATUS(kt_open(&r, &s, &tu_flaky_cfgs[0], wrong_kf, 3, side, NULL, &kt, &lk, &kms),
                    UPQ_ERR_AUTH);
    kt_reason(kt, UPQ_ERR_AUTH, "GCM tag does not verify under master key 'kf'");
    upq_keytools_free(kt);

    tu_case("%s: no master key kc2: the footer and kc1's column read, kc2's says which key", base);
    if (TU_CHECK_STATUS(kt_open(&r, &s, &tu_flaky_cfgs[0], no_kc2, 2, side, NULL, &kt, &lk, &kms),
                        UPQ_OK)) {
        unsigned long bad = 0;
        uint64_t rows = 0;
        upq_status s0 = kt_read_column(&r, 0, &bad, &rows);
        upq_status s1 = kt_read_column(&r, 1, &bad, &rows);
        /* which column has which key is the file's business: one of them fails */
        TU_CHECK((s0 == UPQ_DONE) != (s1 == UPQ_DONE));
        TU_CHECK_STATUS(s0 == UPQ_DONE ? s1 : s0, UPQ_ERR_AUTH);
        TU_CHECK(bad == 0);
        kt_reason(kt, UPQ_ERR_AUTH, "no master key 'kc2'");
    }
    upq_keytools_free(kt);

    tu_case("%s: the side file missing: UPQ_ERR_AUTH, the file named", base);
    TU_CHECK_STATUS(kt_open(&r, &s, &tu_flaky_cfgs[0], keys, 3, "build/no/_KEY_MATERIAL_FOR_x.json",
                            NULL, &kt, &lk, &kms),
                    UPQ_ERR_AUTH);
    kt_reason(kt, UPQ_ERR_IO, "build/no/_KEY_MATERIAL_FOR_x.json");
    upq_keytools_free(kt);

    if (TU_CHECK(tu_read_file(side, (uint8_t **)&text, &tlen) == 0)) {
        char *t = malloc(tlen + 1), *p;
        memcpy(t, text, tlen);
        t[tlen] = '\0';
        tu_case("%s: a side file without \"footerKey\": UPQ_ERR_AUTH, the reference named", base);
        p = strstr(t, "\"footerKey\"");
        if (TU_CHECK(p != NULL)) {
            memcpy(p + 1, "footerKez", 9);
            TU_CHECK_STATUS(kt_open(&r, &s, &tu_flaky_cfgs[0], keys, 3, NULL, t, &kt, &lk, &kms),
                            UPQ_ERR_AUTH);
            kt_reason(kt, UPQ_ERR_CORRUPT, "no key reference 'footerKey'");
            upq_keytools_free(kt);
            memcpy(p + 1, "footerKey", 9);
        }
        tu_case("%s: the footer's wrapped KEK altered: UPQ_ERR_AUTH, a GCM tag", base);
        p = strstr(t, "wrappedKEK\\\":\\\"kWHN");
        if (TU_CHECK(p != NULL)) {
            p[strlen("wrappedKEK\\\":\\\"")] = 'j';
            TU_CHECK_STATUS(kt_open(&r, &s, &tu_flaky_cfgs[0], keys, 3, NULL, t, &kt, &lk, &kms),
                            UPQ_ERR_AUTH);
            kt_reason(kt, UPQ_ERR_AUTH, "GCM tag");
            upq_keytools_free(kt);
        }
        free(t);
        free(text);
    }
    free(s.data);
}

static void one_file(const char *path, int aes256)
{
    const char *base = tu_basename(path);
    const char *prefix = strstr(base, "aad") ? "tester" : NULL;
    src s;
    if (strstr(base, "external_key_material")) {
        key_material_file(path);
        return;
    }
    /* The bloom filter file holds other data (double i+0.5, ... "name_i")
     * with no published generator: its values are checked only by every
     * page authenticating under GCM and the row counts. */
    no_generator = strstr(base, "bloom_filter") != NULL;
    if (no_generator)
        tu_note("%s: values not compared (no published generator); pages authenticated", base);
    memset(&s, 0, sizeof s);
    if (!TU_CHECK_MSG(tu_read_file(path, &s.data, &s.len) == 0, "cannot read %s", path))
        return;
    read_all(path, &s, aes256, prefix);
    planned_arena(path, &s, aes256, prefix);
    failures(path, &s, aes256, prefix);
    free(s.data);
}

int main(void)
{
    char dir[1024];
    tu_file_list l;
    size_t i, n = 0;
    int pass;
#if !UPQ_WITH_CRYPTO
    tu_note("skipped: this build has no crypto (UPQ_WITH_CRYPTO=0; run make deps)");
    return tu_summary();
#endif
    for (pass = 0; pass < 2; pass++) {
        snprintf(dir, sizeof dir, "%s/data%s", tu_corpus_dir(), pass ? "/aes256" : "");
        if (!TU_CHECK_MSG(tu_list_files(dir, ".parquet.encrypted", &l) == 0, "cannot list %s", dir))
            continue;
        for (i = 0; i < l.n; i++) {
            if (!pass && strstr(l.paths[i], "/aes256/"))
                continue;
            one_file(l.paths[i], pass);
            n++;
        }
        tu_file_list_free(&l);
    }
    TU_CHECK_MSG(n >= 13, "only %zu encrypted files found", n);
    return tu_summary();
}
