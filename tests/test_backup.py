"""Issue 34: a backup that survives Claude Code's cleanup, checked against the real thing.

A backup killed at any point and run again ends byte-identical to a clean one; the sources' bytes and mtimes never
change; the real CLI (offline, against the fake API on loopback) deletes 40-day-old sessions past its 5 s timer, and
the backup still holds them."""
import json, os, shutil, signal, subprocess, sys, time, uuid
from pathlib import Path
import pytest
from llmsurgery.core import *
from llmsurgery.backup import *
from llmsurgery.fixtures import fixture

def make_cfg(root, mb=0):
    "A config folder with the recorded fixtures, a todo list, a file-history folder and `mb` MB more of sessions"
    cfg = Path(root)
    for name in ('tools', 'qa', 'subagent'):
        shutil.copytree(fixture(name)/'projects', cfg/'projects', dirs_exist_ok=True)
    (cfg/'todos').mkdir(parents=True, exist_ok=True)
    (cfg/'todos'/'s-agent-s.json').write_text('[]')
    fh = cfg/'file-history'/str(uuid.uuid4())
    fh.mkdir(parents=True)
    (fh/'abc@v1').write_bytes(b'old notes\n')
    line = (b'{"type":"user","message":{"role":"user","content":"%s"}}\n' % (b'x' * 4000))
    for i in range(int(mb * 10)):  # files of 100 KB
        p = cfg/'projects'/f'-home-me-p{i % 7}'/f'{uuid.UUID(int=i + 1, version=4)}.jsonl'
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(line * 25)
    return cfg

def tree(root, skip=()):
    "Every path under `root` and what it holds (a folder: None), leaving out names in `skip`"
    return {str(p.relative_to(root)): p.read_bytes() if p.is_file() else None
            for p in sorted(Path(root).rglob('*')) if p.name not in skip}

def stamps(root): return {str(p): (p.lstat().st_size, p.lstat().st_mtime_ns) for p in Path(root).rglob('*')}

def change(cfg):
    "Grow one session, rewrite the todo list, cut one session short, delete one: what a day of use does"
    ps = sorted(cfg.glob('projects/*/*.jsonl'))
    with open(ps[0], 'ab') as f: f.write(b'{"type":"user","message":{"role":"user","content":"more"}}\n' * 3000)
    (cfg/'todos'/'s-agent-s.json').write_text('[{"content":"tidy","status":"pending"}]')
    with open(ps[1], 'r+b') as f: f.truncate(100)
    os.unlink(ps[2])

RUN = 'import sys; from llmsurgery.backup import backup; backup(sys.argv[1], sys.argv[2])'

def noted(dest):
    "How many files the running backup into `dest` has noted in its journal so far (-1: it has not started)"
    try: return (Path(dest)/OWN_DIR/'manifest.journal').read_bytes().count(b'\n')
    except FileNotFoundError: return 0 if (Path(dest)/OWN_DIR/'running').exists() else -1

def killed_then_rerun(cfg, dest, at):
    "Start a backup in a subprocess, kill it once it has noted `at` files, check it was mid-run; then run one here"
    p = subprocess.Popen([sys.executable, '-c', RUN, str(dest), str(cfg)])
    deadline = time.monotonic() + 60
    while noted(dest) < at and p.poll() is None and time.monotonic() < deadline: time.sleep(0.0005)
    p.send_signal(signal.SIGKILL)
    p.wait()
    assert (Path(dest)/OWN_DIR/'running').exists(), 'the backup ended before it was killed'
    backup(dest, cfg)

@pytest.mark.parametrize('at', [0, 1, 40, 150, 290])
def test_a_killed_backup_rerun_is_a_clean_one(tmp_path, at):
    "Killed at several points of a first backup and of an incremental one, then rerun: byte-identical to a clean run"
    cfg = make_cfg(tmp_path/'cfg', mb=30)
    src = stamps(cfg)
    clean, killed = tmp_path/'clean', tmp_path/'killed'
    backup(clean, cfg)
    killed_then_rerun(cfg, killed, at)
    assert tree(killed) == tree(clean) and stamps(cfg) == src
    change(cfg)
    src = stamps(cfg)
    backup(clean, cfg)
    killed_then_rerun(cfg, killed, min(at, 2))
    assert tree(killed) == tree(clean) and stamps(cfg) == src
    assert len(list((clean/OWN_DIR/'earlier').rglob('*@*'))) == 2  # the todo list and the session cut short

