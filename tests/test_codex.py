"Codex sessions beside Claude Code's (issue 36): listed, opened by id, read by the same readers, resumed as Codex does"
import io, json, os, shutil
from contextlib import redirect_stdout, redirect_stderr
from pathlib import Path
import pytest
from llmsurgery.cli import main
from llmsurgery.codex import *
from llmsurgery.sess import open_sess
from llmsurgery.core import NotFound, is_sid
from llmsurgery.fixtures import fixture, fixture_meta, fixture_names, fixture_reqs
from llmsurgery.cli_versions import codex_cli

def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err): rc = main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()

@pytest.fixture
def both(tmp_path, monkeypatch):
    "A Claude Code config folder with the qa fixture, and a Codex home holding every Codex fixture's rollouts"
    shutil.copytree(fixture('qa')/'projects', tmp_path/'cfg'/'projects')
    for n in fixture_names('codex'):
        shutil.copytree(fixture(n)/'sessions', tmp_path/'codex'/'sessions', dirs_exist_ok=True)
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(tmp_path/'cfg'))
    monkeypatch.setenv('CODEX_HOME', str(tmp_path/'codex'))
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path/'cache'))
    monkeypatch.chdir(tmp_path)
    return tmp_path

def codex_sids():
    "The main sessions of every Codex fixture (subagents are their sessions' agents)"
    return [s for n in fixture_names('codex') for s in fixture_meta(n).sessions]

def test_ls_lists_both_agents(both):
    rc, out, _ = run('ls', '--json')
    rows = json.loads(out)
    assert rc == 0 and {r['agent'] for r in rows} == {'claude', 'codex'}
    assert sorted(r['sid'] for r in rows if r['agent'] == 'codex') == sorted(codex_sids())
    sub = fixture_meta('codex-subagent')
    assert len(sub.files) == 2 and [r['sid'] for r in rows].count(sub.sessions[0]) == 1  # the subagent is no session
    rc, out, _ = run('ls')
    assert rc == 0 and 'Ask a helper to count.' in out and 'What is the capital of France?' in out

def test_a_codex_id_or_its_unique_start(both):
    sid = fixture_meta('codex-tools').sessions[0]
    for name in (sid, sid[:18]):
        rc, out, _ = run('prompts', name)
        assert rc == 0 and 'Look around, read missing.txt' in out and 'What did notes.txt get?' in out
        assert '<environment_context>' not in out  # what Codex injects is no prompt
    rc, _, err = run('prompts', sid[:8])  # UUIDv7: sessions recorded within a minute share their first 8 characters
    assert rc == 2 and 'is the start of' in err

def test_readers_on_a_codex_session(both):
    sid = fixture_meta('codex-tools').sessions[0]
    rc, out, _ = run('tools', sid, '--json')
    calls = json.loads(out)
    assert [c['name'] for c in calls] == ['exec_command', 'exec_command', 'apply_patch']
    assert [c['failed'] for c in calls] == [False, True, False]
    rc, out, _ = run('errors', sid)
    assert rc == 0 and 'cat missing.txt' in out and 'No such file or directory' in out
    rc, out, _ = run('replies', sid)
    assert 'Listed the folder, failed to read missing.txt, wrote notes.txt.' in out and 'gpt-5.5' in out
    rc, out, _ = run('show', sid)
    assert rc == 0 and 'One line: "first line".' in out and '[thinking] Look at the folder first' in out

def test_usage_counts_forks_and_subagents_once(both):
    fork = fixture_meta('codex-fork').sessions
    par, child = (open_sess(s) for s in fork)
    tp, tc = codex_totals(par), codex_totals(child)
    rc, out, _ = run('usage', '--by', 'session', '--no-index', '--json')
    rows = {r['session']: r for r in json.loads(out)}
    assert rows[fork[0]]['input'] == tp['input_tokens'] and rows[fork[1]]['input'] == tc['input_tokens']
    # the fork's own: its last running total less its parent's at the fork point, not its last total
    assert tc['input_tokens'] < _last(child) and tc['input_tokens'] > 0
    sub = fixture_meta('codex-subagent').sessions[0]
    main_, (aid, ap), = open_sess(sub), *open_sess(sub).agents.items()
    assert rows[sub]['input'] == codex_totals(main_)['input_tokens'] + codex_totals(CodexSess(ap))['input_tokens']
    assert all(r['cost'] > 0 for r in rows.values() if r['session'] in codex_sids())  # priced from fastllm's table

