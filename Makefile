# kiln: `make demo` and `make test` are all a newcomer needs (see README.md).
# `make test-sanitize` runs the suite under ASan + UBSan, `make fuzz` the
# libFuzzer targets of fuzz/ (FUZZ_SECONDS each); each has its own build folder.
BUILD ?= build
SANITIZE_BUILD ?= build-sanitize
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
DEB_PACKAGES := cmake ninja-build g++ libabsl-dev libprotobuf-dev protobuf-compiler libgtest-dev libgmock-dev libbenchmark-dev libonnx-dev python3-venv
# Debian 12's clang; its libFuzzer, ASan and UBSan runtimes are in libclang-rt-14-dev.
FUZZ_PACKAGES := clang-14 libclang-rt-14-dev
FUZZ_CXX ?= clang++-14
CUDA_ROOT ?= $(firstword $(wildcard /usr/local/cuda) /usr)
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
# The test suite is not checked for leaks: NVRTC keeps allocations for the life
# of the process. The fuzz targets, which never reach NVRTC, are.
SANITIZER_ENV := ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1
FUZZ_ENV := UBSAN_OPTIONS=print_stacktrace=1

.PHONY: all deps fuzz-deps configure build test demo test-sanitize fuzz clean oracle oracle-check

all: build

# Installs the Debian packages of $(1) that are missing; the CUDA toolkit must already be there.
install_missing = missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

deps:
	@$(call install_missing,$(DEB_PACKAGES))

fuzz-deps: deps
	@$(call install_missing,$(FUZZ_PACKAGES))

configure: deps
	@[ -f $(BUILD)/build.ninja ] || cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DCUDAToolkit_ROOT=$(CUDA_ROOT)

build: configure
	cmake --build $(BUILD)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j2

demo: build
	bash frontends/demo.sh $(BUILD)

test-sanitize: deps
	@[ -f $(SANITIZE_BUILD)/build.ninja ] || cmake -S . -B $(SANITIZE_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DCUDAToolkit_ROOT=$(CUDA_ROOT) -DKILN_SANITIZE=ON
	cmake --build $(SANITIZE_BUILD)
	$(SANITIZER_ENV) ctest --test-dir $(SANITIZE_BUILD) --output-on-failure -j2

fuzz: fuzz-deps
	@[ -f $(FUZZ_BUILD)/build.ninja ] || cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_CXX_COMPILER=$(FUZZ_CXX) -DCUDAToolkit_ROOT=$(CUDA_ROOT) -DKILN_FUZZ=ON
	cmake --build $(FUZZ_BUILD) --target kiln_fuzzers
	$(FUZZ_ENV) bash fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# The ONNX oracle (tests/onnx/README.md): onnx and onnxruntime from PyPI in a
# venv. `oracle` rewrites the committed test models; `oracle-check` (run by CI)
# checks that the script still writes exactly them.
ORACLE_VENV ?= $(BUILD)/oracle-venv
$(ORACLE_VENV)/installed: tests/onnx/requirements.txt
	python3 -m venv $(ORACLE_VENV)
	$(ORACLE_VENV)/bin/pip install -q -r tests/onnx/requirements.txt
	touch $@

oracle: deps $(ORACLE_VENV)/installed
	$(ORACLE_VENV)/bin/python tests/onnx/make_models.py tests/onnx/models

oracle-check: deps $(ORACLE_VENV)/installed
	$(ORACLE_VENV)/bin/python tests/onnx/make_models.py --check tests/onnx/models

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD) $(FUZZ_BUILD)
