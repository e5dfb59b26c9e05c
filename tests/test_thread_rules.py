"""Each rule of `sess_thread` and `api_msgs`, checked against the real Claude Code CLI, the installed one and
older ones.

Every case is a handmade transcript that isolates one rule. `resume_check` resumes a scratch copy of it with the real
`claude` binary against the fake API on loopback, and we compare the conversation the CLI sent with the one
`sess_thread` and `api_msgs` predict for that version; the rule's own point is pinned with the texts it must give.
The older CLIs come from `tools/fetch-clis` (cached; `tools/test` fetches them first). No tokens, no network beyond
127.0.0.1.
"""
import json, uuid
import pytest
from fastcore.parallel import parallel
from llmsurgery.core import *
from llmsurgery.rec import *
from llmsurgery.thread import *
from llmsurgery.sent import *
from llmsurgery.resume import resume_check
from llmsurgery.convert import recs2chat, chat2api
from llmsurgery.claude import claude_version
from llmsurgery.cli_versions import fetch_cli, CLI_SOURCES

pytestmark = pytest.mark.cli  # every case resumes with a real CLI

SID = '5e55a0c1-0000-4000-8000-000000000001'
MODEL = 'claude-sonnet-4-6'

def u(n): return str(uuid.UUID(int=n))
def ts(n): return f'2026-11-30T10:{n // 60:02d}:{n % 60:02d}.000Z'

def user(n, parent, content, **kw):
    return dict(type='user', uuid=u(n), parentUuid=parent and u(parent), sessionId=SID, timestamp=ts(n),
                message=dict(role='user', content=content), **kw)

def asst(n, parent, content, mid=None, model=MODEL, **kw):
    if isinstance(content, str): content = [dict(type='text', text=content)]
    msg = dict(id=mid or f'msg_{n:04d}', type='message', role='assistant', model=model, content=content,
               stop_reason='end_turn', usage=dict(input_tokens=1, output_tokens=1))
    if mid is False: del msg['id']
    if model is None: del msg['model']
    return dict(type='assistant', uuid=u(n), parentUuid=parent and u(parent), sessionId=SID, timestamp=ts(n),
                message=msg, **kw)

def call(i): return dict(type='tool_use', id=f'toolu_{i}', name='Bash', input=dict(command=f'echo {i}'))
def res(i): return dict(type='tool_result', tool_use_id=f'toolu_{i}', content=f'out {i}')
def calls(n, p, i, mid='msg_par', **kw): return asst(n, p, [call(i)], mid=mid, **kw)
def results(n, p, i, **kw): return user(n, p, [res(i)], **kw)
def checkpoint(leaf, **kw): return dict(type='last-prompt', leafUuid=leaf and u(leaf), sessionId=SID, **kw)
THINK = dict(type='thinking', thinking='Hmm.', signature='sig1')

def texts(msgs): return [block_txt(b) for m in msgs for b in m['content']]

def resumed(tmp_path, recs, cli=None):
    "What Claude Code `cli` (default: the installed one) sent on resuming `recs`, and what we predict, for comparing"
    p = tmp_path/f'{uuid.uuid4()}.jsonl'
    p.write_text(''.join(json.dumps(r, separators=(',', ':')) + '\n' for r in recs))
    r = resume_check(path=p, bin=fetch_cli(cli) if cli else None, model=MODEL)
    ours = sent_msgs(api_msgs(sess_thread([Rec(x) for x in recs], cli=cli or claude_version(), model=MODEL)))
    return sent_msgs(r.conv), ours

def chat(recs):
    """The conversation of `recs` through the chat conversion (`recs2chat`, then `chat2api`), as the installed CLI
    sends it"""
    return sent_msgs(chat2api(recs2chat(sess_thread([Rec(x) for x in recs], cli=claude_version(), model=MODEL))))

