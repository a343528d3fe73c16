/*
 * Reading statistics: typed min/max from hand-built Statistics bytes for
 * every type, the rules on column orders, the deprecated fields, old
 * writers, NaN and signed zeros, and the typed compare.
 */
#include <stdio.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "util/check.h"

static uint8_t arena_buf[1 << 14];

/* One leaf column `c` of a file with that column order and created_by. */
typedef struct fixture {
    upq_schema_element el[2];
    upq_schema s;
    upq_file_metadata m;
    upq_column_order co;
    upq_statistics st;
    upq_column_stats out;
} fixture;

static fixture F;

enum { CO_NONE = 0, CO_TYPE = 1, CO_TOTAL = 2, CO_INT96 = 3, CO_UNKNOWN = 9 };

static void setup(int32_t type, int32_t type_length, int32_t converted, const upq_logical_type *lt,
                  int column_order, const char *created_by)
{
    upq_arena a;
    upq_status st;
    memset(&F, 0, sizeof F);
    UPQ_SET(F.el[0], UPQ_SCHEMA_ELEMENT_NAME);
    F.el[0].name.ptr = (const uint8_t *)"root";
    F.el[0].name.len = 4;
    UPQ_SET(F.el[0], UPQ_SCHEMA_ELEMENT_NUM_CHILDREN);
    F.el[0].num_children = 1;
    UPQ_SET(F.el[1], UPQ_SCHEMA_ELEMENT_NAME);
    F.el[1].name.ptr = (const uint8_t *)"c";
    F.el[1].name.len = 1;
    UPQ_SET(F.el[1], UPQ_SCHEMA_ELEMENT_TYPE);
    F.el[1].type = type;
    UPQ_SET(F.el[1], UPQ_SCHEMA_ELEMENT_REPETITION_TYPE);
    F.el[1].repetition_type = UPQ_REP_OPTIONAL;
    if (type_length) {
        UPQ_SET(F.el[1], UPQ_SCHEMA_ELEMENT_TYPE_LENGTH);
        F.el[1].type_length = type_length;
    }
    if (converted >= 0) {
        UPQ_SET(F.el[1], UPQ_SCHEMA_ELEMENT_CONVERTED_TYPE);
        F.el[1].converted_type = converted;
    }
    if (lt) {
        UPQ_SET(F.el[1], UPQ_SCHEMA_ELEMENT_LOGICAL_TYPE);
        F.el[1].logical_type = *lt;
        if (upq_logical_type_kind(lt) == UPQ_LOGICAL_TYPE_DECIMAL) {
            UPQ_SET(F.el[1], UPQ_SCHEMA_ELEMENT_SCALE);
            UPQ_SET(F.el[1], UPQ_SCHEMA_ELEMENT_PRECISION);
            F.el[1].scale = lt->u.decimal.scale;
            F.el[1].precision = lt->u.decimal.precision;
        }
    }
    upq_arena_init(&a, arena_buf, sizeof arena_buf);
    st = upq_schema_build(&F.s, F.el, 2, &a, NULL);
    TU_CHECK_STATUS(st, UPQ_OK);
    if (column_order != CO_NONE) {
        UPQ_SET(F.m, UPQ_FILE_METADATA_COLUMN_ORDERS);
        F.m.column_orders.v = &F.co;
        F.m.column_orders.n = 1;
        if (column_order != CO_UNKNOWN)
            F.co.isset = 1u << column_order;
    }
    if (created_by) {
        UPQ_SET(F.m, UPQ_FILE_METADATA_CREATED_BY);
        F.m.created_by.ptr = (const uint8_t *)created_by;
        F.m.created_by.len = (uint32_t)strlen(created_by);
    }
}

static void set_bytes(upq_bytes *b, const void *p, size_t n)
{
    b->ptr = (const uint8_t *)p;
    b->len = (uint32_t)n;
}

/* min_value/max_value (deprecated = 0) or min/max (1); NULL leaves one out. */
static void bounds(int deprecated, const void *lo, size_t lo_len, const void *hi, size_t hi_len)
{
    if (lo) {
        UPQ_SET(F.st, deprecated ? UPQ_STATISTICS_MIN : UPQ_STATISTICS_MIN_VALUE);
        set_bytes(deprecated ? &F.st.min : &F.st.min_value, lo, lo_len);
    }
    if (hi) {
        UPQ_SET(F.st, deprecated ? UPQ_STATISTICS_MAX : UPQ_STATISTICS_MAX_VALUE);
        set_bytes(deprecated ? &F.st.max : &F.st.max_value, hi, hi_len);
    }
}

static void decode(void)
{
    upq_stats_decode(&F.m, &F.s, 0, &F.st, &F.out);
}

