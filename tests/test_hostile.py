"""Hostile input (issue 10): nothing hangs, nothing escapes the config folder, nothing is lost.

Each test builds a small archive under a scratch `$CLAUDE_CONFIG_DIR` from the recorded fixtures, plants one hostile
thing in it and checks what the library and the command line do with it. Numbers in the test names are the items of
issue 10."""
import os, re, sys, time, json, stat, tempfile, shutil, signal, subprocess, resource, warnings, multiprocessing
import contextlib
from pathlib import Path
import pytest
from fastcore.foundation import L
from llmsurgery.core import *
from llmsurgery.rec import *
from llmsurgery.show import *
from llmsurgery.sess import *
from llmsurgery.thread import *
from llmsurgery.search import *
from llmsurgery.forensics import *
from llmsurgery.usage import *
from llmsurgery.write import *
from llmsurgery.convert import recs2chat, recs2dlg, nb2sess, ConvertError
from llmsurgery.fixtures import fixture, fixture_sess
from llmsurgery import cli

TOOLS, AGENT = fixture_sess('tools'), fixture_sess('subagent')
SID = TOOLS.sid

@pytest.fixture
def arc(tmp_path, monkeypatch):
    "A scratch config folder holding the `tools` and `subagent` fixtures' projects; returns its `projects/`"
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(tmp_path/'cfg'))
    for name in ('tools', 'subagent'):
        shutil.copytree(fixture(name)/'projects', tmp_path/'cfg'/'projects', dirs_exist_ok=True)
    return tmp_path/'cfg'/'projects'

def tools_dir(arc): return arc/TOOLS.path.parent.name
def agent_dir(arc): return arc/AGENT.path.parent.name

class Hung(BaseException): "Raised by `deadline`: not an `OSError`, so no `except OSError` swallows it"

@contextlib.contextmanager
def deadline(secs=8):
    "Fail instead of hanging: SIGALRM interrupts a blocked `open` or `read` in the main thread, again every second"
    def boom(*_): raise Hung(f'still blocked after {secs} s')
    old = signal.signal(signal.SIGALRM, boom)
    signal.setitimer(signal.ITIMER_REAL, secs, 1)
    try: yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)

def run(capsys, *argv):
    "Run the command line in-process: (exit status, stdout, stderr)"
    with deadline(), warnings.catch_warnings():
        warnings.simplefilter('always')
        rc = cli.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err

TREE_CMDS = [['find', 'Tidy'], ['agents', AGENT.sid], ['tools', AGENT.sid], ['usage', '--by', 'day'],
             ['errors', '--all'], ['ls'], ['commands', '--grep', 'ls'], ['files', '--edited', 'notes.txt'],
             ['usage', '--by', 'session'], ['find', 'Tidy', '--no-agents']]

def raised(f, *args, **kw):
    "The exception `f(*args, **kw)` raises, or None: so a test checks what was written before how it was refused"
    try: f(*args, **kw)
    except Exception as e: return e

def assert_one_warning(err, name):
    lines = [l for l in err.splitlines() if name in l]
    assert len(lines) == 1, err
    assert 'Traceback' not in err

def assert_skipped_only(err, planted):
    "`err` holds warnings alone, at least one, each naming a skipped entry of `planted` (paths)"
    lines = err.strip().splitlines()
    assert lines and 'Traceback' not in err, err
    names = {str(p) for p in planted}
    assert all(l.startswith('llmsurgery: warning: skipped ') and l[29:].split(': ')[0] in names for l in lines), err

def same_as_before(capsys, argv, plant):
    "Command `argv` answers exactly as it did before `plant()` put its hostile entries in: the same status and output"
    want = run(capsys, *argv)
    planted = plant()
    got = run(capsys, *argv)
    assert got[:2] == want[:2] and want[0] == 0, (argv, got[2])
    assert_skipped_only(got[2], planted)

# ---------------------------------------------------------------------------------------------------------------------
# 1. FIFOs are never opened

def test_01_fifo_session_is_refused_not_read(arc, capsys):
    sid = '0b1e3c4d-0000-4000-8000-00000000f1f0'
    os.mkfifo(tools_dir(arc)/f'{sid}.jsonl')
    with deadline(): 
        with pytest.raises(TranscriptError, match='not a regular file'): load_recs(tools_dir(arc)/f'{sid}.jsonl')
    rc, out, err = run(capsys, 'show', sid)
    assert rc == 1 and len(err.strip().splitlines()) == 1 and 'Traceback' not in err
    rc, out, err = run(capsys, 'show', str(tools_dir(arc)/f'{sid}.jsonl'))
    assert rc != 0 and len(err.strip().splitlines()) == 1 and 'Traceback' not in err

def plant_fifos(arc):
    "FIFOs named like two agents' transcripts and a session's: the paths"
    fifos = [agent_dir(arc)/'agent-afifo01.jsonl', agent_dir(arc)/AGENT.sid/'subagents'/'agent-afifo02.jsonl',
             tools_dir(arc)/'3c1e3c4d-0000-4000-8000-00000000f1f0.jsonl']
    for f in fifos: os.mkfifo(f)
    return fifos

