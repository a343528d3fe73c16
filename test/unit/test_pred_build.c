/*
 * The predicate builder and the evaluation of what it builds
 * (uparquet/predicate.h), without a file: each condition is built for a
 * column of a schema made here and evaluated on values chosen around its
 * literal, and the answer is SQL's as DuckDB gives it (the expectations
 * below were checked with DuckDB 1.5, `SELECT x < 200` over a TINYINT and so
 * on; test/interop/where_random.mjs puts the same rules against DuckDB on
 * files). Also LIKE's matcher (including '_' over UTF-8 and ESCAPE), the
 * constants, IS [NOT] DISTINCT FROM, NULL in IN lists, and the builder's
 * refusals.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "util/check.h"

enum { C_I8, C_U8, C_I32, C_U32, C_I64, C_U64, C_F, C_D, C_H, C_DEC, C_DECF, C_S, C_B, C_BOOL,
       C_DT, C_TS_MS, C_TS_NS, C_T96, C_TM_MS, C_UID, NC };

static upq_schema_element elems[NC + 1];
static upq_schema schema;
static uint8_t mem[1 << 16];

static void build_schema(void)
{
    upq_schema_builder b;
    upq_logical_type lt;
    uint32_t n = 0;
    upq_arena a;
    upq_sb_init(&b, elems, NC + 1, "m");
    upq_lt_int(&lt, 8, 1);
    upq_sb_column(&b, "i8", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, &lt);
    upq_lt_int(&lt, 8, 0);
    upq_sb_column(&b, "u8", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, &lt);
    upq_sb_column(&b, "i32", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
    upq_lt_int(&lt, 32, 0);
    upq_sb_column(&b, "u32", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, &lt);
    upq_sb_column(&b, "i64", UPQ_REP_OPTIONAL, UPQ_TYPE_INT64, 0, NULL);
    upq_lt_int(&lt, 64, 0);
    upq_sb_column(&b, "u64", UPQ_REP_OPTIONAL, UPQ_TYPE_INT64, 0, &lt);
    upq_sb_column(&b, "f", UPQ_REP_OPTIONAL, UPQ_TYPE_FLOAT, 0, NULL);
    upq_sb_column(&b, "d", UPQ_REP_OPTIONAL, UPQ_TYPE_DOUBLE, 0, NULL);
    upq_lt_float16(&lt);
    upq_sb_column(&b, "h", UPQ_REP_OPTIONAL, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 2, &lt);
    upq_lt_decimal(&lt, 9, 2);
    upq_sb_column(&b, "dec", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, &lt);
    upq_lt_decimal(&lt, 30, 3);
    upq_sb_column(&b, "decf", UPQ_REP_OPTIONAL, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 13, &lt);
    upq_lt_string(&lt);
    upq_sb_column(&b, "s", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, &lt);
    upq_sb_column(&b, "b", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
    upq_sb_column(&b, "bool", UPQ_REP_OPTIONAL, UPQ_TYPE_BOOLEAN, 0, NULL);
    upq_lt_date(&lt);
    upq_sb_column(&b, "dt", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, &lt);
    upq_lt_timestamp(&lt, UPQ_TIME_UNIT_MILLIS, 1);
    upq_sb_column(&b, "ts_ms", UPQ_REP_OPTIONAL, UPQ_TYPE_INT64, 0, &lt);
    upq_lt_timestamp(&lt, UPQ_TIME_UNIT_NANOS, 0);
    upq_sb_column(&b, "ts_ns", UPQ_REP_OPTIONAL, UPQ_TYPE_INT64, 0, &lt);
    upq_sb_column(&b, "t96", UPQ_REP_OPTIONAL, UPQ_TYPE_INT96, 0, NULL);
    upq_lt_time(&lt, UPQ_TIME_UNIT_MILLIS, 1);
    upq_sb_column(&b, "tm_ms", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, &lt);
    upq_lt_uuid(&lt);
    upq_sb_column(&b, "uid", UPQ_REP_OPTIONAL, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 16, &lt);
    TU_CHECK_STATUS(upq_sb_finish(&b, &n), UPQ_OK);
    upq_arena_init(&a, mem, sizeof mem);
    TU_CHECK_STATUS(upq_schema_build(&schema, elems, n, &a, NULL), UPQ_OK);
}

/* ---- building and evaluating ------------------------------------------------------------ */

