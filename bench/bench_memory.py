"""Memory benchmark (issue 22, part 3): a gigabyte session in bounded memory.

Builds one big transcript the way Claude Code writes a long session (the recorded fixtures' sessions repeated with
fresh uuids and API ids, each copy chained onto the last so the conversation runs through the whole file, each
Read result grown to a real source file as Read shows it, numbered lines, and each Bash output to lines of it, both
with their copy in `toolUseResult`: tool results are most of a real transcript's bytes), then runs each command on
it in a child process of its own and
reports the child's peak RSS (`wait4`'s `ru_maxrss`) and its wall and CPU time.

Each command runs in two ways in the same run: as this tree's code runs it (above the size threshold: records read
from the file when they are needed), and the baseline, `LLMSURGERY_IN_MEMORY=1` (every record parsed into memory, as
before); `--base DIR` runs a third, another source tree (an export of main: `git archive main | tar -x -C DIR`).

    .venv/bin/python bench/bench_memory.py [--mb 200] [--only show,stats] [--base DIR] [--no-memory-baseline]
    LLMSURGERY_BENCH_MB=1000 .venv/bin/python bench/bench_memory.py    # the 1 GB figures (minutes; run it rarely)

Targets, on a 1 GB transcript: peak RSS <= 0.5x the file size for show, stats, usage, tools, errors, redact --check
and resume-preview, in no more than 1.5x the baseline's time. Ratios are printed, never asserted.

Issue 35 adds `sess2nb` (the notebook written cell by cell as the session is read) and `export --parquet` (each
partition written a row group at a time; the index is built by `llmsurgery index` first, untimed, and the export
goes to a fresh folder): target <= 0.5x the file each.

Issue 28 adds commands that read a big file another way (`--only fork,show --agent,tools (agents)`): `fork` of the big
session (the fork, as big again, is deleted after each run), and `show --agent`, `tools` and `agents` of a small
session whose one subagent is the big file (built the same way, its records the agent's sidechain). Target: <= 0.5x
the file each. Beside each figure, `net` is the peak less that of a process that only imports the command line (the
same run), which at 100 MB is most of the peak.
"""
import argparse, json, os, re, shutil, subprocess, sys, time, uuid
from pathlib import Path
import orjson
from benchlib import DATA, UUID, seed_lines

SRC = sorted((Path(__file__).parent.parent/'llmsurgery').glob('*.py'))
CHAIN = ('user', 'assistant', 'attachment', 'system')
COMMANDS = {  # name -> arguments
    'show': ['show', '{path}'], 'stats': ['stats', '{path}'], 'usage': ['usage', '{path}'],
    'prompts': ['prompts', '{path}'], 'tools': ['tools', '{path}'], 'errors': ['errors', '{path}'],
    'redact --check': ['redact', '--check', '{path}'],
    'resume-preview': ['resume-preview', '{path}', '--cli', '2.1.332'],
    'sess2nb': ['sess2nb', '{path}', '-o', '{tmp}/big.ipynb', '--force'],
    'fork': ['fork', '{path}'],  # writes a copy as big as the session: deleted after each run
    'show --agent': ['show', '{agent_sess}', '--agent', '{aid}'],
    'tools (agents)': ['tools', '{agent_sess}'],
    'agents': ['agents', '{agent_sess}'],
    'stats (agents)': ['stats', '{agent_sess}'],
    'export --parquet': ['export', '--parquet', '{tmp}/export-parquet'],  # the index is built first, untimed
}
PREP = {'export --parquet': (['index'], 'export-parquet')}  # name -> (a command run first, a folder removed first)
TARGETED = {'sess2nb', 'export --parquet', 'show', 'stats', 'usage', 'tools', 'errors', 'redact --check',
            'resume-preview', 'fork', 'show --agent',
            'tools (agents)', 'agents', 'stats (agents)'}
OF_AGENT = {'show --agent', 'tools (agents)', 'agents', 'stats (agents)'}  # measured against the subagent's size

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

def grow_bash(r, src, k):
    "Bash result `r` with its output grown to a slice of `src` (from `k`): as the model saw it, and in toolUseResult"
    tur = r.get('toolUseResult')
    if not (isinstance(tur, dict) and isinstance(tur.get('stdout'), str)): return r
    n = 20 + k*53 % 300  # 20 to 320 lines of output
    start = k*67 % max(1, len(src) - n)
    out = '\n'.join(src[start:start+n])
    tur['stdout'] = out
    for b in r['message']['content']:
        if isinstance(b, dict) and b.get('type') == 'tool_result': b['content'] = out
    return r

def build_big(mb, path, sid=None, agent=None) -> Path:
    """About `mb` MB of the seed sessions, fresh ids in each copy, chained, Read results grown (see the module's doc);
    `agent`: as the transcript of subagent `agent` of session `sid`, every record on its sidechain"""
    lines, src, size, last, k = seed_lines(), source_lines(), 0, None, 0
    sid = sid or str(uuid.uuid4())
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
                if agent and 'uuid' in r: r.update(isSidechain=True, agentId=agent)
                if r.get('type') == 'user': r = grow_bash(grow_read(r, src, k), src, k); k += 1
                if 'uuid' in r and r.get('type') in CHAIN and not r.get('isSidechain'):
                    if r.get('parentUuid', 0) is None: r['parentUuid'] = last
                    last = r['uuid']
                l = orjson.dumps(r) + b'\n'
                f.write(l); size += len(l)
    tmp.rename(path)
    return path

