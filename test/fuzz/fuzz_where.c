/*
 * libFuzzer target: `upq cat --where` expression text (examples/upq/where.c)
 * against a fixed schema with every kind of leaf, optional groups, a list
 * and a map (whose leaves must be refused) and a column without an order.
 *
 * Every input must give a predicate or an error with an offset, within the
 * parser's bounds; the sanitizers catch the rest. A predicate that parses
 * must pass upq_pred_check (the parser runs it) and behave: each comparison
 * evaluated on its own first literal gives the answer the operator demands
 * (= <= >= IN: TRUE; != < > NOT IN: FALSE; NaN equals NaN), NULL gives NULL
 * (IS [NOT] NULL: TRUE / FALSE), and combining any leaf results stays within
 * TRUE / FALSE / NULL.
 *
 * Seeds: make_seeds.sh where. Build and run: make fuzz.
 */
#include "../../examples/upq/jsonl_parse.c"
#include "../../examples/upq/strbuf.c"
#include "../../examples/upq/schema_parse.c"
#include "../../examples/upq/value_parse.c"
#include "../../examples/upq/where.c"

#include <stdlib.h>

static const char schema_text_src[] =
    "message m {\n"
    "  required int64 id;\n"
    "  optional binary s (STRING);\n"
    "  optional int32 d (DATE);\n"
    "  optional int64 ts (TIMESTAMP(MICROS,true));\n"
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
    "  optional group g {\n"
    "    optional int32 a;\n"
    "    required group `my col` {\n"
    "      optional binary z (STRING);\n"
    "    }\n"
    "  }\n"
    "  optional group l (LIST) {\n"
    "    repeated group list {\n"
    "      optional int32 element;\n"
    "    }\n"
    "  }\n"
    "  optional group mp (MAP) {\n"
    "    repeated group key_value {\n"
    "      required binary key (STRING);\n"
    "      optional int32 value;\n"
    "    }\n"
    "  }\n"
    "}\n";

static schema_text st;
static upq_schema schema;
static uint8_t mem[1 << 16];
static int ready;

static void setup(void)
{
    char err[256];
    upq_arena a;
    if (schema_parse(schema_text_src, sizeof schema_text_src - 1, &st, err, sizeof err) != 0)
        abort();
    upq_arena_init(&a, mem, sizeof mem);
    if (upq_schema_build(&schema, st.elems, st.n, &a, NULL) != UPQ_OK)
        abort();
    ready = 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text, err[600];
    where_expr w;
    uint32_t i;
    if (!ready)
        setup();
    if (size > WHERE_MAX_TEXT + 16)
        return 0;
    text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = 0;
    if (where_parse(&schema, text, &w, err, sizeof err) != 0) {
        if (strncmp(err, "offset ", 7) != 0)
            abort(); /* every error says where */
    } else {
        uint8_t res[WHERE_MAX_PREDS * 4], stack[UPQ_PRED_MAX_DEPTH];
        const upq_pred *p = &w.pred;
        if (p->n == 0 || p->n > sizeof res || p->depth == 0 || p->depth > UPQ_PRED_MAX_DEPTH)
            abort();
        for (i = 0; i < p->n; i++) {
            const upq_pred_node *nd = &p->nodes[i];
            int r;
            if (nd->op > UPQ_PRED_IS_NOT_NULL) {
                res[i] = 0;
                continue;
            }
            if (schema.columns[nd->column].max_rep != 0)
                abort(); /* repeated leaves are refused */
            r = upq_pred_eval_leaf(&schema, p, i, NULL);
            if (r != (nd->op == UPQ_PRED_IS_NULL ? UPQ_PRED_TRUE
                      : nd->op == UPQ_PRED_IS_NOT_NULL ? UPQ_PRED_FALSE : UPQ_PRED_NULL))
                abort();
            if (nd->n) {
                int want = nd->op == UPQ_PRED_EQ || nd->op == UPQ_PRED_LE ||
                           nd->op == UPQ_PRED_GE || nd->op == UPQ_PRED_IN;
                if (upq_pred_eval_leaf(&schema, p, i, &nd->values[0]) != want)
                    abort();
            }
            res[i] = (uint8_t)((data[i % size] + i) % 3);
        }
        if (upq_pred_combine(p, res, stack) > UPQ_PRED_NULL)
            abort();
    }
    where_free(&w);
    free(text);
    return 0;
}
