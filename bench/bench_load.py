"""Loading benchmark (issue: foundation, section 6).

Builds a ~100 MB transcript by repeating recorded fixture sessions with fresh uuids (and a second one whose copies are
chained one onto the other, so `sess_thread` walks the whole file: the worst case, also timed with a checkpoint at
its root and with none), then, in this one process,
times `load_recs` against the baseline of parsing every line into plain dicts with orjson, and `sess_thread` on the
result against one bare pass over the records (a loop reading one field of each). Peak memory is measured in child
processes (ru_maxrss), relative to the file size.

    .venv/bin/python bench/bench_load.py [--mb 100] [--reps 3]

Targets: load <= 1.3x orjson; peak memory <= 3x the file size; sess_thread < 0.2 s, worst cases too. Ratios are
printed, never asserted.
"""
import argparse, json, subprocess, sys
import orjson
from llmsurgery.core import Rec, load_recs, no_gc
from llmsurgery.thread import sess_thread
from benchlib import DATA, build, best

def plain(path):
    with open(path, 'rb') as f: return [orjson.loads(l) for l in f]

def stdlib(path):
    with open(path, 'rb') as f: return [json.loads(l) for l in f]

def peak(code):
    "Peak RSS (bytes) of a child process running `code`, minus that of one that only imports"
    run = lambda c: int(subprocess.check_output([
        sys.executable, '-c', 'import resource, orjson, llmsurgery.core, llmsurgery.thread\n'
        + c + '\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)']).split()[-1])*1024
    return run(code) - run('pass')

if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('--mb', type=float, default=100)
    ap.add_argument('--reps', type=int, default=3)
    a = ap.parse_args()
    DATA.mkdir(exist_ok=True)
    path, chained = DATA/f'load_{a.mb:g}mb.jsonl', DATA/f'load_{a.mb:g}mb_chained.jsonl'
    if not path.exists(): build(a.mb, path, chain=False)
    if not chained.exists(): build(a.mb, chained, chain=True)
    size = path.stat().st_size
    n = sum(1 for _ in open(path, 'rb'))
    print(f'{path.name}: {size/1e6:.1f} MB, {n:,} records')
    # memory first: a child process inherits the parent's peak RSS through exec, so measure while ours is small
    mp = peak(f"import orjson\nr=[orjson.loads(l) for l in open({str(path)!r},'rb')]")
    mo = peak(f"from llmsurgery.core import load_recs\nr=load_recs({str(path)!r})")
    base = best(lambda: plain(path), a.reps)
    def plain_nogc():
        with no_gc(): return plain(path)
    base_nogc = best(plain_nogc, a.reps)
    std = best(lambda: stdlib(path), a.reps)
    ours = best(lambda: load_recs(path), a.reps)
    recs = load_recs(path)
    thr = best(lambda: sess_thread(recs), a.reps)
    nthr = len(sess_thread(recs))
    del recs
    def bare(recs):  # one pass touching each record once: the floor for anything that reads them all
        n = 0
        for r in recs:
            if r.get('type') == 'assistant': n += 1
        return n
    recs = load_recs(path)
    bthr = best(lambda: bare(recs), a.reps)
    del recs
    crecs = load_recs(chained)
    cthr = best(lambda: sess_thread(crecs), a.reps)
    cbare = best(lambda: bare(crecs), a.reps)
    ncthr = len(sess_thread(crecs))
    # the same file with a checkpoint at its root (the descent from it is checked along the whole thread), and with
    # no checkpoint at all (the newest record below the last row is looked for)
    top = next(r for r in crecs if r.get('type') == 'user')
    at_root = crecs + [Rec(type='last-prompt', leafUuid=top['uuid'], sessionId=top.get('sessionId'))]
    no_cp = [r for r in crecs if r.get('type') != 'last-prompt']
    rthr, nthr2 = best(lambda: sess_thread(at_root), a.reps), best(lambda: sess_thread(no_cp), a.reps)
    print(f'json (stdlib)       : {std:.3f} s   ({std/base:.1f}x orjson: why llmsurgery depends on orjson)')
    print(f'orjson, plain dicts : {base:.3f} s   (the baseline)')
    print(f'  same, gc paused   : {base_nogc:.3f} s')
    print(f'load_recs           : {ours:.3f} s   ratio {ours/base:.2f}x the baseline, '
          f'{ours/base_nogc:.2f}x orjson with gc paused'
          '  (target <= 1.3x)')
    print(f'sess_thread         : {thr:.3f} s = {thr/bthr:.1f}x one bare pass over the records ({bthr:.3f} s); '
          f'{nthr:,} records on the thread; target < 0.2 s')
    print(f'  worst case        : {cthr:.3f} s = {cthr/cbare:.1f}x one bare pass ({cbare:.3f} s); {chained.name}: '
          f'every copy chained on, {ncthr:,} records on the thread')
    print(f'  checkpoint at root: {rthr:.3f} s = {rthr/cbare:.1f}x; no checkpoint: {nthr2:.3f} s = {nthr2/cbare:.1f}x')
    print(f'peak memory, orjson : {mp/1e6:.0f} MB = {mp/size:.2f}x file size')
    print(f'peak memory, ours   : {mo/1e6:.0f} MB = {mo/size:.2f}x file size  (target <= 3x)')
