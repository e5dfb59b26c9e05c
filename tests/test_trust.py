"""Nothing lost, nothing wrong (issue 19): export, the index, notebooks, reprs and the skill, under faults and hostile
input. The number in each test's name is the item of issue 19 it pins; each failed on the code before the fix. Tests
named `test_29_N_...` pin item N of issue 29 (the management verbs, the lazy reader and the index under a hostile
world) the same way.

The index's fault injection kills a real updater (SIGKILL, and Ctrl-C in-process) at every chunk boundary of a
small archive indexed in small chunks, and after random delays, then checks that every cross-session question gets
the scan's answer. The budget is fixed and derandomized for CI; `LLMSURGERY_FAULTS=N` adds N random kills."""
import os, re, gc, sys, json, stat, time, shutil, signal, random, resource, warnings, subprocess, contextlib
from pathlib import Path
from html.parser import HTMLParser
import pytest
from llmsurgery.core import *
from llmsurgery.rec import *
from llmsurgery.show import *
from llmsurgery.sess import *
from llmsurgery.thread import *
from llmsurgery.search import *
from llmsurgery.forensics import *
from llmsurgery.usage import *
from llmsurgery.write import *
from llmsurgery.convert import sess2nb, nb2sess, recs2dlg
from llmsurgery.archive_index import ArchiveIndex
from llmsurgery.fixtures import fixture, fixture_sess
from llmsurgery import cli
import llmsurgery.archive_index as index_mod

sys.path.insert(0, str(Path(__file__).parent.parent/'bench'))
from benchlib import PHRASE, build_tree, grow

TOOLS, AGENT = fixture_sess('tools'), fixture_sess('subagent')
SID = TOOLS.sid
LLMSURGERY = Path(sys.executable).parent/'llmsurgery'

@pytest.fixture
def arc(tmp_path, monkeypatch):
    "A scratch config folder holding the `tools` and `subagent` fixtures, with scratch cache and state folders"
    for k, d in dict(CLAUDE_CONFIG_DIR='cfg', XDG_CACHE_HOME='cache', XDG_STATE_HOME='state',
                     XDG_CONFIG_HOME='config').items():
        monkeypatch.setenv(k, str(tmp_path/d))
    for name in ('tools', 'subagent'):
        shutil.copytree(fixture(name)/'projects', tmp_path/'cfg'/'projects', dirs_exist_ok=True)
    return tmp_path/'cfg'/'projects'

def run(capsys, *argv):
    "The command line in-process: (exit status, stdout, stderr)"
    with warnings.catch_warnings():
        warnings.simplefilter('always')
        rc = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err

def snapshot(root):
    "Every file and folder under `root` (symlinks not followed), with what the files hold"
    root = Path(root)
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() and not p.is_symlink() else
                                       os.readlink(p) if p.is_symlink() else 'dir') for p in sorted(root.rglob('*'))}

def tools_session(arc): return arc/TOOLS.path.parent.name/TOOLS.path.name

# ---------------------------------------------------------------------------------------------------------------------
# 1. An export never deletes or overwrites what llmsurgery did not write

MINE = {'sessions/keep/file.txt': b'precious', 'records/notes.md': b'my notes', 'tool_calls/x/y/z': b'z',
        'messages/m': b'm', 'notes.txt': b'just a file', '.hidden': b'h'}

@pytest.mark.parametrize('plant', sorted(MINE))
def test_01_export_refuses_a_folder_that_is_not_an_export(arc, capsys, tmp_path, plant):
    dest = tmp_path/'home'
    (dest/plant).parent.mkdir(parents=True, exist_ok=True)
    (dest/plant).write_bytes(MINE[plant])
    before = snapshot(dest)
    rc, out, err = run(capsys, 'export', '--parquet', dest)
    assert rc == 2 and 'holds no export of llmsurgery' in err and str(dest) in err, err
    assert snapshot(dest) == before

def test_01_export_dot_in_a_project_folder(arc, capsys, tmp_path, monkeypatch):
    proj = tmp_path/'My Project'
    (proj/'sessions').mkdir(parents=True)
    (proj/'sessions'/'a.py').write_text('print(1)')
    monkeypatch.chdir(proj)
    before = snapshot(proj)
    rc, out, err = run(capsys, 'export', '--parquet', '.')
    assert rc == 2 and snapshot(proj) == before

@pytest.mark.parametrize('state', ['[]', '{"version": 1}', 'not json', '{"version": 1, "config": 5, "redact": false, '
                                   '"projects": [], "partitions": {}}'])
def test_01_export_refuses_a_state_file_that_is_not_ours(arc, capsys, tmp_path, state):
    dest = tmp_path/'out'
    (dest/'records').mkdir(parents=True)
    (dest/'records'/'keep.txt').write_text('keep')
    (dest/'_export.json').write_text(state)
    before = snapshot(dest)
    rc, out, err = run(capsys, 'export', '--parquet', dest)
    assert rc == 2 and "not llmsurgery's export state" in err, err
    assert snapshot(dest) == before

def test_01_export_of_another_config_folder_is_refused(arc, capsys, tmp_path, monkeypatch):
    dest = tmp_path/'out'
    assert run(capsys, 'export', '--parquet', dest)[0] == 0
    before = snapshot(dest)
    other = tmp_path/'other'
    shutil.copytree(fixture('qa')/'projects', other/'projects')
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(other))
    rc, out, err = run(capsys, 'export', '--parquet', dest)
    assert rc == 2 and 'another config folder' in err
    assert snapshot(dest) == before

def test_01_starting_an_export_again_removes_only_its_own_partitions(arc, capsys, tmp_path):
    dest = tmp_path/'out'
    assert run(capsys, 'export', '--parquet', dest)[0] == 0
    (dest/'README.md').write_text('what this folder is')
    (dest/'records'/'mine.txt').write_text('a file of mine among the tables')
    rc, out, err = run(capsys, 'export', '--parquet', dest, '--redact')  # other placeholders: everything again
    assert rc == 0, err
    assert (dest/'README.md').read_text() == 'what this folder is'
    assert (dest/'records'/'mine.txt').read_text() == 'a file of mine among the tables'
    assert list(dest.glob('records/project=*/month=*/part-0.parquet'))

EXPORT_KILLER = r'''
import os, sys, signal
import llmsurgery.export as m
n, orig = [0], m._write_part  # each partition export_parquet writes
def wp(*a, **k):
    n[0] += 1
    if n[0] == int(sys.argv[2]): os.kill(os.getpid(), signal.SIGKILL)
    return orig(*a, **k)
m._write_part = wp
m.export_parquet(sys.argv[1])
'''

def tables(dest):
    import pyarrow.dataset as ds
    return {t: sorted(map(str, ds.dataset(dest/t, format='parquet', partitioning='hive').to_table().to_pylist()))
            for t in ('sessions', 'records', 'tool_calls', 'messages')}

@pytest.mark.parametrize('at', [1, 3, 6])
def test_01_an_export_killed_midway_is_taken_up_again(arc, capsys, tmp_path, at):
    dest, clean = tmp_path/'out', tmp_path/'clean'
    p = subprocess.run([sys.executable, '-c', EXPORT_KILLER, str(dest), str(at)], capture_output=True, timeout=300)
    assert p.returncode == -signal.SIGKILL
    rc, out, err = run(capsys, 'export', '--parquet', dest)
    assert rc == 0, err
    assert run(capsys, 'export', '--parquet', clean)[0] == 0
    assert tables(dest) == tables(clean)

def test_01_a_file_as_the_export_folder(arc, capsys, tmp_path):
    f = tmp_path/'out.parquet'
    f.write_text('not a folder')
    rc, out, err = run(capsys, 'export', '--parquet', f)
    assert rc == 2 and 'is not a folder' in err and f.read_text() == 'not a folder'

# ---------------------------------------------------------------------------------------------------------------------
# 2. nb2sess never replaces a session that changed after it wrote it

def converted(arc, tmp_path, capsys):
    "A notebook of the tools session, converted back once: (notebook, project folder, session id)"
    nb, proj = tmp_path/'talk.ipynb', tmp_path/'proj'
    proj.mkdir()
    assert run(capsys, 'sess2nb', SID, '-o', nb)[0] == 0
    rc, out, err = run(capsys, 'nb2sess', nb, '--cwd', proj)
    assert rc == 0, err
    return nb, proj, out.strip()