def check(tmp_path, recs, expected):
    "The installed CLI resumes `recs` as predicted, the chat conversion agrees, and that conversation holds `expected`"
    sent, ours = resumed(tmp_path, recs)
    assert sent == ours
    assert chat(recs) == sent
    assert texts(ours) == expected

# ---------------------------------------------------------------- where the conversation ends

def test_plain_chain(tmp_path):
    check(tmp_path, [user(1, None, 'Hi'), asst(2, 1, 'Hello!')], ['Hi', 'Hello!'])

def test_last_row_not_newest_timestamp(tmp_path):
    recs = [user(1, None, 'Pick a colour'), asst(2, 1, 'Blue.'), user(3, None, 'Pick again'), asst(4, 3, 'Green.')]
    recs[1]['timestamp'] = '2026-12-31T00:00:00.000Z'  # the abandoned branch is "newer"
    check(tmp_path, recs, ['Pick again', 'Green.'])

def test_last_row_not_a_leaf(tmp_path):
    # the last row's child was written before it, and is older: the conversation ends at the last row
    recs = [user(1, None, 'Q1'), asst(2, 1, 'A1'), asst(6, 5, 'A2, written first'), user(5, 2, 'Q2, the last row')]
    recs[2]['timestamp'] = ts(0)
    check(tmp_path, recs, ['Q1', 'A1', 'Q2, the last row', 'No response requested.'])

def test_newest_below_the_last_row(tmp_path):
    # no checkpoint, and a record newer than the last row: the newest record below the last row ends it
    recs = [user(1, None, 'Q1'), asst(2, 1, 'A1'), asst(6, 5, 'A2 newer'), asst(7, 5, 'A2b older'), user(5, 2, 'Q2')]
    recs[2]['timestamp'], recs[3]['timestamp'] = ts(50), ts(40)
    check(tmp_path, recs, ['Q1', 'A1', 'Q2', 'A2 newer'])

def test_checkpoint_when_last_row_is_elsewhere(tmp_path):
    # FORMAT.md: "the last leaf that descends from leafUuid"; the CLI ends at the checkpoint record itself
    recs = [user(1, None, 'Q1'), asst(2, 1, 'A1'), user(3, 2, 'Q2'), asst(4, 3, 'A2'),
            user(5, 2, 'Q2 again'), asst(6, 5, 'A2 again'), user(7, 1, 'Elsewhere'), asst(8, 7, 'Other branch'),
            checkpoint(2)]
    check(tmp_path, recs, ['Q1', 'A1'])

def test_checkpoint_with_last_row_below(tmp_path):
    recs = [user(1, None, 'Q1'), asst(2, 1, 'A1'), user(3, 2, 'Q2'), asst(4, 3, 'A2'),
            user(5, 2, 'Q2 again'), asst(6, 5, 'A2 again'), checkpoint(2)]
    check(tmp_path, recs, ['Q1', 'A1', 'Q2 again', 'A2 again'])

def test_checkpoint_naming_no_record(tmp_path):
    # the last checkpoint names nothing: no checkpoint, and the valid one before it is not used
    recs = [user(1, None, 'Q1'), asst(2, 1, 'A1'), checkpoint(2), user(3, None, 'Q2'), asst(4, 3, 'A2'), checkpoint(42)]
    check(tmp_path, recs, ['Q2', 'A2'])

def test_checkpoint_without_leaf_uuid_keeps_the_earlier_one(tmp_path):
    recs = [user(1, None, 'Q1'), asst(2, 1, 'A1'), user(3, None, 'Q2'), asst(4, 3, 'A2'), checkpoint(2),
            dict(type='last-prompt', lastPrompt='Q2', sessionId=SID)]
    check(tmp_path, recs, ['Q1', 'A1'])

def batch(): return [user(1, None, 'Run three'), calls(2, 1, 'a'), calls(3, 2, 'b'), calls(4, 3, 'c'),
                     results(5, 2, 'a'), results(6, 4, 'c'), results(7, 3, 'b'), asst(8, 7, 'All three ran.')]
