#!/usr/bin/env python
"""Our answers beside their peers' on the same archive, in one run (issue 35): ratios of CPU time, interleaved pairs.

On archive trees shaped like real ones (`benchlib.build_archive`: about 2,000 transcripts a GB, subagents), for each
size in `--mb` (default 100,300,1000):
1. `usage --by session|day --json --no-index` (the cold scan) vs `ccusage session|daily --json --offline` (target
   <= 1x CPU). ccusage from npm: `npm install ccusage@20.0.24` into a scratch folder, named by `--ccusage` or found
   on PATH (20.0.26 has no native binary for linux-x64).
2. `find --no-index` of a rare phrase vs `rg -l` (target <= 2x CPU and wall; ripgrep uses every core), and a warm
   `find` (from the index, built first) from a shell vs `rg -l`, wall time (target <= 1x).
3. `ls_sess()` in-process vs claude-agent-sdk's `list_sessions()`: the first call (cold) and again (target <= 0.5x).
Each pair runs `--runs` times in turn, so a burst of load falls on both alike; the best of each is printed, with the
machine's load average (other processes share the cores: read the ratios, not the seconds). A peer that is not
installed is said so and skipped.

    .venv/bin/python bench/bench_peers.py [--mb 100,300,1000] [--runs 3]
        [--ccusage /work/peers/node_modules/.bin/ccusage]
"""
import argparse, os, resource, shutil, subprocess, sys, tempfile, time
from pathlib import Path
from benchlib import DATA, PHRASE, build_archive
from bench_index import RG_PHRASE

BIN = Path(sys.executable).parent

def run(cmd, env):
    "`(cpu, wall, result)` of running `cmd` once: CPU is user + system of the child (all its threads and processes)"
    b, t = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    r = subprocess.run(list(map(str, cmd)), env=env, capture_output=True)
    a, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter() - t
    return a.ru_utime - b.ru_utime + a.ru_stime - b.ru_stime, wall, r

def pairs(cmds, env, runs) -> dict:
    "`{name: (best cpu, best wall, last result)}` of `cmds` (name -> command), run in turn `runs` times"
    res = {k: [] for k in cmds}
    for _ in range(runs):
        for k, c in cmds.items(): res[k].append(run(c, env))
    return {k: (min(x[0] for x in v), min(x[1] for x in v), v[-1][2]) for k, v in res.items()}

def in_process(f, runs) -> float:
    "The best CPU time of this process running `f()`, of `runs`"
    ts = []
    for _ in range(runs):
        t = time.process_time(); f(); ts.append(time.process_time() - t)
    return min(ts)

def load(): return '/'.join(f'{x:.1f}' for x in os.getloadavg())

def report(name, ours, peer, what='CPU'):
    i = 0 if what == 'CPU' else 1
    print(f'   {name:44} {ours[i]:7.2f} s vs {peer[i]:7.2f} s: {ours[i]/peer[i]:5.2f}x ({what})')

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--mb', default='100,300,1000')
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--ccusage', default=shutil.which('ccusage') or '/work/peers/node_modules/.bin/ccusage')
    a = ap.parse_args()
    cc, rg = a.ccusage if Path(a.ccusage).exists() else None, shutil.which('rg')
    if not cc: print('ccusage not found (npm install ccusage@20.0.24): 1. skipped')
    if not rg: print('ripgrep not found (apt-get install ripgrep): 2. skipped')
    for size in map(int, a.mb.split(',')):
        cfg = build_archive(size, DATA/f'archive-{size}', rare=5)
        cache = Path(tempfile.mkdtemp(dir=DATA, prefix='cache-'))
        env = dict(os.environ, CLAUDE_CONFIG_DIR=str(cfg), XDG_CACHE_HOME=str(cache), TZ='UTC')
        env.pop('PYTHONDONTWRITEBYTECODE', None)  # as installed: modules compiled once, not at every start
        files = list((cfg/'projects').rglob('*.jsonl'))
        total = sum(p.stat().st_size for p in files)
        for p in files: p.read_bytes()  # into the page cache
        print(f'\n{cfg.name}: {len(files):,} transcripts, {total/1e6:,.0f} MB; load average {load()}')
        ours = [BIN/'llmsurgery', 'usage', '--json', '--no-index', '--by']
        if cc:
            r = pairs({'s': ours + ['session'], 'cs': [cc, 'session', '--json', '--offline'],
                       'd': ours + ['day'], 'cd': [cc, 'daily', '--json', '--offline']}, env, a.runs)
            print(f'1. usage, cold (load average {load()})')
            report('usage --by session --no-index / ccusage', r['s'], r['cs'])
            report('usage --by day --no-index / ccusage daily', r['d'], r['cd'])
        if rg:
            rgl = [rg, '-l', '-F', RG_PHRASE, cfg/'projects']
            r = pairs({'scan': [BIN/'llmsurgery', 'find', PHRASE, '--no-index'], 'rg': rgl}, env, a.runs)
            subprocess.run([BIN/'llmsurgery', 'index'], env=env, capture_output=True, check=True)
            w = pairs({'warm': [BIN/'llmsurgery', 'find', PHRASE], 'rg': rgl}, env, a.runs)
            assert r['scan'][2].stdout == w['warm'][2].stdout
            print(f'2. a rare phrase (load average {load()})')
            report('find --no-index / rg -l', r['scan'], r['rg'])
            report('find --no-index / rg -l', r['scan'], r['rg'], 'wall')
            report('find (warm index, from a shell) / rg -l', w['warm'], w['rg'], 'wall')
            report('find (warm index, from a shell) / rg -l', w['warm'], w['rg'])
        code = f'''import json, os, time
os.environ.update(CLAUDE_CONFIG_DIR={str(cfg)!r})
from llmsurgery.sess import ls_sess
from claude_agent_sdk import list_sessions
def cpu(f):
    t = time.process_time(); n = len(f()); return time.process_time() - t, n
res = dict(ours=[], sdk=[])
for _ in range({a.runs}): res['sdk'].append(cpu(list_sessions)); res['ours'].append(cpu(ls_sess))
print(json.dumps(res))'''
        import json
        r = json.loads(subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout)
        first, again, sdk = r['ours'][0][0], min(t for t, _ in r['ours'][1:]), min(t for t, _ in r['sdk'])
        print(f'3. ls_sess() in-process: {r["ours"][0][1]} sessions (SDK: {r["sdk"][0][1]}); load average {load()}')
        print(f'   first call {first:.3f} s = {first/sdk:.2f}x list_sessions ({sdk:.3f} s); again {again:.3f} s = '
              f'{again/sdk:.2f}x')
        shutil.rmtree(cache, ignore_errors=True)

if __name__ == '__main__': main()
