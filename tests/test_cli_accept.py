"What the command line prints, it accepts (issue 21): agent ids, grep's idx, tool ids anywhere, and clear refusals"
import io, json, os, shutil, time
from contextlib import redirect_stdout, redirect_stderr
from pathlib import Path
import pytest
from llmsurgery.core import config_dir
from llmsurgery.cli import main
from llmsurgery.fixtures import fixture, fixture_sess
from llmsurgery.write import fork_sess

SUB, TOOLS = fixture_sess('subagent'), fixture_sess('tools')
AGENTS = list(SUB.agents)  # ['ae8f169fd13a3e1b2', 'a055561868d522652']

def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err): rc = main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()

@pytest.fixture(scope='module')
def cfg(tmp_path_factory):
    "Every fixture's projects in one config folder, the index's cache beside it, and a neutral current directory"
    root = tmp_path_factory.mktemp('accept')
    for d in sorted(fixture('qa').parent.glob('*/projects/*')): shutil.copytree(d, root/'cfg'/'projects'/d.name)
    keys = ('CLAUDE_CONFIG_DIR', 'XDG_CACHE_HOME', 'CLAUDE_CODE_SESSION_ID')
    old, cwd = {k: os.environ.get(k) for k in keys}, os.getcwd()
    os.environ.update(CLAUDE_CONFIG_DIR=str(root/'cfg'), XDG_CACHE_HOME=str(root/'cache'))
    os.environ.pop('CLAUDE_CODE_SESSION_ID', None)
    (root/'elsewhere').mkdir()
    os.chdir(root/'elsewhere')  # no project here: nothing may lean on the current one
    yield root/'cfg'
    os.chdir(cwd)
    for k, v in old.items():
        if v is None: os.environ.pop(k, None)
        else: os.environ[k] = v

def proj_of(cfg, s): return cfg/'projects'/s.project

# --- agent ids and grep's idx ---

def test_show_agent_id(cfg):
    for name in (AGENTS[1], 'agent-' + AGENTS[1], AGENTS[1][:8]):
        rc, out, err = run('show', name)
        assert rc == 0, err
        assert out.startswith(f'--- user ({AGENTS[1]})') and 'Read readme.md and report what it says.' in out
    rc, out, err = run('stats', AGENTS[0])
    assert rc == 0 and f'agent        {AGENTS[0]}' in out and 'tools        Bash 1' in out
    rc, out, _ = run('tools', AGENTS[0])
    assert rc == 0 and 'Bash' in out and f'Tool calls of agent {AGENTS[0]} of {SUB.sid}' in out
    rc, out, _ = run('grep', 'readme', AGENTS[1], '--json')
    assert rc == 0 and [h['idx'] for h in json.loads(out)] == [0, 10, 11, 17]

