"Property checks of the raw-bytes prefilter of `llmsurgery.search`: no misses and no false hits from JSON escaping"
import json, re, shutil, tempfile, pathlib
import orjson
from hypothesis import given, settings, HealthCheck, strategies as st
from llmsurgery.core import load_recs
from llmsurgery.scan import json_re, pat_needles
from llmsurgery.search import sess_search

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
    try: fast, slow = sess_search(pat, path=p), sess_search(pat, recs=load_recs(p))
    finally: shutil.rmtree(p.parent)  # 300 examples: a folder each, not left behind
    assert [h.idx for h in fast] == [h.idx for h in slow]
    assert 0 in [h.idx for h in fast]

def test_needles_of_alternatives():
    assert pat_needles(r'foo(bar|baz)quux') == [('quux', False)]
    assert pat_needles(r'(?i:abc)|xyz') == [('abc', True), ('xyz', False)]

# Soundness of `pat_needles`: for regexes built at random from literals, escapes, classes, groups, alternation,
# scoped case flags and quantifiers, every string the regex matches holds one of the needles
_lits = st.sampled_from(list('abcXYZ é-"/') + ['\\n', '\\t', '\\x41', '\\u00e9', '\\101', '\\.', '\\\\'])
_other = st.sampled_from([r'\d', r'\w', '.', '[a-c]', '[|)]', r'\s'])
_quants = st.sampled_from(['', '', '', '*', '+', '?', '{2}', '{0,2}', '{1,}', '+?', '*?'])

@st.composite
def _regex(draw, depth=0):
    items = []
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(['lit', 'lit', 'lit', 'other'] + (['group', 'alt', 'flag'] if depth < 2 else [])))
        if kind == 'lit': item = draw(_lits)
        elif kind == 'other': item = draw(_other)
        elif kind == 'group': item = draw(st.sampled_from(['(', '(?:', '(?P<g%d>' % draw(st.integers(0, 999))])) + \
                                     draw(_regex(depth+1)) + ')'
        elif kind == 'alt': item = '(?:' + draw(_regex(depth+1)) + '|' + draw(_regex(depth+1)) + ')'
        else: item = draw(st.sampled_from(['(?i:', '(?-i:'])) + draw(_regex(depth+1)) + ')'
        # a group is repeated a bounded number of times: nested unbounded repeats can make `re` backtrack for ever
        items.append(item + draw(_quants if kind in ('lit', 'other') else st.sampled_from(['', '', '?', '{2}'])))
    return ''.join(items)

@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.booleans(), _regex(), st.data())
def test_pat_needles_are_sound(icase, pat, data):
    pat = '(?i)' + pat if icase else pat
    try: rx = re.compile(pat)
    except re.error: return
    ns = pat_needles(rx)
    if ns is None: return
    s = data.draw(st.from_regex(rx, fullmatch=True))
    assert any(re.search(re.escape(t), s, re.I if ic else 0) for t, ic in ns), (pat, s, ns)
