"The Parquet export holds the index's answers: DuckDB over it answers the cross-session questions as the index does"
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent.parent/'bench'))
from benchlib import PHRASE, grow
from llmsurgery.show import to_data
from llmsurgery.search import find_sess
from llmsurgery.forensics import find_edits, find_commands, find_errors
from llmsurgery.usage import find_usage
from llmsurgery.archive_index import ArchiveIndex
from llmsurgery.export import export_parquet, duck_export

def ids(rows): return sorted((c.sid, c.id) for c in rows)
def q(db, sql, *args): return db.execute(sql, list(args)).fetchall()

EDITS = '''SELECT sid, tool_id FROM tool_calls WHERE name IN ('Write', 'Edit', 'MultiEdit', 'NotebookEdit')
  AND (path = ? OR suffix(path, '/' || ?)) ORDER BY ALL'''
BY = dict(day="strftime(ts, '%Y-%m-%d')", model='model', project='project', session='sid')
USAGE = '''SELECT {by} AS k, count(*), sum(input_tokens), sum(output_tokens), sum(cache_write_tokens),
  sum(cache_read_tokens) FROM messages WHERE counted GROUP BY k ORDER BY k'''

def same_answers(db, ix):
    "Assert DuckDB over the export and the index answer each cross-session question alike"
    for f in ('/home/me/proj2/tools/notes.txt', 'notes.txt', 'otes.txt', 'todo.md'):
        assert q(db, EDITS, f, f) == ids(find_edits(f, index=ix)), f
    assert q(db, 'SELECT sid, tool_id FROM tool_calls WHERE failed ORDER BY ALL') == ids(find_errors(index=ix))
    assert (q(db, "SELECT sid, tool_id FROM tool_calls WHERE regexp_matches(command, '^ls\\b') ORDER BY ALL")
            == ids(find_commands(r'^ls\b', index=ix)))
    for by, col in BY.items():
        want = sorted((u[by], u['messages'], u['input'], u['output'], u['cache_write'],
                       u['cache_read']) for u in to_data(find_usage(by, utc=True, index=ix)))
        assert q(db, USAGE.format(by=col)) == want, by
    for pat in (PHRASE, 'capital of'):
        got = q(db, 'SELECT DISTINCT sid FROM records WHERE contains(text, ?) ORDER BY sid', pat)
        assert [s for s, in got] == sorted({m.sid for m in find_sess(pat, index=ix)}), pat
    n = ix.sql('SELECT count(*) AS n FROM files WHERE agent IS NULL')[0].n
    assert q(db, 'SELECT count(*), count(DISTINCT sid) FROM sessions') == [(n, n)]

def test_duckdb_answers_as_the_index(archive, tmp_path):
    ix, dest = ArchiveIndex(), tmp_path/'export'
    first = export_parquet(dest, index=ix)
    assert first.changed == first.projects == 4
    db = duck_export(dest)
    same_answers(db, ix)
    assert export_parquet(dest, index=ix).partitions == 0  # nothing changed, nothing written
    s = max(archive.glob('projects/*/*.jsonl'), key=lambda p: p.stat().st_size)
    before = {p: p.stat().st_mtime_ns for p in dest.glob('*/*/*/*.parquet')}
    grow(s, 0.3, where='/home/me/proj9/', day='2026-12-01', rare_at=0.5)
    again = export_parquet(dest, index=ix)
    written = [p.relative_to(dest) for p in dest.glob('*/*/*/*.parquet') if before.get(p) != p.stat().st_mtime_ns]
    assert again.changed == 1 and again.partitions == len(written)
    # the months before are not written again, but for the session's own row (its counts and last time changed)
    assert {p.parts[0] for p in written if p.parts[2] != 'month=2026-12'} == {'sessions'}
    assert {p.parts[0] for p in written if p.parts[2] == 'month=2026-12'} == {'records', 'tool_calls', 'messages'}
    same_answers(duck_export(dest), ix)
    assert q(db, 'SELECT count(*) FROM records WHERE contains(text, ?)', PHRASE) == [(2,)]  # the old views see it
