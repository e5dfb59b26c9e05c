"""Loading benchmark (issue: foundation, section 6).

Builds a ~100 MB transcript by repeating the recorded fixture sessions with fresh uuids, then, in this one process,
times `load_recs` against the baseline of parsing every line into plain dicts with orjson, and `sess_thread` on the
result. Peak memory is measured in child processes (ru_maxrss), relative to the file size.

    .venv/bin/python bench/bench_load.py [--mb 100] [--reps 3]

Targets: load <= 1.3x orjson; peak memory <= 3x the file size; sess_thread < 0.2 s. Ratios are printed, never asserted.
"""
import argparse, gc, json, re, subprocess, sys, time, uuid
from pathlib import Path
import orjson
from llmsurgery.core import fixture, load_recs, sess_files, no_gc
from llmsurgery.thread import sess_thread

_uuid = re.compile(rb'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')
DATA = Path(__file__).parent/'data'

def seed_lines():
    "Lines of every recorded fixture session, in order"
    root = fixture('qa').parent
    lines = []
    for d in sorted(root.iterdir()):
        if not (d/'projects').is_dir(): continue
        for proj in (d/'projects').iterdir():
            for f in sorted(sess_files(proj)): lines += f.read_bytes().splitlines()
    return lines

def build(mb, path):
    "A transcript of about `mb` MB: the seed sessions repeated, each copy with fresh uuids"
    lines, size = seed_lines(), 0
    with open(path, 'wb') as f:
        while size < mb*1e6:
            m = {}
            fresh = lambda g: m.setdefault(g[0], str(uuid.uuid4()).encode())
            for l in lines:
                l = _uuid.sub(fresh, l) + b'\n'
                f.write(l); size += len(l)
    return path

def t(f, reps):
    best = float('inf')
    for _ in range(reps):
        gc.collect(); s = time.perf_counter(); r = f(); best = min(best, time.perf_counter()-s); del r
    return best

def plain(path):
    with open(path, 'rb') as f: return [orjson.loads(l) for l in f]

def stdlib(path):
    with open(path, 'rb') as f: return [json.loads(l) for l in f]

def peak(code):
    "Peak RSS (bytes) of a child process running `code`, minus that of one that only imports"
    run = lambda c: int(subprocess.check_output([sys.executable, '-c', 'import resource, orjson, llmsurgery.core, llmsurgery.thread\n'
        + c + '\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)']).split()[-1])*1024
    return run(code) - run('pass')

if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('--mb', type=float, default=100)
    ap.add_argument('--reps', type=int, default=3)
    a = ap.parse_args()
    DATA.mkdir(exist_ok=True)
    path = DATA/f'load_{a.mb:g}mb.jsonl'
    if not path.exists(): build(a.mb, path)
    size = path.stat().st_size
    n = sum(1 for _ in open(path, 'rb'))
    print(f'{path.name}: {size/1e6:.1f} MB, {n:,} records')
    # memory first: a child process inherits the parent's peak RSS through exec, so measure while ours is small
    mp = peak(f"import orjson\nr=[orjson.loads(l) for l in open({str(path)!r},'rb')]")
    mo = peak(f"from llmsurgery.core import load_recs\nr=load_recs({str(path)!r})")
    base = t(lambda: plain(path), a.reps)
    def plain_nogc():
        with no_gc(): return plain(path)
    base_nogc = t(plain_nogc, a.reps)
    std = t(lambda: stdlib(path), a.reps)
    ours = t(lambda: load_recs(path), a.reps)
    recs = load_recs(path)
    thr = t(lambda: sess_thread(recs), a.reps)
    print(f'json (stdlib)       : {std:.3f} s   ({std/base:.1f}x orjson: why llmsurgery depends on orjson)')
    print(f'orjson, plain dicts : {base:.3f} s   (the baseline)')
    print(f'  same, gc paused   : {base_nogc:.3f} s')
    print(f'load_recs           : {ours:.3f} s   ratio {ours/base:.2f}x the baseline, {ours/base_nogc:.2f}x orjson with gc paused'
          '  (target <= 1.3x)')
    print(f'sess_thread         : {thr:.3f} s   ({len(sess_thread(recs)):,} records on the thread; target < 0.2 s)')
    print(f'peak memory, orjson : {mp/1e6:.0f} MB = {mp/size:.2f}x file size')
    print(f'peak memory, ours   : {mo/1e6:.0f} MB = {mo/size:.2f}x file size  (target <= 3x)')
