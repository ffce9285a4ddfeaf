# tests/checks.mk - the configurations CI runs beside `make check` (.ci/run),
# each one runnable alone. Included by the top-level Makefile.
#
#   make check-clang       libhprof for every MPI library and the tools built
#                          with clang and -Werror (build/clang)
#   make check-sanitizers  ASan+UBSan: the programs tests/common builds, the
#                          runtime in MPI programs (tests/mpi/reliability_asan.sh,
#                          each MPI library), hprof-view on their profiles
#   make check-tsan        ThreadSanitizer: the recipe table, the learner queue
#   make fuzz              libFuzzer on the CUBE reader (tools/hprof-view/fuzz.mk)
#   make format-check      clang-format --dry-run -Werror (.clang-format) over
#                          the project's C files; one line and success without clang-format

.PHONY: check-clang check-sanitizers check-tsan format-check
# clang has neither of RUNTIME_CFLAGS' options (the Makefile says why it
# needs none); OMPI_CC and MPICH_CC make mpicc.<mpi> call clang.
check-clang:
	$(MAKE) BUILD=$(BUILD)/clang CC=clang OMPI_CC=clang MPICH_CC=clang RUNTIME_CFLAGS= \
	  EXTRA_CFLAGS=-Werror all

check-sanitizers: all
	tests/sanitizers/common_asan.sh
	TEST_FILTER=reliability_asan tests/run.sh $(MPIS)

check-tsan:
	tests/sanitizers/tsan_tables.sh

# Generated code lives in the build folder; there is no third-party C code.
FORMAT_FILES = $(shell git ls-files '*.c' '*.h' 2>/dev/null || find core unwind report lib wrappers tools tests bench examples -name '*.[ch]')
CLANG_FORMAT ?= clang-format
format-check:
	@if ! command -v $(CLANG_FORMAT) > /dev/null; then echo "format-check: skipped, no $(CLANG_FORMAT)"; \
	else $(CLANG_FORMAT) --dry-run -Werror $(FORMAT_FILES) && echo "format-check: $(words $(FORMAT_FILES)) files as .clang-format says"; fi
