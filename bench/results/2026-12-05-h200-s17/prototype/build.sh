set -e
cd "$(dirname "$0")"
b() { local n=$1; shift; nvcc -O3 -std=c++17 -arch=sm_90a -w -o $n harness.cu -DCASE_FILE="\"$1\"" -DNAME="\"$n\"" -DROWS=$2 -DCOLS=$3 -DELEM=$4 -DCLUSTER=$5 -DSMEM=$6 -DNARGS=$7 -DKERNEL_ORIG=$8_orig -DKERNEL_PIPE=$8 -DNBUF=$9 ${10} -lcuda; }
for n in 2 3; do
for r in "" -DKILN_RELAXED; do
t=${r:+_relaxed}
b sm32_${n}buf$t k_d1_$n.cu 512 131071 4 8 65536 2 k_d1_$n $n $r &
b sm16_${n}buf$t k_d3_$n.cu 1335 50257 2 4 32768 2 k_d3_$n $n $r &
b ln16_${n}buf$t k_d2_$n.cu 1335 50257 2 4 32768 4 k_d2_$n $n $r &
done; done
wait
