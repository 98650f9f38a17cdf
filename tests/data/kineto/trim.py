import json,sys
src,dst,a,b=sys.argv[1],sys.argv[2],float(sys.argv[3]),float(sys.argv[4])
d=json.load(open(src))
ev=d['traceEvents']
t0=min(e['ts'] for e in ev if e.get('ph')=='X' and isinstance(e.get('ts'),(int,float)))
lo,hi=t0+a*1e6,t0+b*1e6
keep=[]
corr=set()
rts=[e for e in ev if e.get('cat')=='cuda_runtime' and lo<=e['ts']<hi]
for e in ev:
    c=e.get('cat')
    if c=='cuda_runtime' and lo<=e['ts']<hi:
        corr.add(e['args'].get('correlation'))
for e in ev:
    c=e.get('cat'); ph=e.get('ph')
    if ph=='M' or c=='Trace': keep.append(e); continue
    if c in ('cpu_op','user_annotation','python_function'):
        if any(r['tid']==e['tid'] and e['ts']<=r['ts'] and r['ts']+r['dur']<=e['ts']+e['dur'] for r in rts): keep.append(e)
        continue
    if c=='cuda_runtime':
        if lo<=e['ts']<hi: keep.append(e)
        continue
    if c in ('kernel','gpu_memcpy','gpu_memset','gpu_user_annotation'):
        if e.get('args',{}).get('correlation') in corr: keep.append(e)
        continue
d['traceEvents']=keep
head={k:v for k,v in d.items() if k!='traceEvents'}
with open(dst,'w') as f:
    f.write('{\n')
    for k,v in head.items(): f.write('  %s: %s,\n'%(json.dumps(k),json.dumps(v)))
    f.write('  "traceEvents": [\n')
    f.write(',\n'.join('  '+json.dumps(e,separators=(', ',': ')) for e in keep))
    f.write('\n  ]\n}\n')
print(len(keep))