# ------------------------------------------------------------------------------------- the real CLI's cleanup

from llmsurgery.claude import run_claude
from llmsurgery.fakeapi import FakeAPI, text_block, tool_use_block

FORTY = 40 * 86400

def aged(*ps, secs=FORTY):
    for p in ps: os.utime(p, (time.time() - secs,) * 2)

def old_layout(cfg):
    """A config folder as a cleanup finds it: old and fresh sessions, subagents, tool results, folders without a
    transcript, a desktop session, file history, todos, debug logs, plans, shell snapshots and session env"""
    for name in ('tools', 'qa', 'subagent'):
        shutil.copytree(fixture(name)/'projects', cfg/'projects', dirs_exist_ok=True)
    P = cfg/'projects'
    tools, qa, sub = (next(P.glob(f'*{n}/*.jsonl')) for n in ('tools', 'qa', 'subagent'))
    aged(tools, sub)  # sub's subagents are fresh: they go with it all the same
    (tr := qa.parent/qa.stem/'tool-results').mkdir(parents=True)
    (tr/'old.txt').write_text('old'); (tr/'new.txt').write_text('new'); aged(tr/'old.txt')
    (qa.parent/qa.stem/'subagents').mkdir(); (qa.parent/qa.stem/'subagents'/'agent-a1.jsonl').write_text('{}\n')
    aged(qa.parent/qa.stem/'subagents'/'agent-a1.jsonl')  # the transcript stays: so do its subagents
    for i, fresh in enumerate((False, True)):  # folders without a transcript: each file by its own mtime
        (o := P/qa.parent.name/str(uuid.UUID(int=i + 7, version=4))/'subagents').mkdir(parents=True)
        (o/'agent-old.jsonl').write_text('{}\n'); aged(o/'agent-old.jsonl')
        if fresh: (o/'agent-new.jsonl').write_text('{}\n')
    desk = tools.with_name(str(uuid.uuid4()) + '.jsonl')
    desk.write_bytes(tools.read_bytes().replace(b'"entrypoint":"sdk-cli"', b'"entrypoint":"claude-desktop"'))
    aged(desk)
    (P/tools.parent.name/'agent-flat0.jsonl').write_text('{}\n'); aged(P/tools.parent.name/'agent-flat0.jsonl')
    for sid, old in ((tools.stem, True), (qa.stem, False)):
        (fh := cfg/'file-history'/sid).mkdir(parents=True); (fh/'x@v1').write_text('x')
        if old: aged(fh)  # by the folder's own mtime
    (cfg/'todos').mkdir()
    for n, old in (('old-agent-old.json', True), ('new-agent-new.json', False)):
        (cfg/'todos'/n).write_text('[]')
        if old: aged(cfg/'todos'/n)
    for d, n in (('debug', 'x.txt'), ('plans', 'p.md'), ('plans', 'p.txt'), ('shell-snapshots', 's.sh'),
                 ('shell-snapshots', 's.txt')):
        (cfg/d).mkdir(exist_ok=True); (cfg/d/n).write_text('t'); aged(cfg/d/n)
    (cfg/'session-env'/str(uuid.uuid4())).mkdir(parents=True); aged(*(cfg/'session-env').iterdir())
    return tools

def run_past_timer(cfg, cwd):
    "Run the real CLI on a prompt whose tool call takes 7 s, so its cleanup timer (5 s) fires"
    with FakeAPI(timeout=120) as api:
        api.turns += [[tool_use_block('Bash', {'command': 'sleep 7', 'description': 'wait'})], [text_block('done')]]
        return run_claude('Wait a little', cwd, cfg, api, tools='Bash', timeout=90)['session_id']

def paths(root): return {p for p in Path(root).rglob('*')}

