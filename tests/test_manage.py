"""Issue 23: rename, tag, delete, fork at a message and move a project, checked against the real thing.

Sessions are recorded with the real Claude Code CLI (the one claude-agent-sdk bundles) offline against a scripted
fake API on loopback; what llmsurgery writes is read back with the SDK's own readers (`list_sessions`,
`get_session_info`), compared byte for byte with what the CLI's `/rename` and the SDK's `rename_session` /
`tag_session` write, and resumed with the real CLI, whose request bodies are compared. No tokens, no network.
"""
import json, os, re, sys, shutil, signal, subprocess, time, uuid
from pathlib import Path
import pytest
from claude_agent_sdk import list_sessions, get_session_info, rename_session, tag_session
from llmsurgery.core import *
from llmsurgery.sess import *
from llmsurgery.write import fork_sess
from llmsurgery.sent import sent_msgs
from llmsurgery.forensics import sess_replies, sess_prompts
from llmsurgery.claude import run_claude
from llmsurgery.fakeapi import FakeAPI, text_block, tool_use_block
from llmsurgery.manage import *
from llmsurgery import cli

pytestmark = pytest.mark.cli  # every test starts from sessions the real CLI recorded

TOOLS = 'Bash,Read,Write'

def age(root, secs=3600):
    "Make every file under `root` look written `secs` ago (so not live)"
    for p in [Path(root), *Path(root).rglob('*')]:
        if not p.is_symlink(): os.utime(p, (time.time() - secs,) * 2)

def snapshot(root, skip):
    "Every path under `root` outside `skip`, with its size and mtime: what a run must leave as it was"
    return {str(p): (p.lstat().st_size, p.lstat().st_mtime_ns) for p in Path(root).rglob('*')
            if not p.is_relative_to(skip)}

def contents(root):
    "Every path under `root` and what it holds (a folder: None; a symlink: its target)"
    return {str(p): os.readlink(p) if p.is_symlink() else p.read_bytes() if p.is_file() else None
            for p in Path(root).rglob('*')}

def record(cfg, cwd, api, prompt, turns, **kw):
    "Run the real CLI on `prompt`, the fake API playing `turns`; the session id"
    api.turns += turns
    return run_claude(prompt, cwd, cfg, api, tools=TOOLS, **kw)['session_id']

def main_reqs(api, since=0):
    "The request bodies of the main conversation from request `since` on"
    return [q for q in api.reqs[since:] if 'cc_is_subagent=true' not in json.dumps(q.get('system', ''))[:4000]]

def notes_turns(cwd, word):
    "A turn that writes, lists and reads a file under `cwd` by absolute paths, then answers"
    f = f'{cwd}/notes.txt'
    return [[text_block('Writing.'), tool_use_block('Write', {'file_path': f, 'content': word})],
            [tool_use_block('Bash', {'command': f'ls {cwd} && cat {f}', 'description': 'look'})],
            [tool_use_block('Read', {'file_path': f})],
            [text_block(f'{word}: done in {cwd}.')]]

@pytest.fixture(scope='module')
def base(tmp_path_factory):
    "A config folder with one recorded session of two prompts, in project `proj`; copied afresh by each test"
    root = tmp_path_factory.mktemp('manage')
    cwd, cfg = root/'work'/'proj', root/'cfg'
    cwd.mkdir(parents=True)
    with FakeAPI(timeout=600) as api:
        sid = record(cfg, cwd, api, 'Write the notes', notes_turns(cwd, 'alpha'))
        n = len(api.reqs)
        assert record(cfg, cwd, api, 'And a todo?', [[text_block('Here is the todo.')]], resume=sid) == sid
        second = main_reqs(api, n)[0]
    age(cfg)
    return AttrDict(root=root, cwd=cwd, cfg=cfg, sid=sid, second=second)

class AttrDict(dict): __getattr__ = dict.__getitem__

