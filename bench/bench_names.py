#!/usr/bin/env python
"""What looking up agent ids adds to naming a session by an id prefix, on an archive of many small sessions.

Usage: bench/bench_names.py [SESSIONS]   (default 3000, over 30 projects, every fifth with two subagents)

Naming a session by a prefix lists every transcript of every project (`transcripts_in`); since agent ids name
transcripts too, it also looks for `agent-<prefix>*.jsonl` at any depth below the sessions' `subagents/` folders.
Printed: the time of the lookup of a session prefix and of an agent id, each as a ratio of listing the transcripts
alone (what the lookup did before agent ids), in the same run."""
import json, random, sys, tempfile, time, uuid
from pathlib import Path
from llmsurgery.core import config_dir
from llmsurgery.sess import sess_file, ls_projects, transcripts_in

def build(root, n):
    rec = dict(type='user', uuid='u', parentUuid=None, message=dict(role='user', content='hi'))
    aid, rng, sids = None, random.Random(21), []
    for k in range(n):
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        sids.append(sid)
        d = root/'projects'/f'-p{k % 30}'
        d.mkdir(parents=True, exist_ok=True)
        (d/f'{sid}.jsonl').write_text(json.dumps(dict(rec, sessionId=sid)) + '\n')
        if k % 5 == 0:
            sub = d/sid/'subagents'
            sub.mkdir(parents=True)
            for j in range(2):
                aid = f'a{k:08x}{j:08x}'
                (sub/f'agent-{aid}.jsonl').write_text(json.dumps(dict(rec, sessionId=sid, isSidechain=True)) + '\n')
    return sids[n // 2][:12], aid

def best(f, n=5):
    ts = []
    for _ in range(n):
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    return min(ts)

if __name__ == '__main__':
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    root = Path(tempfile.mkdtemp())
    prefix, aid = build(root, n)
    with config_dir(root):
        base = best(lambda: [f for d in ls_projects() for f in transcripts_in(d)])
        by_prefix, by_agent = best(lambda: sess_file(prefix)), best(lambda: sess_file(aid))
    print(f'{n} sessions, {n // 5 * 2} subagents: listing the transcripts {base * 1e3:.1f} ms; '
          f'a session prefix {by_prefix / base:.2f}x that, an agent id {by_agent / base:.2f}x')
