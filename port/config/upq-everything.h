/*
 * µparquet option set `everything`.
 *
 * Every option on, every codec package: the library `make` builds once
 * `make deps` has fetched the packages. `make size` rows reader-full,
 * writer-full and everything.
 *
 * Pick it with -I<uparquet>/port/config -DUPQ_CONFIG_FILE='"upq-everything.h"'
 * (port/uparquet.mk: UPQ_SET=everything; port/cmake: -DUPQ_SET=everything;
 * make: UPQ_SET=everything).
 * It names only the options it sets otherwise than config.h; each is set
 * only when not defined already, so a -D on top of the set changes that one
 * option.
 */
#ifndef UPQ_SET_EVERYTHING_H
#define UPQ_SET_EVERYTHING_H

#define UPQ_SET_NAME "everything"

#include "upq_packages.h"

#endif
