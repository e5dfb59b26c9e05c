#!/usr/bin/env python
"""A warm `find` through the MCP server beside `llmsurgery find` from a shell and `rg -l`, in one run (issue 32).

On a tree of about `--mb` MB (default: `$LLMSURGERY_BENCH_MB`, else 1000) shaped like a real archive
(`benchlib.build_archive`: about 2,000 transcripts a GB, subagents, one session holding a rare phrase), with the
archive index built (`llmsurgery index`):
1. `find_sessions` of the rare phrase through a running `llmsurgery mcp` (started once, over stdio, as Claude Code
   starts it; one call first to warm it), vs `llmsurgery find` of the same regex from a shell (a process each time),
   vs `rg -l` over the tree (target: the running server faster than either, as it pays no start-up).
2. The same without the index (a server whose cache folder is empty, and `find --no-index`): the scan.
Times are the best of `--runs`; files are in the page cache (read once before). Ratios are printed, never asserted.
The tree is built under bench/data/ (git-ignored) and kept for the next run unless `--clean`.

    .venv/bin/python bench/bench_mcp.py [--mb 1000] [--runs 5] [--clean]
"""
import argparse, os, re, shutil, subprocess, sys, tempfile, time
from pathlib import Path
import anyio
from benchlib import DATA, PHRASE, build_archive

RG_PHRASE = PHRASE.replace('"', '\\"')  # the bytes as Claude Code writes them
PAT = re.escape(PHRASE)
LLMSURGERY = str(Path(sys.executable).parent/'llmsurgery')

def timed(f, runs):
    "The best of `runs` timings of `f()`, and its last answer"
    best, res = float('inf'), None
    for _ in range(runs):
        t = time.perf_counter(); res = f(); best = min(best, time.perf_counter() - t)
    return best, res

def through_mcp(env, runs):
    "Best time of `find_sessions` through one running server, and the sessions it found"
    from mcp import Client, StdioServerParameters
    async def go():
        params = StdioServerParameters(command=LLMSURGERY, args=['mcp'], env=env)
        with anyio.fail_after(1800):
            async with Client(params) as c:
                async def ask(): return await c.call_tool('find_sessions', dict(query=PAT, regex=True, limit=0))
                await ask()  # the first call opens the index (or reads the files once more)
                best, res = float('inf'), None
                for _ in range(runs):
                    t = time.perf_counter(); res = await ask(); best = min(best, time.perf_counter() - t)
                return best, [r['sid'] for r in res.structured_content['rows']]
    return anyio.run(go)

def from_shell(env, runs, *more):
    "Best time of `llmsurgery find` of the phrase, a process each time, and the sessions it found"
    import json
    def run(): return subprocess.run([LLMSURGERY, 'find', PAT, '--json', *more], env=env, capture_output=True,
                                     text=True, timeout=1800)
    best, p = timed(run, runs)
    return best, sorted({h['sid'] for h in json.loads(p.stdout)}) if p.returncode == 0 else p.stderr

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--mb', type=int, default=int(os.environ.get('LLMSURGERY_BENCH_MB', 1000)))
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--clean', action='store_true', help='delete the tree at the end')
    a = ap.parse_args()
    t = time.perf_counter()
    cfg = build_archive(a.mb, DATA/f'mcp-archive-{a.mb}')
    files = list((cfg/'projects').rglob('*.jsonl'))
    print(f'tree: {sum(f.stat().st_size for f in files)/1e6:,.0f} MB in {len(files):,} transcripts '
          f'({time.perf_counter()-t:.0f} s to build or find)')
    for f in files: f.read_bytes()  # into the page cache
    cache, empty = DATA/f'mcp-cache-{a.mb}', Path(tempfile.mkdtemp())
    env = {**os.environ, 'CLAUDE_CONFIG_DIR': str(cfg), 'XDG_CACHE_HOME': str(cache)}
    t = time.perf_counter()
    subprocess.run([LLMSURGERY, 'index'], env=env, check=True, capture_output=True)
    print(f'index: {time.perf_counter()-t:.1f} s to build or bring up to date')
    rg = shutil.which('rg')
    rows = []
    mcp_s, mcp_found = through_mcp(env, a.runs)
    sh_s, sh_found = from_shell(env, a.runs)
    rows += [('MCP find_sessions, warm server, index', mcp_s), ('llmsurgery find, shell, index', sh_s)]
    scan_env = {**env, 'XDG_CACHE_HOME': str(empty)}
    mcp_scan, scan_found = through_mcp(scan_env, max(1, a.runs // 2))
    sh_scan, _ = from_shell(env, max(1, a.runs // 2), '--no-index')
    rows += [('MCP find_sessions, warm server, scan', mcp_scan), ('llmsurgery find --no-index, shell', sh_scan)]
    if rg:
        rg_s, p = timed(lambda: subprocess.run([rg, '-l', '-F', RG_PHRASE, str(cfg/'projects')], capture_output=True),
                        a.runs)
        rows.append(('rg -l', rg_s))
        print(f'rg found {len(p.stdout.splitlines())} file(s)')
    assert mcp_found == sh_found == scan_found, (mcp_found, sh_found, scan_found)
    print(f'every way found the same {len(mcp_found)} session(s)\n')
    base = dict(rows)['MCP find_sessions, warm server, index']
    for name, s in rows: print(f'{name:42} {s*1000:9.1f} ms   {s/base:7.1f}x the warm server')
    print(f'\nwarm server vs shell find: {sh_s/mcp_s:.1f}x faster' +
          (f'; vs rg -l: {dict(rows)["rg -l"]/mcp_s:.1f}x faster' if rg else '; rg not found'))
    shutil.rmtree(empty, ignore_errors=True)
    if a.clean: shutil.rmtree(cfg, ignore_errors=True); shutil.rmtree(cache, ignore_errors=True)

if __name__ == '__main__': main()
