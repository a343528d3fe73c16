/*
 * Encryption keys from the command line: --footer-key HEX|@FILE,
 * --column-key PATH=HEX|@FILE (repeatable), --aad-prefix STR. The key
 * callback gives the footer key for the footer (and columns encrypted with
 * it) and a column's own key by its dotted path.
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

/* HEX digits, or @FILE holding the raw key bytes. */
static int parse_key(const char *s, uint8_t *out, size_t *len)
{
    size_t n = 0;
    if (s[0] == '@') {
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
    fprintf(stderr, "upq: key '%s' is not 16, 24 or 32 bytes of hex (or @file)\n", s);
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
        }
    }
    k->dec.get_key = tool_key_callback;
    k->dec.key_ctx = k;
    return 0;
}

void tool_keys_free(tool_keys *k)
{
    int i;
    for (i = 0; i < k->ncols; i++)
        free(k->cols[i].path);
    memset(k, 0, sizeof *k);
}

upq_status tool_key_callback(void *ctx, const upq_bytes *key_metadata, const upq_bytes_list *path,
                             uint8_t key[UPQ_CRYPTO_MAX_KEY], size_t *key_len)
{
    const tool_keys *k = ctx;
    int i;
    (void)key_metadata;
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