static upq_logical_type lt_int(int bits, int is_signed)
{
    upq_logical_type lt;
    memset(&lt, 0, sizeof lt);
    UPQ_SET(lt, UPQ_LOGICAL_TYPE_INTEGER);
    lt.u.integer.bit_width = (int8_t)bits;
    lt.u.integer.is_signed = (uint8_t)is_signed;
    return lt;
}

static upq_logical_type lt_simple(int kind)
{
    upq_logical_type lt;
    memset(&lt, 0, sizeof lt);
    lt.isset = 1u << kind;
    return lt;
}

static upq_logical_type lt_decimal(int precision, int scale)
{
    upq_logical_type lt = lt_simple(UPQ_LOGICAL_TYPE_DECIMAL);
    lt.u.decimal.precision = precision;
    lt.u.decimal.scale = scale;
    return lt;
}

static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static int cmp_of(const upq_stat_value *a, const upq_stat_value *b)
{
    int c = 99;
    TU_CHECK(upq_stat_cmp(a, b, &c) == 1);
    return c;
}

static upq_stat_value int_val(int64_t i)
{
    upq_stat_value v;
    memset(&v, 0, sizeof v);
    v.kind = UPQ_STAT_INT;
    v.v.i = i;
    return v;
}

static upq_stat_value uint_val(uint64_t u)
{
    upq_stat_value v;
    memset(&v, 0, sizeof v);
    v.kind = UPQ_STAT_UINT;
    v.v.u = u;
    return v;
}

static upq_stat_value dec_val(const uint8_t *p, uint32_t n)
{
    upq_stat_value v;
    memset(&v, 0, sizeof v);
    v.kind = UPQ_STAT_DECIMAL;
    v.ptr = p;
    v.len = n;
    return v;
}

