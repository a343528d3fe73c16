/*
 * A storage device in memory for the sensor logger's filesystems (FatFs
 * sectors, littlefs blocks): on a host, in the tests and on the qemu board,
 * where a real logger has its SD card or flash chip. It counts every
 * operation, and lets a test see each write before it lands (to cut the
 * power there). Freestanding: the firmware links it.
 *
 * The bytes live in one buffer (`flat`), or in chunks made on first write
 * (`alloc`), so that a 2 GiB FAT32 volume costs what is written to it.
 */
#ifndef SENSOR_RAMDISK_H
#define SENSOR_RAMDISK_H

#include <stddef.h>
#include <stdint.h>

#define RAMDISK_CHUNK ((uint32_t)65536)

enum { RAMDISK_WRITE = 0, RAMDISK_ERASE = 1 };

typedef struct ramdisk ramdisk;
struct ramdisk {
    uint64_t size;                 /* bytes */
    uint8_t fill;                  /* what never-written (or erased) bytes read as */
    uint8_t *flat;                 /* the whole device, or NULL: chunks */
    uint8_t **chunks;              /* size / RAMDISK_CHUNK entries, NULL until written */
    uint8_t *(*alloc)(void *ctx);  /* a new chunk of RAMDISK_CHUNK bytes, or NULL */
    void *alloc_ctx;
    /* Called before each write or erase lands (one FatFs sector, one
     * littlefs program or erase): the test's power switch. */
    void (*before)(void *ctx, ramdisk *d, int kind, uint64_t off, const void *buf, uint32_t len);
    void *before_ctx;
    /* operations and bytes, by kind */
    uint64_t reads, writes, erases;
    uint64_t bytes_read, bytes_written, bytes_erased;
};

/* 0, or -1 when [off, off + len) is outside the device or a chunk cannot be
 * had. */
int ramdisk_read(ramdisk *d, uint64_t off, void *buf, uint32_t len);
int ramdisk_write(ramdisk *d, uint64_t off, const void *buf, uint32_t len);
int ramdisk_erase(ramdisk *d, uint64_t off, uint32_t len);
/* The same without counting or calling `before` (a torn write's part). */
int ramdisk_poke(ramdisk *d, uint64_t off, const void *buf, uint32_t len);
void ramdisk_count_reset(ramdisk *d);

#endif