@pytest.fixture
def env(base, tmp_path, monkeypatch):
    "A fresh copy of the base config folder, pointed at by $CLAUDE_CONFIG_DIR; state and cache kept in tmp_path"
    cfg = tmp_path/'cfg'
    shutil.copytree(base.cfg, cfg, symlinks=True)
    age(cfg)
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(cfg))
    monkeypatch.delenv('CLAUDE_CODE_SESSION_ID', raising=False)
    for v in ('XDG_STATE_HOME', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME'): monkeypatch.setenv(v, str(tmp_path/v))
    return AttrDict(base, cfg=cfg, tmp=tmp_path, path=sess_file(base.sid))

def resumed_msgs(cfg, cwd, sid, prompt='Go on', **kw):
    "The messages the real CLI sends when it resumes `sid` with `prompt` (system reminders left out)"
    with FakeAPI(timeout=300) as api:
        got = record(cfg, cwd, api, prompt, [[text_block('OK')]], resume=sid, **kw)
        return got, sent_msgs(main_reqs(api)[0]['messages'])

def run_cli(*argv):
    import io, contextlib
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err): rc = cli.main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()

# ---------------------------------------------------------------------------------------------------------------------
# Rename and tag

def appended(path, before:bytes) -> list:
    data = path.read_bytes()
    assert data.startswith(before)
    return data[len(before):].splitlines()

def test_rename_writes_what_the_cli_and_the_sdk_write(env):
    before = env.path.read_bytes()
    ref = env.tmp/'ref'
    shutil.copytree(env.cfg, ref)
    rename_sess(env.sid, '  My title ')
    ours = appended(env.path, before)
    # the real CLI's /rename, on another copy of the same session
    with FakeAPI(timeout=300) as api:
        out = run_claude('/rename My title', env.cwd, ref, api, tools=TOOLS, resume=env.sid)
        assert 'My title' in out['result'] and not api.reqs  # a local command: no request
    theirs = [l for l in (ref/env.path.relative_to(env.cfg)).read_bytes().splitlines()
              if l.startswith((b'{"type":"custom-title"', b'{"type":"agent-name"'))]
    assert ours == theirs  # byte for byte
    # the SDK's rename_session writes our first line, byte for byte
    sdk = env.tmp/'sdk'
    shutil.copytree(env.cfg, sdk)
    (sdk/env.path.relative_to(env.cfg)).write_bytes(before)
    os.environ['CLAUDE_CONFIG_DIR'] = str(sdk)
    rename_session(env.sid, 'My title', directory=str(env.cwd))
    assert appended(sdk/env.path.relative_to(env.cfg), before) == ours[:1]

def test_tag_writes_what_the_sdk_writes(env):
    before = env.path.read_bytes()
    tag_sess(env.sid, ' exp\u200b\u202e ')
    tag_sess(env.sid, None)
    tag_sess(env.sid, 'ﬁnal')  # NFKC: 'final'
    ours = appended(env.path, before)
    sdk = env.tmp/'sdk'
    shutil.copytree(env.cfg, sdk)
    (sdk/env.path.relative_to(env.cfg)).write_bytes(before)
    os.environ['CLAUDE_CONFIG_DIR'] = str(sdk)
    for t in (' exp\u200b\u202e ', None, 'ﬁnal'): tag_session(env.sid, t, directory=str(env.cwd))
    assert appended(sdk/env.path.relative_to(env.cfg), before) == ours
    os.environ['CLAUDE_CONFIG_DIR'] = str(env.cfg)
    with pytest.raises(ValueError): tag_sess(env.sid, '\u200b ')
    with pytest.raises(ValueError): rename_sess(env.sid, ' \n')
    with pytest.raises(TypeError): rename_sess(env.sid, 5)
    assert env.path.read_bytes().splitlines()[len(before.splitlines()):] == ours  # refusals wrote nothing

