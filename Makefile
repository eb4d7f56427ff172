# kvplan: GNU make. `make` builds build/kvplan; `make test` runs every test;
# `make asan` runs them under AddressSanitizer and UBSan, `make ubsan` under
# clang's UBSan with float-cast-overflow; `make install` honours PREFIX and
# DESTDIR. Make never installs packages: a missing one is named, with the
# apt-get command, before anything compiles (tools/setup.sh installs them).

CC      ?= cc
PREFIX  ?= /usr/local
BUILD   ?= build
CFLAGS  ?= -O2 -g
WERROR  ?=
PKG_CONFIG ?= pkg-config

# Display strings are cut to their boxes on purpose; gcc's truncation
# warning says nothing useful about that (clang lacks the option).
NO_TRUNC := $(shell $(CC) -Werror -Wno-format-truncation -c -x c /dev/null -o /dev/null 2>/dev/null && echo -Wno-format-truncation)
STD   := -std=c11 -D_POSIX_C_SOURCE=200809L
WARN  := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
         -Wformat=2 -Wvla $(NO_TRUNC) $(WERROR)
BASE  := $(STD) $(WARN) -Isrc -I$(BUILD)/gen

# Recursive (=) so pkg-config runs after the deps stamp has checked things.
CJSON_CFLAGS  = $(shell $(PKG_CONFIG) --cflags libcjson)
CJSON_LIBS    = $(shell $(PKG_CONFIG) --libs libcjson)
CURSES_CFLAGS = $(shell $(PKG_CONFIG) --cflags ncursesw)
# ncursesw and its tinfo are linked from their archives when they are
# installed (Debian's and Ubuntu's libncurses-dev ship them): two shared
# libraries fewer for the dynamic loader to map and relocate at every start,
# about 440 thousand instructions of the 2.9 million `kvplan plan` took.
# STATIC_CURSES=no, or an archive missing, links the shared libraries.
STATIC_CURSES ?= yes
CURSES_A      = $(if $(filter yes,$(STATIC_CURSES)),$(foreach l,ncursesw tinfo,$(filter /%,$(shell $(CC) -print-file-name=lib$(l).a))))
CURSES_LIBS   = $(if $(word 2,$(CURSES_A)),$(CURSES_A) $(filter-out -L% -lncursesw -ltinfo,$(shell $(PKG_CONFIG) --static --libs ncursesw)),$(shell $(PKG_CONFIG) --libs ncursesw))
CMOCKA_CFLAGS = $(shell $(PKG_CONFIG) --cflags cmocka)
CMOCKA_LIBS   = $(shell $(PKG_CONFIG) --libs cmocka)

BUILD_DEPS := $(shell sed -n 's/^build: //p' tools/packages)
TEST_DEPS  := $(shell sed -n 's/^test: //p' tools/packages)

