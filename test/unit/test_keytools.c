/*
 * The key-tools adapter (port/adapters/keytools): parquet-java's key material.
 *
 *  - base64 against RFC 4648's vectors, and what is not base64;
 *  - the material written: single and double wrapping x internal and
 *    external storage, each key read back through upq_keytools_get_key by a
 *    second context that shares only the KMS's master keys (and the side
 *    file's text); the fields parquet-java's KeyMaterial and KeyMetadata
 *    read, by name; one KEK per master key in double wrapping, none in
 *    single; references "footerKey", "columnKey0", ...; a DEK given is the
 *    DEK read;
 *  - the local KMS against parquet-java's InMemoryKMS: the corpus's
 *    external_key_material_java material (written by parquet-mr) opens with
 *    KEYS.md's master keys, the same DEK through both copies of the KEK;
 *  - failures, each with its status and a message naming it: a wrong master
 *    key and an altered wrapped key (UPQ_ERR_AUTH, "GCM tag"), an unknown
 *    master key id (UPQ_ERR_AUTH), bad base64 and bad JSON and missing or
 *    mistyped fields (UPQ_ERR_CORRUPT), another keyMaterialType and an
 *    unknown field (UPQ_ERR_UNSUPPORTED), a missing side file (UPQ_ERR_IO),
 *    a reference the side file lacks (UPQ_ERR_CORRUPT), no key metadata.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keytools/upq_keytools.h"
#include "util/check.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static upq_status rnd(void *ctx, uint8_t *buf, size_t len)
{
    (void)ctx;
    while (len--) {
        rng_state ^= rng_state << 13;
        rng_state ^= rng_state >> 7;
        rng_state ^= rng_state << 17;
        *buf++ = (uint8_t)(rng_state >> 32);
    }
    return UPQ_OK;
}

static const uint8_t KF[16] = "0123456789012345";
static const uint8_t KC1[16] = "1234567890123450";
static const uint8_t KC2[16] = "1234567890123451";
static const uint8_t K256[32] = "0123456789abcdef0123456789ABCDEF";
static upq_local_kms_key master[] = {
    {"kf", KF, 16}, {"kc1", KC1, 16}, {"kc2", KC2, 16}, {"k256", K256, 32}};

typedef struct kms_env {
    upq_local_kms lk;
    upq_kms kms;
    upq_keytools *kt;
} kms_env;

static void env_init(kms_env *e, const upq_local_kms_key *keys, size_t n)
{
    memset(e, 0, sizeof *e);
    e->lk.keys = keys;
    e->lk.nkeys = n;
    e->lk.random = rnd;
    upq_local_kms_init(&e->kms, &e->lk);
    e->kt = upq_keytools_new(&e->kms, rnd, NULL);
    TU_CHECK(e->kt != NULL);
}

/* ---- base64 ------------------------------------------------------------------ */