static void test_ints(void)
{
    static const uint8_t m5[4] = {0xFB, 0xFF, 0xFF, 0xFF}, p7[4] = {7, 0, 0, 0};
    static const uint8_t u31a[4] = {0xFF, 0xFF, 0xFF, 0x7F}, u31b[4] = {0x00, 0x00, 0x00, 0x80};
    static const uint8_t u63a[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F};
    static const uint8_t u63b[8] = {0, 0, 0, 0, 0, 0, 0, 0x80};
    static const uint8_t umax[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    upq_logical_type lt;

    tu_case("INT32 signed");
    setup(UPQ_TYPE_INT32, 0, -1, NULL, CO_TYPE, "parquet-cpp-arrow version 14.0.0");
    bounds(0, m5, 4, p7, 4);
    UPQ_SET(F.st, UPQ_STATISTICS_NULL_COUNT);
    F.st.null_count = 3;
    UPQ_SET(F.st, UPQ_STATISTICS_DISTINCT_COUNT);
    F.st.distinct_count = 9;
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_OK);
    TU_CHECK_INT(F.out.order, UPQ_STAT_ORDER_I32);
    TU_CHECK(F.out.has_min && F.out.has_max);
    TU_CHECK_INT(F.out.min.kind, UPQ_STAT_INT);
    TU_CHECK_INT(F.out.min.v.i, -5);
    TU_CHECK_INT(F.out.max.v.i, 7);
    TU_CHECK_INT(F.out.min.exact, -1);
    TU_CHECK(F.out.has_null_count && F.out.null_count == 3);
    TU_CHECK(F.out.has_distinct_count && F.out.distinct_count == 9);
    TU_CHECK(!F.out.has_nan_count);
    TU_CHECK_INT(cmp_of(&F.out.min, &F.out.max), -1);

    tu_case("INT(32, unsigned) across 2^31");
    lt = lt_int(32, 0);
    setup(UPQ_TYPE_INT32, 0, -1, &lt, CO_TYPE, NULL);
    bounds(0, u31a, 4, u31b, 4);
    decode();
    TU_CHECK_INT(F.out.order, UPQ_STAT_ORDER_U32);
    TU_CHECK_INT(F.out.min.kind, UPQ_STAT_UINT);
    TU_CHECK_UINT(F.out.min.v.u, 2147483647u);
    TU_CHECK_UINT(F.out.max.v.u, 2147483648u);
    TU_CHECK_INT(cmp_of(&F.out.min, &F.out.max), -1);

    tu_case("UINT_64 (converted) across 2^63");
    setup(UPQ_TYPE_INT64, 0, UPQ_CONVERTED_UINT_64, NULL, CO_TYPE, NULL);
    bounds(0, u63a, 8, umax, 8);
    decode();
    TU_CHECK_INT(F.out.order, UPQ_STAT_ORDER_U64);
    TU_CHECK_UINT(F.out.min.v.u, 0x7FFFFFFFFFFFFFFFull);
    TU_CHECK_UINT(F.out.max.v.u, 0xFFFFFFFFFFFFFFFFull);
    {
        upq_stat_value m1 = int_val(-1), big = uint_val(0x8000000000000000ull);
        upq_stat_value d;
        decode();
        TU_CHECK_INT(cmp_of(&m1, &F.out.min), -1); /* -1 < 2^63 - 1 */
        TU_CHECK_INT(cmp_of(&big, &F.out.min), 1);
        TU_CHECK_INT(cmp_of(&F.out.max, &big), 1);
        TU_CHECK_STATUS(upq_stats_decode_value(UPQ_STAT_ORDER_U64, 0, u63b, 8, 0, &d), UPQ_OK);
        TU_CHECK_INT(cmp_of(&d, &big), 0);
    }

    tu_case("UINT_8 and INT_16 (converted) on INT32");
    setup(UPQ_TYPE_INT32, 0, UPQ_CONVERTED_UINT_8, NULL, CO_NONE, NULL);
    bounds(0, p7, 4, u31b, 4);
    decode();
    TU_CHECK_INT(F.out.order, UPQ_STAT_ORDER_U32);
    TU_CHECK_INT(F.out.why, UPQ_STAT_OK); /* no column_orders: the type's order */
    setup(UPQ_TYPE_INT32, 0, UPQ_CONVERTED_INT_16, NULL, CO_NONE, NULL);
    bounds(0, m5, 4, p7, 4);
    decode();
    TU_CHECK_INT(F.out.order, UPQ_STAT_ORDER_I32);
    TU_CHECK_INT(F.out.min.v.i, -5);

    tu_case("INT(64, signed), DATE, TIME, TIMESTAMP orders");
    lt = lt_int(64, 1);
    setup(UPQ_TYPE_INT64, 0, -1, &lt, CO_TYPE, NULL);
    TU_CHECK_INT(upq_stats_type_order(&F.s, 0), UPQ_STAT_ORDER_I64);
    setup(UPQ_TYPE_INT32, 0, UPQ_CONVERTED_DATE, NULL, CO_TYPE, NULL);
    TU_CHECK_INT(upq_stats_type_order(&F.s, 0), UPQ_STAT_ORDER_I32);
    setup(UPQ_TYPE_INT32, 0, UPQ_CONVERTED_TIME_MILLIS, NULL, CO_TYPE, NULL);
    TU_CHECK_INT(upq_stats_type_order(&F.s, 0), UPQ_STAT_ORDER_I32);
    setup(UPQ_TYPE_INT64, 0, UPQ_CONVERTED_TIMESTAMP_MILLIS, NULL, CO_TYPE, NULL);
    TU_CHECK_INT(upq_stats_type_order(&F.s, 0), UPQ_STAT_ORDER_I64);
    lt = lt_simple(UPQ_LOGICAL_TYPE_TIMESTAMP);
    lt.u.timestamp.unit.isset = 1u << UPQ_TIME_UNIT_NANOS;
    setup(UPQ_TYPE_INT64, 0, -1, &lt, CO_TYPE, NULL);
    TU_CHECK_INT(upq_stats_type_order(&F.s, 0), UPQ_STAT_ORDER_I64);
    bounds(0, u63b, 8, u63a, 8);
    decode();
    TU_CHECK_INT(F.out.min.v.i, INT64_MIN);
    TU_CHECK_INT(F.out.max.v.i, INT64_MAX);

    tu_case("deprecated min/max: signed integers yes, unsigned no");
    setup(UPQ_TYPE_INT32, 0, -1, NULL, CO_NONE, "parquet-mr version 1.6.0");
    bounds(1, m5, 4, p7, 4);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_OK);
    TU_CHECK(F.out.deprecated && F.out.has_min && F.out.min.v.i == -5);
    TU_CHECK_INT(F.out.min.exact, -1);
    setup(UPQ_TYPE_INT32, 0, UPQ_CONVERTED_UINT_32, NULL, CO_NONE, "parquet-mr version 1.6.0");
    bounds(1, u31a, 4, u31b, 4);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_DEPRECATED);
    TU_CHECK(!F.out.has_min && !F.out.has_max);
    /* one value: any order agrees */
    setup(UPQ_TYPE_INT32, 0, UPQ_CONVERTED_UINT_32, NULL, CO_NONE, "parquet-mr version 1.6.0");
    bounds(1, u31b, 4, u31b, 4);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_OK);
    TU_CHECK_UINT(F.out.max.v.u, 2147483648u);

    tu_case("min_value of an unsigned type by parquet-cpp 1.2.0 (PARQUET-686)");
    setup(UPQ_TYPE_INT32, 0, UPQ_CONVERTED_UINT_32, NULL, CO_NONE, "parquet-cpp version 1.2.0");
    bounds(0, u31a, 4, u31b, 4);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_WRITER);
    setup(UPQ_TYPE_INT32, 0, UPQ_CONVERTED_UINT_32, NULL, CO_NONE, "parquet-cpp version 1.3.0");
    bounds(0, u31a, 4, u31b, 4);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_OK);

    tu_case("bounds of the wrong size");
    setup(UPQ_TYPE_INT32, 0, -1, NULL, CO_TYPE, NULL);
    bounds(0, m5, 3, p7, 4);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_CORRUPT);
    TU_CHECK(!F.out.has_min && !F.out.has_max);
    setup(UPQ_TYPE_INT64, 0, -1, NULL, CO_TYPE, NULL);
    bounds(0, u63a, 8, u63a, 9);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_CORRUPT);

    tu_case("negative counts are not counts");
    setup(UPQ_TYPE_INT32, 0, -1, NULL, CO_TYPE, NULL);
    UPQ_SET(F.st, UPQ_STATISTICS_NULL_COUNT);
    F.st.null_count = -1;
    decode();
    TU_CHECK(!F.out.has_null_count);
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_ABSENT);
}

