"""Layouts of issue 21: subagents nested below `subagents/` (the Workflow tool's `workflows/<run>/`), agent teams, and
the transcripts of Claude Code 2.1.333. Each test failed on the code before the fix.

The nested layout is the real `subagent` fixture (2.1.332) with its two agents moved, `.meta.json` and all, to
`subagents/workflows/<run>/` and one level deeper: every command must answer exactly as it does for the flat layout,
and find the agents claude-agent-sdk's `list_subagents` finds."""
import os, sys, json, shutil, warnings
from pathlib import Path
import pytest
from llmsurgery.sess import open_sess
from llmsurgery.fixtures import fixture, fixture_sess
from llmsurgery import cli

AGENT = fixture_sess('subagent')
SID = AGENT.sid

def run(capsys, *argv):
    "The command line in-process: (exit status, stdout, stderr)"
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        rc = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err

def scratch(tmp_path, monkeypatch, name):
    for k, d in dict(CLAUDE_CONFIG_DIR=f'{name}/cfg', XDG_CACHE_HOME=f'{name}/cache', XDG_STATE_HOME=f'{name}/state',
                     XDG_CONFIG_HOME=f'{name}/config').items():
        monkeypatch.setenv(k, str(tmp_path/d))
    shutil.copytree(fixture('subagent')/'projects', tmp_path/name/'cfg'/'projects')
    return tmp_path/name/'cfg'/'projects'

def nest(projects):
    "Move the session's two agents to `workflows/run-1/` and `workflows/run-1/phase-2/`; their new paths"
    sub = next(projects.glob(f'*/{SID}/subagents'))
    a, b = sorted(AGENT.agents)
    moved = {}
    for aid, rel in ((a, 'workflows/run-1'), (b, 'workflows/run-1/phase-2')):
        (sub/rel).mkdir(parents=True, exist_ok=True)
        for ext in ('.jsonl', '.meta.json'): (sub/f'agent-{aid}{ext}').rename(sub/rel/f'agent-{aid}{ext}')
        moved[aid] = sub/rel/f'agent-{aid}.jsonl'
    (sub/'workflows'/'run-1'/'journal.jsonl').write_text('{"type":"workflow-start"}\n')  # not an agent
    return moved

COMMANDS = [('agents', SID, '--json'), ('tools', SID, '--json'), ('tools', SID, '--counts', '--json'),
            ('usage', SID, '--json'), ('find', 'readme', '--json'), ('usage', '--by', 'session', '--json'),
            ('commands', '--grep', 'ls', '--json'), ('files', SID, '--json'), ('stats', SID, '--json')]

def answers(capsys, projects):
    "What each command says, with the paths and mtimes that differ between two folders taken out"
    def scrub(o):
        if isinstance(o, dict): return {k: scrub(v) for k, v in o.items() if k not in ('path', 'mtime', 'modified')}
        if isinstance(o, list): return [scrub(v) for v in o]
        return o.replace(str(projects), '') if isinstance(o, str) else o
    res = {}
    for c in COMMANDS:
        rc, out, err = run(capsys, *c)
        res[c] = rc, scrub(json.loads(out)) if out.strip() else err
    return res

def test_nested_subagents_are_found_like_flat_ones(tmp_path, monkeypatch, capsys):
    flat = answers(capsys, scratch(tmp_path, monkeypatch, 'flat'))
    projects = scratch(tmp_path, monkeypatch, 'nested')
    moved = nest(projects)
    s = open_sess(SID)
    assert s.agents == dict(sorted(moved.items(), key=lambda kv: list(AGENT.agents).index(kv[0])))
    nested = answers(capsys, projects)
    for c in COMMANDS: assert nested[c] == flat[c], c
    assert {a['id'] for a in nested[COMMANDS[0]][1]} == set(moved)
    assert all(a['type'] == 'general-purpose' and a['description'] for a in nested[COMMANDS[0]][1])  # .meta.json read

def test_nested_subagents_as_claude_agent_sdk_lists_them(tmp_path, monkeypatch):
    from claude_agent_sdk import list_subagents
    projects = scratch(tmp_path, monkeypatch, 'nested')
    moved = nest(projects)
    sdk = list_subagents(SID)
    assert sorted(sdk) == sorted(open_sess(SID).agents) == sorted(moved)