def test_renamed_and_tagged_session_lists_and_resumes_the_same(env):
    shutil.copytree(env.cfg, env.tmp/'orig')
    want = resumed_msgs(env.tmp/'orig', env.cwd, env.sid)  # what the session resumes as, untouched
    outside = snapshot(env.tmp, env.cfg)
    rename_sess(env.sid, 'Renamed')
    tag_sess(env.sid, 'kept')
    assert snapshot(env.tmp, env.cfg) == outside
    for info in (get_session_info(env.sid, directory=str(env.cwd)),
                 next(i for i in list_sessions(directory=str(env.cwd)) if i.session_id == env.sid)):
        assert (info.custom_title, info.tag, info.summary) == ('Renamed', 'kept', 'Renamed')
    s = ls_sess(env.cwd)[0]
    assert (s.title, s.tag) == ('Renamed', 'kept')
    rc, out, _ = run_cli('ls', env.cwd)
    assert rc == 0 and '[kept] Renamed' in out
    assert sess_file('Renamed') == env.path
    # the real CLI resumes it by its new title (`claude --resume TITLE` looks titles up), as it was
    assert resumed_msgs(env.cfg, env.cwd, 'Renamed') == want == (env.sid, want[1])
    # after the CLI resumed it (and appended its own metadata), the title and tag are still there
    info = get_session_info(env.sid, directory=str(env.cwd))
    assert (info.custom_title, info.tag) == ('Renamed', 'kept')
    assert (open_sess(env.sid).title, open_sess(env.sid).tag) == ('Renamed', 'kept')

# ---------------------------------------------------------------------------------------------------------------------
# Delete

def twin_of(path):
    "A neighbour session whose id differs from `path`'s only in its last character, with a folder of its own"
    sid = path.stem
    t = path.with_name(sid[:-1] + ('0' if sid[-1] != '0' else '1') + '.jsonl')
    t.write_bytes(path.read_bytes().replace(sid.encode(), t.stem.encode()))
    (t.parent/t.stem/'tool-results').mkdir(parents=True)
    (t.parent/t.stem/'tool-results'/'x.txt').write_text('twin')
    return t

def test_delete_moves_to_the_trash_and_restore_undoes_it(env, monkeypatch):
    p = env.path
    (p.parent/p.stem/'subagents').mkdir(parents=True)
    (p.parent/p.stem/'subagents'/'agent-a1.jsonl').write_text('{"type":"user"}\n')
    (p.parent/p.stem/'tool-results').mkdir()
    (p.parent/p.stem/'tool-results'/'big.txt').write_text('output')
    outside_dir = env.tmp/'outside'
    outside_dir.mkdir()
    (outside_dir/'keep.txt').write_text('mine')
    (p.parent/p.stem/'link').symlink_to(outside_dir)  # a symlink in the folder: moved as a link, never followed
    twin = twin_of(p)
    age(env.cfg)
    outside = snapshot(env.tmp, env.cfg)
    before = contents(env.cfg)
    # live: just written, or the running session
    os.utime(p)
    with pytest.raises(ManageError, match='looks live'): delete_sess(env.sid)
    age(env.cfg)
    monkeypatch.setenv('CLAUDE_CODE_SESSION_ID', env.sid)
    with pytest.raises(ManageError, match='CLAUDE_CODE_SESSION_ID'): delete_sess(env.sid)
    monkeypatch.delenv('CLAUDE_CODE_SESSION_ID')
    with pytest.raises(ValueError, match='start of 2 session ids'): delete_sess(env.sid[:35])
    with pytest.raises(ValueError): delete_sess(None)
    with pytest.raises(FileNotFoundError): delete_sess(str(uuid.uuid4()))
    stray = env.tmp/'stray'/p.name
    stray.parent.mkdir()
    shutil.copy(p, stray)
    with pytest.raises(ManageError, match='not a session transcript'): delete_sess(stray)
    assert contents(env.cfg) == before  # every refusal wrote nothing
    outside = snapshot(env.tmp, env.cfg)
    # the command asks; with no terminal it needs --yes
    rc, _, err = run_cli('delete', env.sid)
    assert rc == 2 and '--yes' in err and p.exists()
    rc, out, _ = run_cli('delete', env.sid, '--yes')
    assert rc == 0 and 'llmsurgery restore' in out
    assert not p.exists() and not (p.parent/p.stem).exists()
    assert twin.exists() and (twin.parent/twin.stem/'tool-results'/'x.txt').read_text() == 'twin'
    assert (outside_dir/'keep.txt').read_text() == 'mine'
    assert snapshot(env.tmp, env.cfg) == outside
    assert get_session_info(env.sid) is None
    assert env.sid not in [i.session_id for i in list_sessions()]
    entry = Path(ls_trash()[0].path)
    assert entry.parent == env.cfg/'llmsurgery-trash'
    assert (entry/'projects'/p.parent.name/p.name).is_file()
    assert (entry/'projects'/p.parent.name/p.stem/'link').is_symlink()
    # restore puts it all back; the CLI resumes it
    assert restore_sess(env.sid[:8])
    assert p.exists() and (p.parent/p.stem/'tool-results'/'big.txt').read_text() == 'output'
    assert get_session_info(env.sid).session_id == env.sid and not ls_trash()
    assert resumed_msgs(env.cfg, env.cwd, env.sid)[0] == env.sid