static void test_bool(void)
{
    static const uint8_t f = 0, t = 1, bad = 2;
    tu_case("BOOLEAN");
    setup(UPQ_TYPE_BOOLEAN, 0, -1, NULL, CO_TYPE, NULL);
    bounds(0, &f, 1, &t, 1);
    decode();
    TU_CHECK_INT(F.out.order, UPQ_STAT_ORDER_BOOL);
    TU_CHECK_INT(F.out.min.kind, UPQ_STAT_BOOL);
    TU_CHECK_INT(F.out.min.v.i, 0);
    TU_CHECK_INT(F.out.max.v.i, 1);
    TU_CHECK_INT(cmp_of(&F.out.min, &F.out.max), -1);
    setup(UPQ_TYPE_BOOLEAN, 0, -1, NULL, CO_TYPE, NULL);
    bounds(0, &f, 1, &bad, 1);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_CORRUPT);
}

static void test_floats(void)
{
    static const uint8_t nan32[4] = {0, 0, 0xC0, 0x7F}, one32[4] = {0, 0, 0x80, 0x3F};
    static const uint8_t pz32[4] = {0, 0, 0, 0}, nz32[4] = {0, 0, 0, 0x80};
    static const uint8_t sub32[4] = {1, 0, 0, 0}; /* 2^-149 */
    static const uint8_t ninf64[8] = {0, 0, 0, 0, 0, 0, 0xF0, 0xFF};
    static const uint8_t pz64[8] = {0}, nz64[8] = {0, 0, 0, 0, 0, 0, 0, 0x80};
    static const uint8_t h_one[2] = {0x00, 0x3C}, h_m2[2] = {0x00, 0xC0};
    static const uint8_t h_sub[2] = {0x01, 0x00}, h_nan[2] = {0x00, 0x7E}, h_max[2] = {0xFF, 0x7B};
    upq_logical_type lt;
    upq_stat_value a, b;
    double two149 = 1.0;
    int i;

    tu_case("FLOAT: NaN bounds are left out");
    setup(UPQ_TYPE_FLOAT, 0, -1, NULL, CO_TYPE, NULL);
    bounds(0, nan32, 4, one32, 4);
    UPQ_SET(F.st, UPQ_STATISTICS_NAN_COUNT);
    F.st.nan_count = 2;
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_OK);
    TU_CHECK(!F.out.has_min && F.out.has_max);
    TU_CHECK(F.out.max.v.d == 1.0);
    TU_CHECK(F.out.has_nan_count && F.out.nan_count == 2);
    setup(UPQ_TYPE_FLOAT, 0, -1, NULL, CO_TYPE, NULL);
    bounds(0, nan32, 4, nan32, 4);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_ABSENT);
    TU_CHECK(!F.out.has_min && !F.out.has_max);

    tu_case("FLOAT: +0 min and -0 max are widened under TYPE_ORDER");
    setup(UPQ_TYPE_FLOAT, 0, -1, NULL, CO_TYPE, NULL);
    bounds(0, pz32, 4, nz32, 4);
    decode();
    TU_CHECK_UINT(dbits(F.out.min.v.d), 0x8000000000000000ull); /* -0.0 */
    TU_CHECK_UINT(dbits(F.out.max.v.d), 0);                     /* +0.0 */
    TU_CHECK_INT(cmp_of(&F.out.min, &F.out.max), 0);
    tu_case("FLOAT: zeros kept under IEEE_754_TOTAL_ORDER");
    setup(UPQ_TYPE_FLOAT, 0, -1, NULL, CO_TOTAL, NULL);
    bounds(0, pz32, 4, nz32, 4);
    decode();
    TU_CHECK(F.out.total_order);
    TU_CHECK_UINT(dbits(F.out.min.v.d), 0);
    TU_CHECK_UINT(dbits(F.out.max.v.d), 0x8000000000000000ull);

    tu_case("FLOAT: subnormal widened exactly");
    TU_CHECK_STATUS(upq_stats_decode_value(UPQ_STAT_ORDER_F32, 0, sub32, 4, 0, &a), UPQ_OK);
    for (i = 0; i < 149; i++)
        two149 /= 2;
    TU_CHECK(a.v.d == two149);

    tu_case("DOUBLE: infinities and zeros");
    setup(UPQ_TYPE_DOUBLE, 0, -1, NULL, CO_TYPE, NULL);
    bounds(0, ninf64, 8, pz64, 8);
    decode();
    TU_CHECK(F.out.min.v.d < -1e308 && F.out.min.v.d * 0.5 == F.out.min.v.d);
    TU_CHECK_UINT(dbits(F.out.max.v.d), 0);
    setup(UPQ_TYPE_DOUBLE, 0, -1, NULL, CO_TYPE, NULL);
    bounds(0, pz64, 8, nz64, 8);
    decode();
    TU_CHECK_UINT(dbits(F.out.min.v.d), 0x8000000000000000ull);
    TU_CHECK_UINT(dbits(F.out.max.v.d), 0);

    tu_case("IEEE_754_TOTAL_ORDER on a non-float column is not usable");
    setup(UPQ_TYPE_INT32, 0, -1, NULL, CO_TOTAL, NULL);
    bounds(0, one32, 4, nan32, 4);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_COLUMN_ORDER);

    tu_case("FLOAT16");
    lt = lt_simple(UPQ_LOGICAL_TYPE_FLOAT16);
    setup(UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 2, -1, &lt, CO_TYPE, NULL);
    bounds(0, h_m2, 2, h_one, 2);
    decode();
    TU_CHECK_INT(F.out.order, UPQ_STAT_ORDER_F16);
    TU_CHECK(F.out.min.v.d == -2.0 && F.out.max.v.d == 1.0);
    TU_CHECK_STATUS(upq_stats_decode_value(UPQ_STAT_ORDER_F16, 2, h_sub, 2, 0, &a), UPQ_OK);
    TU_CHECK(a.v.d == 1.0 / 16777216.0);
    TU_CHECK_STATUS(upq_stats_decode_value(UPQ_STAT_ORDER_F16, 2, h_max, 2, 0, &b), UPQ_OK);
    TU_CHECK(b.v.d == 65504.0);
    TU_CHECK_STATUS(upq_stats_decode_value(UPQ_STAT_ORDER_F16, 2, h_nan, 2, 0, &b), UPQ_OK);
    TU_CHECK(upq_stat_is_nan(&b));
    TU_CHECK(upq_stat_cmp(&a, &b, &i) == 0); /* NaN compares with nothing */
    b = int_val(1);
    TU_CHECK(upq_stat_cmp(&a, &b, &i) == 0); /* nor do floats and integers */
    /* the deprecated fields of FLOAT16 were compared as signed bytes */
    setup(UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 2, -1, &lt, CO_NONE, "parquet-cpp-arrow version 15.0.0");
    bounds(1, h_m2, 2, h_one, 2);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_DEPRECATED);
}

