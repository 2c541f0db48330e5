# kiln: `make demo` and `make test` are all a newcomer needs (see README.md).
BUILD ?= build
DEB_PACKAGES := cmake ninja-build g++ libabsl-dev libprotobuf-dev protobuf-compiler libgtest-dev libgmock-dev libbenchmark-dev libonnx-dev python3-venv
CUDA_ROOT ?= $(firstword $(wildcard /usr/local/cuda) /usr)
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: all deps configure build test demo clean oracle oracle-check

all: build

# Installs the Debian packages that are missing; the CUDA toolkit must already be there.
deps:
	@missing=$$(for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

configure: deps
	@[ -f $(BUILD)/build.ninja ] || cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DCUDAToolkit_ROOT=$(CUDA_ROOT)

build: configure
	cmake --build $(BUILD)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j2

demo: build
	bash frontends/demo.sh $(BUILD)

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
	rm -rf $(BUILD)
