set -x
cd .gpu_proto
for f in softmax_512x131071_f32 softmax_1335x50257_bf16 layernorm_1335x50257_bf16; do ./$f; done 2>&1 | tee $OUT/proto.txt
cd ..
for f in softmax_512x131071_f32 softmax_1335x50257_bf16 layernorm_1335x50257_bf16; do
  for k in 1 2 3; do .gpu/run kiln run .gpu/graphs/$f.textproto --iters=30 --no-check | awk -v f=$f '/^total/ {print f, $(NF-3)}'; done
done 2>&1 | tee $OUT/kiln.txt