static void test_decimals(void)
{
    static const uint8_t i32m[4] = {0x9C, 0xFF, 0xFF, 0xFF}; /* -100 */
    static const uint8_t i32p[4] = {0x39, 0x30, 0, 0};       /* 12345 */
    static const uint8_t i64p[8] = {0x39, 0x30, 0, 0, 0, 0, 0, 0};
    static const uint8_t fl16m[16] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                      0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x9C}; /* -100 */
    static const uint8_t fl16p[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x30, 0x39};
    static const uint8_t ba1m[1] = {0x9C};          /* -100 */
    static const uint8_t ba3p[3] = {0x00, 0x30, 0x39}; /* 12345, with a sign byte */
    static const uint8_t ba1ff[1] = {0xFF};          /* -1 */
    static const uint8_t ba2_128[2] = {0x00, 0x80};  /* 128 */
    static const uint8_t ba1_127[1] = {0x7F};        /* 127 */
    static const uint8_t u64max9[9] = {0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    upq_logical_type lt = lt_decimal(9, 2);
    upq_stat_value i32min, i32max, i64max, flmin, flmax, bamin, bamax, x, y;

    tu_case("DECIMAL on INT32, INT64, FLBA(16), BYTE_ARRAY");
    setup(UPQ_TYPE_INT32, 0, -1, &lt, CO_TYPE, NULL);
    bounds(0, i32m, 4, i32p, 4);
    decode();
    TU_CHECK_INT(F.out.order, UPQ_STAT_ORDER_I32);
    i32min = F.out.min;
    i32max = F.out.max;
    TU_CHECK_INT(i32min.v.i, -100);
    TU_CHECK_INT(i32max.v.i, 12345);

    lt = lt_decimal(18, 2);
    setup(UPQ_TYPE_INT64, 0, -1, &lt, CO_TYPE, NULL);
    bounds(0, i64p, 8, i64p, 8);
    decode();
    i64max = F.out.max;
    TU_CHECK_INT(i64max.v.i, 12345);

    lt = lt_decimal(38, 2);
    setup(UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 16, -1, &lt, CO_TYPE, NULL);
    bounds(0, fl16m, 16, fl16p, 16);
    decode();
    TU_CHECK_INT(F.out.order, UPQ_STAT_ORDER_DECIMAL);
    TU_CHECK_INT(F.out.min.kind, UPQ_STAT_DECIMAL);
    TU_CHECK_INT(F.out.min.len, 16);
    flmin = F.out.min;
    flmax = F.out.max;
    /* a bound that is not the whole FIXED_LEN_BYTE_ARRAY is not a value */
    setup(UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 16, -1, &lt, CO_TYPE, NULL);
    bounds(0, fl16m, 15, fl16p, 16);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_CORRUPT);

    setup(UPQ_TYPE_BYTE_ARRAY, 0, UPQ_CONVERTED_DECIMAL, NULL, CO_TYPE, NULL);
    F.el[1].scale = 2;
    bounds(0, ba1m, 1, ba3p, 3);
    decode();
    TU_CHECK_INT(F.out.order, UPQ_STAT_ORDER_DECIMAL);
    bamin = F.out.min;
    bamax = F.out.max;

    tu_case("decimals compare by value across widths and physical types");
    TU_CHECK_INT(cmp_of(&i32min, &flmin), 0);
    TU_CHECK_INT(cmp_of(&i32min, &bamin), 0);
    TU_CHECK_INT(cmp_of(&flmin, &bamin), 0);
    TU_CHECK_INT(cmp_of(&i32max, &i64max), 0);
    TU_CHECK_INT(cmp_of(&i64max, &flmax), 0);
    TU_CHECK_INT(cmp_of(&flmax, &bamax), 0);
    TU_CHECK_INT(cmp_of(&bamin, &flmax), -1);
    TU_CHECK_INT(cmp_of(&flmax, &i32min), 1);
    x = dec_val(ba1ff, 1);
    y = int_val(-1);
    TU_CHECK_INT(cmp_of(&x, &y), 0);
    y = int_val(0);
    TU_CHECK_INT(cmp_of(&x, &y), -1);
    x = dec_val(ba2_128, 2);
    y = dec_val(ba1_127, 1);
    TU_CHECK_INT(cmp_of(&x, &y), 1); /* bytewise would say 0x00 < 0x7F */
    x = dec_val(u64max9, 9);
    y = uint_val(UINT64_MAX);
    TU_CHECK_INT(cmp_of(&x, &y), 0);
    y = int_val(INT64_MAX);
    TU_CHECK_INT(cmp_of(&x, &y), 1);
    TU_CHECK_STATUS(upq_stats_decode_value(UPQ_STAT_ORDER_DECIMAL, 0, ba1m, 0, 0, &x),
                    UPQ_ERR_CORRUPT);

    tu_case("DECIMAL deprecated min/max on binary are not trusted");
    setup(UPQ_TYPE_BYTE_ARRAY, 0, UPQ_CONVERTED_DECIMAL, NULL, CO_NONE, "parquet-mr version 1.9.0");
    bounds(1, ba1m, 1, ba3p, 3);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_DEPRECATED);
}