@pytest.mark.parametrize('argv', TREE_CMDS)
def test_01_fifo_agents_do_not_block_tree_commands(arc, capsys, argv):
    "Each command answers as it did without the FIFOs, and warns of nothing else"
    same_as_before(capsys, argv, lambda: plant_fifos(arc))

# ---------------------------------------------------------------------------------------------------------------------
# 2. One bad entry does not stop a scan over many files

def plant_bad_entries(arc):
    "A folder, a symlink loop, a session symlinked to /dev/zero, a dangling link: each named like a transcript"
    d = tools_dir(arc)
    bad = {'dir': '11111111-0000-4000-8000-000000000001', 'loop': '11111111-0000-4000-8000-000000000002',
           'zero': '11111111-0000-4000-8000-000000000003', 'dangling': '11111111-0000-4000-8000-000000000004'}
    (d/f"{bad['dir']}.jsonl").mkdir()
    os.symlink(d/f"{bad['loop']}.jsonl", d/'loop-b.jsonl'); os.symlink(d/'loop-b.jsonl', d/f"{bad['loop']}.jsonl")
    os.symlink('/dev/zero', d/f"{bad['zero']}.jsonl")
    os.symlink(d/'gone.jsonl', d/f"{bad['dangling']}.jsonl")
    sub = agent_dir(arc)/AGENT.sid/'subagents'
    (sub/'agent-adir.jsonl').mkdir()
    os.symlink('/dev/zero', sub/'agent-azero.jsonl')
    os.symlink('/dev/zero', agent_dir(arc)/'agent-aflatzero.jsonl')
    return bad

def bad_paths(arc, bad):
    "The paths `plant_bad_entries` made"
    sub = agent_dir(arc)/AGENT.sid/'subagents'
    return [*(tools_dir(arc)/f'{sid}.jsonl' for sid in bad.values()), tools_dir(arc)/'loop-b.jsonl',
            sub/'agent-adir.jsonl', sub/'agent-azero.jsonl', agent_dir(arc)/'agent-aflatzero.jsonl']

@pytest.mark.parametrize('argv', TREE_CMDS)
def test_02_bad_entries_are_skipped_by_tree_commands(arc, capsys, argv):
    "Each command answers as it did without the bad entries, and warns of nothing else"
    same_as_before(capsys, argv, lambda: bad_paths(arc, plant_bad_entries(arc)))

def test_02_library_scans_skip_bad_entries(arc):
    def scans():
        with deadline(), warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            got = dict(ls=[s.sid for s in ls_sess()], tree=[s.sid for s in sess_tree()],
                       files=sorted(str(p) for *_, p in transcripts()), find=to_data(find_sess('Tidy')),
                       usage=to_data(find_usage('day')))
        return got, [str(x.message) for x in w]
    want, quiet = scans()
    planted = bad_paths(arc, plant_bad_entries(arc))
    got, warned = scans()
    assert got == want and quiet == []  # the bad entries change no answer
    assert set(want['ls']) == {SID, AGENT.sid} and len(want['find']) == 1 and want['usage']
    assert all(Path(p).is_file() for p in got['files'])
    assert warned and all(any(str(p) in m for p in planted) for m in warned), warned

def test_02_dir_named_like_a_transcript_is_skipped_with_one_warning(arc, capsys):
    bad = arc/TOOLS.path.parent.name/'22222222-0000-4000-8000-000000000001.jsonl'
    bad.mkdir()
    rc, out, err = run(capsys, 'ls')
    assert rc == 0 and SID in out
    assert_one_warning(err, bad.name)

def test_02_a_message_that_is_a_string_does_not_crash_ls(arc, capsys):
    p = tools_dir(arc)/'33333333-0000-4000-8000-000000000001.jsonl'
    p.write_text(json.dumps({'type': 'user', 'uuid': 'x', 'message': 'hello', 'cwd': '/tmp/x'}) + '\n'
                 + json.dumps({'type': 'user', 'uuid': 'y', 'message': {'role': 'user', 'content': 5}}) + '\n')
    rc, out, err = run(capsys, 'ls')
    assert rc == 0 and p.stem in out and 'Traceback' not in err
    assert p.stem in {s.sid for s in ls_sess()}

def unreadable(p):
    "Make `p` unreadable; as root, chmod is not enough, so the caller also drops root's capabilities"
    p.chmod(0)

@pytest.mark.parametrize('argv', [['ls'], ['find', 'Tidy'], ['usage', '--by', 'project'], ['errors', '--all'],
                                  ['show', SID], ['agents', AGENT.sid]])
