"""Lossless means lossless (issue 21): a session through `sess2nb` and back through `nb2sess` keeps every tool input and
result byte for byte, and the times and usage the notebook carries; `resume-check` compares to the byte."""
import json, os, uuid
import pytest
from fastcore.foundation import L
from llmsurgery.core import *
from llmsurgery.rec import *
from llmsurgery.sess import *
from llmsurgery.thread import *
from llmsurgery.sent import *
from llmsurgery.write import *
from llmsurgery.convert import sess2nb, nb2sess
from llmsurgery.fixtures import fixture, fixture_names, fixture_meta
from llmsurgery.resume import Resumed, fmt_resumed

HOSTILE = ['alpha\nbeta\ngamma\n', 'trailing spaces   ', '\n\n', 'crlf\r\nline\r\n', '\ttabs\t\t', '', ' ',
           'unicode: h\u00e9llo \u4e16\u754c \U0001f600\n', 'nbsp\u00a0', '```\nfence\n```\n', '\u2028sep\u2029']

def tools_of(recs):
    "Each tool call's input and each result's content, by tool id, as the records hold them (strings exact)"
    calls, results = {}, {}
    for r in recs:
        for b in rec_blocks(r):
            if b.get('type') == 'tool_use':
                calls[b['id']] = json.dumps(b.get('input'), ensure_ascii=False, sort_keys=True)
            if b.get('type') == 'tool_result':
                results[b['tool_use_id']] = json.dumps(b.get('content'), ensure_ascii=False, sort_keys=True)
    return calls, results

def round_trip(src, tmp_path, mx=2000):
    "The records `nb2sess` writes from the notebook `sess2nb` writes of transcript `src`"
    nb = sess2nb(str(src), tmp_path/f'{uuid.uuid4()}.ipynb', mx=mx)
    sid = nb2sess(nb, tmp_path, new=True)
    return load_recs(sess_file(sid, tmp_path))

@pytest.fixture
def cfg(tmp_path, monkeypatch):
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(tmp_path/'config'))
    return tmp_path

FILES = [(n, p) for n in fixture_names() for p in sorted(fixture(n).glob('projects/*/*.jsonl'))]

@pytest.mark.parametrize('name,path', FILES, ids=[f'{n}:{p.name[:8]}' for n, p in FILES])
def test_every_fixture_keeps_tool_inputs_and_results(cfg, name, path):
    th = sess_thread(load_recs(path)).written
    want_calls, want_results = tools_of(th)
    got_calls, got_results = tools_of(round_trip(path, cfg))
    assert got_calls == want_calls and got_results == want_results

def hostile_session(cwd):
    "Tool calls whose inputs and results hold each hostile text, a result as blocks too, answered with times and usage"
    recs = L()
    for i, t in enumerate(HOSTILE):
        out = [{'type': 'text', 'text': t}] if i % 2 else t
        turn = tool_turn(f'Write number {i}', 'Write', {'file_path': f'/tmp/f{i}.txt', 'content': t}, out,
                         f'Wrote {i}.', cwd=cwd, ts=f'2026-11-30T10:{i:02d}:00.000Z')
        for j, r in enumerate(turn): r['timestamp'] = f'2026-11-30T10:{i:02d}:{j * 7:02d}.{i}00Z'  # seconds apart
        for r, n in ((turn[1], 100 + i), (turn[3], 200 + i)):
            r['message']['usage'] = {'input_tokens': n, 'output_tokens': i, 'cache_read_input_tokens': 3 * n}
        recs += turn
    return recs

def test_hostile_texts_keep_inputs_results_times_and_usage(cfg):
    sid = str(uuid.uuid4())
    save_sess(hostile_session(cfg), sid, cfg)
    src = load_recs(sess_file(sid, cfg))
    back = round_trip(sess_file(sid, cfg), cfg)
    assert tools_of(back) == tools_of(src)
    def times(recs): return [r.get('timestamp') for r in recs if r.get('type') in ('user', 'assistant')]
    def usage(recs): return [msg_of(r).get('usage') for r in recs if r.get('type') == 'assistant']
    assert times(back) == times(src)
    assert usage(back) == usage(src)

def test_resume_check_compares_to_the_byte(cfg):
    # a conversation sent with one byte more than the file holds (a trailing newline) is not "as written"
    sid = str(uuid.uuid4())
    save_sess(hostile_session(cfg)[:4], sid, cfg)
    th = sess_thread(load_recs(sess_file(sid, cfg)), model='claude-sonnet-4-6')
    sent = written_msgs(th.written)
    probe = {'role': 'user', 'content': [{'type': 'text', 'text': 'probe'}]}
    same = Resumed(sid, sess_file(sid, cfg), {'messages': sent + [probe]}, th, '2.1.332', 1.0, prompt='probe')
    assert same.as_written
    planted = json.loads(json.dumps(sent))
    planted[2]['content'][0]['content'] += '\n'  # the result 'alpha\nbeta\ngamma\n', one newline more
    changed = Resumed(sid, sess_file(sid, cfg), {'messages': planted + [probe]}, th, '2.1.332', 1.0, prompt='probe')
    assert not changed.as_written and 'exactly as written' not in fmt_resumed(changed)
