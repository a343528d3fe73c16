/*
 * upq — inspect Parquet files with µparquet.
 *
 * Commands live in one table; each names its own options, and the test
 * knobs (--chunk, --again, --arena) and --max-page (the reader's largest
 * page) work with every command, before or after its name.
 */
#define _POSIX_C_SOURCE 200809L

#include "upq.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct command {
    const char *name;
    int (*run)(const tool_args *a);
    const char *synopsis;
    const char *summary;
    const tool_optspec *opts; /* terminated by a NULL name */
    int min_files, max_files;
} command;

static const tool_optspec no_opts[] = {{NULL, 0}};
#define KEY_OPTS                                                                           \
    {"footer-key", 1}, {"column-key", 1}, {"aad-prefix", 1}, {"kms-key", 1}, {"key-material", 1}, \
        {"kms-instance-id", 1}, {"kms-instance-url", 1}
static const tool_optspec schema_opts[] = {KEY_OPTS, {NULL, 0}};
static const tool_optspec meta_opts[] = {{"json", 0}, {"page-index", 0}, KEY_OPTS, {NULL, 0}};
static const tool_optspec cat_opts[] = {{"json", 0}, {"raw", 0},   {"columns", 1}, {"head", 1},
                                        {"skip", 1}, {"batch", 1}, {"rows", 1},    {"io-stats", 0},
                                        {"no-page-index", 0},      {"where", 1},
                                        KEY_OPTS,                  {NULL, 0}};

static const tool_optspec bloom_opts[] = {KEY_OPTS, {NULL, 0}};
/* recover.c reads the keys of an encrypted checkpoint-mode file */
static const tool_optspec recover_opts[] = {KEY_OPTS, {NULL, 0}};

static const tool_optspec write_opts[] = {
    {"schema", 1},         {"codec", 1},          {"encoding", 1},       {"dictionary", 0},
    {"no-dictionary", 0},  {"page-size", 1},      {"chunk-size", 1},     {"dict-size", 1},
    {"row-group-size", 1}, {"row-group-rows", 1}, {"data-page-v2", 0},   {"no-crc", 0},
    {"no-statistics", 0},  {"no-page-index", 0},  {"checkpoint", 0},     {"stats-max-binary", 1},
    {"kv", 1},             {"sorting-column", 1}, {"schema-json", 0},    {"page-levels", 1},
    {"max-pages", 1},      {"footer-size", 1},    {"max-row-groups", 1}, {"bloom", 1}, {"direct", 0},
    {"bloom-max-bytes", 1}, {"shred", 1},   {"checkpoint-rows", 1}, {"append", 0},
    {"file-id", 1},         {"column-kv", 1}, {"column-order", 1}, KEY_OPTS,
    {"plaintext-footer", 0}, {"ctr", 0}, {"store-aad-prefix", 0}, {"no-store-aad-prefix", 0},
    {"footer-master-key", 1}, {"column-master-key", 1}, {"single-wrapping", 0},
    {"external-key-material", 0}, {NULL, 0}};

static int cmd_version(const tool_args *a);
static int cmd_help(const tool_args *a);

static const command commands[] = {
    {"schema", cmd_schema, "schema FILE", "print the schema in Parquet message syntax", schema_opts,
     1, 1},
    {"meta", cmd_meta, "meta [--json] [--page-index] FILE",
     "print the footer: row groups, column chunks, statistics", meta_opts, 1, 1},
    {"cat", cmd_cat,
     "cat [--json|--raw] [--columns a,b.c] [--where EXPR] [--head N] [--skip N] [--rows A:B]\n"
     "        [--io-stats] [--arena BYTES] FILE",
     "print the rows: a table, or JSON lines with --json", cat_opts, 1, 1},
    {"write", cmd_write, "write --schema SCHEMA [options] IN.jsonl OUT.parquet",
     "write JSON lines (as cat --json prints them) into a Parquet file", write_opts, 0, 2},
    {"recover", cmd_recover, "recover FILE [OUT]",
     "finish a checkpoint-mode file cut short at its last intact checkpoint (or a copy, OUT)",
     recover_opts, 1, 2},
    {"bloom", cmd_bloom, "bloom FILE COLUMN VALUE",
     "ask each row group's bloom filter of COLUMN about VALUE: absent or maybe", bloom_opts, 3, 3},
    {"variant", cmd_variant, "variant METADATA VALUE",
     "print a Variant value (its metadata and value bytes in two files) as JSON", no_opts, 2, 2},
    {"version", cmd_version, "version", "print the version", no_opts, 0, 0},
    {"help", cmd_help, "help", "print this help", no_opts, 0, 0},
};