BATCH = ['Run three', 'Bash({"command": "echo a"})', 'Bash({"command": "echo b"})', 'Bash({"command": "echo c"})',
         'out a', 'out c', 'out b']

def test_checkpoint_descent_through_a_parallel_batch(tmp_path):
    # the checkpoint is call a's result; the last row hangs off call b's result: it counts as descending
    check(tmp_path, batch() + [checkpoint(5)], BATCH + ['All three ran.'])

def test_explicit_checkpoint_is_taken_literally(tmp_path):
    # explicit: true ends at the checkpoint even though the last row descends from it directly
    check(tmp_path, batch() + [checkpoint(7, explicit=True)], BATCH + ['No response requested.'])

def test_explicit_cleared_by_later_rows(tmp_path):
    recs = [user(1, None, 'Q1'), asst(2, 1, 'A1'), checkpoint(2, explicit=True), user(3, 2, 'Q2'), asst(4, 3, 'A2')]
    check(tmp_path, recs, ['Q1', 'A1', 'Q2', 'A2'])

def test_rewind_to_nothing(tmp_path):
    recs = [user(1, None, 'Q1'), asst(2, 1, 'A1'), checkpoint(None, explicit=True)]
    check(tmp_path, recs, [])

def test_compaction_forgets_the_checkpoint(tmp_path):
    b = dict(type='system', subtype='compact_boundary', uuid=u(5), parentUuid=None, logicalParentUuid=u(4),
             sessionId=SID, timestamp=ts(5), content='Conversation compacted',
             compactMetadata=dict(trigger='manual', preTokens=1))
    recs = [user(1, None, 'Q1'), asst(2, 1, 'A1'), user(3, 2, 'Q2'), asst(4, 3, 'A2'), checkpoint(2), b,
            user(6, 5, 'Summary.', isCompactSummary=True), user(7, 6, 'Q3'), asst(8, 7, 'A3'),
            user(9, None, 'Side'), asst(10, 9, 'Side answer')]
    check(tmp_path, recs, ['Side', 'Side answer'])

# ---------------------------------------------------------------- walking back

def test_missing_parent_bridges_by_time(tmp_path):
    recs = [user(1, None, 'First'), asst(2, 1, 'One'), user(3, 99, 'Second'), asst(4, 3, 'Two')]
    check(tmp_path, recs, ['First', 'One', 'Second', 'Two'])

def test_bridge_skips_a_newer_record_written_between(tmp_path):
    # FORMAT.md: "bridged to the previous record in file order"; the CLI takes the newest record not newer than it
    recs = [user(1, None, 'First'), asst(2, 1, 'One'), user(5, None, 'Side, newer'), user(3, 99, 'Second'),
            asst(4, 3, 'Two')]
    recs[2]['timestamp'], recs[3]['timestamp'], recs[4]['timestamp'] = ts(30), ts(4), ts(31)
    check(tmp_path, recs, ['First', 'One', 'Second', 'Two'])

def test_no_bridge_over_five_seconds(tmp_path):
    recs = [user(1, None, 'First'), asst(2, 1, 'One'), user(3, 99, 'Second'), asst(4, 3, 'Two')]
    recs[2]['timestamp'], recs[3]['timestamp'] = ts(20), ts(21)
    check(tmp_path, recs, ['Second', 'Two'])

def test_null_parent_is_a_root(tmp_path):
    recs = [user(1, None, 'Before'), asst(2, 1, 'Old'), user(3, None, 'After'), asst(4, 3, 'New')]
    check(tmp_path, recs, ['After', 'New'])

def test_a_cycle_is_walked_not_refused(tmp_path):
    recs = [user(1, 4, 'Q1'), asst(2, 1, 'A1'), user(3, 2, 'Q2'), asst(4, 3, 'A2')]
    check(tmp_path, recs, ['Q1', 'A1', 'Q2', 'A2'])

