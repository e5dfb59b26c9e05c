"""Redaction round 3 (issue 31): the secrets that still got through, and a redacted page that carries none.

Each kind is made the way the world makes it (`bench/bench_redact.py`'s `leak_secrets`: Django's alphabet, the token
Claude Code exports to its Bash tool, docker's config.json, a terminal's 80-column wrap, the AWS console's CSV,
`urllib.parse.quote`, `base64 -w76`, `xxd -p`, a subagent's report), planted through channels of sessions the real
CLI recorded, beside near-misses of each kind (a word in hex, a base64 image, public keys, a URL with an ordinary
query). Every case here failed on the code before issue 31.
"""
import os, sys, json, warnings
from pathlib import Path
import pytest
from llmsurgery import cli
from llmsurgery.core import config_dir
from llmsurgery.fixtures import fixture
from llmsurgery.redact import Redactor, redact_sess, redact_check

sys.path.insert(0, str(Path(__file__).parent.parent/'bench'))
import bench_redact as B

LEAKS, NEAR = B.leak_secrets(), B.leak_near()
KEY = 'test redaction key'

@pytest.fixture(scope='module')
def env(tmp_path_factory):
    root = tmp_path_factory.mktemp('redact3')
    new = dict(LLMSURGERY_REDACT_KEY=KEY, CLAUDE_CONFIG_DIR=str(root/'home'), XDG_CACHE_HOME=str(root/'cache'),
               XDG_STATE_HOME=str(root/'state'), XDG_CONFIG_HOME=str(root/'config'))
    old = {k: os.environ.get(k) for k in new}
    os.environ.update(new)
    yield root
    for k, v in old.items():
        if v is None: os.environ.pop(k, None)
        else: os.environ[k] = v

@pytest.fixture(scope='module')
def planted(env):
    return {c: B.measure_leaks(c, LEAKS, NEAR, env/'planted') for c in B.LEAK_CHANNELS}

def run(capsys, *argv, cfg=None):
    old = os.environ.get('CLAUDE_CONFIG_DIR')
    if cfg is not None: os.environ['CLAUDE_CONFIG_DIR'] = str(cfg)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            rc = cli.main([str(a) for a in argv])
    finally:
        if old is not None: os.environ['CLAUDE_CONFIG_DIR'] = old
    out, err = capsys.readouterr()
    return rc, out, err

def test_made_as_the_world_makes_them():
    kinds = {s.kind for s in LEAKS}
    assert {'django_env_file', 'claude_code_messaging_token', 'docker_config_pat', 'docker_auth_relayed',
            'wrapped_openai_key', 'aws_console_csv', 'url_encoded_in_url', 'base64_w76_env', 'xxd_hex_hosts'} <= kinds
    dj = next(s for s in LEAKS if s.kind == 'django_env_file').value
    assert len(dj) == 50 and set(dj) <= set(B.DJANGO_CHARS) and set(dj) & set('&#(')
    hexed = next(s for s in LEAKS if s.kind == 'xxd_hex_hosts').lines
    assert len(hexed[0]) == 60 and bytes.fromhex(''.join(hexed)).startswith(b'github.com:')  # as `xxd -p` prints
    b64 = next(s for s in LEAKS if s.kind == 'base64_w76_env').lines
    assert {len(l) for l in b64[:-1]} == {76}

@pytest.mark.parametrize('channel', B.LEAK_CHANNELS)
def test_every_leak_was_planted(planted, channel):
    assert planted[channel].absent == []

@pytest.mark.parametrize('channel', B.LEAK_CHANNELS)
def test_every_leak_is_gone(planted, channel):
    assert planted[channel].leaked == {}, sorted(planted[channel].leaked)

@pytest.mark.parametrize('channel', B.LEAK_CHANNELS)
def test_near_misses_of_each_kind_are_kept(planted, channel):
    assert planted[channel].changed == []

@pytest.mark.parametrize('channel', B.LEAK_CHANNELS)
def test_the_check_passes_the_copy_and_fails_the_planted(planted, channel):
    assert (planted[channel].check_rc, planted[channel].src_check_rc) == (0, 1), planted[channel].check.foot()

@pytest.mark.parametrize('kind', [s.kind for s in LEAKS])
@pytest.mark.parametrize('form', ['txt', 'jsonl'])
def test_check_exits_1_on_a_file_holding_only_one_leak(env, capsys, tmp_path, kind, form):
    "A file holding only a URL-encoded key, only `xxd -p` of a token, only a wrapped key, ...: the gate fails it"
    text = '\n'.join(next(s for s in LEAKS if s.kind == kind).lines) + '\n'
    p = tmp_path/f'only.{form}'
    p.write_text(text if form == 'txt' else json.dumps({'type': 'user', 'message': {'role': 'user', 'content': text}}))
    rc, out, err = run(capsys, 'redact', p, '--check')
    assert rc == 1, (kind, out, err)

