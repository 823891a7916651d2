# A thin front door over CMake: every target first installs the Debian packages it needs and are
# missing, then configures, builds and runs. The real build lives in CMakeLists.txt.
#
#   make demo       the live table against the simulated device
#   make test       the whole test suite (unit, golden vectors, end to end)
#   make bench      the benchmark figures (tests/bench/run.sh)
#   make arm        cross build of the device hook for Cortex-M0+ and Cortex-M4, code size
#   make sanitize   the test suite under AddressSanitizer + UndefinedBehaviorSanitizer
#   make fuzz       the libFuzzer targets, FUZZ_SECONDS seconds in all (clang)
#   make install    installs into PREFIX (default /usr/local; DESTDIR honoured)
#   make package    the Debian package, in build/package/ (CPack, cmake/package.cmake)
#   make mpy        rebuilds the prebuilt native modules (MPY_SRC=a MicroPython clone with tags)
#   make clean      removes the build trees

BUILD        ?= build
ASAN_BUILD   ?= build-asan
FUZZ_BUILD   ?= build-fuzz
ARM_BUILD    ?= build-arm
BUILD_TYPE   ?= RelWithDebInfo
JOBS         ?= 2
FUZZ_SECONDS ?= 120
# Per test, for tests that do not set their own; the whole run is capped by TEST_TIMEOUT too.
CTEST_TIMEOUT ?= 300
TEST_TIMEOUT  ?= 1800
CMAKE_ARGS   ?=
PREFIX       ?= /usr/local
DESTDIR      ?=
# The build tool's own "Entering directory" lines are noise here.
MAKEFLAGS    += --no-print-directory

BASE_PKGS  := build-essential cmake pkg-config libserialport-dev libncurses-dev libcjson-dev \
              libcmocka-dev python3 socat tmux
# The rest of the suite: the emulated board (tests/e2e/qemu_*) and MicroPython's WebAssembly VM
# (tests/e2e/mpy_wasm.sh). Node.js comes from Debian only when there is no node and npm at all: a
# machine with another Node.js build (NodeSource's bundles npm) must not get Debian's npm.
TEST_PKGS  := gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm
# tests/e2e/pkg_*.sh: the installed man pages (man) and the zsh completion's syntax; the Prometheus
# server and promtool (tests/e2e/metrics_prometheus.sh)
PKG_TEST_PKGS := man-db zsh prometheus
NODE_PKGS  := nodejs npm
ARM_PKGS   := gcc-arm-none-eabi libnewlib-arm-none-eabi binutils-arm-none-eabi
# libclang-rt-dev holds libFuzzer and clang's sanitizer runtimes (clang only recommends it).
FUZZ_PKGS  := clang libclang-rt-dev
BENCH_PKGS := valgrind time
# CPack's DEB generator: dpkg-shlibdeps works out the dependencies; file finds the programs
PACKAGE_PKGS := dpkg-dev file

# Installs the missing ones among $(1). Needs root or sudo; says what it installs and why it can't.
define install_missing
	@missing=""; \
	for p in $(1); do \
	  dpkg-query -W -f='$${db:Status-Abbrev}' $$p 2>/dev/null | grep -q '^ii' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if ! command -v apt-get >/dev/null; then \
	    echo "make: missing packages:$$missing; this is not a Debian/Ubuntu system: install them by hand" >&2; exit 1; \
	  fi; \
	  if [ "$$(id -u)" = 0 ]; then sudo=""; \
	  elif command -v sudo >/dev/null; then sudo="sudo"; \
	  else echo "make: missing packages:$$missing; run as root or install sudo" >&2; exit 1; fi; \
	  echo "make: installing missing packages:$$missing"; \
	  $$sudo apt-get update -q && \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing \
	    || { echo "make: could not install:$$missing" >&2; exit 1; }; \
	fi
endef

.PHONY: all deps node-deps build test demo bench arm sanitize fuzz install package mpy clean help

all: build

help:
	@sed -n '4,14p' Makefile | sed 's/^# *//'

deps:
	$(call install_missing,$(BASE_PKGS))

node-deps:
	$(call install_missing,$(NODE_PKGS))

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS)
	cmake --build $(BUILD) -j$(JOBS)

test: build
	$(call install_missing,$(TEST_PKGS) $(PKG_TEST_PKGS))
	@if ! command -v node >/dev/null || ! command -v npm >/dev/null; then $(MAKE) --no-print-directory node-deps; fi
	timeout $(TEST_TIMEOUT) ctest --test-dir $(BUILD) -j$(JOBS) --output-on-failure --timeout $(CTEST_TIMEOUT)

# The live table needs a terminal; without one (a pipe, CI) the demo is five seconds of the report.
demo: build
	@if [ -t 0 ] && [ -t 1 ]; then ./$(BUILD)/host/aioprof-top --demo; else \
	  echo "make demo: no terminal, so no live table: five seconds of the simulated device as a report." >&2; \
	  ./$(BUILD)/host/aioprof-top --demo --duration 5 --report; fi

bench: build
	$(call install_missing,$(BENCH_PKGS))
	bash tests/bench/run.sh $(BUILD) $(ARM_BUILD)

arm:
	$(call install_missing,$(ARM_PKGS))
	bash cmake/arm-build.sh $(ARM_BUILD)

sanitize: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DAIOPROF_SANITIZE=ON $(CMAKE_ARGS)
	cmake --build $(ASAN_BUILD) -j$(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:verify_asan_link_order=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  timeout $(TEST_TIMEOUT) ctest --test-dir $(ASAN_BUILD) -j$(JOBS) --output-on-failure --timeout $(CTEST_TIMEOUT)

fuzz: deps
	$(call install_missing,$(FUZZ_PKGS))
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAIOPROF_FUZZ=ON \
	  -DAIOPROF_SANITIZE=ON $(CMAKE_ARGS)
	cmake --build $(FUZZ_BUILD) -j$(JOBS) --target fuzz_all aioprof-sim
	bash tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# `make && sudo make install` is the usual way: when the build tree exists, install only brings it
# up to date and installs, without configuring again or installing packages (as root, those
# would leave root's files in the user's build tree).
install:
	@[ -f $(BUILD)/CMakeCache.txt ] || $(MAKE) build
	cmake --build $(BUILD) -j$(JOBS)
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

package: build
	$(call install_missing,$(PACKAGE_PKGS))
	cpack --config $(BUILD)/CPackConfig.cmake

# The prebuilt native modules in device/micropython/mpy/, byte for byte from the release tags
# (device/micropython/mpy/build.py says how; docs/micropython.md, "Prebuilt native modules").
MPY_SRC  ?=
MPY_PKGS := gcc-arm-none-eabi libnewlib-arm-none-eabi gcc-riscv64-unknown-elf \
            picolibc-riscv64-unknown-elf gcc-xtensa-lx106 picolibc-xtensa-lx106-elf python3-pyelftools
mpy:
	@[ -n "$(MPY_SRC)" ] || { echo "make mpy: give MPY_SRC=<a MicroPython git clone with its release tags>" >&2; exit 2; }
	$(call install_missing,$(MPY_PKGS))
	/usr/bin/python3 device/micropython/mpy/build.py build --mpy-src "$(MPY_SRC)" --work $(BUILD)/mpy --jobs $(JOBS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(ARM_BUILD)
