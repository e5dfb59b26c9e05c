#!/usr/bin/env python
"""Search speed and memory beside ripgrep, on the same files in the same run.

1. A rare phrase in one 100 MB transcript: `sess_search` vs `rg -n` (goal: at most 5x rg).
2. A phrase across a ~1 GB tree of transcripts: `find_sess` vs `rg -l` (goal: at most 5x rg, peak memory < 200 MB).

Data is built once under bench/data/ (git-ignored) by repeating recorded fixtures with fresh uuids.
Usage: .venv/bin/python bench/bench_search.py [--runs 5] [--tree-mb 1000] [--big-mb 100]
"""
import argparse, json, os, re, resource, shutil, subprocess, sys, time, tracemalloc, uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT/'bench'/'data'
PHRASE = 'the zebra "crossing" at Łódź'   # quotes and non-ASCII: found through JSON escaping
RG_PHRASE = 'the zebra \\"crossing\\" at Łódź'  # what rg must look for: the bytes as Claude Code writes them
_uuid_re = re.compile(rb'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')

def find_rg() -> str:
    "Path of ripgrep: on PATH, beside this Python, or installed from PyPI into this environment"
    for c in [shutil.which('rg'), str(Path(sys.executable).parent/'rg')]:
        if c and Path(c).exists(): return c
    print('ripgrep not found: installing it with pip (package `ripgrep`)...', file=sys.stderr)
    subprocess.run([sys.executable, '-m', 'pip', 'install', '-q', 'ripgrep'], check=True)
    c = shutil.which('rg') or str(Path(sys.executable).parent/'rg')
    if not Path(c).exists():
        sys.exit('Could not find or install ripgrep: apt-get install ripgrep, or pip install ripgrep')
    return c

def fixture_lines() -> list:
    "Lines of the recorded fixtures' session transcripts, the material we repeat"
    fx = ROOT/'llmsurgery'/'fixtures'
    return [l for name in ['tools', 'subagent', 'thinking', 'parallel', 'compact']
            for p in sorted((fx/name).glob('projects/*/*.jsonl')) for l in p.read_bytes().splitlines(keepends=True)]

def fresh(lines, sid) -> bytes:
    "`lines` with every uuid replaced by a new one (consistently), and the session id set to `sid`"
    m = {}
    out = b''.join(lines)
    out = _uuid_re.sub(lambda x: m.setdefault(x[0], str(uuid.uuid4()).encode()), out)
    return re.sub(rb'"sessionId":"[^"]*"', b'"sessionId":"' + sid.encode() + b'"', out)

def rare_rec(sid) -> bytes:
    r = dict(parentUuid=None, isSidechain=False, type='user', uuid=str(uuid.uuid4()),
             timestamp='2026-11-30T12:00:00.000Z', sessionId=sid,
             message=dict(role='user', content=f'Did you see {PHRASE}?\nIt was odd.'))
    return json.dumps(r, ensure_ascii=False, separators=(',', ':')).encode() + b'\n'

def write_transcript(p, mb, lines, rare_at=None):
    "Write about `mb` MB of repeated fixture lines to `p`, with the rare record at fraction `rare_at` of the file"
    sid = p.stem
    p.parent.mkdir(parents=True, exist_ok=True)
    n, target, placed = 0, int(mb * 1e6), rare_at is None
    with open(p, 'wb') as f:
        while n < target:
            if not placed and n >= target * rare_at:
                f.write(rare_rec(sid)); placed = True
            b = fresh(lines, sid)
            f.write(b); n += len(b)
        if not placed: f.write(rare_rec(sid))

def build(big_mb, tree_mb):
    lines = fixture_lines()
    big = DATA/'big'/'projects'/'-bench-big'/'11111111-2222-4333-8444-555555555555.jsonl'
    if not big.exists() or abs(big.stat().st_size - big_mb*1e6) > 2e6:
        print(f'building {big_mb} MB transcript...', file=sys.stderr)
        write_transcript(big, big_mb, lines, rare_at=0.9)
    tree = DATA/'tree'
    stamp = tree/f'.built-{tree_mb}'
    if not stamp.exists():
        print(f'building {tree_mb} MB tree...', file=sys.stderr)
        shutil.rmtree(tree, ignore_errors=True)
        sizes, total, k = [0.2, 0.5, 1, 2, 5, 12, 30], 0, 0
        while total < tree_mb:
            mb = sizes[k % len(sizes)]
            sid = str(uuid.UUID(int=k + 1, version=4))
            p = tree/'projects'/f'-home-me-proj{k % 23}'/f'{sid}.jsonl'
            write_transcript(p, mb, lines, rare_at=0.5 if k == 37 else None)
            if k % 5 == 0:  # a subagent transcript for some sessions
                write_transcript(p.parent/sid/'subagents'/f'agent-a{k:016x}.jsonl', mb/4, lines)
            total += mb * (1.25 if k % 5 == 0 else 1); k += 1
        stamp.touch()
    return big, tree

