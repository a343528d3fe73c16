/*
 * `upq meta`: the footer in a stable, line-oriented layout. One "key: value"
 * per line, nested items indented by two spaces; optional fields that are
 * absent are left out. Statistics are decoded by the column's type.
 */
#include "upq.h"
#include "uparquet/page_index.h"

#include <inttypes.h>
#include <string.h>

/* Key-value metadata values longer than this are cut, with "..." after. */
#define KV_VALUE_MAX 200u

static void print_escaped(FILE *out, const uint8_t *p, size_t n)
{
    strbuf sb;
    sb_init(&sb);
    fmt_escaped(&sb, p, n);
    fwrite(sb_str(&sb), 1, sb.len, out);
    sb_free(&sb);
}

static void print_kv_list(FILE *out, const upq_key_value_list *kv, const char *indent)
{
    uint32_t i;
    for (i = 0; i < kv->n; i++) {
        const upq_key_value *e = &kv->v[i];
        fputs(indent, out);
        print_escaped(out, e->key.ptr, e->key.len);
        if (!UPQ_ISSET(*e, UPQ_KEY_VALUE_VALUE)) {
            fputs(" (no value)\n", out);
            continue;
        }
        fputs(" = ", out);
        if (e->value.len > KV_VALUE_MAX) {
            size_t cut = KV_VALUE_MAX;
            /* do not split a UTF-8 sequence */
            while (cut > KV_VALUE_MAX - 3 && (e->value.ptr[cut] & 0xC0u) == 0x80u)
                cut--;
            print_escaped(out, e->value.ptr, cut);
            fputs("...", out);
        } else {
            print_escaped(out, e->value.ptr, e->value.len);
        }
        fputc('\n', out);
    }
}

const char *column_order_name(const upq_column_order *o)
{
    if (o->isset == (1u << UPQ_COLUMN_ORDER_TYPE_ORDER))
        return "TYPE_ORDER";
    if (o->isset == (1u << UPQ_COLUMN_ORDER_IEEE_754_TOTAL_ORDER))
        return "IEEE_754_TOTAL_ORDER";
    if (o->isset == (1u << UPQ_COLUMN_ORDER_INT96_TIMESTAMP_ORDER))
        return "INT96_TIMESTAMP_ORDER";
    return "UNKNOWN";
}

/* Dotted path of leaf `col`, or "#col" when there is no such leaf. */
static void leaf_path(strbuf *sb, const upq_schema *s, uint32_t col)
{
    if (col < s->num_columns)
        fmt_node_path(sb, s, s->columns[col].node);
    else
        sb_printf(sb, "#%" PRIu32, col);
}

static void print_value_line(FILE *out, const char *key, const value_kind *k, const upq_bytes *b)
{
    strbuf sb;
    sb_init(&sb);
    value_render(&sb, k, b->ptr, b->len, 0);
    fprintf(out, "      %s: %s\n", key, sb_str(&sb));
    sb_free(&sb);
}

static void print_statistics(FILE *out, const upq_statistics *st, const value_kind *k)
{
    fputs("    statistics:\n", out);
    if (UPQ_ISSET(*st, UPQ_STATISTICS_MIN_VALUE))
        print_value_line(out, "min_value", k, &st->min_value);
    if (UPQ_ISSET(*st, UPQ_STATISTICS_MAX_VALUE))
        print_value_line(out, "max_value", k, &st->max_value);
    if (UPQ_ISSET(*st, UPQ_STATISTICS_MIN))
        print_value_line(out, "min", k, &st->min);
    if (UPQ_ISSET(*st, UPQ_STATISTICS_MAX))
        print_value_line(out, "max", k, &st->max);
    if (UPQ_ISSET(*st, UPQ_STATISTICS_NULL_COUNT))
        fprintf(out, "      null_count: %" PRId64 "\n", st->null_count);
    if (UPQ_ISSET(*st, UPQ_STATISTICS_DISTINCT_COUNT))
        fprintf(out, "      distinct_count: %" PRId64 "\n", st->distinct_count);
    if (UPQ_ISSET(*st, UPQ_STATISTICS_NAN_COUNT))
        fprintf(out, "      nan_count: %" PRId64 "\n", st->nan_count);
    if (UPQ_ISSET(*st, UPQ_STATISTICS_IS_MIN_VALUE_EXACT))
        fprintf(out, "      is_min_value_exact: %s\n", st->is_min_value_exact ? "true" : "false");
    if (UPQ_ISSET(*st, UPQ_STATISTICS_IS_MAX_VALUE_EXACT))
        fprintf(out, "      is_max_value_exact: %s\n", st->is_max_value_exact ? "true" : "false");
}