static void test_bytes(void)
{
    static const char abc[] = "abc", abcd[] = "abcd", abd[] = "abd";
    static const uint8_t hi8[2] = {0xC3, 0xA9}, lo8[1] = {0x41};
    static const uint8_t uuid_lo[16] = {0x00, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    static const uint8_t uuid_hi[16] = {0xF0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    upq_logical_type lt = lt_simple(UPQ_LOGICAL_TYPE_STRING);
    upq_stat_value a, b, c;

    tu_case("strings sharing prefixes, unsigned bytes");
    TU_CHECK_STATUS(upq_stats_decode_value(UPQ_STAT_ORDER_BYTES, 0, (const uint8_t *)abc, 3, 0, &a),
                    UPQ_OK);
    TU_CHECK_STATUS(upq_stats_decode_value(UPQ_STAT_ORDER_BYTES, 0, (const uint8_t *)abcd, 4, 0, &b),
                    UPQ_OK);
    TU_CHECK_STATUS(upq_stats_decode_value(UPQ_STAT_ORDER_BYTES, 0, (const uint8_t *)abd, 3, 0, &c),
                    UPQ_OK);
    TU_CHECK_INT(a.kind, UPQ_STAT_BYTES);
    TU_CHECK_INT(cmp_of(&a, &b), -1);
    TU_CHECK_INT(cmp_of(&b, &c), -1);
    TU_CHECK_INT(cmp_of(&c, &a), 1);
    TU_CHECK_INT(cmp_of(&a, &a), 0);
    TU_CHECK_STATUS(upq_stats_decode_value(UPQ_STAT_ORDER_BYTES, 0, (const uint8_t *)abc, 0, 0, &c),
                    UPQ_OK); /* the empty string */
    TU_CHECK_INT(cmp_of(&c, &a), -1);
    {
        upq_stat_value n = int_val(3);
        int r;
        TU_CHECK(upq_stat_cmp(&a, &n, &r) == 0); /* bytes and numbers do not mix */
    }

    tu_case("STRING min_value/max_value, truncated max");
    setup(UPQ_TYPE_BYTE_ARRAY, 0, -1, &lt, CO_TYPE, "parquet-cpp-arrow version 14.0.0");
    bounds(0, lo8, 1, hi8, 2);
    UPQ_SET(F.st, UPQ_STATISTICS_IS_MIN_VALUE_EXACT);
    F.st.is_min_value_exact = 1;
    UPQ_SET(F.st, UPQ_STATISTICS_IS_MAX_VALUE_EXACT);
    F.st.is_max_value_exact = 0;
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_OK);
    TU_CHECK_INT(F.out.order, UPQ_STAT_ORDER_BYTES);
    TU_CHECK_INT(F.out.min.exact, 1);
    TU_CHECK_INT(F.out.max.exact, 0);
    TU_CHECK_INT(cmp_of(&F.out.min, &F.out.max), -1); /* 0x41 < 0xC3 unsigned */

    tu_case("deprecated string min/max: signed order, PARQUET-251");
    setup(UPQ_TYPE_BYTE_ARRAY, 0, UPQ_CONVERTED_UTF8, NULL, CO_NONE, "parquet-mr version 1.9.0");
    bounds(1, hi8, 2, lo8, 1);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_DEPRECATED);
    setup(UPQ_TYPE_BYTE_ARRAY, 0, UPQ_CONVERTED_UTF8, NULL, CO_NONE, "parquet-mr version 1.9.0");
    bounds(1, lo8, 1, lo8, 1);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_OK); /* one value */
    setup(UPQ_TYPE_BYTE_ARRAY, 0, UPQ_CONVERTED_UTF8, NULL, CO_NONE, "parquet-mr version 1.7.0");
    bounds(1, lo8, 1, lo8, 1);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_WRITER);
    setup(UPQ_TYPE_BYTE_ARRAY, 0, UPQ_CONVERTED_UTF8, NULL, CO_NONE, NULL);
    bounds(1, lo8, 1, lo8, 1);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_WRITER);
    setup(UPQ_TYPE_BYTE_ARRAY, 0, UPQ_CONVERTED_UTF8, NULL, CO_NONE, "parquet-mr version 1.5.0-cdh5.5.0");
    bounds(1, lo8, 1, lo8, 1);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_WRITER);
    /* min_value by parquet-mr 1.9.0 (before 1.10.0) is still signed */
    setup(UPQ_TYPE_BYTE_ARRAY, 0, UPQ_CONVERTED_UTF8, NULL, CO_TYPE, "parquet-mr version 1.9.0");
    bounds(0, lo8, 1, hi8, 2);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_WRITER);
    setup(UPQ_TYPE_BYTE_ARRAY, 0, UPQ_CONVERTED_UTF8, NULL, CO_TYPE, "parquet-mr version 1.10.0");
    bounds(0, lo8, 1, hi8, 2);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_OK);

    tu_case("UUID on FLBA(16), unsigned");
    lt = lt_simple(UPQ_LOGICAL_TYPE_UUID);
    setup(UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 16, -1, &lt, CO_TYPE, NULL);
    bounds(0, uuid_lo, 16, uuid_hi, 16);
    decode();
    TU_CHECK_INT(F.out.order, UPQ_STAT_ORDER_BYTES);
    TU_CHECK_INT(cmp_of(&F.out.min, &F.out.max), -1);

    tu_case("an unknown column order; min == max still usable");
    setup(UPQ_TYPE_BYTE_ARRAY, 0, -1, NULL, CO_UNKNOWN, NULL);
    bounds(0, lo8, 1, hi8, 2);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_COLUMN_ORDER);
    TU_CHECK(!F.out.has_min && !F.out.has_max);
    setup(UPQ_TYPE_BYTE_ARRAY, 0, -1, NULL, CO_UNKNOWN, NULL);
    bounds(0, hi8, 2, hi8, 2);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_OK);
    TU_CHECK(F.out.has_min && F.out.has_max);
}