@pytest.mark.parametrize('line', [n for n in NEAR] + [
    'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx1b3B4cXZ3eHl6YWJjZGVmZ2hpamtsbW5vcHFyc3R1 dev@laptop',
    'DEPLOY_KEY="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGx1b3B4cXZ3eHl6YWJjZGVmZ2hpamtsbW5vcHFyc3R1"',
    'ssh_key: ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7vbqajDRETLSbhr4vzTJDcnuBmnYHw2r3RAz3GS1m'])
def test_public_keys_and_near_misses_are_kept(line):
    assert Redactor(KEY).text(line) == line
    assert Redactor(KEY, paranoid=True).suspects(line) == []

# ---------------------------------------------------------------------------------------------------------------------
# The session's files: todos and sidecars

SID = '0d0d0d0d-0000-4000-8000-000000000031'
GH = B.Gen(__import__('random').Random(1)).crc_token('ghp_')

def _todo_sess(root):
    cfg = root/'cfg'
    d = cfg/'projects'/'-tmp-todo'
    (d/SID).mkdir(parents=True)
    rec = {'type': 'user', 'uuid': 'a', 'parentUuid': None, 'sessionId': SID,
           'message': {'role': 'user', 'content': 'make a todo list'}}
    (d/f'{SID}.jsonl').write_text(json.dumps(rec) + '\n')
    (d/SID/'custom-title.json').write_text(json.dumps({'title': f'deploy with {GH}'}))
    (cfg/'todos').mkdir()
    todo = [{'content': f'export GITHUB_TOKEN={GH} and push', 'status': 'pending', 'activeForm': 'Pushing'}]
    (cfg/'todos'/f'{SID}-agent-{SID}.json').write_text(json.dumps(todo))
    return cfg

def test_todos_and_sidecars_are_checked(env, tmp_path):
    cfg = _todo_sess(tmp_path)
    with config_dir(cfg): rep = redact_check(SID)
    assert {f['file'] for f in rep} >= {f'{SID}/custom-title.json', f'todos/{SID}-agent-{SID}.json'}, list(rep)

def test_todos_and_sidecars_are_redacted(env, tmp_path):
    cfg = _todo_sess(tmp_path)
    with config_dir(cfg): res = redact_sess(SID, tmp_path/'share')
    out = tmp_path/'share'
    files = {str(p.relative_to(out)): p.read_text() for p in out.rglob('*') if p.is_file()}
    assert f'todos/{res.sid}-agent-{res.sid}.json' in files and any('custom-title.json' in f for f in files)
    assert not any(GH in t for t in files.values()) and not any(SID in f for f in files)
    with config_dir(out): assert len(redact_check(res.sid)) == 0
    with config_dir(cfg): beside = redact_sess(SID)  # in the live config: nothing written outside projects/
    assert not (cfg/'todos'/f'{beside.sid}-agent-{beside.sid}.json').exists()

# ---------------------------------------------------------------------------------------------------------------------
# The page: made from the redacted session alone

def test_a_redacted_page_holds_no_planted_secret(env, tmp_path):
    from llmsurgery.page import sess_page
    secrets = B.fake_secrets()[:40] + LEAKS
    cfg, sid, _ = B.plant('meta', secrets, NEAR, tmp_path)  # in a subagent's description and prompt
    p = B._main(cfg, sid)
    B._replace(p, 'Use an agent to list the files here.', 'Use an agent to list the files here. ' +
               ' '.join(s.lines[0] for s in secrets[:20]))  # the prompt: the title, the stats' first prompt
    m = sorted(cfg.glob(f'projects/*/{sid}/subagents/agent-*.meta.json'))[0]
    meta = json.loads(m.read_text())
    m.write_text(json.dumps({**meta, 'agentType': secrets[0].value}))  # a type a secret
    with config_dir(cfg): page, raw = sess_page(sid, redact=True), sess_page(sid)
    seen = lambda html, s: any(f in html for n in s.needles()
                               for f in (n, json.dumps(n)[1:-1], n.replace('&', '&amp;')))
    assert [s.kind for s in secrets if seen(raw, s)]  # the page without redaction shows some
    assert [s.kind for s in secrets if seen(page, s)] == []
    assert 'Redacted.' in page and sid not in page

# ---------------------------------------------------------------------------------------------------------------------
# What is shown: invisible characters as escapes; a tool input nested deeper than orjson writes

