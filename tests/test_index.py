"""The archive index gives every cross-session question exactly the scan's answer, on a generated archive in the real
format"""
import json, os, subprocess, sys
from pathlib import Path
import pytest
sys.path.insert(0, str(Path(__file__).parent.parent/'bench'))
from benchlib import PHRASE, grow
from llmsurgery.show import to_data
from llmsurgery.sess import transcripts
from llmsurgery.search import find_sess
from llmsurgery.forensics import find_edits, find_commands, find_errors
from llmsurgery.usage import find_usage
from llmsurgery.archive_index import ArchiveIndex

QUESTIONS = [(find_sess, PHRASE), (find_sess, '(?i)TODO list'), (find_sess, r'notes\.txt', dict(role='tool')),
             (find_sess, 'Paris', dict(tool='Read', project='proj1')), (find_sess, r'\d{4}', dict(limit=3)),
             (find_sess, 'readme', dict(agents=False)), (find_sess, 'capital of', dict(since='2026-11-01')),
             (find_edits, '/home/me/proj2/tools/notes.txt'), (find_edits, 'notes.txt'), (find_edits, 'todo.md'),
             (find_commands, r'^ls\b'), (find_commands, 'missing'), (find_errors,), (find_errors, 'Read'),
             (find_usage, 'day'), (find_usage, 'project'), (find_usage, 'session'), (find_usage, 'model'),
             (find_usage, 'day', dict(utc=True, since='2026-06-01'))]

def ask(ix, f, *args):
    kw = args[-1] if args and isinstance(args[-1], dict) else {}
    args = args[:-1] if kw else args
    return to_data(f(*args, index=ix, **kw)), to_data(f(*args, **kw))

def test_same_answers(archive):
    ix = ArchiveIndex()
    done = ix.update()
    assert done.bytes == sum(p.stat().st_size for _, _, p in transcripts(warmups=True))
    for f, *args in QUESTIONS:
        got, want = ask(ix, f, *args)
        assert got == want, (f.__name__, args)
    assert len(find_sess(PHRASE, index=ix)) == 1

def test_growth_reads_only_new_bytes(archive):
    ix = ArchiveIndex()
    ix.update()
    s = max((p for p in archive.glob('projects/*/*.jsonl')), key=lambda p: p.stat().st_size)
    before = s.stat().st_size
    grow(s, 0.5, where='/home/me/proj9/', day='2026-12-01', rare_at=0.5)
    done = ix.update()
    assert (done.files, done.indexed, done.bytes) == (1, 1, s.stat().st_size - before)  # only it was looked at
    assert sum(m.nhits for m in find_sess(PHRASE, index=ix)) == 2
    for f, *args in QUESTIONS:
        got, want = ask(ix, f, *args)
        assert got == want, (f.__name__, args)

