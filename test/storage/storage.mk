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

# `make check`: the power cuts through both filesystems, the reused card,
# and the other readers on the adapters' files (about 2 minutes of CPU, and
# about 1 more for littlefs at 100,000 rows with 30 cuts)
.PHONY: check-storage check-storage-pending bench-storage
check-storage: $(STORAGE_BIN) $(UPQ) $(INTEROP_STAMP)
	@bash test/storage/run.sh $(STORAGE_BIN) $(UPQ) $(NODE) $(CHECK_DIR)/storage
CHECK_EXTRA_TARGETS += check-storage

# What waits for issue 27's other items (run.sh lists them on every run):
# the device-level targets (FatFs; littlefs's calls per KiB at close and
# recovery), a reused card without the FatFs adapter's gap zeroing (records
# bound to their file). Fails today.
check-storage-pending: $(STORAGE_BIN) $(BENCH_STORAGE)
	@rc=0; \
	$(STORAGE_BIN) --fs fatfs --reused --keep-gaps --rows 20000 --cuts 60 --resume-rows 100 | tail -1 || rc=1; \
	$(BENCH_STORAGE) --check --fatfs-rows 864000 --littlefs-rows 10000 || rc=1; \
	exit $$rc

# littlefs at 100,000 rows with issue 27's 300 cuts (passes; about 10 minutes
# of CPU, so `make check` runs 30 of them)
.PHONY: check-storage-littlefs-full
check-storage-littlefs-full: $(STORAGE_BIN)
	@mkdir -p $(CHECK_DIR); \
	$(STORAGE_BIN) --fs littlefs --rows 100000 --cuts 300 --resume-rows 100 >$(CHECK_DIR)/littlefs-full.log; \
	rc=$$?; grep -v '^ok' $(CHECK_DIR)/littlefs-full.log; exit $$rc

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
