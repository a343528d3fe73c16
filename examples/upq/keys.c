/*
 * Encryption keys from the command line: --footer-key KEY, --column-key
 * PATH=KEY (repeatable), --aad-prefix STR, where KEY is HEX, @FILE (raw
 * bytes), text:STRING (its bytes) or base64:B64. The key callback gives the
 * footer key for the footer (and columns encrypted with it) and a column's
 * own key by its dotted path.
 *
 * Key-tools key material (parquet-java, Spark): --kms-key ID=KEY
 * (repeatable) are master keys of the local KMS (port/adapters/keytools), and
 * --key-material FILE the side file of external material (default:
 * _KEY_MATERIAL_FOR_<name>.json beside the file). Key metadata that is
 * key-tools JSON goes to the key-tools adapter; anything else to the plain
 * keys.
 */
#define _POSIX_C_SOURCE 200809L

#include "upq.h"

#include <errno.h>
#include <sys/random.h>
#include <stdlib.h>
#include <string.h>

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* HEX digits, @FILE holding the raw key bytes, text:STRING or base64:B64. */
static int parse_key(const char *s, uint8_t *out, size_t *len)
{
    size_t n = 0;
    if (strncmp(s, "text:", 5) == 0) {
        n = strlen(s + 5);
        if (n > UPQ_CRYPTO_MAX_KEY)
            goto bad;
        memcpy(out, s + 5, n);
    } else if (strncmp(s, "base64:", 7) == 0) {
        n = upq_base64_decode(s + 7, strlen(s + 7), out, UPQ_CRYPTO_MAX_KEY + 1);
        if (n == (size_t)-1)
            goto bad;
    } else if (s[0] == '@') {
        FILE *f = fopen(s + 1, "rb");
        if (!f) {
            fprintf(stderr, "upq: %s: %s\n", s + 1, strerror(errno));
            return 1;
        }
        n = fread(out, 1, UPQ_CRYPTO_MAX_KEY + 1, f);
        fclose(f);
    } else {
        size_t sl = strlen(s), i;
        if (sl % 2 || sl / 2 > UPQ_CRYPTO_MAX_KEY + 1)
            goto bad;
        for (i = 0; i < sl; i += 2) {
            int hi = hexval(s[i]), lo = hexval(s[i + 1]);
            if (hi < 0 || lo < 0)
                goto bad;
            out[n++] = (uint8_t)(hi * 16 + lo);
        }
    }
    if (n != 16 && n != 24 && n != 32)
        goto bad;
    *len = n;
    return 0;
bad:
    fprintf(stderr, "upq: key '%s' is not 16, 24 or 32 bytes of hex (or @FILE, text:STRING, "
                    "base64:B64)\n", s);
    return 1;
}

int tool_keys_parse(tool_keys *k, const tool_args *a)
{
    int i;
    memset(k, 0, sizeof *k);
    for (i = 0; i < a->nopts; i++) {
        const char *name = a->opt_name[i], *v = a->opt_value[i];
        if (strcmp(name, "footer-key") == 0) {
            if (parse_key(v, k->footer, &k->footer_len))
                return 1;
            k->any = 1;
        } else if (strcmp(name, "column-key") == 0) {
            const char *eq = strrchr(v, '=');
            tool_colkey *ck;
            if (!eq || eq == v || k->ncols >= TOOL_MAX_KEYS) {
                fprintf(stderr, "upq: --column-key takes PATH=KEY (at most %d)\n", TOOL_MAX_KEYS);
                return 1;
            }
            ck = &k->cols[k->ncols++];
            ck->path = strndup(v, (size_t)(eq - v));
            if (!ck->path || parse_key(eq + 1, ck->key, &ck->len))
                return 1;
            k->any = 1;
        } else if (strcmp(name, "aad-prefix") == 0) {
            k->dec.aad_prefix = (const uint8_t *)v;
            k->dec.aad_prefix_len = (uint32_t)strlen(v);
            k->dec.aad_prefix_given = 1;
            k->any = 1;
        } else if (strcmp(name, "kms-key") == 0) {
            /* the first '=': base64 keys end in '=' */
            const char *eq = strchr(v, '=');
            tool_colkey *mk;
            if (!eq || eq == v || k->nkms >= TOOL_MAX_KEYS) {
                fprintf(stderr, "upq: --kms-key takes ID=KEY (at most %d)\n", TOOL_MAX_KEYS);
                return 1;
            }
            mk = &k->kms[k->nkms];
            mk->path = strndup(v, (size_t)(eq - v));
            if (!mk->path || parse_key(eq + 1, mk->key, &mk->len)) {
                /* not counted yet, so tool_keys_free would not see it */
                free(mk->path);
                mk->path = NULL;
                return 1;
            }
            k->kms_keys[k->nkms].id = mk->path;
            k->kms_keys[k->nkms].key = mk->key;
            k->kms_keys[k->nkms].len = mk->len;
            k->nkms++;
            k->any = 1;
        } else if (strcmp(name, "key-material") == 0) {
            k->material = v;
        }
    }
    k->dec.get_key = tool_key_callback;
    k->dec.key_ctx = k;
    k->lkms.keys = k->kms_keys;
    k->lkms.nkeys = (size_t)k->nkms;
    k->lkms.random = tool_random;
    upq_local_kms_init(&k->kmsc, &k->lkms);
    k->kmsc.instance_id = args_value(a, "kms-instance-id");
    k->kmsc.instance_url = args_value(a, "kms-instance-url");
    k->kt = upq_keytools_new(&k->kmsc, tool_random, NULL);
    if (!k->kt) {
        fputs("upq: out of memory\n", stderr);
        return 1;
    }
    if (k->material && upq_keytools_material_file(k->kt, k->material) != UPQ_OK) {
        fputs("upq: out of memory\n", stderr);
        return 1;
    }
    return 0;
}

