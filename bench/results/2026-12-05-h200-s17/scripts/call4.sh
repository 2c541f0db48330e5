# s17 call 4: the cases call 3 found slower with the st.async exchange, and
# some it found faster, under three binaries: old (cluster barriers), new
# (st.async, polling mbarrier waits), hint (the same waits with a suspend
# hint); then ncu of layernorm [523, 128256] f32 under each.
t() { KILN_CACHE_DIR=/tmp/kc_$1 .gpu/run kiln_$1 run .gpu/graphs/$2.textproto --iters=30 --no-check | awk '/^total/ {print $(NF-3)}'; }
for f in $(cat .gpu/subset.txt); do
  echo "$f old $(t old $f) new $(t new $f) hint $(t hint $f) old $(t old $f) new $(t new $f) hint $(t hint $f)"
done > $OUT/timing4.txt
for b in old new hint; do
  KILN_CACHE_DIR=/tmp/kc_$b timeout 100 ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats -k regex:f0_ -c 1 .gpu/run kiln_$b run .gpu/graphs/layernorm_523x128256_f32.textproto --iters=1 --no-check > $OUT/ncu_ln_$b.txt 2>&1
done
