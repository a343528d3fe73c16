/*
 * A gateway reading only what it is asked for: the rows of a time range (and
 * optionally of some devices) and only some columns of a Parquet file that
 * lives in remote storage, in one fixed arena, with non-blocking I/O.
 *
 *   gateway_reader [--columns a,b.c] [--time COL] [--since T] [--until T]
 *                  [--eq COL=TEXT]... [--arena BYTES] [--stats] FILE
 *
 * Storage is a separate process serving byte ranges over a socket (as an
 * object store serves HTTP range requests): the read callback asks for a
 * range, answers UPQ_AGAIN until the reply is in, and serves later
 * reads from that range (a request is what the library asks for, at least
 * 4 KiB). The main loop waits in poll() whenever the library
 * says UPQ_AGAIN, where a real gateway would go on with its other work.
 *
 * The query is built in code with the predicate builder, as SQL reads it:
 * TIME >= since AND TIME < until (T is "YYYY-MM-DDTHH:MM:SSZ" or the stored
 * integer), AND COL IN (TEXT, ...) for the --eq values (a string column).
 * One scan (upq_scan_begin) goes over the whole file, row-group metadata
 * decoded as it reaches each row group, so the arena does not grow with
 * them: it prunes row groups by statistics and bloom filters, pages by the
 * page index, reads the predicate's columns over what is left and gives the
 * matching rows of the --columns (default: every field).
 *
 * Output: one line per row, "ROW<TAB>v1<TAB>v2 ...", ROW the row's number in
 * the file, leaves in schema order: integers (timestamps as stored),
 * floats, strings (\t, \n and \\ escaped), null; lists and maps in [ ].
 * --stats prints to stderr what was pruned and what was read.
 * Exit status 0, 1 (the file or the query failed: what and where), 2 (usage).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "uparquet/uparquet.h"
#include "uparquet/predicate.h"

#define RANGE_BYTES (64u << 10)
#define READ_AHEAD (4u << 10)
#define MAX_EQ 16
#define MAX_COLS 64

/* ---- remote storage: a process serving byte ranges over a socket ---------- */

typedef struct remote {
    int fd;               /* non-blocking socket to the server */
    pid_t pid;
    uint64_t size;
    /* the last range asked for and what of it has arrived */
    uint8_t buf[RANGE_BYTES];
    uint64_t off;
    uint32_t want, len, fill; /* len: the reply's length once its header is in */
    uint8_t hdr[4];
    uint32_t hdr_fill;
    int pending;
    uint64_t requests, bytes; /* what went over the wire */
} remote;

static int write_all(int fd, const void *p, size_t n)
{
    const uint8_t *b = (const uint8_t *)p;
    while (n) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The server: requests are 12 bytes (offset, length; little-endian), each
 * answered by the length actually read (4 bytes) and the bytes. */
static void serve(int fd, int file)
{
    static uint8_t data[RANGE_BYTES];
    uint8_t req[12];
    for (;;) {
        size_t got = 0;
        uint64_t off = 0;
        uint32_t len = 0, n = 0;
        ssize_t r;
        while (got < sizeof req) {
            r = read(fd, req + got, sizeof req - got);
            if (r <= 0)
                _exit(0);
            got += (size_t)r;
        }
        for (int i = 7; i >= 0; i--)
            off = off << 8 | req[i];
        for (int i = 11; i >= 8; i--)
            len = len << 8 | req[i];
        if (len > RANGE_BYTES)
            len = RANGE_BYTES;
        while (n < len) {
            r = pread(file, data + n, len - n, (off_t)(off + n));
            if (r <= 0)
                break;
            n += (uint32_t)r;
        }
        uint8_t h[4] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24)};
        if (write_all(fd, h, 4) != 0 || write_all(fd, data, n) != 0)
            _exit(0);
    }
}

