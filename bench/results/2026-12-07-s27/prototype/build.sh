#!/bin/bash
# Builds the prototype here (nvcc, no GPU needed) into .gpu/bin for the device call.
set -e
cd "$(dirname "$0")"
../../../../build/kiln emit ../../../../.gpu/graphs9/layernorm_1335x50257_bf16.textproto > kiln_layernorm_1335x50257_bf16.cu
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -w -Xptxas -v -o ../../../../.gpu/bin/rows_per_block \
  rows_per_block.cu -DKILN_SOURCE='"kiln_layernorm_1335x50257_bf16.cu"' 2> ptxas.txt
