"`llmsurgery mcp`: the server through the SDK's client (in memory and over stdio), and through the real Claude Code"
import hashlib, json, os, shutil, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
import anyio, pytest
from mcp import Client, StdioServerParameters
from llmsurgery.core import config_dir
from llmsurgery.fixtures import fixture, fixture_sess
from llmsurgery.mcp_server import MCP_TOOLS, PAGE_CHARS, mcp_server, install_mcp, mcp_entry, user_config

LLMSURGERY = str(Path(sys.executable).parent/'llmsurgery')
TOOLS = fixture_sess('tools').sid

def talk(server, *calls, timeout=120):
    "Tool names `server` lists and its answers to `calls` (`(name, arguments)`), through the SDK's client, bounded"
    async def go():
        with anyio.fail_after(timeout):
            async with Client(server) as c:
                return [t.name for t in (await c.list_tools()).tools], [await c.call_tool(n, a) for n, a in calls]
    with ThreadPoolExecutor(1) as ex: return ex.submit(anyio.run, go).result(timeout + 10)

@pytest.fixture
def cfg(tmp_path, monkeypatch):
    "A config folder holding every fixture's projects; llmsurgery's own folders beside it"
    root = tmp_path/'cfg'
    for d in sorted(fixture('qa').parent.glob('*/projects/*')):
        shutil.copytree(d, root/'projects'/d.name, dirs_exist_ok=True)
    for k in ('XDG_CACHE_HOME', 'XDG_STATE_HOME', 'XDG_CONFIG_HOME'): monkeypatch.setenv(k, str(tmp_path/k))
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(root))
    for k in ('CLAUDE_CODE_SESSION_ID', 'CLAUDE_PROJECT_DIR'): monkeypatch.delenv(k, raising=False)
    return root

def snapshot(d) -> dict:
    "Every path under `d`: its kind, size, modification time and content hash"
    def one(p):
        st = p.lstat()
        h = hashlib.sha1(p.read_bytes()).hexdigest() if p.is_file() and not p.is_symlink() else None
        return (st.st_mode, st.st_size, st.st_mtime_ns, h)
    return {str(p.relative_to(d)): one(p) for p in sorted(Path(d).rglob('*'))}

READS = [('find_sessions', dict(query='missing-dir')), ('find_sessions', dict(query='l[s]', regex=True, limit=0)),
         ('search_session', dict(query='notes', session=TOOLS)), ('show_session', dict(session=TOOLS)),
         ('show_session', dict(session=TOOLS, start=20, end=30)), ('show_session', dict(session=TOOLS, all=True)),
         ('get_tool_result', dict(tool_use_id='toolu_01OOMn7Hfs8Uy94kRIPCiSww')),
         ('session_files', dict(session=TOOLS)), ('session_commands', dict(session=TOOLS)),
         ('session_failures', dict(session=TOOLS)), ('session_agents', dict(session=fixture_sess('subagent').sid)),
         ('session_usage', dict(session=TOOLS)), ('preview_resume', dict(session=TOOLS)),
         ('list_sessions', {}), ('current_session', {})]

def test_every_read_tool_answers_and_nothing_changes(cfg, monkeypatch):
    monkeypatch.setenv('CLAUDE_CODE_SESSION_ID', TOOLS)
    before = snapshot(cfg)
    names, res = talk(mcp_server(), *READS)
    assert set(names) == {n for n, t in MCP_TOOLS.items() if not t.writes} and all(len(n) <= 47 for n in names)
    assert [(n, r.is_error) for (n, _), r in zip(READS, res) if r.is_error] == []
    got = dict(zip([f'{n}{i}' for i, (n, _) in enumerate(READS)], res))
    assert got['find_sessions0'].structured_content['rows'][0]['sid'] == TOOLS
    assert '--- [24] assistant' in got['show_session3'].content[0].text
    assert "ls: cannot access 'missing-dir'" in got['get_tool_result6'].content[0].text
    assert got['get_tool_result6'].structured_content is None  # text tools give text alone
    assert {r['name'] for r in got['session_failures9'].structured_content['rows']} == {'Bash', 'Read', 'Edit'}
    assert got['current_session14'].structured_content['sid'] == TOOLS
    assert snapshot(cfg) == before  # read-only: not a byte, not a time changed