static void print_typed_bound(FILE *out, const char *key, int has, const value_kind *k,
                              const upq_stat_value *v)
{
    strbuf sb;
    if (!has)
        return;
    sb_init(&sb);
    stat_value_render(&sb, k, v, 0);
    fprintf(out, "      %s: %s%s\n", key, sb_str(&sb),
            v->exact > 0 ? " (exact)" : v->exact == 0 ? " (a bound, not exact)" : "");
    sb_free(&sb);
}

/* The statistics as a reader takes them (uparquet/stats.h). */
static void print_typed_statistics(FILE *out, const upq_file_metadata *fm, const upq_schema *s,
                                   uint32_t col, const upq_statistics *st, const value_kind *k)
{
    upq_column_stats cs;
    upq_stats_decode(fm, s, col, st, &cs);
    fprintf(out, "    typed statistics: order %s%s, ", upq_stat_order_name(cs.order),
            cs.total_order ? " (IEEE 754 total order)" : "");
    if (cs.has_min || cs.has_max)
        fprintf(out, "usable for pruning%s\n", cs.deprecated ? " (from the deprecated min/max)" : "");
    else
        fprintf(out, "min/max not usable: %s\n", upq_stat_why_name(cs.why));
    print_typed_bound(out, "min", cs.has_min, k, &cs.min);
    print_typed_bound(out, "max", cs.has_max, k, &cs.max);
}

static void print_histogram(FILE *out, const char *key, const upq_i64_list *l)
{
    uint32_t i;
    fprintf(out, "    %s:", key);
    for (i = 0; i < l->n; i++)
        fprintf(out, " %" PRId64, l->v[i]);
    fputc('\n', out);
}

static void print_geospatial(FILE *out, const upq_geospatial_statistics *g)
{
    uint32_t i;
    if (UPQ_ISSET(*g, UPQ_GEOSPATIAL_STATISTICS_BBOX)) {
        const upq_bounding_box *b = &g->bbox;
        strbuf sb;
        sb_init(&sb);
        sb_adds(&sb, "x ");
        fmt_double(&sb, b->xmin);
        sb_adds(&sb, "..");
        fmt_double(&sb, b->xmax);
        sb_adds(&sb, ", y ");
        fmt_double(&sb, b->ymin);
        sb_adds(&sb, "..");
        fmt_double(&sb, b->ymax);
        if (UPQ_ISSET(*b, UPQ_BOUNDING_BOX_ZMIN) || UPQ_ISSET(*b, UPQ_BOUNDING_BOX_ZMAX)) {
            sb_adds(&sb, ", z ");
            fmt_double(&sb, b->zmin);
            sb_adds(&sb, "..");
            fmt_double(&sb, b->zmax);
        }
        if (UPQ_ISSET(*b, UPQ_BOUNDING_BOX_MMIN) || UPQ_ISSET(*b, UPQ_BOUNDING_BOX_MMAX)) {
            sb_adds(&sb, ", m ");
            fmt_double(&sb, b->mmin);
            sb_adds(&sb, "..");
            fmt_double(&sb, b->mmax);
        }
        fprintf(out, "    geospatial_bbox: %s\n", sb_str(&sb));
        sb_free(&sb);
    }
    if (UPQ_ISSET(*g, UPQ_GEOSPATIAL_STATISTICS_GEOSPATIAL_TYPES)) {
        fputs("    geospatial_types:", out);
        for (i = 0; i < g->geospatial_types.n; i++)
            fprintf(out, "%s %" PRId32, i ? "," : "", g->geospatial_types.v[i]);
        fputc('\n', out);
    }
}

