"""The interactive recordings (issue 30): FORMAT.md's rules checked on sessions typed into the CLI's terminal, and each
of their transcripts resumed with the real CLIs (2.1.332 and 2.1.333) against the fake API on loopback, sending what
`sess_thread` predicts.
"""
import json
import pytest
from llmsurgery.core import *
from llmsurgery.fixtures import fixture, fixture_meta
from llmsurgery.drift import drift, CLI_TYPES
from llmsurgery.resume import resume_check, resume_preview
from llmsurgery.claude import claude_bin, cli_version
from llmsurgery.sent import sent_msgs

NAMES = ['interactive', 'interactive-2.1.333']

def recs_of(name, sid):
    p, = fixture(name).glob(f'projects/*/{sid}.jsonl')
    return p, [json.loads(l) for l in p.read_text().splitlines()]

@pytest.mark.parametrize('name', NAMES)
def test_what_an_interactive_session_writes(name):
    meta = fixture_meta(name)
    orig, branch = meta.sessions
    assert meta.runs[0]['session_id'] == branch  # the CLI went on in the /branch copy
    op, orecs = recs_of(name, orig)
    bp, brecs = recs_of(name, branch)
    types = {r['type'] for r in orecs + brecs}
    assert {'file-history-snapshot', 'file-history-delta', 'custom-title', 'agent-color', 'relocated'} <= types
    assert types <= set(CLI_TYPES)
    # typed prompts, on interactive rows: session_id beside sessionId; a /branch copy keeps the original's session_id
    typed = [r for r in orecs if r['type'] == 'user' and r.get('promptSource') == 'typed']
    assert [r['message']['content'] for r in typed][:2] == ['Fix the typo in notes.txt', 'Now delete notes.txt']
    assert {r['session_id'] for r in orecs if 'session_id' in r} == {orig}
    assert {r['session_id'] for r in brecs if 'session_id' in r} == {orig}
    # the Edit allowed at the prompt backed the file up; the refused Bash call is a rejected tool result
    delta = next(r for r in orecs if r['type'] == 'file-history-delta')
    assert (fixture(name)/'file-history'/orig/delta['backup']['backupFileName']).read_text() == 'helo world\n'
    assert 'User rejected tool use' in [r.get('toolUseResult') for r in orecs]
    # Esc before the reply: the prompt stays in the file unanswered, and a last-prompt names no record
    assert any(r['type'] == 'last-prompt' and r['leafUuid'] == '00000000-0000-0000-0000-000000000000' for r in orecs)
    # /rename: custom-title records and the custom-title.json sidecar say the same
    side = json.loads((op.parent/orig/'custom-title.json').read_text())
    assert side['customTitle'] == 'typo-fix' and side['by'] == 'user'
    assert {r['customTitle'] for r in orecs if r['type'] == 'custom-title'} == {'typo-fix'}
    bside = json.loads((bp.parent/branch/'custom-title.json').read_text())
    assert bside == {**bside, 'customTitle': 'Fix the typo in notes.txt (Branch)', 'by': 'auto'}
    # /branch copies the chain with the same uuids and says where each row came from
    copied = [r for r in brecs if 'forkedFrom' in r]
    assert copied and all(r['forkedFrom']['sessionId'] == orig for r in copied)
    assert {r['uuid'] for r in copied} <= {r.get('uuid') for r in orecs}
    # /cd: the branch's file moved to the new folder's project; its head still names the old cwd
    moved = meta.cwd + '/moved'
    assert bp.parent.name == proj_slug(moved) and op.parent.name == proj_slug(meta.cwd)
    assert brecs[0]['cwd'] == meta.cwd
    assert [r['relocatedCwd'] for r in brecs if r['type'] == 'relocated'][-1] == moved
    assert drift(fixture(name)).attrgot('name') == []

FILES = [(n, p) for n in NAMES for p in sorted(fixture(n).glob('projects/*/*.jsonl'))]

@pytest.mark.cli
@pytest.mark.parametrize('cli', ['installed', '2.1.333'])
@pytest.mark.parametrize('name,path', FILES, ids=[f'{n}:{p.parent.name[-5:]}' for n, p in FILES])
def test_an_interactive_session_resumes_as_predicted(name, path, cli):
    if cli == 'installed': bin = claude_bin()
    else:
        from llmsurgery.cli_versions import fetch_cli
        try: bin = fetch_cli(cli)
        except (FileNotFoundError, RuntimeError) as e: pytest.skip(f'no Claude Code {cli}: {e}')
    r = resume_check(path=path, bin=bin)
    assert r.as_predicted, (r, r.conv, r.expected)
    pv = resume_preview(path, cli=cli_version(bin))
    assert sent_msgs(pv.msgs) == sent_msgs(r.conv)  # `resume-preview` says the same

# ---------------------------------------------------------------- /cd: a session is in its last relocatedCwd

@pytest.mark.parametrize('name', NAMES)
def test_a_relocated_session_is_where_cd_moved_it(name, tmp_path, monkeypatch):
    import contextlib, io, shutil
    from llmsurgery import cli
    from llmsurgery.sess import Sess, cur_sess, sess_file
    from llmsurgery.forensics import sess_stats
    from llmsurgery.archive_index import ArchiveIndex
    meta = fixture_meta(name)
    orig, branch = meta.sessions
    cfg = tmp_path/'cfg'
    shutil.copytree(fixture(name), cfg)
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(cfg))
    moved = meta.cwd + '/moved'
    bp, = cfg.glob(f'projects/*/{branch}.jsonl')
    assert Sess(bp).cwd == moved and sess_stats(str(bp)).cwd == moved and Sess(bp).recs[0]['cwd'] == meta.cwd
    # found from its new folder, as the CLI's --continue there finds it (the file is in that folder's project)
    assert cur_sess(moved) == branch and sess_file('.', moved) == bp and cur_sess(meta.cwd) == orig
    out = io.StringIO()
    with contextlib.redirect_stdout(out): assert cli.main(['ls', '--json']) == 0
    assert {o['sid']: o['cwd'] for o in json.loads(out.getvalue())} == {orig: meta.cwd, branch: moved}
    ix = ArchiveIndex(cfg, tmp_path/'ix.sqlite')
    ix.update()
    assert dict(ix.con.execute('SELECT sid, cwd FROM sessions').fetchall()) == {orig: meta.cwd, branch: moved}