def test_restore_refuses_to_replace(env):
    age(env.cfg)
    delete_sess(env.sid)
    env.path.write_text('{"type":"user"}\n')
    with pytest.raises(ManageError, match='exists already'): restore_sess(env.sid)
    assert env.path.read_text() == '{"type":"user"}\n' and len(ls_trash()) == 1

# ---------------------------------------------------------------------------------------------------------------------
# Fork at a message

def test_fork_at_a_reply_resumes_with_exactly_that_conversation(env):
    replies = sess_replies(env.sid)
    first_turn_end = [r for r in replies if r.text.startswith('alpha: done')][0]
    outside = snapshot(env.tmp, env.cfg)
    before = env.path.read_bytes()
    rc, out, _ = run_cli('fork', env.sid, '--at', first_turn_end.idx, '--title', 'First turn', '--json')
    assert rc == 0
    fid = json.loads(out)['sid']
    assert env.path.read_bytes() == before and snapshot(env.tmp, env.cfg) == outside
    info = get_session_info(fid, directory=str(env.cwd))
    assert (info.custom_title, info.summary) == ('First turn', 'First turn')
    assert fid in [i.session_id for i in list_sessions(directory=str(env.cwd))]
    # resumed with the second prompt, the fork sends what the original sent for it, exactly
    got_sid, got = resumed_msgs(env.cfg, env.cwd, fid, 'And a todo?')
    assert got_sid == fid
    assert got == sent_msgs(env.second['messages'])
    # at a prompt: the conversation ends with it; at a uuid start; bad places are refused
    p = sess_prompts(env.sid)[1]
    f2 = fork_at(env.sid, p.idx)
    assert open_sess(f2).title == 'Write the notes (fork)'
    assert sess_prompts(f2).attrgot('text') == ['Write the notes', 'And a todo?']
    assert fork_at(env.sid, p.uuid[:10], title='x') != f2
    for bad in (1, 'zzz', '', 10**6, p.uuid[:0]):
        with pytest.raises(ValueError): fork_at(env.sid, bad)

# ---------------------------------------------------------------------------------------------------------------------
# Move a project

LONG = 'a-rather-long-folder-name-' * 3