static void print_chunk(FILE *out, const upq_file_metadata *fm, const upq_schema *s, uint32_t col,
                        const upq_column_chunk *ch)
{
    const upq_column_metadata *m = &ch->meta_data;
    int has_meta = UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_META_DATA) != 0;
    char buf[32];
    uint32_t i;
    strbuf sb;

    sb_init(&sb);
    if (has_meta && m->path_in_schema.n > 0) {
        for (i = 0; i < m->path_in_schema.n; i++) {
            if (i)
                sb_addc(&sb, '.');
            sb_add(&sb, m->path_in_schema.v[i].ptr, m->path_in_schema.v[i].len);
        }
    } else {
        leaf_path(&sb, s, col);
    }
    fprintf(out, "  column %" PRIu32 ": %s\n", col, sb_str(&sb));
    sb_free(&sb);

    if (UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_CRYPTO_METADATA))
        fprintf(out, "    encryption: %s\n",
                UPQ_ISSET(ch->crypto_metadata,
                          UPQ_COLUMN_CRYPTO_METADATA_ENCRYPTION_WITH_COLUMN_KEY)
                    ? "column key"
                    : "footer key");
    if (UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_CRYPTO_METADATA) &&
        UPQ_ISSET(ch->crypto_metadata, UPQ_COLUMN_CRYPTO_METADATA_ENCRYPTION_WITH_COLUMN_KEY)) {
        const upq_encryption_with_column_key *ck = &ch->crypto_metadata.u.encryption_with_column_key;
        if (UPQ_ISSET(*ck, UPQ_ENCRYPTION_WITH_COLUMN_KEY_KEY_METADATA)) {
            /* a key id, or key-tools key material (JSON) */
            strbuf km;
            sb_init(&km);
            fmt_quoted(&km, ck->key_metadata.ptr, ck->key_metadata.len);
            fprintf(out, "    key_metadata: %s\n", sb_str(&km));
            sb_free(&km);
        }
    }
    if (UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_ENCRYPTED_COLUMN_METADATA))
        fprintf(out, "    encrypted_column_metadata: %" PRIu32 " bytes\n",
                ch->encrypted_column_metadata.len);
    if (!has_meta) {
        fputs("    meta_data: (absent)\n", out);
    } else {
        fprintf(out, "    type: %s\n", enum_name(upq_type_name(m->type), m->type, buf, sizeof buf));
        fputs("    encodings:", out);
        for (i = 0; i < m->encodings.n; i++)
            fprintf(out, "%s %s", i ? "," : "",
                    enum_name(upq_encoding_name(m->encodings.v[i]), m->encodings.v[i], buf,
                              sizeof buf));
        fputc('\n', out);
        fprintf(out, "    codec: %s\n", enum_name(upq_codec_name(m->codec), m->codec, buf, sizeof buf));
        fprintf(out, "    num_values: %" PRId64 "\n", m->num_values);
        fprintf(out, "    total_compressed_size: %" PRId64 "\n", m->total_compressed_size);
        fprintf(out, "    total_uncompressed_size: %" PRId64 "\n", m->total_uncompressed_size);
        fprintf(out, "    data_page_offset: %" PRId64 "\n", m->data_page_offset);
        if (UPQ_ISSET(*m, UPQ_COLUMN_METADATA_DICTIONARY_PAGE_OFFSET))
            fprintf(out, "    dictionary_page_offset: %" PRId64 "\n", m->dictionary_page_offset);
        if (UPQ_ISSET(*m, UPQ_COLUMN_METADATA_INDEX_PAGE_OFFSET))
            fprintf(out, "    index_page_offset: %" PRId64 "\n", m->index_page_offset);
        if (UPQ_ISSET(*m, UPQ_COLUMN_METADATA_BLOOM_FILTER_OFFSET))
            fprintf(out, "    bloom_filter_offset: %" PRId64 "\n", m->bloom_filter_offset);
        if (UPQ_ISSET(*m, UPQ_COLUMN_METADATA_BLOOM_FILTER_LENGTH))
            fprintf(out, "    bloom_filter_length: %" PRId32 "\n", m->bloom_filter_length);
    }
    if (UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_FILE_PATH)) {
        sb_init(&sb);
        fmt_quoted(&sb, ch->file_path.ptr, ch->file_path.len);
        fprintf(out, "    file_path: %s\n", sb_str(&sb));
        sb_free(&sb);
    }
    if (UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_FILE_OFFSET))
        fprintf(out, "    file_offset: %" PRId64 "\n", ch->file_offset);
    if (UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_COLUMN_INDEX_OFFSET))
        fprintf(out, "    column_index_offset: %" PRId64 "\n", ch->column_index_offset);
    if (UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_COLUMN_INDEX_LENGTH))
        fprintf(out, "    column_index_length: %" PRId32 "\n", ch->column_index_length);
    if (UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_OFFSET_INDEX_OFFSET))
        fprintf(out, "    offset_index_offset: %" PRId64 "\n", ch->offset_index_offset);
    if (UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_OFFSET_INDEX_LENGTH))
        fprintf(out, "    offset_index_length: %" PRId32 "\n", ch->offset_index_length);
    if (!has_meta)
        return;
    if (UPQ_ISSET(*m, UPQ_COLUMN_METADATA_KEY_VALUE_METADATA)) {
        fputs("    key_value_metadata:\n", out);
        print_kv_list(out, &m->key_value_metadata, "      ");
    }
    if (UPQ_ISSET(*m, UPQ_COLUMN_METADATA_ENCODING_STATS)) {
        fputs("    encoding_stats:", out);
        for (i = 0; i < m->encoding_stats.n; i++) {
            const upq_page_encoding_stats *es = &m->encoding_stats.v[i];
            char b2[32];
            fprintf(out, "%s %s %s x%" PRId32, i ? "," : "",
                    enum_name(upq_page_type_name(es->page_type), es->page_type, buf, sizeof buf),
                    enum_name(upq_encoding_name(es->encoding), es->encoding, b2, sizeof b2),
                    es->count);
        }
        fputc('\n', out);
    }
    if (UPQ_ISSET(*m, UPQ_COLUMN_METADATA_STATISTICS)) {
        value_kind k;
        value_kind_for(&k, s, col, m->type);
        print_statistics(out, &m->statistics, &k);
        print_typed_statistics(out, fm, s, col, &m->statistics, &k);
    }
    if (UPQ_ISSET(*m, UPQ_COLUMN_METADATA_SIZE_STATISTICS)) {
        const upq_size_statistics *ss = &m->size_statistics;
        if (UPQ_ISSET(*ss, UPQ_SIZE_STATISTICS_UNENCODED_BYTE_ARRAY_DATA_BYTES))
            fprintf(out, "    unencoded_byte_array_data_bytes: %" PRId64 "\n",
                    ss->unencoded_byte_array_data_bytes);
        if (UPQ_ISSET(*ss, UPQ_SIZE_STATISTICS_REPETITION_LEVEL_HISTOGRAM))
            print_histogram(out, "repetition_level_histogram", &ss->repetition_level_histogram);
        if (UPQ_ISSET(*ss, UPQ_SIZE_STATISTICS_DEFINITION_LEVEL_HISTOGRAM))
            print_histogram(out, "definition_level_histogram", &ss->definition_level_histogram);
    }
    if (UPQ_ISSET(*m, UPQ_COLUMN_METADATA_GEOSPATIAL_STATISTICS))
        print_geospatial(out, &m->geospatial_statistics);
}