def grow_by_append(p, sid, proj): append_sess([mk_rec('user', 'One more question', ts=False)], sid, proj)
def grow_by_hand(p, sid, proj):  # as Claude Code does it: no lock of ours
    r = dict(type='user', uuid='0e0e0e0e-0000-4000-8000-000000000001', parentUuid=None, sessionId=sid,
             timestamp='2026-12-01T10:00:00.000Z', message=dict(role='user', content='resumed and asked again'))
    with open(p, 'ab') as f: f.write(json.dumps(r).encode() + b'\n')
def edit_in_place(p, sid, proj):
    data = p.read_bytes()
    p.write_bytes(data.replace(b'notes.txt', b'NOTES.TXT', 1))

@pytest.mark.parametrize('change', [grow_by_append, grow_by_hand, edit_in_place])
def test_02_nb2sess_refuses_to_replace_a_session_that_changed(arc, capsys, tmp_path, change):
    nb, proj, sid = converted(arc, tmp_path, capsys)
    p = sess_file(sid, proj)
    change(p, sid, proj)
    before = p.read_bytes()
    nb.write_text(nb.read_text().replace('notes', 'Notes'))  # and the notebook was edited too
    rc, out, err = run(capsys, 'nb2sess', nb, '--cwd', proj)
    assert rc == 1 and f'Session {sid}' in err and '--new' in err, err
    assert p.read_bytes() == before
    rc, out, err = run(capsys, 'nb2sess', nb, '--cwd', proj, '--new')
    assert rc == 0 and out.strip() != sid and p.read_bytes() == before
    assert 'Notes' in sess_file(out.strip(), proj).read_text()

def test_02_nb2sess_replaces_its_own_unchanged_session(arc, capsys, tmp_path):
    nb, proj, sid = converted(arc, tmp_path, capsys)
    nb.write_text(nb.read_text().replace('notes', 'Notes'))
    rc, out, err = run(capsys, 'nb2sess', nb, '--cwd', proj)
    assert rc == 0 and out.strip() == sid and 'Notes' in sess_file(sid, proj).read_text()

def test_02_nb2sess_over_a_session_it_never_wrote(arc, capsys, tmp_path, monkeypatch):
    nb, proj, sid = converted(arc, tmp_path, capsys)
    monkeypatch.setenv('XDG_STATE_HOME', str(tmp_path/'state-elsewhere'))  # no note of the earlier write
    sess_file(sid, proj).write_bytes(sess_file(sid, proj).read_bytes() + b'\n')
    before = sess_file(sid, proj).read_bytes()
    nb.write_text(nb.read_text().replace('notes', 'Notes'))
    assert run(capsys, 'nb2sess', nb, '--cwd', proj)[0] == 1
    assert sess_file(sid, proj).read_bytes() == before

# ---------------------------------------------------------------------------------------------------------------------
# 3. sess2nb -o replaces only a notebook it wrote itself, unedited (or with --force)

def test_03_sess2nb_refuses_a_file_that_is_not_its_notebook(arc, capsys, tmp_path):
    f = tmp_path/'report.ipynb'
    f.write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')  # someone's notebook
    g = tmp_path/'todo.txt'
    g.write_text('buy milk')
    for p in (f, g):
        before = p.read_bytes()
        rc, out, err = run(capsys, 'sess2nb', SID, '-o', p)
        assert rc == 1 and 'is not a notebook sess2nb wrote' in err and '--force' in err, err
        assert p.read_bytes() == before

def test_03_sess2nb_replaces_its_own_notebook_but_not_an_edited_one(arc, capsys, tmp_path):
    nb, tools, agent = tmp_path/'talk.ipynb', tmp_path/'tools.ipynb', tmp_path/'agent.ipynb'
    for sid, p in ((SID, tools), (AGENT.sid, agent), (SID, nb)): assert run(capsys, 'sess2nb', sid, '-o', p)[0] == 0
    assert run(capsys, 'sess2nb', AGENT.sid, '-o', nb)[0] == 0  # its own, unedited: replaced
    assert nb.read_bytes() == agent.read_bytes()
    nb.write_text(nb.read_text().replace('"cells"', '"cells" ', 1))  # edited in Jupyter
    before = nb.read_bytes()
    assert run(capsys, 'sess2nb', SID, '-o', nb)[0] == 1 and nb.read_bytes() == before
    assert run(capsys, 'sess2nb', SID, '-o', nb, '--force')[0] == 0 and nb.read_bytes() == tools.read_bytes()

def test_03_sess2nb_onto_a_symlink_a_folder_or_a_fifo(arc, capsys, tmp_path):
    target = tmp_path/'target.txt'
    target.write_text('keep me')
    (tmp_path/'link.ipynb').symlink_to(target)
    (tmp_path/'dir.ipynb').mkdir()
    os.mkfifo(tmp_path/'fifo.ipynb')
    for name in ('link.ipynb', 'dir.ipynb', 'fifo.ipynb'):
        rc, out, err = run(capsys, 'sess2nb', SID, '-o', tmp_path/name, '--force')
        assert rc == 1 and 'not a regular file' in err, (name, err)
    assert target.read_text() == 'keep me' and (tmp_path/'link.ipynb').is_symlink()

# ---------------------------------------------------------------------------------------------------------------------
# 4. An interrupted update never leaves the index wrong

QUESTIONS = [(find_sess, PHRASE), (find_sess, '(?i)TODO list'), (find_sess, r'notes\.txt', dict(role='tool')),
             (find_sess, 'capital of', dict(since='2026-11-01')), (find_edits, 'notes.txt'), (find_edits, 'todo.md'),
             (find_commands, r'^ls\b'), (find_errors,), (find_usage, 'day'), (find_usage, 'session'),
             (find_usage, 'model')]

def answers(index=None):
    "Every cross-session answer, from `index` or by scanning"
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for f, *args in QUESTIONS:
            kw = args[-1] if args and isinstance(args[-1], dict) else {}
            out.append(to_data(f(*(args[:-1] if kw else args), index=index, **kw)))
    return out

@pytest.fixture(scope='module')
def small_tree(tmp_path_factory):
    "About 3 MB of sessions in four projects, with subagents; its scan's answers"
    root = build_tree(3, tmp_path_factory.mktemp('faults')/'cfg', nproj=4, rare=2, sizes=(0.2, 1.2))
    with config_dir(root): want = answers()
    return root, want

CHUNK = 64 << 10  # bytes: the updaters killed here index in chunks this small, so each big file is many chunks

KILLER = r'''
import os, sys, signal
import llmsurgery.archive_index as m
from llmsurgery.search import find_sess
m.CHUNK = int(sys.argv[1])
at, when, how = int(sys.argv[2]), sys.argv[3], sys.argv[4]
calls = [0]
def die():
    if how == 'kill': os.kill(os.getpid(), signal.SIGKILL)
    raise KeyboardInterrupt
def wrap(f, name):
    def g(self, *a, **k):
        calls[0] += name == '_index_lines'
        if name == when.split(':')[0] and when.endswith(':before') and calls[0] >= at: die()
        r = f(self, *a, **k)
        if name == when.split(':')[0] and when.endswith(':after') and calls[0] >= at: die()
        return r
    return g
for name in ('_index_lines', '_count_usage'): setattr(m.ArchiveIndex, name, wrap(getattr(m.ArchiveIndex, name), name))
if sys.argv[5] == 'find': find_sess('zebra', index=m.ArchiveIndex())
else: m.ArchiveIndex().update()
print('finished')
'''

def kill_updater(root, cache, at, when, how='kill', via='update', delay=None):
    "Run an updater of the index of `root` in `cache` that dies at chunk `at` (`when`), or after `delay` seconds"
    env = dict(os.environ, CLAUDE_CONFIG_DIR=str(root), XDG_CACHE_HOME=str(cache))
    p = subprocess.Popen([sys.executable, '-c', KILLER, str(CHUNK), str(at), when, how, via], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if delay is not None:
        try: p.wait(delay)
        except subprocess.TimeoutExpired: p.send_signal(signal.SIGKILL)
    out, err = p.communicate(timeout=300)
    return p.returncode, out

def check_after(root, cache, want):
    "A fresh updater finishes the job; every answer is then the scan's"
    with config_dir(root):
        os.environ['XDG_CACHE_HOME'] = str(cache)
        ix = ArchiveIndex()
        got = answers(ix)
    for g, w, q in zip(got, want, QUESTIONS): assert g == w, q

POINTS = [(1, '_index_lines:after'), (2, '_index_lines:before'), (3, '_index_lines:after'), (7, '_index_lines:before'),
          (12, '_index_lines:after'), (20, '_index_lines:before'), (1, '_count_usage:before'),
          (5, '_count_usage:after')]

@pytest.mark.parametrize('at,when', POINTS)
def test_04_an_update_killed_at_a_chunk_boundary_leaves_the_index_right(small_tree, tmp_path, monkeypatch, at, when):
    root, want = small_tree
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path))
    rc, out = kill_updater(root, tmp_path, at, when)
    assert rc == -signal.SIGKILL and 'finished' not in out  # it was killed where asked
    check_after(root, tmp_path, want)