def test_agent_id_nested_and_ambiguous(cfg):
    "An agent at any depth below subagents/ (the Workflow tool's layout); a start shared by two agents is refused"
    run_dir = proj_of(cfg, SUB)/SUB.sid/'subagents'/'workflows'/'run-1'
    run_dir.mkdir(parents=True)
    try:
        for aid in ('af00dd0000000001', 'af00dd0000000002'):
            recs = [json.loads(l) for l in SUB.agents[AGENTS[0]].read_text().splitlines()]
            for r in recs: r['agentId'] = aid
            (run_dir/f'agent-{aid}.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in recs))
        rc, out, err = run('show', 'af00dd0000000002')
        assert rc == 0 and '--- user (af00dd0000000002)' in out, err
        rc, out, err = run('show', 'af00dd00')
        assert rc == 2 and "'af00dd00' is the start of 2 agent ids" in err
        rc, out, err = run('show', 'af00dd00', '--json')
        assert rc == 2 and json.loads(err)['status'] == 2 and 'agent ids' in json.loads(err)['error']
    finally: shutil.rmtree(proj_of(cfg, SUB)/SUB.sid/'subagents'/'workflows')

def test_show_agent_option_and_idx(cfg):
    rc, out, err = run('show', SUB.sid[:8], '--agent', AGENTS[1][:5])
    assert rc == 0 and out.startswith(f'--- user ({AGENTS[1]})'), err
    rc, out, err = run('show', SUB.sid[:8], '--agent', 'zz')
    assert rc == 1 and 'has no subagent' in err and AGENTS[0] in err
    rc, out, _ = run('grep', 'in the background', SUB.sid[:8], '--json')
    idx = json.loads(out)[0]['idx']
    rc, out, err = run('show', SUB.sid[:8], '--at', idx)
    assert rc == 0 and out.startswith(f'--- [{idx}] user') and 'Now have an agent read readme.md' in out, err
    rc, out, _ = run('show', SUB.sid[:8], '--from', idx, '--to', idx + 5)
    assert rc == 0 and f'[{idx}] user' in out and '→ Agent: Read readme' in out
    assert all(idx <= int(h.split(']')[0].split('[')[1]) <= idx + 5 for h in out.splitlines() if h.startswith('--- ['))
    rc, out, _ = run('show', SUB.sid[:8], '--at', idx, '--json')
    assert rc == 0 and len(json.loads(out)) == 1 and json.loads(out)[0]['type'] == 'user'
    rc, out, err = run('show', SUB.sid[:8], '--at', 9999)
    assert rc == 2 and 'no record 9999' in err
    rc, out, err = run('show', SUB.sid[:8], '--at', -1)
    assert rc == 2 and 'not a record index' in err

# --- tool ids anywhere ---

def test_result_anywhere(cfg):
    "From a directory with no project, a tool id (or a start of it) of any session or subagent"
    bad = run('errors', TOOLS.sid, '--json')[1]
    tid = json.loads(bad)[0]['id']
    rc, out, err = run('result', tid[:16])
    assert rc == 0 and out.startswith(f'Bash {tid} in {TOOLS.sid}') and 'missing-dir' in out, err
    atid = next(c for c in json.loads(run('tools', SUB.sid, '--json')[1]) if c['agent'] == AGENTS[1])['id']
    rc, out, err = run('result', atid, '--json')
    assert rc == 0 and json.loads(out)['agent'] == AGENTS[1] and json.loads(out)['sid'] == SUB.sid, err
    rc, out, err = run('result', 'toolu_0')
    assert rc == 2 and 'starts' in err
    assert run('result', 'toolu_nope')[0] != 0
    assert run('index')[0] == 0  # the index answers the same
    try:
        rc, out, err = run('result', tid[:16])
        assert rc == 0 and out.startswith(f'Bash {tid} in {TOOLS.sid}'), err
    finally: run('index', '--drop')

def test_result_of_a_fork(cfg):
    "A fork holds copies of its original's calls under the same ids: the original's is found, the copies named"
    tid = json.loads(run('tools', TOOLS.sid, '--json')[1])[0]['id']
    new = fork_sess(TOOLS.sid, key='accept')
    try:
        rc, out, err = run('result', tid, '--json')
        assert rc == 0, err
        assert json.loads(out)['sid'] == TOOLS.sid and json.loads(out)['copies'] == [new]
    finally: (proj_of(cfg, TOOLS)/f'{new}.jsonl').unlink()

# --- what the tables show ---

def test_tools_table_has_ids(cfg):
    rc, out, _ = run('tools', TOOLS.sid)
    ids = [c['id'] for c in json.loads(run('tools', TOOLS.sid, '--json')[1])]
    assert rc == 0 and out.splitlines()[1].split()[:4] == ['idx', 'time', 'id', 'name']
    assert all(i in out for i in ids)

def test_ls_time_groups_and_forks(cfg):
    "`ls` shows when each session last ran (not the file's mtime), each project once, and marks forks"
    qa = fixture_sess('qa')
    p = proj_of(cfg, qa)/f'{qa.sid}.jsonl'
    os.utime(p, (time.time(), time.time()))  # a copy or a backup restore moves the mtime: the listing must not
    rc, out, _ = run('ls')
    line = next(l for l in out.splitlines() if qa.sid in l)
    assert rc == 0 and "(time: a session's last record)" in out.splitlines()[0]
    assert line.split()[:2] == ['2026-11-30', '11:26+00:00'] or line.split()[1].startswith('11:')
    # two projects whose sessions ran interleaved: each header once
    tw = proj_of(cfg, TOOLS)/f'{TOOLS.sid}.jsonl'
    twin = cfg/'projects'/'-tmp-twin'
    twin.mkdir()
    try:
        recs = [json.loads(l) for l in tw.read_text().splitlines()]
        for n, ts in (('aaaaaaaa-0000-4000-8000-000000000001', '2026-11-30T11:26:40.000Z'),
                      ('aaaaaaaa-0000-4000-8000-000000000002', '2026-11-30T11:26:20.000Z')):
            for r in recs:
                r.update(sessionId=n, cwd='/tmp/twin')
                if 'timestamp' in r: r['timestamp'] = ts
            (twin/f'{n}.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in recs))
        m = tw.stat().st_mtime  # restored from a backup: one twin's file as old as the tools session's, one older
        os.utime(twin/'aaaaaaaa-0000-4000-8000-000000000001.jsonl', (m, m))
        os.utime(twin/'aaaaaaaa-0000-4000-8000-000000000002.jsonl', (m - 100, m - 100))
        out = run('ls')[1]
        heads = [l for l in out.splitlines() if l and not l.startswith(' ')][1:]
        assert len(heads) == len(set(heads)), heads
    finally: shutil.rmtree(twin)
    forked = fixture_sess('forked', 1)
    out = run('ls')[1]
    fline = next(l for l in out.splitlines() if forked.sid in l)
    src = fixture_sess('forked', 0).sid
    assert f'[fork of {src[:8]}]' in fline
    data = {d['sid']: d for d in json.loads(run('ls', '--json')[1])}
    assert data[forked.sid]['fork_of'] == src and data[src]['fork_of'] is None
    assert data[qa.sid]['ended'].startswith('2026-11-30T11:26')

# --- refusals ---

def test_unknown_values_refused(cfg):
    rc, out, err = run('grep', 'x', TOOLS.sid, '--role', 'bot')
    assert rc == 2 and "invalid choice: 'bot'" in err and 'assistant' in err
    rc, out, err = run('grep', 'ls', TOOLS.sid, '--tool', 'bash')
    assert rc == 2 and "did you mean 'Bash'" in err and 'Bash, Edit, Read, Write' in err
    rc, out, err = run('grep', 'zzz', TOOLS.sid, '--tool', 'Bash')
    assert rc == 1  # a tool the session used, with no match: an answer, not an error
    rc, out, err = run('find', 'ls', '--tool', 'Bsh')
    assert rc == 2 and 'no call of a tool named' in err
    rc, out, err = run('tools', TOOLS.sid, '--name', 'Nope')
    assert rc == 2 and 'its tools: Bash, Edit, Read, Write' in err
    rc, out, err = run('usage', '--by', 'week', '--json')
    assert rc == 2 and out == '' and json.loads(err) == dict(
        error="argument --by: invalid choice: 'week' (choose from 'day', 'project', 'session', 'model')",
        status=2, command='usage')

def test_config_dir_missing(cfg, tmp_path):
    with config_dir(tmp_path/'nope'):
        for argv in (['ls'], ['show', TOOLS.sid], ['find', 'x'], ['usage', '--by', 'day']):
            rc, out, err = run(*argv)
            assert rc == 2 and f'CLAUDE_CONFIG_DIR={tmp_path}/nope does not exist' in err, (argv, err)
        rc, out, err = run('ls', '--json')
        assert rc == 2 and 'does not exist' in json.loads(err)['error']
    old, home = os.environ.pop('CLAUDE_CONFIG_DIR'), os.environ['HOME']
    os.environ['HOME'] = str(tmp_path/'fresh')  # a fresh machine: no ~/.claude, no variable
    try:
        rc, out, err = run('ls')
        assert rc == 0 and 'Here is the sample session' in out, err
    finally: os.environ.update(CLAUDE_CONFIG_DIR=old, HOME=home)

def test_not_a_transcript(cfg):
    req = fixture('qa')/'requests.jsonl'
    for cmd in ('stats', 'show', 'tools'):
        rc, out, err = run(cmd, req)
        assert rc == 2 and 'not a Claude Code transcript' in err, (cmd, err)
    rc, out, err = run('stats', req, '--json')
    assert rc == 2 and 'not a Claude Code transcript' in json.loads(err)['error']

def test_session_and_agent_prefix_ambiguous(cfg):
    "A start shared by a session id and an agent id names neither; the full agent id (any case) still names the agent"
    qa = fixture_sess('qa')
    twin = proj_of(cfg, qa)/f'{AGENTS[1][:8]}-0000-4000-8000-000000000000.jsonl'
    shutil.copy(qa.path, twin)
    try:
        rc, out, err = run('show', AGENTS[1][:8])
        assert rc == 2 and 'is the start of 1 session ids' in err and f'1 agent ids ({AGENTS[1]})' in err
        rc, out, err = run('show', AGENTS[1].upper())
        assert rc == 0 and out.startswith(f'--- user ({AGENTS[1]})'), err
        rc, out, err = run('show', twin.stem[:13])
        assert rc == 0 and 'What is the capital of France?' in out, err
    finally: twin.unlink()

def test_json_warnings_and_errors(cfg, tmp_path):
    "Under --json, stderr is JSON lines: a warning per line, then the error"
    bad = tmp_path/'bad.jsonl'
    bad.write_bytes(TOOLS.path.read_bytes() + b'not json\n' + b'{"type": "user", "uuid": "z"}\n')
    rc, out, err = run('prompts', bad, '--json')
    assert rc == 0 and [list(json.loads(l)) for l in err.splitlines()] == [['warning']]
    rc, out, err = run('show', bad, '--json')
    assert rc == 2 and json.loads(err)['error'].endswith('pass --skip-bad to skip such lines')
