"""Each rule of `sess_thread`, checked against the real Claude Code CLI.

Every case is a handmade transcript that isolates one rule. `resume_check` resumes a scratch copy of it with the real
`claude` binary (bundled in claude-agent-sdk) against the fake API on loopback, and we compare the conversation the
CLI sent with the one `sess_thread` rebuilds. No tokens, no network beyond 127.0.0.1.
"""
import json, uuid
import pytest
from llmsurgery.core import *
from llmsurgery.rec import *
from llmsurgery.thread import *
from llmsurgery.resume import resume_check

SID = '5e55a0c1-0000-4000-8000-000000000001'

def u(n): return str(uuid.UUID(int=n))

def user(n, parent, content, **kw):
    return dict(type='user', uuid=u(n), parentUuid=parent and u(parent), sessionId=SID,
                timestamp=f'2026-11-30T10:00:{n:02d}.000Z', message=dict(role='user', content=content), **kw)

def asst(n, parent, content, mid=None, **kw):
    if isinstance(content, str): content = [dict(type='text', text=content)]
    return dict(type='assistant', uuid=u(n), parentUuid=parent and u(parent), sessionId=SID,
                timestamp=f'2026-11-30T10:00:{n:02d}.000Z',
                message=dict(id=mid or f'msg_{n:04d}', type='message', role='assistant', model='claude-sonnet-4-6',
                             content=content, stop_reason='end_turn', usage=dict(input_tokens=1, output_tokens=1)), **kw)

def check(tmp_path, recs, expected_texts):
    "The real CLI resumes `recs` as `sess_thread` rebuilds them, and that conversation is the one the rule says"
    p = tmp_path/f'{SID}.jsonl'
    p.write_text(''.join(json.dumps(r)+'\n' for r in recs))
    ours = sent_msgs(api_msgs(sess_thread([Rec(r) for r in recs])))
    assert sent_msgs(resume_check(path=p).conv) == ours
    assert [block_txt(b) for m in ours for b in m['content']] == expected_texts

def test_plain_chain(tmp_path):
    check(tmp_path, [user(1, None, 'Hi'), asst(2, 1, 'Hello!')], ['Hi', 'Hello!'])

def test_last_leaf_in_file_order_not_newest_timestamp(tmp_path):
    recs = [user(1, None, 'Pick a colour'), asst(2, 1, 'Blue.'),
            user(3, None, 'Pick a colour, again'), asst(4, 3, 'Green.')]
    recs[1]['timestamp'] = '2026-12-31T00:00:00.000Z'  # the abandoned branch is "newer"
    check(tmp_path, recs, ['Pick a colour, again', 'Green.'])

def test_leaf_uuid_of_last_prompt(tmp_path):
    recs = [user(1, None, 'Pick a colour'), asst(2, 1, 'Blue.'),
            user(3, None, 'Pick a colour, again'), asst(4, 3, 'Green.'),
            dict(type='last-prompt', lastPrompt='Pick a colour', leafUuid=u(2), sessionId=SID)]
    check(tmp_path, recs, ['Pick a colour', 'Blue.'])

def test_last_leaf_below_leaf_uuid(tmp_path):
    # leafUuid names an inner record and the last leaf descends from it: the conversation runs to that leaf
    recs = [user(1, None, 'Q1'), asst(2, 1, 'A1'), user(3, 2, 'Q2'), asst(4, 3, 'A2'),
            user(5, 2, 'Q2 again'), asst(6, 5, 'A2 again'), dict(type='last-prompt', leafUuid=u(2), sessionId=SID)]
    check(tmp_path, recs, ['Q1', 'A1', 'Q2 again', 'A2 again'])

def test_leaf_uuid_when_last_leaf_is_elsewhere(tmp_path):
    # the last leaf (on another branch) does not descend from leafUuid: the conversation ends at leafUuid itself,
    # not at the last leaf below it (FORMAT.md's wording would pick 'A2 again')
    recs = [user(1, None, 'Q1'), asst(2, 1, 'A1'), user(3, 2, 'Q2'), asst(4, 3, 'A2'),
            user(5, 2, 'Q2 again'), asst(6, 5, 'A2 again'), user(7, 1, 'Elsewhere'), asst(8, 7, 'Other branch'),
            dict(type='last-prompt', leafUuid=u(2), sessionId=SID)]
    check(tmp_path, recs, ['Q1', 'A1'])