static upq_pred_node nodes[64];
static upq_value vals[64];
static uint8_t bytes[512];
static upq_pred_builder B;
static upq_pred P;

static void begin(void)
{
    upq_pred_begin(&B, &schema, nodes, 64, vals, 64, bytes, sizeof bytes);
}

static int end(void)
{
    upq_status st = upq_pred_end(&B, &P);
    return TU_CHECK_MSG(st == UPQ_OK, "builder: %s (%s)", upq_strerror(st), B.what ? B.what : "");
}

/* The built expression on a row where column `col` holds *value (NULL: a
 * NULL) and every other column is NULL. */
static int eval(uint32_t col, const void *value)
{
    uint8_t res[64], stack[64];
    uint32_t i;
    for (i = 0; i < P.n; i++) {
        uint8_t op = UPQ_PRED_OP(P.nodes[i].op);
        if (op == UPQ_PRED_AND || op == UPQ_PRED_OR || op == UPQ_PRED_NOT)
            continue;
        res[i] = (uint8_t)upq_pred_eval_leaf(&schema, &P, i,
                                             op == UPQ_PRED_CONST || P.nodes[i].column == col
                                                 ? value
                                                 : NULL);
    }
    return upq_pred_combine(&P, res, stack);
}

enum { F = UPQ_PRED_FALSE, T = UPQ_PRED_TRUE, N = UPQ_PRED_NULL };

static int ev32(uint32_t col, int32_t v) { return eval(col, &v); }
static int ev64(uint32_t col, int64_t v) { return eval(col, &v); }
static int evf(float v) { return eval(C_F, &v); }
static int evd(double v) { return eval(C_D, &v); }
static int evb(uint32_t col, const void *p, size_t n)
{
    upq_bytes b;
    b.ptr = (const uint8_t *)p;
    b.len = (uint32_t)n;
    return eval(col, &b);
}
static int evh(uint16_t h)
{
    uint8_t le[2] = {(uint8_t)h, (uint8_t)(h >> 8)};
    return evb(C_H, le, 2);
}

#define EXPECT(got, want) TU_CHECK_MSG((got) == (want), "%s: got %d, want %d", #got, got, want)

/* ---- integers ---------------------------------------------------------------------------- */

