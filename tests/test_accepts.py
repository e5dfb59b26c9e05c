"""What the tool prints, it accepts (issue 30): the label `ls` shows names a session; one rule for "newest" in `ls`,
`show .` and `cur_sess`; `grep` reads subagents like every other command; `result` names every session holding a call;
listings print times in the local zone with its offset.
"""
import contextlib, io, json, os, re, shutil, time
import pytest
from llmsurgery.core import *
from llmsurgery.fixtures import fixture, fixture_meta
from llmsurgery.sess import Sess, ls_sess, sess_file, cur_sess, newest_key, newest
from llmsurgery import cli

def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err): rc = cli.main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()

@pytest.fixture
def cfg(tmp_path, monkeypatch):
    "A scratch config folder with the qa, compact, subagent and interactive recordings"
    for n in ('qa', 'compact', 'subagent', 'interactive'):
        shutil.copytree(fixture(n), tmp_path/'cfg', dirs_exist_ok=True)
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(tmp_path/'cfg'))
    return tmp_path/'cfg'

def test_a_session_is_named_by_the_label_ls_shows(cfg):
    rc, out, _ = run('ls')
    sub = fixture_meta('subagent').sessions[0]
    line = next(l for l in out.splitlines() if sub in l)
    label = line.split(sub, 1)[1].strip()
    assert label == 'Use an agent to list the files here.'  # no title: its first prompt
    assert sess_file(label).stem == sub and sess_file(label.upper()).stem == sub
    rc, out, err = run('show', label)
    assert rc == 0 and 'Use an agent to list the files here.' in out
    # two sessions begin with the same prompt: refused, naming both
    qa, comp = fixture_meta('qa').sessions[0], fixture_meta('compact').sessions[0]
    rc, out, err = run('show', 'What is the capital of France?')
    assert rc == 2 and qa[:13] in err and comp[:13] in err and 'What is the capital of France?' in err
    # a title wins over a first prompt
    orig = fixture_meta('interactive').sessions[0]
    assert sess_file('typo-fix').stem == orig

def test_newest_is_one_rule_for_ls_dot_and_cur_sess(cfg):
    # a copied archive: the files' times are those of the copy (after every record), in the wrong order
    meta = fixture_meta('interactive')
    orig, branch = meta.sessions
    po, pb = sess_file(orig), sess_file(branch)
    proj = po.parent
    shutil.copy(pb, proj/pb.name)  # both in one project folder, the branch's records the newer
    now = time.time()
    os.utime(proj/pb.name, (now - 10, now - 10)); os.utime(po, (now, now))
    assert Sess(proj/pb.name).last_active > Sess(po).last_active
    first = ls_sess(meta.cwd)[0]
    assert first.sid == branch == cur_sess(meta.cwd) == sess_file('.', meta.cwd).stem
    assert max(ls_sess(meta.cwd), key=newest_key).sid == branch == newest([po, proj/pb.name]).stem
    # a file last written before the best one's last record is not read at all (here: one that is not there)
    assert newest([po, proj/pb.name, proj/'missing.jsonl']).stem == branch

@pytest.mark.cli
def test_the_cli_continue_takes_the_newest_file_time(tmp_path):
    # what Claude Code's own --continue does, measured: the newest mtime, whatever the records say (so after a copy
    # that lost the files' times it takes another session than `ls` and `.`, which follow the records)
    from llmsurgery.claude import run_claude, LoopbackAPI
    cfg = tmp_path/'cfg'
    shutil.copytree(fixture('forked'), cfg)
    meta = fixture_meta('forked')
    a, b = meta.sessions  # b, the fork, has the newer records
    pa, pb = (next(cfg.glob(f'projects/*/{s}.jsonl')) for s in (a, b))
    now = time.time()
    os.utime(pa, (now, now)); os.utime(pb, (now - 3600, now - 3600))
    cwd = tmp_path/'work'
    cwd.mkdir()
    dest = cfg/'projects'/proj_slug(resolve_cwd(cwd))
    dest.mkdir()
    for p in (pa, pb): shutil.move(p, dest/p.name)
    pa, pb = dest/pa.name, dest/pb.name
    sizes = {p: p.stat().st_size for p in (pa, pb)}
    with LoopbackAPI() as api: run_claude('Which one?', cwd, cfg, api, cont=True)
    assert (pa.stat().st_size != sizes[pa], pb.stat().st_size != sizes[pb]) == (True, False)

def test_grep_reads_subagents_unless_told_not_to(cfg):
    sub = fixture_meta('subagent').sessions[0]
    rc, out, _ = run('grep', 'Hello from the readme', sub)
    assert rc == 0 and re.search(r'^a[0-9a-f]{16} ', out, re.M)  # a hit in a subagent's transcript, by its id
    rc, out, _ = run('grep', 'Hello from the readme', sub, '--no-agents')
    assert not re.search(r'^a[0-9a-f]{16} ', out, re.M)
    rc, out, _ = run('grep', '--json', 'Hello from the readme', sub)
    hits = json.loads(out)
    assert None in {h['agent'] for h in hits} and len({h['agent'] for h in hits} - {None}) == 1  # the one that read it
    assert run('grep', 'words nobody wrote 8f3a', sub)[0] == 1

def test_result_names_every_session_holding_the_call(cfg):
    orig, branch = fixture_meta('interactive').sessions
    tid = next(b['id'] for r in Sess(sess_file(orig)).recs if r.get('type') == 'assistant'
               for b in r['message']['content'] if b.get('type') == 'tool_use' and b.get('name') == 'Bash')
    rc, out, _ = run('result', tid, '--no-index')
    assert rc == 0 and f'in {orig}' in out.splitlines()[0] and branch in out.splitlines()[1]

def test_listings_print_times_with_their_offset(cfg):
    stamp = r'\d{4}-\d\d-\d\d \d\d:\d\d[+-]\d\d:\d\d'
    for argv in (['ls'], ['find', 'capital of'], ['grep', 'capital', fixture_meta('qa').sessions[0]]):
        rc, out, _ = run(*argv)
        assert rc == 0 and re.search(stamp, out), (argv, out[:300])
