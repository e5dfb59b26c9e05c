"""Concurrent appends benchmark (issue 10, item 8): several processes append to one session at once.

`--procs` processes each call `append_sess` `--n` times on one session (one prompt record per call), all at once.
Then the file is read back and we count what matters for `claude --resume`: records written, corrupt lines, records
with more than one child (each one a fork of the chain), and records on the thread `sess_thread` rebuilds (all of
them, when every append chained onto the end as it was at write time). The same number of appends made by one
process is the baseline: appends per second of both are printed, and their ratio.

    .venv/bin/python bench/bench_append.py [--procs 4] [--n 500]

Run it with `PYTHONPATH=<an older checkout>` to measure another version of the library. Figures are printed, never
asserted (tests/test_hostile.py asserts the chain on a smaller run).
"""
import argparse, collections, multiprocessing, os, shutil, tempfile, time, warnings
from pathlib import Path
import llmsurgery
from llmsurgery.core import config_dir, load_recs
from llmsurgery.thread import sess_thread
from llmsurgery.write import append_sess, save_sess, mk_rec

def _appender(args):
    cfg, sid, k, n = args
    os.environ['CLAUDE_CONFIG_DIR'] = cfg
    warnings.simplefilter('ignore')
    for i in range(n):
        append_sess([mk_rec('user', f'writer {k}, append {i}', cwd='/tmp', version='x', gitBranch='HEAD')], sid)

def run(procs, n) -> dict:
    "Make a session, append to it from `procs` processes `n` times each, and count what the file holds"
    cfg = tempfile.mkdtemp(prefix='bench-append-')
    try:
        with config_dir(cfg):
            sid = save_sess([mk_rec('user', 'start', cwd='/tmp', version='x', gitBranch='HEAD')], cwd='/tmp')
            t = time.perf_counter()
            with multiprocessing.get_context('fork').Pool(procs) as pool:
                pool.map(_appender, [(cfg, sid, k, n) for k in range(procs)])
            secs = time.perf_counter() - t
            path = next(Path(cfg).glob(f'projects/*/{sid}.jsonl'))
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                recs = load_recs(path, skip_bad=True)
            bad = sum(1 for l in path.read_bytes().splitlines() if l.strip()) - len(recs)
            kids = collections.Counter(r.get('parentUuid') for r in recs)
            return dict(records=len(recs), corrupt=bad, forks=sum(v > 1 for k, v in kids.items() if k),
                        on_thread=len(sess_thread(recs)), secs=secs, per_sec=procs*n/secs)
    finally: shutil.rmtree(cfg, ignore_errors=True)

if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('--procs', type=int, default=4)
    ap.add_argument('--n', type=int, default=500)
    a = ap.parse_args()
    print(f'llmsurgery from {Path(llmsurgery.__file__).parent}')
    base = run(1, a.procs*a.n)
    conc = run(a.procs, a.n)
    for name, r in [(f'1 process x {a.procs*a.n}', base), (f'{a.procs} processes x {a.n}', conc)]:
        print(f"{name:>20}: {r['records']:,} records, {r['corrupt']} corrupt lines, {r['forks']} forks, "
              f"{r['on_thread']:,} on the resumed thread; {r['secs']:.1f} s, {r['per_sec']:.0f} appends/s")
    print(f"concurrent / one process: {conc['per_sec']/base['per_sec']:.2f}x the appends per second")
