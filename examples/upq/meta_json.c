/*
 * `upq meta --json`: the footer as one JSON object. The shape is fixed
 * (other tools compare against it): keys always appear, in this order, with
 * null for absent optional fields.
 *
 * Statistics values: integer columns without a date/time/decimal
 * annotation are JSON numbers (exact 64-bit, unsigned for unsigned
 * INTEGER annotations); everything else is a string holding the text
 * `upq meta` prints, except that string-annotated values are the raw string
 * itself (not quoted and C-escaped) under json.h's escaping rules.
 *
 * Each chunk also has typed_statistics, the statistics as a reader takes
 * them (uparquet/stats.h): order, usable, why, source ("min_value/max_value",
 * "min/max" or null), min and max (usable bounds only, in the same value
 * format; a float zero bound widened), min_hex/max_hex (byte-valued bounds),
 * min_exact/max_exact, total_order and the counts; and size_statistics.
 */
#include "upq.h"
#include "json.h"

#include <string.h>

static void key_i64(json_writer *w, const char *key, int present, int64_t v)
{
    json_key(w, key);
    if (present)
        json_int(w, v);
    else
        json_null(w);
}

static void key_enum(json_writer *w, const char *key, int present, const char *name, int32_t v)
{
    char buf[32];
    json_key(w, key);
    if (present)
        json_cstr(w, enum_name(name, v, buf, sizeof buf));
    else
        json_null(w);
}

static void key_bytes(json_writer *w, const char *key, int present, const upq_bytes *b)
{
    json_key(w, key);
    if (present)
        json_string(w, b->ptr, b->len);
    else
        json_null(w);
}

static void key_value(json_writer *w, const char *key, int present, const value_kind *k,
                      const upq_bytes *b)
{
    strbuf sb;
    int kind;
    json_key(w, key);
    if (!present) {
        json_null(w);
        return;
    }
    sb_init(&sb);
    kind = value_render(&sb, k, b->ptr, b->len, 1);
    if (kind == VAL_INT)
        json_number_text(w, sb_str(&sb));
    else
        json_string(w, sb.p ? sb.p : "", sb.len);
    sb_free(&sb);
}

static void key_bool(json_writer *w, const char *key, int present, int v)
{
    json_key(w, key);
    if (present)
        json_bool(w, v);
    else
        json_null(w);
}

void json_schema_entries(json_writer *w, const upq_schema_element *elems, uint32_t n,
                         const upq_schema *s)
{
    uint32_t i;
    json_key(w, "schema");
    json_array_begin(w);
    for (i = 0; i < n; i++) {
        const upq_schema_element *e = &elems[i];
        const upq_schema_node *nd = i < s->num_nodes ? &s->nodes[i] : NULL;
        strbuf sb;
        json_object_begin(w);
        key_bytes(w, "name", 1, &e->name);
        sb_init(&sb);
        if (nd)
            fmt_node_path(&sb, s, i);
        json_key(w, "path");
        json_string(w, sb.p ? sb.p : "", sb.len);
        key_enum(w, "type", UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_TYPE), upq_type_name(e->type),
                 e->type);
        key_i64(w, "type_length", UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_TYPE_LENGTH), e->type_length);
        key_enum(w, "repetition", UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_REPETITION_TYPE),
                 upq_repetition_name(e->repetition_type), e->repetition_type);
        key_i64(w, "num_children", UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_NUM_CHILDREN),
                e->num_children);
        key_enum(w, "converted_type", UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_CONVERTED_TYPE),
                 upq_converted_type_name(e->converted_type), e->converted_type);
        sb_reset(&sb);
        json_key(w, "logical_type");
        if (UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_LOGICAL_TYPE) && fmt_logical_type(&sb, &e->logical_type))
            json_string(w, sb.p, sb.len);
        else
            json_null(w);
        sb_free(&sb);
        key_i64(w, "scale", UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_SCALE), e->scale);
        key_i64(w, "precision", UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_PRECISION), e->precision);
        key_i64(w, "field_id", UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_FIELD_ID), e->field_id);
        key_i64(w, "max_definition_level", 1, nd ? nd->max_def : 0);
        key_i64(w, "max_repetition_level", 1, nd ? nd->max_rep : 0);
        json_object_end(w);
    }
    json_array_end(w);
}

