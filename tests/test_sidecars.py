"""Sidecars (issue 30): `<project>/<sid>/archived.json`, `custom-title.json` and the rest, read as the CLI and the
TypeScript SDK read them, written as the SDK writes them, and carried by every verb that moves, copies or deletes a
session. The bytes of `archived.json` were measured with `@anthropic-ai/claude-agent-sdk` 0.3.334 (see
*Managing sessions*).
"""
import json, os, re, shutil, warnings
import pytest
from llmsurgery.core import *
from llmsurgery.fixtures import fixture, fixture_meta
from llmsurgery.sess import Sess, ls_sess, sess_file, open_sess
from llmsurgery.manage import archive_sess, delete_sess, restore_sess, move_proj
from llmsurgery.write import fork_sess
from llmsurgery import cli

@pytest.fixture
def cfg(tmp_path, monkeypatch):
    "A scratch config folder holding the interactive recording"
    shutil.copytree(fixture('interactive'), tmp_path/'cfg')
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(tmp_path/'cfg'))
    return tmp_path/'cfg'

def sids(): return fixture_meta('interactive').sessions

def test_archive_writes_what_the_sdk_writes(cfg, capsys):
    orig, branch = sids()
    archive_sess(orig)
    p = sess_file(orig)
    mark = p.parent/orig/'archived.json'
    sdk = rb'\{"archived":true,"at":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z","by":"sdk"\}'  # as measured
    assert re.fullmatch(sdk, mark.read_bytes())
    assert mark.stat().st_mode & 0o777 == 0o600
    assert (open_sess(orig).archived, open_sess(branch).archived) == (True, None)
    assert cli.main(['ls', '--json']) == 0
    assert {o['sid']: o['archived'] for o in json.loads(capsys.readouterr().out)} == {orig: True, branch: None}
    assert cli.main(['ls']) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [l for l in lines if orig in l][0].endswith('[archived] typo-fix')
    assert cli.main(['unarchive', orig]) == 0 and open_sess(orig).archived is False
    assert json.loads(mark.read_bytes())['archived'] is False  # the SDK's unarchive keeps the file, with false
    assert cli.main(['archive', 'nosuchsession']) != 0

def test_archive_makes_the_folder_as_the_sdk_does(cfg):
    orig, _ = sids()
    p = sess_file(orig)
    shutil.rmtree(p.parent/orig)
    archive_sess(orig)
    assert (p.parent/orig).stat().st_mode & 0o777 == 0o700

def test_titles_from_custom_title_json_where_the_cli_takes_them(cfg):
    orig, _ = sids()
    p = sess_file(orig)
    side = p.parent/orig/'custom-title.json'
    assert Sess(p).title == 'typo-fix'
    # the file holds custom-title records in its tail (a small file is all tail): they win over the sidecar
    side.write_text(json.dumps({'customTitle': 'from the sidecar', 'by': 'user', 'at': '2026-12-02T13:00:00.000Z'}))
    assert Sess(p).title == 'typo-fix'
    # without them the sidecar says the title
    recs = [l for l in p.read_text().splitlines() if '"type":"custom-title"' not in l]
    p.write_text('\n'.join(recs) + '\n')
    assert Sess(p).title == 'from the sidecar'
    side.write_text('not json')
    assert Sess(p).title is None

def test_move_fork_delete_and_restore_carry_the_sidecars(cfg):
    orig, branch = sids()
    archive_sess(orig)
    new = fork_sess(orig)
    fp = sess_file(new)
    assert (fp.parent/new/'custom-title.json').is_file() and not (fp.parent/new/'archived.json').exists()
    meta = fixture_meta('interactive')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        move_proj(meta.cwd, meta.cwd + '-renamed')
    p = sess_file(orig)
    assert proj_slug(meta.cwd + '-renamed') == p.parent.name
    assert {f.name for f in (p.parent/orig).iterdir()} == {'custom-title.json', 'archived.json'}
    assert Sess(p).archived is True and Sess(p).title == 'typo-fix'
    trash = delete_sess(orig, force=True)
    assert not (p.parent/orig).exists()
    restore_sess(orig)
    assert {f.name for f in (p.parent/orig).iterdir()} == {'custom-title.json', 'archived.json'}
    assert open_sess(orig).archived is True