@pytest.mark.cli
def test_expiring_is_what_the_real_cli_deletes(tmp_path):
    cfg, cwd = tmp_path/'cfg', tmp_path/'work'
    cwd.mkdir()
    old_layout(cfg)
    want = expiring(cfg)
    before = paths(cfg)
    run_past_timer(cfg, cwd)
    gone = before - paths(cfg)
    listed = {Path(r['path']) for r in want}
    assert listed <= gone and listed
    covered = lambda p: any(p == l or p.is_relative_to(l) for l in listed)
    left = {p for p in gone if not covered(p)}
    assert all(p.is_relative_to(cfg/'projects') and not any(q.is_relative_to(p) and q != p for q in before - gone)
               for p in left), sorted(left)  # besides: only folders the cleanup left empty
    kinds = sorted({r['kind'] for r in want})
    assert kinds == ['debug log', 'file history', 'orphan file', 'plan', 'session', 'session env', 'session folder',
                     'shell snapshot', 'todo list', 'tool result'], kinds
    assert (cfg/'.last-cleanup').exists() and expiring(cfg, within=1) == []  # the next one is a day away

@pytest.mark.cli
@pytest.mark.parametrize('setting', ['{"cleanupPeriodDays": "30"}', '{"cleanupPeriodDays": 1.5}'])
def test_a_setting_that_turns_cleanup_off(tmp_path, setting):
    cfg, cwd = tmp_path/'cfg', tmp_path/'work'
    cwd.mkdir()
    tools = old_layout(cfg)
    (cfg/'settings.json').write_text(setting)
    assert expiring(cfg) == [] and cleanup_days(cfg) is None
    run_past_timer(cfg, cwd)
    assert tools.exists()

def said(req) -> str:
    "The text of a request's messages, for finding a prompt in it"
    return json.dumps(req.get('messages', []))

@pytest.mark.cli
def test_the_backup_keeps_what_the_cli_deletes_and_restore_brings_it_back(tmp_path):
    "A real session, backed up, made 40 days old and deleted by the real CLI's cleanup, restored and resumed"
    cfg, cwd, other, dest = tmp_path/'cfg', tmp_path/'work'/'proj', tmp_path/'work'/'other', tmp_path/'bk'
    cwd.mkdir(parents=True); other.mkdir()
    with FakeAPI(timeout=120) as api:
        api.turns += [[tool_use_block('Write', {'file_path': f'{cwd}/n.txt', 'content': 'zebra'})],
                      [text_block('Noted the zebra.')]]
        sid = run_claude('Remember the zebra in n.txt', cwd, cfg, api, tools='Write', timeout=90)['session_id']
    t = next(cfg.glob(f'projects/*/{sid}.jsonl'))
    shutil.copytree(fixture('subagent')/'projects', cfg/'projects', dirs_exist_ok=True)  # one with subagents
    sub = next(cfg.glob('projects/*subagent/*.jsonl'))
    subs = {p.relative_to(cfg): p.read_bytes() for p in [sub, *(sub.parent/sub.stem).rglob('*')] if p.is_file()}
    backup(dest, cfg)
    kept = (dest/t.relative_to(cfg)).read_bytes()
    aged(t, sub)
    assert sorted(r['sid'] for r in expiring(cfg) if r['kind'] == 'session') == sorted([sid, sub.stem])
    run_past_timer(cfg, other)
    assert not t.exists() and not sub.parent.exists()  # the cleanup deleted them (the emptied project folder too)
    assert (dest/t.relative_to(cfg)).read_bytes() == kept
    shutil.copytree(dest, tmp_path/'bk2', symlinks=True)
    aged(tmp_path/'bk2'/t.relative_to(cfg))
    run_past_timer(tmp_path/'bk2', other)  # Claude Code pointed at a backup: its settings.json keeps everything
    assert (tmp_path/'bk2'/'.last-cleanup').exists()  # the cleanup ran there
    assert (tmp_path/'bk2'/t.relative_to(cfg)).read_bytes() == kept
    done = restore_from(sid[:8], dest, cfg)
    assert t in done and t.read_bytes() == kept and time.time() - t.stat().st_mtime < 60
    assert [r for r in expiring(cfg, within=20) if r['sid'] == sid] == []
    restore_from(sub.stem, dest, cfg)  # its subagents and their metadata come back with it
    assert {p.relative_to(cfg): p.read_bytes() for p in [sub, *(sub.parent/sub.stem).rglob('*')] if p.is_file()} == subs
    with FakeAPI(timeout=120) as api:
        api.turns += [[text_block('Still the zebra.')]]
        assert run_claude('What did I ask?', cwd, cfg, api, tools='Write', resume=sid, timeout=90)['session_id'] == sid
        main = [q for q in api.reqs if 'What did I ask?' in said(q)]
    assert main and 'Remember the zebra in n.txt' in said(main[-1]) and 'Noted the zebra.' in said(main[-1])

