# kiln: `make demo` and `make test` are all a newcomer needs (see README.md).
BUILD ?= build
DEB_PACKAGES := cmake ninja-build g++ libabsl-dev libprotobuf-dev protobuf-compiler libgtest-dev libgmock-dev libbenchmark-dev libonnx-dev
CUDA_ROOT ?= $(firstword $(wildcard /usr/local/cuda) /usr)
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: all deps configure build test demo clean

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

clean:
	rm -rf $(BUILD)