def child(kind, path, runs):
    "Run one measurement in this (fresh) process: best time of `runs`, then peak memory of one more run"
    sys.path.insert(0, str(ROOT))
    from llmsurgery.search import sess_search, find_sess
    from llmsurgery.core import load_recs
    if kind == 'tree': os.environ['CLAUDE_CONFIG_DIR'] = path
    f = dict(search=lambda: sess_search(PHRASE, path=path), tree=lambda: find_sess(PHRASE),
             load=lambda: load_recs(path))[kind]
    ts, n = [], None
    for _ in range(runs):
        t = time.perf_counter(); res = f(); ts.append(time.perf_counter() - t)
        n = len(res); del res
    tracemalloc.start(); f(); peak = tracemalloc.get_traced_memory()[1]; tracemalloc.stop()
    rss = lambda who: resource.getrusage(who).ru_maxrss * 1024
    print(json.dumps(dict(time=min(ts), n=n, rss=rss(resource.RUSAGE_SELF), kids=rss(resource.RUSAGE_CHILDREN),
                          traced=peak)))

def measure(kind, path, runs):
    out = subprocess.run([sys.executable, __file__, '--child', kind, str(path), '--runs', str(runs)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)

def rg_time(rg, args, runs):
    ts, out = [], None
    for _ in range(runs):
        t = time.perf_counter()
        out = subprocess.run([rg, *args], capture_output=True)
        ts.append(time.perf_counter() - t)
    return min(ts), out.stdout.decode(errors='replace').splitlines()

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--big-mb', type=int, default=100)
    ap.add_argument('--tree-mb', type=int, default=1000)
    ap.add_argument('--child', nargs=2)
    a = ap.parse_args()
    if a.child: return child(*a.child, a.runs)
    rg = find_rg()
    big, tree = build(a.big_mb, a.tree_mb)
    mb = lambda b: f'{b/1e6:,.0f} MB'
    tree_bytes = sum(p.stat().st_size for p in tree.rglob('*.jsonl'))
    print(f'ripgrep: {subprocess.run([rg, "--version"], capture_output=True, text=True).stdout.split()[1]};',
          f'{a.runs} runs each, best time; files cached in memory after the first run\n')
    rg_t, rg_lines = rg_time(rg, ['-n', '-F', RG_PHRASE, str(big)], a.runs)
    s = measure('search', big, a.runs)
    ld = measure('load', big, max(1, a.runs // 2))
    print(f'1. One transcript of {mb(big.stat().st_size)}, a rare phrase ({PHRASE!r})')
    print(f'   rg -n            {rg_t*1000:8.1f} ms   {len(rg_lines)} line(s)')
    print(f'   sess_search      {s["time"]*1000:8.1f} ms   {s["n"]} hit(s)   {s["time"]/rg_t:5.1f}x rg   '
          f'peak RSS {mb(s["rss"])}, traced {mb(s["traced"])}')
    print(f'   (load_recs, parsing every line: {ld["time"]*1000:,.0f} ms, {ld["time"]/rg_t:,.0f}x rg, '
          f'peak RSS {mb(ld["rss"])})\n')
    rg_t, rg_files = rg_time(rg, ['-l', '-F', RG_PHRASE, str(tree/'projects')], a.runs)
    t = measure('tree', tree, a.runs)
    nfiles = sum(1 for _ in tree.rglob('*.jsonl'))
    print(f'2. A tree of {nfiles} transcripts, {mb(tree_bytes)}')
    print(f'   rg -l            {rg_t*1000:8.1f} ms   {len(rg_files)} file(s)')
    print(f'   find_sess        {t["time"]*1000:8.1f} ms   {t["n"]} session(s)   {t["time"]/rg_t:5.1f}x rg   '
          f'peak RSS {mb(t["rss"])} (each scanning worker process at most {mb(t["kids"])}), traced {mb(t["traced"])}')

if __name__ == '__main__': main()
