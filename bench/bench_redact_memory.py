"""Memory of redaction (issue 28, item 4): `redact_sess` and `redact_check` of a gigabyte session, and of a session
with a gigabyte subagent, peak at no more than half the size of what they read.

Two sessions, built the way Claude Code writes them (`bench_memory.build_big`'s way: the recorded fixtures' sessions
repeated with fresh uuids and API ids, chained, each Read result grown to a real source file as Read shows it,
numbered lines, with its copy in `toolUseResult`):

- `sess`: one transcript of about `--mb` MB;
- `agent`: a small main session (about 2 MB) and a subagent transcript of about `--mb` MB beside it
  (`<sid>/subagents/agent-<id>.jsonl`, the same records as a sidechain, with its `.meta.json`), as a Task call that
  read a whole code base leaves it.

Into each, a few secrets are planted where people leak them: secrets of bench_redact's formats (made as their providers
make them, not from llmsurgery's rules) in Read results of a `.env`, a private key read from `~/.ssh`, and one prompt
that pastes a bare token, whose later copies (in the subagent, for `agent`) carry no name a rule could find: only what
was learnt from another line, or file, finds them.

Each call runs in a child process of its own, and the child's peak RSS (`wait4`'s `ru_maxrss`) is reported against
the size of the session's files, beside the peak of a child that only imports `llmsurgery.redact` (the floor). With
`--base DIR` the same calls run on another source tree (main's code: `git archive main | tar -x -C DIR`), and the
two copies are compared byte for byte, the two reports finding for finding, and the copies searched for what was
planted.

    .venv/bin/python bench/bench_redact_memory.py [--mb 100] [--base DIR] [--only sess,agent] [--keep]
    .venv/bin/python bench/bench_redact_memory.py --mb 1000 --base /tmp/main-tree   # the 1 GB figures (minutes)

Target: peak RSS <= 0.5x the session's size for `redact_sess` and `redact_check`, in both shapes. Ratios are printed,
never asserted. The sessions are built in `bench/data/` (git-ignored) and removed afterwards unless `--keep`.
"""
import argparse, hashlib, json, os, random, shutil, sys, uuid
from pathlib import Path
import orjson
from benchlib import DATA, UUID, seed_lines
from bench_memory import grow_read, run, source_lines
from bench_redact import fake_secrets

PLANTED = ('github_pat_classic', 'aws_access_key_id', 'stripe_secret', 'openssh_private_key', 'env_password_quoted',
           'postgres_url', 'slack_bot_token', 'anthropic_key')  # in Read results
TYPED = 'aws_secret_access_key'  # in a prompt
CHILD = '''import sys, json, hashlib
from llmsurgery.redact import redact_sess, redact_check
what, sid, dest, out = sys.argv[1:5]
if what == 'import': rep = []
elif what == 'redact_sess': rep = redact_sess(sid, dest).report
else: rep = redact_check(sid)
fs = json.dumps(list(rep), sort_keys=True, default=str).encode()
json.dump(dict(n=len(rep), digest=hashlib.sha256(fs).hexdigest()), open(out, 'w'))
'''

def plant_read(r, extra):
    "Read result `r` (grown by `grow_read`) with the lines `extra` put into its file after the third line"
    f = r['toolUseResult']['file']
    lines = f['content'].split('\n')[:-1]
    lines[3:3] = extra
    f.update(content='\n'.join(lines) + '\n', numLines=len(lines), totalLines=len(lines))
    for b in r['message']['content']:
        if isinstance(b, dict) and b.get('type') == 'tool_result':
            b['content'] = ''.join(f'{i}\t{l}\n' for i, l in enumerate(lines, 1))
    return r

def is_read(r):
    tur = r.get('toolUseResult')
    return r.get('type') == 'user' and isinstance(tur, dict) and isinstance((tur.get('file') or {}).get('content'), str)