def test_leaf_uuid_not_in_file(tmp_path):
    recs = [user(1, None, 'Q1'), asst(2, 1, 'A1'), user(3, None, 'Q2'), asst(4, 3, 'A2'),
            dict(type='last-prompt', leafUuid=u(42), sessionId=SID)]
    check(tmp_path, recs, ['Q2', 'A2'])

def test_missing_parent_bridges_to_previous_record(tmp_path):
    recs = [user(1, None, 'First'), asst(2, 1, 'One'), user(3, 99, 'Second'), asst(4, 3, 'Two')]
    check(tmp_path, recs, ['First', 'One', 'Second', 'Two'])

def test_null_parent_is_a_root(tmp_path):
    recs = [user(1, None, 'Before'), asst(2, 1, 'Old'), user(3, None, 'After'), asst(4, 3, 'New')]
    check(tmp_path, recs, ['After', 'New'])

def test_attachment_on_the_chain(tmp_path):
    att = dict(type='attachment', uuid=u(2), parentUuid=u(1), sessionId=SID, timestamp='2026-11-30T10:00:02.000Z',
               attachment=dict(type='date_change', newDate='2026-11-30'))
    recs = [user(1, None, 'Hi'), att, asst(3, 2, 'Hello through the attachment')]
    check(tmp_path, recs, ['Hi', 'Hello through the attachment'])

def test_bookkeeping_records_are_not_on_the_chain(tmp_path):
    recs = [user(1, None, 'Hi'), dict(type='queue-operation', operation='enqueue', sessionId=SID),
            asst(2, 1, 'Hello'), dict(type='custom-title', customTitle='greeting', sessionId=SID)]
    check(tmp_path, recs, ['Hi', 'Hello'])

def test_parallel_calls_whole_message_and_all_results(tmp_path):
    tu = lambda n, p, i: asst(n, p, [dict(type='tool_use', id=f'toolu_{i}', name='Bash', input=dict(command=f'echo {i}'))], mid='msg_par')
    tr = lambda n, p, i: user(n, p, [dict(type='tool_result', tool_use_id=f'toolu_{i}', content=f'out {i}')])
    recs = [user(1, None, 'Run three'), tu(2, 1, 'a'), tu(3, 2, 'b'), tu(4, 3, 'c'),
            tr(5, 2, 'a'), tr(6, 4, 'c'), tr(7, 3, 'b'), asst(8, 7, 'All three ran.')]
    check(tmp_path, recs, ['Run three', 'Bash({"command": "echo a"})', 'Bash({"command": "echo b"})',
                           'Bash({"command": "echo c"})', 'out a', 'out c', 'out b', 'All three ran.'])

def test_compaction_boundary_with_preserved_segment(tmp_path):
    boundary = dict(type='system', subtype='compact_boundary', uuid=u(5), parentUuid=None, logicalParentUuid=u(4),
                    sessionId=SID, timestamp='2026-11-30T10:00:05.000Z', content='Conversation compacted',
                    compactMetadata=dict(trigger='manual', preTokens=100,
                                         preservedSegment=dict(headUuid=u(3), anchorUuid=u(6), tailUuid=u(4))))
    recs = [user(1, None, 'Old question'), asst(2, 1, 'Old answer'), user(3, 2, 'Kept question'), asst(4, 3, 'Kept answer'),
            boundary, user(6, 5, 'Summary: we talked.', isCompactSummary=True), user(7, 6, 'New question'), asst(8, 7, 'New answer')]
    check(tmp_path, recs, ['Summary: we talked.', 'Kept question', 'Kept answer', 'New question', 'New answer'])

def test_cycle_is_an_error():
    with pytest.raises(ThreadError, match='cycle'): sess_thread([Rec(user(1, 2, 'a')), Rec(user(2, 1, 'b')), Rec(user(3, 1, 'c'))])
