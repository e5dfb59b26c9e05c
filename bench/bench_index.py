#!/usr/bin/env python
"""Archive index benchmark (issue 14): the warm index beside the scan, `load_recs` and ripgrep, in one run.

On a tree of about `--mb` MB (default: `$LLMSURGERY_BENCH_MB`, else 100) shaped like a real archive (about 2,000
transcripts a GB: many small sessions, some large, subagents; `benchlib.build_archive`), made from the recorded
fixtures:
1. Build: a fresh index vs `load_recs` over the same files, each in a fresh process, in turn, best of two (target:
   at most 3x); the index's size on disk; the building process's peak memory (target: under 300 MB).
2. Update after one session grows by 1 MB (target: at most 0.2 s; best of `--runs`, a different session
   each time), vs `load_recs` of that 1 MB.
3. A rare phrase: `find_sess` from the warm index vs `rg -l` over the tree (target: at least 10x faster); from a
   shell, `llmsurgery find` warm vs `rg -l` (target: no slower); the scan (`find --no-index`) vs `rg -l` (target: at
   most 3x).
4. "Which sessions edited this path" (`find_edits`) and 5. "usage by day" (`find_usage`): from the warm index vs the
   scan (target: at least 10x faster).
6. `llmsurgery export --parquet` of the tree: its time vs the build, its size; a second export (nothing changed);
   DuckDB over the export for 4. and 5.
7. With `--scale`: how the warm index's query times grow with the archive (e.g. 100 MB, 1 GB, 4 GB).
Times are the best of `--runs`; files are in the page cache (each is read before it is timed). Ratios are printed,
never asserted. Trees are built under bench/data/ (git-ignored) and, unless `--keep`, deleted at the end.

    LLMSURGERY_BENCH_MB=1000 .venv/bin/python bench/bench_index.py [--mb 1000] [--scale 100,1000,4000] [--runs 3]
        [--keep]
"""
import argparse, json, os, resource, shutil, subprocess, sys, tempfile, time
from pathlib import Path
from benchlib import DATA, PHRASE, build_archive, grow, best

RG_PHRASE = PHRASE.replace('"', '\\"')  # the bytes as Claude Code writes them
EDITED = '/home/me/proj7/tools/notes.txt'  # edited by the sessions of one project in 23

def rg_bin() -> str:
    rg = shutil.which('rg')
    if not rg: sys.exit('ripgrep not found: apt-get install ripgrep')
    return rg

def rg_l(rg, cfg):
    "`rg -l` of the rare phrase over the tree's projects"
    return subprocess.run([rg, '-l', '-F', RG_PHRASE, str(cfg/'projects')], capture_output=True)

def shell_find(cfg, cache, *opts):
    "`llmsurgery find` of the rare phrase, as a shell runs it"
    env = dict(os.environ, CLAUDE_CONFIG_DIR=str(cfg), XDG_CACHE_HOME=str(cache))
    env.pop('PYTHONDONTWRITEBYTECODE', None)  # as installed: modules compiled once, not at every start
    return subprocess.run([Path(sys.executable).parent/'llmsurgery', 'find', PHRASE, *opts], capture_output=True,
                          env=env)

def child(cfg, cache, what, dest=None):
    "Run `what` ('build', 'load' (`load_recs` of every file), 'export' to `dest`, or 'import') in a fresh process"
    code = f'''import json, os, resource, time
os.environ.update(CLAUDE_CONFIG_DIR={str(cfg)!r}, XDG_CACHE_HOME={str(cache)!r})
from llmsurgery.core import load_recs
from llmsurgery.sess import transcripts
from llmsurgery.archive_index import ArchiveIndex
from llmsurgery.export import export_parquet
files = [p for _, _, p in transcripts(warmups=True)] if {what!r} == 'load' else []
t = time.perf_counter()
for p in files: load_recs(p)
if {what!r} == 'build': ArchiveIndex().update(price=True)  # as `llmsurgery index` builds it
if {what!r} == 'export': export_parquet({str(dest)!r})  # as `llmsurgery export --parquet` writes it
print(json.dumps(dict(time=time.perf_counter() - t, rss=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)))'''
    return json.loads(subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout)