@pytest.mark.cli
def test_the_hook_backs_up_each_session_as_it_ends(tmp_path, monkeypatch):
    "Installed in settings.json, the hook runs when the real CLI's session ends, and the backup holds that session"
    monkeypatch.setenv('XDG_STATE_HOME', str(tmp_path/'state'))
    cfg, cwd, dest = tmp_path/'cfg', tmp_path/'work', tmp_path/'my backups'
    cwd.mkdir(); cfg.mkdir()
    mine = ('{\n\t"model": "claude-sonnet-4-6",\n'
            '\t"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}\n}')
    (cfg/'settings.json').write_text(mine)
    assert install_hook(dest, cfg).startswith('installed') and install_hook(dest, cfg).startswith('already')
    with FakeAPI(timeout=120) as api:
        api.turns += [[text_block('Hello from the fake model.')]]
        sid = run_claude('Say hello', cwd, cfg, api, tools='Bash', timeout=90)['session_id']
        deadline = time.monotonic() + 30  # the hook may still be finishing as the CLI exits
        t = next(cfg.glob(f'projects/*/{sid}.jsonl'))
        while time.monotonic() < deadline and not (dest/t.relative_to(cfg)).exists(): time.sleep(0.2)
    assert (dest/t.relative_to(cfg)).read_bytes() == t.read_bytes()
    assert 'backup in' in (dest/OWN_DIR/'hook.log').read_text()
    assert uninstall_hook(cfg) and (cfg/'settings.json').read_text() == mine

# ------------------------------------------------------------------------------------------ attacks on backup

def test_two_backups_at_once_end_as_one(tmp_path):
    "Two sessions ending together run two backups into one folder: the lock makes them one after the other"
    cfg = make_cfg(tmp_path/'cfg', mb=10)
    ps = [subprocess.Popen([sys.executable, '-c', RUN, str(tmp_path/'bk'), str(cfg)]) for _ in range(2)]
    assert [p.wait() for p in ps] == [0, 0]
    backup(tmp_path/'clean', cfg)
    assert tree(tmp_path/'bk') == tree(tmp_path/'clean')

def test_a_session_written_while_it_is_backed_up(tmp_path):
    "A transcript appended to during the backup: the next backup brings the rest, as appended bytes"
    import threading
    cfg = make_cfg(tmp_path/'cfg', mb=5)
    p = sorted(cfg.glob('projects/*/*.jsonl'))[-1]
    stop = threading.Event()
    def writer():
        with open(p, 'ab') as f:
            while not stop.is_set(): f.write(b'{"type":"user","message":{"role":"user","content":"more"}}\n'); f.flush()
    th = threading.Thread(target=writer); th.start()
    try:
        for _ in range(3): backup(tmp_path/'bk', cfg)
    finally: stop.set(); th.join()
    rep = backup(tmp_path/'bk', cfg)
    assert (tmp_path/'bk'/p.relative_to(cfg)).read_bytes() == p.read_bytes() and rep['rewritten'] == 0
    assert not (tmp_path/'bk'/OWN_DIR/'earlier').exists()