def test_bad_input_is_a_tool_error_and_the_server_goes_on(cfg):
    calls = [('show_session', dict(session='no-such-session')), ('find_sessions', dict(query='(oops', regex=True)),
             ('session_usage', dict(session=TOOLS, agents='perhaps')), ('find_sessions', dict(limit=3)),
             ('find_sessions', dict(query='x', sesion='.')), ('show_session', dict(session=TOOLS, cursor=10**9)),
             ('find_sessions', dict(query='x', since='last tuesday')),
             ('rename_session', dict(session=TOOLS, title='x')),
             ('show_session', dict(session=TOOLS, cursor='2')), ('session_files', dict(session=TOOLS))]
    _, res = talk(mcp_server(), *calls)
    texts = [r.content[0].text for r in res]
    assert [r.is_error for r in res] == [True]*9 + [False]
    assert "No session or agent with id, id prefix, title or first prompt 'no-such-session'" in texts[0]
    assert texts[1].startswith("Not a regular expression: '(oops'")
    assert "'agents' input should be a valid boolean" in texts[2] and "'perhaps'" in texts[2]
    assert "'query' is missing" in texts[3] and "there is no argument 'sesion'" in texts[4]
    assert 'cursor 1000000000 is not a page of this answer' in texts[5]
    assert 'last tuesday' in texts[6] and '--allow-writes' in texts[7] and 'cursor is a number' in texts[8]
    assert not any('Error executing tool' in t or 'Traceback' in t for t in texts)

