/*
 * libFuzzer target: `upq write`'s input side on arbitrary bytes.
 *
 * The input is read three ways: as schema text (message syntax) through
 * the schema parser and builder; as JSON lines, each parsed and shredded
 * against one of a few fixed schemas (picked by the first byte) covering
 * every value kind and nesting form; and the same lines against the schema
 * text itself when it parsed. Every outcome must be a tree or an error:
 * the sanitizers catch the rest. Parsed rows are checked for consistency
 * (every leaf gets at least one entry, no more values than entries).
 *
 * Seeds: make_seeds.sh jsonl. Build and run: make fuzz.
 */
#include "../../examples/upq/jsonl_parse.c"
#include "../../examples/upq/strbuf.c"
#include "../../examples/upq/schema_parse.c"
#include "../../examples/upq/value_parse.c"
#include "../../examples/upq/shred.c"

#include <stdlib.h>

#define MAX_LINES 64

static const char *const schemas[] = {
    "message m {\n"
    "  required int64 id;\n"
    "  optional binary s (STRING);\n"
    "  optional int32 d (DATE);\n"
    "  optional int64 ts (TIMESTAMP(NANOS,true));\n"
    "  optional int64 t (TIME(MICROS,false));\n"
    "  optional int32 tm (TIME(MILLIS,true));\n"
    "  optional int96 i96;\n"
    "  optional float f;\n"
    "  optional double x;\n"
    "  optional fixed_len_byte_array(2) h (FLOAT16);\n"
    "  optional fixed_len_byte_array(16) u (UUID);\n"
    "  optional fixed_len_byte_array(12) iv (INTERVAL);\n"
    "  optional fixed_len_byte_array(9) dec (DECIMAL(20,4));\n"
    "  optional binary bd (DECIMAL(40,10));\n"
    "  optional int32 d32 (DECIMAL(9,2));\n"
    "  optional int64 u64 (INTEGER(64,false));\n"
    "  optional int32 i8 (INT_8);\n"
    "  optional binary b;\n"
    "  optional boolean ok;\n"
    "  optional binary nul (UNKNOWN);\n"
    "}\n",
    "message m {\n"
    "  optional group l (LIST) {\n"
    "    repeated group list {\n"
    "      optional group element {\n"
    "        required int32 a;\n"
    "        optional group m (MAP) {\n"
    "          repeated group key_value {\n"
    "            required binary key (UTF8);\n"
    "            optional group value (LIST) {\n"
    "              repeated int64 array;\n"
    "            }\n"
    "          }\n"
    "        }\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  repeated int32 r;\n"
    "  optional group k (MAP) {\n"
    "    repeated group key_value {\n"
    "      required int32 key;\n"
    "    }\n"
    "  }\n"
    "  required group s {\n"
    "    optional group t {\n"
    "      repeated group u {\n"
    "        optional boolean v;\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "}\n",
};

typedef struct built {
    schema_text st;
    upq_schema s;
    uint8_t mem[1 << 16];
    int ok;
} built;

static void build(built *b, const char *text, size_t len)
{
    char err[256];
    upq_arena a;
    b->ok = 0;
    if (schema_parse(text, len, &b->st, err, sizeof err) != 0)
        return;
    upq_arena_init(&a, b->mem, sizeof b->mem);
    if (upq_schema_build(&b->s, b->st.elems, b->st.n, &a, NULL) != UPQ_OK ||
        b->s.num_columns == 0) {
        schema_text_free(&b->st);
        return;
    }
    b->ok = 1;
}

static void shred_lines(const built *b, const uint8_t *data, size_t size)
{
    shredder sh;
    jv_doc doc;
    size_t pos = 0;
    int n = 0;
    if (shred_init(&sh, &b->s) != 0)
        abort(); /* every schema the builder accepts can be planned */
    jv_init(&doc);
    while (pos < size && n++ < MAX_LINES) {
        const uint8_t *nl = memchr(data + pos, '\n', size - pos);
        size_t len = nl ? (size_t)(nl - (data + pos)) : size - pos;
        if (jv_parse(&doc, (const char *)data + pos, len, 64) == 0 && shred_row(&sh, &doc) == 0) {
            uint32_t c;
            for (c = 0; c < b->s.num_columns; c++) {
                const shred_leaf *lf = &sh.leaves[c];
                size_t k, vals = 0;
                if (lf->n == 0 || lf->nv > lf->n || lf->rep[0] != 0)
                    abort();
                for (k = 0; k < lf->n; k++) {
                    if (lf->def[k] > b->s.columns[c].max_def || lf->rep[k] > b->s.columns[c].max_rep)
                        abort();
                    vals += lf->def[k] == b->s.columns[c].max_def;
                }
                if (vals != lf->nv)
                    abort();
            }
        }
        pos += len + 1;
    }
    jv_free(&doc);
    shred_free(&sh);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static built fixed[sizeof schemas / sizeof schemas[0]];
    static int ready;
    static built from_input;
    size_t i;
    if (!ready) {
        for (i = 0; i < sizeof schemas / sizeof schemas[0]; i++) {
            build(&fixed[i], schemas[i], strlen(schemas[i]));
            if (!fixed[i].ok)
                abort();
        }
        ready = 1;
    }
    if (size == 0)
        return 0;
    shred_lines(&fixed[data[0] % (sizeof schemas / sizeof schemas[0])], data + 1, size - 1);
    build(&from_input, (const char *)data, size);
    if (from_input.ok) {
        shred_lines(&from_input, data, size);
        schema_text_free(&from_input.st);
    }
    return 0;
}
