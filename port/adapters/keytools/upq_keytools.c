/*
 * parquet-java's key-tools key material (see upq_keytools.h): parsing and
 * unwrapping for the reader, wrapping and serialising for the writer, and
 * the local KMS. Host code: malloc and stdio.
 */
#include "upq_keytools.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upq_aes.h"

#define KT_TYPE "PKMT1"
#define KT_REF_FOOTER "footerKey"
#define KT_REF_COLUMN "columnKey"
#define KT_WRAPPED_MAX 4096 /* a KMS's text for one wrapped key */

/* ---- base64 ------------------------------------------------------------------ */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t upq_base64_encode(const uint8_t *in, size_t len, char *out, size_t cap)
{
    size_t i, o = 0, need = (len + 2) / 3 * 4 + 1;
    if (cap < need)
        return (size_t)-1;
    for (i = 0; i + 2 < len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = b64[v >> 18];
        out[o++] = b64[(v >> 12) & 63];
        out[o++] = b64[(v >> 6) & 63];
        out[o++] = b64[v & 63];
    }
    if (i < len) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < len ? (uint32_t)in[i + 1] << 8 : 0);
        out[o++] = b64[v >> 18];
        out[o++] = b64[(v >> 12) & 63];
        out[o++] = i + 1 < len ? b64[(v >> 6) & 63] : '=';
        out[o++] = '=';
    }
    out[o] = '\0';
    return o;
}