static void test_integers(void)
{
    tu_case("integers: out of range literals (TINYINT < 200, = 300, UTINYINT = -1)");
    begin();
    upq_pred_int(&B, C_I8, UPQ_PRED_LT, 200);
    if (end()) {
        EXPECT(ev32(C_I8, 127), T);
        EXPECT(ev32(C_I8, -128), T);
        EXPECT(eval(C_I8, NULL), N);
    }
    begin();
    upq_pred_int(&B, C_I8, UPQ_PRED_EQ, 300);
    upq_pred_not(&B);
    if (end()) {
        EXPECT(ev32(C_I8, 44), T); /* NOT (x = 300): TRUE, not NULL */
        EXPECT(eval(C_I8, NULL), N);
    }
    begin();
    upq_pred_int(&B, C_U8, UPQ_PRED_EQ, -1);
    if (end()) {
        EXPECT(ev32(C_U8, 255), F);
        EXPECT(ev32(C_U8, 0), F);
    }
    begin();
    upq_pred_int(&B, C_U8, UPQ_PRED_GT, -1);
    if (end())
        EXPECT(ev32(C_U8, 0), T);

    tu_case("integers: fractions, trailing zeros, exponents");
    begin();
    upq_pred_decimal(&B, C_I32, UPQ_PRED_GT, "5.5", 3);
    if (end()) {
        EXPECT(ev32(C_I32, 6), T);
        EXPECT(ev32(C_I32, 5), F);
    }
    begin();
    upq_pred_decimal(&B, C_I32, UPQ_PRED_LE, "-5.5", 4);
    if (end()) {
        EXPECT(ev32(C_I32, -6), T);
        EXPECT(ev32(C_I32, -5), F);
    }
    begin();
    upq_pred_decimal(&B, C_I32, UPQ_PRED_EQ, "7.000", 5);
    if (end())
        EXPECT(ev32(C_I32, 7), T);
    begin();
    upq_pred_decimal(&B, C_I32, UPQ_PRED_EQ, "7.5", 3);
    upq_pred_not(&B);
    if (end()) {
        EXPECT(ev32(C_I32, 7), T);
        EXPECT(eval(C_I32, NULL), N);
    }
    begin();
    upq_pred_double(&B, C_I32, UPQ_PRED_GT, 1e3);
    if (end()) {
        EXPECT(ev32(C_I32, 1001), T);
        EXPECT(ev32(C_I32, 1000), F);
    }
    begin(); /* a BIGINT compared with a DOUBLE: as DOUBLEs (2^53 + 1 equals 2^53) */
    upq_pred_double(&B, C_I64, UPQ_PRED_EQ, 9007199254740992.0);
    if (end()) {
        EXPECT(ev64(C_I64, 9007199254740993LL), T);
        EXPECT(ev64(C_I64, 9007199254740991LL), F);
    }
    begin(); /* ... and with a DECIMAL exactly */
    upq_pred_decimal(&B, C_I64, UPQ_PRED_EQ, "9007199254740992.0", 18);
    if (end())
        EXPECT(ev64(C_I64, 9007199254740993LL), F);
    begin();
    upq_pred_uint(&B, C_U64, UPQ_PRED_GT, 18000000000000000000ull);
    if (end()) {
        EXPECT(ev64(C_U64, (int64_t)18446744073709551615ull), T);
        EXPECT(ev64(C_U64, 5), F);
    }
    begin(); /* UINT32 above INT32_MAX */
    upq_pred_int(&B, C_U32, UPQ_PRED_GE, 4000000000LL);
    if (end()) {
        EXPECT(ev32(C_U32, (int32_t)4000000001u), T);
        EXPECT(ev32(C_U32, 7), F);
    }
    begin(); /* NaN is above every number */
    upq_pred_double(&B, C_I32, UPQ_PRED_LT, NAN);
    if (end())
        EXPECT(ev32(C_I32, 2147483647), T);

    tu_case("integers: IN with a fraction, a NULL, DOUBLE members");
    begin();
    upq_pred_in_begin(&B, C_I32, 0, 0);
    upq_pred_int(&B, C_I32, UPQ_PRED_IN, 5);
    upq_pred_decimal(&B, C_I32, UPQ_PRED_IN, "6.5", 3);
    upq_pred_null(&B, C_I32, UPQ_PRED_IN);
    upq_pred_in_end(&B);
    if (end()) {
        EXPECT(ev32(C_I32, 5), T);
        EXPECT(ev32(C_I32, 6), N); /* a miss against a NULL member */
    }
    begin();
    upq_pred_in_begin(&B, C_I32, 1, 0);
    upq_pred_int(&B, C_I32, UPQ_PRED_IN, 5);
    upq_pred_null(&B, C_I32, UPQ_PRED_IN);
    upq_pred_in_end(&B);
    if (end()) {
        EXPECT(ev32(C_I32, 5), F);
        EXPECT(ev32(C_I32, 6), N); /* NOT IN (.., NULL) is never TRUE */
    }
    begin();
    upq_pred_in_begin(&B, C_I32, 0, 0);
    upq_pred_decimal(&B, C_I32, UPQ_PRED_IN, "6.5", 3);
    upq_pred_in_end(&B);
    if (end()) {
        EXPECT(ev32(C_I32, 6), F);
        EXPECT(eval(C_I32, NULL), N);
    }
    begin();
    upq_pred_in_begin(&B, C_I64, 0, 1);
    upq_pred_int(&B, C_I64, UPQ_PRED_IN, 3);
    upq_pred_double(&B, C_I64, UPQ_PRED_IN, 9007199254740992.0);
    upq_pred_in_end(&B);
    if (end()) {
        EXPECT(ev64(C_I64, 3), T);
        EXPECT(ev64(C_I64, 9007199254740993LL), T);
        EXPECT(ev64(C_I64, 4), F);
    }

    tu_case("integers: = NULL, IS [NOT] DISTINCT FROM, constants");
    begin();
    upq_pred_null(&B, C_I32, UPQ_PRED_EQ);
    if (end())
        EXPECT(ev32(C_I32, 1), N);
    begin();
    upq_pred_int(&B, C_I32, UPQ_PRED_DISTINCT, 4);
    if (end()) {
        EXPECT(ev32(C_I32, 4), F);
        EXPECT(ev32(C_I32, 5), T);
        EXPECT(eval(C_I32, NULL), T);
    }
    begin();
    upq_pred_null(&B, C_I32, UPQ_PRED_NOT_DISTINCT);
    if (end()) {
        EXPECT(eval(C_I32, NULL), T);
        EXPECT(ev32(C_I32, 0), F);
    }
    begin(); /* 5.5 is distinct from every INTEGER, NULL included */
    upq_pred_decimal(&B, C_I32, UPQ_PRED_NOT_DISTINCT, "5.5", 3);
    if (end())
        EXPECT(eval(C_I32, NULL), F);
    begin();
    upq_pred_const(&B, UPQ_PRED_TRUE);
    upq_pred_const(&B, UPQ_PRED_NULL);
    upq_pred_and(&B);
    if (end())
        EXPECT(ev32(C_I32, 1), N);
}