def test_two_updaters_read_each_byte_once(archive, tmp_path):
    code = ('import json; from llmsurgery.archive_index import ArchiveIndex; '
            'print(json.dumps(dict(ArchiveIndex().update())))')
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    procs = [subprocess.Popen([sys.executable, '-c', code], env=env, stdout=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [json.loads(p.communicate(timeout=300)[0]) for p in procs]
    assert sum(o['bytes'] for o in outs) == sum(p.stat().st_size for _, _, p in transcripts(warmups=True))
    assert sorted(o['indexed'] for o in outs)[0] == 0

def test_usage_rows_however_counted(archive, tmp_path):
    "Priced as counted (`update(price=True)`) or later (`price`), from the records just read or read back: one table"
    rows = lambda ix: ix.con.execute('SELECT file, n, key, ts, minute, sess, model, input, output, cache_write, '
                                     'cache_read, cost, priced, usage FROM usage ORDER BY file, n').fetchall()
    now, later = ArchiveIndex(path=tmp_path/'now.sqlite'), ArchiveIndex(path=tmp_path/'later.sqlite')
    now.update(price=True)
    later.update()
    assert {r[-2] for r in rows(later)} == {0}  # nothing priced yet
    later.price()
    assert rows(now) == rows(later)
    assert sum(r[-3] or 0 for r in rows(now)) > 0 and {r[-2] for r in rows(now)} == {1}
    later.con.execute('BEGIN')
    for (fid,) in later.con.execute('SELECT id FROM files').fetchall(): later._count_usage(fid)  # read from `msgs`
    later.con.execute('COMMIT')
    assert rows(now) == rows(later)

def test_lone_surrogates_are_indexed(tmp_path, monkeypatch):
    "Text cut mid-emoji (a lone surrogate escape, which Claude Code writes) in a prompt, a command and a result"
    for k, d in dict(CLAUDE_CONFIG_DIR='cfg', XDG_CACHE_HOME='cache', XDG_STATE_HOME='state').items():
        monkeypatch.setenv(k, str(tmp_path/d))
    sid, cut = '5e550000-0000-4000-8000-000000000001', 'cut \\ud83d here'
    lines = [f'{{"type":"user","uuid":"a","parentUuid":null,"sessionId":"{sid}","timestamp":"2026-11-30T10:00:00Z",'
             f'"message":{{"role":"user","content":"prompt {cut}"}}}}',
             f'{{"type":"assistant","uuid":"b","parentUuid":"a","sessionId":"{sid}","timestamp":"2026-11-30T10:00:01Z",'
             f'"message":{{"role":"assistant","id":"m1","model":"claude-sonnet-4-6","content":[{{"type":"tool_use",'
             f'"id":"t1","name":"Bash","input":{{"command":"echo {cut}"}}}}],"usage":{{"input_tokens":3,'
             f'"output_tokens":2}}}}}}',
             f'{{"type":"user","uuid":"c","parentUuid":"b","sessionId":"{sid}","timestamp":"2026-11-30T10:00:02Z",'
             f'"message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":"{cut}",'
             f'"is_error":true}}]}}}}']
    d = tmp_path/'cfg'/'projects'/'-tmp-cut'
    d.mkdir(parents=True)
    (d/f'{sid}.jsonl').write_text('\n'.join(lines) + '\n')
    ix = ArchiveIndex()
    ix.update()
    for f, *args in [(find_sess, 'cut'), (find_sess, 'here'), (find_commands, 'echo'), (find_errors,),
                     (find_usage, 'day')]:
        got, want = ask(ix, f, *args)
        assert got == want and want, (f.__name__, got, want)
    (d/f'{sid}.jsonl').write_text('\n'.join(lines).replace('"t1"', f'"t1 {cut}"') + '\n')  # an id too, however odd
    assert len(find_commands('echo')) == 1 and len(find_errors()) == 1  # the scan's needles hold the id

def test_walk_reuses_a_listing_only_once_its_folder_settled(tmp_path):
    "A folder's listing is reused while its stat holds, but not when it changed within `SETTLED` of being listed"
    from llmsurgery.archive_index import SETTLED
    sid = '5e550000-0000-4000-8000-000000000002'
    sub = tmp_path/'cfg'/'projects'/'-tmp-p'/sid/'subagents'
    sub.mkdir(parents=True)
    (sub.parent.parent/f'{sid}.jsonl').write_text('{}\n')
    (sub/'agent-a1.jsonl').write_text('{}\n')
    ix = ArchiveIndex(tmp_path/'cfg', tmp_path/'ix.sqlite')
    walk, dirs = ix._walk()
    assert str(sub/'agent-a1.jsonl') in walk and ix._walk(dirs)[0] == walk
    (sub/'agent-a2.jsonl').write_text('{}\n')  # the folder's mtime moves: listed again
    assert str(sub/'agent-a2.jsonl') in ix._walk(dirs)[0]
    walk, dirs = ix._walk()
    racy = {d: [k, t, [f for f in fs if f != 'agent-a2.jsonl'], s] for d, (k, t, fs, s) in dirs.items()}
    assert str(sub/'agent-a2.jsonl') in ix._walk(racy)[0]  # listed just after it changed: not trusted
    old = {d: [k, t + SETTLED + 1, fs, s] for d, (k, t, fs, s) in racy.items()}
    assert str(sub/'agent-a2.jsonl') not in ix._walk(old)[0]  # settled: trusted (so it is what saves the listing)
    (sub/'agent-a2.jsonl').write_text('{}\n{}\n')
    assert ix.update().indexed == 3 and not ix.stale()
    with open(sub/'agent-a1.jsonl', 'a') as f: f.write('{}\n')  # an append moves no folder's stat
    assert ix.stale() and ix.update().indexed == 1 and not ix.stale()

def test_label_kept_in_the_index_follows_the_file(tmp_path, monkeypatch):
    "`find_sess` from the index labels a session as the scan does, without reading it, also after it changed"
    for k, d in dict(CLAUDE_CONFIG_DIR='cfg', XDG_CACHE_HOME='cache').items(): monkeypatch.setenv(k, str(tmp_path/d))
    sid = '5e550000-0000-4000-8000-000000000003'
    p = tmp_path/'cfg'/'projects'/'-tmp-l'/f'{sid}.jsonl'
    p.parent.mkdir(parents=True)
    p.write_text(f'{{"type":"user","uuid":"a","parentUuid":null,"sessionId":"{sid}","timestamp":"2026-11-30T10:00:00Z",'
                 '"message":{"role":"user","content":"where is the walrus"}}\n')
    ix = ArchiveIndex()
    ix.update()
    assert ix.label(p) == 'where is the walrus' and ix.label(tmp_path/'nowhere.jsonl') is None
    with open(p, 'a') as f: f.write(f'{{"type":"custom-title","customTitle":"Walrus hunt","sessionId":"{sid}"}}\n')
    got, want = ask(ix, find_sess, 'walrus')
    assert got == want and got[0]['label'] == 'Walrus hunt' == ix.label(p)

def test_what_another_updater_wrote_is_read_again(tmp_path):
    "An index keeps what it read of `meta` only while no other connection wrote: it sees another process's update"
    p = tmp_path/'cfg'/'projects'/'-tmp-m'/'5e550000-0000-4000-8000-000000000004.jsonl'
    p.parent.mkdir(parents=True)
    p.write_text('{}\n')
    a, b = (ArchiveIndex(tmp_path/'cfg', tmp_path/'ix.sqlite') for _ in range(2))
    a.update()
    assert not b.stale()
    with open(p, 'a') as f: f.write('{}\n')
    assert b.stale() and a.update().indexed == 1
    assert not b.stale() and b.update().indexed == 0  # a's walk and listings, read again
