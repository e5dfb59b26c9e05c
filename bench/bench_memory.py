"""Memory benchmark (issue 22, part 3): a gigabyte session in bounded memory.

Builds one big transcript the way Claude Code writes a long session (the recorded fixtures' sessions repeated with
fresh uuids and API ids, each copy chained onto the last so the conversation runs through the whole file, and each
Read result grown to a real source file as Read shows it, numbered lines, with its copy in `toolUseResult`: tool
results are most of a real transcript's bytes), then runs each command on it in a child process of its own and
reports the child's peak RSS (`wait4`'s `ru_maxrss`) and its wall and CPU time.

Each command runs in two ways in the same run: as this tree's code runs it (above the size threshold: records read
from the file when they are needed), and the baseline, `LLMSURGERY_IN_MEMORY=1` (every record parsed into memory, as
before); `--base DIR` runs a third, another source tree (an export of main: `git archive main | tar -x -C DIR`).

    .venv/bin/python bench/bench_memory.py [--mb 200] [--only show,stats] [--base DIR] [--no-memory-baseline]
    LLMSURGERY_BENCH_MB=1000 .venv/bin/python bench/bench_memory.py    # the 1 GB figures (minutes; run it rarely)

Targets, on a 1 GB transcript: peak RSS <= 0.5x the file size for show, stats, usage, tools, errors, redact --check
and resume-preview, in no more than 1.5x the baseline's time. Ratios are printed, never asserted.
"""
import argparse, json, os, re, subprocess, sys, time, uuid
from pathlib import Path
import orjson
from benchlib import DATA, UUID, seed_lines

SRC = sorted((Path(__file__).parent.parent/'llmsurgery').glob('*.py'))
CHAIN = ('user', 'assistant', 'attachment', 'system')
COMMANDS = {  # name -> arguments after the transcript's path
    'show': ['show', '{path}'], 'stats': ['stats', '{path}'], 'usage': ['usage', '{path}'],
    'prompts': ['prompts', '{path}'], 'tools': ['tools', '{path}'], 'errors': ['errors', '{path}'],
    'redact --check': ['redact', '--check', '{path}'],
    'resume-preview': ['resume-preview', '{path}', '--cli', '2.1.332'],
    'sess2nb': ['sess2nb', '{path}', '-o', '{tmp}/big.ipynb', '--force'],
}
TARGETED = {'show', 'stats', 'usage', 'tools', 'errors', 'redact --check', 'resume-preview'}

def source_lines() -> list:
    "Lines of real source text (llmsurgery's own modules), for Read results"
    return [l for p in SRC for l in p.read_text().splitlines()]

def grow_read(r, src, k):
    "Read result `r` with its file grown to a slice of `src` (from `k`): numbered, and its copy in toolUseResult"
    tur = r.get('toolUseResult')
    if not (isinstance(tur, dict) and isinstance(f := tur.get('file'), dict) and isinstance(f.get('content'), str)):
        return r
    n = 60 + k*37 % 400  # files of 60 to 460 lines
    start = k*101 % max(1, len(src) - n)
    lines = src[start:start+n]
    f.update(content='\n'.join(lines) + '\n', numLines=len(lines), startLine=1, totalLines=len(lines))
    for b in r['message']['content']:
        if isinstance(b, dict) and b.get('type') == 'tool_result':
            b['content'] = ''.join(f'{i}\t{l}\n' for i, l in enumerate(lines, 1))
    return r

def build_big(mb, path) -> Path:
    "About `mb` MB of the seed sessions, fresh ids in each copy, chained, Read results grown (see the module's doc)"
    lines, src, size, last, sid, k = seed_lines(), source_lines(), 0, None, str(uuid.uuid4()), 0
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix('.part')
    with open(tmp, 'wb') as f:
        while size < mb*1e6:
            m = {}
            def fresh(g):
                key = g[0]
                new = (key.split(b'_')[0] + b'_' + uuid.uuid4().hex.encode() if b'_' in key
                       else str(uuid.uuid4()).encode())
                return m.setdefault(key, new)
            for l in lines:
                r = orjson.loads(UUID.sub(fresh, l))
                if 'sessionId' in r: r['sessionId'] = sid
                if r.get('type') == 'user': r = grow_read(r, src, k); k += 1
                if 'uuid' in r and r.get('type') in CHAIN and not r.get('isSidechain'):
                    if r.get('parentUuid', 0) is None: r['parentUuid'] = last
                    last = r['uuid']
                l = orjson.dumps(r) + b'\n'
                f.write(l); size += len(l)
    tmp.rename(path)
    return path

