#!/usr/bin/env python
"""`llmsurgery html --all` over a generated archive against claude-code-log's HTML of the same tree (issue 33).

The archive is `benchlib.build_tree` (`--mb` MB of real-format sessions over 23 projects, subagents included). Each
tool runs in a fresh process on a copy of it as `~/.claude` (claude-code-log reads `~/.claude/projects`); its wall
time and peak memory (the child's `ru_maxrss`) are printed, and the ratios, in the same run. Then llmsurgery again on
the same site, nothing changed (its incremental run), and one page of the biggest session with its peak memory
against the session's size. claude-code-log is optional: `--ccl PATH` names its command (`pip install
claude-code-log` into a venv of its own); without it, llmsurgery's figures alone.

    .venv/bin/python bench/bench_html.py [--mb 100] [--ccl /path/to/claude-code-log]
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
from benchlib import DATA, build_tree

LLMS = Path(sys.executable).parent/'llmsurgery'
PEAK = ('import resource, subprocess, sys, time\nt = time.perf_counter()\n'
        'r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n'
        'print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.returncode)\n'
        'sys.stderr.write(r.stderr.decode()[-2000:])')

def measure(cmd, env) -> tuple:
    "`(seconds, peak MB, exit status)` of `cmd` run once in a fresh process"
    r = subprocess.run([sys.executable, '-c', PEAK, *map(str, cmd)], env=env, capture_output=True, text=True)
    secs, kb, rc = r.stdout.split()
    if rc != '0': print(f'  {cmd[0]} exited {rc}: {r.stderr[-500:]}')
    return float(secs), int(kb) / 1024, int(rc)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--mb', type=int, default=100)
    ap.add_argument('--ccl', help="claude-code-log's command")
    a = ap.parse_args()
    tree = build_tree(a.mb, DATA/f'tree-{a.mb}')
    size = sum(p.stat().st_size for p in tree.rglob('*.jsonl'))
    with tempfile.TemporaryDirectory(prefix='bench-html-') as tmp:
        home = Path(tmp)/'home'
        (home/'.claude').mkdir(parents=True)
        os.symlink(tree/'projects', home/'.claude'/'projects')
        env = dict(os.environ, HOME=str(home), CLAUDE_CONFIG_DIR=str(home/'.claude'),
                   XDG_CACHE_HOME=f'{tmp}/cache', XDG_STATE_HOME=f'{tmp}/state')
        print(f'archive: {size/1e6:,.0f} MB in {len(list(tree.rglob("*.jsonl")))} transcripts')
        ours = measure([LLMS, 'html', '--all', '-o', f'{tmp}/site'], env)
        out = sum(p.stat().st_size for p in Path(f'{tmp}/site').rglob('*.html'))
        print(f'llmsurgery html --all: {ours[0]:.1f} s, peak {ours[1]:,.0f} MB, {out/1e6:,.0f} MB of pages')
        again = measure([LLMS, 'html', '--all', '-o', f'{tmp}/site'], env)
        print(f'  again, nothing changed: {again[0]:.2f} s ({again[0]/ours[0]:.3f}x), peak {again[1]:,.0f} MB')
        if a.ccl:
            theirs = measure([a.ccl, '--all-projects', '-o', f'{tmp}/ccl'], env)
            out2 = sum(p.stat().st_size for p in Path(f'{tmp}/ccl').rglob('*.html'))
            print(f'claude-code-log --all-projects -o DIR: {theirs[0]:.1f} s, peak {theirs[1]:,.0f} MB, '
                  f'{out2/1e6:,.0f} MB of pages\nratio llmsurgery/claude-code-log: time {ours[0]/theirs[0]:.2f}x, '
                  f'peak memory {ours[1]/theirs[1]:.2f}x')
        big = max(tree.rglob('*.jsonl'), key=lambda p: p.stat().st_size)
        one = measure([LLMS, 'html', big, '-o', f'{tmp}/big.html'], env)
        print(f'one page of the biggest session ({big.stat().st_size/1e6:,.1f} MB): {one[0]:.1f} s, peak '
              f'{one[1]:,.0f} MB ({one[1]*2**20/big.stat().st_size:.2f}x the file)')

if __name__ == '__main__': main()
