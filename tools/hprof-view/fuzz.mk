# tools/hprof-view/fuzz.mk - `make fuzz`: libFuzzer (clang) on the CUBE
# reader and the views, under AddressSanitizer and UndefinedBehaviorSanitizer,
# for a bounded time. Included by the top-level Makefile.
#
#   make fuzz                  run FUZZ_SECONDS (default 60) on FUZZ_JOBS (1) workers
#   make fuzz FUZZ_SECONDS=600
#
# Seeds: profiles written by the test generators (tests/common/cube_tools),
# the files of tests/common/data (hprof's, and Score-P's and cubelib's that
# cubelib's tools wrote) and two small Score-P samples (CUBE_SAMPLES,
# tests/common/data/scorep-samples by default). The corpus grows in
# build/fuzz/corpus and is kept between runs; crashes land in
# build/fuzz/findings (crash-*, leak-*, timeout-*) and fail the target.
# Rerun one finding: build/fuzz/fuzz_reader build/fuzz/findings/crash-...

FUZZ_SECONDS ?= 60
FUZZ_JOBS    ?= 1
FUZZ_CC      ?= clang
CUBE_SAMPLES ?= tests/common/data/scorep-samples
# Self-contained (its own wildcards, the default goal left alone), so it
# can be included anywhere in the Makefile.
FUZZ_SAVED_GOAL := $(.DEFAULT_GOAL)
BUILD        ?= build
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SRCS    := tools/hprof-view/fuzz/fuzz_reader.c $(wildcard report/cube/reader/*.c) \
                $(filter-out tools/hprof-view/main.c,$(wildcard tools/hprof-view/*.c)) \
                $(BUILD)/tools/gen/view_html_template.c
FUZZ_HEADERS := $(wildcard report/cube/reader/*.h tools/hprof-view/*.h)

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_DIR)/fuzz_reader

$(FUZZ_DIR)/fuzz_reader: $(FUZZ_SRCS) $(FUZZ_HEADERS) tools/hprof-view/fuzz.mk
	@mkdir -p $(@D)
	$(FUZZ_CC) -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
	  -fno-sanitize-recover=undefined -I. $(FUZZ_SRCS) \
	  -o $@ -lexpat -lz -lm -lpthread

$(FUZZ_DIR)/seeds/stamp: $(wildcard tests/common/data/*.cubex tests/common/data/cubelib/*.cubex.gz) tests/common/cube_tools/view_profiles.c tests/common/cube_tools/write_profile.c $(wildcard report/cube/writer/*.c)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O1 -I. tests/common/cube_tools/view_profiles.c report/cube/writer/*.c -o $(FUZZ_DIR)/view_profiles -lz -lm
	$(CC) -std=gnu11 -O1 -I. tests/common/cube_tools/write_profile.c report/cube/writer/*.c -o $(FUZZ_DIR)/write_profile -lz -lm
	rm -f $(@D)/*.cubex
	$(FUZZ_DIR)/view_profiles drops $(@D)/drops.cubex
	$(FUZZ_DIR)/view_profiles threads $(@D)/threads.cubex
	$(FUZZ_DIR)/write_profile roundtrip $(@D)/rich.cubex > /dev/null
	cp tests/common/data/*.cubex $(@D)/
	for f in tests/common/data/cubelib/*.cubex.gz; do \
	  gzip -dc $$f > $(@D)/$$(basename $$f .gz) || exit 1; done
	for f in $(CUBE_SAMPLES)/call_tree_test/call_tree_test.cubex \
	         $(CUBE_SAMPLES)/test_only_files/cube-values_example.cubex; do \
	  [ -f $$f ] && cp $$f $(@D)/sample-$$(basename $$(dirname $$f)).cubex || true; done
	@touch $@

fuzz: $(FUZZ_DIR)/fuzz_reader $(FUZZ_DIR)/seeds/stamp
	@mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/findings
	cd $(FUZZ_DIR) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ./fuzz_reader -max_total_time=$(FUZZ_SECONDS) -jobs=$(FUZZ_JOBS) -workers=$(FUZZ_JOBS) \
	  -timeout=10 -rss_limit_mb=2048 -max_len=262144 -print_final_stats=1 \
	  -artifact_prefix=findings/ corpus seeds
	@if ls $(FUZZ_DIR)/findings/* > /dev/null 2>&1; then \
	  echo "fuzz: findings in $(FUZZ_DIR)/findings:"; ls $(FUZZ_DIR)/findings; exit 1; \
	else echo "fuzz: no findings in $(FUZZ_SECONDS) s"; fi

.DEFAULT_GOAL := $(FUZZ_SAVED_GOAL)
