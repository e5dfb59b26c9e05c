"""Resume, in the cases once measured wrong (issue 21): previews of every shipped fixture, the thread right after a
`/compact`, a file without uuids, and internal errors told apart from usage errors at the command line.

The cases that need the real CLI resume scratch copies with it against the fake API on loopback (no tokens, no
network beyond 127.0.0.1), the older CLIs coming from `tools/fetch-clis`.
"""
import contextlib, importlib, io, json, uuid
import pytest
from llmsurgery.core import *
from llmsurgery.rec import *
from llmsurgery.thread import *
from llmsurgery.sent import *
from llmsurgery.fixtures import fixture, fixture_names, fixture_meta, fixture_sess
from llmsurgery.resume import resume_preview
from llmsurgery import cli

FILES = [(name, f) for name in fixture_names() for f in sorted(fixture(name).glob('projects/**/*.jsonl'))]

@pytest.mark.parametrize('name,path', FILES, ids=[f'{n}:{p.name}' for n, p in FILES])
def test_preview_of_every_fixture_file(name, path):
    # by the rules of the CLI that recorded it and of the newest: the preview sends what the thread predicts
    for v in {fixture_meta(name).cli_version, max(CLI_RULES, key=version_key)}:
        pv = resume_preview(path, cli=v)
        assert pv.msgs == api_msgs(pv.thread)
        assert 'messages' in pv.to_data()

def test_preview_of_the_compact_fixture():
    pv = resume_preview(fixture_sess('compact').path, cli='2.1.332')
    assert [c.kind for c in pv.changes] == ['compacted'] and not pv.lost
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main(['resume-preview', str(fixture_sess('compact').path), '--cli', '2.1.332'])
    assert rc == 0 and 'messages before the last compaction' in out.getvalue(), err.getvalue()

# ---------------------------------------------------------------- internal errors are not usage errors

def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err): rc = cli.main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()

QA = fixture_sess('qa').path
# where each command finds the function it calls (the commands import most of the library when they run)
COMMANDS = {'stats': ('forensics', 'sess_stats', ['stats', QA]),
            'grep': ('search', 'sess_grep', ['grep', 'Paris', QA]),
            'show': ('cli', 'sess_thread', ['show', QA]),
            'resume-preview': ('resume', 'resume_preview', ['resume-preview', QA])}
BUGS = {'KeyError': lambda *a, **kw: {}['uuid'], 'IndexError': lambda *a, **kw: [][3],
        'ValueError': lambda *a, **kw: int('not a number')}

@pytest.mark.parametrize('cmd', COMMANDS)
@pytest.mark.parametrize('bug', BUGS)
def test_an_internal_error_is_not_a_usage_error(monkeypatch, cmd, bug):
    mod, name, argv = COMMANDS[cmd]
    monkeypatch.setattr(importlib.import_module(f'llmsurgery.{mod}'), name, BUGS[bug])
    rc, out, err = run(*argv)
    assert rc == 1 and f'internal error, {bug}' in err and 'Traceback' not in err, (rc, err)
    monkeypatch.setenv('LLMSURGERY_TRACEBACK', '1')
    rc, out, err = run(*argv)
    assert rc == 1 and 'Traceback (most recent call last)' in err and f'internal error, {bug}' in err, (rc, err)

def test_usage_errors_and_failures_keep_their_status_and_show_a_traceback_when_asked(monkeypatch, tmp_path):
    usage, missing = ['resume-preview', QA, '--cli', '9.9.9'], ['stats', tmp_path/'nothing.jsonl']
    for argv, want in ((usage, 2), (missing, 1)):
        rc, out, err = run(*argv)
        assert rc == want and 'internal error' not in err and 'Traceback' not in err, (argv, rc, err)
        assert len(err.strip().splitlines()) == 1
    monkeypatch.setenv('LLMSURGERY_TRACEBACK', '1')
    for argv, want in ((usage, 2), (missing, 1)):
        rc, out, err = run(*argv)
        assert rc == want and 'Traceback (most recent call last)' in err, (argv, rc, err)

# ---------------------------------------------------------------- a file without uuids

def test_preview_of_a_file_without_uuids(tmp_path):
    # measured (tests/test_thread_rules.py): 2.1.211 and later send the last record, 2.1.112 and 2.1.142 find nothing
    recs = [dict(type='user', sessionId='s', timestamp='2026-11-30T10:00:01.000Z', message=dict(role='user', content=q))
            for q in ('Q1', 'Q2')]
    recs.insert(1, dict(type='assistant', sessionId='s', timestamp='2026-11-30T10:00:02.000Z',
                        message=dict(id='msg_1', role='assistant', model='claude-sonnet-4-6',
                                     content=[dict(type='text', text='A1')])))
    p = tmp_path/'5e55a0c1-0000-4000-8000-000000000009.jsonl'
    p.write_text(''.join(json.dumps(r, separators=(',', ':')) + '\n' for r in recs))
    pv = resume_preview(p, cli='2.1.332')
    assert [[b['text'] for b in m['content']] for m in pv.msgs] == [['Q2'], ['No response requested.']]
    assert [(c.kind, c.lost, c.n) for c in pv.changes] == [('no_uuid', True, 2), ('synthetic', False, 1)]
    assert [(c.kind, c.lost) for c in resume_preview(p, cli='2.1.142').changes] == [('not_found', True)]
