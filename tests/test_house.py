"""The house (issue 28): one title rule, one line parser, one cost rule, one error base. Each test here failed on the
code before the redesign: the rule it pins lived in several modules that disagreed."""
import ast, contextlib, importlib, inspect, io, json, pkgutil, warnings
from pathlib import Path
import pytest
import llmsurgery
from llmsurgery.core import *
from llmsurgery.sess import *
from llmsurgery.forensics import sess_stats
from llmsurgery.archive_index import ArchiveIndex
from llmsurgery.drift import drift
from llmsurgery import cli

PKG = Path(llmsurgery.__file__).parent
SID = '5e55a0c1-0000-4000-8000-0000000000f1'

def rec(i, **kw):
    "A chain record of a few KB, as a long session is made of"
    return dict(type='user' if i % 2 == 0 else 'assistant', uuid=f'u{i}', parentUuid=f'u{i-1}' if i else None,
                sessionId=SID, timestamp=f'2026-11-30T10:{i // 60 % 60:02d}:{i % 60:02d}.000Z', cwd='/tmp/proj',
                message=dict(role='user' if i % 2 == 0 else 'assistant', content='x' * 3000 + f' line {i}'), **kw)

def write(p, recs):
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(''.join(json.dumps(r, separators=(',', ':')) + '\n' for r in recs))
    return p

@pytest.fixture
def cfg(tmp_path, monkeypatch):
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(tmp_path/'cfg'))
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path/'cache'))
    return tmp_path/'cfg'

def titled(cfg, title, at, n=200, **extra):
    "A session of `n` records of 3 KB with a `custom-title` record after record `at`"
    recs = [rec(i) for i in range(n)]
    recs.insert(at, dict(type='custom-title', customTitle=title, sessionId=SID, **extra))
    return write(cfg/'projects'/'-tmp-proj'/f'{SID}.jsonl', recs)

# ---------------------------------------------------------------------------------------------------------- titles

def answers(p):
    "The title of the session at `p` as each reader gives it"
    ix = ArchiveIndex()
    ix.update()
    row = ix.sql('SELECT label FROM files WHERE path=?', str(p))[0]
    return dict(ls=ls_sess()[0].title, sess=Sess(p).title, info=sess_info(p).title, stats=sess_stats(p).title,
                index=ix.sessions()[0].title, index_label=row.label)

@pytest.mark.parametrize('at', [0, 100, 200])  # in the head, mid-file (neither head nor tail), in the tail
def test_one_title_wherever_the_record_sits(cfg, at):
    p = titled(cfg, 'Fix the login bug', at)
    assert p.stat().st_size > 500_000
    assert set(answers(p).values()) == {'Fix the login bug'}, answers(p)

def test_the_last_title_wins_and_a_title_field_elsewhere_is_no_title(cfg):
    recs = [rec(i) for i in range(200)]
    recs.insert(20, dict(type='custom-title', customTitle='first name', sessionId=SID))
    recs.insert(120, dict(type='custom-title', customTitle='second name', sessionId=SID))
    recs.insert(150, dict(type='ai-title', aiTitle='what Claude Code called it', sessionId=SID))
    recs.insert(160, dict(type='agent-name', agentName='not a title', customTitle='not a title', sessionId=SID))
    p = write(cfg/'projects'/'-tmp-proj'/f'{SID}.jsonl', recs)
    assert set(answers(p).values()) == {'second name'}, answers(p)

def test_a_title_bigger_than_the_tail_is_shown(cfg):
    "A 100 KB title does not fit the 64 KB a listing reads of a file's end: it is still the title"
    p = titled(cfg, 'T' * 100_000, 200)
    assert set(answers(p).values()) == {'T' * 100_000}

def test_an_ai_title_alone_mid_file(cfg):
    recs = [rec(i) for i in range(200)]
    recs.insert(90, dict(type='ai-title', aiTitle='Refactor the parser', sessionId=SID))
    p = write(cfg/'projects'/'-tmp-proj'/f'{SID}.jsonl', recs)
    assert set(answers(p).values()) == {'Refactor the parser'}, answers(p)

# ---------------------------------------------------------------------------------------------------------- parser

def test_drift_reads_what_load_recs_reads(cfg):
    "A record with a lone surrogate escape (a string cut mid-emoji, as Node writes it) is read by every reader"
    p = cfg/'projects'/'-tmp-proj'/f'{SID}.jsonl'
    lone = '{"type":"brand-new-type","uuid":"x","text":"cut \\ud83d","sessionId":"%s","version":"9.9.9"}\n' % SID
    p.parent.mkdir(parents=True)
    p.write_text(json.dumps(rec(0), separators=(',', ':')) + '\n' + lone)
    assert [r.type for r in load_recs(p)] == ['user', 'brand-new-type']
    assert [r.type for r in file_recs(p)] == ['user', 'brand-new-type']
    rows = drift(p)
    assert [(r.version, r.kind, r.name) for r in rows] == [('9.9.9', 'type', 'brand-new-type')]

def test_drift_says_what_it_could_not_read(cfg):
    p = cfg/'projects'/'-tmp-proj'/f'{SID}.jsonl'
    p.parent.mkdir(parents=True)
    p.write_text(json.dumps(rec(0)) + '\n{"type": oops\n' + json.dumps(rec(1)) + '\n')
    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter('always')
        drift(p)
    assert [str(w.message) for w in ws] == [f'{p}:2: 1 line that are not JSON records, left out of the report']