def build(mb, path, plants, agent=None) -> Path:
    """About `mb` MB of the seed sessions at `path`, as `bench_memory.build_big` makes them; the Read result at each
    fraction `at` of `plants` (`(at, lines)`) also shows `lines`; `agent`: written as that subagent's sidechain"""
    lines, src, size, last, k = seed_lines(), source_lines(), 0, None, 0
    sid = path.stem if agent is None else path.parent.parent.name
    todo = sorted(plants)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, 'wb') as f:
        while size < mb*1e6:
            m = {}
            def fresh(g):
                key = g[0]
                return m.setdefault(key, key.split(b'_')[0] + b'_' + uuid.uuid4().hex.encode() if b'_' in key
                                    else str(uuid.uuid4()).encode())
            for l in lines:
                r = orjson.loads(UUID.sub(fresh, l))
                if 'sessionId' in r: r['sessionId'] = sid
                if agent is not None and 'uuid' in r: r.update(isSidechain=True, agentId=agent)
                if r.get('type') == 'user': r = grow_read(r, src, k); k += 1
                if todo and size >= todo[0][0]*mb*1e6 and is_read(r): r = plant_read(r, todo.pop(0)[1])
                if 'uuid' in r and r.get('type') in ('user', 'assistant', 'attachment', 'system'):
                    if r.get('parentUuid', 0) is None: r['parentUuid'] = last
                    last = r['uuid']
                l = orjson.dumps(r) + b'\n'
                f.write(l); size += len(l)
    return path

def prompt(sid, text) -> bytes:
    "A user record typing `text`"
    r = dict(parentUuid=None, isSidechain=False, type='user', uuid=str(uuid.uuid4()), sessionId=sid,
             timestamp='2026-05-01T10:00:00.000Z', message=dict(role='user', content=text))
    return orjson.dumps(r) + b'\n'

def make(shape, mb, cfg, secrets) -> tuple:
    "`(session id, its files, the needles that must be gone)` of session `shape` (`sess` or `agent`) in `cfg`"
    sid = str(uuid.UUID(int=int(mb*1000) + (shape == 'agent'), version=4))
    p = cfg/'projects'/'-home-me-big'/f'{sid}.jsonl'
    s = {x.kind: x for x in secrets}
    typed = s[TYPED]  # typed in a prompt with its name; its later copies alone: only what was learnt finds them
    plants = [(i/len(PLANTED) + 0.05, [f'# {x}', *s[x].lines]) for i, x in enumerate(PLANTED)]
    plants += [(0.5, ['', typed.value, '']), (0.97, [typed.value])]
    needles = [n for x in (*PLANTED, TYPED) for n in s[x].needles()]
    agent = 'a' + hashlib.sha1(sid.encode()).hexdigest()[:16]
    if shape == 'sess': build(mb, p, plants)
    else:
        build(2, p, [])
        a = build(mb, p.parent/sid/'subagents'/f'agent-{agent}.jsonl', plants, agent)
        a.with_name(f'agent-{agent}.meta.json').write_text(json.dumps(dict(agentType='general-purpose',
                                                                           description='Read the code base')))
    with open(p, 'ab') as f: f.write(prompt(sid, 'Deploy with these:\n' + '\n'.join(typed.lines)))
    files = [p, *sorted(f for f in (p.parent/sid).rglob('*') if f.is_file())]
    return sid, files, needles

def tree(root) -> dict:
    "Relative path -> sha256 of each file under `root`, read a block at a time"
    out = {}
    for f in sorted(Path(root).rglob('*')):
        if f.is_file():
            h = hashlib.sha256()
            with open(f, 'rb') as fh:
                while b := fh.read(1 << 24): h.update(b)
            out[str(f.relative_to(root))] = h.hexdigest()
    return out

