/*
 * A JSON reader for one line of JSONL at a time: the whole value is parsed
 * into a small tree (nodes and decoded bytes in growable arrays that are
 * reused from line to line), so memory follows the longest line, never the
 * number of lines.
 *
 * No recursion: containers are tracked on an explicit stack whose depth is
 * bounded by the caller. Every input gives a tree or an error with the byte
 * column where it went wrong.
 *
 * Strings are byte strings, the inverse of json.h's escaping: \u0000-\u00FF
 * give the single byte of that value (so `upq cat --json`'s \u00XX for a byte
 * outside UTF-8 reads back as that byte), other \uXXXX escapes and surrogate
 * pairs give UTF-8, and raw bytes are kept as they are.
 */
#ifndef UPQ_TOOL_JSONL_H
#define UPQ_TOOL_JSONL_H

#include <stddef.h>
#include <stdint.h>

enum {
    JV_NULL = 0,
    JV_FALSE,
    JV_TRUE,
    JV_NUMBER, /* text kept as written (exact integers, decimals) */
    JV_STRING,
    JV_ARRAY,
    JV_OBJECT
};

#define JV_NONE 0xFFFFFFFFu

/* One value. Strings, numbers and keys are bytes[off .. off + len) of the
 * document; containers link their members with first / next. */
typedef struct jv {
    uint8_t type;
    uint32_t len;      /* string / number bytes; container members */
    size_t off;        /* string / number: offset into doc bytes */
    uint32_t first;    /* container: first member, JV_NONE when empty */
    uint32_t next;     /* next member of the enclosing container, or JV_NONE */
    size_t key_off;    /* object member: its key */
    uint32_t key_len;
    size_t col;        /* 1-based byte column where the value starts */
} jv;

typedef struct jv_doc {
    jv *v;             /* v[0] is the root after a successful parse */
    uint32_t n, cap;
    uint8_t *bytes;    /* decoded strings, keys and number texts */
    size_t blen;
    uint8_t *buf;      /* where jv_parse decodes them (bytes points here) */
    size_t bcap;
    int inplace;       /* while parsing: decoding into the text itself */
    uint32_t *stack;   /* open containers while parsing */
    uint32_t scap;
    uint32_t max_members; /* 0, or the most members one array or object may have */
    uint32_t max_values;  /* 0, or the most values (containers included) one line may have */
    int over_limit;    /* after a failure: 1 it was max_members, 2 max_values, not the JSON */
    const char *err;   /* after a failure: what was wrong (static string) */
    size_t err_col;    /* ... and the 1-based byte column */
} jv_doc;

void jv_init(jv_doc *d);
void jv_free(jv_doc *d);
/* Frees d's tree and buffers (the limits stay) when they take more than
 * `keep` bytes: a large row's are not kept for the rows after it. */
void jv_trim(jv_doc *d, size_t keep);

/*
 * d->max_members (0 after jv_init: no limit) refuses a container at its
 * first member too many, so a line holding an array of millions of entries
 * costs nothing before it is refused (err says so, over_limit is set);
 * d->max_values likewise bounds the whole tree, however it nests.
 *
 * Parses text[0..len) (one line without its newline; a trailing CR is
 * whitespace) as exactly one JSON value nested at most max_depth containers
 * deep. Returns 0, or -1 with d->err and d->err_col set. Aborts only when
 * memory runs out.
 */
int jv_parse(jv_doc *d, const char *text, size_t len, unsigned max_depth);
/*
 * jv_parse, decoding strings and keys over the text itself: bytes then
 * points into text, which must outlive the tree and is changed (an escaped
 * string is never shorter than its bytes, so each is written at or before
 * where it was read). A line of one large string so costs no second copy.
 */
int jv_parse_inplace(jv_doc *d, char *text, size_t len, unsigned max_depth);

/* Bytes of a string / number / key. */
static inline const uint8_t *jv_bytes(const jv_doc *d, const jv *v) { return d->bytes + v->off; }
static inline const uint8_t *jv_key(const jv_doc *d, const jv *v) { return d->bytes + v->key_off; }

#endif
