/* Streaming JSON output (see json.h for the string escaping rules). */
#include "json.h"
#include "rows_json.h"

#include <inttypes.h>
#include <string.h>

void json_init(json_writer *w, FILE *out)
{
    memset(w, 0, sizeof *w);
    w->out = out;
}

/* Separator before a value or key at the current level. */
static void before_item(json_writer *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->depth > 0) {
        if (w->count[w->depth - 1])
            fputc(',', w->out);
        w->count[w->depth - 1] = 1;
    }
}

static void open_level(json_writer *w, char c)
{
    before_item(w);
    fputc(c, w->out);
    if (w->depth < JSON_MAX_DEPTH) {
        w->count[w->depth] = 0;
        w->depth++;
    }
}

static void close_level(json_writer *w, char c)
{
    if (w->depth > 0)
        w->depth--;
    fputc(c, w->out);
}

void json_object_begin(json_writer *w) { open_level(w, '{'); }
void json_object_end(json_writer *w) { close_level(w, '}'); }
void json_array_begin(json_writer *w) { open_level(w, '['); }
void json_array_end(json_writer *w) { close_level(w, ']'); }

size_t utf8_seq_len(const unsigned char *p, size_t n)
{
    return rows_json_utf8_len(p, n);
}

/* Standard base64 with padding, as a JSON string. */
void json_append_base64(strbuf *sb, const void *bytes, size_t n)
{
    const uint8_t *p = (const uint8_t *)bytes;
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t i;
    char out[4];
    sb_addc(sb, '"');
    for (i = 0; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        out[0] = tab[v >> 18];
        out[1] = tab[(v >> 12) & 63];
        out[2] = tab[(v >> 6) & 63];
        out[3] = tab[v & 63];
        sb_add(sb, out, 4);
    }
    if (n - i > 0) {
        uint32_t v = (uint32_t)p[i] << 16 | (n - i == 2 ? (uint32_t)p[i + 1] << 8 : 0u);
        out[0] = tab[v >> 18];
        out[1] = tab[(v >> 12) & 63];
        out[2] = n - i == 2 ? tab[(v >> 6) & 63] : '=';
        out[3] = '=';
        sb_add(sb, out, 4);
    }
    sb_addc(sb, '"');
}

static void sb_put(void *ctx, const void *p, size_t n)
{
    sb_add((strbuf *)ctx, p, n);
}

/* The escapes upq cat and the firmware reader share (rows_json.c). */
void json_append_string(strbuf *sb, const void *bytes, size_t n)
{
    rows_json_out o;
    o.put = sb_put;
    o.ctx = sb;
    rows_json_string(&o, bytes, n);
}

static void put_string(FILE *out, const unsigned char *p, size_t n)
{
    strbuf sb;
    sb_init(&sb);
    json_append_string(&sb, p, n);
    fwrite(sb.p, 1, sb.len, out);
    sb_free(&sb);
}

void json_key(json_writer *w, const char *key)
{
    before_item(w);
    put_string(w->out, (const unsigned char *)key, strlen(key));
    fputc(':', w->out);
    w->after_key = 1;
}

void json_string(json_writer *w, const void *bytes, size_t len)
{
    before_item(w);
    put_string(w->out, (const unsigned char *)bytes, len);
}

void json_cstr(json_writer *w, const char *s)
{
    if (!s)
        json_null(w);
    else
        json_string(w, s, strlen(s));
}

void json_int(json_writer *w, int64_t v)
{
    before_item(w);
    fprintf(w->out, "%" PRId64, v);
}

void json_uint(json_writer *w, uint64_t v)
{
    before_item(w);
    fprintf(w->out, "%" PRIu64, v);
}

void json_bool(json_writer *w, int v)
{
    before_item(w);
    fputs(v ? "true" : "false", w->out);
}

void json_null(json_writer *w)
{
    before_item(w);
    fputs("null", w->out);
}

void json_number_text(json_writer *w, const char *text)
{
    before_item(w);
    fputs(text, w->out);
}

void json_finish(json_writer *w)
{
    fputc('\n', w->out);
}