def test_02_unreadable_transcripts_are_skipped(arc, capsys, argv):
    bad = tools_dir(arc)/'44444444-0000-4000-8000-000000000001.jsonl'
    shutil.copy(TOOLS.path, bad)
    sub = agent_dir(arc)/AGENT.sid/'subagents'
    hidden = sorted(sub.glob('agent-*.jsonl'))[0]
    def cmd():
        if os.geteuid(): return run(capsys, *argv)
        # root reads anything: run the command as root without its capabilities, which obeys file modes
        if not shutil.which('setpriv'): pytest.skip('needs setpriv (util-linux) to drop root capabilities')
        code = 'import sys; from llmsurgery.cli import main; sys.exit(main(sys.argv[1:]))'
        p = subprocess.run(['setpriv', '--bounding-set=-all', sys.executable, '-c', code, *argv], capture_output=True,
                           text=True, timeout=120)
        return p.returncode, p.stdout, p.stderr
    kept = hidden.read_bytes()
    hidden.unlink(); bad.unlink()
    want = cmd()  # the archive without the two transcripts
    hidden.write_bytes(kept); shutil.copy(TOOLS.path, bad)
    unreadable(bad); unreadable(hidden)
    rc, out, err = cmd()
    assert (rc, out) == want[:2] and rc == 0 and out, err  # as if the unreadable files were not there
    if argv[0] == 'show': assert err == ''
    else: assert_skipped_only(err, [bad, hidden])
    if argv[0] in ('ls', 'find', 'errors'): assert_one_warning(err, bad.name)

# ---------------------------------------------------------------------------------------------------------------------
# 3. Records of the wrong shape: readers keep them as unknown records, or raise the library's own error

WRONG = [('type', ['user']), ('parentUuid', {'a': 1}), ('message', 'hello'), ('message.content', 5),
         ('timestamp', 5), ('message.content.0.text', 7), ('message.content.0.tool_use_id', ['x']),
         ('leafUuid', ['x']), ('uuid', 12), ('message.content.0', 'block'), ('message.content.0.input', 'cmd'),
         ('message.content.0.content', {'a': 1}), ('toolUseResult', 3), ('isSidechain', 'yes'),
         ('message.id', 4), ('message.usage', [1]), ('message.usage.input_tokens', 'many'), ('agentId', 9),
         ('message.model', {'m': 1}), ('cwd', 5), ('gitBranch', [1]), ('customTitle', 1), ('message.role', 0),
         ('compactMetadata', 'x'), ('logicalParentUuid', [1]), ('message.content.0.name', 3),
         ('message.content.0.id', None), ('message.content.0.is_error', 'true'), ('sessionId', 3)]

def _set(r, path, v):
    ks = path.split('.')
    o = r
    for k in ks[:-1]:
        o = o[int(k)] if isinstance(o, list) else o.get(k)
        if not isinstance(o, (dict, list)): return False
    k = ks[-1]
    if isinstance(o, list):
        if not o: return False
        o[int(k)] = v
    else: o[k] = v
    return True

def readers(path, sid):
    "Every reader of one session, as thunks"
    return dict(
        load=lambda: load_recs(path), thread=lambda: sess_thread(load_recs(path)),
        history=lambda: sess_history(load_recs(path)), chat=lambda: recs2chat(sess_thread(load_recs(path))),
        search=lambda: sess_search('(?i)t', path=path), fmt=lambda: fmt_recs(load_recs(path), showall=True),
        prompts=lambda: sess_prompts(path), replies=lambda: repr(sess_replies(path)),
        tools=lambda: repr(sess_tools(path)), errors=lambda: sess_errors(path), stats=lambda: repr(sess_stats(path)),
        agents=lambda: repr(sess_agents(path)), usage=lambda: repr(sess_usage(path)),
        files=lambda: repr(touched_files(path)), cmds=lambda: repr(sess_commands(path)),
        dlg=lambda: recs2dlg(load_recs(path), 'x'), ls=lambda: repr(ls_sess()), find=lambda: repr(find_sess('(?i)t')),
        edits=lambda: find_edits('notes.txt'), errs=lambda: find_errors(), by=lambda: find_usage('day'),
        info=lambda: Sess(path).to_data())

ALLOWED = (TranscriptError, ConvertError)  # a parentUuid cycle is walked, as Claude Code walks it

def readers_cope(p, what=''):
    """Every reader of transcript `p` returns, or raises one of the library's own errors (`what` says what was done
    to it)"""
    for name, f in readers(p, SID).items():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                f()
        except ALLOWED: pass
        except Exception as e: pytest.fail(f'{name}{what}: {type(e).__name__}: {e}')

@pytest.mark.parametrize('field,value', WRONG, ids=[f for f, _ in WRONG])
def test_03_wrong_shapes_do_not_crash_readers(arc, field, value):
    "Every record of the `tools` session that has `field` gets `value` instead; every reader copes"
    p = tools_dir(arc)/f'{SID}.jsonl'
    recs = [json.loads(l) for l in p.read_text().splitlines()]
    hit = sum(_set(r, field, value) for r in recs if r.get('type') in ('user', 'assistant', 'last-prompt', 'system'))
    assert hit > 0  # the value was planted
    p.write_text(''.join(json.dumps(r) + '\n' for r in recs))
    planted = p.read_bytes()
    readers_cope(p, f' with {field}={value!r} ({hit} records)')
    assert p.read_bytes() == planted  # readers only read

