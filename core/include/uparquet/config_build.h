/*
 * The options an installed library was built with.
 *
 * In the source tree this header records nothing: a build in the tree takes
 * its options from -D flags and UPQ_CONFIG_FILE. `make install` (and `make
 * lib TARGET=...`) put a generated header of this name beside the installed
 * config.h instead: it holds every option's value for that library, and an
 * #error for each option a program defines differently (see config.h).
 */
#ifndef UPARQUET_CONFIG_BUILD_H
#define UPARQUET_CONFIG_BUILD_H
#endif
