"""A big session read from its file as it is used gives the same answers as one held in memory (issue 22, part 3).

Above `LAZY_MB` a session's records are a `FileRecs` (byte places, each record parsed when it is used) and
`sess_thread` walks skeletons of them. Every answer must be the one the in-memory path gives: the thread of every
Claude Code version's rules, the history across compactions, and every command, on every shipped fixture and on
hostile copies of them (corrupt and cut lines, bytes that are not UTF-8, values of the wrong type, uuids written
twice, children before their parents, sidechains). `$LLMSURGERY_IN_MEMORY` chooses the path: 0 reads from the file
whatever the size, 1 holds everything."""
import io, json, random, contextlib, warnings
from pathlib import Path
import pytest
from llmsurgery.core import *
from llmsurgery.sess import Sess, load_sess
from llmsurgery.thread import *
from llmsurgery.sent import *
from llmsurgery.search import to_data
from llmsurgery.forensics import *
from llmsurgery.usage import *
from llmsurgery.fixtures import fixture, fixture_names, fixture_sess
from llmsurgery import cli, resume

FIXTURES = Path(str(fixture('tools'))).parent
TRANSCRIPTS = sorted(FIXTURES.rglob('*.jsonl'))
NAMES = [n for n in ('tools', 'subagent', 'compact', 'parallel', 'thinking', 'legacy', 'forked', 'image', 'resumed')
         if n in fixture_names()]
HOSTILE = [{'__': 1}, [1, 2], 7, None, '', 'x' * 300, '\ud800', '\x1b[31mred', True, 2**70]
FIELDS = ['type', 'uuid', 'parentUuid', 'message', 'message.content', 'message.id', 'timestamp', 'isSidechain',
          'subtype', 'leafUuid', 'compactMetadata', 'attachment', 'logicalParentUuid', 'isMeta', 'message.model']

def _set(r, path, v):
    *up, last = path.split('.')
    for k in up:
        r = r.get(k) if isinstance(r, dict) else None
    if isinstance(r, dict): r[last] = v

def hostile(name, seed) -> bytes:
    "The main transcript of fixture `name`, damaged in ways chosen by `seed`"
    rnd = random.Random(seed)
    lines = fixture_sess(name).path.read_bytes().splitlines(keepends=True)
    recs = [json.loads(l) for l in lines]
    for _ in range(3):
        _set(rnd.choice(recs), rnd.choice(FIELDS), rnd.choice(HOSTILE))
    out = [json.dumps(r, ensure_ascii=False).encode('utf-8', 'surrogatepass') + b'\n' for r in recs]
    k = rnd.randrange(len(out))
    what = seed % 6
    if what == 0: out.insert(k, b'{"type": oops\n')  # a corrupt line
    elif what == 1: out.insert(k, out[rnd.randrange(len(out))])  # a record written twice
    elif what == 2: out.reverse()  # children before their parents
    elif what == 3: out.insert(k, b'{"type":"user","uuid":"z","message":{"role":"user","content":"\xff\xfe"}}\n')
    elif what == 4:  # sidechain copies of some records
        out += [l.replace(b'"isSidechain": false', b'"isSidechain": true') for l in out[:5]]
    out[-1] = out[-1].rstrip(b'\n') if seed % 4 == 0 else out[-1]  # a last line cut short (often)
    return b''.join(out)

def same_threads(p):
    "The threads, histories and walks of `p` read both ways are the same, for every version's rules"
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        a, b = load_recs(p, skip_bad=True), file_recs(p, skip_bad=True)
    assert isinstance(b, FileRecs)
    assert list(a) == list(b)
    for v in CLI_RULES:
        t1, t2 = sess_thread(a, cli=v), sess_thread(b, cli=v)
        assert list(t1) == list(t2), (p, v)
        assert list(t1.written) == list(t2.written), (p, v)
        assert (t1.model, t1.end, t1.error) == (t2.model, t2.end, t2.error), (p, v)
        assert list(api_msgs(t1)) == list(api_msgs(t2)), (p, v)
    assert list(sess_history(a)) == list(sess_history(b)), p