/* ---- decimals ----------------------------------------------------------------------------- */

static void test_decimals(void)
{
    uint8_t fl[13];
    tu_case("decimals: trailing zeros, more fraction digits than the scale");
    begin();
    upq_pred_decimal(&B, C_DEC, UPQ_PRED_GT, "5.100", 5); /* DECIMAL(9,2) */
    if (end()) {
        EXPECT(ev32(C_DEC, 511), T);
        EXPECT(ev32(C_DEC, 510), F);
    }
    begin();
    upq_pred_decimal(&B, C_DEC, UPQ_PRED_GE, "5.105", 5);
    if (end()) {
        EXPECT(ev32(C_DEC, 511), T);
        EXPECT(ev32(C_DEC, 510), F);
    }
    begin();
    upq_pred_int(&B, C_DEC, UPQ_PRED_EQ, 5);
    if (end())
        EXPECT(ev32(C_DEC, 500), T);
    begin(); /* far beyond the column's range */
    upq_pred_decimal(&B, C_DEC, UPQ_PRED_LT, "12345678901234567890.5", 22);
    if (end())
        EXPECT(ev32(C_DEC, 2147483647), T);

    tu_case("decimals: FIXED_LEN_BYTE_ARRAY(13), 30 digits");
    memset(fl, 0xFF, sizeof fl); /* -0.001 */
    begin();
    upq_pred_decimal(&B, C_DECF, UPQ_PRED_LT, "-0.0005", 7);
    if (end())
        EXPECT(evb(C_DECF, fl, 13), T);
    begin();
    upq_pred_decimal(&B, C_DECF, UPQ_PRED_EQ, "-0.001", 6);
    if (end())
        EXPECT(evb(C_DECF, fl, 13), T);
    begin();
    upq_pred_decimal(&B, C_DECF, UPQ_PRED_GT, "-999999999999999999999999999.999", 32);
    if (end())
        EXPECT(evb(C_DECF, fl, 13), T);
    begin(); /* a DOUBLE literal: the decimal cast to DOUBLE */
    upq_pred_double(&B, C_DECF, UPQ_PRED_EQ, -0.001);
    if (end())
        EXPECT(evb(C_DECF, fl, 13), T);
}

/* ---- floats ------------------------------------------------------------------------------- */

