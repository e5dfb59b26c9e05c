"""What the benchmarks share: big transcripts in the real format, made from the recorded fixtures, and a timer."""
import datetime, gc, json, re, shutil, time, uuid
from pathlib import Path
import orjson
from llmsurgery.core import config_dir
from llmsurgery.fixtures import fixture
from llmsurgery.sess import sess_file

DATA = Path(__file__).parent/'data'   # git-ignored
UUID = re.compile(rb'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?:msg|toolu|req)_[A-Za-z0-9]{10,}')
SEEDS = ('tools', 'parallel', 'thinking', 'image', 'subagent', 'qa', 'resumed')  # single-chain sessions, no compaction
CHAIN = ('user', 'assistant', 'attachment', 'system')

def seed_lines(names=SEEDS) -> list:
    "Lines of the main session of each fixture in `names`, in order"
    lines = []
    for name in names:
        meta = json.loads((fixture(name)/'fixture.json').read_text())
        with config_dir(fixture(name)): lines += sess_file(meta['sessions'][0], meta['cwd']).read_bytes().splitlines()
    return lines

def build(mb, path, chain=True, names=SEEDS) -> Path:
    """About `mb` MB of the seed sessions repeated with fresh uuids and API ids; `chain`: each copy's roots hung off the
    last"""
    lines, size, last, sid = seed_lines(names), 0, None, str(uuid.uuid4())
    with open(path, 'wb') as f:
        while size < mb*1e6:
            m = {}
            def fresh(g):  # a fresh uuid, or API id of the same kind, for each one of the copy
                k = g[0]
                new = k.split(b'_')[0] + b'_' + uuid.uuid4().hex.encode() if b'_' in k else str(uuid.uuid4()).encode()
                return m.setdefault(k, new)
            for l in lines:
                r = orjson.loads(UUID.sub(fresh, l))
                if 'sessionId' in r: r['sessionId'] = sid
                if chain and 'uuid' in r and r.get('type') in CHAIN:
                    if r.get('parentUuid', 0) is None: r['parentUuid'] = last
                    last = r['uuid']
                l = orjson.dumps(r) + b'\n'
                f.write(l); size += len(l)
    return path

def best(f, reps=3) -> float:
    "The best of `reps` timings of `f()`, in seconds, collecting garbage before each"
    res = float('inf')
    for _ in range(reps):
        gc.collect(); s = time.perf_counter(); r = f(); res = min(res, time.perf_counter()-s); del r
    return res

PHRASE = 'the zebra "crossing" at Łódź'   # a rare phrase: quotes and non-ASCII, so JSON escapes it
API_ID = re.compile(rb'(msg_|req_|toolu_)[0-9A-Za-z]{8,}')  # message, request and tool call ids: fresh in each copy
TS = re.compile(rb'"timestamp":"\d{4}-\d\d-\d\dT\d\d:\d\d')

def _agent_lines() -> list:
    "Lines of the `subagent` fixture's subagent transcripts"
    return [l for p in sorted(fixture('subagent').glob('projects/*/*/subagents/agent-*.jsonl'))
            for l in p.read_bytes().splitlines()]

def _copy(lines, sid, where, day, minute=0) -> bytes:
    """`lines` with fresh uuids and API ids, session `sid`, the fixtures' folder moved to `where`, times to `day`,
    `minute`"""
    m = {}
    out = UUID.sub(lambda g: m.setdefault(g[0], str(uuid.uuid4()).encode()), b'\n'.join(lines) + b'\n')
    out = API_ID.sub(lambda g: m.setdefault(g[0], g[1] + uuid.uuid4().hex.encode()[:len(g[0])-len(g[1])]), out)
    out = re.sub(rb'"sessionId":"[^"]*"', b'"sessionId":"' + sid.encode() + b'"', out)
    when = f'"timestamp":"{day}T{minute // 60 % 24:02d}:{minute % 60:02d}'.encode()
    return TS.sub(when, out.replace(b'/tmp/llmsurgery-rec/', where.encode()))

def rare_line(sid, day) -> bytes:
    "A user record holding `PHRASE`"
    r = dict(parentUuid=None, isSidechain=False, type='user', uuid=str(uuid.uuid4()), timestamp=f'{day}T12:00:00.000Z',
             sessionId=sid, message=dict(role='user', content=f'Did you see {PHRASE}?\nIt was odd.'))
    return json.dumps(r, ensure_ascii=False, separators=(',', ':')).encode() + b'\n'

