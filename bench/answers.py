#!/usr/bin/env python
"""The sha1 of the JSON answers that speed work must keep identical: listings, session metadata, usage, search.

On every recorded fixture's config folder and on the archive trees given (`benchlib.build_archive`), without the
index (the scan) and, with `--index`, from a fresh index too. Run it before and after a change: the lines must match.

    .venv/bin/python bench/answers.py [bench/data/archive-300 ...] [--index]
"""
import hashlib, json, os, sys, tempfile
from pathlib import Path
from llmsurgery.fixtures import fixtures_path
from llmsurgery.core import config_dir
from benchlib import PHRASE

def answers(index=False) -> dict:
    "Every answer, as plain data, of the config folder in `$CLAUDE_CONFIG_DIR`"
    from llmsurgery.sess import ls_sess, sess_tree, sess_info
    from llmsurgery.usage import find_usage, sess_usage
    from llmsurgery.search import find_sess
    ix = None
    if index:
        from llmsurgery.archive_index import ArchiveIndex
        ix = ArchiveIndex(); ix.update(price=True)
    out = dict(ls=ls_sess().to_data(), ls_again=ls_sess().to_data(),
               tree=[(s.sid, s.label, sorted(s.agents)) for s in sess_tree()],
               info=[(s.sid, s.info) for s in sess_tree(agents=False)],
               phrase=find_sess(PHRASE, index=ix).rows(), word=find_sess('notes', index=ix).rows())
    for by in ('day', 'session', 'model', 'project'): out[f'usage-{by}'] = find_usage(by, utc=True, index=ix).rows()
    out['usage-localday'] = find_usage('day', index=ix).rows()  # run it under TZ=Asia/Kathmandu too (+05:45)
    out['sess_usage'] = [sess_usage(s.path).rows() for s in sess_tree(agents=False)[:20]]
    return out

def sha(o) -> str: return hashlib.sha1(json.dumps(o, sort_keys=True, default=str).encode()).hexdigest()[:12]

if __name__ == '__main__':
    index = '--index' in sys.argv
    trees = [Path(a) for a in sys.argv[1:] if not a.startswith('--')]
    os.environ['XDG_CACHE_HOME'] = tempfile.mkdtemp(prefix='llmsurgery-answers-')
    fx = sorted(p for p in fixtures_path().iterdir() if (p/'projects').is_dir())
    for cfg in fx + trees:
        with config_dir(cfg):
            res = answers(index)
            print(f'{cfg.name:16}', ' '.join(f'{k}={sha(v)}' for k, v in res.items()))
