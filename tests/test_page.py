"""A page per session (`llmsurgery html`) and the notebook reprs, as a person meets them (issue 24).

The page is opened in a real headless browser, Debian's `chromium`: its screenshot must not be blank, and a session
full of `<script>`, event handlers and `javascript:` links must run none of them, neither with the page's Content
Security Policy nor without it (escaping alone must hold). The tests install nothing: without Chromium they skip,
saying what to install (`.ci/run` installs it). Every repr of every fixture, and of a large generated session, is
bounded in size; the largest is printed (`pytest -s`)."""
import os, re, sys, json, shutil, struct, zlib, subprocess, tempfile, warnings
from pathlib import Path
import pytest
from llmsurgery.core import *
from llmsurgery.sess import *
from llmsurgery.thread import *
from llmsurgery.search import *
from llmsurgery.forensics import *
from llmsurgery.usage import *
from llmsurgery.page import sess_page, write_page
from llmsurgery.fixtures import fixture, fixture_names, fixture_sess
from llmsurgery import cli

sys.path.insert(0, str(Path(__file__).parent))
from test_trust import live_html

CHROMIUM = shutil.which('chromium') or shutil.which('chromium-browser')
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason='needs Chromium, which is not installed: '
                                    'apt-get install -y chromium chromium-driver (Debian), as .ci/run does')
FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync']

MARK = "document.documentElement.setAttribute('data-ran','yes')"
EVIL = (f'<script>{MARK}</script> <img src=x onerror="{MARK}"> <svg onload="{MARK}"></svg> '
        f'[click](javascript:{MARK}) <a href="javascript:{MARK}">a</a> </div></details></pre></style><b>bold</b>')

@pytest.fixture
def arc(tmp_path, monkeypatch):
    "A scratch config folder holding the fixtures `tools` and `subagent`, with scratch cache, state and config"
    for k, d in dict(CLAUDE_CONFIG_DIR='cfg', XDG_CACHE_HOME='cache', XDG_STATE_HOME='state',
                     XDG_CONFIG_HOME='config').items():
        monkeypatch.setenv(k, str(tmp_path/d))
    for name in ('tools', 'subagent', 'image', 'thinking'):
        shutil.copytree(fixture(name)/'projects', tmp_path/'cfg'/'projects', dirs_exist_ok=True)
    return tmp_path/'cfg'/'projects'

def _evil(v):
    "`v` with the hostile text added to every string a person would read (ids and links left alone)"
    if isinstance(v, str): return v + ' ' + EVIL
    if isinstance(v, list): return [_evil(o) for o in v]
    if isinstance(v, dict): return {k: _evil(o) for k, o in v.items()}
    return v

def _evil_block(b):
    if not isinstance(b, dict): return b
    t = b.get('type')
    if t in ('text', 'thinking'): return {**b, t: _evil(b.get(t))}
    if t == 'tool_use': return {**b, 'name': _evil(b.get('name')), 'input': _evil(b.get('input'))}
    if t == 'tool_result':
        c = b.get('content')
        return {**b, 'content': _evil(c) if isinstance(c, str) else [_evil_block(o) for o in c or []]}
    if t == 'image': return {**b, 'source': {'type': 'base64', 'media_type': 'image/svg+xml', 'data': f'"{EVIL}'}}
    return b

def hostile(path):
    "Rewrite the transcript at `path` with hostile text in its prompts, replies, thinking, tool calls, results, title"
    out = []
    for l in path.read_bytes().splitlines():
        r = json.loads(l)
        m = r.get('message')
        if isinstance(m, dict):
            c = m.get('content')
            m['content'] = _evil(c) if isinstance(c, str) else [_evil_block(b) for b in c] if isinstance(c, list) else c
            if isinstance(m.get('model'), str): m['model'] += ' ' + EVIL
        if isinstance(r.get('agentId'), str): r['agentId'] += EVIL
        out.append(json.dumps(r).encode())
    out.append(json.dumps(dict(type='custom-title', customTitle=EVIL, sessionId=path.stem)).encode())
    path.write_bytes(b'\n'.join(out) + b'\n')