static int remote_open(remote *rm, const char *path)
{
    int sv[2], file = open(path, O_RDONLY);
    struct stat st;
    if (file < 0 || fstat(file, &st) != 0) {
        fprintf(stderr, "gateway_reader: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return -1;
    rm->size = (uint64_t)st.st_size;
    rm->pid = fork();
    if (rm->pid < 0)
        return -1;
    if (rm->pid == 0) {
        close(sv[0]);
        serve(sv[1], file);
    }
    close(sv[1]);
    close(file);
    rm->fd = sv[0];
    return fcntl(rm->fd, F_SETFL, fcntl(rm->fd, F_GETFL) | O_NONBLOCK);
}

static void remote_close(remote *rm)
{
    close(rm->fd);
    waitpid(rm->pid, NULL, 0);
}

/* Moves what has arrived of the pending reply into the range buffer.
 * Returns 0 (complete or not), -1 on a broken connection. */
static int remote_pump(remote *rm)
{
    while (rm->pending) {
        ssize_t r;
        if (rm->hdr_fill < 4)
            r = read(rm->fd, rm->hdr + rm->hdr_fill, 4 - rm->hdr_fill);
        else
            r = read(rm->fd, rm->buf + rm->fill, rm->len - rm->fill);
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        if (rm->hdr_fill < 4) {
            rm->hdr_fill += (uint32_t)r;
            if (rm->hdr_fill == 4) {
                rm->len = (uint32_t)rm->hdr[0] | (uint32_t)rm->hdr[1] << 8 |
                          (uint32_t)rm->hdr[2] << 16 | (uint32_t)rm->hdr[3] << 24;
                if (rm->len > rm->want)
                    return -1;
            }
        } else {
            rm->fill += (uint32_t)r;
            rm->bytes += (uint64_t)r;
        }
        if (rm->hdr_fill == 4 && rm->fill == rm->len)
            rm->pending = 0;
    }
    return 0;
}

/* upq_read_at_fn: serves from the last range when it holds `off`, else asks
 * for the range starting there and says "again". Short counts are fine. */
static upq_status remote_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    remote *rm = (remote *)ctx;
    *got = 0;
    if (off >= rm->size)
        return UPQ_OK;
    if (remote_pump(rm) != 0)
        return UPQ_ERR_IO;
    if (!rm->pending && off >= rm->off && off < rm->off + rm->len) {
        size_t n = (size_t)(rm->off + rm->len - off);
        if (n > len)
            n = len;
        memcpy(buf, rm->buf + (off - rm->off), n);
        *got = n;
        return UPQ_OK;
    }
    if (!rm->pending) {
        uint8_t req[12];
        /* what is asked for, at least a small read-ahead (page headers come
         * a few bytes at a time), at most the buffer */
        uint64_t want = len < READ_AHEAD ? READ_AHEAD : len;
        if (want > RANGE_BYTES)
            want = RANGE_BYTES;
        if (want > rm->size - off)
            want = rm->size - off;
        for (int i = 0; i < 8; i++)
            req[i] = (uint8_t)(off >> (8 * i));
        for (int i = 0; i < 4; i++)
            req[8 + i] = (uint8_t)(want >> (8 * i));
        /* 12 bytes into an empty socket: never partial in practice, but a
         * refusal is an I/O error rather than a spin */
        if (write(rm->fd, req, sizeof req) != (ssize_t)sizeof req)
            return UPQ_ERR_IO;
        rm->off = off;
        rm->want = (uint32_t)want;
        rm->len = rm->fill = rm->hdr_fill = 0;
        rm->pending = 1;
        rm->requests++;
    }
    return UPQ_AGAIN; /* the caller comes back; the reply will be in the buffer */
}

/* What the main loop does on UPQ_AGAIN: wait until the socket has data. */
static void remote_wait(remote *rm, uint64_t *waits)
{
    struct pollfd p = {rm->fd, POLLIN, 0};
    (*waits)++;
    if (rm->pending)
        (void)poll(&p, 1, 10000);
}

/* ---- the query ------------------------------------------------------------- */

static int usage(void)
{
    fprintf(stderr, "usage: gateway_reader [--columns a,b.c] [--time COL] [--since T] [--until T]\n"
                    "                      [--eq COL=TEXT]... [--arena BYTES] [--stats] FILE\n"
                    "  T: YYYY-MM-DDTHH:MM:SSZ or the stored integer\n");
    return 2;
}

/* The schema node at a dotted path, or UPQ_NONE. */
static uint32_t find_node(const upq_schema *s, const char *path)
{
    uint32_t node = 0;
    while (*path) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);
        uint32_t k, next = UPQ_NONE;
        for (k = 0; k < s->nodes[node].num_children; k++) {
            uint32_t c = upq_schema_child(s, node, k);
            const upq_bytes *name = &s->nodes[c].elem->name;
            if (name->len == n && memcmp(name->ptr, path, n) == 0) {
                next = c;
                break;
            }
        }
        if (next == UPQ_NONE)
            return UPQ_NONE;
        node = next;
        path += n + (dot ? 1 : 0);
    }
    return node == 0 ? UPQ_NONE : node;
}

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* T in the column's unit: "YYYY-MM-DDTHH:MM:SSZ", or an integer as stored. */
static int parse_time(const char *t, const upq_column_desc *cd, int64_t *out)
{
    int y, mo, d, h, mi, sec, n = 0;
    int64_t per = 1;
    char *end;
    if (upq_logical_type_kind(&cd->logical) == UPQ_LOGICAL_TYPE_TIMESTAMP) {
        switch (upq_time_unit_kind(&cd->logical.u.timestamp.unit)) {
        case UPQ_TIME_UNIT_MILLIS: per = 1000; break;
        case UPQ_TIME_UNIT_MICROS: per = 1000000; break;
        case UPQ_TIME_UNIT_NANOS: per = 1000000000; break;
        default: return -1;
        }
    }
    if (sscanf(t, "%d-%d-%dT%d:%d:%dZ%n", &y, &mo, &d, &h, &mi, &sec, &n) == 6 && t[n] == 0) {
        if (per == 1 || mo < 1 || mo > 12 || d < 1 || d > 31)
            return -1;
        *out = ((days_from_civil(y, (unsigned)mo, (unsigned)d) * 24 + h) * 60 + mi) * 60 + sec;
        *out *= per;
        return 0;
    }
    errno = 0;
    *out = strtoll(t, &end, 10);
    return errno || end == t || *end ? -1 : 0;
}

