/*
 * The writer named by FileMetaData.created_by, for the rules that work
 * around what old writers got wrong (page sizes, v2 page compression flags,
 * statistics). Shared by the column reader and the statistics decoder.
 */
#include "uparquet/meta.h"
#include "upq_port.h"
#include "common/upq_internal.h"

int upq_created_by_older(const upq_file_metadata *m, const char *app, size_t app_len,
                         unsigned major, unsigned minor, unsigned patch)
{
    static const char ver[] = " version ";
    const uint8_t *p = m->created_by.ptr, *end;
    unsigned v[3] = {0, 0, 0}, k = 0;
    if (!UPQ_ISSET(*m, UPQ_FILE_METADATA_CREATED_BY) || m->created_by.len < app_len ||
        upq_memcmp(p, app, app_len) != 0)
        return 0;
    end = p + m->created_by.len;
    p += app_len;
    if (p < end && *p != ' ')
        return 0; /* a longer name: "parquet-cpp-arrow" is not "parquet-cpp" */
    if ((size_t)(end - p) < sizeof ver - 1 || upq_memcmp(p, ver, sizeof ver - 1) != 0)
        return 1; /* no version: treated as the oldest */
    p += sizeof ver - 1;
    while (p < end && k < 3) {
        if (*p >= '0' && *p <= '9') {
            if (v[k] < 100000u)
                v[k] = v[k] * 10u + (unsigned)(*p - '0');
        } else if (*p == '.') {
            k++;
        } else {
            break;
        }
        p++;
    }
    return v[0] < major || (v[0] == major && (v[1] < minor || (v[1] == minor && v[2] < patch)));
}