def test_nested_subagents_no_symlinked_folder_followed(tmp_path, monkeypatch):
    projects = scratch(tmp_path, monkeypatch, 'nested')
    moved = nest(projects)
    sub = next(projects.glob(f'*/{SID}/subagents'))
    (sub/'loop').symlink_to(sub, target_is_directory=True)  # a cycle: walked into, it never ends
    (sub/'elsewhere').symlink_to(tmp_path, target_is_directory=True)
    assert sorted(open_sess(SID).agents) == sorted(moved)

def test_index_sees_a_nested_subagent_grow(tmp_path, monkeypatch, capsys):
    projects = scratch(tmp_path, monkeypatch, 'nested')
    moved = nest(projects)
    assert run(capsys, 'commands', '--grep', 'zebra', '--json')[1].strip() == '[]'  # the index is made here
    deep = moved[sorted(moved)[1]]
    last = [json.loads(l) for l in deep.read_text().splitlines() if '"assistant"' in l][-1]
    grown = dict(last, uuid='0f0f0f0f-0000-4000-8000-00000000beef', parentUuid=last['uuid'],
                 message=dict(last['message'], id='msg_grown', content=[dict(type='tool_use', id='toolu_grown',
                              name='Bash', input=dict(command='echo zebra crossing'))]))
    with open(deep, 'a') as f: f.write(json.dumps(grown) + '\n')
    rc, out, err = run(capsys, 'commands', '--grep', 'zebra', '--json')
    assert rc == 0 and [c['input']['command'] for c in json.loads(out)] == ['echo zebra crossing'], (out, err)

def test_a_fork_keeps_nested_subagents_where_they_were(tmp_path, monkeypatch):
    from llmsurgery.write import fork_sess
    projects = scratch(tmp_path, monkeypatch, 'nested')
    moved = nest(projects)
    new = open_sess(fork_sess(SID))
    sub = next(projects.glob(f'*/{SID}/subagents'))
    assert {a: p.relative_to(new.path.parent/new.sid/'subagents') for a, p in new.agents.items()} == {
        a: p.relative_to(sub) for a, p in moved.items()}
    assert all(p.with_suffix('.meta.json').is_file() for p in new.agents.values())

# ---------------------------------------------------------------------------------------------------------------------
# Agent teams, in the layout described in 04_sess (*Agent teams*): a lead, a pane teammate with a session file of its
# own (team_context attachment, teamName and agentName on its records), an in-process teammate under subagents/

LEAD, ALICE = '7ea70000-0000-4000-8000-00000000000a', '7ea70000-0000-4000-8000-0000000000a1'
BOB = 'b0b0b0b0b0b0b0b0b'
CWD = '/tmp/team-project'

def rec(kind, n, parent, content, sid, model='claude-sonnet-4-6', **kw):
    u = lambda n: f'7ea70000-0000-4000-8000-{n:012x}'
    r = dict(type=kind, uuid=u(n), parentUuid=parent and u(parent), sessionId=sid, cwd=CWD,
             timestamp=f'2026-11-30T12:00:{n % 60:02d}.000Z', isSidechain=False, **kw)
    if kind == 'assistant':
        if isinstance(content, str): content = [dict(type='text', text=content)]
        r['message'] = dict(id=f'msg_{sid[-2:]}{n}', type='message', role='assistant', model=model, content=content,
                            stop_reason='end_turn', usage=dict(input_tokens=100, output_tokens=10))
    else: r['message'] = dict(role='user', content=content)
    return r

def tool(i, tool_name, **inp): return dict(type='tool_use', id=f'toolu_team{i}', name=tool_name, input=inp)
def result(i, text): return [dict(type='tool_result', tool_use_id=f'toolu_team{i}', content=text)]