def left(root, needles) -> int:
    "How many of `needles` (or their JSON-escaped forms) are still somewhere under `root`"
    forms = {n: {n.encode(), json.dumps(n)[1:-1].encode()} for n in needles}
    found = set()
    for f in Path(root).rglob('*'):
        if not f.is_file(): continue
        with open(f, 'rb') as fh:
            tail = b''
            while b := fh.read(1 << 24):
                b = tail + b
                found |= {n for n, fs in forms.items() if any(x in b for x in fs)}
                tail = b[-4096:]
    return len(found)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--mb', type=float, default=100, help='the size of the big transcript, in MB')
    ap.add_argument('--base', help='a source tree to compare with (PYTHONPATH=DIR), e.g. an export of main')
    ap.add_argument('--only', default='sess,agent', help='the shapes to run: sess, agent (default: both)')
    ap.add_argument('--keep', action='store_true', help='keep the sessions built in bench/data/')
    a = ap.parse_args()
    secrets = fake_secrets(random.Random(28))
    work = DATA/f'redact-memory-{a.mb:g}mb'
    shutil.rmtree(work, ignore_errors=True)
    cfg = work/'config'
    base_env = {**os.environ, 'CLAUDE_CONFIG_DIR': str(cfg), 'LLMSURGERY_REDACT_KEY': 'bench key'}
    ways = [('ours', {**base_env, 'PYTHONPATH': str(Path(__file__).parent.parent)})]
    if a.base: ways.append(('base', {**base_env, 'PYTHONPATH': str(Path(a.base).resolve())}))
    exe = [sys.executable, '-c', CHILD]
    rows = []
    try:
        for shape in a.only.split(','):
            print(f'building {shape} ({a.mb:g} MB) ...', flush=True)
            sid, files, needles = make(shape, a.mb, cfg, secrets)
            size = sum(f.stat().st_size for f in files)
            print(f'{shape}: {len(files)} files, {size/1e6:,.0f} MB; {len(needles)} needles planted', flush=True)
            res = {}
            for way, env in ways:
                floor = run(exe + ['import', sid, '-', str(work/'import.json')], env)['rss']
                for what in ('redact_check', 'redact_sess'):
                    dest, out = work/f'out-{shape}-{way}', work/f'{what}-{shape}-{way}.json'
                    r = run(exe + [what, sid, str(dest), str(out)], env)
                    r.update(json.loads(out.read_text()) if r['rc'] == 0 else {})
                    res[way, what] = r
                    print(f'  {what:12} {way:4}  peak {r["rss"]/1e6:7,.0f} MB = {r["rss"]/size:4.2f}x the session'
                          f'  (above the {floor/1e6:.0f} MB import: {(r["rss"] - floor)/size:4.2f}x)'
                          f'  {r["wall"]:6.1f} s wall {r["cpu"]:6.1f} s cpu  {r.get("n", "?")} findings'
                          f'  exit {r["rc"]} {" ".join(r["err"])}',
                          flush=True)
                print(f'  {way}: planted needles left in the copy: {left(work/f"out-{shape}-{way}", needles)}'
                      f' of {len(needles)}', flush=True)
            if a.base:
                same = tree(work/f'out-{shape}-ours') == tree(work/f'out-{shape}-base')
                reps = all(res['ours', w].get('digest') == res['base', w].get('digest')
                           for w in ('redact_check', 'redact_sess'))
                print(f'  the copies are byte for byte the same: {same}; the reports the same: {reps}')
            rows.append((shape, size, res))
            for way, _ in ways: shutil.rmtree(work/f'out-{shape}-{way}', ignore_errors=True)
    finally:
        if not a.keep: shutil.rmtree(work, ignore_errors=True)
    print(f'\nsummary: peak RSS / the session\'s size   [target: <= 0.5x]')
    for shape, size, res in rows:
        for what in ('redact_check', 'redact_sess'):
            o = res['ours', what]
            line = f'{shape:6} {what:13} {size/1e6:7,.0f} MB   ours {o["rss"]/size:5.2f}x, {o["cpu"]:5.1f} s cpu'
            if ('base', what) in res:
                b = res['base', what]
                line += f'   base {b["rss"]/size:5.2f}x, {b["cpu"]:5.1f} s cpu'
            print(line)

if __name__ == '__main__': main()
