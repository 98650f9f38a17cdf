# Cut a Kineto trace down to the work launched in a few time windows:
#   python3 trim-windows.py SRC DST FROM_S:TO_S [FROM_S:TO_S ...]
# (seconds after the trace's first complete event). Kept: the cuda_runtime events
# that start in a window and launched GPU work, that work (same correlation), the
# cpu_op/user_annotation/python_function events on the same thread whose span holds
# one of those launches, every metadata ("ph": "M") event and the Trace span; the
# header as it was. Every kept event is unchanged, one per line.
import json
import sys

src, dst = sys.argv[1], sys.argv[2]
windows = [tuple(float(x) for x in w.split(':')) for w in sys.argv[3:]]
trace = json.load(open(src))
events = trace['traceEvents']
t0 = min(e['ts'] for e in events if e.get('ph') == 'X' and isinstance(e.get('ts'), (int, float)))
spans = [(t0 + a * 1e6, t0 + b * 1e6) for a, b in windows]


def in_window(e):
    return any(lo <= e['ts'] < hi for lo, hi in spans)


gpu_work = ('kernel', 'gpu_memcpy', 'gpu_memset', 'gpu_user_annotation')
on_gpu = {e.get('args', {}).get('correlation') for e in events if e.get('cat') in gpu_work}
launches = [e for e in events
            if e.get('cat') == 'cuda_runtime' and in_window(e) and e['args'].get('correlation') in on_gpu]
launched = {e['args'].get('correlation') for e in launches}
by_thread = {}
for r in launches:
    by_thread.setdefault(r['tid'], []).append(r)

kept = []
for e in events:
    cat = e.get('cat')
    if e.get('ph') == 'M' or cat == 'Trace':
        kept.append(e)
    elif cat in ('cpu_op', 'user_annotation', 'python_function'):
        if any(e['ts'] <= r['ts'] and r['ts'] + r['dur'] <= e['ts'] + e['dur'] for r in by_thread.get(e['tid'], [])):
            kept.append(e)
    elif cat == 'cuda_runtime':
        if e.get('args', {}).get('correlation') in launched and in_window(e):
            kept.append(e)
    elif cat in gpu_work:
        if e.get('args', {}).get('correlation') in launched:
            kept.append(e)

header = {k: v for k, v in trace.items() if k != 'traceEvents'}
with open(dst, 'w') as f:
    f.write('{\n')
    for k, v in header.items():
        f.write('  %s: %s,\n' % (json.dumps(k), json.dumps(v)))
    f.write('  "traceEvents": [\n')
    f.write(',\n'.join('  ' + json.dumps(e, separators=(', ', ': ')) for e in kept))
    f.write('\n  ]\n}\n')
print(len(kept), 'events')
