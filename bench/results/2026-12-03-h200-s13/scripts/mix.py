"""Instruction mix per element of an `ncu --page source --csv --print-source sass` export: each opcode's
executed thread instructions divided by the elements. python3 mix.py FILE.sass.csv ELEMENTS [N]."""
import collections
import csv
import sys

rows = list(csv.reader(open(sys.argv[1])))
header, data = rows[1], rows[2:]
executed = header.index('Instructions Executed')
per_warp = float(sys.argv[2]) / 32


def num(text):
    try:
        return float(text.replace(',', ''))
    except ValueError:
        return 0.0


counts = collections.Counter()
for row in data:
    words = row[1].split()
    if not words:
        continue
    opcode = words[1] if words[0].startswith('@') else words[0]
    counts[opcode.split('.')[0]] += num(row[executed])
print(f'instructions an element: {sum(counts.values()) / per_warp:.2f}')
for opcode, count in counts.most_common(int(sys.argv[3]) if len(sys.argv) > 3 else 16):
    print(f'  {opcode:<12} {count / per_warp:.2f}')