def timed(f, runs):
    "Best time of `runs` calls of `f`, and its last result"
    res, ts = None, []
    for _ in range(runs):
        t = time.perf_counter(); res = f(); ts.append(time.perf_counter() - t)
    return min(ts), res

def cpu_timed(f, runs):
    "Best CPU time (user + system, of the child processes `f` runs) of `runs` calls of `f`"
    ts = []
    for _ in range(runs):
        b = resource.getrusage(resource.RUSAGE_CHILDREN); f(); a = resource.getrusage(resource.RUSAGE_CHILDREN)
        ts.append(a.ru_utime - b.ru_utime + a.ru_stime - b.ru_stime)
    return min(ts)

def cpu_self(f):
    "CPU time (user + system) of this process running `f()` once"
    b = resource.getrusage(resource.RUSAGE_SELF); f(); a = resource.getrusage(resource.RUSAGE_SELF)
    return a.ru_utime - b.ru_utime + a.ru_stime - b.ru_stime

def mb(n): return f'{n/1e6:,.0f} MB'

def setup(size, runs):
    "A tree of about `size` MB and a built index of it, in a fresh cache; what building took"
    from llmsurgery.sess import transcripts
    cfg = build_archive(size, DATA/f'archive-{size}', rare=5)  # the phrase in the 6th session, in trees of any size
    cache = Path(tempfile.mkdtemp(dir=DATA, prefix='cache-'))
    os.environ.update(CLAUDE_CONFIG_DIR=str(cfg), XDG_CACHE_HOME=str(cache))
    files = [p for _, _, p in transcripts(warmups=True)]
    for p in files: p.read_bytes()  # into the page cache
    built, loads = None, []
    for i in range(2 if runs > 1 else 1):  # load_recs and the build in turn, twice: the best of each
        loads.append(child(cfg, cache, 'load')['time'])
        c = cache if i == 0 else Path(tempfile.mkdtemp(dir=DATA, prefix='cache-'))
        b = child(cfg, c, 'build')
        if c != cache: shutil.rmtree(c)
        built = b if built is None else dict(time=min(built['time'], b['time']), rss=max(built['rss'], b['rss']))
    return cfg, cache, files, built, min(loads)

