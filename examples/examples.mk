# Host examples: the upq tool (examples/upq) and the sensor logger
# (examples/sensor_logger) over POSIX files, and `make demo`.
# Included by the top-level Makefile.

UPQ_SRC := $(sort $(wildcard examples/upq/*.c))
UPQ_OBJ := $(patsubst %.c,$(HOST)/%.o,$(UPQ_SRC))
UPQ_LDLIBS := -lm

# Host code: libc is fine, but keep the warnings close to the library's.
WARN_UPQ := -Wall -Wextra -Wshadow -Wundef -Wstrict-prototypes -Wmissing-prototypes \
            -Wformat=2 -Wno-format-nonliteral
$(UPQ_OBJ): CFLAGS_USE = -std=c99 $(OPT) $(WARN_UPQ) $(INCLUDES) $(CODEC_DEFS) $(EXTRA_CFLAGS)

$(UPQ): $(UPQ_OBJ) $(POSIX_OBJ) $(LIB) $(CODEC_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(EXTRA_CFLAGS) $(LDFLAGS) -o $@ $(UPQ_OBJ) $(POSIX_OBJ) -Wl,--start-group $(LIB) $(CODEC_LIBS) -Wl,--end-group $(UPQ_LDLIBS)

# ---- FatFs and littlefs: the filesystems firmware logs through ---------------------
# Built from their own sources, never copied into this repository (FATFS_DIR:
# ChaN's FatFs source/ folder, LITTLEFS_DIR: littlefs's root; tests and the
# host logger use ../shared/third_party). FatFs is configured as a user does,
# in its ffconf.h: the release's, with the options the sensor logger's volume
# needs changed (f_mkfs for the RAM disk, long file names, code page 437, no
# clock), made in the build directory. The adapters (port/adapters/fatfs,
# port/adapters/littlefs) are built like library code against them.
FATFS_DIR ?= $(abspath ../shared/third_party/fatfs/source)
LITTLEFS_DIR ?= $(abspath ../shared/third_party/littlefs)
HAVE_FATFS := $(if $(wildcard $(FATFS_DIR)/ff.c),1)
HAVE_LITTLEFS := $(if $(wildcard $(LITTLEFS_DIR)/lfs.c),1)
FATFS_CONF_SED := -e 's/^\#define FF_USE_MKFS\t\t0/\#define FF_USE_MKFS\t\t1/' \
                  -e 's/^\#define FF_CODE_PAGE\t932/\#define FF_CODE_PAGE\t437/' \
                  -e 's/^\#define FF_USE_LFN\t\t0/\#define FF_USE_LFN\t\t1/' \
                  -e 's/^\#define FF_FS_NORTC\t\t0/\#define FF_FS_NORTC\t\t1/' \
                  -e 's/^\#define FF_USE_FASTSEEK\t0/\#define FF_USE_FASTSEEK\t1/'
# $(call fatfs_tree,DIR): ff.c, ff.h, diskio.h, ffunicode.c and the edited ffconf.h in DIR
define fatfs_tree_rules
$(1)/ffconf.h: $(FATFS_DIR)/ffconf.h examples/examples.mk
	@mkdir -p $(1)
	sed $(FATFS_CONF_SED) $$< > $$@.tmp
	@for o in FF_USE_MKFS FF_USE_LFN FF_FS_NORTC FF_USE_FASTSEEK; do grep -q "^#define $$$$o\s*1" $$@.tmp || \
	    { echo "$(FATFS_DIR)/ffconf.h: cannot set $$$$o (not R0.16's ffconf.h?)"; exit 1; }; done
	@mv $$@.tmp $$@
$(1)/%: $(FATFS_DIR)/%
	@mkdir -p $(1)
	cp $$< $$@
endef
FATFS_TREE := $(HOST)/third_party/fatfs
$(eval $(call fatfs_tree_rules,$(FATFS_TREE)))
FATFS_HDRS = $(FATFS_TREE)/ff.h $(FATFS_TREE)/diskio.h $(FATFS_TREE)/ffconf.h
FATFS_OBJ := $(FATFS_TREE)/ff.o $(FATFS_TREE)/ffunicode.o
LITTLEFS_OBJ := $(HOST)/third_party/littlefs/lfs.o $(HOST)/third_party/littlefs/lfs_util.o
FS_CFLAGS = $(if $(HAVE_FATFS),-DSENSOR_WITH_FATFS=1 -isystem $(FATFS_TREE)) \
            $(if $(HAVE_LITTLEFS),-DSENSOR_WITH_LITTLEFS=1 -isystem $(LITTLEFS_DIR) -DLFS_NO_DEBUG -DLFS_NO_WARN)
# third-party code: its own warnings are not ours to fix
$(FATFS_OBJ): $(FATFS_TREE)/%.o: $(FATFS_TREE)/%.c $(FATFS_HDRS)
	$(CC) -std=c99 $(OPT) -w -I$(FATFS_TREE) $(EXTRA_CFLAGS) -c $< -o $@
$(LITTLEFS_OBJ): $(HOST)/third_party/littlefs/%.o: $(LITTLEFS_DIR)/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=c99 $(OPT) -w -I$(LITTLEFS_DIR) -DLFS_NO_DEBUG -DLFS_NO_WARN $(EXTRA_CFLAGS) -c $< -o $@
# the adapters and the sensor logger's volumes: library warnings, freestanding
FS_ADAPTER_SRC := $(if $(HAVE_FATFS),port/adapters/fatfs/upq_fatfs.c examples/sensor_logger/fatfs_disk.c) \
                  $(if $(HAVE_LITTLEFS),port/adapters/littlefs/upq_littlefs.c port/adapters/append/upq_append.c examples/sensor_logger/lfs_disk.c) \
                  examples/sensor_logger/ramdisk.c examples/sensor_logger/fs_stores.c
FS_ADAPTER_OBJ := $(patsubst %.c,$(HOST)/%.o,$(FS_ADAPTER_SRC))
$(FS_ADAPTER_OBJ): CFLAGS_USE = $(LIB_CFLAGS) $(FS_CFLAGS)
$(FS_ADAPTER_OBJ): $(if $(HAVE_FATFS),$(FATFS_HDRS))
FS_OBJ := $(FS_ADAPTER_OBJ) $(if $(HAVE_FATFS),$(FATFS_OBJ)) $(if $(HAVE_LITTLEFS),$(LITTLEFS_OBJ))

# ---- sensor logger ------------------------------------------------------------
# The core and its main loop are built exactly like library code (freestanding,
# the library's warnings): firmware compiles the same files and only swaps
# host_main.c. The host program writes through POSIX files, FatFs or littlefs
# (--fs).
SENSOR := $(HOST)/sensor_logger
SENSOR_CORE_OBJ := $(HOST)/examples/sensor_logger/sensor_logger.o
SENSOR_CLI_OBJ := $(HOST)/examples/sensor_logger/logger_cli.o
SENSOR_HOST_OBJ := $(HOST)/examples/sensor_logger/host_main.o
$(SENSOR_CORE_OBJ) $(SENSOR_CLI_OBJ): CFLAGS_USE = $(LIB_CFLAGS)
$(SENSOR_HOST_OBJ): CFLAGS_USE = -std=c99 $(OPT) $(WARN_UPQ) $(INCLUDES) $(CODEC_DEFS) $(FS_CFLAGS) $(EXTRA_CFLAGS)
$(SENSOR_HOST_OBJ): $(if $(HAVE_FATFS),$(FATFS_HDRS))

$(SENSOR): $(SENSOR_CORE_OBJ) $(SENSOR_CLI_OBJ) $(SENSOR_HOST_OBJ) $(FS_OBJ) $(POSIX_OBJ) $(LIB) $(CODEC_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(EXTRA_CFLAGS) $(LDFLAGS) -o $@ $(SENSOR_CORE_OBJ) $(SENSOR_CLI_OBJ) $(SENSOR_HOST_OBJ) $(FS_OBJ) \
	    $(POSIX_OBJ) -Wl,--start-group $(LIB) $(CODEC_LIBS) -Wl,--end-group

all: $(SENSOR)

# ---- gateway reader ---------------------------------------------------------------
# Selective reading over non-blocking remote storage (a range server process)
# in one fixed arena: examples/gateway_reader.
GATEWAY := $(HOST)/gateway_reader
GATEWAY_OBJ := $(HOST)/examples/gateway_reader/gateway_reader.o
$(GATEWAY_OBJ): CFLAGS_USE = -std=c99 -D_DEFAULT_SOURCE $(OPT) $(WARN_UPQ) $(INCLUDES) $(CODEC_DEFS) $(EXTRA_CFLAGS)

$(GATEWAY): $(GATEWAY_OBJ) $(LIB) $(CODEC_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(EXTRA_CFLAGS) $(LDFLAGS) -o $@ $(GATEWAY_OBJ) -Wl,--start-group $(LIB) $(CODEC_LIBS) -Wl,--end-group

all: $(GATEWAY)

# ---- make demo ------------------------------------------------------------------
# Fetches the codec packages when they are missing (the demo's own file needs
# none, so it goes on without them if they cannot be had), builds everything,
# logs 100,000 sensor rows (about 2.8 hours at 10 Hz) with the logger's
# defaults, as a user gets them (64K-row row groups, a checkpoint every 600
# rows), into build/demo/sensor.parquet and shows the file through upq.
DEMO_DIR := $(BUILD)/demo
DEMO_FILE := $(DEMO_DIR)/sensor.parquet

.PHONY: demo-run
demo:
	@$(MAKE) --no-print-directory deps || \
	    echo "demo: the codec packages could not be fetched; going on without them"
	@$(MAKE) --no-print-directory demo-run

demo-run: $(UPQ) $(SENSOR)
	@set -e; mkdir -p $(DEMO_DIR); rm -f $(DEMO_FILE); \
	echo; echo "== sensor_logger: 100000 rows with its defaults (64K-row row groups, a checkpoint every 600 rows)"; \
	$(SENSOR) --rows 100000 $(DEMO_FILE); \
	echo; echo "== upq schema $(DEMO_FILE)"; \
	$(UPQ) schema $(DEMO_FILE); \
	echo; echo "== upq meta $(DEMO_FILE)"; \
	$(UPQ) meta $(DEMO_FILE); \
	echo; echo "== upq cat --head 5 $(DEMO_FILE)"; \
	$(UPQ) cat --head 5 $(DEMO_FILE)