static void write_statistics(json_writer *w, const upq_statistics *st, const value_kind *k)
{
    json_object_begin(w);
    key_i64(w, "null_count", UPQ_ISSET(*st, UPQ_STATISTICS_NULL_COUNT), st->null_count);
    key_i64(w, "distinct_count", UPQ_ISSET(*st, UPQ_STATISTICS_DISTINCT_COUNT),
            st->distinct_count);
    key_value(w, "min_value", UPQ_ISSET(*st, UPQ_STATISTICS_MIN_VALUE), k, &st->min_value);
    key_value(w, "max_value", UPQ_ISSET(*st, UPQ_STATISTICS_MAX_VALUE), k, &st->max_value);
    key_value(w, "min", UPQ_ISSET(*st, UPQ_STATISTICS_MIN), k, &st->min);
    key_value(w, "max", UPQ_ISSET(*st, UPQ_STATISTICS_MAX), k, &st->max);
    key_bool(w, "is_min_value_exact", UPQ_ISSET(*st, UPQ_STATISTICS_IS_MIN_VALUE_EXACT),
             st->is_min_value_exact);
    key_bool(w, "is_max_value_exact", UPQ_ISSET(*st, UPQ_STATISTICS_IS_MAX_VALUE_EXACT),
             st->is_max_value_exact);
    key_i64(w, "nan_count", UPQ_ISSET(*st, UPQ_STATISTICS_NAN_COUNT), st->nan_count);
    json_object_end(w);
}

static void key_stat(json_writer *w, const char *key, int present, const value_kind *k,
                     const upq_stat_value *v)
{
    strbuf sb;
    json_key(w, key);
    if (!present) {
        json_null(w);
        return;
    }
    sb_init(&sb);
    if (stat_value_render(&sb, k, v, 1) == VAL_INT)
        json_number_text(w, sb_str(&sb));
    else
        json_string(w, sb.p ? sb.p : "", sb.len);
    sb_free(&sb);
}

/* A bound held as bytes (strings, binary, binary decimals, INT96) as hex:
 * the exact bytes, which the string rendering cannot always give back. */
static void key_hex(json_writer *w, const char *key, int present, const upq_stat_value *v)
{
    strbuf sb;
    uint32_t i;
    json_key(w, key);
    if (!present || !(v->kind == UPQ_STAT_BYTES || v->kind == UPQ_STAT_DECIMAL ||
                      v->kind == UPQ_STAT_INT96)) {
        json_null(w);
        return;
    }
    sb_init(&sb);
    for (i = 0; i < v->len; i++)
        sb_printf(&sb, "%02x", v->ptr[i]);
    json_string(w, sb.p ? sb.p : "", sb.len);
    sb_free(&sb);
}

static void key_i64_list(json_writer *w, const char *key, int present, const upq_i64_list *l)
{
    uint32_t i;
    json_key(w, key);
    if (!present) {
        json_null(w);
        return;
    }
    json_array_begin(w);
    for (i = 0; i < l->n; i++)
        json_int(w, l->v[i]);
    json_array_end(w);
}

/* The statistics as a reader takes them (uparquet/stats.h): typed bounds,
 * or why there are none. */
static void write_typed_statistics(json_writer *w, const upq_file_metadata *fm,
                                   const upq_schema *s, uint32_t col, const upq_statistics *st,
                                   const value_kind *k)
{
    upq_column_stats cs;
    upq_stats_decode(fm, s, col, st, &cs);
    json_object_begin(w);
    json_key(w, "order");
    json_cstr(w, upq_stat_order_name(cs.order));
    json_key(w, "usable");
    json_bool(w, cs.has_min || cs.has_max);
    json_key(w, "why");
    json_cstr(w, upq_stat_why_name(cs.why));
    json_key(w, "source");
    if (cs.why == UPQ_STAT_WHY_ABSENT && !cs.has_min && !cs.has_max &&
        !UPQ_ISSET(*st, UPQ_STATISTICS_MIN_VALUE) && !UPQ_ISSET(*st, UPQ_STATISTICS_MAX_VALUE) &&
        !UPQ_ISSET(*st, UPQ_STATISTICS_MIN) && !UPQ_ISSET(*st, UPQ_STATISTICS_MAX))
        json_null(w);
    else
        json_cstr(w, cs.deprecated ? "min/max" : "min_value/max_value");
    key_stat(w, "min", cs.has_min, k, &cs.min);
    key_stat(w, "max", cs.has_max, k, &cs.max);
    key_hex(w, "min_hex", cs.has_min, &cs.min);
    key_hex(w, "max_hex", cs.has_max, &cs.max);
    key_bool(w, "min_exact", cs.has_min && cs.min.exact >= 0, cs.min.exact > 0);
    key_bool(w, "max_exact", cs.has_max && cs.max.exact >= 0, cs.max.exact > 0);
    key_bool(w, "total_order", 1, cs.total_order);
    key_i64(w, "null_count", cs.has_null_count, cs.null_count);
    key_i64(w, "distinct_count", cs.has_distinct_count, cs.distinct_count);
    key_i64(w, "nan_count", cs.has_nan_count, cs.nan_count);
    json_object_end(w);
}

