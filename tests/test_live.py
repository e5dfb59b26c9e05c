"""llmsurgery called from inside a live Claude Code session: what `.` and `cur_sess` name there.

The real CLI runs offline against the scripted fake API. Each scripted turn makes it run a Bash command that asks
llmsurgery (this checkout's, through the venv's python) for the current session, so the answer comes from inside the
session exactly as it would when Claude runs `llmsurgery` on itself. No tokens, loopback only.
"""
import json, os, re, sys, time
from pathlib import Path
import pytest
from llmsurgery.core import sess_dir
from llmsurgery.claude import run_claude
from llmsurgery.fakeapi import FakeAPI, text_block, tool_use_block, route
from llmsurgery.rec import result_txt

pytestmark = pytest.mark.cli  # every test runs the real CLI

PY = sys.executable
LLMS = str(Path(sys.executable).parent/'llmsurgery')

def probe(tag, pre=''):
    "A Bash call printing `cur_sess()` and the prompts `llmsurgery prompts .` lists, from inside the session"
    cmd = (f'{pre}{PY} -c "from llmsurgery.sess import cur_sess; print(\'{tag}=\' + cur_sess())" && '
           f'{LLMS} prompts . --json')
    return tool_use_block('Bash', {'command': cmd, 'description': 'who am I'})

def answers(api, tag):
    "What the probe tagged `tag` printed: the current session's id, and the prompts of `.`"
    for q in api.reqs:
        for m in q['messages']:
            for b in m['content'] if isinstance(m['content'], list) else []:
                out = result_txt(b.get('content')) if b.get('type') == 'tool_result' else ''
                if (m2 := re.search(rf'{tag}=([0-9a-f-]{{36}})\n(.*?)(?:\n\n<system-reminder>|$)', out, re.S)):
                    return m2[1], [p['text'] for p in json.loads(m2[2])]
    raise AssertionError(f'the probe {tag!r} printed nothing')

@pytest.fixture(scope='module')
def live(tmp_path_factory):
    "One project, one config folder and one fake API for a sequence of real CLI runs"
    root = tmp_path_factory.mktemp('live')
    cwd, cfg = root/'proj', root/'cfg'
    (cwd/'sub').mkdir(parents=True)
    api = FakeAPI(timeout=600)
    yield cwd, cfg, api, {}
    api.close()

def run(live, prompt, turns, **kw):
    cwd, cfg, api, _ = live
    api.turns += turns
    return run_claude(prompt, cwd, cfg, api, tools='Bash,Agent', **kw)['session_id']

def other_session(cfg, folder, sid, text):
    "An older transcript of another session in project `folder`, for the probes to ignore"
    d = cfg/'projects'/sess_dir(folder).name
    d.mkdir(parents=True, exist_ok=True)
    p = d/f'{sid}.jsonl'
    p.write_text(json.dumps(dict(type='user', uuid='o1', parentUuid=None, sessionId=sid, cwd=str(folder),
                                 timestamp='2026-01-01T00:00:00.000Z', message=dict(role='user', content=text))) + '\n')
    os.utime(p, (time.time() - 3600,)*2)
    return p

def test_first_run_and_another_session_writing(live):
    cwd, cfg, api, seen = live
    os.environ['CLAUDE_CONFIG_DIR'] = str(cfg)  # for `sess_dir` here; the CLI gets its own environment
    try: other = other_session(cfg, cwd, '00000000-0000-4000-8000-00000000000a', 'not me')
    finally: del os.environ['CLAUDE_CONFIG_DIR']
    # the other session is written while the tool runs (its mtime becomes the newest): the live one still wins
    sid = run(live, 'Who am I?', [[probe('first', pre=f'touch {other} && ')], [text_block('ok')]])
    assert answers(api, 'first') == (sid, ['Who am I?'])
    seen['sid'] = sid

def test_resumed(live):
    sid = live[3]['sid']
    assert run(live, 'Resumed: who am I?', [[probe('resumed')], [text_block('ok')]], resume=sid) == sid
    assert answers(live[2], 'resumed') == (sid, ['Who am I?', 'Resumed: who am I?'])