def grow(path, mb, lines=None, where='/home/me/proj0/', day='2026-01-01', rare_at=None) -> Path:
    "Append about `mb` MB of seed sessions (fresh ids, a minute apart) to `path`; `rare_at`: where `rare_line` goes"
    sid, lines = path.stem if not path.stem.startswith('agent-') else path.parent.parent.name, lines or seed_lines()
    path.parent.mkdir(parents=True, exist_ok=True)
    n, k, target, placed = 0, 0, int(mb*1e6), rare_at is None
    with open(path, 'ab') as f:
        while n < target:
            if not placed and n >= target*rare_at: f.write(rare_line(sid, day)); placed = True
            b = _copy(lines, sid, where, day, k)
            f.write(b); n += len(b); k += 1
        if not placed: f.write(rare_line(sid, day))
    return path

SIZES = (0.2, 0.5, 1, 2, 5, 12, 30)  # MB, in turn: many small sessions, a few big ones

def build_tree(mb, root, nproj=23, rare=37, sizes=SIZES) -> Path:
    """A config folder at `root` holding about `mb` MB of sessions (built once: a stamp file records it).

    Sessions of `sizes` MB in turn over `nproj` projects, each session's dates a different day over about a year,
    the fixtures' paths moved to its project's folder (so each project edits its own files); every fifth session has
    a subagent transcript of a quarter its size; session number `rare` holds `PHRASE` once, half way through."""
    root = Path(root)
    stamp = root/f'.built-{mb}'
    if stamp.exists(): return root
    shutil.rmtree(root, ignore_errors=True)
    lines, alines, total, k = seed_lines(), _agent_lines(), 0, 0
    while total < mb:
        size, sid = sizes[k % len(sizes)], str(uuid.UUID(int=k + 1, version=4))
        proj, day = k % nproj, (datetime.date(2026, 11, 30) - datetime.timedelta(days=(k*7) % 365)).isoformat()
        where = f'/home/me/proj{proj}/'
        p = root/'projects'/f'-home-me-proj{proj}'/f'{sid}.jsonl'
        grow(p, size, lines, where, day, rare_at=0.5 if k == rare else None)
        if k % 5 == 0: grow(p.parent/sid/'subagents'/f'agent-a{k:016x}.jsonl', size/4, alines, where, day)
        total += size*(1.25 if k % 5 == 0 else 1); k += 1
    stamp.touch()
    return root

# A real archive's shape: about 2,000 transcripts a GB (claude-code-log's users: 1,830 in 2 GB; ccusage's benchmark:
# 3,129 in 1.29 GB). Sessions of these MB in turn: most are a few prompts, a few run long; the smallest are one copy
# of one fixture (16-120 KB), and every fifth has a subagent (at least one copy of the fixture's, 210 KB)
SHAPE = (0.02, 0.05, 0.01, 0.08, 0.03, 0.2, 0.04, 0.06, 0.5, 0.02, 0.05, 1, 0.03, 0.08, 2, 0.04, 0.3, 5, 0.06, 0.7)

def build_archive(mb, root, nproj=23, rare=5, sizes=SHAPE) -> Path:
    """A config folder at `root` shaped like a real archive: about `mb` MB (counted as written) of sessions of `sizes`
    MB in turn over `nproj` projects (built once: a stamp file records it).

    As `build_tree`, but a session under 0.1 MB is copies of one fixture (a different one each time) rather than of
    all seven, so small sessions are small; every fifth session has a subagent; session number `rare` holds `PHRASE`
    once, half way through."""
    root = Path(root)
    stamp = root/f'.archive-{mb}'
    if stamp.exists(): return root
    shutil.rmtree(root, ignore_errors=True)
    every, single = seed_lines(), [seed_lines((n,)) for n in SEEDS]
    alines, total, k = _agent_lines(), 0, 0
    while total < mb*1e6:
        size, sid = sizes[k % len(sizes)], str(uuid.UUID(int=k + 1, version=4))
        proj, day = k % nproj, (datetime.date(2026, 11, 30) - datetime.timedelta(days=(k*7) % 365)).isoformat()
        where = f'/home/me/proj{proj}/'
        p = root/'projects'/f'-home-me-proj{proj}'/f'{sid}.jsonl'
        grow(p, size, single[k % len(SEEDS)] if size < 0.1 else every, where, day, rare_at=0.5 if k == rare else None)
        total += p.stat().st_size
        if k % 5 == 0:
            a = grow(p.parent/sid/'subagents'/f'agent-a{k:016x}.jsonl', size/4, alines, where, day)
            total += a.stat().st_size
        k += 1
    stamp.touch()
    return root