/* --page-index: the reader the chunks' page indexes are read through, and
 * whether one failed (the command then exits 1). */
static upq_reader *pi_reader;
static int pi_failed;

/* Loads one structure of chunk (g, col); 1 when loaded, 0 when the chunk
 * has none, -1 on an error (reported). */
static int load_index(FILE *out, upq_page_index *p, uint32_t g, uint32_t col, upq_page_index_kind kind,
                      const char *path)
{
    upq_status st = upq_page_index_open(p, pi_reader, g, col, kind);
    if (st == UPQ_DONE)
        return 0;
    if (st == UPQ_OK) {
        do
            st = upq_page_index_load(p);
        while (st == UPQ_AGAIN);
    }
    if (st == UPQ_OK)
        return 1;
    fflush(out);
    tool_report(path, upq_reader_error(pi_reader));
    pi_failed = 1;
    return -1;
}

/* Each page of the chunk: where it is, its first row, and its ColumnIndex
 * entries decoded in the column's order (null pages, null counts, min/max). */
static void print_page_index(FILE *out, const upq_file_metadata *fm, const upq_schema *s,
                             uint32_t g, uint32_t col, int32_t type, const char *path)
{
    upq_page_index oi, ci;
    const upq_offset_index *o;
    const upq_column_index *c = NULL;
    value_kind k;
    unsigned flags = 0;
    uint8_t why = 0;
    int order, has_ci = 0, r;
    uint32_t i;

    r = load_index(out, &oi, g, col, UPQ_PAGE_INDEX_OFFSET, path);
    if (r <= 0) {
        if (r == 0)
            fputs("    page index: none\n", out);
        return;
    }
    o = upq_page_index_offsets(&oi);
    r = load_index(out, &ci, g, col, UPQ_PAGE_INDEX_COLUMN, path);
    if (r > 0) {
        c = upq_page_index_columns(&ci);
        has_ci = 1;
    }
    value_kind_for(&k, s, col, type);
    order = upq_stats_column_order(fm, s, col, &flags, &why);
    fprintf(out, "    page index: %" PRIu32 " pages%s", o->page_locations.n,
            c ? "" : " (no ColumnIndex)");
    if (c)
        fprintf(out, ", boundary_order %s", c->boundary_order == 1 ? "ASCENDING"
                                            : c->boundary_order == 2 ? "DESCENDING" : "UNORDERED");
    fputc('\n', out);
    for (i = 0; i < o->page_locations.n; i++) {
        const upq_page_location *pl = &o->page_locations.v[i];
        fprintf(out, "      page %" PRIu32 ": offset %" PRId64 ", %" PRId32 " bytes, first row %" PRId64,
                i, pl->offset, pl->compressed_page_size, pl->first_row_index);
        if (c && i < c->null_pages.n && c->null_pages.v[i]) {
            fputs(", only nulls", out);
        } else if (c && i < c->min_values.n && i < c->max_values.n) {
            int b;
            for (b = 0; b < 2; b++) {
                const upq_bytes *raw = b ? &c->max_values.v[i] : &c->min_values.v[i];
                upq_stat_value v;
                strbuf sb;
                sb_init(&sb);
                if (order != UPQ_STAT_ORDER_NONE &&
                    upq_stats_decode_value(order, s->columns[col].type_length, raw->ptr, raw->len,
                                           flags | (b ? UPQ_STAT_AS_MAX : UPQ_STAT_AS_MIN), &v) == UPQ_OK)
                    stat_value_render(&sb, &k, &v, 0);
                else
                    sb_adds(&sb, "(not decoded)");
                fprintf(out, ", %s %s", b ? "max" : "min", sb_str(&sb));
                sb_free(&sb);
            }
        }
        if (c && UPQ_ISSET(*c, UPQ_COLUMN_INDEX_NULL_COUNTS) && i < c->null_counts.n)
            fprintf(out, ", %" PRId64 " nulls", c->null_counts.v[i]);
        if (i < o->unencoded_byte_array_data_bytes.n)
            fprintf(out, ", %" PRId64 " unencoded bytes", o->unencoded_byte_array_data_bytes.v[i]);
        fputc('\n', out);
    }
    if (has_ci)
        upq_page_index_close(&ci);
    upq_page_index_close(&oi);
}