def test_03_values_nested_as_deep_as_json_allows(arc):
    "A tool input nested 1,020 lists deep (orjson reads up to 1,024): readers cope, or raise the library's own error"
    p = tools_dir(arc)/f'{SID}.jsonl'
    recs = [json.loads(l) for l in p.read_text().splitlines()]
    for r in recs:
        for b in tool_uses(r): b['input']['deep'] = '@@'
    p.write_text(''.join(json.dumps(r) + '\n' for r in recs).replace('"@@"', '['*1020 + ']'*1020))
    planted = p.read_bytes()
    assert planted.count(b'['*1020) >= 3  # every tool call of the session got one
    readers_cope(p)
    assert p.read_bytes() == planted

@pytest.mark.parametrize('field,value', WRONG[:10], ids=[f for f, _ in WRONG[:10]])
def test_03_wrong_shapes_do_not_crash_the_command_line(arc, capsys, field, value):
    p = tools_dir(arc)/f'{SID}.jsonl'
    recs = [json.loads(l) for l in p.read_text().splitlines()]
    assert sum(_set(r, field, value) for r in recs) > 0
    p.write_text(''.join(json.dumps(r) + '\n' for r in recs))
    planted = p.read_bytes()
    for argv in (['show', SID], ['show', '--all', SID], ['grep', 't', SID], ['prompts', SID], ['stats', SID]):
        rc, out, err = run(capsys, *argv)
        # an answer (0) or nothing found (1): never bad usage (2), an internal error or a traceback
        assert rc in (0, 1) and err == '', (argv, err)
    assert p.read_bytes() == planted  # nothing is written

@pytest.mark.parametrize('field,value', [('message.content.0.tool_use_id', ['x']), ('message.content.0.input', 'cmd'),
                                         ('message.content.0.id', {'a': 1}), ('type', ['user'])])
def test_03_wrong_shapes_do_not_crash_the_archive_index(arc, capsys, tmp_path, monkeypatch, field, value):
    "`llmsurgery index`, and the commands over every session that answer from the index, read such records as unknown"
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path/'cache'))
    for p in arc.rglob('*.jsonl'):
        recs = [json.loads(l) for l in p.read_text().splitlines()]
        for r in recs: _set(r, field, value)
        p.write_text(''.join(json.dumps(r) + '\n' for r in recs))
    planted = {p: p.read_bytes() for p in arc.rglob('*.jsonl')}
    for argv in (['index'], ['errors', '--all'], ['commands', '--grep', 'l'], ['files', '--edited', 'notes.txt'],
                 ['usage', '--by', 'session'], ['find', 'e']):
        rc, out, err = run(capsys, *argv)
        assert rc in (0, 1) and 'internal error' not in err and 'Traceback' not in err, (argv, err)
        if argv[0] != 'index':  # the index answers as the scan does
            assert (rc, out) == run(capsys, *argv, '--no-index')[:2], argv
        else: assert rc == 0, err
    assert {p: p.read_bytes() for p in arc.rglob('*.jsonl')} == planted  # the transcripts are left as they were

# ---------------------------------------------------------------------------------------------------------------------
# 4. Lone surrogates, as Node's JSON.stringify writes them

SURR = '{"type":"user","uuid":"aaaaaaaa-0000-4000-8000-000000000001","parentUuid":null,' \
       '"timestamp":"2026-01-01T00:00:00.000Z",' \
       '"message":{"role":"user","content":"half a pair: \\ud800 and \\udfff end"}}\n'

def test_04_lone_surrogates_are_read_and_kept(arc, capsys):
    p = tools_dir(arc)/'55555555-0000-4000-8000-000000000001.jsonl'
    p.write_text(SURR)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        recs = load_recs(p)
    assert recs[0]['message']['content'] == 'half a pair: \ud800 and \udfff end'
    assert rec_json(recs[0]) == SURR.strip().encode()  # written back as it was read
    assert copy_rec(recs[0]) == recs[0]
    assert len(sess_search('half a pair', path=p)) == 1
    assert sess_prompts(p)[0].text.startswith('half a pair')
    rc, out, err = run(capsys, 'show', p.stem)
    assert rc == 0 and 'half a pair' in out and 'Traceback' not in err
    rc, out, err = run(capsys, 'find', 'half a pair')
    assert rc == 0 and p.stem in out

# ---------------------------------------------------------------------------------------------------------------------
# 5. Writers never write outside projects/

def test_05_append_through_a_symlinked_session_is_refused(arc, tmp_path):
    outside = tmp_path/'outside.jsonl'
    shutil.copy(TOOLS.path, outside)
    before = outside.read_bytes()
    link = tools_dir(arc)/'66666666-0000-4000-8000-000000000001.jsonl'
    link.symlink_to(outside)
    err = raised(append_sess, [mk_rec('user', 'hi', cwd=tmp_path)], link.stem)
    assert outside.read_bytes() == before  # first what matters: nothing written out there
    assert isinstance(err, WriteError) and 'symlink' in str(err), err