def team_tree(root, config=True):
    proj = root/'projects'/'-tmp-team-project'
    (proj/LEAD/'subagents').mkdir(parents=True)
    L = lambda *a, **k: rec(*a, LEAD, **k)
    lead = [L('user', 1, None, 'Build the parser with a team.'),
            L('assistant', 2, 1, [tool(1, 'TeamCreate', team_name='crew', description='Parser team')]),
            L('user', 3, 2, result(1, '{"team_name":"crew"}'), toolUseResult={'team_name': 'crew'}),
            L('assistant', 4, 3, [tool(2, 'Agent', team_name='crew', name='alice', description='Write the tests',
                                       prompt='Write the tests.', subagent_type='general-purpose')]),
            L('user', 5, 4, result(2, 'Spawned alice'), toolUseResult={'status': 'teammate_spawned'}),
            L('assistant', 6, 5, [tool(3, 'Agent', team_name='crew', name='bob', description='Write the parser',
                                       prompt='Write the parser.', subagent_type='general-purpose')]),
            L('user', 7, 6, result(3, 'Spawned bob'), toolUseResult={'status': 'teammate_spawned'}),
            L('user', 8, 7, '<teammate-message teammate_id="alice" color="blue" summary="tests done">'
                            'The tests pass.</teammate-message>'),
            L('assistant', 9, 8, 'Alice says the tests pass.')]
    T = dict(teamName='crew', agentName='alice')
    A = lambda *a, **k: rec(*a, ALICE, **{**T, **k})
    alice = [A('user', 20, None, '<teammate-message teammate_id="team-lead">Write the tests.</teammate-message>'),
             dict(type='attachment', uuid='7ea70000-0000-4000-8000-0000000000ff',
                  parentUuid=rec('user', 20, None, '', ALICE)['uuid'], sessionId=ALICE, isSidechain=False,
                  timestamp='2026-11-30T12:00:21.000Z',
                  attachment=dict(type='team_context', agentId='alice@crew', agentName='alice', teamName='crew')),
             A('assistant', 22, 20, [tool(20, 'Bash', command='pytest -q tests/test_parser.py')]),
             A('user', 23, 22, result(20, '3 passed'), toolUseResult={'stdout': '3 passed'}),
             A('assistant', 24, 23, 'The tests pass.')]
    bob = [rec('user', 40, None, '<teammate-message teammate_id="team-lead">Write the parser.</teammate-message>',
               LEAD),
           rec('assistant', 41, 40, [tool(40, 'Write', file_path='/tmp/team-project/parser.py', content='x = 1\n')],
               LEAD),
           rec('user', 42, 41, result(40, 'Wrote parser.py'), LEAD, toolUseResult={'type': 'create'}),
           rec('assistant', 43, 42, 'The parser is written.', LEAD)]
    for r in bob: r.update(isSidechain=True, agentId=BOB)
    def write(p, recs): p.write_text(''.join(json.dumps(r) + '\n' for r in recs))
    write(proj/f'{LEAD}.jsonl', lead)
    write(proj/f'{ALICE}.jsonl', alice)
    write(proj/LEAD/'subagents'/f'agent-{BOB}.jsonl', bob)
    (proj/LEAD/'subagents'/f'agent-{BOB}.meta.json').write_text(json.dumps(dict(
        agentType='general-purpose', name='bob', description='Write the parser', taskKind='in_process_teammate',
        teamName='crew', color='green')))
    if config:
        (root/'teams'/'crew').mkdir(parents=True)
        (root/'teams'/'crew'/'config.json').write_text(json.dumps(dict(name='crew', leadSessionId=LEAD,
            leadAgentId='team-lead@crew', members=[dict(agentId='team-lead@crew', name='team-lead'),
                                                   dict(agentId='alice@crew', name='alice', backendType='tmux')])))
    return proj

@pytest.fixture(params=[True, False], ids=['with-config', 'config-deleted'])
def team(tmp_path, monkeypatch, request):
    for k, d in dict(CLAUDE_CONFIG_DIR='cfg', XDG_CACHE_HOME='cache', XDG_STATE_HOME='state',
                     XDG_CONFIG_HOME='config').items():
        monkeypatch.setenv(k, str(tmp_path/d))
    return team_tree(tmp_path/'cfg', config=request.param)

