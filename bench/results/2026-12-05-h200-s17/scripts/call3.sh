# s17 call 3: cluster reductions through st.async + mbarriers (kiln_new)
# against cluster barriers (kiln_old, main b73006d), on every split-row case
# of the sweep: each checked against the CPU reference once, then timed
# old/new/old/new with separate kernel caches.
export KILN_CACHE_DIR=/tmp/kc_new
for f in $(cat .gpu/cases.txt); do
  .gpu/run kiln_new run .gpu/graphs/$f.textproto --iters=3 > /tmp/chk.txt 2>&1
  echo "$f rc=$? $(grep -i -m2 'check\|error' /tmp/chk.txt | tr '\n' ' ')"
done > $OUT/checks.txt
t() { KILN_CACHE_DIR=/tmp/kc_$1 .gpu/run kiln_$1 run .gpu/graphs/$2.textproto --iters=30 --no-check | awk '/^total/ {print $(NF-3)}'; }
for f in $(cat .gpu/cases.txt); do
  echo "$f old $(t old $f) new $(t new $f) old $(t old $f) new $(t new $f)"
done > $OUT/timing.txt