@pytest.mark.parametrize('p', TRANSCRIPTS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixture_threads_same_from_file(p): same_threads(p)

@pytest.mark.parametrize('seed', range(24))
@pytest.mark.parametrize('name', NAMES)
def test_hostile_threads_same_from_file(tmp_path, name, seed):
    p = tmp_path/f'{fixture_sess(name).sid}.jsonl'
    p.write_bytes(hostile(name, seed))
    same_threads(p)

def answers(p, monkeypatch, lazy) -> dict:
    "Every per-session answer for `p`, and what each command prints, read one way (`lazy`) or the other"
    monkeypatch.setenv('LLMSURGERY_IN_MEMORY', '0' if lazy else '1')
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for f in (sess_stats, sess_usage, sess_tools, sess_errors, sess_prompts, sess_agents, tool_counts,
                  sess_replies, touched_files, sess_commands):
            s = Sess(p)
            assert isinstance(s.recs, FileRecs) == lazy
            try: out[f.__name__] = json.loads(json.dumps(to_data(f(s)), default=str))
            except (TranscriptError, ValueError, KeyError) as e: out[f.__name__] = repr(e)
        for argv in (['show'], ['show', '--jsonl'], ['stats'], ['tools'], ['errors'], ['usage'],
                     ['resume-preview', '--cli', '2.1.332'], ['resume-preview', '--cli', '2.1.142', '--json'],
                     ['redact', '--check']):
            b, e = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(b), contextlib.redirect_stderr(e):
                rc = cli.main(argv[:1] + [str(p)] + argv[1:] + ['--skip-bad'] * (argv[0] != 'redact'))
            out[' '.join(argv)] = rc, b.getvalue()
    return out

@pytest.mark.parametrize('p', TRANSCRIPTS, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_fixture_answers_same_from_file(p, monkeypatch):
    assert answers(p, monkeypatch, True) == answers(p, monkeypatch, False)

@pytest.mark.parametrize('seed', range(6))
@pytest.mark.parametrize('name', NAMES)
def test_hostile_answers_same_from_file(tmp_path, monkeypatch, name, seed):
    p = tmp_path/f'{fixture_sess(name).sid}.jsonl'
    p.write_bytes(hostile(name, seed))
    assert answers(p, monkeypatch, True) == answers(p, monkeypatch, False)

def test_resume_preview_of_a_compacted_session(capsys):
    "Records without a uuid before the compaction's boundary (a queue operation) once made it fail with KeyError"
    p = fixture_sess('compact').path
    assert cli.main(['resume-preview', str(p), '--cli', '2.1.332']) == 0
    assert 'messages before the last compaction are sent as its summary' in capsys.readouterr().out

def test_threshold(monkeypatch, tmp_path):
    p = fixture_sess('tools').path
    monkeypatch.delenv('LLMSURGERY_IN_MEMORY', raising=False)
    assert in_memory(p) == (p.stat().st_size <= LAZY_MB*1e6)
    assert not isinstance(Sess(p).recs, FileRecs)  # a small session is held in memory, as before
    monkeypatch.setenv('LLMSURGERY_IN_MEMORY', '0')
    assert isinstance(Sess(p).recs, FileRecs) and isinstance(load_sess(p), FileRecs)
    assert isinstance(sess_thread(Sess(p)).written, FileRecs)

def previews(p, monkeypatch, lazy) -> dict:
    "What `resume-preview` prints of `p`, for two versions' rules, read from the file (`lazy`) or held in memory"
    monkeypatch.setenv('LLMSURGERY_IN_MEMORY', '0' if lazy else '1')
    out = {}
    for argv in (['--cli', '2.1.332'], ['--cli', '2.1.142', '--json'], ['--cli', '2.1.1']):
        b, e = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(b), contextlib.redirect_stderr(e), warnings.catch_warnings():
            warnings.simplefilter('ignore')
            rc = cli.main(['resume-preview', str(p), *argv, '--skip-bad'])
        out[' '.join(argv)] = rc, b.getvalue()
    return out

@pytest.mark.parametrize('seed', range(6))
@pytest.mark.parametrize('name', NAMES)
def test_hostile_previews_same_with_every_block_placed(tmp_path, monkeypatch, name, seed):
    "A big session's prediction holds its big blocks by their places in the file: with every block held so, the same"
    monkeypatch.setattr(resume, 'BIG_BLOCK', 0)
    p = tmp_path/f'{fixture_sess(name).sid}.jsonl'
    p.write_bytes(hostile(name, seed))
    assert previews(p, monkeypatch, True) == previews(p, monkeypatch, False)

@pytest.mark.parametrize('argv', [[], ['--all'], ['--at', '3'], ['--from', '2', '--to', '9'], ['--jsonl']])
def test_show_of_a_big_session_reads_it_from_the_file(monkeypatch, capsys, argv):
    "A big session is shown from the file: reading it all into memory (`load_recs`) would make `show` peak at 2.7x it"
    p = fixture_sess('tools').path
    want = cli.main(['show', str(p), *argv]), capsys.readouterr().out
    monkeypatch.setenv('LLMSURGERY_IN_MEMORY', '0')
    def whole(*a, **kw): raise AssertionError('the whole session was read into memory')
    monkeypatch.setattr(cli, 'load_recs', whole)
    assert (cli.main(['show', str(p), *argv]), capsys.readouterr().out) == want

def forked(tmp_path, monkeypatch, name, lazy, **kw) -> dict:
    "Every file a fork of fixture `name`'s first session writes (relative path -> bytes), its session read one way"
    import shutil
    from llmsurgery.write import fork_sess
    cfg = tmp_path/('lazy' if lazy else 'memory')
    shutil.copytree(fixture(name), cfg)
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(cfg))
    monkeypatch.setenv('XDG_STATE_HOME', str(tmp_path/'state'))
    monkeypatch.setenv('LLMSURGERY_IN_MEMORY', '0' if lazy else '1')
    before = set(cfg.rglob('*'))
    src = next(cfg.glob(f'projects/*/{fixture_sess(name).sid}.jsonl'))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        fork_sess(str(src), key='same', **kw)
    return {str(p.relative_to(cfg)): p.read_bytes() for p in sorted(set(cfg.rglob('*')) - before) if p.is_file()}

@pytest.mark.parametrize('kw', [{}, dict(mx=40, think=False), dict(title='T')], ids=['plain', 'munged', 'title'])
@pytest.mark.parametrize('name', NAMES)
def test_a_fork_from_the_file_writes_the_same_bytes(tmp_path, monkeypatch, name, kw):
    "A big session is forked a record at a time from its file (never `load_recs`): the same fork, byte for byte"
    from llmsurgery import write
    want = forked(tmp_path, monkeypatch, name, False, **kw)
    def whole(*a, **k): raise AssertionError('the whole session was read into memory')
    monkeypatch.setattr(write, 'load_recs', whole)
    got = forked(tmp_path, monkeypatch, name, True, **kw)
    assert got == want and any(p.endswith('.jsonl') for p in got)