def test_05_save_into_a_symlinked_project_folder_is_refused(arc, tmp_path):
    proj, outside = tmp_path/'proj', tmp_path/'elsewhere'
    proj.mkdir(); outside.mkdir()
    sess_dir(proj).symlink_to(outside)
    err = raised(save_sess, [mk_rec('user', 'hi', cwd=proj)], cwd=proj)
    assert list(outside.iterdir()) == []
    assert isinstance(err, WriteError) and 'outside' in str(err), err

def test_05_fork_does_not_copy_what_a_symlink_points_at(arc, tmp_path):
    secret = tmp_path/'secret.txt'
    secret.write_text('the secret')
    side = tools_dir(arc)/SID/'tool-results'
    side.mkdir(parents=True)
    (side/'big.txt').write_text('a tool output')
    (side/'leak.txt').symlink_to(secret)
    (tools_dir(arc)/SID/'subagents').mkdir()
    (tools_dir(arc)/SID/'subagents'/'agent-aleak.jsonl').symlink_to(secret)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        new = fork_sess(SID)
    got = tools_dir(arc)/new
    assert (got/'tool-results'/'big.txt').read_text() == 'a tool output'
    assert not any('the secret' in f.read_text() for f in got.rglob('*') if f.is_file())
    assert not any(f.is_symlink() for f in got.rglob('*'))

def test_05_fork_skips_fifos_beside_the_session(arc):
    "A FIFO among the session's side files is neither opened (it would block) nor stops the fork: skipped, named"
    side = tools_dir(arc)/SID/'tool-results'
    side.mkdir(parents=True)
    (side/'big.txt').write_text('a tool output')
    os.mkfifo(side/'pipe.txt')
    with deadline(), warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        new = fork_sess(SID)
    assert (tools_dir(arc)/new/'tool-results'/'big.txt').read_text() == 'a tool output'
    assert not (tools_dir(arc)/new/'tool-results'/'pipe.txt').exists()
    assert any('pipe.txt' in str(o.message) and 'FIFO' in str(o.message) for o in w)

def test_05_save_sess_does_not_follow_a_symlinked_config_subfolder(arc, tmp_path):
    outside = tmp_path/'elsewhere'
    outside.mkdir()
    p = tools_dir(arc)/'77777777-0000-4000-8000-000000000001.jsonl'
    p.symlink_to(outside/'x.jsonl')
    err = raised(save_sess, [mk_rec('user', 'hi', cwd=tmp_path)], p.stem, cwd=TOOLS.cwd, replace=True)
    assert list(outside.iterdir()) == []
    assert isinstance(err, (WriteError, FileExistsError)), err

# ---------------------------------------------------------------------------------------------------------------------
# 6. Long project paths that share 200 characters

def test_06_long_paths_sharing_a_prefix_get_their_own_folders(arc, tmp_path):
    base = tmp_path/('d'*120)/('e'*120)
    a, b = base/'project-a', base/'project-b'
    a.mkdir(parents=True); b.mkdir(parents=True)
    assert len(proj_slug(resolve_cwd(a))) > 200 and proj_slug(resolve_cwd(a))[:200] == proj_slug(resolve_cwd(b))[:200]
    sid = save_sess([mk_rec('user', 'in a', cwd=a)], cwd=a)
    assert sess_dir(b) != sess_dir(a)
    with pytest.raises(FileNotFoundError): cur_sess(b)
    assert cur_sess(a) == sid
    other = arc/(proj_slug(resolve_cwd(b))[:200] + '-legacyhash')  # another CLI build's hash for b's path
    other.mkdir()
    sid_b = '88888888-0000-4000-8000-000000000001'
    (other/f'{sid_b}.jsonl').write_text(json.dumps(dict(mk_rec('user', 'in b', cwd=b), sessionId=sid_b)) + '\n')
    assert sess_dir(b) == other and cur_sess(b) == sid_b and cur_sess(a) == sid

# ---------------------------------------------------------------------------------------------------------------------
# 7. A short write (disk full) is undone

_SHORT_WRITE = r'''
import os, sys, resource, signal
from llmsurgery.write import append_sess, mk_rec
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
size = os.path.getsize(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (size + 100, resource.RLIM_INFINITY))  # room for 100 more bytes only
try: append_sess([mk_rec('user', 'x'*5000, cwd='/tmp')], sys.argv[1])
except OSError as e: print('refused:', e)
'''

def test_07_a_short_write_is_undone_and_the_session_stays_appendable(arc, tmp_path):
    p = tools_dir(arc)/f'{SID}.jsonl'
    before = p.read_bytes()
    out = subprocess.run([sys.executable, '-c', _SHORT_WRITE, str(p)], capture_output=True, text=True, timeout=60)
    assert 'refused' in out.stdout, out.stderr
    assert p.read_bytes() == before
    append_sess([mk_rec('user', 'after the disk filled', cwd=tmp_path)], SID)
    assert sess_thread(load_recs(p)).written[-1]['message']['content'] == 'after the disk filled'

# ---------------------------------------------------------------------------------------------------------------------
# 8. Concurrent appends to one session are serialised, each chained onto the end