int tool_keys_for_file(tool_keys *k, const char *path)
{
    if (!k->kt || k->material)
        return 0;
    if (upq_keytools_material_beside(k->kt, path) != UPQ_OK) {
        fputs("upq: out of memory\n", stderr);
        return 1;
    }
    return 0;
}

void tool_keys_report(const tool_keys *k, const char *path, upq_status st)
{
    const char *msg;
    upq_status e;
    if (!k->kt || st != UPQ_ERR_AUTH)
        return;
    e = upq_keytools_error(k->kt, &msg);
    if (e != UPQ_OK)
        fprintf(stderr, "upq: %s: %s (%s)\n", path, msg, upq_strerror(e));
}

void tool_keys_free(tool_keys *k)
{
    int i;
    for (i = 0; i < k->ncols; i++)
        free(k->cols[i].path);
    for (i = 0; i < k->nkms; i++)
        free(k->kms[i].path);
    upq_keytools_free(k->kt);
    memset(k, 0, sizeof *k);
}

upq_status tool_key_callback(void *ctx, const upq_bytes *key_metadata, const upq_bytes_list *path,
                             uint8_t key[UPQ_CRYPTO_MAX_KEY], size_t *key_len)
{
    const tool_keys *k = ctx;
    int i;
    /* key material first; a plain key given for the same footer or column
     * (the DEK itself) is the fallback */
    if (k->kt && key_metadata->len &&
        upq_keytools_is_key_material(key_metadata->ptr, key_metadata->len) &&
        upq_keytools_get_key(k->kt, key_metadata, path, key, key_len) == UPQ_OK)
        return UPQ_OK;
    if (!path) {
        if (!k->footer_len)
            return UPQ_ERR_AUTH;
        memcpy(key, k->footer, k->footer_len);
        *key_len = k->footer_len;
        return UPQ_OK;
    }
    for (i = 0; i < k->ncols; i++) {
        const char *p = k->cols[i].path;
        uint32_t j;
        size_t at = 0;
        int match = 1;
        for (j = 0; j < path->n && match; j++) {
            size_t l = path->v[j].len;
            if (j && p[at++] != '.')
                match = 0;
            else if (strncmp(p + at, (const char *)path->v[j].ptr, l) != 0 || strlen(p + at) < l)
                match = 0;
            at += l;
        }
        if (match && p[at] == '\0') {
            memcpy(key, k->cols[i].key, k->cols[i].len);
            *key_len = k->cols[i].len;
            return UPQ_OK;
        }
    }
    return UPQ_ERR_AUTH;
}

upq_status tool_random(void *ctx, uint8_t *buf, size_t len)
{
    (void)ctx;
    while (len) {
        ssize_t n = getrandom(buf, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return UPQ_ERR_IO;
        buf += n;
        len -= (size_t)n;
    }
    return UPQ_OK;
}
