"""Issue 34: a backup that survives Claude Code's cleanup, checked against the real thing.

A backup killed at any point and run again ends byte-identical to a clean one; the sources' bytes and mtimes never
change; the real CLI (offline, against the fake API on loopback) deletes 40-day-old sessions past its 5 s timer, and
the backup still holds them."""
import os, shutil, signal, subprocess, sys, time, uuid
from pathlib import Path
import pytest
from llmsurgery.core import *
from llmsurgery.backup import *
from llmsurgery.fixtures import fixture

def make_cfg(root, mb=0):
    "A config folder with the recorded fixtures, a todo list, a file-history folder and `mb` MB more of sessions"
    cfg = Path(root)
    for name in ('tools', 'qa', 'subagent'): shutil.copytree(fixture(name)/'projects', cfg/'projects', dirs_exist_ok=True)
    (cfg/'todos').mkdir(parents=True, exist_ok=True)
    (cfg/'todos'/'s-agent-s.json').write_text('[]')
    fh = cfg/'file-history'/str(uuid.uuid4())
    fh.mkdir(parents=True)
    (fh/'abc@v1').write_bytes(b'old notes\n')
    line = (b'{"type":"user","message":{"role":"user","content":"%s"}}\n' % (b'x' * 4000))
    for i in range(int(mb * 10)):  # files of 100 KB
        p = cfg/'projects'/f'-home-me-p{i % 7}'/f'{uuid.UUID(int=i + 1, version=4)}.jsonl'
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(line * 25)
    return cfg

def tree(root, skip=()):
    "Every path under `root` and what it holds (a folder: None), leaving out names in `skip`"
    return {str(p.relative_to(root)): p.read_bytes() if p.is_file() else None
            for p in sorted(Path(root).rglob('*')) if p.name not in skip}

def stamps(root): return {str(p): (p.lstat().st_size, p.lstat().st_mtime_ns) for p in Path(root).rglob('*')}

def change(cfg):
    "Grow one session, rewrite the todo list, cut one session short, delete one: what a day of use does"
    ps = sorted(cfg.glob('projects/*/*.jsonl'))
    with open(ps[0], 'ab') as f: f.write(b'{"type":"user","message":{"role":"user","content":"more"}}\n' * 3000)
    (cfg/'todos'/'s-agent-s.json').write_text('[{"content":"tidy","status":"pending"}]')
    with open(ps[1], 'r+b') as f: f.truncate(100)
    os.unlink(ps[2])

RUN = 'import sys; from llmsurgery.backup import backup; backup(sys.argv[1], sys.argv[2])'

def noted(dest):
    "How many files the running backup into `dest` has noted in its journal so far (-1: it has not started)"
    try: return (Path(dest)/OWN_DIR/'manifest.journal').read_bytes().count(b'\n')
    except FileNotFoundError: return 0 if (Path(dest)/OWN_DIR/'running').exists() else -1

def killed_then_rerun(cfg, dest, at):
    "Start a backup in a subprocess, kill it once it has noted `at` files, check it was mid-run; then run one here"
    p = subprocess.Popen([sys.executable, '-c', RUN, str(dest), str(cfg)])
    deadline = time.monotonic() + 60
    while noted(dest) < at and p.poll() is None and time.monotonic() < deadline: time.sleep(0.0005)
    p.send_signal(signal.SIGKILL)
    p.wait()
    assert (Path(dest)/OWN_DIR/'running').exists(), 'the backup ended before it was killed'
    backup(dest, cfg)

@pytest.mark.parametrize('at', [0, 1, 40, 150, 290])
def test_a_killed_backup_rerun_is_a_clean_one(tmp_path, at):
    "Killed at several points of a first backup and of an incremental one, then rerun: byte-identical to a clean run"
    cfg = make_cfg(tmp_path/'cfg', mb=30)
    src = stamps(cfg)
    clean, killed = tmp_path/'clean', tmp_path/'killed'
    backup(clean, cfg)
    killed_then_rerun(cfg, killed, at)
    assert tree(killed) == tree(clean) and stamps(cfg) == src
    change(cfg)
    src = stamps(cfg)
    backup(clean, cfg)
    killed_then_rerun(cfg, killed, min(at, 2))
    assert tree(killed) == tree(clean) and stamps(cfg) == src
    assert len(list((clean/OWN_DIR/'earlier').rglob('*@*'))) == 2  # the todo list and the session cut short