def _appender(args):
    sid, cfg, k, n = args
    os.environ['CLAUDE_CONFIG_DIR'] = cfg
    for i in range(n): append_sess([mk_rec('user', f'w{k} #{i}', cwd='/tmp', version='x', gitBranch='HEAD')], sid)

def concurrent_appends(sid, procs, n):
    ctx = multiprocessing.get_context('fork')
    with ctx.Pool(procs) as pool:
        pool.map(_appender, [(sid, os.environ['CLAUDE_CONFIG_DIR'], k, n) for k in range(procs)])

def test_08_concurrent_appends_make_one_chain(arc, tmp_path):
    sid = save_sess([mk_rec('user', 'start', cwd=tmp_path)], cwd=tmp_path)
    concurrent_appends(sid, 4, 40)
    recs = load_recs(sess_file(sid, tmp_path))
    assert len(recs) == 161
    kids = {}
    for r in recs: kids.setdefault(r['parentUuid'], []).append(r['uuid'])
    assert max(map(len, kids.values())) == 1  # no record has two children: the chain never forks
    assert len(sess_thread(recs).written) == 161

def test_08_a_replace_waits_for_an_append_under_way(arc, tmp_path):
    import fcntl, threading
    sid = save_sess([mk_rec('user', 'start', cwd=tmp_path)], cwd=tmp_path)
    p = sess_file(sid, tmp_path)
    fd = os.open(p, os.O_RDWR | os.O_APPEND)
    fcntl.flock(fd, fcntl.LOCK_EX)  # an appender of ours, half-way through
    t = threading.Thread(target=save_sess, args=([mk_rec('user', 'again', cwd=tmp_path)],),
                         kwargs=dict(sid=sid, cwd=tmp_path, replace=True))
    t.start()
    t.join(0.5)
    assert t.is_alive() and [rec_txt(r) for r in load_recs(p)] == ['start']  # the replace waits for the lock
    os.close(fd)
    t.join(10)
    assert [rec_txt(r) for r in load_recs(p)] == ['again']
    append_sess([mk_rec('user', 'then', cwd=tmp_path)], sid)
    assert [rec_txt(r) for r in sess_thread(load_recs(p)).written] == ['again', 'then']

# ---------------------------------------------------------------------------------------------------------------------
# 9. A line another writer is half-way through is detected at write time

class Sneaky(L):
    "A value whose serialisation lets another writer start a line in the session, half-way"
    target = None
    def __iter__(self):
        if Sneaky.target:
            with open(Sneaky.target, 'ab') as f: f.write(b'{"type":"user","uuid":"half-writ')
            Sneaky.target = None
        return super().__iter__()

def test_09_a_partial_last_line_from_another_writer_is_refused(arc, tmp_path):
    p = tools_dir(arc)/f'{SID}.jsonl'
    Sneaky.target = p
    before = p.read_bytes()
    err = raised(append_sess, [mk_rec('user', 'hi', cwd=tmp_path, tags=Sneaky(['a']))], SID)
    assert p.read_bytes() == before + b'{"type":"user","uuid":"half-writ'  # nothing of ours after the other's half line
    assert isinstance(err, WriteError) and 'middle of a line' in str(err), err

# ---------------------------------------------------------------------------------------------------------------------
# 10. Records that would break later reads are refused before anything is written

@pytest.mark.parametrize('field,value,why', [
    ('timestamp', 'yesterday', 'timestamp'), ('timestamp', 5, 'timestamp'),
    ('timestamp', '2026-13-45T99:00:00Z', 'timestamp'),
    ('uuid', 'abc', 'uuid'), ('uuid', '../../x', 'uuid'), ('parentUuid', '../../x', 'parentUuid'),
    ('costUSD', float('nan'), 'NaN'), ('costUSD', float('inf'), 'infinit'), ('costUSD', float('-inf'), 'infinit'),
    ('message.usage', {'input_tokens': float('nan')}, 'NaN'), ('uuid', 'AAAAAAAA-0000-4000-8000-000000000001', 'uuid')])
def test_10_bad_values_are_refused_naming_the_record(arc, tmp_path, field, value, why):
    good = mk_rec('user', 'fine', cwd=tmp_path)
    bad = mk_rec('assistant', 'bad', cwd=tmp_path)
    if field.startswith('message.'): bad['message'][field.split('.')[1]] = value
    else: bad[field] = value
    before = TOOLS.path.read_bytes()
    with pytest.raises(RecordError, match=rf"record 1 \(assistant.*{why}"): append_sess([good, bad], SID)
    assert (tools_dir(arc)/f'{SID}.jsonl').read_bytes() == before
    with pytest.raises(RecordError, match=rf"record 1 \(assistant.*{why}"): save_sess([good, bad], cwd=tmp_path)
    assert not sess_dir(tmp_path).exists() or not list(sess_dir(tmp_path).glob('*.jsonl'))

# ---------------------------------------------------------------------------------------------------------------------
# 11. Session ids: one spelling per session

def test_11_check_sid_refuses_newlines_and_upper_case():
    sid = '9b2c0a1e-6f0d-4c4e-8a57-0d4b9e1f3a21'
    for bad in [sid + '\n', sid.upper(), '\n' + sid, sid + ' ', sid[:-1] + 'G']:
        with pytest.raises(ValueError, match='Not a session id'): check_sid(bad)
        assert not is_sid(bad)