#define NUM_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    size_t i;
    fputs("usage: upq COMMAND [OPTIONS] FILE\n\ncommands:\n", out);
    for (i = 0; i < NUM_COMMANDS; i++) {
        if (strlen(commands[i].synopsis) > 24) /* summary on the next line */
            fprintf(out, "  %s\n  %-24s %s\n", commands[i].synopsis, "", commands[i].summary);
        else
            fprintf(out, "  %-24s %s\n", commands[i].synopsis, commands[i].summary);
    }
    fputs("\noptions:\n"
          "  -h, --help               print this help\n"
          "  --version                print the version\n"
          "  --max-page N             reading: the largest uncompressed page accepted\n"
          "                           (default 256M; a larger one is refused as a limit)\n"
          "\nmeta options:\n"
          "  --page-index             each chunk's pages from its OffsetIndex and ColumnIndex:\n"
          "                           offset, size, first row, min/max in the column's order,\n"
          "                           null pages and counts (a malformed index: exit 1)\n"
          "\ncat options:\n"
          "  --columns a,b.c          print only these fields (dotted paths)\n"
          "  --head N, --skip N       print N rows / pass over the first N rows\n"
          "  --rows A:B               print rows A to B-1 (from 0, across row groups; A: or :B\n"
          "                           leave an end open); each column goes straight to the\n"
          "                           page holding row A through its OffsetIndex when the\n"
          "                           file has one, and scans page headers otherwise\n"
          "  --where EXPR             print only the rows where EXPR is true (SQL semantics,\n"
          "                           as DuckDB's WHERE), e.g.\n"
          "                             ts >= \"2024-06-01T00:00:00Z\" and dev in (\"a\",\"b\")\n"
          "                             and not (ch0 is null or ch0 > 1.5)\n"
          "                           comparisons = != <> < <= > >=, [NOT] IN (...), IS [NOT]\n"
          "                           NULL, AND, OR, NOT, parentheses; columns are dotted leaf\n"
          "                           paths (`odd name`.x in backquotes), not repeated; values\n"
          "                           are JSON as `upq write` reads them for that column (also\n"
          "                           nan, inf, -inf). Row groups and pages that cannot match\n"
          "                           are skipped (statistics, bloom filters, page index);\n"
          "                           --head/--skip count matching rows, --rows A:B limits the\n"
          "                           file rows first\n"
          "  --no-page-index          do not use page indexes (scan page headers)\n"
          "  --io-stats               print `io: N reads, M bytes` to stderr: every read_at\n"
          "                           call of the command, footer included (with --where also\n"
          "                           what was pruned)\n"
          "  --arena BYTES            read within exactly BYTES of memory (K, M suffixes), as a\n"
          "                           device would: row-group metadata is decoded one row group\n"
          "                           at a time when the whole footer would not leave room;\n"
          "                           too small: exit 1 with `upq: arena too small: N bytes needed`\n"
          "\nencrypted files (schema, meta, cat, bloom, recover, write):\n"
          "  --footer-key KEY         footer key (16, 24 or 32 bytes; also the key of columns\n"
          "                           encrypted with it): HEX, @FILE (raw bytes), text:STRING\n"
          "                           (its bytes) or base64:B64\n"
          "  --column-key PATH=KEY    key of column PATH (dotted); repeatable\n"
          "  --kms-key ID=KEY         key material (parquet-java key tools, Spark): master key ID\n"
          "                           of the local KMS (as parquet-java's InMemoryKMS); repeatable\n"
          "  --key-material FILE      the side file of external key material (default:\n"
          "                           _KEY_MATERIAL_FOR_<name>.json beside the Parquet file)\n"
          "  --footer-master-key ID   write: key material; the footer's DEK (--footer-key, else\n"
          "                           random) wrapped with master key ID\n"
          "  --column-master-key PATH=ID\n"
          "                           write: column PATH encrypted with its own DEK (--column-key,\n"
          "                           else random) wrapped with master key ID; repeatable\n"
          "  --single-wrapping        write: DEKs wrapped by the KMS itself (default: double\n"
          "                           wrapping, DEKs under a KEK the KMS wraps)\n"
          "  --external-key-material  write: key material in the side file, a reference in the\n"
          "                           file\n"
          "  --kms-instance-id ID, --kms-instance-url URL\n"
          "                           write: stored in the footer key's material (DEFAULT)\n"
          "  --aad-prefix STR         AAD prefix of a file that does not store it (write: the\n"
          "                           prefix to use; stored unless --no-store-aad-prefix)\n"
          "  --plaintext-footer       write: a signed plaintext footer (PAR1) instead of PARE\n"
          "  --ctr                    write: AES_GCM_CTR_V1 (pages in CTR) instead of AES_GCM_V1\n"
          "  --store-aad-prefix, --no-store-aad-prefix\n"
          "                           write: keep the AAD prefix in the file or not\n"
          "\nwrite options (sizes take K, M, G):\n"
          "  --schema FILE            the schema in message syntax, as `upq schema` prints it\n"
          , out);
    /* only what this build can compress: the others are refused at write */
    fputs("  --codec NAME             ", out);
    write_codec_list(out);
    fputs("\n"
          "                           (UNCOMPRESSED is the default; LZ4 means LZ4_RAW, and\n"
          "                           LZ4_HADOOP the deprecated Hadoop framing)\n"
          "  --encoding [COL=]ENC     value encoding of every column, or of column (or group)\n"
          "                           COL; repeatable, later ones win\n"
          "  --dictionary, --no-dictionary\n"
          "                           dictionary encoding on / off for every column\n"
          "  --page-size N            bytes of values per data page (at least the longest\n"
          "                           binary value + 4)\n"
          "  --page-levels N          level entries per data page (a row must fit in one)\n"
          "  --max-pages N            data pages per column chunk the page index can hold\n"
          "  --chunk-size N           per-column buffer of finished pages (default 1M)\n"
          "  --direct                 no chunk buffers: a row group per full page (least RAM)\n"
          "  --dict-size N            per-column dictionary budget\n"
          "  --row-group-size N       end a row group after N encoded bytes\n"
          "  --row-group-rows N       end a row group after N rows\n"
          "  --data-page-v2           write DATA_PAGE_V2 pages\n"
          "  --no-crc, --no-statistics, --no-page-index\n"
          "                           leave out page CRCs, statistics, the page index\n"
          "  --checkpoint             checkpoint mode: power-loss safe (a journal in the file,\n"
          "                           chunks written in place; `upq recover` finishes a cut\n"
          "                           file), a checkpoint at the end of each row group (default\n"
          "                           64K rows); --direct, --chunk-size, --max-pages,\n"
          "                           --footer-size and --max-row-groups do not apply\n"
          "  --checkpoint-rows N      a checkpoint every N rows as well (implies --checkpoint)\n"
          "  --append                 OUT exists: continue that checkpoint-mode file (cut short\n"
          "                           or closed) with the rows of IN; needs the --schema and\n"
          "                           options it was written with (implies --checkpoint)\n"
          "  --file-id N              checkpoint mode: the id that tells this file's journal\n"
          "                           from leftovers of another on a reused medium\n"
          "  --max-row-groups N       without checkpoints: row groups whose metadata the\n"
          "                           arena keeps (default: as many as 64M holds)\n"
          "  --footer-size N          ... or this many bytes for that metadata\n"
          "  --stats-max-binary N     longest binary min/max kept in statistics\n"
          "  --kv KEY=VALUE           key-value metadata (repeatable)\n"
          "  --column-order ieee754|type\n"
          "                           ieee754: FLOAT, DOUBLE and FLOAT16 columns in\n"
          "                           IEEE_754_TOTAL_ORDER (-0 < +0, NaN bounds only when a\n"
          "                           page or chunk holds nothing else); type (default):\n"
          "                           TYPE_ORDER\n"
          "  --column-kv COL:KEY=VALUE\n"
          "                           key-value metadata of column (or group) COL's chunks\n"
          "                           (ColumnMetaData key_value_metadata; repeatable)\n"
          "  --sorting-column COL[:desc][:nulls-first]\n"
          "                           declare a sort order (repeatable)\n"
          "  --bloom COL[:NDV[:FPP]]  a bloom filter for column (or group) COL sized for NDV\n"
          "                           distinct values per row group (default: the row group\n"
          "                           row limit, else 64K) at false-positive rate FPP\n"
          "                           (default 0.01); repeatable\n"
          "  --bloom-max-bytes N      largest bloom filter of one column chunk (default 1M)\n"
          "  --schema-json            only parse SCHEMA; print its elements as meta --json does\n"
          "  --shred COL=SPEC         shred VARIANT column COL as SPEC: a type (int8..int64,\n"
          "                           float, double, boolean, decimal(P,S), date, time,\n"
          "                           timestamp[_ntz][_nanos], string, binary, uuid), [SPEC]\n"
          "                           for a list, {name:SPEC,...} for object fields\n",
          out);
}

