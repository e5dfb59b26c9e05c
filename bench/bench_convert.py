"""Conversion benchmark (issue: converting between records, chat messages and dialogs, section 3).

Builds a ~50 MB transcript in the real format by repeating recorded fixture sessions with fresh uuids, each copy
chained onto the one before so the whole file is one conversation (the worst case: `sess_thread` walks all of it
and every message is converted). Then times, in this one process, `load_recs` alone, and `sess2dlg` (load, walk,
leave thinking out, convert to a dialog), best of `--reps`.

    .venv/bin/python bench/bench_convert.py [--mb 50] [--reps 3]

Target: `sess2dlg` under 1 s. Times are printed, never asserted.
"""
import argparse, uuid
from llmsurgery.core import load_recs, config_dir, proj_slug
from llmsurgery.thread import sess_thread
from llmsurgery.convert import sess2dlg
from benchlib import DATA, build, best

if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('--mb', type=float, default=50)
    ap.add_argument('--reps', type=int, default=3)
    a = ap.parse_args()
    cfg = DATA/'convert-config'
    proj = DATA/'convert-proj'
    proj.mkdir(parents=True, exist_ok=True)
    with config_dir(cfg):
        d = cfg/'projects'/proj_slug(proj.resolve())
        d.mkdir(parents=True, exist_ok=True)
        for old in d.glob('*.jsonl'): old.unlink()
        path = build(a.mb, d/f'{uuid.uuid4()}.jsonl')
        recs = load_recs(path)
        dlg = sess2dlg(path.stem, proj)
        print(f'{path.stat().st_size/1e6:.1f} MB, {len(recs):,} records, {len(sess_thread(recs)):,} on the chain, '
              f'{len(dlg.messages):,} dialog messages')
        del recs, dlg
        tl = best(lambda: load_recs(path), a.reps)
        td = best(lambda: sess2dlg(path.stem, proj), a.reps)
    print(f'load_recs  {tl:.2f} s')
    print(f'sess2dlg   {td:.2f} s  ({td/tl:.1f}x load; target < 1 s)')
