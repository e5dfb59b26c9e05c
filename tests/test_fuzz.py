"""Fuzzing every reader with real transcripts made hostile (issue 10).

A recorded fixture's session is mutated: JSON values anywhere in its records are replaced by values of other types
(a `type` that is a list, a `parentUuid` that is a dict, a `content` that is a number, a string full of escape
sequences, a lone surrogate, a huge integer), and lines are damaged byte by byte (flipped, cut, spliced, emptied).
Then every reader runs on it, and the command line too. The only errors allowed are the library's own, documented
ones: `TranscriptError` (a line that is not a record, named by file and line) and, for the conversion to chat
messages, `ConvertError` (a record that cannot be converted faithfully, named by its uuid). The budget is fixed
(derandomized, so CI runs the same cases every time); `LLMSURGERY_FUZZ=N` runs N examples with fresh randomness
instead, for a longer campaign."""
import os, io, json, shutil, warnings, contextlib
from pathlib import Path
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st
from llmsurgery.core import *
from llmsurgery.rec import *
from llmsurgery.show import *
from llmsurgery.sess import *
from llmsurgery.thread import *
from llmsurgery.sent import *
from llmsurgery.search import *
from llmsurgery.forensics import *
from llmsurgery.usage import *
from llmsurgery.convert import recs2chat, recs2dlg, ConvertError
from llmsurgery.fixtures import fixture, fixture_names, fixture_meta, fixture_sess
from llmsurgery import cli

NAMES = [n for n in ('tools', 'subagent', 'compact', 'parallel', 'thinking', 'legacy', 'forked', 'image')
         if n in fixture_names()]
LINES = {n: fixture_sess(n).path.read_bytes().splitlines(keepends=True) for n in NAMES}
N = int(os.environ.get('LLMSURGERY_FUZZ', 0))
settings.register_profile('fuzz', max_examples=N or 120, deadline=None, derandomize=not N, database=None,
                          suppress_health_check=list(HealthCheck))

EVIL = '\x1b]0;t\x07\x1b[2J\u009b\ud800'
scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8),
                    st.sampled_from(['', EVIL, 'user', 'assistant', 'tool_use', 'tool_result', 'text',
                                     '2026-01-01T00:00:00Z', 'x'*3000]))
values = st.recursive(scalars, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.sampled_from(
    ['type', 'text', 'id', 'content', 'name', 'input', 'uuid', 'tool_use_id', 'role']), c, max_size=3), max_leaves=6)

ODD = [[], {}, ['x'], {'type': 'text'}, None, 0, True, '', 2**70, EVIL]  # what a block's field is least expected to be

def paths(o, pre=()):
    "Every path to a value inside JSON data `o`"
    yield pre
    if isinstance(o, dict):
        for k, v in o.items(): yield from paths(v, pre + (k,))
    elif isinstance(o, list):
        for i, v in enumerate(o): yield from paths(v, pre + (i,))

def put(o, path, v):
    if not path: return v
    for k in path[:-1]: o = o[k]
    o[path[-1]] = v

@st.composite
def hostile(draw):
    "A fixture's transcript, its records mutated by type and its lines by bytes: (fixture name, bytes, what was done)"
    name = draw(st.sampled_from(NAMES))
    lines, done = list(LINES[name]), []
    damage = draw(st.booleans())  # half the files get values of other types only: a broken line would hide them
    for _ in range(draw(st.integers(1, 4))):
        rich = [k for k, l in enumerate(lines) if b'"content":[{' in l]  # records with content blocks: half the time
        i = draw(st.sampled_from(rich)) if rich and draw(st.booleans()) else draw(st.integers(0, len(lines) - 1))
        if not damage or draw(st.integers(0, 3)):  # else three times in four: a value replaced by one of another type
            try: rec = json.loads(lines[i])
            except ValueError: continue
            ps = list(paths(rec))
            blocks = [q for q in ps if len(q) == 4 and q[:2] == ("message", "content")]  # a content block's own fields
            in_block = bool(blocks) and draw(st.booleans())
            p = draw(st.sampled_from(blocks if in_block else ps))
            v = draw(st.sampled_from(ODD) if in_block and draw(st.booleans()) else values)
            rec = put(rec, p, v)
            lines[i] = (json.dumps(rec, ensure_ascii=False).encode('utf-8', 'surrogatepass')
                        .replace(b'\xed\xa0\x80', b'\\ud800') + b'\n')
            done.append(('type', i, p, v))
        else:
            b = bytearray(lines[i])
            op = draw(st.sampled_from(['flip', 'cut', 'insert', 'delete', 'empty', 'dup']))
            k = draw(st.integers(0, max(0, len(b) - 1)))
            if op == 'flip' and b: b[k] ^= 1 << draw(st.integers(0, 7))
            elif op == 'cut': b = b[:k]
            elif op == 'insert': b[k:k] = draw(st.sampled_from([b'\n', b'"', b'{', b'\x00', b'\xff', b'\\u', b'}\n{']))
            elif op == 'delete': del b[k:k + draw(st.integers(1, 8))]
            elif op == 'empty': b = bytearray(b'\n')
            elif op == 'dup': lines.insert(i, bytes(b))
            lines[i] = bytes(b)
            done.append(('bytes', i, op, k))
    return name, b''.join(lines), done