def test_04_ctrl_c_in_the_update_a_question_starts(small_tree, tmp_path, monkeypatch):
    "The update `find` starts itself, cut by Ctrl-C in this process; the same index object then answers right"
    root, want = small_tree
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path))
    with config_dir(root):
        ix = ArchiveIndex()
        n, orig = [0], ArchiveIndex._index_lines
        def lines(self, *a, **k):
            n[0] += 1
            if n[0] == 4: raise KeyboardInterrupt
            return orig(self, *a, **k)
        monkeypatch.setattr(index_mod, 'CHUNK', CHUNK)
        monkeypatch.setattr(ArchiveIndex, '_index_lines', lines)
        with pytest.raises(KeyboardInterrupt): find_sess('zebra', index=ix)
        monkeypatch.setattr(ArchiveIndex, '_index_lines', orig)
        assert answers(ix) == want

def test_04_a_question_killed_while_it_updates_a_stale_index(small_tree, tmp_path, monkeypatch):
    "An index brought up to date, then the biggest session grows by many chunks and `find`'s own update is killed"
    root, want = small_tree
    work = tmp_path/'cfg'
    shutil.copytree(root, work)
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path/'cache'))
    with config_dir(work): ArchiveIndex().update()
    big = max(work.glob('projects/*/*.jsonl'), key=lambda p: p.stat().st_size)
    grow(big, 0.6, where='/home/me/proj9/', day='2026-12-01', rare_at=0.9)
    with config_dir(work): want = answers()
    rc, out = kill_updater(work, tmp_path/'cache', 5, '_index_lines:after', via='find')
    assert rc == -signal.SIGKILL
    check_after(work, tmp_path/'cache', want)

def test_04_updates_killed_after_random_delays(small_tree, tmp_path, monkeypatch):
    root, want = small_tree
    rng = random.Random(19)
    n = 3 + int(os.environ.get('LLMSURGERY_FAULTS', 0))
    def died_or_finished(rc, out): assert rc == -signal.SIGKILL or (rc == 0 and 'finished' in out), (rc, out)
    for i in range(n):
        cache = tmp_path/f'cache{i}'
        monkeypatch.setenv('XDG_CACHE_HOME', str(cache))
        if os.environ.get('LLMSURGERY_FAULTS') and rng.random() < 0.5:
            died_or_finished(*kill_updater(root, cache, rng.randrange(1, 40), rng.choice([w for _, w in POINTS])))
        else: died_or_finished(*kill_updater(root, cache, 10**9, '_index_lines:after', delay=rng.uniform(0.6, 2.5)))
        if rng.random() < 0.5:
            died_or_finished(*kill_updater(root, cache, 10**9, '_index_lines:after', delay=rng.uniform(0.5, 2)))
        check_after(root, cache, want)

# ---------------------------------------------------------------------------------------------------------------------
# 5. An edit in place that keeps the inode, then growth, is seen

@pytest.mark.parametrize('where', [0.05, 0.5, 0.97])
def test_05_an_edit_in_place_then_growth_is_seen(small_tree, tmp_path, monkeypatch, where):
    root, _ = small_tree
    work = tmp_path/'cfg'
    shutil.copytree(root, work)
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path/'cache'))
    with config_dir(work):
        ix = ArchiveIndex()
        ix.update()
        big = max(work.glob('projects/*/*.jsonl'), key=lambda p: p.stat().st_size)
        data, ino = big.read_bytes(), big.stat().st_ino
        i = data.index(b'"role":"user","content":"What is the capital of', int(len(data)*where)) + 37
        with open(big, 'r+b') as f:  # as an editor that saves over the same file does
            f.seek(i)
            f.write(b'PUFFINS ZQ')
        grow(big, 0.05, where='/home/me/proj9/', day='2026-12-01')
        assert big.stat().st_ino == ino
        assert find_sess('PUFFINS ZQ')  # the scan sees the edit
        for pat in ('PUFFINS ZQ', 'capital of'):
            assert to_data(find_sess(pat, index=ix)) == to_data(find_sess(pat)), pat

