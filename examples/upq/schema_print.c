/*
 * `upq schema`: the schema in Parquet's message syntax, as parquet-java
 * prints it (MessageType.toString), so its parser and ours read it back:
 *
 *   message schema {
 *     optional int32 a (INTEGER(8,true)) = 3;
 *     optional group l (LIST) {
 *       repeated group list {
 *         optional int64 element;
 *       }
 *     }
 *   }
 *
 * The annotation is the LogicalType when there is one, else the legacy
 * ConvertedType; a field id follows as " = N". Names are printed as stored.
 */
#include "upq.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *enum_name(const char *name, int32_t v, char *buf, size_t cap)
{
    if (strcmp(name, "?") != 0)
        return name;
    snprintf(buf, cap, "UNKNOWN(%" PRId32 ")", v);
    return buf;
}

static const char *unit_text(const upq_time_unit *u)
{
    const char *n = upq_time_unit_name(u);
    return n[0] ? n : "UNKNOWN";
}

int fmt_logical_type(strbuf *sb, const upq_logical_type *lt)
{
    int kind = upq_logical_type_kind(lt);
    switch (kind) {
    case 0:
        return 0;
    case UPQ_LOGICAL_TYPE_DECIMAL:
        sb_printf(sb, "DECIMAL(%" PRId32 ",%" PRId32 ")", lt->u.decimal.precision,
                  lt->u.decimal.scale);
        break;
    case UPQ_LOGICAL_TYPE_TIME:
        sb_printf(sb, "TIME(%s,%s)", unit_text(&lt->u.time.unit),
                  lt->u.time.is_adjusted_to_utc ? "true" : "false");
        break;
    case UPQ_LOGICAL_TYPE_TIMESTAMP:
        sb_printf(sb, "TIMESTAMP(%s,%s)", unit_text(&lt->u.timestamp.unit),
                  lt->u.timestamp.is_adjusted_to_utc ? "true" : "false");
        break;
    case UPQ_LOGICAL_TYPE_INTEGER:
        sb_printf(sb, "INTEGER(%d,%s)", (int)lt->u.integer.bit_width,
                  lt->u.integer.is_signed ? "true" : "false");
        break;
    case UPQ_LOGICAL_TYPE_VARIANT:
        sb_adds(sb, "VARIANT");
        if (UPQ_ISSET(lt->u.variant, UPQ_VARIANT_TYPE_SPECIFICATION_VERSION))
            sb_printf(sb, "(%d)", (int)lt->u.variant.specification_version);
        break;
    case UPQ_LOGICAL_TYPE_GEOMETRY:
        sb_adds(sb, "GEOMETRY");
        if (UPQ_ISSET(lt->u.geometry, UPQ_GEOMETRY_TYPE_CRS)) {
            sb_addc(sb, '(');
            fmt_escaped(sb, lt->u.geometry.crs.ptr, lt->u.geometry.crs.len);
            sb_addc(sb, ')');
        }
        break;
    case UPQ_LOGICAL_TYPE_GEOGRAPHY: {
        const upq_geography_type *g = &lt->u.geography;
        int has_crs = UPQ_ISSET(*g, UPQ_GEOGRAPHY_TYPE_CRS) != 0;
        int has_alg = UPQ_ISSET(*g, UPQ_GEOGRAPHY_TYPE_ALGORITHM) != 0;
        char buf[32];
        sb_adds(sb, "GEOGRAPHY");
        if (!has_crs && !has_alg)
            break;
        sb_addc(sb, '(');
        if (has_crs)
            fmt_escaped(sb, g->crs.ptr, g->crs.len);
        else
            sb_adds(sb, "OGC:CRS84"); /* the default the format defines */
        if (has_alg)
            sb_printf(sb, ",%s",
                      enum_name(upq_edge_algorithm_name(g->algorithm), g->algorithm, buf,
                                sizeof buf));
        sb_addc(sb, ')');
        break;
    }
    default:
        sb_adds(sb, upq_logical_type_name(lt));
        break;
    }
    return 1;
}