static int cmd_version(const tool_args *a)
{
    (void)a;
    printf("upq %s\n", UPQ_VERSION_STRING);
    return 0;
}

static int cmd_help(const tool_args *a)
{
    (void)a;
    usage(stdout);
    return 0;
}

static int usage_error(const char *fmt, const char *arg)
{
    fputs("upq: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\nTry 'upq --help'.\n", stderr);
    return 2;
}

/* ---- arguments ---------------------------------------------------------- */

int args_flag(const tool_args *a, const char *name)
{
    int i;
    for (i = 0; i < a->nopts; i++)
        if (strcmp(a->opt_name[i], name) == 0)
            return 1;
    return 0;
}

const char *args_value(const tool_args *a, const char *name)
{
    const char *v = NULL;
    int i;
    for (i = 0; i < a->nopts; i++)
        if (strcmp(a->opt_name[i], name) == 0)
            v = a->opt_value[i];
    return v;
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    unsigned long long v;
    if (!s || !*s || *s == '-')
        return 0;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (!errno && *end && !end[1]) { /* K, M, G: binary multiples, as device memory is sized */
        unsigned shift = (*end == 'K' || *end == 'k') ? 10 : (*end == 'M' || *end == 'm') ? 20
                         : (*end == 'G' || *end == 'g')                               ? 30 : 0;
        if (shift && v <= (ULLONG_MAX >> shift)) {
            v <<= shift;
            end++;
        }
    }
    if (errno || *end || v == 0 || v > (unsigned long long)SIZE_MAX)
        return 0;
    *out = (size_t)v;
    return 1;
}