static void test_no_order(void)
{
    static const uint8_t d1[12] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0x8C, 0x3D, 0x25, 0};
    static const uint8_t d2[12] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0, 0, 0x8D, 0x3D, 0x25, 0};
    static const uint8_t d3[12] = {0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0, 0, 0x8D, 0x3D, 0x25, 0};
    upq_stat_value a, b;

    tu_case("INT96 under TYPE_ORDER: no order");
    setup(UPQ_TYPE_INT96, 0, -1, NULL, CO_TYPE, NULL);
    bounds(0, d1, 12, d2, 12);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_NO_ORDER);
    TU_CHECK(!F.out.has_min && !F.out.has_max);
    setup(UPQ_TYPE_INT96, 0, -1, NULL, CO_NONE, NULL);
    bounds(1, d1, 12, d1, 12);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_NO_ORDER);

    tu_case("INT96 under INT96_TIMESTAMP_ORDER: days, then nanoseconds");
    setup(UPQ_TYPE_INT96, 0, -1, NULL, CO_INT96, NULL);
    bounds(0, d1, 12, d3, 12);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_OK);
    TU_CHECK_INT(F.out.order, UPQ_STAT_ORDER_INT96);
    TU_CHECK_INT(cmp_of(&F.out.min, &F.out.max), -1);
    TU_CHECK_STATUS(upq_stats_decode_value(UPQ_STAT_ORDER_INT96, 0, d2, 12, 0, &a), UPQ_OK);
    TU_CHECK_STATUS(upq_stats_decode_value(UPQ_STAT_ORDER_INT96, 0, d1, 12, 0, &b), UPQ_OK);
    TU_CHECK_INT(cmp_of(&a, &b), 1); /* later day, fewer nanoseconds */
    TU_CHECK_STATUS(upq_stats_decode_value(UPQ_STAT_ORDER_INT96, 0, d3, 12, 0, &b), UPQ_OK);
    TU_CHECK_INT(cmp_of(&a, &b), -1);
    /* INT96_TIMESTAMP_ORDER on another type */
    setup(UPQ_TYPE_INT64, 0, -1, NULL, CO_INT96, NULL);
    TU_CHECK_INT(upq_stats_column_order(&F.m, &F.s, 0, NULL, NULL), UPQ_STAT_ORDER_NONE);

    tu_case("INTERVAL: no order");
    setup(UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 12, UPQ_CONVERTED_INTERVAL, NULL, CO_TYPE, NULL);
    bounds(0, d1, 12, d2, 12);
    decode();
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_NO_ORDER);
    TU_CHECK_STATUS(upq_stats_decode_value(UPQ_STAT_ORDER_NONE, 0, d1, 12, 0, &a),
                    UPQ_ERR_UNSUPPORTED);

    tu_case("a column outside the schema");
    setup(UPQ_TYPE_INT32, 0, -1, NULL, CO_TYPE, NULL);
    upq_stats_decode(&F.m, &F.s, 5, &F.st, &F.out);
    TU_CHECK_INT(F.out.why, UPQ_STAT_WHY_NO_ORDER);
    TU_CHECK(*upq_stat_why_name(F.out.why) && *upq_stat_order_name(99));
    {
        uint8_t why = 0;
        unsigned flags = 7;
        TU_CHECK_INT(upq_stats_column_order(&F.m, &F.s, 5, &flags, &why), UPQ_STAT_ORDER_NONE);
        TU_CHECK_INT(why, UPQ_STAT_WHY_NO_ORDER);
        TU_CHECK_INT(flags, 0);
    }
}

int main(void)
{
    test_ints();
    test_bool();
    test_floats();
    test_decimals();
    test_bytes();
    test_no_order();
    return tu_summary();
}
