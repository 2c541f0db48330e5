"""Prototype: turns a dumped cluster-persistent row kernel into one that
loops over rows with the next row's copies in flight (double buffer)."""
import re, sys
src = open(sys.argv[1]).read()
name = sys.argv[2]; bound = sys.argv[3]
lines = src.split('\n')
start = next(i for i,l in enumerate(lines) if l.startswith('extern "C"'))
hdr = lines[start]
hdr = re.sub(r'__launch_bounds__\(\d+, \d+\)', f'__launch_bounds__({bound})', hdr).replace('f0_row_reduction', name)
body = lines[start+1:]
i_row = next(i for i,l in enumerate(body) if l.strip() == 'const kiln_index row = first_row;')
i_ext = next(i for i,l in enumerate(body) if 'extern __shared__' in l)
i_wait = next(i for i,l in enumerate(body) if l.strip() == 'kiln_copy_wait();')
pre = body[:i_row]
rowlines = body[i_row+1:i_ext]
ptrs = [l for l in body[i_ext+1:i_wait] if l.strip().startswith('KilnVec<')]
edecl = [l for l in body[i_ext+1:i_wait] if re.match(r"\s+.+ e_\w+ = 0;", l)]
loads = [l for l in body[i_ext+1:i_wait] if l not in ptrs and l not in edecl]
rest = body[i_wait+1:]
assert rest[-1] == '' and rest[-2] == '}', rest[-3:]
rest = rest[:-2]
pre = [l.replace('const kiln_index first_row = blockIdx.x / ', '// ') for l in pre]
seg = []
out = [hdr] + pre
out.append('  extern __shared__ __align__(16) unsigned char kiln_rows[];')
# segment bytes: from pointer offsets, assume one input
m = re.match(r'\s+KilnVec<(.+?), kV>\* const r_(\w+)', ptrs[0])
T, nm = m.group(1), m.group(2)
assert len(ptrs) == 1
out.append(f'  constexpr int kSegBytes = kSlots * kThreads * static_cast<int>(sizeof(KilnVec<{T}, kV>));')
out.append('  const kiln_index kUnits = kiln_cluster_count();')
edt = edecl[0].strip().rsplit(' e_', 1)[0]
nbuf = int(sys.argv[4])
D = nbuf - 1
out.append(f'  {edt} e_ring[{nbuf}] = {{}};')
out.append(f'  auto load_row = [&](const kiln_index row, const int buf, {edt}& e_next) {{')
out += ['  ' + l for l in rowlines]
out.append(f'    KilnVec<{T}, kV>* const r_{nm} = reinterpret_cast<KilnVec<{T}, kV>*>(kiln_rows + buf * kSegBytes);')
out += ['  ' + l.replace(f'e_{nm} =', 'e_next =') for l in loads]
out.append('  };')
out.append('  kiln_index row = kiln_cluster_id();')
out.append('#pragma unroll')
out.append(f'  for (int b = 0; b < {D}; ++b) {{')
out.append('    if (row + b * kUnits < kRows) load_row(row + b * kUnits, b, e_ring[b]);')
out.append('    asm volatile("cp.async.commit_group;" ::: "memory");')
out.append('  }')
out.append('  while (row < kRows) {')
out.append('#pragma unroll')
out.append(f'  for (int buf = 0; buf < {nbuf}; ++buf, row += kUnits) {{')
out.append('    if (row >= kRows) break;')
out.append(f'    const {edt} e_{nm} = e_ring[buf];')
out.append(f'    if (row + {D} * kUnits < kRows) load_row(row + {D} * kUnits, (buf + {D}) % {nbuf}, e_ring[(buf + {D}) % {nbuf}]);')
out.append('    asm volatile("cp.async.commit_group;" ::: "memory");')
out.append(f'    asm volatile("cp.async.wait_group {D};" ::: "memory");')
out += ['  ' + l for l in rowlines]
out.append(f'    KilnVec<{T}, kV>* const r_{nm} = reinterpret_cast<KilnVec<{T}, kV>*>(kiln_rows + buf * kSegBytes);')
out += ['  ' + l for l in rest]
out.append('  }')
out.append('  }')
out.append('}')
orig = '\n'.join([re.sub(r'f0_row_reduction', name + '_orig', lines[start])] + body)
print(orig)
print('\n'.join(out))