/* Splits "--name=value" into name (copied into buf) and value. */
static const char *split_opt(const char *arg, char *buf, size_t cap, const char **value)
{
    const char *eq = strchr(arg, '=');
    size_t n;
    *value = NULL;
    if (!eq)
        return arg + 2;
    n = (size_t)(eq - (arg + 2));
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, arg + 2, n);
    buf[n] = '\0';
    *value = eq + 1;
    return buf;
}

/* Common options; returns 1 if `name` was one (consuming a value), 0 if
 * not, -1 on a usage error (already reported). */
static int common_option(tool_args *a, const char *name, const char *value, int *i, int argc,
                         char **argv)
{
    int wants = strcmp(name, "chunk") == 0 || strcmp(name, "arena") == 0 ||
                strcmp(name, "max-page") == 0;
    if (!wants && strcmp(name, "again") != 0)
        return 0;
    if (!wants) {
        if (value)
            return usage_error("--again takes no value%s", ""), -1;
        a->again = 1;
        return 1;
    }
    if (!value) {
        if (*i + 1 >= argc)
            return usage_error("--%s needs a value", name), -1;
        value = argv[++*i];
    }
    if (!parse_size(value, strcmp(name, "chunk") == 0   ? &a->chunk
                           : strcmp(name, "arena") == 0 ? &a->arena
                                                        : &a->max_page))
        return usage_error("bad number for --%s", name), -1;
    if (a->max_page > UINT32_MAX)
        return usage_error("--%s is at most 4G - 1", name), -1;
    return 1;
}

/* Parses argv[first..argc) for `cmd` (NULL: only common options, stopping
 * at the first non-option, whose index goes to *stop). */