def test_invisible_characters_are_shown_as_escapes():
    from llmsurgery.show import visible, json_visible
    from llmsurgery.view import html_esc
    s = 'deploy\u200b now\u2060\ufeff' + ''.join(chr(0xE0000 + ord(c)) for c in 'rm -rf') + '\U000e007f'
    shown = visible(s)
    assert shown.isascii() and '\\u200b' in shown and '\\u2060' in shown and '\\ufeff' in shown
    assert '\\U000e0072' in shown and '\\U000e007f' in shown
    assert html_esc(s).isascii()
    js = json.dumps(s, ensure_ascii=False)
    assert json.loads(json_visible(js)) == s and json_visible(js).isascii()

def test_an_invisible_title_is_escaped_in_the_page_and_show(env, tmp_path, capsys):
    cfg = tmp_path/'cfg'
    d = cfg/'projects'/'-tmp-title'
    d.mkdir(parents=True)
    title = 'Fix\u200b the\u2060 bug' + ''.join(chr(0xE0000 + ord(c)) for c in 'secret')
    recs = [{'type': 'user', 'uuid': 'a', 'parentUuid': None, 'sessionId': SID, 'timestamp': '2026-11-30T10:00:00Z',
             'message': {'role': 'user', 'content': 'hi'}},
            {'type': 'custom-title', 'customTitle': title, 'sessionId': SID}]
    (d/f'{SID}.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in recs))
    from llmsurgery.page import sess_page
    with config_dir(cfg): page = sess_page(SID)
    assert '\u200b' not in page and '\U000e0073' not in page and '\\u200b' in page
    rc, out, err = run(capsys, 'show', SID, cfg=cfg)
    assert rc == 0 and '\u200b' not in out and '\U000e0073' not in out, err

def _deep_sess(cfg, depth):
    d = cfg/'projects'/'-tmp-deep'
    d.mkdir(parents=True)
    tree = x = {}
    for _ in range(depth): x['a'] = {}; x = x['a']
    recs = [dict(type='user', uuid='u1', parentUuid=None, sessionId=SID, timestamp='2026-11-30T10:00:00Z',
                 message=dict(role='user', content='go')),
            dict(type='assistant', uuid='u2', parentUuid='u1', sessionId=SID, timestamp='2026-11-30T10:00:01Z',
                 message=dict(role='assistant', id='msg_1', model='claude-sonnet-4-6', usage=dict(input_tokens=1,
                              output_tokens=1), content=[dict(type='tool_use', id='toolu_1', name='Deep',
                                                              input={'tree': tree})])),
            dict(type='user', uuid='u3', parentUuid='u2', sessionId=SID, timestamp='2026-11-30T10:00:02Z',
                 message=dict(role='user', content=[dict(type='tool_result', tool_use_id='toolu_1', content='ok')]))]
    (d/f'{SID}.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in recs))

@pytest.mark.parametrize('depth', [300, 900])
@pytest.mark.parametrize('cmd', ['show', 'html', 'html --redact'])
def test_a_deeply_nested_tool_input_is_shown(env, tmp_path, capsys, cmd, depth):
    cfg = tmp_path/'cfg'
    _deep_sess(cfg, depth)
    argv = [*cmd.split(), SID] + (['-o', tmp_path/'p.html'] if cmd.startswith('html') else [])
    rc, out, err = run(capsys, *argv, cfg=cfg)
    assert rc == 0, err
    shown = (tmp_path/'p.html').read_text() if cmd.startswith('html') else out
    assert 'Deep' in shown and '…' in shown

# ---------------------------------------------------------------------------------------------------------------------
# The token the real Claude Code exports to its Bash tool, as `env` prints it there

@pytest.mark.cli
def test_the_token_claude_code_exports_is_redacted(env, tmp_path):
    from llmsurgery.recorder import Recording
    from llmsurgery.fakeapi import text_block, tool_use_block
    r = Recording('envprobe', tools='Bash', root=tmp_path/'rec')
    sid = r.run('Show the environment.', [[tool_use_block('Bash', {'command': 'env | sort', 'description': 'env'})],
                                           [text_block('Done.')]])
    p = next(r.cfg.glob(f'projects/*/{sid}.jsonl'))
    lines = [l for l in p.read_text().split('\\n') if l.startswith('CLAUDE_CODE_MESSAGING_TOKEN=')]
    assert lines, 'the CLI no longer exports CLAUDE_CODE_MESSAGING_TOKEN'
    token = lines[0].split('=', 1)[1]
    assert len(token) >= 32 and all(c in '0123456789abcdef' for c in token)
    with config_dir(r.cfg):
        assert redact_check(sid)
        res = redact_sess(sid, tmp_path/'share')
    assert token not in res.path.read_text()