def _last(s):
    return max(r['payload']['info']['total_token_usage']['input_tokens'] for r in s.raw
               if r.get('type') == 'event_msg' and r['payload'].get('type') == 'token_count')

@pytest.mark.parametrize('name', fixture_names('codex'))
def test_history_is_what_codex_sent(name):
    "The oracle: every conversation request the real Codex sent while recording, rebuilt from the rollout"
    cases = codex_oracle(name)
    assert len(cases) >= 3
    for n, sent, ours in cases: assert ours[1:] == sent[1:], (name, n)

def test_a_fork_without_its_parent_says_so(tmp_path, monkeypatch):
    p = next((fixture('codex-fork')/'sessions').rglob(f"*{fixture_meta('codex-fork').sessions[1]}.jsonl"))
    dst = tmp_path/'sessions'/'2026'/'12'/'02'/p.name
    dst.parent.mkdir(parents=True)
    shutil.copy(p, dst)
    monkeypatch.setenv('CODEX_HOME', str(tmp_path))
    with pytest.raises(NotFound, match='forked from'): CodexSess(dst).recs

@pytest.mark.cli
@pytest.mark.skipif(not codex_cli().is_file(), reason='no Codex CLI: tools/fetch-clis codex-0.171.0')
def test_live_resume_sends_what_we_rebuild(tmp_path):
    "Record a fresh session with the real Codex offline, then resume it: what it sends is what codex_history rebuilds"
    from llmsurgery.fakeresponses import ResponsesAPI, RefusingProxy, codex_home, run_codex, msg_item, call_item
    turns = [[call_item('exec_command', {'cmd': 'echo one'})], [msg_item('Did it.')], [msg_item('Again.')]]
    with ResponsesAPI(turns, timeout=120) as api, RefusingProxy(timeout=120) as px:
        home = codex_home(tmp_path/'home', api)
        r = run_codex(codex_cli(), ['exec', 'Run echo.'], home, tmp_path/'work', px, timeout=90)
        assert r.returncode == 0, r.stderr[-500:]
        (p,) = rollouts(home)
        with codex_home_dir(home): before = codex_history(CodexSess(p))
        n = len(api.reqs)
        again = ['exec', 'resume', rollout_id(p), 'Once more.']
        r = run_codex(codex_cli(), again, home, tmp_path/'work', px, timeout=90)
        assert r.returncode == 0, r.stderr[-500:]
    sent = api.reqs[n]['body']['input']
    assert sent[1:len(before)] == before[1:] and sent[-1]['content'][0]['text'] == 'Once more.'
    assert px.hosts() <= {'github.com', 'api.github.com', 'chatgpt.com', 'ab.chatgpt.com'}

def test_handoff_refuses_what_it_cannot_do(both):
    sid = fixture_meta('codex-tools').sessions[0]
    rc, _, err = run('handoff', sid, '--to', 'codex')
    assert rc == 2 and 'codex session already' in err
    rc, _, err = run('handoff', sid, '--to', 'gemini')
    assert rc == 2

def test_handoff_to_claude_says_what_stayed(both):
    sid = fixture_meta('codex-tools').sessions[0]
    rc, out, err = run('handoff', sid, '--to', 'claude', '--cwd', both)
    new = out.strip()
    assert rc == 0 and is_sid(new) and 'left out (2): reasoning item (encrypted for OpenAI)' in err
    rc, out, _ = run('prompts', new)  # the new session is Claude Code's, in the project of --cwd
    assert rc == 0 and 'Look around, read missing.txt' in out and 'What did notes.txt get?' in out
    rc, out, _ = run('tools', new, '--json')
    assert [c['name'] for c in json.loads(out)] == ['Bash', 'Bash', 'apply_patch']

