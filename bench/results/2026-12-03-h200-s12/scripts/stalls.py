"""Sums the warp-stall samples of an `ncu --page source --csv --print-source sass` export and lists
the instructions with the most samples: python3 stalls.py FILE.sass.csv [N]."""
import csv,sys
rows=list(csv.reader(open(sys.argv[1])))
h=rows[1]; data=rows[2:]
cols=[i for i,c in enumerate(h) if c.startswith('stall_') and 'Not Issued' not in c]
tot={h[i]:0 for i in cols}
def num(x):
    try: return float(x.replace(',',''))
    except: return 0
S=h.index('Warp Stall Sampling (All Samples)')
for r in data:
    for i in cols: tot[h[i]]+=num(r[i])
T=sum(tot.values())
print('total samples',T)
for k,v in sorted(tot.items(),key=lambda x:-x[1])[:8]: print(f'  {k} {v/T:.3f}')
top=sorted(data,key=lambda r:-num(r[S]))[:int(sys.argv[2]) if len(sys.argv)>2 else 12]
for r in top:
    st=sorted(((h[i],num(r[i])) for i in cols),key=lambda x:-x[1])[:3]
    print(r[0], r[1][:60].ljust(60), int(num(r[S])), st)