static void test_floats(void)
{
    tu_case("floats: a DECIMAL literal cast to FLOAT, a DOUBLE compared widened");
    begin();
    upq_pred_decimal(&B, C_F, UPQ_PRED_EQ, "1.1", 3);
    if (end())
        EXPECT(evf(1.1f), T);
    begin();
    upq_pred_double(&B, C_F, UPQ_PRED_EQ, 1.1);
    if (end())
        EXPECT(evf(1.1f), F); /* 1.10000002384 != 1.1 */
    begin();
    upq_pred_double(&B, C_F, UPQ_PRED_GT, 1.1);
    if (end()) {
        EXPECT(evf(1.1f), T);
        EXPECT(evf(nextafterf(1.1f, 0.0f)), F);
    }
    begin();
    upq_pred_int(&B, C_F, UPQ_PRED_EQ, 16777217); /* cast to FLOAT: 16777216 */
    if (end())
        EXPECT(evf(16777216.0f), T);
    begin();
    upq_pred_double(&B, C_F, UPQ_PRED_LT, 1e300); /* beyond FLOAT: every finite value */
    if (end()) {
        EXPECT(evf(3.4e38f), T);
        EXPECT(evf(INFINITY), F);
        EXPECT(evf(NAN), F);
    }
    begin();
    upq_pred_double(&B, C_F, UPQ_PRED_EQ, NAN);
    if (end())
        EXPECT(evf(NAN), T);
    begin();
    upq_pred_double(&B, C_D, UPQ_PRED_EQ, -0.0);
    if (end())
        EXPECT(evd(0.0), T);

    tu_case("floats: FLOAT16 (a FLOAT in DuckDB)");
    begin();
    upq_pred_decimal(&B, C_H, UPQ_PRED_EQ, "0.5", 3);
    if (end())
        EXPECT(evh(0x3800), T);
    begin(); /* 0.1 as FLOAT is no half: never equal, and between two halves */
    upq_pred_decimal(&B, C_H, UPQ_PRED_EQ, "0.1", 3);
    if (end())
        EXPECT(evh(0x2E66), F);
    begin();
    upq_pred_decimal(&B, C_H, UPQ_PRED_LT, "0.1", 3);
    if (end()) {
        EXPECT(evh(0x2E66), T); /* 0.0999755859375 */
        EXPECT(evh(0x2E67), F); /* 0.10003662109375 */
    }
    begin();
    upq_pred_double(&B, C_H, UPQ_PRED_GE, 70000.0); /* above the largest half: infinity */
    if (end()) {
        EXPECT(evh(0x7BFF), F);
        EXPECT(evh(0x7C00), T);
    }
}

/* ---- strings, LIKE ------------------------------------------------------------------------- */

static int like(const char *s, const char *pat, int esc)
{
    begin();
    upq_pred_like(&B, C_S, pat, strlen(pat), esc);
    if (!end())
        return -1;
    return s ? evb(C_S, s, strlen(s)) : eval(C_S, NULL);
}

static void test_strings(void)
{
    static const struct {
        const char *s, *pat;
        int esc, want;
    } cases[] = {
        {"abc", "abc", -1, T},       {"abc", "ab", -1, F},        {"abc", "a%", -1, T},
        {"abc", "%c", -1, T},        {"abc", "%b%", -1, T},       {"abc", "a_c", -1, T},
        {"ac", "a_c", -1, F},        {"", "%", -1, T},            {"", "_", -1, F},
        {"", "", -1, T},             {"abc", "", -1, F},          {"é", "_", -1, T},
        {"é", "__", -1, F},          {"aé€x", "a__x", -1, T},     {"aé€x", "a_x", -1, F},
        {"a%c", "a\\%c", '\\', T},   {"abc", "a\\%c", '\\', F},   {"a_c", "a!_c", '!', T},
        {"abc", "a!_c", '!', F},     {"a\\c", "a\\c", -1, T},     {"aXbXc", "%X%X%", -1, T},
        {"aXbXc", "%X%X%X%", -1, F}, {"mississippi", "%iss%ppi", -1, T},
        {"mississippi", "m%s_s%p_", -1, T}, {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "%a%a%a%a%a%a%b", -1, T},
        {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "%a%a%a%a%a%a%b", -1, F}, {NULL, "%", -1, N},
    };
    size_t k;
    tu_case("LIKE: %%, _ over UTF-8 characters, ESCAPE, backtracking");
    for (k = 0; k < sizeof cases / sizeof cases[0]; k++)
        TU_CHECK_MSG(like(cases[k].s, cases[k].pat, cases[k].esc) == cases[k].want,
                     "'%s' LIKE '%s' (escape %d): want %d", cases[k].s ? cases[k].s : "NULL",
                     cases[k].pat, cases[k].esc, cases[k].want);
    tu_case("LIKE: refusals");
    begin();
    upq_pred_like(&B, C_I32, "1%", 2, -1);
    TU_CHECK_STATUS(upq_pred_end(&B, &P), UPQ_ERR_INVAL);
    begin();
    upq_pred_like(&B, C_S, "a\\", 2, '\\'); /* ends with its escape */
    TU_CHECK_STATUS(upq_pred_end(&B, &P), UPQ_ERR_INVAL);

    tu_case("strings and binary: bytes compared unsigned; UUID's 16 bytes");
    begin();
    upq_pred_bytes(&B, C_S, UPQ_PRED_GT, "sensor/b", 8);
    if (end()) {
        EXPECT(evb(C_S, "sensor/bu", 9), T);
        EXPECT(evb(C_S, "sensor/b", 8), F);
        EXPECT(evb(C_S, "\xc3\xa9", 2), T);
    }
    begin();
    upq_pred_bytes(&B, C_B, UPQ_PRED_LT, "\x80", 1);
    if (end())
        EXPECT(evb(C_B, "\x7f\xff", 2), T);
    {
        uint8_t u[16];
        memset(u, 0xab, sizeof u);
        begin();
        upq_pred_bytes(&B, C_UID, UPQ_PRED_EQ, u, 16);
        if (end())
            EXPECT(evb(C_UID, u, 16), T);
    }
}