static const char *pi_path;

static void print_row_group(FILE *out, const upq_file_metadata *fm, const upq_schema *s, uint32_t g,
                            const upq_row_group *rg)
{
    uint32_t i;
    fprintf(out, "row_group %" PRIu32 ":\n", g);
    fprintf(out, "  num_rows: %" PRId64 "\n", rg->num_rows);
    fprintf(out, "  total_byte_size: %" PRId64 "\n", rg->total_byte_size);
    if (UPQ_ISSET(*rg, UPQ_ROW_GROUP_TOTAL_COMPRESSED_SIZE))
        fprintf(out, "  total_compressed_size: %" PRId64 "\n", rg->total_compressed_size);
    if (UPQ_ISSET(*rg, UPQ_ROW_GROUP_FILE_OFFSET))
        fprintf(out, "  file_offset: %" PRId64 "\n", rg->file_offset);
    if (UPQ_ISSET(*rg, UPQ_ROW_GROUP_ORDINAL))
        fprintf(out, "  ordinal: %d\n", (int)rg->ordinal);
    if (UPQ_ISSET(*rg, UPQ_ROW_GROUP_SORTING_COLUMNS)) {
        fputs("  sorting_columns:", out);
        for (i = 0; i < rg->sorting_columns.n; i++) {
            const upq_sorting_column *sc = &rg->sorting_columns.v[i];
            strbuf sb;
            sb_init(&sb);
            if (sc->column_idx >= 0)
                leaf_path(&sb, s, (uint32_t)sc->column_idx);
            else
                sb_printf(&sb, "#%" PRId32, sc->column_idx);
            fprintf(out, "%s %s %s %s", i ? "," : "", sb_str(&sb),
                    sc->descending ? "DESC" : "ASC",
                    sc->nulls_first ? "NULLS_FIRST" : "NULLS_LAST");
            sb_free(&sb);
        }
        fputc('\n', out);
    }
    for (i = 0; i < rg->columns.n; i++) {
        print_chunk(out, fm, s, i, &rg->columns.v[i]);
        if (pi_reader)
            print_page_index(out, fm, s, g, i, rg->columns.v[i].meta_data.type, pi_path);
    }
}