def test_attachment_on_the_chain(tmp_path):
    att = dict(type='attachment', uuid=u(2), parentUuid=u(1), sessionId=SID, timestamp=ts(2),
               attachment=dict(type='date_change', newDate='2026-11-30'))
    check(tmp_path, [user(1, None, 'Hi'), att, asst(3, 2, 'Hello through the attachment')],
          ['Hi', 'Hello through the attachment'])

def test_bookkeeping_and_progress_are_not_on_the_chain(tmp_path):
    prog = dict(type='progress', uuid=u(3), parentUuid=u(2), sessionId=SID, timestamp=ts(3),
                data=dict(type='bash_progress'))
    recs = [user(1, None, 'Hi'), dict(type='queue-operation', operation='enqueue', sessionId=SID),
            asst(2, 1, [call('a')]), prog, results(4, 3, 'a'), asst(5, 4, 'Done'),
            dict(type='custom-title', customTitle='greeting', sessionId=SID)]
    check(tmp_path, recs, ['Hi', 'Bash({"command": "echo a"})', 'out a', 'Done'])

def test_compaction_boundary_with_preserved_segment(tmp_path):
    boundary = dict(type='system', subtype='compact_boundary', uuid=u(5), parentUuid=None, logicalParentUuid=u(4),
                    sessionId=SID, timestamp=ts(5), content='Conversation compacted',
                    compactMetadata=dict(trigger='manual', preTokens=100,
                                         preservedSegment=dict(headUuid=u(3), anchorUuid=u(6), tailUuid=u(4))))
    recs = [user(1, None, 'Old question'), asst(2, 1, 'Old answer'), user(3, 2, 'Kept question'),
            asst(4, 3, 'Kept answer'), boundary, user(6, 5, 'Summary: we talked.', isCompactSummary=True),
            user(7, 6, 'New question'), asst(8, 7, 'New answer')]
    check(tmp_path, recs, ['Summary: we talked.', 'Kept question', 'Kept answer', 'New question', 'New answer'])

# ---------------------------------------------------------------- one API message gathered whole

def test_parallel_calls_whole_message_and_all_results(tmp_path):
    check(tmp_path, batch(), BATCH + ['All three ran.'])

def test_message_records_off_the_branch(tmp_path):
    # a record with the message's id on an unrelated branch is sent with it, and its result too
    recs = [user(1, None, 'Q1'), asst(2, 1, [call('a')], mid='msg_x'), results(3, 2, 'a'), asst(4, 3, 'Done.'),
            user(9, None, 'Other root'), asst(10, 9, [call('z')], mid='msg_x'), results(11, 10, 'z'),
            user(12, 4, 'Q2'), asst(13, 12, 'A2')]
    check(tmp_path, recs, ['Q1', 'Bash({"command": "echo a"})', 'Bash({"command": "echo z"})', 'out a', 'out z',
                           'Done.', 'Q2', 'A2'])

def test_text_between_calls_goes_first(tmp_path):
    recs = [user(1, None, 'Run two'), calls(2, 1, 'a'), asst(3, 2, 'Between the calls.', mid='msg_par'),
            calls(4, 3, 'b'), results(5, 2, 'a'), results(6, 4, 'b'), asst(7, 6, 'Both ran.')]
    check(tmp_path, recs, ['Run two', 'Between the calls.', 'Bash({"command": "echo a"})',
                           'Bash({"command": "echo b"})', 'out a', 'out b', 'Both ran.'])

def test_records_without_message_id_are_separate_messages(tmp_path):
    recs = [user(1, None, 'Q1'), asst(2, 1, 'One.', mid=False), asst(3, 2, 'Two.', mid=False)]
    sent, ours = resumed(tmp_path, recs)
    assert sent == ours == chat(recs) and [m['role'] for m in ours] == ['user', 'assistant', 'assistant']