def test_refusals(tmp_path):
    cfg = make_cfg(tmp_path/'cfg')
    with pytest.raises(InputError, match='inside'): backup(cfg/'bk', cfg)
    (tmp_path/'theirs').mkdir(); (tmp_path/'theirs'/'a.txt').write_text('a')
    with pytest.raises(ExistsError, match='not a backup'): backup(tmp_path/'theirs', cfg)
    with pytest.raises(NotFound): backup(tmp_path/'bk', tmp_path/'nowhere')
    backup(tmp_path/'bk', cfg)
    (tmp_path/'etc').mkdir()
    shutil.rmtree(tmp_path/'bk'/'todos'); (tmp_path/'bk'/'todos').symlink_to(tmp_path/'etc')  # planted in the backup
    with pytest.raises(WriteError): backup(tmp_path/'bk', cfg)
    assert list((tmp_path/'etc').iterdir()) == []

def test_a_session_resumed_in_the_backup_is_kept(tmp_path):
    "The backup's copy written by someone else (claude --resume with CLAUDE_CONFIG_DIR=DEST): kept in earlier/"
    cfg = make_cfg(tmp_path/'cfg')
    backup(tmp_path/'bk', cfg)
    p = sorted(cfg.glob('projects/*/*.jsonl'))[0]
    mine = tmp_path/'bk'/p.relative_to(cfg)
    with open(mine, 'ab') as f: f.write(b'{"type":"user","message":{"role":"user","content":"in the backup"}}\n')
    written = mine.read_bytes()
    with open(p, 'ab') as f: f.write(b'{"type":"user","message":{"role":"user","content":"at the source"}}\n')
    assert backup(tmp_path/'bk', cfg)['rewritten'] == 1 and mine.read_bytes() == p.read_bytes()
    assert [q.read_bytes() for q in (tmp_path/'bk'/OWN_DIR/'earlier').rglob('*.jsonl@*')] == [written]
    assert backup(tmp_path/'bk', cfg)['same'] == len(list(source_files(cfg)))

def test_the_hook_command_runs_with_a_bare_environment(tmp_path):
    "No PATH to llmsurgery, no $CLAUDE_CONFIG_DIR, a space in the backup's name: the command still backs up"
    cfg, dest = make_cfg(tmp_path/'my cfg'), tmp_path/'my backups'
    cmd = hook_command(dest, cfg)
    p = subprocess.run(['/bin/sh', '-c', cmd], env={'PATH': '/usr/bin:/bin', 'HOME': str(tmp_path)},
                       input='{"session_id": "x", "hook_event_name": "SessionEnd"}', text=True, capture_output=True,
                       timeout=60)
    assert p.returncode == 0 and p.stdout == '' and 'backup in' in (dest/OWN_DIR/'hook.log').read_text()
    assert tree(dest/'projects') == tree(cfg/'projects')

def test_ls_warns_and_lists_what_expires(tmp_path, monkeypatch, capsys):
    from llmsurgery import cli
    cfg = make_cfg(tmp_path/'cfg')
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(cfg))
    assert cli.main(['ls']) == 0 and 'Warning' not in capsys.readouterr().out
    p = sorted(cfg.glob('projects/*/*.jsonl'))[0]
    aged(p, secs=25 * 86400)  # goes in five days
    assert cli.main(['ls']) == 0
    warn = capsys.readouterr().out.strip().splitlines()[-1]
    assert warn.startswith("Warning: Claude Code's cleanup deletes 1 of these sessions within 7 days")
    assert cli.main(['ls', '--expiring']) == 1  # nothing in the next cleanup
    capsys.readouterr()
    assert cli.main(['ls', '--expiring', '--within', '7', '--json']) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r['kind'], r['path']) for r in rows] == [('session', str(p))]

def test_a_linked_settings_json_stays_linked(tmp_path, monkeypatch):
    "settings.json linked from a dotfiles repository: the hook goes into the file it links to, the link stays"
    monkeypatch.setenv('XDG_STATE_HOME', str(tmp_path/'state'))
    cfg, dots = make_cfg(tmp_path/'cfg'), tmp_path/'dotfiles'
    dots.mkdir(); (dots/'settings.json').write_text('{"model": "opus"}\n')
    (cfg/'settings.json').symlink_to(dots/'settings.json')
    install_hook(tmp_path/'bk', cfg)
    assert (cfg/'settings.json').is_symlink() and HOOK_FLAG in (dots/'settings.json').read_text()
    assert uninstall_hook(cfg) and (dots/'settings.json').read_text() == '{"model": "opus"}\n'
