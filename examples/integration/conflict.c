/*
 * A program that believes encryption is off, built against a library built
 * with it on: the headers must refuse it at compile time, since its
 * upq_reader and upq_file_metadata would not be the library's (a smaller
 * FileMetaData descriptor, no crypto fields), and it would crash at run time.
 * test/integration/run.sh expects this file NOT to compile, and the message
 * to name the option.
 */
#define UPQ_WITH_CRYPTO 0
#include "uparquet/uparquet.h"

int main(void)
{
    return 0;
}
