"Codex sessions beside Claude Code's (issue 36): listed, opened by id, read by the same readers, resumed as Codex does"
import io, json, os, shutil
from contextlib import redirect_stdout, redirect_stderr
from pathlib import Path
import pytest
from llmsurgery.cli import main
from llmsurgery.codex import *
from llmsurgery.sess import open_sess
from llmsurgery.core import NotFound
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