/* ---- output ------------------------------------------------------------------ */

static void put_bytes(const upq_bytes *b)
{
    for (uint32_t i = 0; i < b->len; i++) {
        unsigned char c = b->ptr[i];
        if (c == '\t')
            fputs("\\t", stdout);
        else if (c == '\n')
            fputs("\\n", stdout);
        else if (c == '\\')
            fputs("\\\\", stdout);
        else
            putchar(c);
    }
}

static void put_value(const upq_schema *s, const upq_event *ev)
{
    const upq_column_desc *cd = &s->columns[ev->column];
    switch (cd->physical_type) {
    case UPQ_TYPE_BOOLEAN: fputs(*(const uint8_t *)ev->value ? "true" : "false", stdout); break;
    case UPQ_TYPE_INT32: printf("%" PRId32, *(const int32_t *)ev->value); break;
    case UPQ_TYPE_INT64: printf("%" PRId64, *(const int64_t *)ev->value); break;
    case UPQ_TYPE_FLOAT: printf("%.9g", (double)*(const float *)ev->value); break;
    case UPQ_TYPE_DOUBLE: printf("%.17g", *(const double *)ev->value); break;
    case UPQ_TYPE_BYTE_ARRAY:
    case UPQ_TYPE_FIXED_LEN_BYTE_ARRAY: put_bytes((const upq_bytes *)ev->value); break;
    default: fputs("?", stdout); break; /* INT96 */
    }
}

/* One row's events: leaves tab-separated, containers bracketed. Returns
 * the status that ended the row (UPQ_DONE when complete). */
static upq_status put_row(upq_rows *rows, const upq_schema *s, uint64_t row, remote *rm,
                          uint64_t *waits)
{
    upq_event ev;
    upq_status st;
    int depth = 0, first = 1;
    printf("%" PRIu64, row);
    for (;;) {
        st = upq_rows_event(rows, &ev);
        if (st == UPQ_AGAIN) {
            remote_wait(rm, waits);
            continue;
        }
        if (st != UPQ_OK)
            break;
        if (ev.type == UPQ_EV_END_LIST || ev.type == UPQ_EV_END_MAP) {
            putchar(']');
            depth--;
            continue;
        }
        if (ev.type == UPQ_EV_BEGIN_STRUCT || ev.type == UPQ_EV_END_STRUCT)
            continue;
        if (!depth)
            putchar('\t');
        else if (!first)
            putchar(',');
        first = 0;
        if (ev.type == UPQ_EV_BEGIN_LIST || ev.type == UPQ_EV_BEGIN_MAP) {
            putchar('[');
            depth++;
            first = 1;
        } else if (ev.type == UPQ_EV_NULL) {
            fputs("null", stdout);
        } else {
            put_value(s, &ev);
        }
    }
    putchar('\n');
    return st;
}