/* ---- booleans, dates, times ------------------------------------------------------------------ */

static void test_times(void)
{
    uint8_t one = 1, zero = 0;
    upq_int96 t96;
    tu_case("booleans: = 1, = TRUE");
    begin();
    upq_pred_int(&B, C_BOOL, UPQ_PRED_EQ, 1);
    if (end()) {
        EXPECT(eval(C_BOOL, &one), T);
        EXPECT(eval(C_BOOL, &zero), F);
    }
    begin();
    upq_pred_bool(&B, C_BOOL, UPQ_PRED_NOT_DISTINCT, 0);
    if (end()) {
        EXPECT(eval(C_BOOL, &zero), T);
        EXPECT(eval(C_BOOL, NULL), F);
    }

    tu_case("dates against timestamps: a date holds its midnight");
    begin(); /* dt < 1970-01-06 00:00:01 */
    upq_pred_timestamp(&B, C_DT, UPQ_PRED_LT, 5 * 86400 + 1, 0);
    if (end()) {
        EXPECT(ev32(C_DT, 5), T);
        EXPECT(ev32(C_DT, 6), F);
    }
    begin();
    upq_pred_timestamp(&B, C_DT, UPQ_PRED_EQ, 5 * 86400, 0);
    if (end())
        EXPECT(ev32(C_DT, 5), T);
    begin(); /* before 1970 */
    upq_pred_timestamp(&B, C_DT, UPQ_PRED_GT, -86400 - 1, 0);
    if (end()) {
        EXPECT(ev32(C_DT, -1), T);
        EXPECT(ev32(C_DT, -2), F);
    }

    tu_case("timestamps: a literal finer than the column's unit");
    begin(); /* ts_ms > 10.0005 s */
    upq_pred_timestamp(&B, C_TS_MS, UPQ_PRED_GT, 10, 500000);
    if (end()) {
        EXPECT(ev64(C_TS_MS, 10001), T);
        EXPECT(ev64(C_TS_MS, 10000), F);
    }
    begin();
    upq_pred_timestamp(&B, C_TS_MS, UPQ_PRED_EQ, -1, 999500000); /* -0.0005 s */
    if (end())
        EXPECT(ev64(C_TS_MS, 0), F);
    begin();
    upq_pred_timestamp(&B, C_TS_MS, UPQ_PRED_LE, -1, 999500000);
    if (end()) {
        EXPECT(ev64(C_TS_MS, -1), T);
        EXPECT(ev64(C_TS_MS, 0), F);
    }
    begin();
    upq_pred_timestamp(&B, C_TS_NS, UPQ_PRED_EQ, 1704067200, 123456789);
    if (end())
        EXPECT(ev64(C_TS_NS, 1704067200123456789LL), T);
    begin(); /* INT96: Julian day 2440588 is 1970-01-01 */
    upq_pred_timestamp(&B, C_T96, UPQ_PRED_EQ, 86400 + 2, 5);
    if (end()) {
        uint64_t nod = 2000000005ull;
        uint32_t jd = 2440589u;
        int k;
        for (k = 0; k < 8; k++)
            t96.b[k] = (uint8_t)(nod >> (8 * k));
        for (k = 0; k < 4; k++)
            t96.b[8 + k] = (uint8_t)(jd >> (8 * k));
        EXPECT(eval(C_T96, &t96), T);
    }
    begin(); /* TIME(MILLIS) < 1.5 ms */
    upq_pred_time(&B, C_TM_MS, UPQ_PRED_LT, 1500000);
    if (end()) {
        EXPECT(ev32(C_TM_MS, 1), T);
        EXPECT(ev32(C_TM_MS, 2), F);
    }
    begin(); /* a stored integer, as upq's first syntax took */
    upq_pred_int(&B, C_TS_MS, UPQ_PRED_EQ, 1234);
    if (end())
        EXPECT(ev64(C_TS_MS, 1234), T);
}

