"Fixtures shared by the tests: a generated archive in the real format; a check that each test has the markers it needs"
import os, re, sys, atexit, shutil, subprocess, tempfile
from pathlib import Path
import pytest
sys.path.insert(0, str(Path(__file__).parent.parent/'bench'))
from benchlib import build_tree

# Codex's sessions are listed beside Claude Code's: no test may see the machine's own `~/.codex`
os.environ['CODEX_HOME'] = tempfile.mkdtemp(prefix='llmsurgery-codex-home-')
atexit.register(shutil.rmtree, os.environ['CODEX_HOME'], True)  # $TMPDIR left as found

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

@pytest.fixture(autouse=True)
def _needs_its_marker(request, monkeypatch):
    """A test that runs a real Claude Code CLI (more than `claude --version`) or Chromium fails unless it is marked
    `cli` or `browser`, so that `tools/test --fast` (which leaves those out) never runs one"""
    marks = {m.name for m in request.node.iter_markers()}
    if {'cli', 'browser'} <= marks: return
    start = subprocess.Popen._execute_child
    def checked(self, args, executable, *a, **kw):
        argv = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args)
        name = Path(os.fsdecode(executable or argv[0])).name
        if name in ('claude', 'codex') and 'cli' not in marks and '--version' not in argv[1:]:
            pytest.fail(f'runs the real Claude Code CLI ({" ".join(map(str, argv[:3]))} ...): mark it @pytest.mark.cli')
        if name.startswith('chromium') and 'browser' not in marks:
            pytest.fail('runs Chromium: mark it @pytest.mark.browser')
        return start(self, args, executable, *a, **kw)
    monkeypatch.setattr(subprocess.Popen, '_execute_child', checked)

@pytest.fixture(scope='session', autouse=True)
def _tmpdir_left_as_found(tmp_path_factory):
    """The run's temporary files go in a folder of its own inside `$TMPDIR`, removed at the end, so `$TMPDIR` is left
    as it was found; anything a test or fixture left there, outside pytest's own `tmp_path` folders, fails the run"""
    mine = tempfile.mkdtemp(prefix='llmsurgery-tests-')
    old = os.environ.get('TMPDIR')
    os.environ['TMPDIR'], tempfile.tempdir = mine, mine
    tmp_path_factory.getbasetemp()  # pytest's own folders: here (unless xdist chose them), made once, now
    yield mine
    tempfile.tempdir = None
    if old is None: os.environ.pop('TMPDIR', None)
    else: os.environ['TMPDIR'] = old
    cli_own = re.compile(r'claude-\d+|cc-socks')  # the real CLI's own scratch: removed with `mine`
    left = sorted(n for n in os.listdir(mine) if not n.startswith('pytest-of-') and not cli_own.fullmatch(n))
    shutil.rmtree(mine, ignore_errors=True)
    if left: pytest.fail(f'the tests left {len(left)} files or folders in $TMPDIR: {", ".join(left[:8])}')

@pytest.fixture(autouse=True)
def _tmpdir_of_the_test(_tmpdir_left_as_found, monkeypatch):
    """A test's own temporary files (its `mkdtemp`s, its subprocesses', kernels' and browsers') go in a folder of its
    own, removed after it; its path is short, as a browser's socket path must be"""
    d = tempfile.mkdtemp(prefix='t', dir=_tmpdir_left_as_found)
    monkeypatch.setenv('TMPDIR', d)
    monkeypatch.setattr(tempfile, 'tempdir', d)
    yield d
    shutil.rmtree(d, ignore_errors=True)