def test_result_that_does_not_follow_its_call(tmp_path):
    # without message.id the call, the text and the result are three messages: the call gets an error result
    recs = [user(1, None, 'Q1'), asst(2, 1, [call('a')], mid=False), asst(3, 2, 'Running.', mid=False),
            results(4, 3, 'a'), asst(5, 4, 'Done.', mid=False)]
    check(tmp_path, recs, ['Q1', 'Bash({"command": "echo a"})', '[error] [Tool result missing due to internal error]',
                           'Running.', '(no content)', 'Done.'])

def test_call_whose_result_is_off_the_walk_is_dropped(tmp_path):
    recs = [user(1, None, 'Run two'), calls(2, 1, 'a', mid=False), calls(3, 2, 'b', mid=False),
            results(4, 2, 'a'), results(5, 3, 'b'), asst(6, 5, 'Both ran.', mid=False)]
    check(tmp_path, recs, ['Run two', 'Bash({"command": "echo b"})', 'out b', 'Both ran.'])

@pytest.mark.parametrize('model,kept', [(MODEL, True), (None, False), ('claude-opus-4-1', False),
                                        ('<synthetic>', True)])
def test_thinking_goes_back_only_to_its_model(tmp_path, model, kept):
    recs = [user(1, None, 'Q1'), asst(2, 1, [THINK], mid='m1', model=model),
            asst(3, 2, 'Answer.', mid='m1', model=model)]
    check(tmp_path, recs, ['Q1'] + ['[thinking] Hmm.']*kept + ['Answer.'])

def test_thinking_alone_without_message_id_is_dropped(tmp_path):
    recs = [user(1, None, 'Q1'), asst(2, 1, [THINK], mid=False), asst(3, 2, 'Answer.', mid=False)]
    check(tmp_path, recs, ['Q1', 'Answer.'])

def test_thinking_alone_in_its_message_is_dropped(tmp_path):
    # a message of nothing but thinking, with its id: not sent, at the end or in the middle
    check(tmp_path, [user(1, None, 'Q1'), asst(2, 1, [THINK], mid='m1')], ['Q1', 'No response requested.'])
    check(tmp_path, [user(1, None, 'Q1'), asst(2, 1, [THINK], mid='m1'), user(3, 2, 'Q2'), asst(4, 3, 'A2')],
          ['Q1', 'Q2', 'A2'])

def test_unanswered_call_in_the_middle_is_dropped(tmp_path):
    recs = [user(1, None, 'Q1'), asst(2, 1, 'Running.', mid='m1'), asst(3, 2, [call('a')], mid='m1'),
            user(4, 3, 'Never mind.'), asst(5, 4, 'OK.')]
    check(tmp_path, recs, ['Q1', 'Running.', 'Never mind.', 'OK.'])

def test_call_id_used_twice(tmp_path):
    recs = [user(1, None, 'Go'), asst(2, 1, [call('a')], mid='m1'), results(3, 2, 'a'),
            asst(4, 3, [call('a')], mid='m2'), results(5, 4, 'a'), asst(6, 5, 'Done.')]
    check(tmp_path, recs, ['Go', 'Bash({"command": "echo a"})', 'out a', '[Tool use interrupted]', '(no content)',
                           'Done.'])

# ---------------------------------------------------------------- what Claude Code adds or rewrites

def test_unanswered_prompt_gets_no_response_requested(tmp_path):
    check(tmp_path, [user(1, None, 'Q1'), asst(2, 1, 'A1'), user(3, 2, 'Q2, unanswered')],
          ['Q1', 'A1', 'Q2, unanswered', 'No response requested.'])

def test_open_calls_at_the_end_get_an_error_result(tmp_path):
    recs = [user(1, None, 'Run two'), calls(2, 1, 'a'), calls(3, 2, 'b'), results(4, 2, 'a')]
    sent, ours = resumed(tmp_path, recs)
    assert sent == ours == chat(recs)
    assert texts(ours)[-3:] == ['out a', f'[error] {INTERRUPTED}', 'No response requested.']
    th = sess_thread([Rec(r) for r in recs])
    assert ([rec_role(r) for r in th.synthetic] == ['tool', 'assistant']
            and th.written.attrgot('uuid') == [u(n) for n in (1, 2, 3, 4)])