@pytest.fixture(scope='module')
def moved_base(tmp_path_factory):
    """Sessions recorded once in old/proj (two), old/proj2 (a neighbour by prefix) and old/proj/sub, then old/proj
    moved: the folder the tests work in, and a pristine copy of it that each test starts from"""
    top = tmp_path_factory.mktemp('moved')
    root, pristine = top/'root', top/'pristine'
    cfg, old = root/'cfg', root/'old'/'proj'
    new = root/'new'/LONG/LONG/'proj-renamed'  # a project folder name over 200 characters: hashed
    for d in (old/'sub', root/'old'/'proj2'): d.mkdir(parents=True)
    with FakeAPI(timeout=600) as api:
        s1 = record(cfg, old, api, 'Write the notes', notes_turns(old, 'alpha'))
        s2 = record(cfg, old, api, f'Look at {old}/notes.txt and {old}2/x', notes_turns(old, 'beta'))
        s3 = record(cfg, root/'old'/'proj2', api, 'Neighbour', notes_turns(root/'old'/'proj2', 'gamma'))
        s4 = record(cfg, old/'sub', api, 'Sub', notes_turns(old/'sub', 'delta'))
    new.parent.mkdir(parents=True)
    shutil.move(old, new)
    shutil.copytree(root, pristine, symlinks=True)
    return AttrDict(root=root, pristine=pristine, cfg=cfg, old=old, new=new, s1=s1, s2=s2, s3=s3, s4=s4)

