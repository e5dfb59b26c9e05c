"Property checks of `llmsurgery.write`: generated conversations survive writing, appending and every curation"
import json, re
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st
from llmsurgery.core import *
from llmsurgery.sess import *
from llmsurgery.thread import sess_thread
from llmsurgery.sent import api_msgs, sent_msgs
from llmsurgery.rec import rec_json
from llmsurgery.write import *

words = st.text(st.characters(codec='utf-8', exclude_categories=['Cs', 'Cc']), min_size=1, max_size=60)
long_words = st.text(st.characters(codec='utf-8', exclude_categories=['Cs']), max_size=300)
sig = st.text('abcdefghijklmnopqrstuvwxyz0123456789+/', min_size=8, max_size=40)

@st.composite
def convs(draw):
    "An Anthropic conversation: prompts, answers with thinking, text and (parallel) tool calls, and their results"
    msgs = []
    for _ in range(draw(st.integers(1, 4))):
        msgs.append({'role': 'user', 'content': draw(words)})
        while True:
            blocks = []
            if draw(st.booleans()): blocks.append({'type': 'thinking', 'thinking': draw(words), 'signature': draw(sig)})
            # a blank text beside other blocks is not sent on resume (the thread notebook: joining a message)
            if draw(st.booleans()): blocks.append({'type': 'text', 'text': draw(words.filter(str.strip))})
            calls = [{'type': 'tool_use', 'name': draw(st.sampled_from(['Bash', 'Read', 'Grep'])),
                      'input': {'arg': draw(long_words)}} for _ in range(draw(st.integers(0, 3)))]
            blocks += calls
            if all(b['type'] == 'thinking' for b in blocks):  # an answer of thinking alone is not sent on resume
                blocks.append({'type': 'text', 'text': draw(words)})  # (tests/test_thread_rules.py pins it)
            msgs.append({'role': 'assistant', 'content': blocks})
            if not calls: break
            msgs.append({'role': 'user', 'content': [{'type': 'tool_result', 'content': draw(long_words),
                                                      **({'is_error': True} if draw(st.booleans()) else {})}
                                                     for _ in calls]})
    return msgs

def no_ids(bs): return [{k: v for k, v in b.items() if k not in ('id', 'tool_use_id')} for b in bs]

def blocks_of(msgs): return [dict(b) for m in msgs for b in ([{'type': 'text', 'text': m['content']}]
                                                              if isinstance(m['content'], str) else m['content'])]

@pytest.fixture
def cfg(tmp_path, monkeypatch):
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(tmp_path/'config'))
    (tmp_path/'proj').mkdir()
    return tmp_path/'proj'

