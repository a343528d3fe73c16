# The sensor logger through FatFs and littlefs with power cuts at the block
# device (test/storage/test_storage.c, run by test/storage/run.sh), and the
# device-level figures of `make bench` (test/bench/bench_storage.c).
# Included by the top-level Makefile after examples.mk and test.mk.

STORAGE_BIN := $(HOST)/test/storage/test_storage
STORAGE_OBJ := $(HOST)/test/storage/test_storage.o
# the logger's core, main loop and volumes, as the host program links them
STORAGE_LINK = $(HOST)/test/storage/volume.o $(SENSOR_CORE_OBJ) $(SENSOR_CLI_OBJ) $(FS_OBJ) $(LIB) $(CODEC_LIBS)

$(STORAGE_OBJ): test/storage/test_storage.c $(FATFS_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $(FS_CFLAGS) -MMD -MP -c $< -o $@
$(STORAGE_BIN): $(STORAGE_OBJ) $(STORAGE_LINK)
	$(CC) $(TEST_CFLAGS) -o $@ $(STORAGE_OBJ) $(HOST)/test/storage/volume.o $(SENSOR_CORE_OBJ) $(SENSOR_CLI_OBJ) $(FS_OBJ) $(call TEST_LIBS,$(LIB))

BENCH_STORAGE := $(HOST)/test/storage/bench_storage
$(HOST)/test/storage/bench_storage.o: test/storage/bench_storage.c $(FATFS_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $(FS_CFLAGS) -MMD -MP -c $< -o $@
$(BENCH_STORAGE): $(HOST)/test/storage/bench_storage.o $(STORAGE_LINK)
	$(CC) $(TEST_CFLAGS) -o $@ $< $(HOST)/test/storage/volume.o $(SENSOR_CORE_OBJ) $(SENSOR_CLI_OBJ) $(FS_OBJ) $(call TEST_LIBS,$(LIB))

# The FatFs adapter alone once more against FatFs as it ships
# (FF_USE_FASTSEEK 0; the tree above sets 1): test_storage --adapter only.
FATFS0_TREE := $(HOST)/third_party/fatfs-nofastseek
FATFS0_HDRS := $(FATFS0_TREE)/ff.h $(FATFS0_TREE)/diskio.h $(FATFS0_TREE)/ffconf.h
$(FATFS0_TREE)/ffconf.h: $(FATFS_TREE)/ffconf.h
	@mkdir -p $(dir $@)
	sed 's/^#define FF_USE_FASTSEEK\t1/#define FF_USE_FASTSEEK\t0/' $< > $@.tmp
	@grep -q '^#define FF_USE_FASTSEEK\s*0' $@.tmp || { echo "$@: cannot set FF_USE_FASTSEEK 0"; exit 1; }
	@mv $@.tmp $@
$(FATFS0_TREE)/ff.h $(FATFS0_TREE)/diskio.h $(FATFS0_TREE)/ff.c $(FATFS0_TREE)/ffunicode.c: $(FATFS0_TREE)/%: $(FATFS_DIR)/%
	@mkdir -p $(dir $@)
	cp $< $@
$(FATFS0_TREE)/ff.o $(FATFS0_TREE)/ffunicode.o: $(FATFS0_TREE)/%.o: $(FATFS0_TREE)/%.c $(FATFS0_HDRS)
	$(CC) -std=c99 $(OPT) -w -I$(FATFS0_TREE) $(EXTRA_CFLAGS) -c $< -o $@
STORAGE0_SRC := test/storage/test_storage.c test/storage/volume.c examples/sensor_logger/fs_stores.c \
                examples/sensor_logger/fatfs_disk.c port/adapters/fatfs/upq_fatfs.c
STORAGE0_OBJ := $(patsubst %.c,$(HOST)/storage-nofastseek/%.o,$(STORAGE0_SRC))
STORAGE0_BIN := $(HOST)/test/storage/test_storage_nofastseek
FS0_CFLAGS = -DSENSOR_WITH_FATFS=1 -isystem $(FATFS0_TREE) \
             $(if $(HAVE_LITTLEFS),-DSENSOR_WITH_LITTLEFS=1 -isystem $(LITTLEFS_DIR) -DLFS_NO_DEBUG -DLFS_NO_WARN)
$(STORAGE0_OBJ): $(HOST)/storage-nofastseek/%.o: %.c $(FATFS0_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $(FS0_CFLAGS) -MMD -MP -c $< -o $@
STORAGE0_LINK = $(STORAGE0_OBJ) $(FATFS0_TREE)/ff.o $(FATFS0_TREE)/ffunicode.o \
                $(filter-out %/upq_fatfs.o %/fatfs_disk.o %/fs_stores.o,$(FS_ADAPTER_OBJ)) \
                $(if $(HAVE_LITTLEFS),$(LITTLEFS_OBJ)) $(SENSOR_CORE_OBJ) $(SENSOR_CLI_OBJ)
$(STORAGE0_BIN): $(STORAGE0_LINK) $(LIB)
	$(CC) $(TEST_CFLAGS) -o $@ $(STORAGE0_LINK) $(call TEST_LIBS,$(LIB))
-include $(STORAGE0_OBJ:.o=.d)

# `make check`: the power cuts through both filesystems (littlefs at 100,000
# rows with 300 cuts among them), the reused card, and the other readers on
# the adapters' files (about 2 minutes of CPU)
.PHONY: check-storage check-storage-pending bench-storage
check-storage: $(STORAGE_BIN) $(STORAGE0_BIN) $(UPQ) $(INTEROP_STAMP)
	@bash test/storage/run.sh $(STORAGE_BIN) $(UPQ) $(NODE) $(CHECK_DIR)/storage $(STORAGE0_BIN)
CHECK_EXTRA_TARGETS += check-storage

# What the FatFs adapter's sector gathering reached on the way to the targets
# below: close and recovery write their page indexes and footer in whole
# sectors (at most 0.15x the file; 6.7x before); close reads at most 1.1x the
# file (1.00x: RG_SUM spares the footer's pass over the page headers and
# places the ColumnIndex's lists, which the scan that writes the
# OffsetIndex writes too; 1.92x, 2.78x before) in at most 0.45 read and
# write calls a KiB (0.39; 0.85 before the finisher's window ran on to the
# arena's end and a row group's records came a window at a time); FatFs
# recovery makes at most 0.85 read and write calls a KiB and reads at most
# 2.80x its file (0.82, 2.78x; 2.07, 2.77x before those two; 1.99, 2.66x of
# a file 4% larger in the same calls and sectors: replay reads a page's
# bytes once; 2.27, 2.93x before).
# littlefs at 100,000 rows:
# close at most 2.8 and recovery of the log cut 1,000 rows before its end
# at most 4.5 read + write calls per KiB of the file (2.74 and 4.04, 10.68
# before recovery sealed the cut row group at its RG_END; 5.60
# and 28.73 before the append sink's journal index, 3.37 and 11.79 with it
# and two streams gathered), programmed and erased at most 2.13x and 2.20x (2.11x,
# 2.19x of a file 4% smaller than the one that took 2.06x and 2.14x, in
# fewer bytes). About two seconds of CPU.
# The closed file over its live data (issue 27: <= 1.05x), from its footer
# as `upq meta` reads it (test/storage/file_live.py): the sensor logger's
# file (the same bytes through FatFs and littlefs) at 100,000 rows held
# <= 1.05 (1.043; 1.086 when row group 0's regions were sized from its
# first page's rows as they stood; 1.028 at 864,000 rows, 1.033 before),
# at 10,000 <= 1.08
# (1.073; 1.136 before). Under a second.
.PHONY: check-storage-held
check-storage-held: $(BENCH_STORAGE) $(HOST)/sensor_logger $(UPQ)
	$(BENCH_STORAGE) --fatfs-rows 100000 --littlefs-rows 100000 --check-held
	@rm -rf $(CHECK_DIR)/storage-held && mkdir -p $(CHECK_DIR)/storage-held # (the logger refuses to overwrite a log)
	@set -e; for t in 100000:1.05 10000:1.08; do \
	    $(HOST)/sensor_logger --rows $${t%%:*} $(CHECK_DIR)/storage-held/log-$${t%%:*}.parquet >/dev/null; \
	    python3 test/storage/file_live.py $(UPQ) $(CHECK_DIR)/storage-held/log-$${t%%:*}.parquet $${t#*:}; \
	done
CHECK_EXTRA_TARGETS += check-storage-held

# What waits for issue 27's other items (run.sh lists them on every run):
# the device-level targets (FatFs; littlefs's calls per KiB at close and
# recovery). Fails today.
check-storage-pending: $(BENCH_STORAGE)
	$(BENCH_STORAGE) --check --fatfs-rows 864000 --littlefs-rows 10000

# littlefs at 100,000 rows with issue 27's 300 cuts: make check-storage runs
# them now (STORAGE_LITTLEFS_BIG_CUTS in test/storage/run.sh); kept as a name
.PHONY: check-storage-littlefs-full
check-storage-littlefs-full: check-storage

# What the append layout would cost on littlefs, modelled before it is built
# (docs/writer.md, "Append layout"): `make append-model`, or the program's
# options for other rates and sizes
APPEND_MODEL := $(HOST)/test/storage/append_model
$(HOST)/test/storage/append_model.o: test/storage/append_model.c $(FATFS_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $(FS_CFLAGS) -MMD -MP -c $< -o $@
$(APPEND_MODEL): $(HOST)/test/storage/append_model.o $(STORAGE_LINK)
	$(CC) $(TEST_CFLAGS) -o $@ $< $(HOST)/test/storage/volume.o $(SENSOR_CORE_OBJ) $(SENSOR_CLI_OBJ) $(FS_OBJ) $(call TEST_LIBS,$(LIB))
.PHONY: append-model
append-model: $(APPEND_MODEL)
	@for r in 10000 100000 864000; do $(APPEND_MODEL) --rows $$r; done
	@for c in 300 1200; do $(APPEND_MODEL) --rows 100000 --checkpoint-rows $$c; done
	@for l in columns one; do $(APPEND_MODEL) --rows 100000 --layout $$l; done
	@$(APPEND_MODEL) --rows 100000 --no-seek

# `make bench`: the device-level figures
bench-storage: $(BENCH_STORAGE)
	@echo "== logging through FatFs and littlefs: device operations per byte of the file"
	@$(BENCH_STORAGE)
bench: bench-storage

$(HOST)/test/storage/volume.o: test/storage/volume.c $(FATFS_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $(FS_CFLAGS) -MMD -MP -c $< -o $@
