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