def readers(s):
    "Every reader of one session `s` (a `Sess`), and of the whole archive, as thunks"
    p = s.path
    return dict(
        load=lambda: load_recs(p), thread=lambda: sess_thread(s), history=lambda: sess_history(s),
        conv=lambda: conv_recs(s.recs, sidechain=True), api=lambda: sent_msgs(api_msgs(sess_thread(s))),
        chat=lambda: recs2chat(sess_thread(s)), dlg=lambda: recs2dlg(s.recs, s.sid, 200),
        fmt=lambda: fmt_recs(s.recs, showall=True, attachments=True, start=0), show=lambda: fmt_recs(sess_thread(s)),
        search=lambda: repr(sess_search('(?i)e', path=p)),
        search_tool=lambda: repr(sess_search('.', path=p, tool='Bash')),
        prompts=lambda: repr(sess_prompts(s)), replies=lambda: repr(sess_replies(s, thinking=True)),
        tools=lambda: repr(sess_tools(s)), counts=lambda: repr(tool_counts(s)), errors=lambda: repr(sess_errors(s)),
        cmds=lambda: repr(sess_commands(s)), files=lambda: repr(touched_files(s)), usage=lambda: repr(sess_usage(s)),
        agents=lambda: repr(sess_agents(s)), stats=lambda: repr(sess_stats(s)),
        info=lambda: json.dumps(Sess(p).to_data()), data=lambda: json.dumps(to_data(sess_tools(s)), default=str),
        ls=lambda: repr(ls_sess()), find=lambda: repr(find_sess('(?i)e')), find_all=lambda: repr(find_sess('.')),
        edits=lambda: repr(find_edits('notes.txt')), cmds_all=lambda: repr(find_commands('.')),
        errs=lambda: repr(find_errors()), by_day=lambda: repr(find_usage('day')),
        by_model=lambda: repr(find_usage('model')))

ALLOWED = (TranscriptError, ConvertError)  # a parentUuid cycle is walked, as Claude Code walks it

@pytest.fixture(scope='module')
def cfg(tmp_path_factory):
    return tmp_path_factory.mktemp('fuzz')

@settings.get_profile('fuzz')
@given(hostile())
def test_readers_survive_hostile_transcripts(cfg, case):
    name, data, done = case
    root = cfg/'cfg'
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(fixture(name)/'projects', root/'projects')
    src = fixture_sess(name)
    p = root/'projects'/src.path.parent.name/src.path.name
    p.write_bytes(data)
    with config_dir(root), warnings.catch_warnings():
        warnings.simplefilter('ignore')
        s = Sess(p)
        for what, f in readers(s).items():
            try: f()
            except ALLOWED as e:
                if isinstance(e, ConvertError): assert what in ('chat', 'dlg'), (what, e)
            except Exception as e:
                raise AssertionError(f'{what} on {name} after {done}: {type(e).__name__}: {e}') from e
        for argv in (['show', s.sid], ['show', '--all', s.sid], ['grep', 'e', s.sid], ['stats', s.sid], ['ls'],
                     ['show', '--skip-bad', s.sid, '--json']):
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err): rc = cli.main(argv)
            assert rc in (0, 1, 2) and 'internal error' not in err.getvalue(), (argv, done, err.getvalue())
            assert not any(c in out.getvalue() for c in '\x1b\x07\u009b\ud800'), (argv, done)
    assert p.read_bytes() == data  # no reader, nor the command line, wrote to the transcript

def block_fields():
    "`(fixture, line, block, key)`: one record per kind of content block and field in the fixtures (the first met)"
    seen = {}
    for name in NAMES:
        for i, l in enumerate(LINES[name]):
            r = json.loads(l)
            c = r.get('message', {}).get('content') if isinstance(r.get('message'), dict) else None
            for j, b in enumerate(c if isinstance(c, list) else []):
                for k in b:
                    seen.setdefault((r.get('type'), b.get('type'), k), (name, i, j, k))
    return sorted(seen.values())

@pytest.mark.parametrize('name,line,block,key', block_fields())
def test_every_block_field_of_every_odd_type(cfg, name, line, block, key):
    "Each field of each kind of content block, set to each value it is least expected to hold: a sweep, not a sample"
    root = cfg/'sweep'
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(fixture(name)/'projects', root/'projects')
    src = fixture_sess(name)
    p = root/'projects'/src.path.parent.name/src.path.name
    for v in ODD:
        lines = list(LINES[name])
        rec = json.loads(lines[line])
        rec['message']['content'][block][key] = v
        lines[line] = json.dumps(rec, ensure_ascii=False).encode('utf-8', 'surrogatepass') + b'\n'
        p.write_bytes(data := b''.join(lines))
        with config_dir(root), warnings.catch_warnings():
            warnings.simplefilter('ignore')
            s = Sess(p)
            for what in ('thread', 'api', 'chat', 'dlg', 'fmt', 'show', 'tools', 'errors', 'files', 'usage', 'stats'):
                try: readers(s)[what]()
                except ALLOWED as e:
                    if isinstance(e, ConvertError): assert what in ('chat', 'dlg'), (what, e)
                except Exception as e:
                    raise AssertionError(f'{what} with {key}={v!r}: {type(e).__name__}: {e}') from e
        assert p.read_bytes() == data  # left as planted: readers only read