@pytest.fixture
def moved_setup(moved_base, monkeypatch):
    """`moved_base` as it was recorded: the sessions' paths name its folder, so each test gets that folder back, made
    afresh from the pristine copy, aged, s2 the newest, with its own state and cache in it"""
    m = moved_base
    shutil.rmtree(m.root)
    shutil.copytree(m.pristine, m.root, symlinks=True)
    age(m.cfg)
    os.utime(next(m.cfg.glob(f'projects/*/{m.s2}.jsonl')), (time.time() - 60,) * 2)  # s2 is the newest
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(m.cfg))
    monkeypatch.delenv('CLAUDE_CODE_SESSION_ID', raising=False)
    for v in ('XDG_STATE_HOME', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME'): monkeypatch.setenv(v, str(m.root/v))
    return m

def old_in(data:bytes, old) -> bool:
    "Does `data` name `old` as a path (not as the start of another name, like old + '2')?"
    return bool(re.search(re.escape(str(old).encode()) + rb'(?![\w.\-])', data))

def test_move_then_continue_from_the_new_place(moved_setup):
    m = moved_setup
    neighbour = next(m.cfg.glob(f'projects/*/{m.s3}.jsonl'))
    keep = neighbour.read_bytes()
    assert old_in(next(m.cfg.glob(f'projects/*/{m.s1}.jsonl')).read_bytes(), m.old)
    outside = snapshot(m.root, m.cfg)
    tree = contents(m.cfg)
    rc, out, _ = run_cli('move', m.old, m.new, '--dry-run', '--json')
    assert rc == 0 and sorted(r['sid'] for r in json.loads(out)) == sorted([m.s1, m.s2, m.s4])
    assert contents(m.cfg) == tree  # a dry run writes nothing
    res = move_proj(m.old, m.new)
    assert sorted((i.sid, i.state) for i in res) == sorted((s, 'move') for s in (m.s1, m.s2, m.s4))
    assert snapshot(m.root, m.cfg) == outside  # nothing written outside the config folder
    dest = m.cfg/'projects'/proj_slug(str(m.new))
    assert len(dest.name) > 200 and re.search(r'-[0-9a-z]+$', dest.name)
    assert sorted(p.stem for p in transcripts_in(dest)) == sorted([m.s1, m.s2])
    assert [p.stem for p in transcripts_in(sess_dir(m.new/'sub'))] == [m.s4]
    for p in [*transcripts_in(dest), *transcripts_in(sess_dir(m.new/'sub'))]:
        assert not old_in(p.read_bytes(), m.old), p
        assert {r['cwd'] for r in load_recs(p) if 'cwd' in r} <= {str(m.new), str(m.new/'sub')}
    assert f'{m.new}2/x'.encode() not in (dest/f'{m.s2}.jsonl').read_bytes()  # old + '2' is another path
    assert f'{m.old}2/x'.encode() in (dest/f'{m.s2}.jsonl').read_bytes()
    assert neighbour.read_bytes() == keep and not sess_dir(m.old).exists()
    # the SDK finds them in the new place, none in the old
    assert sorted(i.session_id for i in list_sessions(directory=str(m.new), include_worktrees=False)) == sorted(
        [m.s1, m.s2])
    assert {i.cwd for i in list_sessions(directory=str(m.new))} == {str(m.new)}
    assert list_sessions(directory=str(m.old), include_worktrees=False) == []
    # the real CLI, from the new place: --continue resumes the newest, and sends no trace of the old place
    with FakeAPI(timeout=300) as api:
        got = record(m.cfg, m.new, api, 'Where are we?', [[text_block('Here.')]], cont=True)
        assert got == m.s2
        body = json.dumps(api.reqs)
        assert not old_in(body.encode(), m.old) and 'beta: done in' in body and str(m.new) in body
    assert len(move_proj(m.old, m.new)) == 0  # nothing left to do

def test_move_a_parent_folder_and_copy(moved_setup):
    m = moved_setup
    shutil.move(m.root/'old', m.root/'parent-new')
    res = move_proj(m.root/'old', m.root/'parent-new', copy=True)
    assert sorted(i.sid for i in res) == sorted([m.s1, m.s2, m.s3, m.s4])
    assert {i.new_cwd for i in res} == {str(m.root/'parent-new'/'proj'), str(m.root/'parent-new'/'proj2'),
                                        str(m.root/'parent-new'/'proj'/'sub')}
    for s in (m.s1, m.s2, m.s3, m.s4): assert len(list(m.cfg.glob(f'projects/*/{s}.jsonl'))) == 2  # --copy kept both
    assert len(transcripts_in(sess_dir(m.root/'parent-new'/'proj2'))) == 1

def test_move_leaves_a_live_session_alone(moved_setup, monkeypatch):
    m = moved_setup
    os.utime(next(m.cfg.glob(f'projects/*/{m.s1}.jsonl')))
    monkeypatch.setenv('CLAUDE_CODE_SESSION_ID', m.s4)
    with pytest.warns(UserWarning, match='left alone'): res = move_proj(m.old, m.new)
    assert {i.sid: i.state for i in res} == {m.s1: 'live', m.s2: 'move', m.s4: 'live'}
    assert next(m.cfg.glob(f'projects/*/{m.s1}.jsonl')).parent.name == proj_slug(str(m.old))
    rc, _, err = run_cli('move', m.old, m.new)
    assert rc == 1 and 'left alone' in err

def test_move_refuses_bad_input(moved_setup):
    m = moved_setup
    tree = contents(m.cfg)
    for a, b in [('/', m.new), (m.new, m.new), (m.old, m.old/'x'), (None, m.new), ('', m.new), (m.old, 5)]:
        with pytest.raises(ValueError): move_proj(a, b)
    assert run_cli('move', m.root/'nowhere', m.new)[0] == 1
    assert contents(m.cfg) == tree

KILLER = r'''
import os, signal, sys
n, at = 0, int(sys.argv[1])
for name in ('rename', 'link', 'replace'):
    def wrap(f):
        def g(*a, **k):
            global n
            n += 1
            if n == at: os.kill(os.getpid(), signal.SIGKILL)
            return f(*a, **k)
        return g
    setattr(os, name, wrap(getattr(os, name)))
from llmsurgery.manage import move_proj
move_proj(sys.argv[2], sys.argv[3])
print('finished')
'''

def final_state(cfg):
    "What the config folder holds, trash and staging aside: each file's bytes"
    return {str(p.relative_to(cfg)): p.read_bytes() for p in (cfg/'projects').rglob('*') if p.is_file()}

def test_a_move_killed_anywhere_is_finished_by_the_next(moved_setup):
    m = moved_setup
    pristine = m.root/'pristine'
    shutil.copytree(m.cfg, pristine, symlinks=True)
    move_proj(m.old, m.new)
    want = final_state(m.cfg)
    kills = 0
    for at in range(1, 60):
        shutil.rmtree(m.cfg)
        shutil.copytree(pristine, m.cfg, symlinks=True)
        age(m.cfg)
        p = subprocess.run([sys.executable, '-c', KILLER, str(at), str(m.old), str(m.new)], env=dict(os.environ),
                           capture_output=True, text=True, timeout=300)
        if 'finished' in p.stdout: break
        assert p.returncode == -signal.SIGKILL, p.stderr
        kills += 1
        age(m.cfg)
        move_proj(m.old, m.new)
        assert final_state(m.cfg) == want, at
        assert not list(m.cfg.glob('projects/*/.llmsurgery-move-*'))
        assert len(move_proj(m.old, m.new)) == 0
    print(f"killed at {kills} points")
    assert kills >= 6  # it was killed at every rename and link of the job

def test_move_with_subagents_then_in_place(tmp_path, monkeypatch):
    "The recorded `subagent` fixture: its subagent transcripts move too; then a move to a name with the same folder"
    from llmsurgery.fixtures import fixture
    cfg = tmp_path/'cfg'
    shutil.copytree(fixture('subagent')/'projects', cfg/'projects')
    age(cfg)
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(cfg))
    monkeypatch.delenv('CLAUDE_CODE_SESSION_ID', raising=False)
    old, mid, new = '/tmp/llmsurgery-rec/subagent', tmp_path/'agents-moved', tmp_path/'agents'/'moved'
    mid.mkdir(), new.mkdir(parents=True)
    assert proj_slug(str(mid)) == proj_slug(str(new))  # `-` and `/` give the same folder name
    sid = cur_sess(old)
    assert [i.state for i in move_proj(old, mid)] == ['move']
    s = open_sess(sid)
    assert len(s.agents) == 2 and all(f.is_relative_to(sess_dir(mid)) for f in s.agents.values())
    for f in [s.path, *s.agents.values()]: assert old.encode() not in f.read_bytes()
    age(cfg)
    assert [i.state for i in move_proj(mid, new)] == ['rewrite']
    assert open_sess(sid).cwd == str(new) and [i.cwd for i in list_sessions(directory=str(new))] == [str(new)]
    for f in [s.path, *s.agents.values()]: assert not old_in(f.read_bytes(), mid)
    with FakeAPI(timeout=300) as api:
        assert record(cfg, new, api, 'Where now?', [[text_block('Here.')]], cont=True) == sid
        body = json.dumps(api.reqs)
    assert old not in body and not old_in(body.encode(), mid) and str(new) in body

