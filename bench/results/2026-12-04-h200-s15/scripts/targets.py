import json, re, math, collections, sys
d=json.load(open(sys.argv[1]))['cases']
L2=50*2**20
def largest(c): 
    return max(math.prod(s) for s in c['inputs'].values())*{'f32':4,'bf16':2,'f16':2}[c['dtype']]
big=[c for c in d if 'kiln_us' in c and largest(c)>L2]
print("cases", len(d), "largest tensor > L2:", len(big))
for cls in ['pointwise','row','axis_reduction','transpose']:
    cs=[c for c in big if c['class']==cls]
    ok=[c for c in cs if c['kiln_fraction_of_copy']>=0.9]
    print(f"  {cls}: {len(ok)}/{len(cs)} at >= 0.90 of copy")
print("all:", sum(c['kiln_fraction_of_copy']>=0.9 for c in big), "/", len(big))
slower=[c for c in d if c.get('kiln_speedup_vs_faster_peer',2)<1.0]
print("kiln >= 1.0x faster peer:", len(d)-len(slower), "/", len(d), f"({100*(len(d)-len(slower))/len(d):.1f}%)")
# axis reductions
ax=[c for c in big if c['class']=='axis_reduction']
lead=[c for c in ax if 'axis0' in c['name']]
print("leading-axis above L2:", len(lead), "min frac", min(c['kiln_fraction_of_copy'] for c in lead) if lead else None, "below .9:", [(c['name'],round(c['kiln_fraction_of_copy'],3)) for c in lead if c['kiln_fraction_of_copy']<0.9])
tr=[c for c in big if c['class']=='transpose']
print("transposes above L2 below .85:", [(c['name'],round(c['kiln_fraction_of_copy'],3)) for c in tr if c['kiln_fraction_of_copy']<0.85], "of", len(tr))
pw=[c for c in big if c['class']=='pointwise' and c['dtype']!='f32' and not c['name'].startswith('pointwise1_')]
print("16-bit multi-input pointwise above L2 below .92:", [(c['name'],round(c['kiln_fraction_of_copy'],3)) for c in pw if c['kiln_fraction_of_copy']<0.92], "of", len(pw))
nb=[c for c in big if c['dtype']=='bf16' and re.match(r'(layernorm|rmsnorm|softmax)_',c['name'])]
print("bf16 normalizations above L2:", sum(c['kiln_fraction_of_copy']>=0.9 for c in nb), "/", len(nb))
# odd rows
by={c['name']:c for c in d if 'kiln_us' in c}
pairs=[]
for n,c in by.items():
    m=re.match(r'([a-z]+)_(\d+)x(\d+)_(\w+)$', n)
    if not m: continue
    op,r,k,dt=m.groups(); k=int(k)
    if k%8==0: continue
    k8=(k+7)//8*8
    o=by.get(f"{op}_{r}x{k8}_{dt}")
    if o: pairs.append((c['kiln_us']/o['kiln_us'], n, c['kiln_us'], o['name'], o['kiln_us']))
pairs.sort()
print("odd-row pairs:", len(pairs), "within 10%:", sum(p[0]<=1.1 for p in pairs))
for p in pairs:
    if p[0]>1.1: print(f"   {p[1]} {p[2]:.1f} vs {p[3]} {p[4]:.1f}: {p[0]:.2f}x")
print("odd rows against the next multiple of 8 (same op and dtype, traffic within 10%): time per byte")
cases=[(re.match(r'([a-z]+)_(\d+)x(\d+)_(\w+)$', n), c) for n,c in by.items()]
cases=[(m.groups(),c) for m,c in cases if m]
res=[]
for (op,r,k,dt),c in cases:
    k=int(k)
    if k%8==0 or k<8: continue
    k8=(k+7)//8*8
    best=None
    for (op2,r2,kk,dt2),o in cases:
        if op2==op and dt2==dt and int(kk)==k8 and abs(o['bytes']/c['bytes']-1)<0.1:
            best=o
    if best:
        ratio=(c['kiln_us']/c['bytes'])/(best['kiln_us']/best['bytes'])
        res.append((ratio,c['name'],c['kiln_us'],best['name'],best['kiln_us']))
res.sort()
print(len(res), "pairs; within 10%:", sum(r[0]<=1.1 for r in res))
for r in res:
    if r[0]>1.1: print(f"   {r[1]} {r[2]:.1f} us vs {r[3]} {r[4]:.1f} us: {r[0]:.2f}x per byte")