settings.register_profile('write', max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
settings.load_profile('write')

@given(convs(), words)
def test_msgs2recs_is_deterministic_and_faithful(msgs, key):
    recs = msgs2recs(msgs, key=key)
    assert canon(recs) == canon(msgs2recs(msgs, key=key))
    sent = api_msgs(recs)
    assert [m['role'] for m in sent] == [m['role'] for m in msgs]
    got, want = blocks_of(sent), blocks_of(msgs)
    assert [{k: v for k, v in b.items() if k not in ('id', 'tool_use_id')} for b in got] == want
    calls = [b['id'] for b in got if b['type'] == 'tool_use']
    assert [b['tool_use_id'] for b in got if b['type'] == 'tool_result'] == calls
    assert len(set(calls)) == len(calls) and len({r['uuid'] for r in recs}) == len(recs)

@given(convs(), convs())
def test_save_then_append_rebuilds_both(cfg, first, second):
    sid = save_sess(msgs2recs(first, key='a', cwd=cfg), cwd=cfg)
    before = sess_file(sid, cfg).read_bytes()
    append_sess(msgs2recs(second, key='b', cwd=cfg), sid, cfg)
    after = sess_file(sid, cfg).read_bytes()
    assert after.startswith(before)
    recs = load_sess(sid, cfg)
    assert {r['sessionId'] for r in recs} == {sid} and all('timestamp' in r for r in recs)
    assert no_ids(blocks_of(api_msgs(sess_thread(recs)))) == no_ids(blocks_of(first + second))
    assert open_tool_calls(recs) == []

@given(convs(), st.integers(1, 50))
def test_curation_keeps_sessions_resumable(msgs, mx):
    recs = msgs2recs(msgs, key='c', ts='2026-01-01T00:00:00Z')
    frozen = canon(recs)
    for cur in (strip_think(recs), trunc_tools(recs, mx), reid_recs(recs, 'k'), strip_think(trunc_tools(recs, mx))):
        assert open_tool_calls(cur) == []
        check_recs(cur)
    assert canon(recs) == frozen  # originals untouched
    lean = blocks_of(api_msgs(strip_think(recs)))
    assert [b for b in blocks_of(msgs) if b['type'] != 'thinking'] == [
        {k: v for k, v in b.items() if k not in ('id', 'tool_use_id')} for b in lean]

@given(convs(), st.integers(1, 50))
def test_trunc_tools_cuts_only_tool_strings(msgs, mx):
    recs = msgs2recs(msgs, key='t')
    for old, new in zip(blocks_of(api_msgs(recs)), blocks_of(api_msgs(trunc_tools(recs, mx)))):
        if old['type'] not in ('tool_use', 'tool_result'): assert old == new; continue
        o, n = ((old['input']['arg'], new['input']['arg']) if old['type'] == 'tool_use'
                else (old['content'], new['content']))
        if len(o) <= mx: assert n == o
        else: assert n == f'{o[:mx]}…[+{len(o)-mx} chars]'

@given(convs(), words, words)
def test_reid_renames_every_id_consistently(msgs, k1, k2):
    recs = msgs2recs(msgs, key='r')
    a, b = reid_recs(recs, k1), reid_recs(recs, k1)
    assert canon(a) == canon(b)
    old = {r['uuid'] for r in recs} | {r['message']['id'] for r in recs if r['type'] == 'assistant'}
    assert not old & set(re.findall(r'[\w-]+', canon(list(a))))
    strip = lambda ms: [{k: v for k, v in x.items() if k not in ('id', 'tool_use_id')} for x in blocks_of(ms)]
    assert strip(api_msgs(a)) == strip(api_msgs(recs))
    if k1 != k2: assert a[0]['uuid'] != reid_recs(recs, k2)[0]['uuid']

def test_refusals_write_nothing(cfg):
    good = mk_rec('user', 'hi', cwd=cfg)
    bad = [[good, {'message': {}}], [good, {'type': 'user', 'uuid': 'x'}], [good, {**good, 'x': {1, 2}}], [good, good],
           [{**good, 'parentUuid': good['uuid']}]]
    for recs in bad:
        with pytest.raises(RecordError, match=r'record \d'): save_sess(recs, cwd=cfg)
    with pytest.raises(ValueError, match='Not a session id'): save_sess([good], sid='nope', cwd=cfg)
    assert not sess_dir(cfg).exists() or not list(sess_dir(cfg).iterdir())

def test_appending_titles_and_tags_reads_nothing_of_the_session(cfg, monkeypatch):
    "Records that join no chain are appended as they are, without reading the session (a 1 GB one, a damaged one)"
    import llmsurgery.write as w
    sid = save_sess(msgs2recs([{'role': 'user', 'content': 'hi'}, {'role': 'assistant', 'content': 'hello'}],
                              cwd=str(cfg)), cwd=str(cfg))
    p = sess_file(sid, str(cfg))
    before = p.read_bytes()
    def whole(*a, **kw): raise AssertionError('the session was read')
    monkeypatch.setattr(w, '_load_past_bad', whole)
    meta = [dict(type='custom-title', customTitle='Hi there', sessionId='x'), dict(type='tag', tag='kept')]
    assert append_sess(meta, sid, cwd=str(cfg)) == sid
    assert p.read_bytes() == before + b''.join(rec_json({**r, 'sessionId': sid}) + b'\n' for r in meta)
    with pytest.raises(AssertionError, match='was read'):  # a record that chains still needs the leaf
        append_sess([dict(type='user', uuid='u1', message=dict(role='user', content='more'))], sid, cwd=str(cfg))
