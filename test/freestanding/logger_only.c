/*
 * The logger set (port/config/upq-logger.h: UPQ_WITH_BUFFERED 0, checkpoint
 * mode the writer's only mode), built on the host: a writer asked for
 * buffered or direct mode gives UPQ_ERR_UNSUPPORTED, and checkpoint mode is
 * planned and initialised. Writing and reading the logger's files in this
 * set is checked by the firmware fragment (test/integration: the logger
 * set's image under qemu, its file against the host sensor logger's through
 * DuckDB).
 *
 *   logger_only
 */
#include <stdio.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "uparquet/writer.h"

#if UPQ_WITH_BUFFERED || !UPQ_WITH_CHECKPOINT
#error "logger_only is built with the logger set: checkpoint mode alone"
#endif

/* One line a check; the count of those that held in *n, the others in
 * *bad. */
static void expect(int held, const char *what, upq_status st, unsigned *n, unsigned *bad)
{
    printf("%s %s (status %d)\n", held ? "ok" : "FAIL", what, (int)st);
    *(held ? n : bad) += 1;
}

static uint64_t arena[1 << 12];
static upq_writer w;

static upq_status nop_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *written)
{
    (void)ctx;
    (void)off;
    (void)buf;
    *written = len;
    return UPQ_OK;
}

static upq_status nop_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    (void)ctx;
    (void)off;
    (void)buf;
    (void)len;
    *got = 0;
    return UPQ_OK;
}

int main(void)
{
    upq_schema_element el[2];
    upq_schema_builder b;
    upq_writer_opts o;
    upq_sink s;
    uint32_t n = 0;
    size_t need = 0;
    upq_status st;
    unsigned ok = 0, bad = 0;
    upq_sb_init(&b, el, 2, "m");
    upq_sb_column(&b, "x", UPQ_REP_REQUIRED, UPQ_TYPE_INT32, 0, (const upq_logical_type *)0);
    expect(upq_sb_finish(&b, &n) == UPQ_OK, "a schema of one column", UPQ_OK, &ok, &bad);
    memset(&s, 0, sizeof s);
    s.write_at = nop_write_at;
    s.read_at = nop_read_at;

    memset(&o, 0, sizeof o);
    st = upq_writer_workspace_size(el, n, &o, 4, &need);
    expect(st == UPQ_ERR_UNSUPPORTED, "buffered mode planned: UPQ_ERR_UNSUPPORTED", st, &ok,
           &bad);
    st = upq_writer_init(&w, &s, el, n, arena, sizeof arena, &o);
    expect(st == UPQ_ERR_UNSUPPORTED, "buffered mode asked of upq_writer_init: UPQ_ERR_UNSUPPORTED",
           st, &ok, &bad);
    o.direct = 1;
    st = upq_writer_workspace_size(el, n, &o, 4, &need);
    expect(st == UPQ_ERR_UNSUPPORTED, "direct mode planned: UPQ_ERR_UNSUPPORTED", st, &ok, &bad);

    memset(&o, 0, sizeof o);
    o.checkpoint = 1;
    o.page_size = 512;
    st = upq_writer_workspace_size(el, n, &o, 4, &need);
    expect(st == UPQ_OK && need > 0 && need <= sizeof arena, "checkpoint mode is planned", st, &ok,
           &bad);
    st = upq_writer_init(&w, &s, el, n, arena, sizeof arena, &o);
    expect(st == UPQ_OK, "checkpoint mode is initialised", st, &ok, &bad);

    printf("%u passed, %u failed\n", ok, bad);
    return bad ? 1 : 0;
}