static int b64val(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

size_t upq_base64_decode(const char *in, size_t len, uint8_t *out, size_t cap)
{
    size_t i, o = 0, pad = 0;
    uint32_t acc = 0;
    unsigned nb = 0;
    /* padding only at the end, as java.util.Base64's basic decoder takes it */
    while (pad < 2 && len > 0 && in[len - 1] == '=') {
        len--;
        pad++;
    }
    if (len % 4 == 1 || (pad && (len + pad) % 4 != 0))
        return (size_t)-1;
    for (i = 0; i < len; i++) {
        int v = b64val(in[i]);
        if (v < 0)
            return (size_t)-1;
        acc = acc << 6 | (uint32_t)v;
        if (++nb == 4) {
            if (o + 3 > cap)
                return (size_t)-1;
            out[o++] = (uint8_t)(acc >> 16);
            out[o++] = (uint8_t)(acc >> 8);
            out[o++] = (uint8_t)acc;
            acc = 0;
            nb = 0;
        }
    }
    if (nb == 2 || nb == 3) {
        if (o + nb - 1 > cap)
            return (size_t)-1;
        acc <<= 6 * (4 - nb);
        out[o++] = (uint8_t)(acc >> 16);
        if (nb == 3)
            out[o++] = (uint8_t)(acc >> 8);
    }
    return o;
}

/* ---- a flat JSON object ------------------------------------------------------ */

enum { JV_STRING, JV_TRUE, JV_FALSE, JV_NULL };

typedef struct jmember {
    char *name;
    char *str; /* JV_STRING: decoded, NUL terminated */
    size_t len;
    int kind;
} jmember;

/* Members of one object: far more than any key material has (a reference
 * per key), and within some 128 MB parsed. */
#define JOBJ_MAX_MEMBERS ((size_t)1 << 20)

typedef struct jobj {
    jmember *m;
    size_t n, cap;
    const jmember **byname; /* the members sorted by name: lookups in O(log n) */
} jobj;

static void jobj_free(jobj *o)
{
    size_t i;
    for (i = 0; i < o->n; i++) {
        free(o->m[i].name);
        if (o->m[i].str) {
            memset(o->m[i].str, 0, o->m[i].len);
            free(o->m[i].str);
        }
    }
    free(o->m);
    free(o->byname);
    memset(o, 0, sizeof *o);
}

static int jmember_cmp(const void *a, const void *b)
{
    return strcmp((*(const jmember *const *)a)->name, (*(const jmember *const *)b)->name);
}

typedef struct jparse {
    const char *p, *end;
    const char *err;
    size_t at; /* offset of the error */
    const char *start;
} jparse;

static void jws(jparse *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static int jfail(jparse *j, const char *what)
{
    if (!j->err) {
        j->err = what;
        j->at = (size_t)(j->p - j->start);
    }
    return -1;
}

static int hex4(const char *p, uint32_t *v)
{
    int i;
    *v = 0;
    for (i = 0; i < 4; i++) {
        char c = p[i];
        uint32_t d;
        if (c >= '0' && c <= '9')
            d = (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (uint32_t)(c - 'A' + 10);
        else
            return -1;
        *v = *v << 4 | d;
    }
    return 0;
}

/* A JSON string at j->p (the opening quote) into a malloc'd UTF-8 copy. */
static int jstring(jparse *j, char **out, size_t *outlen)
{
    const char *s;
    char *buf;
    size_t n = 0;
    if (j->p >= j->end || *j->p != '"')
        return jfail(j, "expected a string");
    s = ++j->p;
    /* the decoded text is never longer than the escaped one */
    while (j->p < j->end && *j->p != '"') {
        if (*j->p == '\\')
            j->p++;
        j->p++;
    }
    if (j->p >= j->end)
        return jfail(j, "unterminated string");
    buf = malloc((size_t)(j->p - s) + 1);
    if (!buf)
        return jfail(j, "out of memory");
    while (s < j->p) {
        unsigned char c = (unsigned char)*s++;
        uint32_t u;
        if (c < 0x20) {
            free(buf);
            j->p = s - 1;
            return jfail(j, "control character in a string");
        }
        if (c != '\\') {
            buf[n++] = (char)c;
            continue;
        }
        c = (unsigned char)*s++;
        switch (c) {
        case '"': case '\\': case '/': buf[n++] = (char)c; break;
        case 'b': buf[n++] = '\b'; break;
        case 'f': buf[n++] = '\f'; break;
        case 'n': buf[n++] = '\n'; break;
        case 'r': buf[n++] = '\r'; break;
        case 't': buf[n++] = '\t'; break;
        case 'u':
            if (j->p - s < 4 || hex4(s, &u)) {
                free(buf);
                return jfail(j, "bad \\u escape");
            }
            s += 4;
            if (u >= 0xd800 && u < 0xdc00 && j->p - s >= 6 && s[0] == '\\' && s[1] == 'u') {
                uint32_t lo;
                if (!hex4(s + 2, &lo) && lo >= 0xdc00 && lo < 0xe000) {
                    u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
                    s += 6;
                }
            }
            if (u >= 0xd800 && u < 0xe000) {
                free(buf);
                return jfail(j, "lone surrogate in a \\u escape");
            }
            /* UTF-8 of u: at most as long as its escape */
            if (u < 0x80) {
                buf[n++] = (char)u;
            } else if (u < 0x800) {
                buf[n++] = (char)(0xc0 | u >> 6);
                buf[n++] = (char)(0x80 | (u & 63));
            } else if (u < 0x10000) {
                buf[n++] = (char)(0xe0 | u >> 12);
                buf[n++] = (char)(0x80 | ((u >> 6) & 63));
                buf[n++] = (char)(0x80 | (u & 63));
            } else {
                buf[n++] = (char)(0xf0 | u >> 18);
                buf[n++] = (char)(0x80 | ((u >> 12) & 63));
                buf[n++] = (char)(0x80 | ((u >> 6) & 63));
                buf[n++] = (char)(0x80 | (u & 63));
            }
            break;
        default:
            free(buf);
            return jfail(j, "bad escape in a string");
        }
    }
    buf[n] = '\0';
    j->p++;
    *out = buf;
    *outlen = n;
    return 0;
}

static int jword(jparse *j, const char *w)
{
    size_t l = strlen(w);
    if ((size_t)(j->end - j->p) < l || memcmp(j->p, w, l) != 0)
        return 0;
    j->p += l;
    return 1;
}

/* Parses text[0..len) as one JSON object whose values are strings,
 * booleans or null. 0, or -1 with j->err / j->at. */
static int jobj_parse(jobj *o, const char *text, size_t len, jparse *j)
{
    memset(o, 0, sizeof *o);
    memset(j, 0, sizeof *j);
    j->p = j->start = text;
    j->end = text + len;
    jws(j);
    if (j->p >= j->end || *j->p != '{')
        return jfail(j, "not a JSON object");
    j->p++;
    jws(j);
    if (j->p < j->end && *j->p == '}') {
        j->p++;
    } else {
        for (;;) {
            jmember m;
            size_t nl;
            memset(&m, 0, sizeof m);
            jws(j);
            if (jstring(j, &m.name, &nl))
                goto fail;
            if (strlen(m.name) != nl) {
                free(m.name);
                jfail(j, "NUL in a member name");
                goto fail;
            }
            jws(j);
            if (j->p >= j->end || *j->p != ':') {
                free(m.name);
                jfail(j, "expected ':'");
                goto fail;
            }
            j->p++;
            jws(j);
            if (j->p < j->end && *j->p == '"') {
                m.kind = JV_STRING;
                if (jstring(j, &m.str, &m.len)) {
                    free(m.name);
                    goto fail;
                }
            } else if (jword(j, "true")) {
                m.kind = JV_TRUE;
            } else if (jword(j, "false")) {
                m.kind = JV_FALSE;
            } else if (jword(j, "null")) {
                m.kind = JV_NULL;
            } else {
                free(m.name);
                jfail(j, "a value other than a string, true, false or null");
                goto fail;
            }
            if (o->n == JOBJ_MAX_MEMBERS) {
                free(m.name);
                free(m.str);
                jfail(j, "more than 1048576 members");
                goto fail;
            }
            if (o->n == o->cap) {
                size_t nc = o->cap ? o->cap * 2 : 16;
                jmember *nm = realloc(o->m, nc * sizeof *nm);
                if (!nm) {
                    free(m.name);
                    free(m.str);
                    jfail(j, "out of memory");
                    goto fail;
                }
                o->m = nm;
                o->cap = nc;
            }
            o->m[o->n++] = m;
            jws(j);
            if (j->p < j->end && *j->p == ',') {
                j->p++;
                continue;
            }
            if (j->p < j->end && *j->p == '}') {
                j->p++;
                break;
            }
            jfail(j, "expected ',' or '}'");
            goto fail;
        }
    }
    jws(j);
    if (j->p != j->end) {
        jfail(j, "text after the object");
        goto fail;
    }
    /* a duplicate name would make the meaning depend on the parser: found
     * side by side once sorted, so any number of members takes n log n */
    {
        size_t a;
        o->byname = malloc((o->n ? o->n : 1) * sizeof *o->byname);
        if (!o->byname) {
            jfail(j, "out of memory");
            goto fail;
        }
        for (a = 0; a < o->n; a++)
            o->byname[a] = &o->m[a];
        qsort(o->byname, o->n, sizeof *o->byname, jmember_cmp);
        for (a = 1; a < o->n; a++)
            if (strcmp(o->byname[a - 1]->name, o->byname[a]->name) == 0) {
                j->p = j->start;
                jfail(j, "a member name appears twice");
                goto fail;
            }
    }
    return 0;
fail:
    jobj_free(o);
    return -1;
}

static const jmember *jget(const jobj *o, const char *name)
{
    size_t lo = 0, hi = o->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(o->byname[mid]->name, name);
        if (c == 0)
            return o->byname[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* ---- the context ------------------------------------------------------------- */

typedef struct kt_cached {
    char *id; /* key metadata text (DEK) or KEK id */
    size_t id_len;
    uint8_t key[UPQ_CRYPTO_MAX_KEY];
    size_t len;
    char *wrapped_kek; /* writing: the KEK as the KMS wrapped it */
    char *kek_id;      /* writing: the KEK's id, base64 (the entry's id is its master key) */
} kt_cached;

typedef struct kt_list {
    kt_cached *v;
    size_t n, cap;
} kt_list;

struct upq_keytools {
    upq_kms kms;
    upq_random_fn random;
    void *random_ctx;
    upq_status err;
    char msg[UPQ_KEYTOOLS_MSG_LEN];
    /* reading */
    char *material_path; /* side file to load */
    jobj material;       /* its references, once loaded */
    int material_loaded;
    kt_list deks, keks;
    char *kms_id, *kms_url;
    /* writing */
    upq_keytools_write_opts wo;
    int wrote;
    kt_list wkeks;       /* KEKs by master key id */
    char **mds;          /* key metadata handed out */
    size_t nmds;
    char **ext_refs, **ext_texts; /* external material, in order */
    size_t next, ncolumn_refs;
    char *ext_json;      /* the side file's text for the first ext_json_n */
    size_t ext_json_n;
};

static upq_status fail(upq_keytools *kt, upq_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(kt->msg, sizeof kt->msg, fmt, ap);
    va_end(ap);
    kt->err = st;
    return st;
}

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static void list_free(kt_list *l)
{
    size_t i;
    for (i = 0; i < l->n; i++) {
        free(l->v[i].id);
        free(l->v[i].wrapped_kek);
        free(l->v[i].kek_id);
    }
    if (l->v)
        memset(l->v, 0, l->cap * sizeof *l->v);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static kt_cached *list_find(const kt_list *l, const char *id, size_t id_len)
{
    size_t i;
    for (i = 0; i < l->n; i++)
        if (l->v[i].id_len == id_len && memcmp(l->v[i].id, id, id_len) == 0)
            return &l->v[i];
    return NULL;
}

static kt_cached *list_add(kt_list *l, const char *id, size_t id_len)
{
    kt_cached *c;
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 8;
        kt_cached *nv = realloc(l->v, nc * sizeof *nv);
        if (!nv)
            return NULL;
        l->v = nv;
        l->cap = nc;
    }
    c = &l->v[l->n];
    memset(c, 0, sizeof *c);
    c->id = dup_n(id, id_len);
    if (!c->id)
        return NULL;
    c->id_len = id_len;
    l->n++;
    return c;
}

upq_keytools *upq_keytools_new(const upq_kms *kms, upq_random_fn random, void *random_ctx)
{
    upq_keytools *kt = calloc(1, sizeof *kt);
    if (!kt)
        return NULL;
    kt->kms = *kms;
    kt->random = random;
    kt->random_ctx = random_ctx;
    return kt;
}

void upq_keytools_free(upq_keytools *kt)
{
    size_t i;
    if (!kt)
        return;
    free(kt->material_path);
    jobj_free(&kt->material);
    list_free(&kt->deks);
    list_free(&kt->keks);
    list_free(&kt->wkeks);
    free(kt->kms_id);
    free(kt->kms_url);
    for (i = 0; i < kt->nmds; i++)
        free(kt->mds[i]);
    free(kt->mds);
    for (i = 0; i < kt->next; i++) {
        free(kt->ext_refs[i]);
        free(kt->ext_texts[i]);
    }
    free(kt->ext_refs);
    free(kt->ext_texts);
    free(kt->ext_json);
    memset(kt, 0, sizeof *kt);
    free(kt);
}

upq_status upq_keytools_error(const upq_keytools *kt, const char **msg)
{
    if (msg)
        *msg = kt->err == UPQ_OK ? "" : kt->msg;
    return kt->err;
}

void upq_keytools_kms_instance(const upq_keytools *kt, const char **id, const char **url)
{
    *id = kt->kms_id;
    *url = kt->kms_url;
}

/* ---- external material --------------------------------------------------------- */

upq_status upq_keytools_material_file(upq_keytools *kt, const char *path)
{
    char *p = dup_n(path, strlen(path));
    if (!p)
        return fail(kt, UPQ_ERR_NOMEM, "out of memory");
    free(kt->material_path);
    kt->material_path = p;
    jobj_free(&kt->material);
    kt->material_loaded = 0;
    return UPQ_OK;
}

upq_status upq_keytools_material_path(const char *parquet_path, char *out, size_t cap)
{
    const char *slash = strrchr(parquet_path, '/');
    size_t dir = slash ? (size_t)(slash - parquet_path) + 1 : 0;
    int n = snprintf(out, cap, "%.*s_KEY_MATERIAL_FOR_%s.json", (int)dir, parquet_path,
                     parquet_path + dir);
    return n < 0 || (size_t)n >= cap ? UPQ_ERR_BUFFER : UPQ_OK;
}

upq_status upq_keytools_material_beside(upq_keytools *kt, const char *parquet_path)
{
    size_t cap = strlen(parquet_path) + 32;
    char *p = malloc(cap);
    upq_status st;
    if (!p)
        return fail(kt, UPQ_ERR_NOMEM, "out of memory");
    upq_keytools_material_path(parquet_path, p, cap);
    st = upq_keytools_material_file(kt, p);
    free(p);
    return st;
}

static upq_status material_parse(upq_keytools *kt, const char *text, size_t len, const char *name)
{
    jparse j;
    size_t i;
    jobj_free(&kt->material);
    if (jobj_parse(&kt->material, text, len, &j))
        return fail(kt, UPQ_ERR_CORRUPT, "key material file %s: bad JSON at byte %zu: %s", name,
                    j.at, j.err);
    for (i = 0; i < kt->material.n; i++)
        if (kt->material.m[i].kind != JV_STRING) {
            fail(kt, UPQ_ERR_CORRUPT,
                 "key material file %s: reference '%s' is not a string of key material", name,
                 kt->material.m[i].name);
            jobj_free(&kt->material);
            return UPQ_ERR_CORRUPT;
        }
    kt->material_loaded = 1;
    return UPQ_OK;
}

upq_status upq_keytools_material_text(upq_keytools *kt, const char *json, size_t len)
{
    free(kt->material_path);
    kt->material_path = NULL;
    return material_parse(kt, json, len, "(given)");
}

static upq_status material_load(upq_keytools *kt)
{
    FILE *f;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    upq_status st;
    if (kt->material_loaded)
        return UPQ_OK;
    if (!kt->material_path)
        return fail(kt, UPQ_ERR_IO,
                    "the key material is stored outside the file and no key material file was given");
    f = fopen(kt->material_path, "rb");
    if (!f)
        return fail(kt, UPQ_ERR_IO, "key material file %s: cannot open it (%s)", kt->material_path,
                    strerror(errno));
    for (;;) {
        size_t n;
        if (len == cap) {
            char *nb;
            cap = cap ? cap * 2 : 4096;
            if (cap > ((size_t)64 << 20)) {
                fclose(f);
                free(buf);
                return fail(kt, UPQ_ERR_LIMIT, "key material file %s: larger than 64 MiB",
                            kt->material_path);
            }
            nb = realloc(buf, cap);
            if (!nb) {
                fclose(f);
                free(buf);
                return fail(kt, UPQ_ERR_NOMEM, "out of memory");
            }
            buf = nb;
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    if (ferror(f)) {
        fclose(f);
        free(buf);
        return fail(kt, UPQ_ERR_IO, "key material file %s: read error", kt->material_path);
    }
    fclose(f);
    st = material_parse(kt, buf ? buf : "", len, kt->material_path);
    free(buf);
    return st;
}

/* ---- AES-GCM of one wrapped key ------------------------------------------------- */

/* The key schedule of key from the heap (key_drop wipes and frees it). */
static void key_drop(upq_aes_key *k)
{
    upq_aes_wipe(k);
    free(k);
}

static upq_status key_take(const uint8_t *key, size_t key_len, upq_aes_key **k)
{
    upq_status st;
    *k = malloc(upq_aes_key_size() ? upq_aes_key_size() : 1);
    if (!*k)
        return UPQ_ERR_NOMEM;
    st = upq_aes_setkey(*k, key, key_len);
    if (st != UPQ_OK)
        key_drop(*k);
    return st;
}

/* nonce(12) | ciphertext | tag(16) under key, AAD given: into out. */
static upq_status gcm_unwrap(const uint8_t *key, size_t key_len, const uint8_t *aad, size_t aad_len,
                             const uint8_t *in, size_t len, uint8_t *out, size_t cap,
                             size_t *out_len)
{
    upq_aes_key *k;
    upq_status st;
    size_t n;
    if (len < UPQ_GCM_NONCE_LEN + UPQ_GCM_TAG_LEN)
        return UPQ_ERR_CORRUPT;
    n = len - UPQ_GCM_NONCE_LEN - UPQ_GCM_TAG_LEN;
    if (n > cap)
        return UPQ_ERR_BUFFER;
    st = key_take(key, key_len, &k);
    if (st != UPQ_OK)
        return st;
    st = upq_gcm_decrypt(k, in, UPQ_GCM_NONCE_LEN, aad, aad_len, in + UPQ_GCM_NONCE_LEN, out, n,
                         in + len - UPQ_GCM_TAG_LEN, UPQ_GCM_TAG_LEN);
    key_drop(k);
    if (st == UPQ_OK)
        *out_len = n;
    return st;
}

/* plain[0..len) under key with a fresh nonce: nonce | ct | tag into out. */
static upq_status gcm_wrap(const uint8_t *key, size_t key_len, const uint8_t *aad, size_t aad_len,
                           const uint8_t *plain, size_t len, upq_random_fn random, void *rctx,
                           uint8_t *out)
{
    upq_aes_key *k;
    upq_status st;
    if (!random)
        return UPQ_ERR_INVAL;
    st = random(rctx, out, UPQ_GCM_NONCE_LEN);
    if (st != UPQ_OK)
        return st;
    st = key_take(key, key_len, &k);
    if (st != UPQ_OK)
        return st;
    upq_gcm_encrypt(k, out, UPQ_GCM_NONCE_LEN, aad, aad_len, plain, out + UPQ_GCM_NONCE_LEN, len,
                    out + UPQ_GCM_NONCE_LEN + len);
    key_drop(k);
    return UPQ_OK;
}

/* ---- the local KMS ------------------------------------------------------------------ */

static const upq_local_kms_key *local_find(const upq_local_kms *lk, const char *id)
{
    size_t i;
    for (i = 0; i < lk->nkeys; i++)
        if (strcmp(lk->keys[i].id, id) == 0)
            return &lk->keys[i];
    return NULL;
}

static upq_status local_unwrap(void *ctx, const char *master_id, const char *wrapped,
                               size_t wrapped_len, uint8_t *key, size_t cap, size_t *key_len,
                               char *msg, size_t msgcap)
{
    const upq_local_kms_key *mk = local_find(ctx, master_id);
    uint8_t buf[KT_WRAPPED_MAX];
    size_t n;
    upq_status st;
    if (!mk) {
        snprintf(msg, msgcap, "the KMS has no master key '%s'", master_id);
        return UPQ_ERR_AUTH;
    }
    n = upq_base64_decode(wrapped, wrapped_len, buf, sizeof buf);
    if (n == (size_t)-1) {
        snprintf(msg, msgcap, "the wrapped key is not base64");
        return UPQ_ERR_CORRUPT;
    }
    st = gcm_unwrap(mk->key, mk->len, (const uint8_t *)master_id, strlen(master_id), buf, n, key,
                    cap, key_len);
    memset(buf, 0, sizeof buf);
    if (st == UPQ_ERR_AUTH)
        snprintf(msg, msgcap,
                 "the GCM tag does not verify under master key '%s' (a wrong master key, or "
                 "altered key material)", master_id);
    else if (st == UPQ_ERR_CORRUPT || st == UPQ_ERR_BUFFER)
        snprintf(msg, msgcap, "the wrapped key is %zu bytes, not nonce, key and tag", n);
    else if (st == UPQ_ERR_UNSUPPORTED)
        snprintf(msg, msgcap, "this build has no AES (UPQ_WITH_CRYPTO=0)");
    else if (st != UPQ_OK)
        snprintf(msg, msgcap, "master key '%s' is not 16, 24 or 32 bytes", master_id);
    return st == UPQ_ERR_BUFFER ? UPQ_ERR_CORRUPT : st;
}

static upq_status local_wrap(void *ctx, const char *master_id, const uint8_t *key, size_t key_len,
                             char *out, size_t cap, size_t *out_len, char *msg, size_t msgcap)
{
    const upq_local_kms *lk = ctx;
    const upq_local_kms_key *mk = local_find(lk, master_id);
    uint8_t buf[UPQ_GCM_NONCE_LEN + UPQ_CRYPTO_MAX_KEY + UPQ_GCM_TAG_LEN];
    size_t n = UPQ_GCM_NONCE_LEN + key_len + UPQ_GCM_TAG_LEN;
    upq_status st;
    if (!mk) {
        snprintf(msg, msgcap, "the KMS has no master key '%s'", master_id);
        return UPQ_ERR_AUTH;
    }
    if (key_len > UPQ_CRYPTO_MAX_KEY) {
        snprintf(msg, msgcap, "a key to wrap is longer than %u bytes", UPQ_CRYPTO_MAX_KEY);
        return UPQ_ERR_INVAL;
    }
    st = gcm_wrap(mk->key, mk->len, (const uint8_t *)master_id, strlen(master_id), key, key_len,
                  lk->random, lk->random_ctx, buf);
    if (st != UPQ_OK) {
        snprintf(msg, msgcap, "cannot wrap with master key '%s' (%s)", master_id,
                 st == UPQ_ERR_INVAL         ? "no random source, or a key not 16, 24 or 32 bytes"
                 : st == UPQ_ERR_UNSUPPORTED ? "this build has no AES"
                                             : upq_strerror(st));
        return st;
    }
    *out_len = upq_base64_encode(buf, n, out, cap);
    memset(buf, 0, sizeof buf);
    if (*out_len == (size_t)-1) {
        snprintf(msg, msgcap, "no room for the wrapped key");
        return UPQ_ERR_BUFFER;
    }
    return UPQ_OK;
}

void upq_local_kms_init(upq_kms *kms, upq_local_kms *lk)
{
    memset(kms, 0, sizeof *kms);
    kms->unwrap = local_unwrap;
    kms->wrap = local_wrap;
    kms->ctx = lk;
}

/* ---- reading key material ------------------------------------------------------------ */

/* The fields each JSON may hold. */
static const char *const metadata_fields[] = {"keyMaterialType", "internalStorage", "keyReference",
                                              NULL};
static const char *const material_fields[] = {
    "keyMaterialType", "internalStorage", "isFooterKey",        "kmsInstanceID", "kmsInstanceURL",
    "masterKeyID",     "wrappedDEK",      "doubleWrapping",     "keyEncryptionKeyID", "wrappedKEK",
    NULL};

static int known(const char *const *list, const char *name)
{
    for (; *list; list++)
        if (strcmp(*list, name) == 0)
            return 1;
    return 0;
}

/* Fields: a string (NULL when absent or null), a boolean (-1 when absent). */
static upq_status want_string(upq_keytools *kt, const jobj *o, const char *name, int required,
                              const char *where, const jmember **out)
{
    const jmember *m = jget(o, name);
    *out = NULL;
    if (m && m->kind == JV_STRING) {
        if (strlen(m->str) != m->len)
            return fail(kt, UPQ_ERR_CORRUPT, "%s: \"%s\" holds a NUL", where, name);
        *out = m;
        return UPQ_OK;
    }
    if (m && m->kind != JV_NULL)
        return fail(kt, UPQ_ERR_CORRUPT, "%s: \"%s\" is not a string", where, name);
    if (required)
        return fail(kt, UPQ_ERR_CORRUPT, "%s: no \"%s\"", where, name);
    return UPQ_OK;
}

static upq_status want_bool(upq_keytools *kt, const jobj *o, const char *name, const char *where,
                            int *out)
{
    const jmember *m = jget(o, name);
    if (!m)
        return fail(kt, UPQ_ERR_CORRUPT, "%s: no \"%s\"", where, name);
    if (m->kind != JV_TRUE && m->kind != JV_FALSE)
        return fail(kt, UPQ_ERR_CORRUPT, "%s: \"%s\" is not true or false", where, name);
    *out = m->kind == JV_TRUE;
    return UPQ_OK;
}

static upq_status check_type(upq_keytools *kt, const jobj *o, const char *where)
{
    const jmember *t;
    upq_status st = want_string(kt, o, "keyMaterialType", 1, where, &t);
    if (st != UPQ_OK)
        return st;
    if (strcmp(t->str, KT_TYPE) != 0)
        return fail(kt, UPQ_ERR_UNSUPPORTED, "%s: key material type \"%s\" (only \"" KT_TYPE
                    "\" is known)", where, t->str);
    return UPQ_OK;
}

static upq_status check_fields(upq_keytools *kt, const jobj *o, const char *const *list,
                               const char *where)
{
    size_t i;
    for (i = 0; i < o->n; i++)
        if (!known(list, o->m[i].name))
            return fail(kt, UPQ_ERR_UNSUPPORTED, "%s: unknown field \"%s\"", where, o->m[i].name);
    return UPQ_OK;
}

/* Asks the KMS; its message joins ours. */
static upq_status kms_unwrap(upq_keytools *kt, const char *master, const char *wrapped,
                             size_t wrapped_len, uint8_t *key, size_t *len, const char *what,
                             const char *where)
{
    char m[UPQ_KEYTOOLS_MSG_LEN];
    upq_status st;
    m[0] = '\0';
    if (!kt->kms.unwrap)
        return fail(kt, UPQ_ERR_INVAL, "%s: no KMS to unwrap the %s", where, what);
    st = kt->kms.unwrap(kt->kms.ctx, master, wrapped, wrapped_len, key, UPQ_CRYPTO_MAX_KEY, len, m,
                        sizeof m);
    if (st != UPQ_OK)
        return fail(kt, st == UPQ_ERR_BUFFER ? UPQ_ERR_CORRUPT : st, "%s: unwrapping the %s: %s",
                    where, what, m[0] ? m : upq_strerror(st));
    if (*len != 16 && *len != 24 && *len != 32)
        return fail(kt, UPQ_ERR_CORRUPT, "%s: the %s is %zu bytes, not 16, 24 or 32", where, what,
                    *len);
    return UPQ_OK;
}

static upq_status keep_instance(upq_keytools *kt, const jobj *o, const char *where)
{
    const jmember *id, *url;
    upq_status st = want_string(kt, o, "kmsInstanceID", 0, where, &id);
    if (st == UPQ_OK)
        st = want_string(kt, o, "kmsInstanceURL", 0, where, &url);
    if (st != UPQ_OK)
        return st;
    if (id && !kt->kms_id)
        kt->kms_id = dup_n(id->str, id->len);
    if (url && !kt->kms_url)
        kt->kms_url = dup_n(url->str, url->len);
    return UPQ_OK;
}

/* The DEK of one key material object. */
static upq_status material_dek(upq_keytools *kt, const jobj *o, const char *where, uint8_t *key,
                               size_t *len)
{
    const jmember *master, *dek, *kek_id, *kek;
    int footer, dbl;
    upq_status st = check_fields(kt, o, material_fields, where);
    if (st == UPQ_OK)
        st = want_bool(kt, o, "isFooterKey", where, &footer);
    if (st == UPQ_OK)
        st = want_bool(kt, o, "doubleWrapping", where, &dbl);
    if (st == UPQ_OK)
        st = want_string(kt, o, "masterKeyID", 1, where, &master);
    if (st == UPQ_OK)
        st = want_string(kt, o, "wrappedDEK", 1, where, &dek);
    if (st == UPQ_OK)
        st = want_string(kt, o, "keyEncryptionKeyID", dbl, where, &kek_id);
    if (st == UPQ_OK)
        st = want_string(kt, o, "wrappedKEK", dbl, where, &kek);
    if (st == UPQ_OK && footer)
        st = keep_instance(kt, o, where);
    if (st != UPQ_OK)
        return st;
    if (!dbl)
        return kms_unwrap(kt, master->str, dek->str, dek->len, key, len, "DEK (single wrapping)",
                          where);
    {
        kt_cached *c = list_find(&kt->keks, kek_id->str, kek_id->len);
        uint8_t aad[64], wdek[UPQ_GCM_NONCE_LEN + UPQ_CRYPTO_MAX_KEY + UPQ_GCM_TAG_LEN + 1];
        size_t aad_len, wlen;
        if (!c) {
            uint8_t k[UPQ_CRYPTO_MAX_KEY];
            size_t kl = 0;
            st = kms_unwrap(kt, master->str, kek->str, kek->len, k, &kl, "KEK", where);
            if (st != UPQ_OK)
                return st;
            c = list_add(&kt->keks, kek_id->str, kek_id->len);
            if (!c)
                return fail(kt, UPQ_ERR_NOMEM, "out of memory");
            memcpy(c->key, k, kl);
            c->len = kl;
            memset(k, 0, sizeof k);
        }
        aad_len = upq_base64_decode(kek_id->str, kek_id->len, aad, sizeof aad);
        if (aad_len == (size_t)-1)
            return fail(kt, UPQ_ERR_CORRUPT, "%s: \"keyEncryptionKeyID\" is not base64", where);
        wlen = upq_base64_decode(dek->str, dek->len, wdek, sizeof wdek);
        if (wlen == (size_t)-1)
            return fail(kt, UPQ_ERR_CORRUPT, "%s: \"wrappedDEK\" is not base64 (or too long)", where);
        st = gcm_unwrap(c->key, c->len, aad, aad_len, wdek, wlen, key, UPQ_CRYPTO_MAX_KEY, len);
        if (st == UPQ_ERR_AUTH)
            return fail(kt, st, "%s: the DEK's GCM tag does not verify under KEK %s (altered key "
                        "material)", where, kek_id->str);
        if (st == UPQ_ERR_UNSUPPORTED || st == UPQ_ERR_NOMEM)
            return fail(kt, st, "%s: unwrapping the DEK: %s", where,
                        st == UPQ_ERR_NOMEM ? "out of memory" : "this build has no AES");
        if (st != UPQ_OK)
            return fail(kt, UPQ_ERR_CORRUPT, "%s: \"wrappedDEK\" is %zu bytes, not nonce, key and tag",
                        where, wlen);
        if (*len != 16 && *len != 24 && *len != 32)
            return fail(kt, UPQ_ERR_CORRUPT, "%s: the DEK is %zu bytes, not 16, 24 or 32", where, *len);
        return UPQ_OK;
    }
}

int upq_keytools_is_key_material(const uint8_t *md, size_t len)
{
    jobj o;
    jparse j;
    int yes;
    if (jobj_parse(&o, (const char *)md, len, &j))
        return 0;
    yes = jget(&o, "keyMaterialType") != NULL;
    jobj_free(&o);
    return yes;
}

/* The material text key metadata points to (internal: itself). */
static upq_status resolve(upq_keytools *kt, const char *md, size_t md_len, const char **text,
                          size_t *text_len, char *where, size_t wcap)
{
    jobj o;
    jparse j;
    const jmember *ref, *m;
    int internal;
    upq_status st;
    snprintf(where, wcap, "key metadata");
    if (jobj_parse(&o, md, md_len, &j))
        return fail(kt, UPQ_ERR_CORRUPT, "key metadata: bad JSON at byte %zu: %s (not key-tools "
                    "key material?)", j.at, j.err);
    st = check_type(kt, &o, where);
    if (st == UPQ_OK)
        st = want_bool(kt, &o, "internalStorage", where, &internal);
    if (st == UPQ_OK && internal) {
        jobj_free(&o);
        *text = md;
        *text_len = md_len;
        return UPQ_OK;
    }
    if (st == UPQ_OK)
        st = check_fields(kt, &o, metadata_fields, where);
    if (st == UPQ_OK)
        st = want_string(kt, &o, "keyReference", 1, where, &ref);
    if (st == UPQ_OK) {
        snprintf(where, wcap, "key reference '%s'", ref->str);
        st = material_load(kt);
    }
    if (st == UPQ_OK) {
        m = jget(&kt->material, ref->str);
        if (!m)
            st = fail(kt, UPQ_ERR_CORRUPT, "the key material file%s%s has no key reference '%s'",
                      kt->material_path ? " " : "", kt->material_path ? kt->material_path : "",
                      ref->str);
        else {
            *text = m->str;
            *text_len = m->len;
            snprintf(where, wcap, "key material '%s'", ref->str);
        }
    }
    jobj_free(&o);
    return st;
}

upq_status upq_keytools_unwrap(upq_keytools *kt, const uint8_t *md, size_t md_len,
                               uint8_t key[UPQ_CRYPTO_MAX_KEY], size_t *key_len)
{
    const char *text = NULL;
    size_t text_len = 0;
    char where[160];
    kt_cached *c;
    jobj o;
    jparse j;
    upq_status st;
    kt->err = UPQ_OK;
    if (!md_len)
        return fail(kt, UPQ_ERR_AUTH, "the file stores no key metadata for this key");
    st = resolve(kt, (const char *)md, md_len, &text, &text_len, where, sizeof where);
    if (st != UPQ_OK)
        return st;
    c = list_find(&kt->deks, text, text_len);
    if (c) {
        memcpy(key, c->key, c->len);
        *key_len = c->len;
        return UPQ_OK;
    }
    if (jobj_parse(&o, text, text_len, &j))
        return fail(kt, UPQ_ERR_CORRUPT, "%s: bad JSON at byte %zu: %s", where, j.at, j.err);
    st = check_type(kt, &o, where);
    if (st == UPQ_OK)
        st = material_dek(kt, &o, where, key, key_len);
    jobj_free(&o);
    if (st != UPQ_OK)
        return st;
    c = list_add(&kt->deks, text, text_len);
    if (!c)
        return fail(kt, UPQ_ERR_NOMEM, "out of memory");
    memcpy(c->key, key, *key_len);
    c->len = *key_len;
    return UPQ_OK;
}

upq_status upq_keytools_get_key(void *ctx, const upq_bytes *key_metadata,
                                const upq_bytes_list *path, uint8_t key[UPQ_CRYPTO_MAX_KEY],
                                size_t *key_len)
{
    (void)path;
    return upq_keytools_unwrap(ctx, key_metadata->ptr, key_metadata->len, key, key_len) == UPQ_OK
               ? UPQ_OK
               : UPQ_ERR_AUTH;
}

/* ---- writing key material ------------------------------------------------------------- */

typedef struct sbuf {
    char *p;
    size_t n, cap;
    int oom;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        char *np;
        while (nc < b->n + n + 1)
            nc *= 2;
        np = realloc(b->p, nc);
        if (!np) {
            b->oom = 1;
            return;
        }
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void sb_str(sbuf *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

/* A JSON string literal, escaped as Jackson does ('"', '\\', controls). */
static void sb_json(sbuf *b, const char *s)
{
    sb_put(b, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            sb_put(b, esc, 2);
        } else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            sb_put(b, esc, 6);
        } else {
            sb_put(b, s, 1);
        }
    }
    sb_put(b, "\"", 1);
}

static void sb_field(sbuf *b, const char *name, const char *str_value, int first)
{
    if (!first)
        sb_put(b, ",", 1);
    sb_json(b, name);
    sb_put(b, ":", 1);
    sb_json(b, str_value);
}

static void sb_bool(sbuf *b, const char *name, int v)
{
    sb_put(b, ",", 1);
    sb_json(b, name);
    sb_str(b, v ? ":true" : ":false");
}

upq_status upq_keytools_write_config(upq_keytools *kt, const upq_keytools_write_opts *o)
{
    if (kt->wrote)
        return fail(kt, UPQ_ERR_STATE, "the write options are set before the first key");
    if (o->kek_len && o->kek_len != 16 && o->kek_len != 24 && o->kek_len != 32)
        return fail(kt, UPQ_ERR_INVAL, "a KEK is 16, 24 or 32 bytes, not %u", (unsigned)o->kek_len);
    kt->wo = *o;
    return UPQ_OK;
}

static upq_status kms_wrap(upq_keytools *kt, const char *master, const uint8_t *key, size_t len,
                           char **out, const char *what)
{
    char m[UPQ_KEYTOOLS_MSG_LEN], *buf;
    size_t n = 0;
    upq_status st;
    m[0] = '\0';
    if (!kt->kms.wrap)
        return fail(kt, UPQ_ERR_INVAL, "no KMS wrap to wrap the %s with master key '%s'", what,
                    master);
    buf = malloc(KT_WRAPPED_MAX);
    if (!buf)
        return fail(kt, UPQ_ERR_NOMEM, "out of memory");
    st = kt->kms.wrap(kt->kms.ctx, master, key, len, buf, KT_WRAPPED_MAX, &n, m, sizeof m);
    if (st != UPQ_OK || n >= KT_WRAPPED_MAX || strlen(buf) != n) {
        free(buf);
        return fail(kt, st != UPQ_OK ? st : UPQ_ERR_CORRUPT, "wrapping the %s with master key '%s': %s",
                    what, master, m[0] ? m : st != UPQ_OK ? upq_strerror(st) : "the KMS's text is not a string");
    }
    *out = buf;
    return UPQ_OK;
}

/* The KEK of master key `master` for this writer (made on first use). */
static upq_status writer_kek(upq_keytools *kt, const char *master, kt_cached **out)
{
    kt_cached *c = list_find(&kt->wkeks, master, strlen(master));
    uint8_t id[UPQ_KEYTOOLS_KEK_ID_LEN];
    size_t kl = kt->wo.kek_len ? kt->wo.kek_len : 16;
    upq_status st;
    if (c) {
        *out = c;
        return UPQ_OK;
    }
    c = list_add(&kt->wkeks, master, strlen(master));
    if (!c)
        return fail(kt, UPQ_ERR_NOMEM, "out of memory");
    st = kt->random(kt->random_ctx, c->key, kl);
    if (st == UPQ_OK)
        st = kt->random(kt->random_ctx, id, sizeof id);
    if (st != UPQ_OK) {
        kt->wkeks.n--;
        free(c->id);
        return fail(kt, st, "the random source failed");
    }
    c->len = kl;
    c->kek_id = malloc(((sizeof id + 2) / 3) * 4 + 1);
    if (!c->kek_id) {
        kt->wkeks.n--;
        free(c->id);
        return fail(kt, UPQ_ERR_NOMEM, "out of memory");
    }
    upq_base64_encode(id, sizeof id, c->kek_id, ((sizeof id + 2) / 3) * 4 + 1);
    st = kms_wrap(kt, master, c->key, kl, &c->wrapped_kek, "KEK");
    if (st != UPQ_OK) {
        kt->wkeks.n--;
        free(c->id);
        free(c->kek_id);
        memset(c, 0, sizeof *c);
        return st;
    }
    *out = c;
    return UPQ_OK;
}

static int keep_text(char ***list, size_t n, char *s)
{
    char **nl = realloc(*list, (n + 1) * sizeof *nl);
    if (!nl)
        return -1;
    nl[n] = s;
    *list = nl;
    return 0;
}

upq_status upq_keytools_wrap(upq_keytools *kt, const char *master_id, int is_footer, uint8_t *dek,
                             size_t dek_len, size_t *dek_len_out, const uint8_t **md,
                             uint32_t *md_len)
{
    char *wrapped_dek = NULL;
    kt_cached *kek = NULL;
    sbuf mat, meta;
    upq_status st;
    int internal = !kt->wo.external;
    kt->err = UPQ_OK;
    memset(&mat, 0, sizeof mat);
    memset(&meta, 0, sizeof meta);
    if (!kt->random)
        return fail(kt, UPQ_ERR_INVAL, "writing key material needs a random source");
    if (dek_len == 0) {
        dek_len = 16;
        st = kt->random(kt->random_ctx, dek, dek_len);
        if (st != UPQ_OK)
            return fail(kt, st, "the random source failed");
    } else if (dek_len != 16 && dek_len != 24 && dek_len != 32) {
        return fail(kt, UPQ_ERR_INVAL, "a DEK is 16, 24 or 32 bytes, not %zu", dek_len);
    }
    if (dek_len_out)
        *dek_len_out = dek_len;
    kt->wrote = 1;
    if (kt->wo.single_wrapping) {
        st = kms_wrap(kt, master_id, dek, dek_len, &wrapped_dek, is_footer ? "footer key" : "column key");
    } else {
        uint8_t w[UPQ_GCM_NONCE_LEN + UPQ_CRYPTO_MAX_KEY + UPQ_GCM_TAG_LEN];
        uint8_t aad[UPQ_KEYTOOLS_KEK_ID_LEN];
        size_t wl = UPQ_GCM_NONCE_LEN + dek_len + UPQ_GCM_TAG_LEN;
        st = writer_kek(kt, master_id, &kek);
        if (st == UPQ_OK) {
            upq_base64_decode(kek->kek_id, strlen(kek->kek_id), aad, sizeof aad);
            st = gcm_wrap(kek->key, kek->len, aad, sizeof aad, dek, dek_len, kt->random,
                          kt->random_ctx, w);
            if (st != UPQ_OK)
                fail(kt, st, "wrapping a DEK with its KEK failed");
        }
        if (st == UPQ_OK) {
            wrapped_dek = malloc((wl + 2) / 3 * 4 + 1);
            if (!wrapped_dek)
                st = fail(kt, UPQ_ERR_NOMEM, "out of memory");
            else
                upq_base64_encode(w, wl, wrapped_dek, (wl + 2) / 3 * 4 + 1);
        }
        memset(w, 0, sizeof w);
    }
    if (st != UPQ_OK) {
        free(wrapped_dek);
        return st;
    }
    /* the fields in parquet-java's order of KeyMaterial.createSerialized */
    sb_str(&mat, "{");
    sb_field(&mat, "keyMaterialType", KT_TYPE, 1);
    if (internal)
        sb_bool(&mat, "internalStorage", 1);
    sb_bool(&mat, "isFooterKey", is_footer);
    if (is_footer) {
        sb_field(&mat, "kmsInstanceID", kt->kms.instance_id ? kt->kms.instance_id : "DEFAULT", 0);
        sb_field(&mat, "kmsInstanceURL", kt->kms.instance_url ? kt->kms.instance_url : "DEFAULT", 0);
    }
    sb_field(&mat, "masterKeyID", master_id, 0);
    sb_field(&mat, "wrappedDEK", wrapped_dek, 0);
    sb_bool(&mat, "doubleWrapping", !kt->wo.single_wrapping);
    if (kek) {
        sb_field(&mat, "keyEncryptionKeyID", kek->kek_id, 0);
        sb_field(&mat, "wrappedKEK", kek->wrapped_kek, 0);
    }
    sb_str(&mat, "}");
    free(wrapped_dek);
    if (mat.oom) {
        free(mat.p);
        return fail(kt, UPQ_ERR_NOMEM, "out of memory");
    }
    if (!internal) {
        char ref[32], *r;
        if (is_footer)
            snprintf(ref, sizeof ref, KT_REF_FOOTER);
        else
            snprintf(ref, sizeof ref, KT_REF_COLUMN "%zu", kt->ncolumn_refs++);
        r = dup_n(ref, strlen(ref));
        if (!r || keep_text(&kt->ext_refs, kt->next, r) ||
            keep_text(&kt->ext_texts, kt->next, mat.p)) {
            free(r);
            free(mat.p);
            return fail(kt, UPQ_ERR_NOMEM, "out of memory");
        }
        kt->next++;
        sb_str(&meta, "{");
        sb_field(&meta, "keyMaterialType", KT_TYPE, 1);
        sb_bool(&meta, "internalStorage", 0);
        sb_field(&meta, "keyReference", ref, 0);
        sb_str(&meta, "}");
        if (meta.oom) {
            free(meta.p);
            return fail(kt, UPQ_ERR_NOMEM, "out of memory");
        }
    } else {
        meta = mat;
    }
    if (keep_text(&kt->mds, kt->nmds, meta.p)) {
        free(meta.p);
        return fail(kt, UPQ_ERR_NOMEM, "out of memory");
    }
    kt->nmds++;
    *md = (const uint8_t *)meta.p;
    *md_len = (uint32_t)meta.n;
    return UPQ_OK;
}

const char *upq_keytools_material_json(upq_keytools *kt)
{
    sbuf b;
    size_t i;
    if (kt->ext_json && kt->ext_json_n == kt->next)
        return kt->ext_json;
    memset(&b, 0, sizeof b);
    sb_str(&b, "{");
    for (i = 0; i < kt->next; i++) {
        sb_field(&b, kt->ext_refs[i], kt->ext_texts[i], i == 0);
    }
    sb_str(&b, "}");
    if (b.oom) {
        free(b.p);
        fail(kt, UPQ_ERR_NOMEM, "out of memory");
        return NULL;
    }
    free(kt->ext_json);
    kt->ext_json = b.p;
    kt->ext_json_n = kt->next;
    return b.p;
}

upq_status upq_keytools_save_material(upq_keytools *kt, const char *path)
{
    const char *text = upq_keytools_material_json(kt);
    FILE *f;
    size_t n;
    if (!text)
        return kt->err;
    f = fopen(path, "wb");
    if (!f)
        return fail(kt, UPQ_ERR_IO, "key material file %s: cannot create it (%s)", path,
                    strerror(errno));
    n = fwrite(text, 1, strlen(text), f);
    if (fclose(f) != 0 || n != strlen(text))
        return fail(kt, UPQ_ERR_IO, "key material file %s: write failed", path);
    return UPQ_OK;
}