def test_continued(live):
    sid = live[3]['sid']
    assert run(live, 'Continued: who am I?', [[probe('continued')], [text_block('ok')]], cont=True) == sid
    assert answers(live[2], 'continued') == (sid, ['Who am I?', 'Resumed: who am I?', 'Continued: who am I?'])

def test_forked(live):
    sid = live[3]['sid']
    fork = run(live, 'Forked: who am I?', [[probe('forked')], [text_block('ok')]], resume=sid, fork=True)
    assert fork != sid
    assert answers(live[2], 'forked') == (fork, ['Who am I?', 'Resumed: who am I?', 'Continued: who am I?',
                                                 'Forked: who am I?'])

def test_cd_into_a_folder_with_its_own_session(live):
    cwd, cfg, api, seen = live
    sid = live[3]['sid']
    os.environ['CLAUDE_CONFIG_DIR'] = str(cfg)
    try: other_session(cfg, cwd/'sub', '00000000-0000-4000-8000-00000000000b', 'the sub folder')
    finally: del os.environ['CLAUDE_CONFIG_DIR']
    run(live, 'cd, then who am I?', [[probe('cd', pre='cd sub && ')], [text_block('ok')]], resume=sid)
    assert answers(api, 'cd')[0] == sid
    assert answers(api, 'cd')[1][-1] == 'cd, then who am I?'

def test_inside_a_subagent(live):
    "A subagent's Bash call runs in the parent's session: `.` is the parent session"
    sid = live[3]['sid']
    agent = tool_use_block('Agent', {'description': 'Probe', 'prompt': 'Run the probe.',
                                     'subagent_type': 'general-purpose', 'run_in_background': False})
    run(live, 'Ask an agent who we are.', route(main=[[agent], [text_block('done')]],
                                               sub=[[probe('subagent')], [text_block('reported')]]), resume=sid)
    got_sid, prompts = answers(live[2], 'subagent')
    assert got_sid == sid and prompts[-1] == 'Ask an agent who we are.'

def test_the_skill_is_offered_and_followed(live):
    """Installed, the skill is listed to the model; a turn that loads it and runs the command it names for typed
    prompts gets the live session's prompts"""
    from llmsurgery.core import config_dir
    from llmsurgery.skill import install_skill
    cwd, cfg, api, seen = live
    with config_dir(cfg): install_skill(cmd=LLMS)
    def follow(req):
        "Run the command the loaded skill gives for typed prompts"
        body = next(b['text'] for m in req['messages'] if isinstance(m['content'], list) for b in m['content']
                    if b.get('type') == 'text'
                    and 'Inspecting Claude Code sessions with llmsurgery' in b.get('text', ''))
        cmd = re.search(r'`([^`]*\bprompts \. --json)`', body)[1]
        return [tool_use_block('Bash', {'command': f'echo skill=$CLAUDE_CODE_SESSION_ID && {cmd}',
                                        'description': 'prompts'})]
    n = len(api.reqs)
    api.turns += [[tool_use_block('Skill', {'skill': 'llmsurgery'})], follow, [text_block('ok')]]
    sid = run_claude('What have I typed in this session?', cwd, cfg, api, tools='Bash,Skill',
                     resume=seen['sid'])['session_id']
    listing = json.dumps(api.reqs[n]['messages'])
    assert ('The following skills are available' in listing
            and '- llmsurgery: Answer questions about Claude Code' in listing)
    got_sid, prompts = answers(api, 'skill')
    assert (got_sid == sid == seen['sid'] and prompts[0] == 'Who am I?'
            and prompts[-1] == 'What have I typed in this session?')

def test_every_command_the_skill_names_parses():
    "The skill's commands are valid for this llmsurgery: a renamed command or option fails here"
    from llmsurgery.skill import skill_md
    from llmsurgery.cli import cli_parser
    cmds = [c for c in re.findall(r'`llmsurgery ([^`]+)`', skill_md('llmsurgery')) if not c.startswith('COMMAND')]
    assert len(cmds) > 10
    for c in cmds: cli_parser().parse_args(c.replace("'(?i)the phrase'", 'phrase').split())