def test_task_notification_is_wrapped(tmp_path):
    note = '<task-notification>\n<task-id>abc</task-id>\n<status>completed</status>\n</task-notification>'
    recs = [user(1, None, 'Q1'), asst(2, 1, 'Started it.'), user(3, 2, note, origin=dict(kind='task-notification')),
            asst(4, 3, 'It finished.')]
    check(tmp_path, recs, ['Q1', 'Started it.', wrap_notification(note), 'It finished.'])

def test_slash_command_row_is_sent_as_a_prompt(tmp_path):
    cmd = dict(type='system', subtype='local_command', uuid=u(3), parentUuid=u(2), sessionId=SID, timestamp=ts(3),
               content='<command-name>/cost</command-name>', level='info')
    check(tmp_path, [user(1, None, 'Q1'), asst(2, 1, 'A1'), cmd, user(4, 3, 'Q2'), asst(5, 4, 'A2')],
          ['Q1', 'A1', '<command-name>/cost</command-name>', 'Q2', 'A2'])

CAVEAT = ('<local-command-caveat>The command below was run directly in Claude Code, not sent to you as a request, '
          'and its output goes straight to the user.</local-command-caveat>')

def command_echo(n, parent, name='/cost', out='Total cost: $0.00'):
    "The three rows a slash command leaves: its caveat (meta), the command, and its output"
    return [user(n, parent, CAVEAT, isMeta=True),
            user(n + 1, n, f'<command-name>{name}</command-name>\n<command-message>{name[1:]}</command-message>'),
            user(n + 2, n + 1, f'<local-command-stdout>{out}</local-command-stdout>')]

def test_slash_command_echo_at_the_end_gets_no_reply(tmp_path):
    echo = command_echo(3, 2)
    check(tmp_path, [user(1, None, 'Q1'), asst(2, 1, 'A1'), *echo], ['Q1', 'A1', *texts(written_msgs(echo))])

def compact_cut():
    "The `compact` fixture as it stood right after its `/compact`, before the next prompt"
    from llmsurgery.fixtures import fixture_sess, fixture_meta
    s, run = fixture_sess('compact'), fixture_meta('compact').runs[-1]
    return [json.loads(l) for l in s.path.read_bytes().splitlines()[:run['lines']]]

def test_right_after_compact(tmp_path):
    # the summary, the turn the compaction kept, the `/compact` rows: no "No response requested." after them
    sent, ours = resumed(tmp_path, compact_cut())
    assert sent == ours and [m['role'] for m in ours] == ['user', 'assistant', 'user']
    assert texts(ours)[1] == 'It printed 42.' and texts(ours)[-1].startswith('<local-command-stdout>Compacted')

def no_uuids(recs):
    "`recs` without `uuid` and `parentUuid`, as some exports write them"
    return [{k: v for k, v in r.items() if k not in ('uuid', 'parentUuid')} for r in recs]

def test_a_file_without_uuids_sends_its_last_record(tmp_path):
    # every record's key is `undefined`: they are one record, the last written, a root
    check(tmp_path, no_uuids([user(1, None, 'Q1'), asst(2, 1, 'A1'), user(3, 2, 'Q2'), asst(4, 3, 'A2')]), ['A2'])
    check(tmp_path, no_uuids([user(1, None, 'Q1'), asst(2, 1, 'A1'), user(3, 2, 'Q2')]),
          ['Q2', 'No response requested.'])

def test_records_without_uuid_beside_records_with_one_are_not_read(tmp_path):
    check(tmp_path, [user(1, None, 'Q1'), asst(2, 1, 'A1')] + no_uuids([user(3, 2, 'Q2'), asst(4, 3, 'A2')]),
          ['Q1', 'A1'])