def test_11_an_upper_case_id_typed_by_a_person_still_finds_the_session(arc, capsys):
    assert sess_file(SID.upper()) == tools_dir(arc)/f'{SID}.jsonl'
    rc, out, err = run(capsys, 'prompts', SID.upper())
    assert rc == 0 and 'Tidy up' in out
    with pytest.raises(ValueError): save_sess([], SID.upper())

# ---------------------------------------------------------------------------------------------------------------------
# 12. A failed write leaves nothing behind; stale temporary files of ours are cleaned

def test_12_a_failed_fork_leaves_no_orphan_folder(arc):
    sub = agent_dir(arc)/AGENT.sid/'subagents'
    f = sorted(sub.glob('agent-*.jsonl'))[-1]
    lines = f.read_text().splitlines(keepends=True)
    f.write_text(lines[0] + '{"type": broken\n' + ''.join(lines[1:]))  # makes the fork fail half-way
    before = sorted(p.relative_to(arc) for p in arc.rglob('*'))
    with pytest.raises(TranscriptError): fork_sess(AGENT.sid)
    assert sorted(p.relative_to(arc) for p in arc.rglob('*')) == before

def test_12_a_save_that_fails_on_a_full_disk_leaves_no_folder(arc, tmp_path, monkeypatch):
    "The disk fills while the first session of a new project is synced: neither its file nor its folder remains"
    def full(fd): raise OSError(28, 'No space left on device')
    monkeypatch.setattr(os, 'fsync', full)
    proj = tmp_path/'newproj'
    proj.mkdir()
    before = sorted(arc.parent.rglob('*'))
    with pytest.raises(OSError, match='No space'): save_sess([mk_rec('user', 'hi', cwd=proj)], cwd=proj)
    assert sorted(arc.parent.rglob('*')) == before and not sess_dir(proj).exists()