static int parse_args(tool_args *a, const command *cmd, int first, int argc, char **argv,
                      int *stop)
{
    int i, only_files = 0;
    for (i = first; i < argc; i++) {
        const char *arg = argv[i], *name, *value;
        char buf[64];
        int r;
        size_t k;
        if (only_files || arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (!cmd) {
                *stop = i;
                return 0;
            }
            if (a->nfiles >= TOOL_MAX_FILES)
                return usage_error("too many files%s", "");
            a->files[a->nfiles++] = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_files = 1;
            continue;
        }
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            usage(stdout);
            exit(0);
        }
        if (!cmd && strcmp(arg, "--version") == 0) {
            cmd_version(a);
            exit(0);
        }
        if (arg[1] != '-')
            return usage_error("unknown option %s", arg);
        name = split_opt(arg, buf, sizeof buf, &value);
        r = common_option(a, name, value, &i, argc, argv);
        if (r < 0)
            return 2;
        if (r > 0)
            continue;
        if (!cmd)
            return usage_error("unknown option %s", arg);
        for (k = 0; cmd->opts[k].name; k++)
            if (strcmp(cmd->opts[k].name, name) == 0)
                break;
        if (!cmd->opts[k].name)
            return usage_error("unknown option %s", arg);
        if (cmd->opts[k].takes_value && !value) {
            if (i + 1 >= argc)
                return usage_error("%s needs a value", arg);
            value = argv[++i];
        } else if (!cmd->opts[k].takes_value && value) {
            return usage_error("%s takes no value", arg);
        }
        if (a->nopts >= TOOL_MAX_OPTS)
            return usage_error("too many options%s", "");
        a->opt_name[a->nopts] = cmd->opts[k].name;
        a->opt_value[a->nopts] = value;
        a->nopts++;
    }
    if (!cmd)
        *stop = argc;
    return 0;
}

/* ---- opening files ------------------------------------------------------ */

void tool_report(const char *path, const upq_error_info *e)
{
    fprintf(stderr, "upq: %s: %s (%s)", path, e->what ? e->what : "error", upq_strerror(e->status));
    if (e->offset != UINT64_MAX)
        fprintf(stderr, " at offset %" PRIu64, e->offset);
    if (e->in_struct) {
        fprintf(stderr, " in %s", e->in_struct);
        if (e->field)
            fprintf(stderr, ".%s", e->field);
        if (e->schema_element >= 0)
            fprintf(stderr, " #%" PRId32, e->schema_element);
    }
    if (e->row_group >= 0)
        fprintf(stderr, ", row group %" PRId32, e->row_group);
    if (e->column >= 0)
        fprintf(stderr, ", column %" PRId32, e->column);
    if (e->page >= 0)
        fprintf(stderr, ", page %" PRId32, e->page);
    if (e->status == UPQ_ERR_NOMEM && e->needed)
        fprintf(stderr, ": %" PRIu32 " bytes of arena needed", e->needed);
    else if (e->status == UPQ_ERR_LIMIT && e->needed)
        fprintf(stderr, ": %" PRIu32 " bytes", e->needed);
    fputc('\n', stderr);
}

/* ---- counted reads (upq cat --io-stats) ---------------------------------- */

uint64_t tool_io_reads, tool_io_bytes;

/* Every read_at call the library makes on an opened file, and its bytes. */
static upq_status counted_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    tool_file *tf = (tool_file *)ctx;
    upq_status st = tf->inner.read_at(tf->inner.ctx, off, buf, len, got);
    tool_io_reads++;
    if (st == UPQ_OK)
        tool_io_bytes += *got;
    return st;
}

#define DEFAULT_ARENA ((size_t)1 << 20)
/* After this many exact retries, grow at least geometrically so a footer
 * that keeps asking for a little more does not cost quadratic time. */
#define EXACT_RETRIES 8

int tool_open(tool_file *tf, const char *path, const tool_args *a)
{
    return tool_open_as(tf, path, path, a);
}

