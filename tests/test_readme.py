"""README.md works when pasted: every shell example, in a fresh shell in the checkout after the set-up commands it
gives, runs a command that exists, and the tip `tools/run` prints names one too (issue 33)"""
import os, re, shutil, subprocess
from pathlib import Path
import pytest
from llmsurgery.fixtures import fixture

ROOT = Path(__file__).parent.parent

def sh_blocks() -> list:
    "The ```sh blocks of README.md"
    return re.findall(r'```sh\n(.*?)```', (ROOT/'README.md').read_text(), re.S)

def fresh(tmp_path, cfg=None) -> dict:
    """A new login's environment: the system's PATH (not .venv/bin), a home of its own whose `~/.claude` is a copy of
    the `cfg` fixture (none: no sessions)"""
    home = tmp_path/'home'
    if cfg: shutil.copytree(fixture(cfg), home/'.claude')
    else: (home/'.claude').mkdir(parents=True)
    return dict(PATH='/usr/local/bin:/usr/bin:/bin', HOME=str(home), TMPDIR=os.environ['TMPDIR'], LANG='C.UTF-8')

def paste(lines, env, cwd=ROOT) -> tuple:
    "Paste `lines` into one bash in `cwd`, as a person would: each line's exit status, and what it printed"
    script = ''.join(f'{l}\necho "@@status $?"\n' for l in lines)
    p = subprocess.run(['bash', '--norc', '--noprofile'], input=script, cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=600)
    return [int(s) for s in re.findall(r'^@@status (\d+)$', p.stdout, re.M)], p.stdout + p.stderr

def commands(block) -> list:
    "The command lines of a shell block, `tools/test` aside (the suite itself)"
    return [l for l in block.splitlines() if l.strip() and not l.startswith('#') and not l.startswith('tools/test')]

def test_every_shell_example_runs_a_command_that_exists(tmp_path):
    blocks = sh_blocks()
    assert len(blocks) >= 2 and any('llmsurgery ls' in b for b in blocks)
    setup, shell = commands(blocks[0]), [l for b in blocks[1:] for l in commands(b)]
    assert setup[0].startswith('tools/run') and shell[0].startswith('. .venv/bin/activate')
    env = fresh(tmp_path, 'tools')
    status, out = paste(setup, env)
    assert status == [0] * len(setup) and 'sessions in' in out, out[-2000:]
    # the examples write where they run (a notebook, a redacted copy, a site): a folder beside the checkout's .venv
    (here := tmp_path/'here').mkdir()
    (here/'.venv').symlink_to(ROOT/'.venv')
    status, out = paste(shell, env, here)
    assert 'command not found' not in out and not re.search(r'^bash: ', out, re.M), out[-2000:]
    assert len(status) == len(shell) and set(status) <= {0, 1}, list(zip(shell, status))
    ls = next(i for i, l in enumerate(shell) if l.split('#')[0].split() == ['llmsurgery', 'ls'])
    assert status[ls] == 0 and 'sessions in' in out
    if any('html --all -o site/' in l for l in shell): assert (here/'site'/'index.html').is_file()

def test_the_tip_tools_run_prints_runs(tmp_path):
    "On a machine without sessions `tools/run` shows the sample, and the command its last line gives runs"
    env = fresh(tmp_path)
    status, out = paste(['tools/run'], env)
    assert status == [0] and 'Here is the sample session' in out
    tip = re.search(r'for example: (tools/run stats \S+)', out)
    assert tip, out[-500:]
    status, out = paste([tip.group(1)], env)
    assert status == [0] and 'cba72812-7faa-40fd-8cef-79af445ccc60' in out and 'cost' in out