/* ---- refusals ------------------------------------------------------------------------------------ */

static void test_refusals(void)
{
    tu_case("builder: refusals with what and where");
    begin();
    upq_pred_bytes(&B, C_I32, UPQ_PRED_EQ, "x", 1);
    TU_CHECK_STATUS(upq_pred_end(&B, &P), UPQ_ERR_INVAL);
    TU_CHECK(B.what != NULL && B.node == 0);
    begin();
    upq_pred_decimal(&B, C_TS_MS, UPQ_PRED_EQ, "1.5", 3);
    TU_CHECK_STATUS(upq_pred_end(&B, &P), UPQ_ERR_INVAL);
    begin();
    upq_pred_int(&B, C_I32, UPQ_PRED_EQ, 1);
    upq_pred_and(&B); /* one operand */
    TU_CHECK_STATUS(upq_pred_end(&B, &P), UPQ_ERR_INVAL);
    begin();
    upq_pred_in_begin(&B, C_I32, 0, 0);
    upq_pred_int(&B, C_I32, UPQ_PRED_IN, 1);
    TU_CHECK_STATUS(upq_pred_end(&B, &P), UPQ_ERR_INVAL); /* the list never ended */
    begin();
    upq_pred_int(&B, C_I32, UPQ_PRED_IN, 1); /* a member outside a list */
    TU_CHECK_STATUS(upq_pred_end(&B, &P), UPQ_ERR_INVAL);
    begin();
    upq_pred_decimal(&B, C_I32, UPQ_PRED_EQ, "1.2.3", 5);
    TU_CHECK_STATUS(upq_pred_end(&B, &P), UPQ_ERR_INVAL);
    {
        upq_pred_node few[2];
        upq_value v[1];
        upq_pred_begin(&B, &schema, few, 2, v, 1, NULL, 0);
        upq_pred_decimal(&B, C_I32, UPQ_PRED_EQ, "1.5", 3); /* three nodes: no room */
        TU_CHECK_STATUS(upq_pred_end(&B, &P), UPQ_ERR_NOMEM);
        upq_pred_begin(&B, &schema, few, 2, v, 1, NULL, 0);
        upq_pred_decimal(&B, C_DEC, UPQ_PRED_EQ, "1.5", 3); /* INT32 decimal: no bytes needed */
        TU_CHECK_STATUS(upq_pred_end(&B, &P), UPQ_OK);
        upq_pred_begin(&B, &schema, few, 2, v, 1, NULL, 0);
        upq_pred_decimal(&B, C_DECF, UPQ_PRED_EQ, "1.5", 3); /* its bytes: no room */
        TU_CHECK_STATUS(upq_pred_end(&B, &P), UPQ_ERR_NOMEM);
    }
}

int main(void)
{
    build_schema();
    test_integers();
    test_decimals();
    test_floats();
    test_strings();
    test_times();
    test_refusals();
    return tu_summary();
}