def test_one_parser():
    "No module parses a transcript line with orjson or json directly: they all ask `core.line_value`/`parse_rec`"
    bad = []
    for f in sorted(PKG.glob('*.py')):
        if f.name in ('core.py', '_modidx.py'): continue
        src = f.read_text()
        for n in ast.walk(ast.parse(src)):
            if isinstance(n, ast.For) and isinstance(n.iter, ast.Name) and n.iter.id in ('f', 'fh'):
                for m in ast.walk(n):  # a loop over a transcript's lines that parses each line itself
                    if isinstance(m, ast.Call) and ast.unparse(m.func) in ('orjson.loads', 'json.loads'):
                        bad.append(f'{f.name}:{m.lineno}')
    assert bad == []

# ---------------------------------------------------------------------------------------------------------- cost

def test_one_cost_rule():
    "Only `usage.cost_of` decides between a list price and a recorded cost: nobody else calls `msg_cost` for a cost"
    calls = [f'{f.name}:{n.lineno}' for f in sorted(PKG.glob('*.py')) if f.name not in ('usage.py', '_modidx.py')
             for n in ast.walk(ast.parse(f.read_text()))
             if isinstance(n, ast.Call) and getattr(n.func, 'id', getattr(n.func, 'attr', None)) == 'msg_cost']
    assert calls == []

def test_the_index_prices_as_rec_cost_does(cfg):
    from llmsurgery.usage import rec_cost, find_usage
    recs = []
    for i, (model, cost) in enumerate([('claude-sonnet-4-6', None), ('claude-made-up-9', 0.125),
                                       ('claude-made-up-9', None)]):
        recs += [rec(2 * i), dict(rec(2 * i + 1), costUSD=cost) if cost is not None else rec(2 * i + 1)]
        recs[-1]['message'] = dict(id=f'msg_{i}', role='assistant', model=model, content=[dict(type='text', text='ok')],
                                   usage=dict(input_tokens=1000, output_tokens=100))
    write(cfg/'projects'/'-tmp-proj'/f'{SID}.jsonl', recs)
    key = lambda cs: (cs[0] is None, cs[0] or 0, cs[1])
    want = sorted((rec_cost(r, r['message']['model'], r['message']['usage'])
                   for r in recs if r['type'] == 'assistant'), key=key)
    ix = ArchiveIndex()
    ix.update(price=True)
    got = sorted([(c, 'recorded by Claude Code' if f else 'list price' if c is not None else 'unknown')
                  for c, f in ix.con.execute('SELECT cost, from_rec FROM usage')], key=key)
    assert got == want and want[1] == (0.125, 'recorded by Claude Code') and want[2] == (None, 'unknown')
    assert find_usage('model', index=ix).total.cost == find_usage('model').total.cost

# ---------------------------------------------------------------------------------------------------------- errors

def test_every_error_class_derives_from_the_base():
    "Every exception class the package defines is an `LLMSurgeryError` (warnings aside), defined in core (or cli_base)"
    found = {}
    for m in pkgutil.iter_modules([str(PKG)]):
        if m.name.startswith('_'): continue
        mod = importlib.import_module(f'llmsurgery.{m.name}')
        for name, obj in vars(mod).items():
            if name.startswith('_'): continue  # a module's own signal, caught where it is raised (`scan._Unsure`)
            if inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == mod.__name__:
                found[f'{m.name}.{name}'] = obj
    assert [n for n, c in found.items() if not issubclass(c, (LLMSurgeryError, Warning))] == []
    assert {n.split('.')[0] for n, c in found.items() if issubclass(c, LLMSurgeryError)} <= {'core', 'cli_base'}

def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err): rc = cli.main([str(a) for a in argv])
    return rc, err.getvalue()

@pytest.mark.parametrize('err,status', [(InputError('that session is ambiguous'), 2),
                                        (NotFound('No tool call toolu_x'), 1), (WriteError('refused'), 1),
                                        (ExistsError('exists'), 1), (TranscriptError('x.jsonl', 3, 'bad'), 2)])
def test_the_cli_maps_errors_by_class(monkeypatch, err, status):
    from llmsurgery.fixtures import fixture_sess
    import llmsurgery.forensics
    def boom(*a, **kw): raise err
    monkeypatch.setattr(llmsurgery.forensics, 'sess_stats', boom)
    rc, e = run('stats', fixture_sess('qa').path)
    assert rc == status and e.strip() == f'llmsurgery stats: {err}' and 'internal error' not in e

def test_a_builtin_error_raised_in_the_library_is_a_bug(monkeypatch):
    "A `raise ValueError` in library code is not a usage error: only the library's own classes carry a status"
    from llmsurgery.fixtures import fixture_sess
    import llmsurgery.forensics as F
    ns = dict(vars(F))
    exec("def sess_stats(*a, **kw): raise ValueError('a value nobody checked')", ns)  # a frame of llmsurgery.forensics
    monkeypatch.setattr(F, 'sess_stats', ns['sess_stats'])
    rc, e = run('stats', fixture_sess('qa').path)
    assert rc == 1 and 'internal error, ValueError: a value nobody checked' in e and len(e.strip().splitlines()) == 1