int tool_open_as(tool_file *tf, const char *path, const char *keys_path, const tool_args *a)
{
    size_t len = a->arena ? a->arena : DEFAULT_ARENA;
    int attempt;

    memset(tf, 0, sizeof *tf);
    tf->path = path;
    if (tool_keys_parse(&tf->keys, a) || tool_keys_for_file(&tf->keys, keys_path)) {
        tool_keys_free(&tf->keys);
        return 1;
    }
    if (upq_posix_open(&tf->pf, path) != UPQ_OK) {
        fprintf(stderr, "upq: %s: %s\n", path, strerror(errno));
        return 1;
    }
    tf->pf.max_read = a->chunk;
    tf->pf.again_alternate = a->again;
    upq_posix_io(&tf->pf, &tf->inner);
    tf->io = tf->inner;
    tf->io.ctx = tf;
    tf->io.read_at = counted_read_at;
    tf->reader = malloc(sizeof *tf->reader);
    if (!tf->reader) {
        fprintf(stderr, "upq: %s: out of memory\n", path);
        tool_close(tf);
        return 1;
    }
    for (attempt = 0;; attempt++) {
        upq_status st;
        size_t need;
        void *mem = realloc(tf->arena, len);
        if (!mem) {
            fprintf(stderr, "upq: %s: cannot allocate a %zu-byte arena\n", path, len);
            tool_close(tf);
            return 1;
        }
        tf->arena = mem;
        tf->arena_len = len;
        {
            upq_reader_opts ro;
            memset(&ro, 0, sizeof ro);
            ro.decrypt = &tf->keys.dec;
            ro.max_page_size = (uint32_t)a->max_page;
            ro.no_page_index = (uint8_t)args_flag(a, "no-page-index");
            ro.row_groups = a->row_groups;
            /* a host reads the footer in large pieces (a 256-byte window
             * costs about 2.6 reads per row group); --arena keeps the
             * default, as a device would */
            if (!a->arena_exact && !a->device_window)
                ro.io_window = 64u << 10;
            upq_reader_init(tf->reader, &tf->io, tf->arena, tf->arena_len, &ro);
        }
        do
            st = upq_reader_open(tf->reader);
        while (st == UPQ_AGAIN);
        if (st == UPQ_OK)
            return 0;
        need = upq_arena_needed(&tf->reader->arena);
        if (st == UPQ_ERR_NOMEM && a->arena_exact) {
            size_t needed = upq_arena_needed(&tf->reader->arena);
            if (a->arena_exact != 2)
                tool_arena_too_small(tf);
            tool_close(tf);
            tf->nomem_needed = needed;
            return 1;
        }
        if (st != UPQ_ERR_NOMEM || need <= len || need > TOOL_MAX_ARENA) {
            tool_report(path, upq_reader_error(tf->reader));
            tool_keys_report(&tf->keys, path, st);
            tool_close(tf);
            return 1;
        }
        if (attempt >= EXACT_RETRIES && need < len * 2)
            need = len * 2;
        len = need;
    }
}

void tool_arena_too_small(const tool_file *tf)
{
    fprintf(stderr, "upq: arena too small: %zu bytes needed\n", upq_arena_needed(&tf->reader->arena));
}

void tool_close(tool_file *tf)
{
    upq_posix_close(&tf->pf);
    free(tf->reader);
    free(tf->arena);
    tool_keys_free(&tf->keys);
    tf->reader = NULL;
    tf->arena = NULL;
}

/* ---- main --------------------------------------------------------------- */

int main(int argc, char **argv)
{
    tool_args args;
    const command *cmd = NULL;
    size_t i;
    int at = 1, rc;

    memset(&args, 0, sizeof args);
    rc = parse_args(&args, NULL, 1, argc, argv, &at);
    if (rc)
        return rc;
    if (at >= argc) {
        usage(stderr);
        return 2;
    }
    for (i = 0; i < NUM_COMMANDS; i++)
        if (strcmp(commands[i].name, argv[at]) == 0)
            cmd = &commands[i];
    if (!cmd)
        return usage_error("unknown command '%s'", argv[at]);
    rc = parse_args(&args, cmd, at + 1, argc, argv, NULL);
    if (rc)
        return rc;
    if (args.nfiles < cmd->min_files || args.nfiles > cmd->max_files) {
        fprintf(stderr, "usage: upq %s\n", cmd->synopsis);
        return 2;
    }
    rc = cmd->run(&args);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "upq: write error: %s\n", strerror(errno));
        return 1;
    }
    return rc;
}