def test_a_session_open_in_the_cli_is_live_to_delete_and_move(tmp_path, monkeypatch):
    """From inside a running session, with $CLAUDE_CODE_SESSION_ID unset and the transcript aged, the CLI's own
    record of its open session (<config>/sessions/<pid>.json) still makes delete refuse and move leave it alone"""
    cfg, cwd = tmp_path/'cfg', tmp_path/'proj'
    cwd.mkdir()
    llms = Path(sys.executable).parent/'llmsurgery'
    cmd = ('S=$CLAUDE_CODE_SESSION_ID; touch -d "1 hour ago" "$CLAUDE_CONFIG_DIR"/projects/*/$S.jsonl; '
           f'env -u CLAUDE_CODE_SESSION_ID {llms} delete $S --yes; echo "delete rc=$?"; '
           f'env -u CLAUDE_CODE_SESSION_ID {llms} move {cwd} {tmp_path}/elsewhere; echo "move rc=$?"')
    with FakeAPI(timeout=300) as api:
        sid = record(cfg, cwd, api, 'Try to delete yourself', [[tool_use_block('Bash', {'command': cmd,
                     'description': 'try'})], [text_block('Still here.')]])
        out = json.dumps(api.reqs[-1]['messages'])
    assert 'Claude Code (process' in out and 'has it open' in out and 'delete rc=2' in out and 'move rc=1' in out
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(cfg))
    assert sess_file(sid).parent == sess_dir(cwd) and not ls_trash()
    assert running_sessions() == {}  # the CLI removed its record when it exited