static void test_base64(void)
{
    static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const enc[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    static const char *const bad[] = {"Zg=", "Z", "Zm9v!", "Zm9v Yg==", "Zg==Zg==", "=Zg=", "Zm9vY==="};
    char out[64];
    uint8_t dec[64];
    size_t i, n;
    tu_case("base64: RFC 4648 vectors both ways, padding optional on input");
    for (i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        n = upq_base64_encode((const uint8_t *)plain[i], strlen(plain[i]), out, sizeof out);
        TU_CHECK_UINT(n, strlen(enc[i]));
        TU_CHECK_MSG(strcmp(out, enc[i]) == 0, "'%s' encoded as '%s'", plain[i], out);
        n = upq_base64_decode(enc[i], strlen(enc[i]), dec, sizeof dec);
        TU_CHECK_UINT(n, strlen(plain[i]));
        TU_CHECK(memcmp(dec, plain[i], strlen(plain[i])) == 0);
    }
    n = upq_base64_decode("Zm9vYg", 6, dec, sizeof dec);
    TU_CHECK_UINT(n, 4);
    tu_case("base64: what is not base64, and too little room");
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
        TU_CHECK_MSG(upq_base64_decode(bad[i], strlen(bad[i]), dec, sizeof dec) == (size_t)-1,
                     "'%s' decoded", bad[i]);
    TU_CHECK(upq_base64_decode("Zm9vYmFy", 8, dec, 5) == (size_t)-1);
    TU_CHECK(upq_base64_encode((const uint8_t *)"foo", 3, out, 4) == (size_t)-1);
}

/* ---- the material written, read back ------------------------------------------------ */

/* The string value of "name" in flat JSON text (a naive look: enough for
 * the material this adapter writes), into out. */
static int field(const char *json, const char *name, char *out, size_t cap)
{
    char pat[64];
    const char *p, *q;
    snprintf(pat, sizeof pat, "\"%s\":", name);
    p = strstr(json, pat);
    if (!p)
        return 0;
    p += strlen(pat);
    if (*p == '"') {
        q = strchr(++p, '"');
    } else {
        q = p + strcspn(p, ",}");
    }
    if (!q || (size_t)(q - p) >= cap)
        return 0;
    memcpy(out, p, (size_t)(q - p));
    out[q - p] = '\0';
    return 1;
}

static void roundtrip(int single, int external)
{
    kms_env w, r;
    upq_keytools_write_opts o;
    const uint8_t *md[4];
    uint32_t mdl[4];
    uint8_t dek[4][UPQ_CRYPTO_MAX_KEY], got[UPQ_CRYPTO_MAX_KEY];
    size_t dl[4], gl;
    static const char *const masters[4] = {"kf", "kc1", "kc1", "k256"};
    char kekid[4][64], v[256];
    int i;
    tu_case("%s wrapping, %s storage: written, then read by a context sharing only the KMS",
            single ? "single" : "double", external ? "external" : "internal");
    env_init(&w, master, 4);
    env_init(&r, master, 4);
    memset(&o, 0, sizeof o);
    o.single_wrapping = (uint8_t)single;
    o.external = (uint8_t)external;
    TU_CHECK_STATUS(upq_keytools_write_config(w.kt, &o), UPQ_OK);
    for (i = 0; i < 4; i++) {
        size_t give = i == 3 ? 32 : 0; /* the last DEK given (AES-256), the others drawn */
        if (give)
            memcpy(dek[i], K256, 32);
        TU_CHECK_STATUS(upq_keytools_wrap(w.kt, masters[i], i == 0, dek[i], give, &dl[i], &md[i],
                                          &mdl[i]),
                        UPQ_OK);
        TU_CHECK_UINT(dl[i], give ? 32 : 16);
        TU_CHECK_UINT(strlen((const char *)md[i]), mdl[i]);
    }
    TU_CHECK(memcmp(dek[0], dek[1], 16) != 0);
    /* settings are refused once keys are wrapped */
    TU_CHECK_STATUS(upq_keytools_write_config(w.kt, &o), UPQ_ERR_STATE);
    if (external) {
        const char *side = upq_keytools_material_json(w.kt);
        static const char *const refs[4] = {"footerKey", "columnKey0", "columnKey1", "columnKey2"};
        TU_CHECK(side != NULL);
        for (i = 0; i < 4; i++) {
            char want[128];
            snprintf(want, sizeof want,
                     "{\"keyMaterialType\":\"PKMT1\",\"internalStorage\":false,\"keyReference\":\"%s\"}",
                     refs[i]);
            TU_CHECK_MSG(strcmp((const char *)md[i], want) == 0, "key metadata %s", md[i]);
        }
        TU_CHECK(strstr(side, "\"footerKey\":\"{\\\"keyMaterialType\\\":\\\"PKMT1\\\"") != NULL);
        TU_CHECK(strstr(side, "internalStorage") == NULL);
        TU_CHECK_STATUS(upq_keytools_material_text(r.kt, side, strlen(side)), UPQ_OK);
    } else {
        for (i = 0; i < 4; i++) {
            const char *m = (const char *)md[i];
            TU_CHECK(strncmp(m, "{\"keyMaterialType\":\"PKMT1\",\"internalStorage\":true,", 50) == 0);
            TU_CHECK(field(m, "isFooterKey", v, sizeof v) && strcmp(v, i == 0 ? "true" : "false") == 0);
            TU_CHECK(field(m, "masterKeyID", v, sizeof v) && strcmp(v, masters[i]) == 0);
            TU_CHECK(field(m, "doubleWrapping", v, sizeof v) && strcmp(v, single ? "false" : "true") == 0);
            TU_CHECK(field(m, "wrappedDEK", v, sizeof v));
            /* single: the KMS's nonce | DEK | tag; double: the KEK's */
            TU_CHECK_UINT(strlen(v), (12 + dl[i] + 16 + 2) / 3 * 4);
            TU_CHECK((field(m, "kmsInstanceID", v, sizeof v) && strcmp(v, "DEFAULT") == 0) == (i == 0));
            TU_CHECK(field(m, "kmsInstanceURL", v, sizeof v) == (i == 0));
            kekid[i][0] = '\0';
            TU_CHECK(field(m, "keyEncryptionKeyID", kekid[i], sizeof kekid[i]) == !single);
            TU_CHECK(field(m, "wrappedKEK", v, sizeof v) == !single);
        }
        if (!single) {
            /* one KEK per master key: kc1's two columns share theirs */
            TU_CHECK(strcmp(kekid[1], kekid[2]) == 0);
            TU_CHECK(strcmp(kekid[0], kekid[1]) != 0 && strcmp(kekid[1], kekid[3]) != 0);
            TU_CHECK_UINT(strlen(kekid[0]), 24);
        }
    }
    for (i = 3; i >= 0; i--) {
        upq_bytes b;
        b.ptr = md[i];
        b.len = mdl[i];
        memset(got, 0, sizeof got);
        gl = 0;
        TU_CHECK_STATUS(upq_keytools_get_key(r.kt, &b, NULL, got, &gl), UPQ_OK);
        TU_CHECK_UINT(gl, dl[i]);
        TU_CHECK(memcmp(got, dek[i], dl[i]) == 0);
        TU_CHECK(upq_keytools_is_key_material(md[i], mdl[i]));
    }
    {
        const char *id, *url;
        upq_keytools_kms_instance(r.kt, &id, &url);
        TU_CHECK(id && strcmp(id, "DEFAULT") == 0 && url && strcmp(url, "DEFAULT") == 0);
    }
    /* a reader without kc1 gets the others and a clear refusal for kc1 */
    {
        kms_env r2;
        upq_bytes b;
        const char *msg;
        env_init(&r2, master, 1);
        if (external) {
            const char *side = upq_keytools_material_json(w.kt);
            /* asked twice, the same text (kept, not rebuilt) */
            TU_CHECK(side == upq_keytools_material_json(w.kt));
            upq_keytools_material_text(r2.kt, side, strlen(side));
        }
        b.ptr = md[0];
        b.len = mdl[0];
        TU_CHECK_STATUS(upq_keytools_unwrap(r2.kt, b.ptr, b.len, got, &gl), UPQ_OK);
        TU_CHECK_STATUS(upq_keytools_unwrap(r2.kt, md[1], mdl[1], got, &gl), UPQ_ERR_AUTH);
        TU_CHECK_STATUS(upq_keytools_error(r2.kt, &msg), UPQ_ERR_AUTH);
        TU_CHECK_MSG(strstr(msg, "no master key 'kc1'") != NULL, "message: %s", msg);
        upq_keytools_free(r2.kt);
    }
    upq_keytools_free(w.kt);
    upq_keytools_free(r.kt);
}

/* ---- parquet-mr's material ----------------------------------------------------------- */

/* external_key_material_java's side file, as parquet-mr wrote it */
static const char corpus_side[] =
    "{\"footerKey\":\"{\\\"kmsInstanceURL\\\":\\\"DEFAULT\\\",\\\"masterKeyID\\\":\\\"kf\\\",\\\"wrappedDEK\\\":"
    "\\\"FLQDczpR9upRCqUjtzac5N1PbdduFekfeklLxi4VwOLul7un1iBcdAsJAXc=\\\",\\\"keyEncryptionKeyID\\\":"
    "\\\"NFkiTmDXYzZMTb+O3b9nSA==\\\",\\\"doubleWrapping\\\":true,\\\"isFooterKey\\\":true,"
    "\\\"keyMaterialType\\\":\\\"PKMT1\\\",\\\"kmsInstanceID\\\":\\\"DEFAULT\\\",\\\"wrappedKEK\\\":"
    "\\\"kWHNReXsULhmTplhvImESLFTXV91t5CyoqaEVYLk7k0jD8oeTDDJCUnIiCs=\\\"}\","
    "\"columnKey1\":\"{\\\"masterKeyID\\\":\\\"kc2\\\",\\\"wrappedDEK\\\":"
    "\\\"cTH8VFwBMb+3u0r7XJrcjxPu1agMZ7gXWeo8WX6nKFVWpRWsgSLlJSIBo+w=\\\",\\\"keyEncryptionKeyID\\\":"
    "\\\"wxefHIzuJo6FH93Gqrc8OQ==\\\",\\\"doubleWrapping\\\":true,\\\"isFooterKey\\\":false,"
    "\\\"keyMaterialType\\\":\\\"PKMT1\\\",\\\"wrappedKEK\\\":"
    "\\\"ImQvItflZylrO0xon5ydb76OTbQgaL8iLSkBoyQ0h2FdoBbh9saOtNsdP2E=\\\"}\","
    "\"columnKey0\":\"{\\\"masterKeyID\\\":\\\"kc1\\\",\\\"wrappedDEK\\\":"
    "\\\"bdm0fNsrrL6Nxu8pbx1KNOLrGoZ8nKhezu+ctInKwAbau1rgjXULcIJQAoc=\\\",\\\"keyEncryptionKeyID\\\":"
    "\\\"obYT2tJ6W3JI9Pv7E8LgPQ==\\\",\\\"doubleWrapping\\\":true,\\\"isFooterKey\\\":false,"
    "\\\"keyMaterialType\\\":\\\"PKMT1\\\",\\\"wrappedKEK\\\":"
    "\\\"lriDjlnkKi5MvjdHb0+pA2Xc9FtpK5lUti3TwNzUNS7vbPfuxiChBbb0Tf4=\\\"}\"}";

static const char *ref_md(const char *ref, char *buf, size_t cap)
{
    snprintf(buf, cap, "{\"keyMaterialType\":\"PKMT1\",\"internalStorage\":false,\"keyReference\":\"%s\"}",
             ref);
    return buf;
}

static void test_parquet_mr(void)
{
    kms_env e;
    char md[128];
    uint8_t k[3][UPQ_CRYPTO_MAX_KEY];
    size_t kl[3];
    static const char *const refs[3] = {"footerKey", "columnKey0", "columnKey1"};
    int i;
    tu_case("parquet-mr's side file: three DEKs under KEYS.md's master keys, each once");
    env_init(&e, master, 3);
    TU_CHECK_STATUS(upq_keytools_material_text(e.kt, corpus_side, strlen(corpus_side)), UPQ_OK);
    for (i = 0; i < 3; i++) {
        ref_md(refs[i], md, sizeof md);
        TU_CHECK_STATUS(upq_keytools_unwrap(e.kt, (const uint8_t *)md, strlen(md), k[i], &kl[i]),
                        UPQ_OK);
        TU_CHECK_UINT(kl[i], 16);
    }
    TU_CHECK(memcmp(k[0], k[1], 16) != 0 && memcmp(k[1], k[2], 16) != 0);
    /* asked again (kept): the same */
    {
        uint8_t again[UPQ_CRYPTO_MAX_KEY];
        size_t al;
        ref_md("columnKey1", md, sizeof md);
        TU_CHECK_STATUS(upq_keytools_unwrap(e.kt, (const uint8_t *)md, strlen(md), again, &al), UPQ_OK);
        TU_CHECK(al == 16 && memcmp(again, k[2], 16) == 0);
    }
    {
        const char *id, *url;
        upq_keytools_kms_instance(e.kt, &id, &url);
        TU_CHECK(id && strcmp(id, "DEFAULT") == 0);
    }
    upq_keytools_free(e.kt);
}

/* ---- failures ----------------------------------------------------------------------- */

/* Unwraps md (text) with keys; the status and a word of the message. */
static void expect_fail(const char *what, const upq_local_kms_key *keys, size_t nkeys,
                        const char *side, const char *side_file, const char *md, upq_status want,
                        const char *word)
{
    kms_env e;
    uint8_t k[UPQ_CRYPTO_MAX_KEY];
    size_t kl = 0;
    const char *msg = "";
    upq_bytes b;
    tu_case("%s: %s", what, upq_strerror(want));
    env_init(&e, keys, nkeys);
    if (side)
        TU_CHECK_STATUS(upq_keytools_material_text(e.kt, side, strlen(side)), UPQ_OK);
    if (side_file)
        TU_CHECK_STATUS(upq_keytools_material_file(e.kt, side_file), UPQ_OK);
    TU_CHECK_STATUS(upq_keytools_unwrap(e.kt, (const uint8_t *)md, strlen(md), k, &kl), want);
    TU_CHECK_STATUS(upq_keytools_error(e.kt, &msg), want);
    TU_CHECK_MSG(strstr(msg, word) != NULL, "message '%s' lacks '%s'", msg, word);
    /* the reader's callback says UPQ_ERR_AUTH and keeps the reason */
    b.ptr = (const uint8_t *)md;
    b.len = (uint32_t)strlen(md);
    TU_CHECK_STATUS(upq_keytools_get_key(e.kt, &b, NULL, k, &kl), UPQ_ERR_AUTH);
    TU_CHECK_STATUS(upq_keytools_error(e.kt, NULL), want);
    tu_note("%s", msg);
    upq_keytools_free(e.kt);
}

/* One internal material of each wrapping, written here, edited by the cases. */
static void internal_md(int single, char *out, size_t cap)
{
    kms_env w;
    upq_keytools_write_opts o;
    uint8_t dek[UPQ_CRYPTO_MAX_KEY];
    size_t dl;
    const uint8_t *md;
    uint32_t ml;
    env_init(&w, master, 4);
    memset(&o, 0, sizeof o);
    o.single_wrapping = (uint8_t)single;
    upq_keytools_write_config(w.kt, &o);
    TU_CHECK_STATUS(upq_keytools_wrap(w.kt, "kc1", 0, dek, 0, &dl, &md, &ml), UPQ_OK);
    snprintf(out, cap, "%s", (const char *)md);
    upq_keytools_free(w.kt);
}

/* text with the first `from` replaced by `to` */
static void edit(char *dst, size_t cap, const char *src, const char *from, const char *to)
{
    const char *p = strstr(src, from);
    if (!p) {
        snprintf(dst, cap, "%s", src);
        return;
    }
    snprintf(dst, cap, "%.*s%s%s", (int)(p - src), src, to, p + strlen(from));
}

/* the value of "name" replaced */
static void edit_value(char *dst, size_t cap, const char *src, const char *name, const char *value)
{
    char old[256], from[300], to[300];
    if (!field(src, name, old, sizeof old)) {
        snprintf(dst, cap, "%s", src);
        return;
    }
    snprintf(from, sizeof from, "\"%s\":\"%s\"", name, old);
    snprintf(to, sizeof to, "\"%s\":%s", name, value);
    edit(dst, cap, src, from, to);
}

static void test_failures(void)
{
    static const upq_local_kms_key wrong_kc1[] = {{"kc1", KC2, 16}};
    static const upq_local_kms_key only_kf[] = {{"kf", KF, 16}};
    static const upq_local_kms_key bad_len[] = {{"kc1", KC1, 15}};
    char dbl[1024], sgl[1024], t[1200], v[256], md[128];
    int single;
    internal_md(0, dbl, sizeof dbl);
    internal_md(1, sgl, sizeof sgl);

    for (single = 0; single < 2; single++) {
        const char *m = single ? sgl : dbl;
        char w[64];
        snprintf(w, sizeof w, "%s: wrong master key", single ? "single" : "double");
        expect_fail(w, wrong_kc1, 1, NULL, NULL, m, UPQ_ERR_AUTH, "GCM tag");
        snprintf(w, sizeof w, "%s: unknown master key id", single ? "single" : "double");
        expect_fail(w, only_kf, 1, NULL, NULL, m, UPQ_ERR_AUTH, "no master key 'kc1'");
        snprintf(w, sizeof w, "%s: master key of 15 bytes", single ? "single" : "double");
        expect_fail(w, bad_len, 1, NULL, NULL, m, UPQ_ERR_INVAL, "16, 24 or 32");
        /* the wrapped DEK: a character changed (still base64), not base64 */
        field(m, "wrappedDEK", v, sizeof v);
        v[5] = v[5] == 'A' ? 'B' : 'A';
        {
            char q[300];
            snprintf(q, sizeof q, "\"%s\"", v);
            edit_value(t, sizeof t, m, "wrappedDEK", q);
        }
        snprintf(w, sizeof w, "%s: altered wrappedDEK", single ? "single" : "double");
        expect_fail(w, master, 4, NULL, NULL, t, UPQ_ERR_AUTH, "GCM tag");
        edit_value(t, sizeof t, m, "wrappedDEK", "\"AAAA*AAA\"");
        snprintf(w, sizeof w, "%s: wrappedDEK not base64", single ? "single" : "double");
        expect_fail(w, master, 4, NULL, NULL, t, UPQ_ERR_CORRUPT, "base64");
        edit_value(t, sizeof t, m, "wrappedDEK", "\"AAAA\"");
        snprintf(w, sizeof w, "%s: wrappedDEK too short", single ? "single" : "double");
        expect_fail(w, master, 4, NULL, NULL, t, UPQ_ERR_CORRUPT, "bytes");
    }
    edit_value(t, sizeof t, dbl, "keyEncryptionKeyID", "\"%%%\"");
    expect_fail("KEK id not base64", master, 4, NULL, NULL, t, UPQ_ERR_CORRUPT, "keyEncryptionKeyID");
    edit_value(t, sizeof t, dbl, "wrappedKEK", "\"not base64!\"");
    expect_fail("wrappedKEK not base64", master, 4, NULL, NULL, t, UPQ_ERR_CORRUPT, "base64");
    edit_value(t, sizeof t, dbl, "keyEncryptionKeyID", "\"AAAAAAAAAAAAAAAAAAAAAA==\"");
    expect_fail("another KEK id (the AAD of the DEK)", master, 4, NULL, NULL, t, UPQ_ERR_AUTH, "GCM tag");

    edit(t, sizeof t, dbl, "\"PKMT1\"", "\"PKMT2\"");
    expect_fail("key material type PKMT2", master, 4, NULL, NULL, t, UPQ_ERR_UNSUPPORTED, "PKMT2");
    edit(t, sizeof t, dbl, "{", "{\"keyRotation\":true,");
    expect_fail("unknown field", master, 4, NULL, NULL, t, UPQ_ERR_UNSUPPORTED, "keyRotation");
    edit(t, sizeof t, dbl, "\"masterKeyID\"", "\"masterKeyId\"");
    expect_fail("misspelt field", master, 4, NULL, NULL, t, UPQ_ERR_UNSUPPORTED, "masterKeyId");
    edit(t, sizeof t, dbl, "\"doubleWrapping\":true", "\"doubleWrapping\":\"true\"");
    expect_fail("a boolean as a string", master, 4, NULL, NULL, t, UPQ_ERR_CORRUPT, "doubleWrapping");
    edit(t, sizeof t, dbl, "\"doubleWrapping\":true,", "");
    expect_fail("no doubleWrapping", master, 4, NULL, NULL, t, UPQ_ERR_CORRUPT, "doubleWrapping");
    edit(t, sizeof t, dbl, ",\"wrappedKEK\"", ",\"x\":1,\"wrappedKEK\"");
    expect_fail("a number", master, 4, NULL, NULL, t, UPQ_ERR_CORRUPT, "bad JSON");
    edit(t, sizeof t, dbl, "}", "");
    expect_fail("truncated JSON", master, 4, NULL, NULL, t, UPQ_ERR_CORRUPT, "bad JSON");
    edit(t, sizeof t, dbl, "\"isFooterKey\":false", "\"isFooterKey\":false,\"isFooterKey\":true");
    expect_fail("a field twice", master, 4, NULL, NULL, t, UPQ_ERR_CORRUPT, "twice");
    expect_fail("plain key metadata", master, 4, NULL, NULL, "kc1", UPQ_ERR_CORRUPT, "bad JSON");
    TU_CHECK(!upq_keytools_is_key_material((const uint8_t *)"kc1", 3));
    TU_CHECK(!upq_keytools_is_key_material((const uint8_t *)"{\"a\":\"b\"}", 9));
    expect_fail("no key metadata", master, 4, NULL, NULL, "", UPQ_ERR_AUTH, "no key metadata");

    /* external */
    ref_md("columnKey0", md, sizeof md);
    expect_fail("side file missing", master, 4, NULL, "/nonexistent/_KEY_MATERIAL_FOR_x.json", md,
                UPQ_ERR_IO, "/nonexistent/_KEY_MATERIAL_FOR_x.json");
    expect_fail("no side file given", master, 4, NULL, NULL, md, UPQ_ERR_IO, "no key material file");
    ref_md("columnKey7", md, sizeof md);
    expect_fail("reference not in the side file", master, 4, corpus_side, NULL, md, UPQ_ERR_CORRUPT,
                "columnKey7");
    edit(t, sizeof t, "{\"keyMaterialType\":\"PKMT1\",\"internalStorage\":false,\"keyReference\":\"footerKey\"}",
         "\"keyReference\"", "\"keyRef\"");
    expect_fail("unknown field in key metadata", master, 4, corpus_side, NULL, t, UPQ_ERR_UNSUPPORTED,
                "keyRef");
    {
        kms_env e;
        tu_case("side file: bad JSON, a reference that is not a string");
        env_init(&e, master, 4);
        TU_CHECK_STATUS(upq_keytools_material_text(e.kt, "{\"footerKey\":", 13), UPQ_ERR_CORRUPT);
        TU_CHECK_STATUS(upq_keytools_material_text(e.kt, "{\"footerKey\":true}", 18), UPQ_ERR_CORRUPT);
        TU_CHECK_STATUS(upq_keytools_material_text(e.kt, "[]", 2), UPQ_ERR_CORRUPT);
        upq_keytools_free(e.kt);
    }
    /* the side file's material with bad base64 */
    edit(t, sizeof t, corpus_side, "FLQDczpR9upR", "FLQD#zpR9upR");
    ref_md("footerKey", md, sizeof md);
    expect_fail("side file: wrappedDEK not base64", master, 3, t, NULL, md, UPQ_ERR_CORRUPT, "base64");

    {
        kms_env e;
        uint8_t dek[UPQ_CRYPTO_MAX_KEY];
        size_t dl;
        const uint8_t *m;
        uint32_t ml;
        upq_keytools_write_opts o;
        tu_case("writing: unknown master key, a DEK of 20 bytes, a KEK of 20 bytes");
        env_init(&e, master, 4);
        const char *msg;
        TU_CHECK_STATUS(upq_keytools_wrap(e.kt, "nope", 1, dek, 0, &dl, &m, &ml), UPQ_ERR_AUTH);
        TU_CHECK_STATUS(upq_keytools_error(e.kt, &msg), UPQ_ERR_AUTH);
        TU_CHECK_MSG(strstr(msg, "no master key 'nope'") != NULL, "message: %s", msg);
        TU_CHECK_STATUS(upq_keytools_wrap(e.kt, "kf", 1, dek, 20, &dl, &m, &ml), UPQ_ERR_INVAL);
        upq_keytools_free(e.kt);
        env_init(&e, master, 4);
        memset(&o, 0, sizeof o);
        o.kek_len = 20;
        TU_CHECK_STATUS(upq_keytools_write_config(e.kt, &o), UPQ_ERR_INVAL);
        upq_keytools_free(e.kt);
    }
}

/* A side file on disk, saved and read back by name. */
static void test_side_file(void)
{
    kms_env w, r;
    upq_keytools_write_opts o;
    uint8_t dek[UPQ_CRYPTO_MAX_KEY], got[UPQ_CRYPTO_MAX_KEY];
    size_t dl, gl;
    const uint8_t *md;
    uint32_t ml;
    char path[256];
    tu_case("side file: saved beside a file, found by upq_keytools_material_beside");
    TU_CHECK_STATUS(upq_keytools_material_path("dir/sub/x.parquet", path, sizeof path), UPQ_OK);
    TU_CHECK(strcmp(path, "dir/sub/_KEY_MATERIAL_FOR_x.parquet.json") == 0);
    TU_CHECK_STATUS(upq_keytools_material_path("x.parquet", path, sizeof path), UPQ_OK);
    TU_CHECK(strcmp(path, "_KEY_MATERIAL_FOR_x.parquet.json") == 0);
    TU_CHECK_STATUS(upq_keytools_material_path("x.parquet", path, 10), UPQ_ERR_BUFFER);
    env_init(&w, master, 4);
    env_init(&r, master, 4);
    memset(&o, 0, sizeof o);
    o.external = 1;
    o.kek_len = 32;
    upq_keytools_write_config(w.kt, &o);
    TU_CHECK_STATUS(upq_keytools_wrap(w.kt, "kf", 1, dek, 0, &dl, &md, &ml), UPQ_OK);
    TU_CHECK_STATUS(upq_keytools_material_path("build/test_keytools.parquet", path, sizeof path), UPQ_OK);
    TU_CHECK_STATUS(upq_keytools_save_material(w.kt, path), UPQ_OK);
    TU_CHECK_STATUS(upq_keytools_material_beside(r.kt, "build/test_keytools.parquet"), UPQ_OK);
    TU_CHECK_STATUS(upq_keytools_unwrap(r.kt, md, ml, got, &gl), UPQ_OK);
    TU_CHECK(gl == 16 && memcmp(got, dek, 16) == 0);
    remove(path);
    TU_CHECK_STATUS(upq_keytools_save_material(w.kt, "/nonexistent/dir/side.json"), UPQ_ERR_IO);
    upq_keytools_free(w.kt);
    upq_keytools_free(r.kt);
}

int main(void)
{
#if !UPQ_WITH_CRYPTO
    tu_note("skipped: this build has no crypto (UPQ_WITH_CRYPTO=0; run make deps)");
    return tu_summary();
#endif
    test_base64();
    roundtrip(0, 0);
    roundtrip(1, 0);
    roundtrip(0, 1);
    roundtrip(1, 1);
    test_parquet_mr();
    test_failures();
    test_side_file();
    return tu_summary();
}