def test_pages_cover_the_answer_once(archive):
    "A 2 MB session's records come in pages of at most PAGE_CHARS, each starting where the last ended"
    big = max((archive/'projects').glob('*/*.jsonl'), key=lambda p: p.stat().st_size)
    def page(cursor): return ('show_session', dict(session=str(big), all=True, mx=0, cursor=cursor))
    pages, cursor = [], 0
    while cursor is not None and len(pages) < 400:
        _, (r,) = talk(mcp_server(), page(cursor))
        text = r.content[0].text
        tail = text.rsplit('\n[page ends at character ', 1)
        pages.append(tail[0])
        cursor = int(tail[1].split('cursor=')[1].split()[0]) if len(tail) == 2 else None
        assert len(text) <= PAGE_CHARS + 200
        if len(pages) == 3: break  # three pages show the seams; the whole is checked in text_page's own test
    assert len(pages) >= 2 and all(len(p) > PAGE_CHARS // 2 for p in pages[:-1])
    from llmsurgery.mcp_server import show_session
    assert ''.join(pages) == show_session(str(big), all=True, mx=0)[:sum(map(len, pages))]  # no gap, no repeat
    _, (rows,) = talk(mcp_server(), ('find_sessions', dict(query='e', limit=0)))
    sc = rows.structured_content
    assert sc['total'] > len(sc['rows']) and sc['next_cursor'] == len(sc['rows']) and 'cursor=' in sc['next']
    _, (more,) = talk(mcp_server(), ('find_sessions', dict(query='e', limit=0, cursor=sc['next_cursor'])))
    assert {r['sid'] for r in more.structured_content['rows']}.isdisjoint(r['sid'] for r in sc['rows'])

def test_writes_only_when_allowed_and_never_delete(cfg):
    before = snapshot(cfg)
    names, res = talk(mcp_server(allow_writes=True), ('rename_session', dict(session=TOOLS, title='Tidied')),
                      ('tag_session', dict(session=TOOLS, tag='chores')), ('fork_session', dict(session=TOOLS)),
                      ('redact_session', dict(session=TOOLS)))
    assert {'rename_session', 'tag_session', 'fork_session', 'redact_session'} <= set(names)
    assert [r.is_error for r in res] == [False]*4, [r.content[0].text for r in res]
    assert res[0].structured_content['title'] == 'Tidied' and res[1].structured_content['tag'] == 'chores'
    after = snapshot(cfg)
    assert set(before) <= set(after) and len(after) > len(before)  # new sessions, nothing gone
    assert res[2].structured_content['sid'] != TOOLS and res[3].structured_content['sid'] not in (TOOLS,)

def stdio(cfg, *args, env=None):
    return StdioServerParameters(command=LLMSURGERY, args=['mcp', *args], cwd='/tmp',
                                 env={**os.environ, 'CLAUDE_CONFIG_DIR': str(cfg), **(env or {})})

def test_over_stdio(cfg):
    "`llmsurgery mcp` as Claude Code starts it: a subprocess on a pipe; the current session from CLAUDE_PROJECT_DIR"
    names, (cur, bad, ok) = talk(stdio(cfg, env={'CLAUDE_PROJECT_DIR': '/tmp/llmsurgery-rec/tools'}),
                                 ('current_session', {}), ('show_session', dict(session='zzz')),
                                 ('session_failures', {}))
    assert cur.structured_content['sid'] == TOOLS and bad.is_error and ok.structured_content['total'] == 3
    assert 'rename_session' not in names

def test_the_old_handshake_too(cfg):
    "A client that only knows `initialize` (protocol 2025-11-25) is served as well"
    msgs = [dict(jsonrpc='2.0', id=0, method='initialize', params=dict(protocolVersion='2025-11-25', capabilities={},
                 clientInfo=dict(name='old', version='1'))),
            dict(jsonrpc='2.0', method='notifications/initialized'),
            dict(jsonrpc='2.0', id=1, method='tools/call',
                 params=dict(name='session_usage', arguments=dict(session=TOOLS))),
            dict(jsonrpc='2.0', id=2, method='no/such/method', params={})]
    p = subprocess.Popen([LLMSURGERY, 'mcp'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                         env={**os.environ, 'CLAUDE_CONFIG_DIR': str(cfg)})
    try:
        p.stdin.write(''.join(json.dumps(m) + '\n' for m in msgs))
        p.stdin.flush()
        with ThreadPoolExecutor(1) as ex:  # the answers, read as they come (the pipe stays open, as Claude Code's does)
            read = lambda: {m['id']: m for m in (json.loads(p.stdout.readline()) for _ in range(3))}
            out = ex.submit(read).result(60)
    finally:
        p.stdin.close()
        try: p.wait(30)
        except subprocess.TimeoutExpired: p.kill()
    assert out[0]['result']['protocolVersion'] == '2025-11-25'
    assert out[1]['result']['structuredContent']['rows'][0]['model'] == 'claude-sonnet-4-6'
    assert out[2]['error']['code'] == -32601  # method not found: refused, and answered

@pytest.mark.cli
def test_install_writes_what_claude_mcp_add_writes(tmp_path, monkeypatch):
    "Our entry is the one `claude mcp add` writes, in the same files, and whatever else the file held stays"
    from llmsurgery.claude import claude_bin
    home, cc, proj = tmp_path/'home', tmp_path/'cc', tmp_path/'my proj'
    for d in (home, cc, proj): d.mkdir()
    env = dict(PATH=os.environ['PATH'], HOME=str(home), CLAUDE_CONFIG_DIR=str(cc), DISABLE_AUTOUPDATER='1',
               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC='1')
    e = mcp_entry()
    for scope in ('user', 'project'):
        subprocess.run([str(claude_bin()), 'mcp', 'add', '--scope', scope, 'llmsurgery', '--', e['command'],
                        *e['args']],
                       cwd=proj, env=env, check=True, capture_output=True, timeout=60)
    theirs_user, theirs_proj = json.loads((cc/'.claude.json').read_text()), json.loads((proj/'.mcp.json').read_text())
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(cc))
    assert user_config() == cc/'.claude.json'
    (cc/'.claude.json').write_text(json.dumps({**theirs_user, 'mcpServers': {'other': {'command': 'x'}}}))
    (proj/'.mcp.json').unlink()
    assert install_mcp() == cc/'.claude.json' and install_mcp(proj) == proj/'.mcp.json'
    ours_user, ours_proj = json.loads((cc/'.claude.json').read_text()), json.loads((proj/'.mcp.json').read_text())
    assert ours_user['mcpServers'] == {'other': {'command': 'x'}, 'llmsurgery': theirs_user['mcpServers']['llmsurgery']}
    assert {k: v for k, v in ours_user.items() if k != 'mcpServers'} == {k: v for k, v in theirs_user.items()
                                                                        if k != 'mcpServers'}
    assert ours_proj == theirs_proj
    assert (cc/'.claude.json').stat().st_mode & 0o777 == 0o600  # kept as Claude Code made it
    monkeypatch.delenv('CLAUDE_CONFIG_DIR')
    monkeypatch.setenv('HOME', str(home))
    assert user_config() == home/'.claude.json'

# The real Claude Code, offline: the fake API scripts a call of each tool; the transcript the CLI writes holds answers

def clis():
    "The bundled CLI, and 2.1.333 when `tools/fetch-clis` has fetched it (else skipped)"
    from llmsurgery.claude import claude_bin
    from llmsurgery.core import clis_dir
    old = clis_dir()/'2.1.333'/'claude'
    return [pytest.param(str(claude_bin()), id='bundled'),
            pytest.param(str(old), id='2.1.333', marks=pytest.mark.skipif(not old.exists(), reason='tools/fetch-clis'))]

def run_claude_mcp(bin, cfg, calls, tmp_path):
    "Run `claude -p` with our server, the fake API scripting `calls`: the session's id, the records it wrote, the API"
    from llmsurgery.fakeapi import FakeAPI, tool_use_block, text_block
    from llmsurgery.claude import claude_env
    from llmsurgery.core import open_recs
    from llmsurgery.sess import sess_file
    cwd = tmp_path/'proj'
    cwd.mkdir()
    conf = tmp_path/'mcp.json'
    server = {'type': 'stdio', 'command': LLMSURGERY, 'args': ['mcp']}
    conf.write_text(json.dumps({'mcpServers': {'llmsurgery': server}}))
    turns = [[tool_use_block(f'mcp__llmsurgery__{n}', a)] for n, a in calls] + [[text_block('done')]]
    allowed = ','.join(sorted({f'mcp__llmsurgery__{n}' for n, _ in calls}))
    with FakeAPI(turns, timeout=240) as api:
        p = subprocess.run([bin, '-p', 'Look at my history', '--model', 'claude-sonnet-4-6', '--output-format', 'json',
                            '--mcp-config', str(conf), '--strict-mcp-config', '--allowedTools', allowed, '--tools', ''],
                           cwd=cwd, env=claude_env(cfg, api.url), capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, p.stderr[-2000:]
    sid = json.loads(p.stdout)['session_id']
    with config_dir(cfg): recs = open_recs(sess_file(sid))
    return sid, recs, api

def results(recs) -> dict:
    "tool_use id -> its tool_result block, from the records of a transcript"
    return {b['tool_use_id']: b for r in recs if r.get('type') == 'user'
            and isinstance(c := r['message']['content'], list)
            for b in c if isinstance(b, dict) and b.get('type') == 'tool_result'}

def calls_of(recs) -> list:
    return [b for r in recs if r.get('type') == 'assistant' for b in r['message']['content']
            if b.get('type') == 'tool_use']

def text_of(block) -> str:
    c = block['content']
    return c if isinstance(c, str) else '\n'.join(b.get('text', '') for b in c if isinstance(b, dict))

@pytest.mark.cli
@pytest.mark.parametrize('bin', clis())
def test_claude_code_calls_every_tool(bin, cfg, tmp_path):
    sid, recs, api = run_claude_mcp(bin, cfg, READS + [('show_session', dict(session='nope'))], tmp_path)
    got = [results(recs)[c['id']] for c in calls_of(recs)]
    assert len(got) == len(READS) + 1
    assert [READS[i][0] for i, b in enumerate(got[:-1]) if b.get('is_error')] == []
    assert got[-1]['is_error']
    assert "No session or agent with id, id prefix, title or first prompt 'nope'" in text_of(got[-1])
    texts = {n: text_of(b) for (n, _), b in reversed(list(zip(READS, got)))}  # each tool's first call
    # rows: the model is given structuredContent alone, as JSON; text: the text
    assert TOOLS in [r['sid'] for r in json.loads(texts['find_sessions'])['rows']]  # and the running one: it said so
    assert json.loads(texts['session_failures'])['total'] == 3
    assert '--- [24] assistant' in texts['show_session'] and "cannot access 'missing-dir'" in texts['get_tool_result']
    assert 'would resume' in texts['preview_resume']
    assert json.loads(texts['current_session'])['sid'] == sid  # the session that called: CLAUDE_CODE_SESSION_ID
    sent = [b for q in api.reqs for m in q['messages'] if m['role'] == 'user' and isinstance(m['content'], list)
            for b in m['content'] if b.get('type') == 'tool_result']
    assert any(json.loads(text_of(b).split('\n\n<system-reminder>')[0]).get('rows') for b in sent)

TINY = '''
import anyio, mcp_types as T
from mcp.server import Server
from mcp.server.stdio import stdio_server
async def lt(ctx, p):
    return T.ListToolsResult(tools=[T.Tool(name='both', description='x', input_schema={'type': 'object'})])
async def ct(ctx, p):
    return T.CallToolResult(content=[T.TextContent(type='text', text='THE TEXT')], structured_content={'the': 'data'})
srv = Server('tiny', on_list_tools=lt, on_call_tool=ct)
async def main():
    async with stdio_server() as (r, w): await srv.run(r, w, srv.create_initialization_options())
anyio.run(main)
'''

@pytest.mark.cli
@pytest.mark.parametrize('bin', clis())
def test_claude_code_gives_the_model_structured_content_alone(bin, tmp_path):
    "Why rows are structuredContent whose text is the same JSON, and text answers have no structuredContent"
    from llmsurgery.fakeapi import FakeAPI, tool_use_block, text_block
    from llmsurgery.claude import claude_env
    (tmp_path/'tiny.py').write_text(TINY)
    (tmp_path/'proj').mkdir()
    conf = tmp_path/'mcp.json'
    tiny = {'command': sys.executable, 'args': [str(tmp_path/'tiny.py')]}
    conf.write_text(json.dumps({'mcpServers': {'tiny': tiny}}))
    with FakeAPI([[tool_use_block('mcp__tiny__both', {})], [text_block('done')]], timeout=120) as api:
        p = subprocess.run([bin, '-p', 'go', '--model', 'claude-sonnet-4-6', '--output-format', 'json', '--mcp-config',
                            str(conf), '--strict-mcp-config', '--allowedTools', 'mcp__tiny__both', '--tools', ''],
                           cwd=tmp_path/'proj', env=claude_env(tmp_path/'cfg', api.url), capture_output=True, text=True,
                           timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    seen = text_of(api.reqs[-1]['messages'][-1]['content'][0])
    assert seen.startswith('{"the":"data"}') and 'THE TEXT' not in seen

def test_current_session_of_the_folder_the_server_runs_in(cfg, tmp_path, monkeypatch):
    "No CLAUDE_CODE_SESSION_ID nor CLAUDE_PROJECT_DIR (another client): the newest session of the server's cwd"
    from llmsurgery.sess import sess_dir
    work = tmp_path/'my work'
    work.mkdir()
    monkeypatch.chdir(work)
    with config_dir(cfg):
        sess_dir(str(work)).mkdir(parents=True)
        shutil.copy(fixture_sess('tools').path, sess_dir(str(work))/f'{TOOLS}.jsonl')
    _, (cur, fails) = talk(mcp_server(), ('current_session', {}), ('session_failures', {}))
    assert cur.structured_content['cwd'] == '/tmp/llmsurgery-rec/tools'  # as the transcript says
    assert Path(cur.structured_content['path']).parent == sess_dir(str(work)) and fails.structured_content['total'] == 3

def test_install_never_replaces_a_change_it_did_not_read(tmp_path, monkeypatch):
    "Claude Code rewrites .claude.json as it runs: a write between our read and our replace is read again, not lost"
    import llmsurgery.mcp_server as ms
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(tmp_path))
    f = tmp_path/'.claude.json'
    f.write_text(json.dumps({'numStartups': 1}))
    f.chmod(0o600)
    entry, calls = ms.mcp_entry, []
    def meanwhile(*a):
        calls.append(1)
        if len(calls) == 1: f.write_text(json.dumps({'numStartups': 2, 'projects': {'/x': {}}}))  # Claude Code, now
        return entry(*a)
    monkeypatch.setattr(ms, 'mcp_entry', meanwhile)
    install_mcp()
    d = json.loads(f.read_text())
    assert len(calls) == 2 and d['numStartups'] == 2 and d['projects'] == {'/x': {}} and 'llmsurgery' in d['mcpServers']
    assert sorted(p.name for p in tmp_path.iterdir()) == ['.claude.json']  # no temporary file left