int cmd_meta_text(tool_file *tf, FILE *out)
{
    const upq_file_metadata *m = upq_reader_metadata(tf->reader);
    const upq_schema *s = upq_reader_schema(tf->reader);
    uint32_t i;

    fputs("file: ", out);
    print_escaped(out, (const uint8_t *)tf->path, strlen(tf->path));
    fputc('\n', out);
    fprintf(out, "file_size: %" PRIu64 "\n", tf->io.size);
    fprintf(out, "footer_length: %" PRIu32 "\n", upq_reader_footer_length(tf->reader));
    fprintf(out, "version: %" PRId32 "\n", m->version);
    fputs("created_by: ", out);
    if (UPQ_ISSET(*m, UPQ_FILE_METADATA_CREATED_BY))
        print_escaped(out, m->created_by.ptr, m->created_by.len);
    else
        fputs("(none)", out);
    fputc('\n', out);
    fprintf(out, "num_rows: %" PRId64 "\n", m->num_rows);
    if (UPQ_ISSET(*m, UPQ_FILE_METADATA_KEY_VALUE_METADATA)) {
        fprintf(out, "key_value_metadata: %" PRIu32 "\n", m->key_value_metadata.n);
        print_kv_list(out, &m->key_value_metadata, "  ");
    } else {
        fputs("key_value_metadata: (none)\n", out);
    }
    if (UPQ_ISSET(*m, UPQ_FILE_METADATA_COLUMN_ORDERS)) {
        fprintf(out, "column_orders: %" PRIu32 "\n", m->column_orders.n);
        for (i = 0; i < m->column_orders.n; i++) {
            strbuf sb;
            sb_init(&sb);
            leaf_path(&sb, s, i);
            fprintf(out, "  %s: %s\n", sb_str(&sb), column_order_name(&m->column_orders.v[i]));
            sb_free(&sb);
        }
    } else {
        fputs("column_orders: (none)\n", out);
    }
    if (UPQ_ISSET(*m, UPQ_FILE_METADATA_ENCRYPTION_ALGORITHM))
        fprintf(out, "encryption_algorithm: %s\n",
                UPQ_ISSET(m->encryption_algorithm, UPQ_ENCRYPTION_ALGORITHM_AES_GCM_V1) ? "AES_GCM_V1"
                : UPQ_ISSET(m->encryption_algorithm, UPQ_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1)
                    ? "AES_GCM_CTR_V1"
                    : "UNKNOWN");
    fprintf(out, "row_groups: %" PRIu32 "\n", m->row_groups.n);
    for (i = 0; i < m->row_groups.n; i++)
        print_row_group(out, m, s, i, &m->row_groups.v[i]);
    return pi_failed ? 1 : 0;
}

int cmd_meta(const tool_args *a)
{
    tool_file tf;
    int rc;
    if (tool_open(&tf, a->files[0], a) != 0)
        return 1;
    if (args_flag(a, "page-index") && !args_flag(a, "json")) {
        pi_reader = tf.reader;
        pi_path = a->files[0];
    }
    rc = args_flag(a, "json") ? cmd_meta_json(&tf, stdout) : cmd_meta_text(&tf, stdout);
    tool_close(&tf);
    return rc;
}