def test_05_the_sampled_check_of_a_big_file(small_tree, tmp_path, monkeypatch):
    "Past `VERIFY_ALL` only samples are checked: blocks of 4 KB, 16 drawn at random, so an edit is found in time"
    root, _ = small_tree
    work = tmp_path/'cfg'
    shutil.copytree(root, work)
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path/'cache'))
    monkeypatch.setattr(index_mod, 'BLOCK', 4096)
    monkeypatch.setattr(index_mod, 'VERIFY_ALL', 64 << 10)
    with config_dir(work):
        ix = ArchiveIndex()
        ix.update()
        big = max(work.glob('projects/*/*.jsonl'), key=lambda p: p.stat().st_size)
        data = big.read_bytes()
        i = data.index(b'"role":"user","content":"What is the capital of', len(data)//2) + 37  # a prompt
        with open(big, 'r+b') as f: f.seek(i); f.write(b'PUFFINS ZQ')
        line = json.dumps(dict(type='user', uuid='0e0e0e0e-0000-4000-8000-000000000005', parentUuid=None,
                               message=dict(role='user', content='and?'))).encode() + b'\n'
        for k in range(200):  # each update draws its own blocks: about 300 blocks, 18 checked each time
            with open(big, 'ab') as f: f.write(line)
            if find_sess('PUFFINS ZQ', index=ix): break
        assert k < 199 and to_data(find_sess('PUFFINS ZQ', index=ix)) == to_data(find_sess('PUFFINS ZQ'))

# ---------------------------------------------------------------------------------------------------------------------
# 6. An index that cannot be written: the commands answer by scanning, with one warning

CROSS = [['find', 'Tidy'], ['errors', '--all'], ['files', '--edited', 'notes.txt'], ['commands', '--grep', 'ls'],
         ['usage', '--by', 'day'], ['usage', '--by', 'session'], ['find', 'Tidy', '--json']]

def stale_index(arc):
    "An index of the archive, then a session grown, so the next question must write"
    assert ArchiveIndex().update().indexed
    with open(tools_session(arc), 'ab') as f:
        f.write(json.dumps(dict(type='user', uuid='0e0e0e0e-0000-4000-8000-000000000002', parentUuid=None,
                                sessionId=SID, timestamp='2026-12-01T10:00:00.000Z',
                                message=dict(role='user', content='Tidy up again'))).encode() + b'\n')
    return ArchiveIndex().path

def same_as_scan(capsys, argv):
    rc, out, err = run(capsys, *argv)
    rc0, out0, _ = run(capsys, *argv, '--no-index')
    assert (rc, out) == (rc0, out0) and rc == 0, (argv, err)
    lines = [l for l in err.splitlines() if l.strip()]
    assert len(lines) == 1 and 'scanning the transcripts instead' in lines[0], (argv, err)
    assert 'Traceback' not in err and 'internal error' not in err

@pytest.mark.parametrize('argv', CROSS)
def test_06_a_folder_where_the_index_should_be(arc, capsys, argv):
    db = stale_index(arc)
    for p in db.parent.glob(db.name + '*'): p.unlink()
    db.mkdir()
    (db/'keep').write_text('not ours to delete')
    same_as_scan(capsys, argv)
    assert (db/'keep').read_text() == 'not ours to delete'

@contextlib.contextmanager
def read_only(d):
    "Make folder `d` read-only for this process: a read-only bind mount as root, else permissions"
    if os.geteuid() != 0:
        modes = {p: p.stat().st_mode for p in [d, *d.rglob('*')]}
        for p in modes: p.chmod(modes[p] & ~0o222)
        try: yield
        finally:
            for p, m in modes.items(): p.chmod(m)
        return
    ok = subprocess.run(['mount', '--bind', str(d), str(d)], capture_output=True).returncode == 0
    if ok and subprocess.run(['mount', '-o', 'remount,ro,bind', str(d)], capture_output=True).returncode == 0:
        try: yield
        finally: gc.collect(); subprocess.run(['umount', '--lazy', str(d)], check=True)
        return
    if ok: subprocess.run(['umount', str(d)])
    pytest.skip('running as root where folders cannot be mounted read-only: nothing here is read-only to us')

@pytest.mark.parametrize('argv', CROSS)
def test_06_a_read_only_cache_folder(arc, capsys, argv):
    db = stale_index(arc)
    with read_only(db.parent): same_as_scan(capsys, argv)

FULL = r'''
import resource, signal, sys
from llmsurgery import cli
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG, as on a full disk
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]),) * 2)
sys.exit(cli.main(sys.argv[2:]))
'''

@pytest.mark.parametrize('argv', CROSS[:5])
def test_06_a_full_disk(arc, tmp_path, argv):
    "The index is built; the archive then grows by a megabyte, and no file may grow past its size now"
    db = stale_index(arc)
    grow(tools_session(arc), 1, where='/tmp/llmsurgery-rec/', day='2026-12-01')
    limit = 1 << 16  # far less than the index already is: every write to it fails
    def cmd(*more): return subprocess.run([sys.executable, '-c', FULL, str(limit), *argv, *more],
                                          capture_output=True, text=True, timeout=300)
    got, scan = cmd(), cmd('--no-index')
    assert (got.returncode, got.stdout) == (scan.returncode, scan.stdout) and got.returncode == 0, got.stderr
    assert 'scanning the transcripts instead' in got.stderr and 'internal error' not in got.stderr, got.stderr

# ---------------------------------------------------------------------------------------------------------------------
# 7. One reading of a message's usage, for the scan, the index and the export

BAD_USAGE = ['many', True, -5, 2**70, 1.5, [1], {'a': 1}, '12']

@pytest.mark.parametrize('bad', BAD_USAGE, ids=repr)
def test_07_malformed_usage_is_read_alike_everywhere(arc, capsys, tmp_path, bad):
    p = tools_session(arc)
    out = []
    for l in p.read_bytes().splitlines():
        r = json.loads(l)
        if r.get('type') == 'assistant' and isinstance(r['message'].get('usage'), dict):
            r['message']['usage']['input_tokens'] = bad
            r['message']['usage']['cache_read_input_tokens'] = bad
        out.append(json.dumps(r).encode())
    p.write_bytes(b'\n'.join(out) + b'\n')
    ix = ArchiveIndex()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for by in ('day', 'session', 'model', 'project'):
            assert to_data(find_usage(by, index=ix)) == to_data(find_usage(by)), by
        assert to_data(sess_usage(SID)) == to_data(find_usage('model', project=p.parent.name))
    rc, outp, err = run(capsys, 'export', '--parquet', tmp_path/'out')
    assert rc == 0 and 'internal error' not in err, err
    import pyarrow.dataset as ds
    msgs = ds.dataset(tmp_path/'out'/'messages', format='parquet', partitioning='hive').to_table()
    assert msgs.num_rows == ix.sql('SELECT count(*) AS n FROM usage')[0].n > 0

# ---------------------------------------------------------------------------------------------------------------------
# 8. Transcript text never reaches a notebook as live HTML or a link

EVIL = '<img src=x onerror=alert(1)> [click](javascript:alert(2)) <script>alert(3)</script> **bold** `tick'

def hostile_session(arc):
    "The tools session titled, prompted, called and answered with HTML and Markdown links"
    p = tools_session(arc)
    lines = []
    for l in p.read_bytes().splitlines():
        r = json.loads(l)
        if r.get('type') in ('user', 'assistant') and isinstance(c := r['message'].get('content'), str):
            r['message']['content'] = c + ' ' + EVIL
        for b in (r.get('message', {}).get('content') if isinstance(r.get('message'), dict) else None) or []:
            if isinstance(b, dict) and b.get('type') == 'text': b['text'] += ' ' + EVIL
            if isinstance(b, dict) and b.get('type') == 'tool_use' and 'command' in b.get('input', {}):
                b['input']['command'] += ' ' + EVIL
            if isinstance(b, dict) and b.get('type') == 'tool_result' and isinstance(b.get('content'), str):
                b['content'] += ' ' + EVIL
        lines.append(json.dumps(r).encode())
    lines.append(json.dumps(dict(type='custom-title', customTitle=EVIL, sessionId=SID)).encode())
    p.write_bytes(b'\n'.join(lines) + b'\n')

def live(md):
    "What in Markdown `md` a renderer would make live: tags and links outside fenced code blocks"
    outside = re.sub(r'(?ms)^(`{3,})[^\n]*\n.*?^\1$', '', md)
    return re.findall(r'<[A-Za-z/!]|\]\(', outside)

class _Tags(HTMLParser):
    "Every tag of an HTML text, with its attributes"
    def __init__(self):
        super().__init__()
        self.tags = []
    def handle_starttag(self, tag, attrs): self.tags.append((tag, dict(attrs)))

OUR_TAGS = {'style', 'div', 'span', 'b', 'code', 'pre', 'details', 'summary', 'table', 'thead', 'tbody', 'tr', 'th',
            'td', 'mark', 'img', 'svg', 'rect', 'line', 'polyline', 'circle', 'text', 'title', 'h1', 'h2',
            'ol', 'li', 'a', 'input'}  # the page's table of prompts (links within the page) and its search box

def live_html(h):
    """What in HTML `h` came alive from a transcript: tags llmsurgery does not write, handlers, script URLs, images,
    links out of the page, any script but the page's own search (`PAGE_JS`, once)"""
    from llmsurgery.page import PAGE_JS
    h = h.replace(f'<script>{PAGE_JS}</script>', '', 1)
    p = _Tags()
    p.feed(h)
    bad = [t for t, a in p.tags if t not in OUR_TAGS]
    bad += [f'{t} {k}' for t, a in p.tags for k in a if k.startswith('on')]
    bad += [f'{t} {k}={v}' for t, a in p.tags for k, v in a.items() if k in ('href', 'src', 'xlink:href')
            and not (t == 'img' and (v or '').startswith('data:image/'))
            and not (t == 'a' and k == 'href' and re.fullmatch(r'#prompt-\d+', v or ''))]
    return bad + re.findall(r'<\s*/?\s*script', h)

SHOWS_TEXT = 'ls find grep prompts replies tools errors commands stats call sess thread match all_recs'.split()

def test_08_every_markdown_repr_escapes_transcript_text(arc):
    hostile_session(arc)
    s = open_sess(SID)
    call = sess_tools(SID)[0]
    results = dict(ls=ls_sess(), find=find_sess('alert'), grep=sess_search('alert', SID), prompts=sess_prompts(SID),
                   replies=sess_replies(SID), tools=sess_tools(SID), counts=tool_counts(SID), errors=sess_errors(SID),
                   commands=sess_commands(SID), files=touched_files(SID), usage=sess_usage(SID),
                   agents=sess_agents(AGENT.sid), stats=sess_stats(SID), call=tool_result(call.id, SID),
                   by_day=find_usage('day'), edits=find_edits('notes.txt'), errs=find_errors(),
                   cmds=find_commands('alert'), dialog=recs2dlg(s.recs, EVIL, 300), sess=s,
                   thread=sess_thread(s), match=find_sess('alert')[0], all_recs=Thread(s.recs))
    assert len(results['find']) == 1
    htmls = 0
    for name, res in results.items():
        for meth in ('_repr_markdown_', '_repr_html_'):
            if not hasattr(res, meth): continue
            text = getattr(res, meth)()
            if meth == '_repr_html_':
                htmls += 1
                assert not live_html(text), (name, live_html(text), text[:3000])
                if name in SHOWS_TEXT: assert '&lt;script&gt;' in text, name  # the text is there, as text
            else: assert not live(text), (name, meth, live(text), text[:3000])
    assert htmls == len(results) - 1  # every answer has an HTML form but the dialog (aidialog's own)
    assert EVIL not in results['find']._repr_markdown_() and 'onerror' in results['find']._repr_markdown_()
    assert live_html(EVIL) and live_html('<a href="javascript:alert(2)">x</a>')  # the check sees what it looks for

# ---------------------------------------------------------------------------------------------------------------------
# 9 and 10. The skill's commands run from any path; a missing project folder is an error

def test_09_the_skill_commands_run_from_a_path_with_spaces_quotes_and_dollars(arc, tmp_path):
    odd = tmp_path/"My Tools"/"it's $HOME"/'bin'
    odd.mkdir(parents=True)
    (odd/'llmsurgery').symlink_to(LLMSURGERY)
    from llmsurgery.skill import install_skill
    md = install_skill(cmd=str(odd/'llmsurgery')).read_text()
    cmds = re.findall(r'^  `(.+)`$', md, re.M)
    assert len(cmds) >= 15
    env = dict(os.environ, PATH='/usr/bin:/bin')  # the command must run by its own path
    for c in cmds:
        r = subprocess.run(['bash', '-c', c], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode in (0, 1, 2), (c, r.returncode, r.stderr)  # 126, 127: the shell could not run it
        assert 'bash:' not in r.stderr and (r.returncode < 2 or r.stderr.startswith('llmsurgery')), (c, r.stderr)

@pytest.mark.parametrize('where', ['missing', 'a-file'])
def test_10_skill_install_into_a_missing_project_folder(arc, capsys, tmp_path, where):
    d = tmp_path/where
    if where == 'a-file': d.write_text('x')
    rc, out, err = run(capsys, 'skill', 'install', '--project', d)
    assert rc == 1 and 'No project folder at' in err, err
    assert (d.exists(), d.is_file()) == ((False, False) if where == 'missing' else (True, True))
    assert run(capsys, 'skill', 'uninstall', '--project', d)[0] == 1

# ---------------------------------------------------------------------------------------------------------------------
# 11. resume-preview refuses versions it has no rules for

@pytest.mark.parametrize('v', ['abc', '9.9.9', '3.0.0', '1.0.0', '2.1', '2.1.332x', ''])
def test_11_resume_preview_refuses_an_unknown_cli_version(arc, capsys, v):
    rc, out, err = run(capsys, 'resume-preview', SID, '--cli', v)
    assert rc == 2 and 'measured rules exist for 2.0.50' in err and out == '', (v, err)

def test_11_a_later_release_of_the_newest_series_says_so(arc, capsys):
    rc, out, err = run(capsys, 'resume-preview', SID, '--cli', '2.1.400')
    assert rc == 0 and 'Claude Code 2.1.333 would resume' in out and 'sent as written' in out
    assert 'newer than every measured version: predicting with the rules of 2.1.333' in err

# ---------------------------------------------------------------------------------------------------------------------
# 12. redact --check writes nothing, and a check that cannot run exits 2

def test_12_redact_check_writes_no_key(arc, capsys, tmp_path):
    before = snapshot(tmp_path)
    rc, out, err = run(capsys, 'redact', SID, '--check')
    assert rc == 0 and 'no secrets found' in out and snapshot(tmp_path) == before, err

def test_12_redact_check_with_an_unwritable_config_home(arc, capsys, tmp_path, monkeypatch):
    (tmp_path/'afile').write_text('x')
    monkeypatch.setenv('XDG_CONFIG_HOME', str(tmp_path/'afile'/'config'))  # nothing can be made under a file
    rc, out, err = run(capsys, 'redact', SID, '--check')
    assert rc == 0 and 'no secrets found' in out, err  # the check needs no key

@pytest.mark.parametrize('what', ['0f0f0f0f-0000-4000-8000-00000000dead', '/no/such/file.jsonl'])
def test_12_a_check_that_cannot_run_exits_2(arc, capsys, what):
    rc, out, err = run(capsys, 'redact', what, '--check')
    assert rc == 2 and err.startswith('llmsurgery redact:'), err

# ---------------------------------------------------------------------------------------------------------------------
# 13. What sess2nb writes, nb2sess reads back

@pytest.mark.parametrize('ts', [1764500000, 1764500000123.5, {'at': 'noon'}, 'yesterday', None, ['2026']], ids=repr)
def test_13_odd_timestamps_come_back(arc, capsys, tmp_path, ts):
    d = arc/'-tmp-odd'
    d.mkdir()
    sid = '0d0d0d0d-0000-4000-8000-000000000013'
    lines = [json.dumps({**json.loads(l), 'timestamp': ts, 'sessionId': sid}) if b'"timestamp"' in l else l.decode()
             for l in TOOLS.path.read_bytes().splitlines()]
    (d/f'{sid}.jsonl').write_text('\n'.join(lines) + '\n')
    nb, proj = tmp_path/'odd.ipynb', tmp_path/'proj'
    proj.mkdir()
    assert run(capsys, 'sess2nb', sid, '-o', nb)[0] == 0
    rc, out, err = run(capsys, 'nb2sess', nb, '--cwd', proj)
    assert rc == 0, err
    recs = load_sess(out.strip(), proj)
    assert all(parse_ts(r.get('timestamp')) for r in recs if 'timestamp' in r)
    assert [rec_txt(r) for r in sess_thread(recs) if rec_role(r) == 'user'][:1] == \
           [rec_txt(r) for r in sess_thread(TOOLS.recs) if rec_role(r) == 'user'][:1]
    if ts is not None: assert 'timestamps that are not ISO times' in err

# ---------------------------------------------------------------------------------------------------------------------
# 14. A bad line in the middle, from a writer that does not take our lock, does not end all appends

@pytest.mark.parametrize('bad', [b'{"type":"user","uuid":"cut sh', b'\x00\x00\x00', b'[1, 2]', b'{"a": 1e400}'])
def test_14_append_past_a_bad_line_in_the_middle(arc, bad):
    p = tools_session(arc)
    data = p.read_bytes().splitlines(keepends=True)
    k = len(data) // 2
    p.write_bytes(b''.join(data[:k]) + bad + b'\n' + b''.join(data[k:]))
    leaf = sess_thread(load_recs(p, skip_bad=True)).written[-1]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        append_sess([mk_rec('user', 'after the damage', ts=False)], SID)
    assert len([x for x in w if 'left where they are' in str(x.message)]) == 1
    assert bad + b'\n' in p.read_bytes()
    assert load_recs(p, skip_bad=True)[-1].parentUuid == leaf.uuid

def test_14_a_half_written_last_line_is_still_refused(arc):
    p = tools_session(arc)
    with open(p, 'ab') as f: f.write(b'{"type":"user","uuid":"half')
    before = p.read_bytes()
    with pytest.raises(WriteError, match='ends in the middle of a line'):
        append_sess([mk_rec('user', 'now', ts=False)], SID)
    assert p.read_bytes() == before

# ---------------------------------------------------------------------------------------------------------------------
# Issue 29, items 1, 2 and 7 (the management verbs): a test named test_29_N pins item N of issue 29

from llmsurgery.manage import move_proj, delete_sess, restore_sess, ls_trash
import llmsurgery.manage as manage_mod

OLD_TOOLS = '/tmp/llmsurgery-rec/tools'
SAME_FOLDER = '/tmp/llmsurgery-rec-tools'  # `-` for `/`: the same project folder name, so the files are rewritten

def aged(*roots, secs=3600):
    "Make every file under `roots` look written `secs` ago (so no session looks live)"
    for r in roots:
        for p in [Path(r), *Path(r).rglob('*')]:
            if not p.is_symlink(): os.utime(p, (time.time() - secs,) * 2)

APPENDER = r'''
import json, os, sys, time
from llmsurgery.write import append_sess
path, sid, old, ready = sys.argv[1:5]
for i in range(150):
    if i % 3 == 2: append_sess([dict(type='custom-title', customTitle=f'mark {i}', sessionId=sid)], path)
    else:  # as Claude Code appends: a whole line in one write, no lock of ours
        line = dict(type='system', subtype='mark', content=f'mark {i}', cwd=old, sessionId=sid)
        with open(path, 'ab') as f: f.write(json.dumps(line).encode() + b'\n')
    if i == 0: open(ready, 'w').close()
    time.sleep(0.003)
'''

def marks(p) -> list:
    "The numbers of the appender's lines in `p`, in file order (each line must be whole JSON)"
    out = []
    with open(p, 'rb') as f:
        for line in f:
            r = json.loads(line)
            m = re.fullmatch(r'mark (\d+)', str(r.get('content') or r.get('customTitle') or ''))
            if m: out.append(int(m[1]))
    return out

def test_29_1_appends_during_a_folder_preserving_move_are_kept(arc, tmp_path, monkeypatch):
    "Lines a running session (and our own `append_sess`) append while the files are rewritten in place all stay"
    p = tools_session(arc)
    grow(p, 8, where='/tmp/llmsurgery-rec/')  # big enough that the rewrite takes a while
    aged(arc)
    ready, procs = tmp_path/'ready', []
    move_one = manage_mod._move_one
    def start_appending_then_move(it, *a, **k):  # the move has planned: the session was not live
        procs.append(subprocess.Popen([sys.executable, '-c', APPENDER, str(p), SID, OLD_TOOLS, str(ready)]))
        while not ready.exists(): assert procs[0].poll() is None; time.sleep(0.001)
        return move_one(it, *a, **k)
    monkeypatch.setattr(manage_mod, '_move_one', start_appending_then_move)
    res = move_proj(OLD_TOOLS, SAME_FOLDER)
    assert procs[0].wait(60) == 0
    assert [(i.state, i.src) for i in res] == [('rewrite', p)] and res[0].lines > 500
    got = marks(p)
    assert sorted(got) == list(range(150)), got  # none lost, none twice
    with open(p, 'rb') as f: before = [l for l in f if b'"mark ' not in l]
    assert not [l for l in before if f'"cwd":"{OLD_TOOLS}"'.encode() in l]  # and the session itself moved

def test_29_1_a_file_replaced_while_it_is_rewritten_is_left_alone(arc, monkeypatch):
    p = tools_session(arc)
    aged(arc)
    locked = manage_mod.open_locked
    def replace_then_lock(path):
        if Path(path) == p and not hasattr(replace_then_lock, 'done'):
            replace_then_lock.done = True
            tmp = p.with_name('other.tmp')
            tmp.write_bytes(p.read_bytes() + b'{"type":"last-prompt","lastPrompt":"x"}\n')
            os.replace(tmp, p)  # as another writer replaces a session (a fork in place, a redact)
        return locked(path)
    monkeypatch.setattr(manage_mod, 'open_locked', replace_then_lock)
    with pytest.warns(UserWarning, match='replaced or cut while it moved'): res = move_proj(OLD_TOOLS, SAME_FOLDER)
    assert [i.state for i in res] == ['conflict'] and p.read_bytes().endswith(b'"lastPrompt":"x"}\n')
    assert OLD_TOOLS.encode() in p.read_bytes() and not list(p.parent.glob('.*.tmp'))

def linked_away(arc, tmp_path, folder):
    "Project folder `folder` of `arc` moved to `tmp_path/elsewhere`, a symlink to it in its place; that folder"
    away = tmp_path/'elsewhere'
    shutil.move(arc/folder, away)
    (arc/folder).symlink_to(away, target_is_directory=True)
    return away

@pytest.mark.parametrize('new', ['/tmp/llmsurgery-rec/chores', SAME_FOLDER])
def test_29_2_a_symlinked_project_folder_is_not_written_through(arc, tmp_path, new):
    p = tools_session(arc)
    away = linked_away(arc, tmp_path, p.parent.name)
    aged(arc, away)
    before, tree = snapshot(away), snapshot(arc)
    with pytest.warns(UserWarning, match='resolves to'): res = move_proj(OLD_TOOLS, new)
    assert [i.state for i in res] == ['conflict'] and str(away) in res[0].why
    assert snapshot(away) == before and snapshot(arc) == tree and not ls_trash()
    with pytest.raises(ManageError, match='not a session transcript in a project folder'): delete_sess(p, force=True)
    assert snapshot(away) == before

def test_29_2_a_project_folder_linked_to_another_is_not_written_through(arc, tmp_path):
    "A symlink to another project folder inside `projects/` is refused too: delete, restore and move"
    p = tools_session(arc)
    (arc/'-tmp-alias').symlink_to(p.parent.name, target_is_directory=True)
    aged(arc)
    tree = snapshot(arc)
    with pytest.raises(ManageError, match='not a session transcript'): delete_sess(arc/'-tmp-alias'/p.name, force=True)
    assert snapshot(arc) == tree

def test_29_2_a_symlinked_destination_folder_is_not_written_through(arc, tmp_path):
    p = tools_session(arc)
    outside = tmp_path/'outside'
    outside.mkdir()
    (arc/proj_slug('/tmp/llmsurgery-rec/chores')).symlink_to(outside, target_is_directory=True)
    aged(arc)
    tree = snapshot(arc)
    with pytest.warns(UserWarning, match='resolves to'): res = move_proj(OLD_TOOLS, '/tmp/llmsurgery-rec/chores')
    assert [i.state for i in res] == ['conflict'] and snapshot(arc) == tree and not list(outside.iterdir())

KILL_AT_RENAME = r'''
import os, signal, sys
n, at = [0], int(sys.argv[1])
rename = os.rename
def dying(*a, **k):
    n[0] += 1
    if n[0] == at: os.kill(os.getpid(), signal.SIGKILL)
    return rename(*a, **k)
os.rename = dying
from llmsurgery.manage import delete_sess
delete_sess(sys.argv[2], force=True)
'''

def test_29_7_restore_after_a_killed_delete_brings_back_every_file(arc):
    "A delete killed after the session's folder went to the trash, then run again: restore brings both back"
    sid = AGENT.sid
    p = arc/AGENT.path.parent.name/AGENT.path.name
    aged(arc)
    tree = snapshot(arc)
    k = subprocess.run([sys.executable, '-c', KILL_AT_RENAME, '2', str(p)], env=dict(os.environ), timeout=120)
    assert k.returncode == -signal.SIGKILL and p.exists() and not (p.parent/sid).exists()  # the folder went first
    delete_sess(p, force=True)
    assert len(ls_trash()) == 2 and not p.exists()
    (p.parent/sid).mkdir()  # something in the folder's place: nothing is restored, not even the transcript
    with pytest.raises(ManageError, match='exists already'): restore_sess(sid)
    assert not p.exists() and len(ls_trash()) == 2
    (p.parent/sid).rmdir()
    restored = restore_sess(sid[:8])
    assert sorted(restored) == sorted([p, p.parent/sid]) and snapshot(arc) == tree and not ls_trash()

def test_29_7_two_deletions_holding_the_same_file_are_restored_one_at_a_time(arc):
    p = tools_session(arc)
    aged(arc)
    first_entry = delete_sess(p, force=True)
    shutil.copytree(first_entry, first_entry.with_name(first_entry.name.replace('Z-', '1Z-', 1)))
    with pytest.raises(ManageError, match='2 deletions'): restore_sess(SID)
    assert not p.exists() and len(ls_trash()) == 2
    assert restore_sess(str(first_entry)) == [p] and p.exists() and len(ls_trash()) == 1

# ---------------------------------------------------------------------------------------------------------------------
# Issue 29, items 3, 4, 5, 6 and 9: the index, the lazy reader, long titles, appends beside a writer that splits lines

from llmsurgery.archive_index import index_path
from llmsurgery.manage import rename_sess
import llmsurgery.core as core_mod

@pytest.mark.parametrize('name,held', [('.lock', b'precious\n'), ('', b''), ('-wal', b'precious\n'),
                                       ('-shm', b'precious\n'), ('-journal', b'precious\n')])
def test_29_3_a_link_planted_in_the_cache_folder_is_not_written_through(arc, capsys, tmp_path, name, held):
    "A symlink where a file of the index goes (its name is predictable): the question is answered by a scan, the target"
    victim = tmp_path/'victim'  # stays as it was
    victim.write_bytes(held)
    db = stale_index(arc)
    gc.collect()  # the index's connections closed: SQLite removes its -wal and -shm files
    link = db.with_suffix('.lock') if name == '.lock' else db.with_name(db.name + name)
    link.unlink(missing_ok=True)
    link.symlink_to(victim)
    rc, out, err = run(capsys, 'find', 'Tidy')
    assert victim.read_bytes() == held and link.is_symlink()
    assert (rc, out) == run(capsys, 'find', 'Tidy', '--no-index')[:2] and 'scanning the transcripts instead' in err
    with pytest.raises(IndexUnusable, match='symlink'): ArchiveIndex().update()
    assert victim.read_bytes() == held

def test_29_3_a_lock_file_of_the_recorder_is_not_written_through(tmp_path):
    from llmsurgery.recorder import _recording_lock
    victim = tmp_path/'victim'
    victim.write_bytes(b'precious\n')
    (tmp_path/'.tools.lock').symlink_to(victim)
    with pytest.raises(WriteError, match='symlink'):
        with _recording_lock(tmp_path, 'tools'): pass
    assert victim.read_bytes() == b'precious\n'

def test_29_5_a_same_size_edit_with_its_time_set_back_is_seen_by_the_index(arc):
    p = tools_session(arc)
    ix = ArchiveIndex()
    ix.update()
    assert find_sess('Tidy up notes', index=ix) and not find_sess('Tidy up PUFFS', index=ix)
    st, data = p.stat(), p.read_bytes()
    time.sleep(0.01)
    with open(p, 'r+b') as f:  # an edit in place that keeps the size, then its time set back (`touch -r`, rsync -t)
        for m in re.finditer(b'Tidy up notes', data): f.seek(m.start() + 8); f.write(b'PUFFS')
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (p.stat().st_size, p.stat().st_mtime_ns, p.stat().st_ino) == (st.st_size, st.st_mtime_ns, st.st_ino)
    assert to_data(find_sess('Tidy up PUFFS', index=ix)) == to_data(find_sess('Tidy up PUFFS')) != []
    assert not find_sess('Tidy up notes', index=ArchiveIndex())

def _same_layout(data:bytes) -> bytes:
    "`data` with text changed inside its lines, every line keeping its length and end"
    return data.replace(b'Tidy', b'Tody').replace(b'notes', b'nodes')

CHANGES = dict(
    truncated=lambda p, d: os.truncate(p, len(d)//2),
    replaced=lambda p, d: (p.with_name('x.tmp').write_bytes(d[len(d)//3:]), os.replace(p.with_name('x.tmp'), p)),
    replaced_same_layout=lambda p, d: (p.with_name('x.tmp').write_bytes(_same_layout(d)),
                                       os.replace(p.with_name('x.tmp'), p)),
    overwritten_same_layout=lambda p, d: p.write_bytes(_same_layout(d)),
    grown=lambda p, d: p.write_bytes(d + b'{"type":"last-prompt","lastPrompt":"later"}\n'))

@pytest.mark.parametrize('argv', [['show', '--all'], ['show', '--jsonl'], ['resume-preview', '--json']])
@pytest.mark.parametrize('change', CHANGES)
def test_29_4_a_big_session_changed_while_it_is_read(arc, capsys, monkeypatch, argv, change):
    "Read from its file as used (above `LAZY_MB`), the session changes after its places were taken: a right answer"
    p = tools_session(arc)  # or the library's error naming the file, never an internal error or the new text as old
    monkeypatch.setenv('LLMSURGERY_IN_MEMORY', '1')
    want = run(capsys, *argv, p)
    monkeypatch.setenv('LLMSURGERY_IN_MEMORY', '0')
    data, places = p.read_bytes(), core_mod.file_recs
    def then_change(*a, **k):
        res = places(*a, **k)
        if Path(a[0]) == p and not hasattr(then_change, 'done'): then_change.done = CHANGES[change](p, data)
        return res
    monkeypatch.setattr(core_mod, 'file_recs', then_change)
    rc, out, err = run(capsys, *argv, p)
    assert hasattr(then_change, 'done') and 'internal error' not in err and 'Traceback' not in err
    if change == 'grown': assert (rc, out) == want[:2]  # what it read is what it read before: right
    else:
        assert rc in (1, 2) and str(p) in err and 'changed while it was read' in err, err
        assert not out or b'Tody' not in out.encode()

def test_29_6_a_long_title_shows_everywhere(arc, capsys):
    "A 40 KB title, then 300 KB of later records: `ls`, `ls_sess`, `Sess` and the index all show it"
    p, title = tools_session(arc), 'Long ' + 'title ' * 6700 + 'THE END'
    assert rename_sess(SID, title) == SID
    with open(p, 'ab') as f:
        for i in range(300):
            f.write(json.dumps(dict(type='system', content='y' * 1000, sessionId=SID)).encode() + b'\n')
    assert Sess(p).label == title and [s.label for s in ls_sess() if s.sid == SID] == [title]
    assert ArchiveIndex().update() and ArchiveIndex().label(p) == title
    rc, out, _ = run(capsys, 'ls', '--json')
    assert rc == 0 and [s['title'] for s in json.loads(out) if s['sid'] == SID] == [title]
    rc, out, _ = run(capsys, 'ls')
    assert rc == 0 and 'Long title title' in out

SPLIT_WRITER = r'''
import json, os, random, sys, time
path, n, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rng = random.Random(29)
fd = os.open(path, os.O_WRONLY | os.O_APPEND)
for i in range(n):  # as a writer that splits each line in two `write` calls and takes no lock
    line = json.dumps(dict(type='system', subtype='split', content=f'split {i} ' + 'z' * rng.randrange(200))).encode()
    line += b'\n'
    k = rng.choice([len(line) - 1, rng.randrange(1, len(line) - 1)])  # the newline alone, or anywhere
    os.write(fd, line[:k])
    time.sleep(rng.uniform(0, 0.002))
    os.write(fd, line[k:])
    if i == 0: open(ready, 'w').close()
    time.sleep(rng.uniform(0, 0.002))
'''

OURS_LOOP = r"""
import time
from llmsurgery.core import WriteError
from llmsurgery.write import append_sess, mk_rec
def ours_loop(p, sid, base, going, n=150):
    "Append titles and chained records to session `sid`, `n` or while `going()`: how many were appended, refused"
    done = refused = 0
    while going() and done < n:
        recs = ([dict(type='custom-title', customTitle=f'mark {base + done}', sessionId=sid)] if done % 2 else
                [mk_rec('user', f'mark {base + done}', ts=False)])
        try: append_sess(recs, str(p)); done += 1
        except WriteError as e:
            refused += 1
            assert sid in str(e) and 'being written' in str(e), e
        time.sleep(0.002)
    return done, refused
"""
exec(OURS_LOOP)
OURS = OURS_LOOP + "import sys\nprint(*ours_loop(sys.argv[1], sys.argv[2], int(sys.argv[3]), lambda: True))\n"

def all_marks(recs) -> list:
    "The numbers of the `mark N` records (titles and prompts) among `recs`, sorted"
    texts = [r.get('customTitle') or (r.get('message') or {}).get('content') for r in recs]
    return sorted(int(m[1]) for t in texts if isinstance(t, str) and (m := re.fullmatch(r'mark (\d+)', t)))

def test_29_9_appends_beside_a_writer_that_splits_its_lines(arc, tmp_path):
    "Our appends (titles, chained records, in two processes) beside a foreign writer of half lines: every line whole"
    p, ready = tools_session(arc), tmp_path/'ready'
    w = subprocess.Popen([sys.executable, '-c', SPLIT_WRITER, str(p), '1500', str(ready)])
    while not ready.exists(): assert w.poll() is None; time.sleep(0.001)
    ours = subprocess.Popen([sys.executable, '-c', OURS, str(p), SID, '1000'], stdout=subprocess.PIPE, text=True)
    done, refused = ours_loop(p, SID, 0, lambda: w.poll() is None)
    assert w.wait(120) == 0
    done2, refused2 = map(int, ours.communicate(timeout=120)[0].split())
    assert ours.returncode == 0
    with open(p, 'rb') as f: lines = f.read().split(b'\n')
    assert lines[-1] == b''
    bad = [l[:80] for l in lines[:-1] if not isinstance(parse_rec(l), dict)]
    assert not bad, (len(bad), bad[:3])
    got = [json.loads(l) for l in lines[:-1]]
    assert sorted(int(r['content'].split()[1]) for r in got if r.get('subtype') == 'split') == list(range(1500))
    assert all_marks(got) == list(range(done)) + list(range(1000, 1000 + done2))
    assert done > 100 and done2 > 100 and refused + refused2 < (done + done2) // 10, (done, refused, done2, refused2)

SLOW_LINE = r'''
import os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
os.write(fd, b'{"type":"system","content":"')
open(sys.argv[2], 'w').close()
for i in range(int(sys.argv[3])): os.write(fd, b'z'); time.sleep(0.001)  # a line that takes its time, byte by byte
os.write(fd, b'"}\n')
'''

def test_29_9_a_line_that_never_ends_is_refused_naming_the_session(arc, tmp_path, monkeypatch):
    import llmsurgery.write as write_mod
    monkeypatch.setattr(write_mod, 'APPEND_WAIT', 0.5)
    p, ready = tools_session(arc), tmp_path/'ready'
    w = subprocess.Popen([sys.executable, '-c', SLOW_LINE, str(p), str(ready), '2000'])
    while not ready.exists(): assert w.poll() is None; time.sleep(0.001)
    t0 = time.monotonic()
    with pytest.raises(WriteError, match=f'Session {SID} .* is being written by another process'):
        rename_sess(SID, 'not now')
    assert 0.5 <= time.monotonic() - t0 < 1.5 and w.poll() is None  # it waited, then refused while the line grew
    assert w.wait(60) == 0 and b'not now' not in p.read_bytes()
    rename_sess(SID, 'now')  # once the line is whole, the append goes through
    got = load_recs(p)
    assert got[-2:].attrgot('type') == ['custom-title', 'agent-name'] and got[-3].content == 'z' * 2000

# the siblings of item 9: writers that replace a session a running CLI may append to

RESUMED = b'{"type":"user","uuid":"0e0e0e0e-0000-4000-8000-000000000029","parentUuid":null,"message":{"role":"user",' \
          b'"content":"resumed in the copy"}}\n'

def test_29_9_a_fork_resumed_since_is_not_replaced_by_the_same_fork(arc):
    new = fork_sess(SID, key='k')
    dest = tools_session(arc).with_name(f'{new}.jsonl')
    assert fork_sess(SID, key='k') == new  # its own fork, as written: replaced
    with open(dest, 'ab') as f: f.write(RESUMED)  # Claude Code resumed the fork
    before = dest.read_bytes()
    with pytest.raises(ExistsError, match=f'Fork {new} .* is not what llmsurgery wrote there'): fork_sess(SID, key='k')
    assert dest.read_bytes() == before

def test_29_9_a_fork_resumed_while_it_is_written_again_is_left_alone(arc, monkeypatch):
    import llmsurgery.write as write_mod
    new = fork_sess(SID, key='k')
    dest = tools_session(arc).with_name(f'{new}.jsonl')
    files = write_mod._fork_files
    def resumed_meanwhile(*a, **k):
        with open(dest, 'ab') as f: f.write(RESUMED)
        return files(*a, **k)
    monkeypatch.setattr(write_mod, '_fork_files', resumed_meanwhile)
    with pytest.raises(ExistsError, match='resumed, appended to or edited since'): fork_sess(SID, key='k')
    assert dest.read_bytes().endswith(RESUMED) and not list(dest.parent.glob('.*.tmp'))

def test_29_9_a_redacted_copy_resumed_since_is_not_replaced(arc, monkeypatch):
    from llmsurgery.redact import redact_sess
    import llmsurgery.redact as redact_mod
    res = redact_sess(SID)
    assert redact_sess(SID).path == res.path  # its own copy, as written: replaced
    with open(res.path, 'ab') as f: f.write(RESUMED)
    before = res.path.read_bytes()
    with pytest.raises(ExistsError, match=f'Session {res.sid} .* is not what llmsurgery wrote there'): redact_sess(SID)
    assert res.path.read_bytes() == before
    res.path.write_bytes(before[:-len(RESUMED)])  # as llmsurgery wrote it again; then resumed as it is redacted anew
    pieces = redact_mod._redacted
    def resumed_meanwhile(red, p, *a):
        yield from pieces(red, p, *a)
        if p.suffix == '.jsonl' and p.stem == SID:
            with open(res.path, 'ab') as f: f.write(RESUMED)
    monkeypatch.setattr(redact_mod, '_redacted', resumed_meanwhile)
    with pytest.raises(ExistsError, match='resumed, appended to or edited since'): redact_sess(SID)
    assert res.path.read_bytes() == before and not list(res.path.parent.glob('.*.tmp'))

def test_29_9_a_move_that_updates_an_older_copy_keeps_what_was_resumed_there(arc, monkeypatch):
    "A copy made earlier is behind the session; it is resumed in the new place just as the move replaces it"
    p, new = tools_session(arc), '/tmp/llmsurgery-rec/chores'
    aged(arc)
    assert [i.state for i in move_proj(OLD_TOOLS, new, copy=True)] == ['copy']
    with open(p, 'ab') as f: f.write(b'{"type":"last-prompt","lastPrompt":"more in the old place"}\n')
    aged(arc)
    dest = arc/proj_slug(new)/p.name
    compare, calls = manage_mod._compare, []
    def resumed_after_the_check(chunks, path):
        was = compare(chunks, path)
        calls.append(was)
        if len(calls) == 2:
            with open(dest, 'ab') as f: f.write(RESUMED)
        return was
    monkeypatch.setattr(manage_mod, '_compare', resumed_after_the_check)
    with pytest.raises(ManageError, match='written to while it moved'): move_proj(OLD_TOOLS, new, copy=True)
    assert calls[:2] == ['behind', 'behind'] and dest.read_bytes().endswith(RESUMED)

def test_29_3_a_hard_link_planted_as_the_index_is_not_written(arc, capsys, tmp_path):
    victim = tmp_path/'victim'
    victim.write_bytes(b'')  # an empty file: SQLite would make a database of it
    db = stale_index(arc)
    gc.collect()
    for p in db.parent.glob(db.name + '*'): p.unlink()
    os.link(victim, db)
    rc, out, err = run(capsys, 'find', 'Tidy')
    assert victim.read_bytes() == b'' and 'hard link' in err and rc == 0

@pytest.mark.parametrize('size', [10, 3 << 20])
def test_29_9_a_half_line_begun_between_our_look_and_our_write_is_mended(arc, monkeypatch, size):
    "Deterministically: the foreign writer's first half lands just after our look, its second half 50 ms later"
    import threading
    p = tools_session(arc)
    line = b'{"type":"system","subtype":"split","content":"foreign' + b'x' * size + b'"}\n'  # and a line of 3 MB
    write = os.write
    def half_first(fd, data):  # our append's one write: the other writer's first half lands just before it
        if b'"customTitle":"mended"' in data and not hasattr(half_first, 'done'):
            half_first.done = True
            w = os.open(p, os.O_WRONLY | os.O_APPEND)
            write(w, line[:20])
            threading.Timer(0.05, lambda: (write(w, line[20:]), os.close(w))).start()
        return write(fd, data)
    monkeypatch.setattr(os, 'write', half_first)
    before, n = p.read_bytes(), len(load_recs(p))
    rename_sess(SID, 'mended')
    after = p.read_bytes()  # the foreign line whole, then ours: the same bytes in another order
    ours = after[len(before) + len(line):]
    assert after.startswith(before + line) and ours.count(b'\n') == 2 and b'"customTitle":"mended"' in ours
    assert load_recs(p)[-2:].attrgot('type') == ['custom-title', 'agent-name'] and len(load_recs(p)) == n + 3

@pytest.mark.parametrize('change', ['overwritten_same_layout', 'replaced_same_layout', 'truncated', 'grown'])
def test_29_4_a_session_changed_after_the_index_answered_where_its_records_are(arc, capsys, monkeypatch, change):
    "The index says where the matching records are; the file changes before they are read back: right, or an error"
    p = tools_session(arc)
    ArchiveIndex().update()
    want = run(capsys, 'find', 'Tidy', '--json')
    data, read = p.read_bytes(), index_mod.read_recs
    def change_then_read(path, *a):
        if Path(path) == p and not hasattr(change_then_read, 'done'): change_then_read.done = CHANGES[change](p, data)
        return read(path, *a)
    monkeypatch.setattr(index_mod, 'read_recs', change_then_read)
    rc, out, err = run(capsys, 'find', 'Tidy', '--json')
    assert 'internal error' not in err and 'Traceback' not in err
    if change == 'grown': assert (rc, out) == want[:2]
    else: assert rc != 0 and str(p) in err and 'changed since the index read it' in err and 'Tody' not in out, err

def test_29_9_a_redacted_copy_that_is_a_symlink_is_not_replaced(arc, tmp_path):
    from llmsurgery.redact import redact_sess
    res = redact_sess(SID)
    victim = tmp_path/'victim.jsonl'
    victim.write_bytes(b'{"type":"mine"}\n')
    res.path.unlink()
    res.path.symlink_to(victim)
    with pytest.raises(ExistsError, match='is a symlink'): redact_sess(SID)
    assert victim.read_bytes() == b'{"type":"mine"}\n' and res.path.is_symlink()

def test_29_3_the_backup_hook_log_is_not_written_through_a_link(arc, tmp_path):
    from llmsurgery.backup import backup_from_hook, OWN_DIR
    dest, victim = tmp_path/'bk', tmp_path/'victim'
    victim.write_bytes(b'precious\n')
    (dest/OWN_DIR).mkdir(parents=True)
    (dest/OWN_DIR/'hook.log').symlink_to(victim)
    backup_from_hook(dest)
    assert victim.read_bytes() == b'precious\n' and (dest/OWN_DIR/'hook.log').is_symlink()
