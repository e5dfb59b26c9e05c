"""Benchmark of `backup` (issue 34): the first backup of an archive-shaped tree against `cp -a` and `rsync -a`, and
the incremental one after 1 MB of growth.

Builds a config folder once (in `bench/data/backup-<mb>/cfg`, `benchlib.build_archive`: sessions sized as a real
archive's, every fifth with a subagent), reads it once so every contender finds it in the page cache, then runs each
contender in a child process of its own into a fresh folder, reporting wall and CPU seconds (`wait4`):

- `cp -a` and `rsync -a` (when installed) of the tree: the baselines;
- `backup`: `llmsurgery.backup.backup(dest, cfg)` into a new folder;
- `floor`: the same child starting Python and importing the library, doing nothing;
- after 1 MB is appended to one session (`benchlib.grow`): `backup` again into the same folder (and `rsync -a` again,
  which has to read and compare the whole grown file), with the bytes our backup wrote.

    .venv/bin/python bench/bench_backup.py [--mb 300] [--keep]
    .venv/bin/python bench/bench_backup.py --mb 1000      # the 1 GB archive (a few minutes)

Targets (issue 34): after 1 MB appended, about 1 MB written and under 0.2x the first backup's CPU. Ratios are
printed, never asserted; each backup is checked to hold the same bytes as the tree.
"""
import argparse, json, os, shutil, subprocess, sys, time
from pathlib import Path
from benchlib import DATA, build_archive, grow

def run(cmd) -> dict:
    "Run `cmd` in a child (its stdout kept): wall and CPU seconds, and what it printed"
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, cwd=DATA)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status): sys.exit(f'{cmd[0]} failed')
    return dict(wall=time.perf_counter() - t, cpu=ru.ru_utime + ru.ru_stime, out=out)

def backup_cmd(dest, cfg):
    code = ('import sys, json; from llmsurgery.backup import backup; '
            'print(json.dumps(backup(sys.argv[1], sys.argv[2])))')
    return [sys.executable, '-c', code, str(dest), str(cfg)]

def same_tree(a, b) -> bool:
    "Do folders `a` and `b` hold the same transcripts, byte for byte?"
    return subprocess.run(['diff', '-rq', str(a/'projects'), str(b/'projects')], capture_output=True).returncode == 0

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--mb', type=float, default=300)
    ap.add_argument('--keep', action='store_true', help='keep the copies (the tree is kept anyway)')
    a = ap.parse_args()
    root = DATA/f'backup-{a.mb:g}'
    cfg = build_archive(a.mb, root/'cfg')
    files = [p for p in cfg.rglob('*') if p.is_file()]
    size = sum(p.stat().st_size for p in files)
    for p in files: p.read_bytes()  # into the page cache, for every contender alike
    outs = root/'out'
    shutil.rmtree(outs, ignore_errors=True); outs.mkdir()
    res = {}
    res['cp -a'] = run(['cp', '-a', str(cfg), str(outs/'cp')])
    if shutil.which('rsync'): res['rsync -a'] = run(['rsync', '-a', f'{cfg}/', str(outs/'rsync')])
    res['floor'] = run([sys.executable, '-c', 'import llmsurgery.backup'])
    res['backup'] = run(backup_cmd(outs/'bk', cfg))
    assert same_tree(cfg, outs/'bk')
    big = max(cfg.glob('projects/*/*.jsonl'), key=lambda p: p.stat().st_size)
    grow(big, 1)
    res['backup, 1 MB later'] = run(backup_cmd(outs/'bk', cfg))
    assert same_tree(cfg, outs/'bk')
    if shutil.which('rsync'): res['rsync -a, 1 MB later'] = run(['rsync', '-a', f'{cfg}/', str(outs/'rsync')])
    first, again = (json.loads(res[k]['out']) for k in ('backup', 'backup, 1 MB later'))
    grown_mb = big.stat().st_size / 1e6
    print(f'{len(files):,} files, {size/1e6:,.0f} MB ({a.mb:g} MB asked); '
          f'1 MB appended to a {grown_mb:.1f} MB session\n')
    print(f'{"":24} {"wall s":>8} {"CPU s":>8} {"CPU / cp -a":>12} {"CPU / backup":>13}')
    for k, r in res.items():
        print(f'{k:24} {r["wall"]:8.2f} {r["cpu"]:8.2f} {r["cpu"]/res["cp -a"]["cpu"]:12.2f} '
              f'{r["cpu"]/res["backup"]["cpu"]:13.3f}')
    net = lambda k: res[k]['cpu'] - res['floor']['cpu']
    wall = res['backup']['wall'] / res['cp -a']['wall']
    print(f'\nfirst backup: {first["written"]/1e6:,.1f} MB written; wall {wall:.2f}x cp -a')
    inc = res['backup, 1 MB later']['cpu'] / res['backup']['cpu']
    print(f'after 1 MB: {again["written"]/1e6:.2f} MB written, {again["grown"]} file grown, {again["same"]:,} not '
          f'read; CPU {inc:.3f}x the first backup ({net("backup, 1 MB later")/max(net("backup"), 1e-9):.3f}x '
          'without the floor)')
    if not a.keep: shutil.rmtree(outs)

if __name__ == '__main__': main()