static void write_size_statistics(json_writer *w, const upq_size_statistics *ss)
{
    json_object_begin(w);
    key_i64(w, "unencoded_byte_array_data_bytes",
            UPQ_ISSET(*ss, UPQ_SIZE_STATISTICS_UNENCODED_BYTE_ARRAY_DATA_BYTES),
            ss->unencoded_byte_array_data_bytes);
    key_i64_list(w, "repetition_level_histogram",
                 UPQ_ISSET(*ss, UPQ_SIZE_STATISTICS_REPETITION_LEVEL_HISTOGRAM),
                 &ss->repetition_level_histogram);
    key_i64_list(w, "definition_level_histogram",
                 UPQ_ISSET(*ss, UPQ_SIZE_STATISTICS_DEFINITION_LEVEL_HISTOGRAM),
                 &ss->definition_level_histogram);
    json_object_end(w);
}

static void write_chunk(json_writer *w, const upq_file_metadata *fm, const upq_schema *s,
                        uint32_t col, const upq_column_chunk *ch)
{
    const upq_column_metadata *m = &ch->meta_data;
    int hm = UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_META_DATA) != 0;
    uint32_t i;
    strbuf sb;
    char buf[32];

    json_object_begin(w);
    sb_init(&sb);
    if (hm && m->path_in_schema.n > 0) {
        for (i = 0; i < m->path_in_schema.n; i++) {
            if (i)
                sb_addc(&sb, '.');
            sb_add(&sb, m->path_in_schema.v[i].ptr, m->path_in_schema.v[i].len);
        }
    } else if (col < s->num_columns) {
        fmt_node_path(&sb, s, s->columns[col].node);
    }
    json_key(w, "path");
    json_string(w, sb.p ? sb.p : "", sb.len);
    sb_free(&sb);
    key_enum(w, "type", hm, upq_type_name(m->type), m->type);
    json_key(w, "encodings");
    if (hm) {
        json_array_begin(w);
        for (i = 0; i < m->encodings.n; i++)
            json_cstr(w, enum_name(upq_encoding_name(m->encodings.v[i]), m->encodings.v[i], buf,
                                   sizeof buf));
        json_array_end(w);
    } else {
        json_null(w);
    }
    key_enum(w, "codec", hm, upq_codec_name(m->codec), m->codec);
    key_i64(w, "num_values", hm, m->num_values);
    key_i64(w, "total_uncompressed_size", hm, m->total_uncompressed_size);
    key_i64(w, "total_compressed_size", hm, m->total_compressed_size);
    key_i64(w, "data_page_offset", hm, m->data_page_offset);
    key_i64(w, "dictionary_page_offset",
            hm && UPQ_ISSET(*m, UPQ_COLUMN_METADATA_DICTIONARY_PAGE_OFFSET),
            m->dictionary_page_offset);
    key_i64(w, "index_page_offset", hm && UPQ_ISSET(*m, UPQ_COLUMN_METADATA_INDEX_PAGE_OFFSET),
            m->index_page_offset);
    /* file_offset has a Thrift default of 0, so it is never null */
    key_i64(w, "file_offset", 1, ch->file_offset);
    key_bytes(w, "file_path", UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_FILE_PATH), &ch->file_path);
    key_i64(w, "bloom_filter_offset",
            hm && UPQ_ISSET(*m, UPQ_COLUMN_METADATA_BLOOM_FILTER_OFFSET), m->bloom_filter_offset);
    key_i64(w, "bloom_filter_length",
            hm && UPQ_ISSET(*m, UPQ_COLUMN_METADATA_BLOOM_FILTER_LENGTH), m->bloom_filter_length);
    key_i64(w, "column_index_offset", UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_COLUMN_INDEX_OFFSET),
            ch->column_index_offset);
    key_i64(w, "column_index_length", UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_COLUMN_INDEX_LENGTH),
            ch->column_index_length);
    key_i64(w, "offset_index_offset", UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_OFFSET_INDEX_OFFSET),
            ch->offset_index_offset);
    key_i64(w, "offset_index_length", UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_OFFSET_INDEX_LENGTH),
            ch->offset_index_length);
    json_key(w, "statistics");
    if (hm && UPQ_ISSET(*m, UPQ_COLUMN_METADATA_STATISTICS)) {
        value_kind k;
        value_kind_for(&k, s, col, m->type);
        write_statistics(w, &m->statistics, &k);
    } else {
        json_null(w);
    }
    json_key(w, "typed_statistics");
    if (hm) {
        static const upq_statistics none;
        value_kind k;
        value_kind_for(&k, s, col, m->type);
        write_typed_statistics(w, fm, s, col,
                               UPQ_ISSET(*m, UPQ_COLUMN_METADATA_STATISTICS) ? &m->statistics : &none,
                               &k);
    } else {
        json_null(w);
    }
    json_key(w, "size_statistics");
    if (hm && UPQ_ISSET(*m, UPQ_COLUMN_METADATA_SIZE_STATISTICS))
        write_size_statistics(w, &m->size_statistics);
    else
        json_null(w);
    json_key(w, "encoding_stats");
    if (hm && UPQ_ISSET(*m, UPQ_COLUMN_METADATA_ENCODING_STATS)) {
        json_array_begin(w);
        for (i = 0; i < m->encoding_stats.n; i++) {
            const upq_page_encoding_stats *es = &m->encoding_stats.v[i];
            json_object_begin(w);
            key_enum(w, "page_type", 1, upq_page_type_name(es->page_type), es->page_type);
            key_enum(w, "encoding", 1, upq_encoding_name(es->encoding), es->encoding);
            key_i64(w, "count", 1, es->count);
            json_object_end(w);
        }
        json_array_end(w);
    } else {
        json_null(w);
    }
    json_object_end(w);
}