def hostile_all(arc):
    for p in arc.rglob('*.jsonl'): hostile(p)

def browse(tmp_path, html, *more):
    "Open `html` in headless Chromium with a fresh profile; `more`: its output flags. Returns the run"
    page = tmp_path/f'page{len(list(tmp_path.glob("page*.html")))}.html'
    page.write_text(html)
    prof = tempfile.mkdtemp(dir=tmp_path)
    return subprocess.run([CHROMIUM, *FLAGS, f'--user-data-dir={prof}', *more, page.as_uri()],
                          capture_output=True, text=True, timeout=180)

def dom(tmp_path, html):
    "The page's DOM after it loaded and any script on it ran"
    r = browse(tmp_path, html, '--dump-dom', '--virtual-time-budget=2000')
    assert '<html' in r.stdout, r.stderr[-2000:]
    return r.stdout

def ran(d): return re.search(r'<html[^>]*data-ran="yes"', d) is not None

def png_pixels(p):
    "The RGB(A) pixels of an 8-bit, non-interlaced PNG, as rows of bytes (enough for Chromium's screenshots)"
    b = Path(p).read_bytes()
    assert b[:8] == b'\x89PNG\r\n\x1a\n'
    i, idat, w = 8, b'', None
    while i < len(b):
        n, kind = struct.unpack('>I4s', b[i:i+8])
        data = b[i+8:i+8+n]
        if kind == b'IHDR': w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', data)
        if kind == b'IDAT': idat += data
        i += 12 + n
    assert depth == 8 and ctype in (2, 6) and not interlace, (depth, ctype, interlace)
    bpp, raw, rows, prev = (3 if ctype == 2 else 4), zlib.decompress(idat), [], None
    stride = w * bpp
    for y in range(h):
        f, line = raw[y*(stride+1)], bytearray(raw[y*(stride+1)+1:(y+1)*(stride+1)])
        up = prev or bytearray(stride)
        for x in range(stride):
            a = line[x-bpp] if x >= bpp else 0
            c = up[x-bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + up[x]) & 255
            elif f == 3: line[x] = (line[x] + (a + up[x]) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(up[x] - c), abs(a - c), abs(a + up[x] - 2*c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else up[x] if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows

def ink(p):
    "The share of a screenshot's pixels that differ from its most common color (0 for a blank page)"
    w, h, bpp, rows = png_pixels(p)
    px = [bytes(r[x:x+3]) for r in rows[::4] for x in range(0, w*bpp, 4*bpp)]
    bg = max(set(px), key=px.count)
    return sum(q != bg for q in px) / len(px)

# ---------------------------------------------------------------------------------------------------------------------

def run(capsys, *argv):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        rc = cli.main([str(a) for a in argv])
    return (rc, *capsys.readouterr())

def test_html_command_writes_one_self_contained_page(arc, capsys, tmp_path):
    sid = fixture_sess('subagent').sid
    out = tmp_path/'my page.html'
    rc, so, se = run(capsys, 'html', sid[:8], '-o', out)
    assert (rc, so.strip(), se) == (0, str(out), '')
    page = out.read_text()
    assert not re.search(r'''(?:src|href)\s*=\s*["']?(?!data:)[a-z]+:''', page, re.I)  # nothing fetched or linked
    from llmsurgery.page import PAGE_JS, CSP
    assert re.findall(r'<script[^>]*>(.*?)</script>', page, re.S) == [PAGE_JS] and f'content="{CSP}"' in page
    assert page.count('<details class="lls-call') == 4 and 'Use an agent to list the files here.' in page
    assert run(capsys, 'html', sid[:8], '-o', out)[0] == 0  # its own page: replaced
    out.write_text('edited')
    rc, so, se = run(capsys, 'html', sid[:8], '-o', out)
    assert rc == 1 and 'refusing to replace it' in se and out.read_text() == 'edited'
    assert run(capsys, 'html', sid[:8], '-o', out, '--force')[0] == 0 and out.read_text() != 'edited'
    assert run(capsys, 'html', 'no-such-session')[0] == 1

def test_redact_says_so_and_keeps_no_secret(arc, capsys, tmp_path):
    p = next(arc.glob(f'*/{fixture_sess("tools").sid}.jsonl'))
    token = 'ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789'
    p.write_text(p.read_text().replace('Tidy up notes.txt', f'Tidy up notes.txt, token {token}'))
    plain, red = sess_page(p.stem), sess_page(p.stem, redact=True)
    assert token in plain and 'Redacted.' not in plain
    assert token not in red and 'github_token' in red and '<b>Redacted.</b>' in red
    rc, so, se = run(capsys, 'html', p.stem, '-o', tmp_path/'r.html', '--redact')
    assert rc == 0 and token not in (tmp_path/'r.html').read_text()

def test_every_repr_and_the_page_keep_hostile_text_inert(arc):
    hostile_all(arc)
    s = open_sess(fixture_sess('tools').sid)
    sub = open_sess(fixture_sess('subagent').sid)
    img = open_sess(fixture_sess('image').sid)
    res = dict(thread=sess_thread(s), sub_thread=sess_thread(sub), img=sess_thread(img), sess=s, ls=ls_sess(),
               hits=sess_search('alert|setAttribute', s.sid), find=find_sess('setAttribute'), stats=sess_stats(s),
               call=sess_tools(s)[0], tools=sess_tools(sub), usage=find_usage('day'), agents=sess_agents(sub))
    for name, o in res.items():
        h = o._repr_html_()
        assert not live_html(h), (name, live_html(h))
        assert "setAttribute('data-ran','yes')" not in h.replace('&#x27;', "'") or '&lt;script&gt;' in h, name
    for x in (s, sub, img):
        page = sess_page(x)
        assert not live_html(page.split('<body>', 1)[1]), live_html(page)
        assert '&lt;script&gt;' in page

@pytest.mark.browser
@needs_chromium
def test_page_in_a_browser_shows_and_runs_nothing(arc, tmp_path):
    shot = tmp_path/'page.png'
    r = browse(tmp_path, sess_page(fixture_sess('tools').sid), '--window-size=1000,1400', f'--screenshot={shot}')
    assert shot.exists(), r.stderr[-2000:]
    print(f'\nscreenshot of the tools session page: {shot} ({ink(shot):.1%} of it not background)')
    assert ink(shot) > 0.02
    blank = tmp_path/'blank.png'
    browse(tmp_path, '<!doctype html><body></body>', '--window-size=1000,1400', f'--screenshot={blank}')
    assert ink(blank) < 0.001  # the measure tells a blank page from ours
    hostile_all(arc)
    assert ran(dom(tmp_path, f'<!doctype html><html><body><script>{MARK}</script></body></html>'))  # scripts run here
    for x in ('tools', 'subagent', 'image', 'thinking'):
        page = sess_page(fixture_sess(x).sid)
        no_csp = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', '', page)
        assert no_csp != page
        for p in (page, no_csp):
            d = dom(tmp_path, p)
            assert not ran(d), (x, 'a script from the transcript ran')
            assert 'setAttribute' in d  # the hostile text is on the page, as text

# ---------------------------------------------------------------------------------------------------------------------
# Bounded reprs

LIMIT = 300_000  # characters: "never more than a few hundred KB for any session"

def reprs(o):
    "Every form a notebook stores for `o`: text (IPython's), Markdown and HTML"
    from IPython.lib.pretty import pretty
    out = {'text/plain': pretty(o)}
    for k, m in (('text/markdown', '_repr_markdown_'), ('text/html', '_repr_html_')):
        if hasattr(o, m): out[k] = getattr(o, m)()
    return out

def answers(sid):
    s = open_sess(sid)
    return dict(sess=s, thread=sess_thread(s), stats=sess_stats(s), tools=sess_tools(s), usage=sess_usage(s),
                prompts=sess_prompts(s), replies=sess_replies(s), agents=sess_agents(s), hits=sess_search('.', sid))

def test_reprs_of_every_fixture_are_bounded(capsys):
    big = (0, None)
    for n in fixture_names():
        with config_dir(fixture(n)):
            for s in ls_sess():
                for k, o in answers(s.sid).items():
                    for mime, text in reprs(o).items():
                        assert len(text) < (LIMIT if mime == 'text/html' else 20_000), (n, k, mime, len(text))
                        big = max(big, (len(text), f'{n} {k} {mime}'))
    with capsys.disabled(): print(f'\nlargest repr on the fixtures: {big[0]:,} characters ({big[1]})')

def test_a_large_session_has_bounded_reprs(tmp_path, monkeypatch):
    "600 tool turns (2,400 records), long prompts, replies, results: every repr stays bounded, the text ones short"
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(tmp_path/'cfg'))
    from llmsurgery.write import tool_turn, save_sess
    recs = []
    for i in range(600):
        turn = tool_turn(f'prompt {i} ' + 'p' * 4000, 'Bash', {'command': 'x' * 3000}, 'y' * 20000,
                         'reply ' + 'r' * 5000, cwd=tmp_path, is_error=i % 7 == 0)
        turn[0]['parentUuid'] = recs[-1]['uuid'] if recs else None
        recs += turn
    sid = save_sess(recs, cwd=tmp_path)
    for k, o in answers(sid).items():
        for mime, text in reprs(o).items():
            assert len(text) < (LIMIT if mime == 'text/html' else 60_000), (k, mime, len(text))
    assert len(sess_page(sid)) < 4_500_000  # the conversation's 2,000,000 characters, and the full texts' 2,000,000
    h = sess_thread(load_sess(sid))._repr_html_()  # issue 33: 251,609 characters before
    note = re.search(r'… [\d,]+ more messages not shown \([\d,]+ records\)', h)
    assert 150_000 < len(h) <= 200_000 and note, len(h)

# ---------------------------------------------------------------------------------------------------------------------
# Attacks on the page's size: fields that are short in every real session made huge, and many subagents

def _chain(sid, msgs):
    "Records of `(role, content, extra)` triples, chained, for session `sid`"
    recs, parent = [], None
    for i, (role, content, extra) in enumerate(msgs):
        m = dict(role=role, content=content)
        if role == 'assistant': m.update(id=extra.pop('mid', f'msg_{i}'), model=extra.pop('model', 'claude-x'))
        recs.append(dict(parentUuid=parent, isSidechain=False, type=role, message=m, uuid=f'{sid[:8]}-u{i}',
                         sessionId=sid, timestamp='2026-11-30T11:26:41.391Z', cwd='/tmp/hx', **extra))
        parent = recs[-1]['uuid']
    return recs

def _save(arc, sid, recs, name=None):
    d = arc/'-tmp-hx'/(f'{sid}/subagents' if name else '')
    d.mkdir(parents=True, exist_ok=True)
    (d/(name or f'{sid}.jsonl')).write_text(''.join(json.dumps(r) + '\n' for r in recs))

def test_huge_names_ids_and_models_are_cut(arc):
    "A tool name, tool id, model, subtype or agent id of megabytes is shown cut, in the page and every HTML repr"
    sid, big = '22222222-2222-3333-4444-555555555555', 2_000_000
    recs = _chain(sid, [('user', 'start', {}),
                        ('assistant', [dict(type='tool_use', id='t1', name='N' * big, input={})],
                         dict(model='M' * big)),
                        ('user', [dict(type='tool_result', tool_use_id='t1', content='r')], {}),
                        ('user', [dict(type='tool_result', tool_use_id='J' * big, content='r')], {})])
    recs.append(dict(type='system', subtype='S' * big, content='c', uuid='s1', parentUuid=recs[-1]['uuid'],
                     sessionId=sid, timestamp='2026-11-30T11:26:42.391Z', isSidechain=True, agentId='A' * big))
    _save(arc, sid, recs)
    s = open_sess(sid)
    assert len(sess_page(s)) < 200_000
    for o in (sess_thread(s), Thread(s.recs), sess_tools(s)[0], sess_stats(s)):
        for mime, text in reprs(o).items(): assert len(text) < 100_000, (type(o).__name__, mime, len(text))

def test_many_blocks_or_subagents_keep_the_page_bounded(arc):
    "A message of many blocks, a result of many parts, 30 subagents no call started: the page stays bounded"
    sid = '33333333-2222-3333-4444-555555555555'
    recs = _chain(sid, [('user', 'start', {}),
                        ('assistant', [dict(type='text', text='z' * 100)] * 50_000, {}),
                        ('assistant', [dict(type='tool_use', id='t1', name='Bash', input={})], {}),
                        ('user', [dict(type='tool_result', tool_use_id='t1', content=[dict(type='text', text='y')]
                                       * 100_000)], {}),
                        ('user', 'the end of the session', {})])
    _save(arc, sid, recs)
    for a in range(30):
        sub = _chain(sid, [('user' if i % 2 == 0 else 'assistant', [dict(type='text', text='s' * 3000)], {})
                           for i in range(400)])
        for r in sub: r.update(isSidechain=True, agentId=f'a{a:05d}', uuid=f'{a}-{r["uuid"]}',
                               parentUuid=r['parentUuid'] and f'{a}-{r["parentUuid"]}')
        _save(arc, sid, sub, f'agent-a{a:05d}.jsonl')
    page = sess_page(sid)
    assert len(page) < 3_000_000, len(page)
    assert 'the end of the session' in page  # one long message does not hide the rest of the conversation
    assert 'more subagents not shown' in page and 'more blocks of this message not shown' in page
    assert 'more parts of the result not shown' in page
    h = sess_thread(open_sess(sid))._repr_html_()
    assert len(h) < LIMIT and 'the end of the session' in h

# ---------------------------------------------------------------------------------------------------------------------
# Issue 33: the page's search runs (its one script, allowed by hash) and nothing from a transcript does; the site

def _driven(page, query):
    "`page` with a second script that types `query` into the search box, allowed by its own hash beside ours"
    import base64, hashlib
    drive = (f"var q=document.getElementById('lls-q');q.value={json.dumps(query)};"
             "q.dispatchEvent(new Event('input'));")
    h = base64.b64encode(hashlib.sha256(drive.encode()).digest()).decode()
    page = page.replace("script-src 'sha256-", f"script-src 'sha256-{h}' 'sha256-", 1)
    return page.replace('</body>', f'<script>{drive}</script></body>', 1)

@pytest.mark.browser
@needs_chromium
def test_the_search_runs_under_the_policy_and_transcript_scripts_do_not(arc, tmp_path):
    hostile_all(arc)
    page = sess_page(fixture_sess('tools').sid)
    d = dom(tmp_path, _driven(page, 'todo.txt'))
    assert not ran(d), 'a script from the transcript ran'
    shown = re.search(r'<span id="lls-n">(\d+) of (\d+) messages</span>', d)
    assert shown and 0 < int(shown[1]) < int(shown[2]), d[-3000:]  # our script ran: some messages hidden
    assert d.count(' lls-hide"') == int(shown[2]) - int(shown[1])  # the others hidden
    evil = page.replace('</body>', f'<script>{MARK}</script></body>', 1)  # a script the policy does not know
    assert not ran(dom(tmp_path, evil))

def test_the_page_has_a_table_of_prompts_diffs_and_costs(arc):
    s = fixture_sess('tools')
    page = sess_page(s.sid)
    assert re.findall(r'<a href="(#prompt-\d+)"', page) == ['#prompt-1'] and 'id="prompt-1"' in page
    assert '<pre class="lls-diff">' in page and 'lls-add' in page and 'wrote ' in page
    assert page.count('class="lls-use"') == sess_stats(s)['turns'] if isinstance(sess_stats(s)['turns'], int) else 8
    assert page.count('<div class="lls-msg lls-assistant') < 8  # the API messages of a turn share a box

def test_cut_results_keep_their_rest_folded_up_to_the_bound(tmp_path, monkeypatch):
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(tmp_path/'cfg'))
    from llmsurgery.write import tool_turn, save_sess
    from llmsurgery.page import FULL_MAX
    recs = []
    for i in range(40):
        turn = tool_turn(f'prompt {i}', 'Bash', {'command': 'cat big'}, f'r{i} ' + 'y' * 100_000, 'done', cwd=tmp_path)
        turn[0]['parentUuid'] = recs[-1]['uuid'] if recs else None
        recs += turn
    sid = save_sess(recs, cwd=tmp_path)
    page = sess_page(sid)
    folded = page.count('<details class="lls-more">')
    assert 10 < folded < 40  # the first results keep their rest, until FULL_MAX is spent
    assert folded * 95_000 <= FULL_MAX and page.count('more characters</span>') >= 40 - folded
    assert 'y' * 90_000 in page and len(page) < 4_500_000  # a rest, whole, on the page