def build_agent_sess(mb, cfg) -> tuple:
    "A small session (about 1 MB) whose one subagent is about `mb` MB: `(session path, agent id, agent path)`"
    sid, aid = str(uuid.UUID(int=int(mb*1000) + 1, version=4)), f'a{int(mb*1000):016x}'
    sp = cfg/'projects'/'-home-me-agent2'/f'{sid}.jsonl'
    ap = sp.parent/sid/'subagents'/f'agent-{aid}.jsonl'
    if not ap.exists():
        print(f'building a {mb:g} MB subagent ...', flush=True)
        build_big(1, sp, sid)
        build_big(mb, ap, sid, aid)
    return sp, aid, ap

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
    path = cfg/'projects'/'-home-me-big2'/f'{uuid.UUID(int=int(a.mb*1000), version=4)}.jsonl'  # 2: Bash grown
    if not path.exists(): print(f'building {a.mb:g} MB ...', flush=True); build_big(a.mb, path)
    names = [c.strip() for c in a.only.split(',')] if a.only else list(COMMANDS)
    size = path.stat().st_size
    n = sum(1 for _ in open(path, 'rb'))
    print(f'{path.name}: {size/1e6:,.1f} MB, {n:,} records')
    agent_sess, aid, ap = build_agent_sess(a.mb, cfg) if set(names) & OF_AGENT else (None, None, None)
    if ap: print(f'{ap.name}: {ap.stat().st_size/1e6:,.1f} MB, of session {agent_sess.stem}')
    env = {**os.environ, 'CLAUDE_CONFIG_DIR': str(cfg)}
    env.pop('LLMSURGERY_IN_MEMORY', None)
    ways = [] if a.no_ours else [('ours', env)]
    if not a.no_memory_baseline: ways.append(('in memory', {**env, 'LLMSURGERY_IN_MEMORY': '1'}))
    if a.base: ways.append(('base', {**env, 'PYTHONPATH': str(Path(a.base).resolve())}))
    exe = [sys.executable, '-c', 'import sys; from llmsurgery.cli import main; sys.exit(main())']
    floor = {way: run([sys.executable, '-c', 'import llmsurgery.cli'], e)['rss'] for way, e in ways}
    print('a process that only imports the command line: ' +
          ', '.join(f'{way} {v/1e6:,.0f} MB' for way, v in floor.items()))
    res, sizes = {}, {}
    for name in names:
        args = [s.format(path=path, tmp=DATA, agent_sess=agent_sess, aid=aid) for s in COMMANDS[name]]
        sizes[name] = fsize = ap.stat().st_size if name in OF_AGENT else size
        for way, e in ways:
            if name in PREP:  # warm what the command needs, and give it a fresh folder to write
                run(exe + PREP[name][0], e)
                shutil.rmtree(DATA/PREP[name][1], ignore_errors=True)
            before = set(path.parent.iterdir())
            res[name, way] = r = run(exe + args, e)
            for p in set(path.parent.iterdir()) - before:  # what a fork wrote: as big as the session
                shutil.rmtree(p) if p.is_dir() else p.unlink()
            print(f'{name:15} {way:10} peak {r["rss"]/1e6:8,.0f} MB = {r["rss"]/fsize:4.2f}x file '
                  f'(net {(r["rss"] - floor[way])/fsize:4.2f}x)   {r["wall"]:6.1f} s wall  {r["cpu"]:6.1f} s cpu  '
                  f'exit {r["rc"]} {" ".join(r["err"])}', flush=True)
    print(f'\nsummary ({size/1e6:,.0f} MB files): peak RSS / file size; time (CPU) / the baseline\'s'
          '   [target: <= 0.5x the file, <= 1.5x the time]')
    base = 'in memory' if not a.no_memory_baseline else 'base' if a.base else None
    for name in names:
        if (name, 'ours') not in res: continue
        o, fsize = res[name, 'ours'], sizes[name]
        line = f'{name:15} {o["rss"]/fsize:5.2f}x file (net {(o["rss"] - floor["ours"])/fsize:4.2f}x)'
        if base and (name, base) in res:
            b = res[name, base]
            line += (f'   {base} {b["rss"]/fsize:5.2f}x file   time {o["cpu"]/b["cpu"]:4.2f}x the baseline '
                     f'({o["cpu"]:.1f} s vs {b["cpu"]:.1f} s cpu)')
        print(line + ('' if name in TARGETED else '   (not a target)'))
    out = DATA/f'memory-{a.mb:g}mb.json'
    out.write_text(json.dumps({f'{k[0]}|{k[1]}': v for k, v in res.items()}, indent=1))

if __name__ == '__main__': main()