static upq_status fail(upq_reader *r, upq_status st, const char *what)
{
    const upq_error_info *e = upq_reader_error(r);
    fprintf(stderr, "gateway_reader: %s: %s", what, e->what ? e->what : upq_strerror(st));
    if (e->row_group >= 0)
        fprintf(stderr, ", row group %d", (int)e->row_group);
    if (e->column >= 0)
        fprintf(stderr, ", column %d", (int)e->column);
    if (e->offset != UINT64_MAX)
        fprintf(stderr, ", offset %" PRIu64, e->offset);
    fprintf(stderr, " (%s)\n", upq_strerror(st));
    return st;
}

int main(int argc, char **argv)
{
    static remote rm;
    static upq_reader r;
    static upq_scan sc;
    const char *columns = NULL, *time_col = NULL, *since = NULL, *until = NULL, *path = NULL;
    const char *eq[MAX_EQ];
    int neq = 0, stats = 0, i;
    unsigned long long arena_len = 256u << 10;
    uint64_t waits = 0, rows_out = 0, rg_pruned = 0, tested = 0, no_index = 0;
    upq_status st;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--stats") == 0) {
            stats = 1;
            continue;
        }
        if (a[0] != '-') {
            if (path)
                return usage();
            path = a;
            continue;
        }
        if (!v)
            return usage();
        i++;
        if (strcmp(a, "--columns") == 0) {
            columns = v;
        } else if (strcmp(a, "--time") == 0) {
            time_col = v;
        } else if (strcmp(a, "--since") == 0) {
            since = v;
        } else if (strcmp(a, "--until") == 0) {
            until = v;
        } else if (strcmp(a, "--eq") == 0 && neq < MAX_EQ) {
            eq[neq++] = v;
        } else if (strcmp(a, "--arena") == 0) {
            char *end;
            arena_len = strtoull(v, &end, 10);
            if (*end == 'K' || *end == 'k')
                arena_len <<= 10, end++;
            else if (*end == 'M' || *end == 'm')
                arena_len <<= 20, end++;
            if (*end || arena_len < 1024 || arena_len > (1ull << 30))
                return usage();
        } else {
            return usage();
        }
    }
    if (!path || ((since || until) && !time_col))
        return usage();
    signal(SIGPIPE, SIG_IGN);
    if (remote_open(&rm, path) != 0)
        return 1;

    /* one fixed arena for everything the library does; row-group metadata
     * decoded as the scan reaches each one, so it does not grow with them */
    void *arena = malloc((size_t)arena_len);
    upq_io io = { .ctx = &rm, .read_at = remote_read_at, .size = rm.size };
    upq_reader_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.row_groups = UPQ_ROW_GROUPS_LAZY;
    upq_reader_init(&r, &io, arena, (size_t)arena_len, &ro);
    while ((st = upq_reader_open(&r)) == UPQ_AGAIN)
        remote_wait(&rm, &waits);
    if (st != UPQ_OK)
        return fail(&r, st, path), 1;
    const upq_schema *s = upq_reader_schema(&r);

    /* the projection: the leaf columns under each --columns path */
    uint32_t cols[MAX_COLS], ncols = 0;
    if (columns) {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", columns);
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
            uint32_t node = find_node(s, tok), before = ncols;
            for (uint32_t c = 0; node != UPQ_NONE && c < s->num_columns; c++) {
                uint32_t up = s->columns[c].node;
                while (up != UPQ_NONE && up != node)
                    up = s->nodes[up].parent;
                if (up == node && ncols < MAX_COLS)
                    cols[ncols++] = c;
            }
            if (ncols == before) {
                fprintf(stderr, "gateway_reader: no column %s\n", tok);
                return 1;
            }
        }
    }

    /* the condition, written as SQL reads it through the builder:
     * TIME >= since AND TIME < until AND COL IN (TEXT, ...) */
    static upq_pred_node nodes[16];
    static upq_value lits[4 + MAX_EQ];
    upq_pred_builder b;
    upq_pred pred;
    uint32_t leaves = 0;
    upq_pred_begin(&b, s, nodes, 16, lits, 4 + MAX_EQ, NULL, 0);
    if (time_col) {
        uint32_t node = find_node(s, time_col);
        const upq_column_desc *cd;
        if (node == UPQ_NONE || s->nodes[node].column == UPQ_NONE ||
            s->columns[s->nodes[node].column].physical_type != UPQ_TYPE_INT64) {
            fprintf(stderr, "gateway_reader: --time %s: not an INT64 (timestamp) leaf\n", time_col);
            return 1;
        }
        cd = &s->columns[s->nodes[node].column];
        for (int k = 0; k < 2; k++) {
            const char *t = k ? until : since;
            int64_t v;
            if (!t)
                continue;
            if (parse_time(t, cd, &v) != 0) {
                fprintf(stderr, "gateway_reader: %s: not a time for %s\n", t, time_col);
                return 1;
            }
            /* an integer for a timestamp column is the stored value */
            upq_pred_int(&b, s->nodes[node].column, k ? UPQ_PRED_LT : UPQ_PRED_GE, v);
            if (++leaves > 1)
                upq_pred_and(&b);
        }
    }
    if (neq) {
        uint32_t col = UPQ_NONE;
        for (int k = 0; k < neq; k++) {
            const char *e = strchr(eq[k], '=');
            char name[256];
            uint32_t node;
            if (!e || (size_t)(e - eq[k]) >= sizeof name)
                return usage();
            memcpy(name, eq[k], (size_t)(e - eq[k]));
            name[e - eq[k]] = 0;
            node = find_node(s, name);
            if (node == UPQ_NONE || s->nodes[node].column == UPQ_NONE ||
                s->columns[s->nodes[node].column].physical_type != UPQ_TYPE_BYTE_ARRAY ||
                (col != UPQ_NONE && col != s->nodes[node].column)) {
                fprintf(stderr, "gateway_reader: --eq %s: one string leaf column\n", name);
                return 1;
            }
            if (col == UPQ_NONE)
                upq_pred_in_begin(&b, s->nodes[node].column, 0, 0);
            col = s->nodes[node].column;
            upq_pred_bytes(&b, col, UPQ_PRED_IN, e + 1, strlen(e + 1));
        }
        upq_pred_in_end(&b);
        if (++leaves > 1)
            upq_pred_and(&b);
    }
    if (leaves && upq_pred_end(&b, &pred) != UPQ_OK) {
        fprintf(stderr, "gateway_reader: the query: %s\n", b.what);
        return 1;
    }

    /* one scan over the whole file: row groups pruned by statistics and bloom
     * filters, pages by the page index, then the matching rows */
    upq_scan_opts o;
    memset(&o, 0, sizeof o);
    o.where = leaves ? &pred : NULL;
    o.columns = ncols ? cols : NULL;
    o.num_columns = ncols;
    st = upq_scan_begin(&sc, &r, &o);
    if (st != UPQ_OK)
        return fail(&r, st, path), 1;
    for (;;) {
        st = upq_scan_next(&sc);
        if (st == UPQ_AGAIN) {
            remote_wait(&rm, &waits);
            continue;
        }
        if (st != UPQ_OK)
            break;
        st = put_row(upq_scan_rows(&sc), s, upq_scan_file_row(&sc), &rm, &waits);
        if (st != UPQ_DONE)
            break;
        rows_out++;
    }
    rg_pruned = sc.stats.pruned_stats + sc.stats.pruned_bloom + sc.stats.pruned_dict +
                sc.stats.pruned_pages;
    tested = sc.stats.rows_tested;
    no_index = sc.stats.leaves_no_index;
    upq_scan_close(&sc);
    if (st != UPQ_DONE)
        return fail(&r, st, path), 1;
    if (stats)
        fprintf(stderr,
                "gateway_reader: %" PRIu64 " rows (%" PRIu64 " tested); %" PRIu64 " of %" PRIu32
                " row groups pruned; %" PRIu64 " conditions without a page index; %" PRIu64
                " range requests, %" PRIu64 " bytes of %" PRIu64 "; %" PRIu64
                " waits; arena %llu bytes, %zu used at most\n",
                rows_out, tested, rg_pruned, upq_reader_num_row_groups(&r), no_index, rm.requests, rm.bytes,
                rm.size, waits, arena_len, upq_arena_high_water(&r.arena));
    fflush(stdout);
    remote_close(&rm);
    free(arena);
    return 0;
}