def test_html_all_writes_an_index_and_rewrites_only_what_changed(arc, capsys, tmp_path):
    hostile_all(arc)
    site = tmp_path/'site'
    rc, out, err = run(capsys, 'html', '--all', '-o', site)
    assert rc == 0 and 'pages written, 0 unchanged' in out, err
    ix = (site/'index.html').read_text()
    links = re.findall(r'<a href="([^"]+)"', ix)
    assert len(links) == len(ls_sess()) and all((site/l).is_file() for l in links)
    ours = {'p', *(f'a href={l}' for l in links)}  # the index's paragraph, and links to the pages it wrote
    assert [x for x in live_html(ix.split('<body>', 1)[1]) if x not in ours] == [] and '&lt;script&gt;' in ix
    assert "script-src" not in ix and '<script' not in ix
    mtimes = {p: p.stat().st_mtime_ns for p in site.glob('*/*.html')}
    rc, out, err = run(capsys, 'html', '--all', '-o', site)
    assert rc == 0 and f'0 pages written, {len(links)} unchanged' in out
    assert {p: p.stat().st_mtime_ns for p in site.glob('*/*.html')} == mtimes
    p = next(arc.glob(f'*/{fixture_sess("tools").sid}.jsonl'))
    p.write_bytes(p.read_bytes() + p.read_bytes().splitlines(keepends=True)[-1])
    rc, out, err = run(capsys, 'html', '--all', '-o', site, '--json')
    assert rc == 0 and json.loads(out)['written'] == 1
    assert run(capsys, 'html', 'x', '--all')[0] == 2

def test_md_fences_hold_whatever_the_transcript_holds(arc, capsys):
    p = next(arc.glob(f'*/{fixture_sess("tools").sid}.jsonl'))
    p.write_text(p.read_text().replace('notes.txt', 'notes.txt ```` fence'))
    rc, out, err = run(capsys, 'md', fixture_sess('tools').sid)
    assert rc == 0 and out.startswith('# ') and '## Prompt' in out and '**Bash**' in out
    fences = re.findall(r'^(`{3,})(\w*)$', out, re.M)
    assert fences and all(len(f) >= 5 for f, lang in fences if '````' in out.split(f)[1][:200])
    opened = [f for f, lang in fences if lang]
    assert len(opened) * 2 == len(fences)  # each fence closes with its own