def test_delete_asks_on_a_terminal(env):
    "On a terminal `delete` asks: no keeps the session, yes moves it to the trash"
    import pty, select
    llms = Path(sys.executable).parent/'llmsurgery'
    for answer, kept in ((b'n\n', True), (b'y\n', False)):
        master, slave = pty.openpty()
        p = subprocess.Popen([str(llms), 'delete', env.sid[:8]], stdin=slave, stdout=slave, stderr=slave,
                             env=dict(os.environ), close_fds=True)
        os.close(slave)
        got = b''
        while b'[y/N]' not in got:
            assert select.select([master], [], [], 60)[0], got  # bounded: no prompt in a minute fails
            got += os.read(master, 1024)
        os.write(master, answer)
        assert p.wait(timeout=60) == (1 if kept else 0)
        os.close(master)
        assert env.path.exists() == kept and b'Delete session ' + env.sid.encode() in got

def test_restore_refuses_a_moved_sessions_old_copy(moved_setup):
    m = moved_setup
    move_proj(m.old, m.new)
    entry = next(r for r in ls_trash() if r.sid == m.s1)
    with pytest.raises(ManageError, match='moved there'): restore_sess(entry.path)
    assert len(list(m.cfg.glob(f'projects/*/{m.s1}.jsonl'))) == 1

def test_a_session_written_while_it_moves_stays_and_the_next_run_updates_the_copy(moved_setup, monkeypatch):
    import llmsurgery.manage as manage
    m = moved_setup
    src = next(m.cfg.glob(f'projects/*/{m.s1}.jsonl'))
    line = json.dumps(dict(type='last-prompt', lastPrompt='more', sessionId=m.s1)).encode() + b'\n'
    land = manage._land
    def land_then_write(it, **kw):  # as if the CLI appended a line while the session moved
        land(it, **kw)
        if it.sid == m.s1:
            with open(src, 'ab') as f: f.write(line)
    monkeypatch.setattr(manage, '_land', land_then_write)
    with pytest.warns(UserWarning, match='written while it moved'): res = move_proj(m.old, m.new)
    assert {i.sid: i.state for i in res}[m.s1] == 'conflict' and src.exists()
    monkeypatch.setattr(manage, '_land', land)
    age(m.cfg)
    assert [(i.sid, i.state) for i in move_proj(m.old, m.new)] == [(m.s1, 'update')]
    assert not src.exists() and (sess_dir(m.new)/src.name).read_bytes().endswith(line)
    # --copy, then the old session goes on: the next copy brings the new place up to date
    a, b = m.root/'old'/'proj2', m.root/'p2'
    b.mkdir()
    assert [(i.sid, i.state) for i in move_proj(a, b, copy=True)] == [(m.s3, 'copy')]
    assert [(i.sid, i.state) for i in move_proj(a, b, copy=True)] == [(m.s3, 'done')]
    rename_sess(sess_dir(a)/f'{m.s3}.jsonl', 'Later still')  # the old one (its id now names two transcripts)
    age(m.cfg)
    assert [(i.sid, i.state) for i in move_proj(a, b, copy=True)] == [(m.s3, 'update')]
    assert get_session_info(m.s3, directory=str(b)).custom_title == 'Later still'
    assert get_session_info(m.s3, directory=str(a)).custom_title == 'Later still'  # and the old one is kept