def test_12_stale_temporary_files_are_cleaned_on_the_next_write(arc, tmp_path):
    d = tools_dir(arc)
    stale = d/f'.{SID}.jsonl.k3j4h5g6.tmp'  # left by a save that was killed an hour ago
    stale.write_bytes(b'x'*1000)
    import fcntl
    live = d/'.99999999-0000-4000-8000-000000000001.jsonl.a1b2c3d4.tmp'  # a long save still running elsewhere
    fd = os.open(live, os.O_CREAT | os.O_WRONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    fresh = d/'.99999999-0000-4000-8000-000000000002.jsonl.a1b2c3d5.tmp'  # made a moment ago, not locked yet
    fresh.write_bytes(b'')
    other = d/'.notes.txt.swp'
    other.write_text('not ours')
    for p in (stale, live, other): os.utime(p, (time.time() - 3600, time.time() - 3600))
    try:
        save_sess([mk_rec('user', 'hi', cwd=TOOLS.cwd)], cwd=TOOLS.cwd)
        assert not stale.exists() and live.exists() and fresh.exists() and other.exists()
    finally: os.close(fd)
    stale.write_bytes(b'x')
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    append_sess([mk_rec('user', 'hi again', cwd=TOOLS.cwd)], SID)  # an append cleans too, and `live`'s writer is gone
    assert sorted(p.name for p in d.iterdir() if p.name.endswith('.tmp')) == [fresh.name]

# ---------------------------------------------------------------------------------------------------------------------
# 13. Two notebooks with the same name are two sessions

def test_13_nb2sess_of_two_notebooks_with_one_name_keeps_both(arc, tmp_path):
    from llmsurgery.convert import sess2nb
    a, b = tmp_path/'a'/'talk.ipynb', tmp_path/'b'/'talk.ipynb'
    a.parent.mkdir(); b.parent.mkdir()
    sess2nb(SID, a)
    sess2nb(AGENT.sid, b)
    proj = tmp_path/'proj'
    proj.mkdir()
    sa, sb = nb2sess(a, proj), nb2sess(b, proj)
    assert sa != sb
    assert 'Tidy up' in str(load_sess(sa, proj)) and 'Tidy up' not in str(load_sess(sb, proj))
    assert nb2sess(a, proj) == sa  # converting the same notebook again replaces its own session

# ---------------------------------------------------------------------------------------------------------------------
# 14. Escape sequences in transcripts do not reach the terminal

EVIL = '\x1b]0;pwned\x07 \x1b[2J \x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\ \u009b31m \x7f \x00 \u202e'
RAW = re.compile('[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]')

def evil_session(arc, tmp_path):
    cwd = f'/tmp/evil{EVIL}'
    recs = [*tool_turn(f'prompt {EVIL}', 'Bash', {'command': f'echo {EVIL}'}, f'Error: out {EVIL}', f'reply {EVIL}',
                       cwd=tmp_path, is_error=True), {'type': 'custom-title', 'customTitle': f'title {EVIL}'}]
    for r in recs: r['cwd'] = cwd
    sid = save_sess(recs, cwd=tmp_path)
    return sid

@pytest.mark.parametrize('argv', [['show'], ['show', '--all'], ['grep', 'reply'], ['prompts'], ['replies'], ['tools'],
                                  ['errors'], ['commands'], ['stats'], ['ls'], ['find', 'reply'], ['errors', '--all'],
                                  ['commands', '--grep', 'echo'], ['result', 'toolu'], ['files'],
                                  ['usage', '--by', 'session']])
def test_14_control_characters_are_shown_escaped(arc, tmp_path, capsys, argv):
    sid = evil_session(arc, tmp_path)
    takes_sid = argv[0] in ('show', 'grep', 'prompts', 'replies', 'tools', 'errors', 'commands', 'stats', 'result',
                            'files') and argv not in (['errors', '--all'], ['commands', '--grep', 'echo'])
    found = argv != ['files']  # the session edits no file: `files` finds nothing (1); each other command shows it
    rc, out, err = run(capsys, *argv, *([sid] if takes_sid else []))
    assert rc == (0 if found else 1), err
    assert not RAW.search(out), repr(RAW.search(out))
    assert not RAW.search(err)
    assert ('pwned' in out) == found  # the text is there, escaped
    if argv[0] in ('show', 'prompts', 'grep'): assert '\\x1b]0;pwned\\x07' in out
    rc, out, err = run(capsys, *argv, *([sid] if takes_sid else []), '--json')
    assert not RAW.search(out) and rc == (0 if found else 1)
    assert ('pwned' in json.dumps(json.loads(out))) == found
    if argv[0] == 'show':  # and the records one per line
        rc, out, err = run(capsys, *argv, sid, '--jsonl')
        assert not RAW.search(out) and rc == 0
        assert [json.loads(l)['type'] for l in out.splitlines()][:1] == ['user']

def test_14_fmt_recs_and_tables_escape_too(arc, tmp_path):
    sid = evil_session(arc, tmp_path)
    assert not RAW.search(fmt_recs(load_sess(sid, tmp_path)))
    assert not RAW.search(repr(sess_prompts(sid, tmp_path)))
    assert not RAW.search(repr(ls_sess()))

# ---------------------------------------------------------------------------------------------------------------------
# 15. The command line prints one line, never a traceback

def test_15_ctrl_c_prints_one_line_and_exits_130(arc, capsys, monkeypatch):
    def interrupted(*a, **k): raise KeyboardInterrupt
    monkeypatch.setattr(cli, 'ls_sess', interrupted)
    rc, out, err = run(capsys, 'ls')
    assert rc == 130 and len(err.strip().splitlines()) == 1 and 'Traceback' not in err

def test_15_ctrl_c_in_a_real_process(arc):
    p = subprocess.Popen([sys.executable, '-c', 'import sys, time; from llmsurgery import cli\n'
                          'cli.ls_sess = lambda *a: (print("ready", flush=True), time.sleep(60))\n'
                          'sys.exit(cli.main(["ls"]))'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         # as from a terminal: a test run in the background would hand down Ctrl-C ignored
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert p.stdout.readline().strip() == 'ready'
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 130 and len(err.strip().splitlines()) == 1, err

@pytest.mark.parametrize('tid,status', [('nosuchid', 1), ('toolu_', 2)])  # nothing found: 1; ambiguous: bad usage, 2
def test_15_result_with_a_missing_or_ambiguous_id(arc, capsys, tid, status):
    rc, out, err = run(capsys, 'result', tid, SID)
    assert rc == status and len(err.strip().splitlines()) == 1 and 'Traceback' not in err

@pytest.mark.parametrize('content', ['', '[]', '{"cells": 5}', '{"cells": [5]}', '{"cells": [{"cell_type": 3}]}',
                                     'nope', '{"cells": [{"cell_type": "code", "source": 5}]}', '\xff',
                                     '{"cells": [{"cell_type": "markdown", "source": "x", "attachments": 5}]}',
                                     '{"cells": [], "metadata": 7}'])
def test_15_nb2sess_of_a_bad_notebook(arc, capsys, tmp_path, content):
    nb = tmp_path/'bad.ipynb'
    nb.write_bytes(content.encode('latin-1'))
    rc, out, err = run(capsys, 'nb2sess', str(nb), '--cwd', str(tmp_path))
    assert rc == 2 and len(err.strip().splitlines()) == 1 and 'Traceback' not in err, err

# ---------------------------------------------------------------------------------------------------------------------
# 16. --skip-bad

def test_16_skip_bad_flag(arc, capsys):
    p = tools_dir(arc)/f'{SID}.jsonl'
    lines = p.read_text().splitlines(keepends=True)
    p.write_text(''.join(lines[:5]) + '{"oops\n' + ''.join(lines[5:]))
    rc, out, err = run(capsys, 'show', SID)
    assert rc == 2 and '--skip-bad' in err and 'skip_bad=True' not in err
    rc, out, err = run(capsys, 'show', '--skip-bad', SID)
    assert rc == 0 and 'Tidy up' in out and f'{p.name}:6' in err