def test_teammates_are_the_leads_agents(team, capsys):
    from llmsurgery.sess import teammate_of
    assert teammate_of(team/f'{ALICE}.jsonl') == dict(team='crew', name='alice', agent_id='alice@crew')
    assert teammate_of(team/f'{LEAD}.jsonl') is None
    assert sorted(open_sess(LEAD).agents) == sorted(['alice@crew', BOB])
    rc, out, err = run(capsys, 'agents', LEAD, '--json')
    got = {a['id']: (a['team'], a['name'], a['source'], a['tool_use_id'], a['description']) for a in json.loads(out)}
    assert got == {'alice@crew': ('crew', 'alice', 'teammate', 'toolu_team2', 'Write the tests'),
                   BOB: ('crew', 'bob', 'subagents', 'toolu_team3', 'Write the parser')}, got

def test_a_teammates_id_names_its_transcript(team, capsys):
    rc, out, err = run(capsys, 'show', 'alice@crew')  # the id `agents` prints for the pane teammate
    assert rc == 0 and 'Write the tests.' in out, err
    rc, out, err = run(capsys, 'show', 'carol@crew')
    assert rc == 1 and 'No session or agent' in err, err

def test_a_teammates_file_is_not_a_session_of_its_own(team, capsys):
    rc, out, err = run(capsys, 'ls', '--json')
    assert rc == 0 and [s['sid'] for s in json.loads(out)] == [LEAD], out
    rc, out, err = run(capsys, 'usage', '--by', 'session', '--json')
    assert rc == 0 and LEAD in out and ALICE not in out, out  # the teammate's tokens are its lead's session's

def test_teammates_traffic_stays_out_of_the_leads_conversation(team, capsys):
    from llmsurgery.thread import sess_thread
    lead = open_sess(LEAD)
    uuids = [r.get('uuid') for r in sess_thread(lead)]
    assert uuids == [r['uuid'] for r in lead.recs]  # the lead's own records, the teammate's message among them
    rc, out, err = run(capsys, 'stats', LEAD, '--json')
    assert json.loads(out)['prompts'] == 1, out  # the teammate's message is not a person's prompt
    rc, out, err = run(capsys, 'tools', LEAD, '--json')
    calls = {(c['name'], c.get('agent')) for c in json.loads(out)}
    assert ('Bash', 'alice@crew') in calls and ('Write', BOB) in calls and ('TeamCreate', None) in calls, calls
    rc, out, err = run(capsys, 'tools', LEAD, '--no-agents', '--json')
    assert {c['name'] for c in json.loads(out)} == {'TeamCreate', 'Agent'}, out

def test_two_sessions_naming_a_deleted_team_claim_no_teammate(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(tmp_path/'cfg'))
    proj = team_tree(tmp_path/'cfg', config=False)
    other = proj/'7ea70000-0000-4000-8000-0000000000b2.jsonl'
    other.write_text((proj/f'{LEAD}.jsonl').read_text().replace(LEAD, other.stem))
    assert 'alice@crew' not in open_sess(LEAD).agents
    rc, out, err = run(capsys, 'ls', '--json')
    assert ALICE in out  # its lead is not known: it stays a session

# ---------------------------------------------------------------------------------------------------------------------
# Claude Code 2.1.333: `toolResultScreened` on the main transcript's tool results, read into each call's `screened`

def test_tool_result_screened_is_read(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(tmp_path/'cfg'))
    shutil.copytree(fixture('cli-2.1.333')/'projects', tmp_path/'cfg'/'projects')
    p = next((tmp_path/'cfg'/'projects').glob('*/*.jsonl'))
    lines = p.read_text().splitlines()
    k = next(i for i, l in enumerate(lines) if '"toolResultScreened":false' in l.replace(' ', ''))
    lines[k] = json.dumps(dict(json.loads(lines[k]), toolResultScreened=True))  # as a screening plugin leaves it
    p.write_text('\n'.join(lines) + '\n')
    rc, out, err = run(capsys, 'tools', p.stem, '--json')
    got = [(c['agent'] is None, c['screened']) for c in json.loads(out)]
    main = [s for a, s in got if a]
    assert main.count(True) == 1 and set(main) == {True, False} and {s for a, s in got if not a} == {None}, got