def queries(ix, runs):
    "The three questions from the warm index: their best times and answers"
    from llmsurgery.search import find_sess
    from llmsurgery.forensics import find_edits, find_usage
    return dict(phrase=timed(lambda: find_sess(PHRASE, index=ix), runs),
                edits=timed(lambda: find_edits(EDITED, index=ix), runs),
                usage=timed(lambda: find_usage('day', index=ix), runs))

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--mb', type=int, default=int(os.environ.get('LLMSURGERY_BENCH_MB', 100)))
    ap.add_argument('--scale', default='', help='tree sizes in MB for query times, e.g. 100,1000,4000')
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--keep', action='store_true', help='keep the trees and indexes')
    a = ap.parse_args()
    rg = rg_bin()
    DATA.mkdir(exist_ok=True)
    rg_version = subprocess.run([rg, '--version'], capture_output=True, text=True).stdout.split()[1]
    print(f'free disk: {shutil.disk_usage(DATA).free/1e9:,.0f} GB; ripgrep {rg_version}')
    from llmsurgery.core import load_recs
    from llmsurgery.search import find_sess
    from llmsurgery.forensics import find_edits, find_usage
    from llmsurgery.archive_index import ArchiveIndex
    cfg, cache, files, built, t_load = setup(a.mb, a.runs)
    base_rss = child(cfg, cache, 'import')['rss']  # before this process grows: a child starts with its parent's peak
    size = sum(p.stat().st_size for p in files)
    ix = ArchiveIndex()
    st = ix.stats()
    print(f'\nA tree of {len(files)} transcripts ({st.sessions} sessions), {mb(size)} '
          f'({len(files)/(size/1e9):,.0f} transcripts a GB); {st.records:,} records, '
          f'{st.calls:,} tool calls, {st.messages:,} API messages')
    print(f'1. build      {built["time"]:7.2f} s   load_recs over the same files {t_load:.2f} s: '
          f'{built["time"]/t_load:.2f}x (target <= 3x)')
    print(f'   index size {mb(st.bytes)} = {st.bytes/size:.2f}x the transcripts; peak memory building '
          f'{mb(built["rss"])} (target < 300 MB; a process that only imports llmsurgery: {mb(base_rss)})')

    # 2. one session grows by 1 MB: a different one (of median size) at each of the runs; the first and the best
    by_size = sorted(files, key=lambda p: p.stat().st_size)
    ups = []
    for k in range(a.runs):
        p = by_size[len(files)//2 + k]
        before = p.stat().st_size
        grow(p, 1.0, where='/home/me/proj3/', day='2026-12-01')
        b = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter(); done = ix.update(); t_up = time.perf_counter() - t0
        c = resource.getrusage(resource.RUSAGE_SELF)
        ups.append((t_up, c.ru_utime - b.ru_utime + c.ru_stime - b.ru_stime, done.bytes))
    added = Path(tempfile.mktemp(dir=DATA, suffix='.jsonl'))
    with open(p, 'rb') as f: f.seek(before); added.write_bytes(f.read())
    t_one, _ = timed(lambda: load_recs(added), a.runs)
    added.unlink()
    t_up = min(u[0] for u in ups)
    print(f'2. update     {t_up:7.3f} s   after one session grew by {mb(ups[0][2])} (target <= 0.2 s; best of '
          f'{len(ups)} sessions grown in turn, the first {ups[0][0]:.3f} s; CPU {min(u[1] for u in ups):.3f} s); '
          f'load_recs of those bytes {t_one:.3f} s: {t_up/t_one:.2f}x')

    # 3-5. questions: warm index vs the scan, and ripgrep
    q = queries(ix, a.runs)
    t_rg, out = timed(lambda: rg_l(rg, cfg), a.runs)
    t_scan, scan = timed(lambda: find_sess(PHRASE), a.runs)
    assert q['phrase'][1].rows() == scan.rows()
    t, res = q['phrase']
    t_sh, sh = timed(lambda: shell_find(cfg, cache), a.runs)
    t_shs, shs = timed(lambda: shell_find(cfg, cache, '--no-index'), a.runs)
    assert sh.returncode == 0 and sh.stdout == shs.stdout, (sh.stderr, shs.stderr)
    print(f'3. rare phrase  index {t*1000:7.1f} ms, {len(res)} session(s); rg -l {t_rg*1000:.1f} ms '
          f'({len(out.stdout.splitlines())} file(s)): {t_rg/t:.1f}x faster than rg (target >= 10x)')
    c_rg, c_sh, c_shs = (cpu_timed(f, a.runs) for f in (lambda: rg_l(rg, cfg), lambda: shell_find(cfg, cache),
                                                          lambda: shell_find(cfg, cache, '--no-index')))
    c_ix = min(cpu_self(lambda: find_sess(PHRASE, index=ix)) for _ in range(a.runs))
    c_rg = cpu_timed(lambda: rg_l(rg, cfg), a.runs)
    print(f'   CPU time (user+sys) in-process: index {c_ix*1000:.1f} ms; rg -l {c_rg*1000:.1f} ms (its threads\' '
          f'summed): {c_rg/c_ix:.1f}x')
    print(f'   from a shell: llmsurgery find {t_sh*1000:.0f} ms = {t_sh/t_rg:.2f}x rg -l (target <= 1x); '
          f'find --no-index {t_shs*1000:.0f} ms = {t_shs/t_rg:.2f}x')
    print(f'   CPU time (user+sys): rg -l {c_rg*1000:.0f} ms, llmsurgery find {c_sh*1000:.0f} ms = {c_sh/c_rg:.2f}x, '
          f'find --no-index {c_shs*1000:.0f} ms = {c_shs/c_rg:.2f}x')
    print(f'   the scan in-process (find --no-index) {t_scan*1000:,.0f} ms = {t_scan/t_rg:.2f}x rg -l (target <= 3x); '
          f'{t_scan/t:.0f}x the warm index')
    t_scan, scan = timed(lambda: find_edits(EDITED), 1)
    t, res = q['edits']
    assert [c.id for c in res] == [c.id for c in scan]
    print(f'4. edits of a path  index {t*1000:7.1f} ms, {len(res)} call(s) in {len(set(res.attrgot("sid")))} sessions; '
          f'the scan {t_scan:.2f} s: {t_scan/t:.0f}x faster (target >= 10x)')
    t_scan, scan = timed(lambda: find_usage('day'), 1)
    t, res = q['usage']
    assert list(res) == list(scan)
    print(f'5. usage by day  index {t*1000:7.1f} ms, {len(res)} days, {res.total.messages:,} messages; '
          f'the scan {t_scan:.2f} s: {t_scan/t:.0f}x faster (target >= 10x)')
    trees, main_tree = [(cfg, cache)], (cfg, cache, files, built)

    # 6. the export, and DuckDB over it
    from llmsurgery.export import export_parquet, duck_export
    dest = Path(tempfile.mkdtemp(dir=DATA, prefix='export-'))
    ex = child(cfg, cache, 'export', dest)
    t_ex = ex['time']
    t_again, again = timed(lambda: export_parquet(dest, index=ix), 1)
    pq_size = sum(p.stat().st_size for p in dest.rglob('*.parquet'))
    db = duck_export(dest)
    t_de, de = timed(lambda: db.execute('''SELECT DISTINCT sid FROM tool_calls WHERE name IN ('Write', 'Edit',
      'MultiEdit', 'NotebookEdit') AND (path = ? OR suffix(path, '/' || ?))''', [EDITED, EDITED]).fetchall(), a.runs)
    t_du, du = timed(lambda: db.execute("SELECT CAST(ts AS DATE) AS day, count(*), sum(output_tokens) FROM messages "
                                        "WHERE counted GROUP BY day").fetchall(), a.runs)
    assert len(de) == len(set(q['edits'][1].attrgot('sid')))
    assert sum(n for _, n, _ in du) == q['usage'][1].total.messages
    print(f'6. export      {t_ex:7.2f} s = {t_ex/built["time"]:.2f}x the build; {mb(pq_size)} of Parquet '
          f'({pq_size/size:.2f}x the transcripts); again, nothing changed: {t_again*1000:.0f} ms, '
          f'{again.partitions} partitions written; peak memory exporting {mb(ex["rss"])}')
    print(f'   DuckDB over it: edits of a path {t_de*1000:.1f} ms ({q["edits"][0]*1000:.1f} ms from the index), '
          f'usage by day {t_du*1000:.1f} ms ({q["usage"][0]*1000:.1f} ms from the index)')
    shutil.rmtree(dest, ignore_errors=True)

    # 7. how query time grows
    if a.scale:
        print('\n7. the warm index as the archive grows (best of', a.runs, 'runs)')
        print(f'{"tree":>8} {"files":>6} {"build s":>8} {"index":>8} {"phrase ms":>10} {"rg -l ms":>9} {"edits ms":>9} '
              f'{"usage ms":>9}')
        for size in map(int, a.scale.split(',')):
            if size == a.mb:  # the tree above, as it is after 2.
                cfg, cache, files, built = main_tree
                os.environ.update(CLAUDE_CONFIG_DIR=str(cfg), XDG_CACHE_HOME=str(cache))
            else:
                cfg, cache, files, built, _ = setup(size, a.runs)
                trees.append((cfg, cache))
            ix = ArchiveIndex()
            q = queries(ix, a.runs)
            t_rg, _ = timed(lambda: rg_l(rg, cfg), a.runs)
            total = sum(p.stat().st_size for p in files)
            print(f'{mb(total):>8} {len(files):>6} {built["time"]:>8.1f} {mb(ix.stats().bytes):>8} '
                  f'{q["phrase"][0]*1000:>10.1f} {t_rg*1000:>9.1f} {q["edits"][0]*1000:>9.1f} '
                  f'{q["usage"][0]*1000:>9.1f}')
    if not a.keep:
        for cfg, cache in trees: shutil.rmtree(cfg, ignore_errors=True); shutil.rmtree(cache, ignore_errors=True)

if __name__ == '__main__': main()