def test_records_of_the_wrong_shape(tmp_path):
    # a message that is a string drops its record (its child hangs off its parent); a list `type` is no record;
    # an object `parentUuid` names no record and is bridged
    recs = [user(1, None, 'Q1'), asst(2, 1, 'A1'), user(3, 2, 'Q2'), asst(4, 3, 'A2'), user(5, 4, 'Q3'),
            asst(6, 5, 'A3'), user(7, 6, 'Q4'), asst(8, 7, 'A4')]
    recs[3]['message'], recs[4]['type'], recs[6]['parentUuid'] = 'hello', ['user'], {'x': 1}
    check(tmp_path, recs, ['Q1', 'A1', 'Q2', 'A3', 'Q4', 'A4'])

# ---------------------------------------------------------------- older CLIs

def old_cases():
    "Transcripts on which the versions disagree"
    stamp_less = [user(1, None, 'Q1'), asst(2, 1, 'A1')]
    for r in stamp_less: del r['timestamp']
    newer = [user(1, None, 'Pick a colour'), asst(2, 1, 'Blue.'), user(3, None, 'Pick again'), asst(4, 3, 'Green.')]
    newer[1]['timestamp'] = '2026-12-31T00:00:00.000Z'
    note = '<task-notification>\n<status>completed</status>\n</task-notification>'
    return dict(
        newest_elsewhere=newer, batch=batch(), checkpoint_elsewhere=batch() + [checkpoint(5)],
        no_message_id=[user(1, None, 'Q1'), asst(2, 1, [call('a')], mid=False), results(3, 2, 'a'),
                       asst(4, 3, 'Done.', mid=False)],
        thinking_other_model=[user(1, None, 'Q1'), asst(2, 1, [THINK], mid='m1', model='claude-opus-4-1'),
                              asst(3, 2, 'Answer.', mid='m1', model='claude-opus-4-1')],
        open_call=[user(1, None, 'Q1'), asst(2, 1, [call('a')])],
        ends_on_result=[user(1, None, 'Q1'), asst(2, 1, [call('a')]), results(3, 2, 'a')],
        notification=[user(1, None, 'Q1'), asst(2, 1, 'Started.'),
                      user(3, 2, note, origin=dict(kind='task-notification')), asst(4, 3, 'Done.')],
        gap=[user(1, None, 'First'), asst(2, 1, 'One'), user(3, 99, 'Second'), asst(4, 3, 'Two')],
        no_timestamps=stamp_less, command_echo=[user(1, None, 'Q1'), asst(2, 1, 'A1'), *command_echo(3, 2)],
        compact_cut=compact_cut(),
        no_uuids=no_uuids([user(1, None, 'Q1'), asst(2, 1, 'A1a', mid='m1'), asst(3, 2, 'A1b', mid='m1')]),
        no_uuids_result=no_uuids([user(1, None, 'Q1'), asst(2, 1, [call('a')]), results(3, 2, 'a')]),
        no_uuids_after=[user(1, None, 'Q1'), asst(2, 1, 'A1')] + no_uuids([user(3, 2, 'Q2'), asst(4, 3, 'A2')]))

@pytest.mark.parametrize('cli', list(CLI_SOURCES))
def test_older_cli_resumes_as_its_rules_say(tmp_path, cli):
    "Each older CLI sends what `sess_thread(..., cli=version)` predicts, on every case where the versions differ"
    cases = old_cases()
    def one(name):
        try: sent, ours = resumed(tmp_path, cases[name], cli)
        except Exception as e: return name, f'{type(e).__name__}: {str(e)[:300]}', None
        return name, sent, ours
    got = parallel(one, list(cases), threadpool=True, n_workers=3)
    for name, sent, ours in got:
        th = sess_thread([Rec(r) for r in cases[name]], cli=cli)
        if isinstance(sent, str):  # the CLI refused or crashed: the rules say it will
            assert not th.written and (th.error or 'No conversation found' in sent), (cli, name, sent)
        else: assert sent == ours, (cli, name)
