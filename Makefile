# hprof - hybrid call-path profiler for MPI programs.
#
#   make               build libhprof (.so and .a) for each MPI library, and the tools
#   make check         install missing Debian packages, build, run every test
#   make demo          profile an example on 4 ranks and show the result
#   make bench         overhead and accuracy benchmarks
#   make check-clang, check-sanitizers, check-tsan, fuzz, format-check: what CI
#                      runs beside make check (tests/checks.mk, .ci/run)
#   make install PREFIX=/some/dir
#
# One build folder per MPI library: build/openmpi, build/mpich. Generated
# wrappers go to build/<mpi>/gen. Tools that need no MPI go to build/tools.

MPIS    ?= openmpi mpich
BUILD   ?= build
PREFIX  ?= /usr/local
PYTHON  ?= python3
VERSION := 0.1.0

CWARN   := -Wall -Wextra -Wno-unused-parameter
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 $(CWARN) -fPIC -fvisibility=hidden -DHPROF_VERSION='"$(VERSION)"' $(EXTRA_CFLAGS)
# One folder per floor (docs/architecture.md, tests/arch/layers.sh): core/
# (tree, clock, config, log; core/select: which functions to measure
# exactly), unwind/, report/ (cube/ the format, profile/ one rank's, merge/
# the ranks'), lib/ (the runtime) and wrappers/ on top. Includes name their
# folder (#include "core/cct.h"): one -I at the root.
CPPFLAGS += -I.
# The compiler lists each object's headers (build/.../x.d, included below):
# a header change rebuilds only what includes it. -MP keeps a removed
# header from breaking the build.
DEPFLAGS := -MMD -MP
RUNTIME_LIBS := -lunwind -ldw -lelf -lz -ldl -lpthread -lm
# PAPI (HPROF_METRICS, lib/sampling/papi_events.c): on when papi.h is found (Debian:
# libpapi-dev), off with `make PAPI=0` (after `make clean`). libhprof.so
# needs libpapi; libhprof.a refers to it weakly (link -lpapi to count events).
PAPI ?= $(shell printf '\043include <papi.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && echo 1 || echo 0)
ifeq ($(PAPI),1)
CFLAGS += -DHPROF_PAPI
RUNTIME_LIBS += -Wl,--push-state,--no-as-needed -lpapi -Wl,--pop-state
endif
# All runtime code goes to one section, hprof_text, so the sampler can tell
# "inside hprof" from the program by address, linked statically or not
# (core/own_code.h). Keeping every function in .text first makes that a
# plain rename. (clang has neither option and does neither without a
# profile: `make check-clang` sets RUNTIME_CFLAGS empty.)
RUNTIME_CFLAGS ?= -fno-reorder-functions -fno-reorder-blocks-and-partition
RUNTIME_TEXT   := objcopy --rename-section .text=hprof_text
# ...except the thread trampoline, which sits below every thread's own frames,
# and the functions exact_calib.c times as the program's own.
OUTSIDE_TEXT   := lib/threads/thread_start.c lib/exact/exact_calib_code.c
# What runs at an exactly measured function's entry and exit with its
# vector registers live (arguments, return values): no vector register used.
GENERAL_REGS   := lib/exact/exact_entry.c unwind/exact_stack.c
VIEW_LIBS    := -lexpat -lz -lm
# C++ names are demangled by libiberty's demangler (core/demangle.h), its one
# object taken from libiberty-dev's PIC archive into libhprof and kept out of
# what it exports: the .so's version script, the .a's localized names.
LIBIBERTY    ?= /usr/lib/$(shell $(CC) -print-multiarch)/libiberty.a

RUNTIME_SRCS := $(wildcard core/*.c core/*/*.c unwind/*.c unwind/*/*.c report/cube/writer/*.c report/profile/*.c report/merge/*.c lib/*.c lib/*/*.c wrappers/*.c)
READER_SRCS  := $(wildcard report/cube/reader/*.c)
VIEW_SRCS    := $(wildcard tools/hprof-view/*.c)
GEN_INPUTS   := $(wildcard wrappers/*.txt wrappers/*.py)

.PHONY: check-unit all deps check demo bench soak install clean tools $(MPIS)
all: $(MPIS) tools

deps:
	@tools/install-deps

# Each build folder keeps the flags its objects were compiled with in a
# file, BUILD/<folder>/flags, rewritten only when they change; its objects
# depend on it. A build with other flags (EXTRA_CFLAGS for a throwaway
# variant, PAPI=0, another compiler) then rebuilds every object, not only
# those whose sources changed, and a later plain `make` rebuilds them back.
# $(1): the file, $(2): the name of the variable that holds the flags.
define keep_flags
ifneq ($$(strip $$($(2))),$$(strip $$(file <$(1))))
$$(shell mkdir -p $$(dir $(1)))
$$(file >$(1),$$(strip $$($(2))))
endif
$(1): ;
endef

# ---- the runtime library, once per MPI library ---------------------------
define MPI_template
$(1)_DIR  := $(BUILD)/$(1)
$(1)_OBJS := $$(patsubst %.c,$(BUILD)/$(1)/obj/%.o,$(RUNTIME_SRCS)) \
             $(BUILD)/$(1)/obj/gen/wrappers_c.o $(BUILD)/$(1)/obj/gen/wrappers_f.o \
             $(BUILD)/$(1)/obj/gen/wrappers_f08.o $(BUILD)/$(1)/obj/gen/fn_table.o \
             $(BUILD)/$(1)/obj/gen/remapping_spec.o $(BUILD)/$(1)/obj/third/cp-demangle.o

$(1): $(BUILD)/$(1)/libhprof.so $(BUILD)/$(1)/libhprof.a $(BUILD)/$(1)/libhprof_internal.a

$(1)_FLAGS = mpicc.$(1) $$(OMPI_CC) $$(MPICH_CC) $$(CPPFLAGS) $$(CFLAGS) $$(RUNTIME_CFLAGS)
$$(eval $$(call keep_flags,$(BUILD)/$(1)/flags,$(1)_FLAGS))

$(BUILD)/$(1)/gen/stamp: $(GEN_INPUTS)
	@mkdir -p $$(@D)
	$(PYTHON) wrappers/gen_wrappers.py --mpicc mpicc.$(1) --outdir $(BUILD)/$(1)/gen
	@touch $$@

$(BUILD)/$(1)/gen/wrappers_c.c $(BUILD)/$(1)/gen/wrappers_f.c $(BUILD)/$(1)/gen/wrappers_f08.c $(BUILD)/$(1)/gen/fn_table.c $(BUILD)/$(1)/gen/fn_ids.h: $(BUILD)/$(1)/gen/stamp

$(BUILD)/$(1)/gen/remapping_spec.c: report/profile/remapping.spec tools/embed_text.py
	@mkdir -p $$(@D)
	$(PYTHON) tools/embed_text.py $$< $$@.tmp hprof_remapping_spec report/profile/remapping_spec.h && mv $$@.tmp $$@

$(BUILD)/$(1)/obj/third/cp-demangle.o: $(LIBIBERTY)
	@mkdir -p $$(@D)
	cd $$(@D) && ar x $(LIBIBERTY) cp-demangle.o
	$(RUNTIME_TEXT) $$@
	@touch $$@

# Every object waits for the generated headers (fn_ids.h) the first time;
# after that its .d file says which headers it reads.
$(BUILD)/$(1)/obj/gen/%.o: $(BUILD)/$(1)/gen/%.c $(BUILD)/$(1)/gen/stamp $(BUILD)/$(1)/flags
	@mkdir -p $$(@D)
	mpicc.$(1) $(CPPFLAGS) -I$(BUILD)/$(1) $(CFLAGS) $(DEPFLAGS) $(RUNTIME_CFLAGS) -fno-omit-frame-pointer -c $$< -o $$@
	$(RUNTIME_TEXT) $$@

$(BUILD)/$(1)/obj/%.o: %.c $(BUILD)/$(1)/gen/stamp $(BUILD)/$(1)/flags
	@mkdir -p $$(@D)
	mpicc.$(1) $(CPPFLAGS) -I$(BUILD)/$(1) $(CFLAGS) $(DEPFLAGS) $(RUNTIME_CFLAGS) $$(if $$(filter $(GENERAL_REGS),$$<),-mgeneral-regs-only) -c $$< -o $$@
	$$(if $$(filter $(OUTSIDE_TEXT),$$<),,$(RUNTIME_TEXT) $$@)

$(BUILD)/$(1)/libhprof.so: $$($(1)_OBJS) lib/exports.map
	mpicc.$(1) -shared -Wl,--version-script=lib/exports.map -o $$@ $$($(1)_OBJS) $(RUNTIME_LIBS)

# libhprof.a: one relocatable object whose hidden symbols are made local,
# so that a static link sees only what libhprof.so exports (MPI_*, the
# Fortran names, the interposers of lib/exports.map) and no internal name
# (cct_child, hmap_new, ...) collides with the program's own
# (tests/arch/archive_symbols.sh). libhprof_internal.a keeps the objects
# as they are, for the white-box tests that call internals.
$(BUILD)/$(1)/libhprof.a: $$($(1)_OBJS)
	$(LD) -r -o $(BUILD)/$(1)/libhprof.o $$^
	nm -g --defined-only $(BUILD)/$(1)/obj/third/cp-demangle.o | awk 'NF == 3 { print $$$$3 }' > $(BUILD)/$(1)/third.syms
	objcopy --localize-hidden --localize-symbols=$(BUILD)/$(1)/third.syms $(BUILD)/$(1)/libhprof.o
	rm -f $$@ && ar rcs $$@ $(BUILD)/$(1)/libhprof.o

$(BUILD)/$(1)/libhprof_internal.a: $$($(1)_OBJS)
	rm -f $$@ && ar rcs $$@ $$^

-include $$($(1)_OBJS:.o=.d)
endef
$(foreach m,$(MPIS),$(eval $(call MPI_template,$(m))))

# ---- tools that need no MPI -----------------------------------------------
tools: $(BUILD)/tools/hprof-view $(BUILD)/tools/hprof-merge

# The HTML page's source is html/report.html; its C form (string literals)
# is generated, like the wrappers.
VIEW_HTML_C := $(BUILD)/tools/gen/view_html_template.c
VIEW_OBJS := $(patsubst %.c,$(BUILD)/tools/obj/%.o,$(READER_SRCS) $(VIEW_SRCS)) \
             $(BUILD)/tools/obj/gen/view_html_template.o

$(VIEW_HTML_C): tools/hprof-view/html/report.html tools/hprof-view/html/embed.py
	@mkdir -p $(@D)
	$(PYTHON) tools/hprof-view/html/embed.py $< $@.tmp && mv $@.tmp $@

TOOLS_FLAGS = $(CC) $(CPPFLAGS) $(CFLAGS)
$(eval $(call keep_flags,$(BUILD)/tools/flags,TOOLS_FLAGS))

$(BUILD)/tools/obj/gen/view_html_template.o: $(VIEW_HTML_C) $(BUILD)/tools/flags
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/tools/obj/%.o: %.c $(BUILD)/tools/flags
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/tools/hprof-view: $(VIEW_OBJS)
	$(CC) -o $@ $^ $(VIEW_LIBS)

-include $(VIEW_OBJS:.o=.d)

# hprof-merge: report/'s definitions and CUBE writer, serially, without MPI
MERGE_TOOL_SRCS := $(wildcard tools/hprof-merge/*.c) $(READER_SRCS) $(wildcard report/cube/writer/*.c) \
                   report/profile/defs.c report/profile/metrics.c report/profile/locations_file.c core/hashmap.c core/idset.c core/config.c core/log.c
MERGE_TOOL_OBJS := $(patsubst %.c,$(BUILD)/tools/obj/%.o,$(MERGE_TOOL_SRCS))

$(BUILD)/tools/hprof-merge: $(MERGE_TOOL_OBJS)
	$(CC) -o $@ $^ $(VIEW_LIBS) -lpthread

-include $(MERGE_TOOL_OBJS:.o=.d)

# ---- tests, demo, bench -----------------------------------------------------
check: deps
	$(MAKE) all
	@tests/run.sh $(MPIS)

# The fast tier: tests/unit (parts alone, no MPI run) and tests/arch (the
# floors, headers, exported symbols, docs against code).
check-unit: all
	@TEST_KINDS="unit arch" TEST_NO_INTEROP=1 tests/run.sh

demo: deps
	$(MAKE) all
	@examples/demo.sh

bench: deps
	$(MAKE) all
	@bench/run.sh

soak: deps
	$(MAKE) all
	@bench/soak.sh
	@UNWIND_ROWS_FULL=1 TEST_FILTER=unwind_rows tests/run.sh $(MPIS)

# Each MPI library's build, its pkg-config file (hprof-<mpi>.pc; hprof.pc is
# the first of MPIS, Debian's default mpicc's), the tools and the manual pages.
PC_SED = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' -e "s|@MPI@|$$m|g" lib/hprof.pc.in
install: all
	@install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig
	@for m in $(MPIS); do \
	  install -d $(DESTDIR)$(PREFIX)/lib/hprof/$$m && \
	  install -m 755 $(BUILD)/$$m/libhprof.so $(DESTDIR)$(PREFIX)/lib/hprof/$$m/ && \
	  install -m 644 $(BUILD)/$$m/libhprof.a $(DESTDIR)$(PREFIX)/lib/hprof/$$m/ && \
	  $(PC_SED) > $(DESTDIR)$(PREFIX)/lib/pkgconfig/hprof-$$m.pc || exit 1; \
	  [ -e $(DESTDIR)$(PREFIX)/lib/pkgconfig/hprof.pc ] || \
	    $(PC_SED) | sed "s|^Name: hprof-$$m|Name: hprof|" > $(DESTDIR)$(PREFIX)/lib/pkgconfig/hprof.pc; \
	done
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 644 docs/man/hprof-run.1 docs/man/hprof-view.1 docs/man/hprof-merge.1 docs/man/hprof-snapshot.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 docs/man/hprof.7 $(DESTDIR)$(PREFIX)/share/man/man7/
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BUILD)/tools/hprof-view $(DESTDIR)$(PREFIX)/bin/hprof-view
	install -m 755 $(BUILD)/tools/hprof-merge $(DESTDIR)$(PREFIX)/bin/hprof-merge
	sed 's|@HPROF_LIBDIR@|$(PREFIX)/lib/hprof|' tools/hprof-run > $(DESTDIR)$(PREFIX)/bin/hprof-run
	chmod 755 $(DESTDIR)$(PREFIX)/bin/hprof-run
	install -m 755 tools/hprof-snapshot $(DESTDIR)$(PREFIX)/bin/hprof-snapshot
	install -d $(DESTDIR)$(PREFIX)/share/hprof/python
	install -m 644 tools/python/hprof_hatchet.py $(DESTDIR)$(PREFIX)/share/hprof/python/

clean:
	rm -rf $(BUILD)

# make -s print-CPPFLAGS: a variable's value, for the tests that compile
# hprof's sources or headers themselves (tests/arch/headers_alone.sh).
print-%:
	@:$(info $($*))

include tools/hprof-view/fuzz.mk
include tests/checks.mk