static void write_row_group(json_writer *w, const upq_file_metadata *fm, const upq_schema *s,
                            const upq_row_group *rg)
{
    uint32_t i;
    json_object_begin(w);
    key_i64(w, "num_rows", 1, rg->num_rows);
    key_i64(w, "total_byte_size", 1, rg->total_byte_size);
    key_i64(w, "total_compressed_size", UPQ_ISSET(*rg, UPQ_ROW_GROUP_TOTAL_COMPRESSED_SIZE),
            rg->total_compressed_size);
    key_i64(w, "file_offset", UPQ_ISSET(*rg, UPQ_ROW_GROUP_FILE_OFFSET), rg->file_offset);
    key_i64(w, "ordinal", UPQ_ISSET(*rg, UPQ_ROW_GROUP_ORDINAL), rg->ordinal);
    json_key(w, "columns");
    json_array_begin(w);
    for (i = 0; i < rg->columns.n; i++)
        write_chunk(w, fm, s, i, &rg->columns.v[i]);
    json_array_end(w);
    json_object_end(w);
}

int cmd_meta_json(tool_file *tf, FILE *out)
{
    const upq_file_metadata *m = upq_reader_metadata(tf->reader);
    const upq_schema *s = upq_reader_schema(tf->reader);
    json_writer w;
    uint32_t i;

    json_init(&w, out);
    json_object_begin(&w);
    json_key(&w, "file");
    json_cstr(&w, tf->path);
    json_key(&w, "file_size");
    json_uint(&w, tf->io.size);
    json_key(&w, "footer_length");
    json_uint(&w, upq_reader_footer_length(tf->reader));
    key_i64(&w, "version", 1, m->version);
    key_i64(&w, "num_rows", 1, m->num_rows);
    key_bytes(&w, "created_by", UPQ_ISSET(*m, UPQ_FILE_METADATA_CREATED_BY), &m->created_by);
    json_key(&w, "key_value_metadata");
    if (UPQ_ISSET(*m, UPQ_FILE_METADATA_KEY_VALUE_METADATA)) {
        json_array_begin(&w);
        for (i = 0; i < m->key_value_metadata.n; i++) {
            const upq_key_value *kv = &m->key_value_metadata.v[i];
            json_object_begin(&w);
            key_bytes(&w, "key", 1, &kv->key);
            key_bytes(&w, "value", UPQ_ISSET(*kv, UPQ_KEY_VALUE_VALUE), &kv->value);
            json_object_end(&w);
        }
        json_array_end(&w);
    } else {
        json_null(&w);
    }
    json_key(&w, "column_orders");
    if (UPQ_ISSET(*m, UPQ_FILE_METADATA_COLUMN_ORDERS)) {
        json_array_begin(&w);
        for (i = 0; i < m->column_orders.n; i++)
            json_cstr(&w, column_order_name(&m->column_orders.v[i]));
        json_array_end(&w);
    } else {
        json_null(&w);
    }
    json_schema_entries(&w, m->schema.v, m->schema.n, s);
    json_key(&w, "row_groups");
    json_array_begin(&w);
    for (i = 0; i < m->row_groups.n; i++)
        write_row_group(&w, m, s, &m->row_groups.v[i]);
    json_array_end(&w);
    json_object_end(&w);
    json_finish(&w);
    return 0;
}
