"""Memory benchmark of `move` (issue 29, item 8): a project holding a gigabyte session, moved in bounded memory.

Builds a config folder once (in `bench/data/move-<mb>/pristine`): one session of about `--mb` MB of the recorded
fixtures' sessions (fresh ids in each copy, their paths under `/home/me/big/`), with a subagent of a tenth of its
size and a tool output file, aged so it is not live. Each run works on a copy of it made of hard links (nothing is
written in place: a move writes new files and renames the old ones into the trash), and runs the real command line
in a child process of its own, reporting the child's peak RSS (`wait4`'s `ru_maxrss`) over the session's size:

- `move`: `/home/me/big` -> `/home/me/moved` (a new project folder: the files are rewritten into it);
- `move --dry-run` of the same;
- `rewrite`: `/home/me/big` -> `/home/me-big` (the same project folder name: the files are rewritten in place);
- `rewrite --dry-run` of that;
- `floor`: `move` of a directory no session ran in: starting Python and the library, and the plan's look at every
  session.

Each command runs as this tree's code runs it and, with `--base DIR`, as another source tree runs it (main:
`--base /work/main`), in the same run.

    .venv/bin/python bench/bench_move.py [--mb 100] [--base /work/main] [--keep]
    .venv/bin/python bench/bench_move.py --mb 1000 --base /work/main     # the 1 GB figures (minutes)

Target: peak RSS <= 0.5x the session's size for each of them at 1 GB. Ratios are printed, never asserted; the
moved files are checked to name no old path, and the dry runs to write nothing.
"""
import argparse, os, shutil, subprocess, sys, time, uuid
from pathlib import Path
from benchlib import DATA, grow

OLD, NEW, SAME = '/home/me/big', '/home/me/moved', '/home/me-big'
RUNS = {'move': [OLD, NEW], 'move --dry-run': [OLD, NEW, '--dry-run'],
        'rewrite': [OLD, SAME], 'rewrite --dry-run': [OLD, SAME, '--dry-run']}

def build(mb, root) -> Path:
    "A config folder at `root` with one session of about `mb` MB in `/home/me/big/tools` (built once)"
    stamp = root/'.built'
    if stamp.exists(): return next(root.glob('projects/*/*.jsonl'))
    shutil.rmtree(root, ignore_errors=True)
    sid = str(uuid.UUID(int=int(mb*1000), version=4))
    p = grow(root/'projects'/'-home-me-big-tools'/f'{sid}.jsonl', mb, where=OLD + '/')
    grow(p.parent/sid/'subagents'/'agent-a0123456789abcdef.jsonl', mb/10, where=OLD + '/')
    (out := p.parent/sid/'tool-results'/'toolu_big.txt').parent.mkdir()
    out.write_text(f'ls {OLD}/tools\nnotes.txt\n' * 1000)
    old = time.time() - 3600
    for f in [p, *(p.parent/sid).rglob('*')]: os.utime(f, (old, old))
    stamp.touch()
    return p

def link_copy(src, dst):
    "A copy of folder `src` at `dst` made of hard links (folders new, files shared)"
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst, copy_function=os.link)

def run(cmd, env) -> dict:
    "Run `cmd` (output thrown away): its exit status, peak RSS in bytes, wall and CPU seconds"
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=DATA)  # not the repo:
    # there `python -c` would import the tree's own llmsurgery before the --base one
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    rc = os.waitstatus_to_exitcode(status)
    return dict(rc=rc, rss=ru.ru_maxrss*1024, wall=time.perf_counter() - t, cpu=ru.ru_utime + ru.ru_stime,
                err=err.decode(errors='replace').strip().splitlines()[-1:] if rc else [])

def check(cfg, name):
    "What the run left: a real move names no old path; a dry run changed nothing (the number of files, their bytes)"
    files = [f for f in (cfg/'projects').rglob('*') if f.is_file()]
    if 'dry-run' in name: return 'ok' if len(files) == 3 else f'{len(files)} files: a dry run wrote'
    bad = [f for f in files if grep(f, OLD.encode() + b'/')]
    return 'ok' if not bad else f'{len(bad)} files still name {OLD}'

def grep(f, needle) -> bool:
    "Does file `f` hold `needle`? (a block at a time)"
    with open(f, 'rb') as h:
        prev = b''
        while b := h.read(1 << 22):
            if needle in prev[-len(needle):] + b: return True
            prev = b
    return False

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--mb', type=float, default=100)
    ap.add_argument('--base', help='a source tree to run as the baseline (PYTHONPATH=DIR), e.g. /work/main')
    ap.add_argument('--only', help='runs, comma-separated (default: all)')
    ap.add_argument('--keep', action='store_true', help='keep the built session (default: removed at the end)')
    a = ap.parse_args()
    top = DATA/f'move-{a.mb:g}'
    pristine, work = top/'pristine', top/'work'
    DATA.mkdir(parents=True, exist_ok=True)
    print(f'building {a.mb:g} MB ...', flush=True)
    p = build(a.mb, pristine)
    size = p.stat().st_size
    print(f'{p.name}: {size/1e6:,.1f} MB (and a subagent of {size/1e7:,.1f} MB)')
    env = {k: v for k, v in os.environ.items() if not k.startswith(('LLMSURGERY_', 'CLAUDE_CODE_SESSION'))}
    env.update(CLAUDE_CONFIG_DIR=str(work/'cfg'), XDG_STATE_HOME=str(work/'state'), XDG_CACHE_HOME=str(work/'cache'))
    env.pop('PYTHONPATH', None)
    ways = [('ours', {**env, 'PYTHONPATH': str(Path(__file__).resolve().parent.parent)})]
    if a.base: ways.append(('base', {**env, 'PYTHONPATH': str(Path(a.base).resolve())}))
    exe = [sys.executable, '-c', 'import sys; from llmsurgery.cli import main; sys.exit(main())']
    names = [n.strip() for n in a.only.split(',')] if a.only else [*RUNS, 'floor']
    res = {}
    try:
        for name in names:
            for way, e in ways:
                shutil.rmtree(work, ignore_errors=True)
                link_copy(pristine, work/'cfg')
                res[name, way] = r = run(exe + ['move', *RUNS.get(name, ['/home/me/none', NEW])], e)
                r['check'] = check(work/'cfg', name if name != 'floor' else 'dry-run')
                print(f'{name:18} {way:5} peak {r["rss"]/1e6:8,.0f} MB = {r["rss"]/size:5.2f}x the session   '
                      f'{r["wall"]:6.1f} s wall  {r["cpu"]:6.1f} s cpu  exit {r["rc"]}  {r["check"]} '
                      f'{" ".join(r["err"])}', flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if not a.keep: shutil.rmtree(top, ignore_errors=True)
    print(f'\nsummary ({size/1e6:,.0f} MB session): peak RSS / its size   [target: <= 0.5x]')
    for name in names:
        line = f'{name:18}' + ''.join(f'   {way} {res[name, way]["rss"]/size:5.2f}x' for way, _ in ways
                                      if (name, way) in res)
        print(line)

if __name__ == '__main__': main()
