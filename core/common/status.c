/* Names of status codes, for messages. */
#include "uparquet/status.h"

const char *upq_strerror(int status)
{
#if UPQ_NO_ERRSTR
    (void)status;
    return "";
#else
    switch (status) {
    case UPQ_OK: return "ok";
    case UPQ_AGAIN: return "again (would block)";
    case UPQ_DONE: return "done";
    case UPQ_ERR_IO: return "I/O error";
    case UPQ_ERR_CORRUPT: return "corrupt input";
    case UPQ_ERR_CRC: return "checksum mismatch";
    case UPQ_ERR_AUTH: return "authentication failed or key missing";
    case UPQ_ERR_NOMEM: return "arena too small";
    case UPQ_ERR_UNSUPPORTED: return "unsupported feature";
    case UPQ_ERR_INVAL: return "invalid argument";
    case UPQ_ERR_STATE: return "call not allowed in this state";
    case UPQ_ERR_LIMIT: return "input exceeds a configured limit";
    case UPQ_ERR_TRUNCATED: return "input truncated";
    case UPQ_ERR_BUFFER: return "output buffer too small";
    default: return "unknown status";
    }
#endif
}