int fmt_annotation(strbuf *sb, const upq_schema_element *e)
{
    char buf[32];
    if (UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_LOGICAL_TYPE) && fmt_logical_type(sb, &e->logical_type))
        return 1;
    if (!UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_CONVERTED_TYPE))
        return 0;
    if (e->converted_type == UPQ_CONVERTED_DECIMAL) {
        sb_printf(sb, "DECIMAL(%" PRId32 ",%" PRId32 ")",
                  UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_PRECISION) ? e->precision : 0,
                  UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_SCALE) ? e->scale : 0);
        return 1;
    }
    sb_adds(sb, enum_name(upq_converted_type_name(e->converted_type), e->converted_type, buf,
                          sizeof buf));
    return 1;
}

void fmt_node_path(strbuf *sb, const upq_schema *s, uint32_t node)
{
    size_t need = upq_schema_node_path(s, node, NULL, 0);
    char *buf;
    if (need == 0)
        return;
    buf = malloc(need);
    if (!buf) {
        fputs("upq: out of memory\n", stderr);
        exit(1);
    }
    upq_schema_node_path(s, node, buf, need);
    sb_add(sb, buf, need);
    free(buf);
}

static void lower(strbuf *sb, const char *s)
{
    for (; *s; s++)
        sb_addc(sb, (*s >= 'A' && *s <= 'Z') ? (char)(*s - 'A' + 'a') : *s);
}

/* One node's line, without the trailing ";" or " {". */
static void node_line(strbuf *sb, const upq_schema_node *nd)
{
    const upq_schema_element *e = nd->elem;
    char buf[32];
    unsigned i;
    for (i = 0; i < nd->depth; i++)
        sb_adds(sb, "  ");
    lower(sb, enum_name(upq_repetition_name(nd->repetition), nd->repetition, buf, sizeof buf));
    sb_addc(sb, ' ');
    if (nd->is_group) {
        sb_adds(sb, "group");
    } else {
        /* parquet-java calls BYTE_ARRAY "binary" in schema text */
        if (e->type == UPQ_TYPE_BYTE_ARRAY)
            sb_adds(sb, "binary");
        else
            lower(sb, enum_name(upq_type_name(e->type), e->type, buf, sizeof buf));
        if (e->type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY)
            sb_printf(sb, "(%" PRId32 ")", e->type_length);
    }
    sb_addc(sb, ' ');
    sb_add(sb, e->name.ptr, e->name.len);
    {
        size_t mark = sb->len;
        sb_adds(sb, " (");
        if (fmt_annotation(sb, e))
            sb_addc(sb, ')');
        else
            sb->len = mark, sb->p[mark] = '\0';
    }
    if (UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_FIELD_ID))
        sb_printf(sb, " = %" PRId32, e->field_id);
}

void print_schema(FILE *out, const upq_schema *s)
{
    /* Explicit stack of (group, next child); depth is bounded by the tree. */
    typedef struct frame {
        uint32_t node, next;
    } frame;
    frame *stack;
    uint32_t depth = 0;
    strbuf line;

    if (s->num_nodes == 0)
        return;
    stack = malloc(((size_t)s->num_nodes + 1) * sizeof *stack);
    if (!stack) {
        fputs("upq: out of memory\n", stderr);
        exit(1);
    }
    sb_init(&line);
    fputs("message ", out);
    fwrite(s->nodes[0].elem->name.ptr, 1, s->nodes[0].elem->name.len, out);
    fputs(" {\n", out);
    stack[depth].node = 0;
    stack[depth].next = 0;
    depth++;
    while (depth > 0) {
        frame *top = &stack[depth - 1];
        const upq_schema_node *g = &s->nodes[top->node];
        const upq_schema_node *nd;
        uint32_t child;
        if (top->next == g->num_children) {
            unsigned i;
            for (i = 0; i < g->depth; i++)
                fputs("  ", out);
            fputs("}\n", out);
            depth--;
            continue;
        }
        child = s->children[g->first_child + top->next++];
        nd = &s->nodes[child];
        sb_reset(&line);
        node_line(&line, nd);
        fwrite(line.p, 1, line.len, out);
        if (nd->is_group && depth <= s->num_nodes) {
            fputs(" {\n", out);
            stack[depth].node = child;
            stack[depth].next = 0;
            depth++;
        } else {
            fputs(";\n", out);
        }
    }
    sb_free(&line);
    free(stack);
}

int cmd_schema(const tool_args *a)
{
    tool_file tf;
    if (tool_open(&tf, a->files[0], a) != 0)
        return 1;
    print_schema(stdout, upq_reader_schema(tf.reader));
    tool_close(&tf);
    return 0;
}