@pytest.mark.cli
@pytest.mark.skipif(not codex_cli().is_file(), reason='no Codex CLI: tools/fetch-clis codex-0.171.0')
def test_handoff_to_codex_resumes_in_codex(tmp_path):
    "A Claude Code session handed over: the real Codex resumes it and sends our items after its base instructions"
    from llmsurgery.fakeresponses import ResponsesAPI, RefusingProxy, codex_home, run_codex, msg_item
    from llmsurgery.handoff import handoff, claude_items
    from llmsurgery.fixtures import fixture_sess
    with ResponsesAPI([[msg_item('Carrying on.')]], timeout=120) as api, RefusingProxy(timeout=120) as px:
        home = codex_home(tmp_path/'home', api)
        h = handoff(fixture_sess('tools'), 'codex', cwd=tmp_path/'work', provider='fake', home=home)
        r = run_codex(codex_cli(), ['exec', 'resume', h.sid, 'Go on.'], home, tmp_path/'work', px, timeout=90)
    assert (r.returncode, r.stdout.strip()) == (0, 'Carrying on.'), r.stderr[-500:]
    items, _ = claude_items(fixture_sess('tools'))
    sent = api.reqs[0]['body']['input']
    assert sent[1:1 + len(items)] == items and sent[-1]['content'][0]['text'] == 'Go on.'

@pytest.mark.cli
def test_handoff_to_claude_resumes_in_claude(tmp_path, monkeypatch):
    "A Codex session handed over: the real Claude Code resumes it and sends the conversation we wrote"
    from llmsurgery.handoff import handoff, codex_msgs
    from llmsurgery.resume import resume_check
    from llmsurgery.sent import sent_msgs
    from llmsurgery.fixtures import fixture_sess
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(tmp_path/'cfg'))
    (tmp_path/'work').mkdir()
    h = handoff(fixture_sess('codex-tools'), 'claude', cwd=tmp_path/'work')
    res = resume_check(path=h.path)
    def brief(ms): return [[b.get('text') or b.get('name') or b.get('tool_use_id') for b in m['content']] for m in ms]
    assert brief(sent_msgs(res.conv)) == brief(codex_msgs(fixture_sess('codex-tools'))[0])

def test_files_commands_and_finders_on_codex(both):
    sid = fixture_meta('codex-tools').sessions[0]
    rc, out, _ = run('files', sid, '--json')
    assert [(f['path'].rsplit('/', 1)[-1], f['written']) for f in json.loads(out)] == [('notes.txt', 1)]
    rc, out, _ = run('commands', sid, '--json')
    assert [(c['command'], c['exit']) for c in json.loads(out)] == [('echo hi; ls -a', 0), ('cat missing.txt', 1)]
    rc, out, _ = run('commands', '--grep', 'cat missing', '--no-index', '--json')
    assert [c['sid'] for c in json.loads(out)] == [sid]
    rc, out, _ = run('files', '--edited', 'notes.txt', '--no-index', '--json')
    assert sid in [c['sid'] for c in json.loads(out)]
    rc, out, _ = run('find', 'read missing.txt', '--no-index')
    assert rc == 0 and sid in out
    rc, out, _ = run('grep', 'missing', sid)
    assert rc == 0 and 'cat missing.txt' in out

def test_with_an_index_codex_sessions_are_still_found(both):
    "The index holds Claude Code's sessions; find, usage and the call finders add Codex's by scan"
    assert run('index')[0] == 0
    sid = fixture_meta('codex-tools').sessions[0]
    rc, out, _ = run('find', 'read missing.txt')
    assert rc == 0 and sid in out
    rc, out, _ = run('usage', '--by', 'session', '--json')
    assert sid in {r['session'] for r in json.loads(out)}
    rc, out, _ = run('errors', '--all', '--json')
    assert sid in {c['sid'] for c in json.loads(out)}

def test_resume_preview_of_a_codex_session(both):
    sid = fixture_meta('codex-compact').sessions[0]
    rc, out, _ = run('resume-preview', sid, '--json')
    assert rc == 0 and json.loads(out) == codex_history(open_sess(sid))
    assert 'Another language model started' in out  # the compaction's replacement history, not the turns it replaced

def test_a_codex_subagent_by_its_id(both):
    sid = fixture_meta('codex-subagent').sessions[0]
    (aid,) = open_sess(sid).agents
    rc, out, _ = run('agents', sid)
    assert rc == 0 and aid in out and 'One, two, three.' in out
    rc, out, _ = run('show', sid, '--agent', aid[:18])
    assert rc == 0 and 'Count to three.' in out and 'One, two, three.' in out
