#!/usr/bin/env python
"""Start-up benchmark (issue 22): the CPU time of each command before it does any work, against a bare `python -c pass`.

Each command runs `--runs` times in a fresh process on an empty config folder (and an empty cache); its CPU time
(user + system, from `getrusage` of the children) is the median of the runs, and the ratio to the median of
`python -c pass` in the same run is printed (target: at most 6x). Also the modules a command's import pulls in that
it should not (`fastllm`, `aidialog`, `sqlite3`, ...).

    .venv/bin/python bench/bench_startup.py [--runs 10]
"""
import argparse, os, resource, shutil, statistics, subprocess, sys, tempfile
from pathlib import Path

BIN = Path(sys.executable).parent
COMMANDS = {'python -c pass': [sys.executable, '-c', 'pass'],
            'llmsurgery --help': [BIN/'llmsurgery', '--help'],
            'llmsurgery --version': [BIN/'llmsurgery', '--version'],
            'llmsurgery ls (empty config)': [BIN/'llmsurgery', 'ls'],
            'llmsurgery find x (no sessions)': [BIN/'llmsurgery', 'find', 'x'],
            'llmsurgery usage --by day (none)': [BIN/'llmsurgery', 'usage', '--by', 'day'],
            'import llmsurgery.cli': [sys.executable, '-c', 'import llmsurgery.cli'],
            'import llmsurgery': [sys.executable, '-c', 'import llmsurgery'],
            'import llmsurgery.thread': [sys.executable, '-c', 'import llmsurgery.thread']}
HEAVY = ('fastllm', 'aidialog', 'sqlite3', 'fastcore.xml', 'detect_secrets', 're2', 'PIL', 'httpx2', 'asyncio',
         'concurrent.futures', 'multiprocessing')

def cpu(cmd, env) -> float:
    "CPU seconds (user + system) of running `cmd` once"
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(list(map(str, cmd)), env=env, capture_output=True)
    a = resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime - b.ru_utime + a.ru_stime - b.ru_stime

def imported(code, env) -> set:
    "The top-level names of the modules `python -c code` imports (by `-X importtime`)"
    r = subprocess.run([sys.executable, '-X', 'importtime', '-c', code], env=env, capture_output=True, text=True)
    return {l.split('|')[-1].strip() for l in r.stderr.splitlines() if l.startswith('import time:')}

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--runs', type=int, default=10)
    a = ap.parse_args()
    d = Path(tempfile.mkdtemp(prefix='llmsurgery-startup-'))
    env = dict(os.environ, CLAUDE_CONFIG_DIR=str(d/'config'), XDG_CACHE_HOME=str(d/'cache'))
    env.pop('PYTHONDONTWRITEBYTECODE', None)  # as installed: modules compiled once, not at every start
    (d/'config').mkdir()
    try:
        for cmd in COMMANDS.values(): cpu(cmd, env)  # once each first, so .pyc files are written
        times = {k: [] for k in COMMANDS}
        for _ in range(a.runs):  # in turn, so a burst of load on the machine falls on all of them alike
            for k, cmd in COMMANDS.items(): times[k].append(cpu(cmd, env))
        base = statistics.median(times['python -c pass'])
        print(f'CPU time (user+sys), median of {a.runs} runs; ratio to `python -c pass` (target: <= 6x)')
        for k, ts in times.items():
            t = statistics.median(ts)
            print(f'{k:34} {t*1000:7.1f} ms  {t/base:5.1f}x')
        mods = imported('import sys; sys.argv[1:] = ["--help"]\nfrom llmsurgery.cli import main\ntry: main()\n'
                        'except SystemExit: pass', env)
        print('heavy modules `llmsurgery --help` imports:', ', '.join(m for m in HEAVY if m in mods) or 'none')
    finally: shutil.rmtree(d, ignore_errors=True)

if __name__ == '__main__': main()
