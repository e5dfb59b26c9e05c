"Fixtures shared by the tests: a generated archive in the real format"
import os, sys
from pathlib import Path
import pytest
sys.path.insert(0, str(Path(__file__).parent.parent/'bench'))
from benchlib import build_tree

@pytest.fixture(scope='module')
def archive(tmp_path_factory):
    "About 12 MB of sessions over 4 projects, with subagents, in a config folder; the index's cache beside it"
    root = build_tree(12, tmp_path_factory.mktemp('tree')/'cfg', nproj=4, rare=3, sizes=(0.1, 0.3, 1, 2))
    old = {k: os.environ.get(k) for k in ('CLAUDE_CONFIG_DIR', 'XDG_CACHE_HOME')}
    os.environ.update(CLAUDE_CONFIG_DIR=str(root), XDG_CACHE_HOME=str(tmp_path_factory.mktemp('cache')))
    yield root
    for k, v in old.items():
        if v is None: os.environ.pop(k, None)
        else: os.environ[k] = v
