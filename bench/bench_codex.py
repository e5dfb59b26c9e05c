#!/usr/bin/env python
"""Codex beside Claude Code (issue 36): `ls`, `usage` and `find` over an archive of both agents, against ccusage.

Builds a Codex home of `--copies` copies of the six recorded Codex fixtures (plain, tools, fork, compaction,
subagent, failed turn; every id fresh in each copy, forks pointing at their copy's parent), spread over days, and a
Claude Code config folder of about `--mb` MB (`benchlib.build_archive`). Then, each command in a fresh process, best
of `--runs`:
1. `llmsurgery ls --json` (both agents) vs `ccusage codex session --json --offline` (Codex only);
2. `llmsurgery usage --by session --no-index --json` (both agents) vs the same ccusage command, and their Codex
   totals side by side (tokens and dollars: they should agree, forks and subagents counted once);
3. `llmsurgery usage --by day --no-index --json` vs `ccusage codex daily --json --offline`;
4. `llmsurgery find PHRASE --no-index` (both agents; ccusage has no search).
Ratios are printed, never asserted. ccusage is installed by npm into llmsurgery's cache (`~/.cache/llmsurgery/
ccusage`) when missing; without npm its columns are skipped. Data under bench/data/ (git-ignored).

    .venv/bin/python bench/bench_codex.py [--copies 150] [--mb 20] [--runs 3] [--keep]
"""
import argparse, json, os, re, shutil, subprocess, sys, time, uuid
from pathlib import Path
from benchlib import DATA, PHRASE, build_archive
from llmsurgery.fixtures import fixture, fixture_names
from llmsurgery.core import cache_dir

UID = re.compile(rb'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|resp_[0-9a-f]{24}')  # ids, responses'
CCUSAGE = '20.0.24'  # 20.0.26's native binary for linux-x64 is not on npm

def build_codex(copies, home):
    "A Codex home of `copies` copies of every Codex fixture's rollouts, fresh ids in each copy, a day per copy"
    stamp = home/f'.codex-{copies}'
    if stamp.exists(): return home
    shutil.rmtree(home, ignore_errors=True)
    files = [p for n in fixture_names('codex') for p in sorted((fixture(n)/'sessions').rglob('rollout-*.jsonl'))]
    groups = {}
    for p in files: groups.setdefault(p.parents[4].name, []).append(p)  # a fixture's rollouts share their ids
    for k in range(copies):
        day = f'2026/{1 + k % 12:02d}/{1 + k % 28:02d}'
        for fx, ps in groups.items():
            new = {}
            def fresh(m):
                k = m[0]
                return new.setdefault(k, b'resp_' + uuid.uuid4().hex[:24].encode() if k.startswith(b'resp_')
                                      else str(uuid.uuid4()).encode())
            for p in ps:
                data = UID.sub(fresh, p.read_bytes())
                name = UID.sub(fresh, p.name.encode()).decode()
                out = home/'sessions'/day/name
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(data)
    stamp.touch()
    return home

def ccusage():
    "The ccusage binary in llmsurgery's cache (npm-installed there the first time), or None without npm"
    d = cache_dir()/'ccusage'
    b = d/'node_modules'/'.bin'/'ccusage'
    if not b.exists() and shutil.which('npm'):
        d.mkdir(parents=True, exist_ok=True)
        subprocess.run(['npm', 'install', '--silent', '--no-audit', '--no-fund', '--prefix', str(d),
                        f'ccusage@{CCUSAGE}', f'@ccusage/ccusage-linux-x64@{CCUSAGE}'], check=False, timeout=600)
    return b if b.exists() else None

def timed(argv, env, runs):
    "`(best seconds, stdout)` of `argv` run `runs` times in fresh processes"
    best, out = float('inf'), ''
    for _ in range(runs):
        t = time.perf_counter()
        r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1800)
        best = min(best, time.perf_counter() - t)
        if r.returncode not in (0, 1): sys.exit(f'{argv[:4]} failed: {r.stderr[-800:]}')
        out = r.stdout
    return best, out

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--copies', type=int, default=150); ap.add_argument('--mb', type=float, default=20)
    ap.add_argument('--runs', type=int, default=3); ap.add_argument('--keep', action='store_true')
    a = ap.parse_args()
    root = DATA/'codex'
    home, cfg = build_codex(a.copies, root/'codex'), build_archive(a.mb, root/'cfg')
    n = len(list((home/'sessions').rglob('rollout-*.jsonl')))
    mb = sum(p.stat().st_size for p in (home/'sessions').rglob('*.jsonl')) / 1e6
    print(f'Codex home: {n} rollouts, {mb:.1f} MB; Claude Code: {a.mb} MB')
    env = {**os.environ, 'CODEX_HOME': str(home), 'CLAUDE_CONFIG_DIR': str(cfg), 'XDG_CACHE_HOME': str(root/'cache')}
    ll = [str(Path(sys.executable).parent/'llmsurgery')]
    cc = ccusage()
    rows = [('ls', ll + ['ls', '--json'], ['codex', 'session', '--json', '--offline']),
            ('usage by session', ll + ['usage', '--by', 'session', '--no-index', '--json'],
             ['codex', 'session', '--json', '--offline']),
            ('usage by day', ll + ['usage', '--by', 'day', '--no-index', '--json'],
             ['codex', 'daily', '--json', '--offline']),
            ('find', ll + ['find', PHRASE, '--no-index'], None)]
    outs = {}
    for what, ours, theirs in rows:
        t1, o1 = timed(ours, env, a.runs)
        t2, o2 = timed([str(cc), *theirs], env, a.runs) if cc and theirs else (None, None)
        outs[what] = (o1, o2)
        ratio = f'{t1 / t2:.2f}x ccusage ({t2:.2f} s)' if t2 else '(no ccusage counterpart)'
        print(f'{what:<18} llmsurgery {t1:6.2f} s   {ratio}')
    o1, o2 = outs['usage by session']
    codex = lambda r: r.get('session') and (r.get('project') or '').startswith('-tmp-llmsurgery-rec-codex')
    ours = [r for r in json.loads(o1) if codex(r)]
    toks, cost = sum(r['input'] + r['cache_read'] for r in ours), sum(r['cost'] or 0 for r in ours)
    print(f"Codex by llmsurgery: {len(ours)} sessions, {toks:,} input tokens, ${cost:.4f}")
    if o2:
        t = json.loads(o2)['totals']
        print(f"Codex by ccusage:    {len(json.loads(o2)['sessions'])} sessions, {t['inputTokens']:,} input tokens, "
              f"${t['costUSD']:.4f}")
    if not a.keep: shutil.rmtree(root, ignore_errors=True)

if __name__ == '__main__': main()