CORE_SRC := $(wildcard src/core/*.c)
IO_SRC   := $(wildcard src/io/*.c)
TUI_SRC  := $(wildcard src/tui/*.c)
APP_SRC  := $(wildcard src/app/*.c)
CLI_SRC  := $(wildcard src/cli/*.c)
PRESETS  := $(sort $(wildcard presets/gpus/*.json) $(wildcard presets/models/*.json)) \
            $(sort $(wildcard presets/datasets/*.csv))

CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o)
IO_OBJ   := $(IO_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/presets_embedded.o
TUI_OBJ  := $(TUI_SRC:%.c=$(BUILD)/%.o)
APP_OBJ  := $(APP_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
LIB_OBJ  := $(CORE_OBJ) $(IO_OBJ) $(TUI_OBJ) $(APP_OBJ) $(filter-out $(BUILD)/src/cli/main.o,$(CLI_OBJ))

UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))

.PHONY: all test unit cli-test e2e-test screenshots validate bands check-bands asan ubsan fuzz fuzz-replay fuzz-deps valgrind bench install uninstall clean deps test-deps check-layers run golden
.SECONDARY:

all: $(BUILD)/kvplan

deps: $(BUILD)/.deps
$(BUILD)/.deps: tools/deps.sh tools/packages
	@mkdir -p $(BUILD)
	@sh tools/deps.sh $(BUILD_DEPS)
	@touch $@

test-deps: $(BUILD)/.test-deps
$(BUILD)/.test-deps: tools/deps.sh tools/packages | $(BUILD)/.deps
	@sh tools/deps.sh $(TEST_DEPS)
	@touch $@

# Layer flags: only io/ sees cJSON, only tui/ and app/ see curses.
$(BUILD)/src/core/%.o: src/core/%.c | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(CC) $(BASE) $(CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/src/io/%.o: src/io/%.c | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(CC) $(BASE) $(CJSON_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/src/tui/%.o: src/tui/%.c | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(CC) $(BASE) $(CURSES_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/src/app/%.o: src/app/%.c | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(CC) $(BASE) $(CURSES_CFLAGS) $(CJSON_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/src/cli/%.o: src/cli/%.c | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(CC) $(BASE) $(CJSON_CFLAGS) $(CURSES_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# The preset catalogue, parsed and validated at build time by kvplan's own
# parser and compiled in as C initializers.
PRESET_TOOL_OBJ := $(BUILD)/src/io/preset.o $(BUILD)/src/io/preset_global.o $(BUILD)/src/io/preset_gguf.o \
                   $(BUILD)/src/io/preset_compressed.o $(BUILD)/src/io/jsonread.o $(BUILD)/src/io/trace.o \
                   $(BUILD)/src/io/jsonout.o $(BUILD)/src/io/fileio.o $(CORE_OBJ)
$(BUILD)/tools/compile-presets: tools/compile-presets.c $(PRESET_TOOL_OBJ) | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(CC) $(BASE) $(CJSON_CFLAGS) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(CJSON_LIBS) -lm
$(BUILD)/gen/presets_embedded.c: $(PRESETS) $(BUILD)/tools/compile-presets
	@mkdir -p $(@D)
	$(BUILD)/tools/compile-presets $@ $(PRESETS)
$(BUILD)/gen/presets_embedded.o: $(BUILD)/gen/presets_embedded.c
	$(CC) $(STD) -Isrc $(CFLAGS) -c $< -o $@

$(BUILD)/kvplan: $(LIB_OBJ) $(BUILD)/src/cli/main.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CJSON_LIBS) $(CURSES_LIBS) -lm

# Tests: cmocka unit tests, then the real binary.
$(BUILD)/tests/%.o: tests/unit/%.c | $(BUILD)/.test-deps
	@mkdir -p $(@D)
	$(CC) $(BASE) $(CJSON_CFLAGS) $(CURSES_CFLAGS) $(CMOCKA_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/tests/%: $(BUILD)/tests/%.o $(LIB_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(CJSON_LIBS) $(CURSES_LIBS) -lm

unit: $(UNIT_TESTS)
	@set -e; for t in $(UNIT_TESTS); do echo "== $$t"; ./$$t; done

cli-test: $(BUILD)/kvplan | $(BUILD)/.test-deps
	@sh tests/cli/run.sh $(BUILD)/kvplan
	@sh tests/hostile/run.sh $(BUILD)/kvplan
	@sh tests/hardening/run.sh $(BUILD)/kvplan
	@sh tests/cli/check_state_home.sh $(BUILD)/kvplan
	@/usr/bin/python3 tests/cli/check_import.py $(BUILD)/kvplan
	@/usr/bin/python3 tools/validate.py $(BUILD)/kvplan tests/data/calibration.json --check
	@/usr/bin/python3 tools/readme_examples.py $(BUILD)/kvplan --check
	@/usr/bin/python3 tools/fit_apple.py $(BUILD)/kvplan tests/data/speed-measurements.json --check
	@/usr/bin/python3 tools/fit_mfu.py $(BUILD)/kvplan tests/data/speed-measurements.json --check >/dev/null
	@/usr/bin/python3 tools/fit_ttft.py $(BUILD)/kvplan --check
	@out=$$(/usr/bin/python3 tools/validate_speed.py $(BUILD)/kvplan tests/data/speed-measurements.json \
	    --check --gate tests/data/speed-gate.json 2>&1) || { echo "$$out"; exit 1; }; echo "$$out" | tail -5
	@/usr/bin/python3 tools/check_load_data.py $(BUILD)/kvplan tests/data/load-measurements.json

# Fuzzing: a libFuzzer target per parser (tests/fuzz/fuzz_*.c). `make fuzz`
# runs each for FUZZ_SECONDS under ASan/UBSan (clang); `make test` replays
# the seed corpus and every past finding through the same targets.
FUZZ_TARGETS := preset snapshot session hfconfig hfimport enginelog units safetensors gguf
MUTATE_TARGETS := gguf
FUZZ_SECONDS ?= 30
FUZZ_CC ?= clang
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
FUZZ_SRC := $(CORE_SRC) $(IO_SRC)
FUZZ_OBJ := $(FUZZ_SRC:%.c=build/fuzz/%.o) build/fuzz/presets_embedded.o

FUZZ_BASE = $(filter-out -Wno-format-truncation,$(BASE))
fuzz-deps: $(BUILD)/.deps
	@sh tools/deps.sh cmd:clang=clang \
	  file:/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a=libclang-rt-dev

build/fuzz/src/%.o: src/%.c | fuzz-deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_BASE) $(CJSON_CFLAGS) $(FUZZ_FLAGS) -c $< -o $@
build/fuzz/presets_embedded.o: $(BUILD)/gen/presets_embedded.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(STD) -Isrc $(FUZZ_FLAGS) -c $< -o $@
build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_BASE) $(CJSON_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer $^ -o $@ $(CJSON_LIBS) -lm

fuzz: $(FUZZ_TARGETS:%=build/fuzz/fuzz_%)
	@set -e; for t in $(FUZZ_TARGETS); do \
	  mkdir -p build/fuzz/corpus-$$t build/fuzz/crashes; \
	  echo "== fuzz $$t for $(FUZZ_SECONDS) s"; \
	  build/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	    -max_len=65536 -print_final_stats=0 -artifact_prefix=build/fuzz/crashes/$$t- \
	    build/fuzz/corpus-$$t tests/fuzz/corpus/$$t $$(ls -d tests/fuzz/regressions/$$t 2>/dev/null) \
	    2>&1 | tail -2; \
	done; \
	if ls build/fuzz/crashes/* >/dev/null 2>&1; then \
	  echo "fuzz: findings in build/fuzz/crashes (copy each to tests/fuzz/regressions/TARGET/)"; exit 1; fi; \
	echo "fuzz: no findings"

# One target alone: `make fuzz-safetensors`, `make fuzz-gguf` (FUZZ_SECONDS as above).
fuzz-%: build/fuzz/fuzz_%
	@mkdir -p build/fuzz/corpus-$* build/fuzz/crashes
	build/fuzz/fuzz_$* -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	  -max_len=65536 -print_final_stats=1 -artifact_prefix=build/fuzz/crashes/$*- \
	  build/fuzz/corpus-$* tests/fuzz/corpus/$* $$(ls -d tests/fuzz/regressions/$* 2>/dev/null)

$(BUILD)/tests/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(LIB_OBJ) | $(BUILD)/.test-deps
	@mkdir -p $(@D)
	$(CC) $(BASE) $(CJSON_CFLAGS) $(CFLAGS) $(LDFLAGS) -Wno-missing-prototypes $^ -o $@ \
	  $(CJSON_LIBS) $(CURSES_LIBS) -lm

fuzz-replay: $(FUZZ_TARGETS:%=$(BUILD)/tests/replay_%)
	@set -e; for t in $(FUZZ_TARGETS); do printf "replay %-10s " $$t; \
	  $(BUILD)/tests/replay_$$t tests/fuzz/corpus/$$t tests/fuzz/regressions/$$t; done
	@set -e; for t in $(MUTATE_TARGETS); do printf "mutate %-10s " $$t; \
	  $(BUILD)/tests/replay_$$t --mutate tests/fuzz/corpus/$$t tests/fuzz/regressions/$$t; done

# The binary parsers' targets in MUTATE_TARGETS also run over a few hundred
# fixed mutations of each seed in `make test` (replay --mutate).

# The real planner on a pseudo-terminal (pyte), and through tmux.
e2e-test: $(BUILD)/kvplan | $(BUILD)/.test-deps
	@/usr/bin/python3 tests/e2e/test_tui.py $(BUILD)/kvplan
	@sh tests/e2e/tmux.sh $(BUILD)/kvplan

# PNG pictures of the real planner in screenshots/ (pyte + Pillow).
screenshots: $(BUILD)/kvplan
	@sh tools/deps.sh py:pyte=python3-pyte py:PIL=python3-pil cmd:tput=ncurses-bin \
	  file:/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf=fonts-dejavu-core
	/usr/bin/python3 tools/screenshots.py $(BUILD)/kvplan screenshots

# Every real engine log of the calibration set against kvplan: doc/VALIDATION.md;
# the speed model against public measurements: doc/SPEED-VALIDATION.md; the
# serving simulator against public latency-under-load sweeps: doc/LOAD-VALIDATION.md.
CALIBRATION ?= $(firstword $(wildcard ../shared/reference/calibration.json) tests/data/calibration.json)
validate: $(BUILD)/kvplan
	/usr/bin/python3 tools/validate.py $(BUILD)/kvplan $(CALIBRATION) --out doc/VALIDATION.md
	/usr/bin/python3 tools/validate_speed.py $(BUILD)/kvplan tests/data/speed-measurements.json
	/usr/bin/python3 tools/validate_load.py $(BUILD)/kvplan tests/data/load-measurements.json \
	  --out doc/LOAD-VALIDATION.md

# The spread the speed figures showed on the public measurements, by GPU
# family and engine: src/core/speedband_table.c (compiled in) and
# doc/SPEED-BANDS.md, generated from the data and the binary's predictions;
# the same for simulate's mean TTFT and TPOT: src/core/loadband_table.c and
# doc/LOAD-BANDS.md.
# check-bands fails when either is not what they give now; `make bands`
# writes them (then build again: the table is in the binary).
bands: $(BUILD)/kvplan
	/usr/bin/python3 tools/gen_speed_bands.py $(BUILD)/kvplan tests/data/speed-measurements.json
	/usr/bin/python3 tools/gen_load_bands.py $(BUILD)/kvplan

check-bands: $(BUILD)/kvplan
	@/usr/bin/python3 tools/gen_speed_bands.py $(BUILD)/kvplan tests/data/speed-measurements.json --check
	@/usr/bin/python3 tools/gen_load_bands.py $(BUILD)/kvplan --check

# Speed and memory, measured on the real binary (instructions with callgrind,
# bytes on a pseudo-terminal): bench/results.json, compared with bench/baseline.json.
$(BUILD)/tools/maxrss: tools/maxrss.c | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(CC) $(STD) -O1 -o $@ $<

$(BUILD)/tools/bench_steptime: tools/bench_steptime.c $(BUILD)/src/core/steptime.o | $(BUILD)/.deps
	@mkdir -p $(@D)
	$(CC) $(STD) -O2 -Isrc -o $@ $< $(BUILD)/src/core/steptime.o -lm

bench: $(BUILD)/kvplan $(BUILD)/tools/maxrss $(BUILD)/tools/bench_steptime | $(BUILD)/.test-deps
	@sh tools/deps.sh cmd:valgrind=valgrind
	/usr/bin/python3 tools/bench.py $(BUILD)/kvplan --out bench/results.json --compare bench/baseline.json

# Every unit test and command under valgrind: no invalid access, no leak.
valgrind: $(BUILD)/kvplan $(UNIT_TESTS)
	@sh tools/deps.sh cmd:valgrind=valgrind
	@sh tests/valgrind.sh $(BUILD)

check-layers:
	@sh tools/check-layers.sh

test: check-layers unit fuzz-replay cli-test check-bands e2e-test
	@echo "all tests passed"

# The planner keeps the files it opened in $XDG_STATE_HOME/kvplan/recent: the
# tests' go to the build folder, never to the user's list.
unit cli-test e2e-test valgrind golden screenshots: export XDG_STATE_HOME := $(abspath $(BUILD))/state

# Regenerates the golden outputs from the current binary: review the diff.
golden: $(BUILD)/kvplan
	@/usr/bin/python3 tools/readme_examples.py $(BUILD)/kvplan
	@for g in tests/golden/*.args; do n=$${g%.args}; \
	  ./$(BUILD)/kvplan plan --format text $$(cat $$g) > $$n.txt; \
	  ./$(BUILD)/kvplan plan --format json $$(cat $$g) > $$n.json; \
	  [ ! -f $$n.md ] || ./$(BUILD)/kvplan plan --format markdown $$(cat $$g) > $$n.md; done
	@for g in tests/golden/screens/*.args; do \
	  env -u NO_COLOR LC_ALL=C.UTF-8 ./$(BUILD)/kvplan --dump-screen $${g%.args}.screen --dump-attrs $$(cat $$g); done
	@git diff --stat -- tests/golden 2>/dev/null || true

asan:
	$(MAKE) BUILD=build/asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  LDFLAGS="-fsanitize=address,undefined" test

# clang's UndefinedBehaviorSanitizer with float-cast-overflow (gcc's UBSan
# lacks it: a double too large for its integer is undefined behaviour that
# otherwise goes unseen), over the unit tests, the fuzz corpus and the CLI
# suite. The planner's pty and tmux tests run under `make asan`.
UBSAN_FLAGS := -fsanitize=undefined,float-cast-overflow -fno-sanitize-recover=all
ubsan:
	$(MAKE) BUILD=build/ubsan CC=clang \
	  CFLAGS="-O1 -g $(UBSAN_FLAGS) -fno-omit-frame-pointer" LDFLAGS="$(UBSAN_FLAGS)" \
	  check-layers unit fuzz-replay cli-test

run: $(BUILD)/kvplan
	./$(BUILD)/kvplan

# Only what the program reads: the binary (the presets are compiled into it)
# and the man page.
install: $(BUILD)/kvplan
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/kvplan $(DESTDIR)$(PREFIX)/bin/kvplan
	install -m 644 doc/kvplan.1 $(DESTDIR)$(PREFIX)/share/man/man1/kvplan.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/kvplan $(DESTDIR)$(PREFIX)/share/man/man1/kvplan.1

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