def run(cmd, env) -> dict:
    "Run `cmd` (output thrown away): its exit status, peak RSS in bytes, wall and CPU seconds"
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=DATA)  # not the repo:
    # there `python -c` would import the tree's own llmsurgery before the --base one
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return dict(rc=p.returncode, rss=ru.ru_maxrss*1024, wall=time.perf_counter() - t, cpu=ru.ru_utime + ru.ru_stime,
                err=err.decode(errors='replace').strip().splitlines()[-1:] if p.returncode > 1 else [])

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--mb', type=float, default=float(os.environ.get('LLMSURGERY_BENCH_MB', 200)))
    ap.add_argument('--only', help='commands to run, comma-separated (default: all)')
    ap.add_argument('--base', help='a source tree to run as a further baseline (PYTHONPATH=DIR)')
    ap.add_argument('--no-memory-baseline', action='store_true', help='skip the LLMSURGERY_IN_MEMORY=1 runs')
    ap.add_argument('--no-ours', action='store_true', help="skip this tree's runs (only the baselines)")
    a = ap.parse_args()
    cfg = DATA/'memory-config'
    path = cfg/'projects'/'-home-me-big'/f'{uuid.UUID(int=int(a.mb*1000), version=4)}.jsonl'
    if not path.exists(): print(f'building {a.mb:g} MB ...', flush=True); build_big(a.mb, path)
    size = path.stat().st_size
    n = sum(1 for _ in open(path, 'rb'))
    print(f'{path.name}: {size/1e6:,.1f} MB, {n:,} records')
    env = {**os.environ, 'CLAUDE_CONFIG_DIR': str(cfg)}
    env.pop('LLMSURGERY_IN_MEMORY', None)
    ways = [] if a.no_ours else [('ours', env)]
    if not a.no_memory_baseline: ways.append(('in memory', {**env, 'LLMSURGERY_IN_MEMORY': '1'}))
    if a.base: ways.append(('base', {**env, 'PYTHONPATH': str(Path(a.base).resolve())}))
    names = [c.strip() for c in a.only.split(',')] if a.only else list(COMMANDS)
    exe = [sys.executable, '-c', 'import sys; from llmsurgery.cli import main; sys.exit(main())']
    res = {}
    for name in names:
        args = [s.format(path=path, tmp=DATA) for s in COMMANDS[name]]
        for way, e in ways:
            res[name, way] = r = run(exe + args, e)
            print(f'{name:15} {way:10} peak {r["rss"]/1e6:8,.0f} MB = {r["rss"]/size:4.2f}x file   '
                  f'{r["wall"]:6.1f} s wall  {r["cpu"]:6.1f} s cpu  exit {r["rc"]} {" ".join(r["err"])}', flush=True)
    print(f'\nsummary ({size/1e6:,.0f} MB file): peak RSS / file size; time (CPU) / the baseline\'s'
          '   [target: <= 0.5x the file, <= 1.5x the time]')
    base = 'in memory' if not a.no_memory_baseline else 'base' if a.base else None
    for name in names:
        if (name, 'ours') not in res: continue
        o = res[name, 'ours']
        line = f'{name:15} {o["rss"]/size:5.2f}x file'
        if base and (name, base) in res:
            b = res[name, base]
            line += (f'   baseline {b["rss"]/size:5.2f}x file   time {o["cpu"]/b["cpu"]:4.2f}x the baseline '
                     f'({o["cpu"]:.1f} s vs {b["cpu"]:.1f} s cpu)')
        print(line + ('' if name in TARGETED else '   (not a target)'))
    out = DATA/f'memory-{a.mb:g}mb.json'
    out.write_text(json.dumps({f'{k[0]}|{k[1]}': v for k, v in res.items()}, indent=1))

if __name__ == '__main__': main()
