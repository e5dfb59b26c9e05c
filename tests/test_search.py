"Property checks of the raw-bytes prefilter of `llmsurgery.search`: no misses and no false hits from JSON escaping"
import json, re, tempfile, pathlib
import orjson
from hypothesis import given, settings, strategies as st
from llmsurgery.core import load_recs
from llmsurgery.search import json_re, needles, sess_search

texts = st.text(st.characters(codec='utf-8', exclude_categories=['Cs']), max_size=40)

def spellings(s):
    "The ways writers put `s` in a JSON string: raw UTF-8 (orjson, Claude Code), \\u escapes (json.dumps), upper hex"
    asc = json.dumps(s)
    return [orjson.dumps(s), asc.encode(), re.sub(r'\\u([0-9a-f]{4})', lambda m: '\\u' + m[1].upper(), asc).encode()]

@settings(max_examples=300, deadline=None)
@given(texts, texts, texts)
def test_json_re_finds_every_spelling(pre, s, post):
    rx = json_re(s)
    for b in spellings(pre + s + post): assert rx.search(b), (s, b)

def _file(contents, how):
    p = pathlib.Path(tempfile.mkdtemp())/'t.jsonl'
    recs = [dict(type='user', uuid=f'u{i}', message=dict(role='user', content=c)) for i, c in enumerate(contents)]
    dump = dict(raw=orjson.dumps, ascii=lambda r: json.dumps(r).encode())[how]
    p.write_bytes(b''.join(dump(r) + b'\n' for r in recs))
    return p

@settings(max_examples=300, deadline=None)
@given(texts.filter(lambda s: s.strip()), texts, texts, st.booleans(), st.sampled_from(['raw', 'ascii']))
def test_search_fast_equals_slow(s, pre, other, icase, how):
    "The prefiltered search of a file finds exactly what a search of its parsed records finds: no misses, no false hits"
    p = _file([pre + s, other, s.upper()], how)
    pat = ('(?i)' if icase else '') + re.escape(s)
    fast, slow = sess_search(pat, path=p), sess_search(pat, recs=load_recs(p))
    assert [h.idx for h in fast] == [h.idx for h in slow]
    assert 0 in [h.idx for h in fast]

def test_needles_of_alternatives():
    assert needles(r'foo(bar|baz)quux') == [('quux', False)]
    assert needles(r'(?i:abc)|xyz') == [('abc', True), ('xyz', False)]
