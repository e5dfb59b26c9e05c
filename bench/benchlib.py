"""What the benchmarks share: big transcripts in the real format, made from the recorded fixtures, and a timer."""
import gc, json, re, time, uuid
from pathlib import Path
import orjson
from llmsurgery.core import config_dir
from llmsurgery.fixtures import fixture
from llmsurgery.sess import sess_file

DATA = Path(__file__).parent/'data'   # git-ignored
UUID = re.compile(rb'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')
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
    "About `mb` MB of the seed sessions repeated with fresh uuids; `chain`: each copy's roots hung off the copy before"
    lines, size, last, sid = seed_lines(names), 0, None, str(uuid.uuid4())
    with open(path, 'wb') as f:
        while size < mb*1e6:
            m = {}
            fresh = lambda g: m.setdefault(g[0], str(uuid.uuid4()).encode())
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
