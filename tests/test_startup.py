"""Start-up stays cheap (issue 22): `llmsurgery --help` and `ls` import no heavy dependency, and cost a few bare
interpreter start-ups.

The import list is exact (`python -X importtime`); the CPU budget is a ratio to `python -c pass` measured in the same
test, generous enough for a loaded machine (start-up was 26-33x before, 4-5x after: the budget is 12x). The figures
themselves are `bench/bench_startup.py`'s."""
import os, resource, statistics, subprocess, sys
import pytest

# Heavy for a command that only parses its arguments or lists sessions: pricing (fastllm reads its 3 MB price table
# ~28 times at import), dialogs, SQLite, redaction, HTTP, process pools, images
HEAVY = ('fastllm', 'aidialog', 'sqlite3', 'detect_secrets', 're2', 'httpx2', 'PIL', 'asyncio', 'concurrent.futures',
         'multiprocessing', 'fastcore.xml', 'llmsurgery.convert', 'llmsurgery.archive_index', 'llmsurgery.redact',
         'llmsurgery.forensics', 'llmsurgery.usage', 'llmsurgery.search')
RUN = 'import sys\nfrom llmsurgery.cli import main\nsys.exit(main(sys.argv[1:]))'

@pytest.fixture
def env(tmp_path):
    "An empty config folder and cache: what `ls` meets on a machine without sessions"
    (tmp_path/'config').mkdir()
    env = dict(os.environ, CLAUDE_CONFIG_DIR=str(tmp_path/'config'), XDG_CACHE_HOME=str(tmp_path/'cache'))
    env.pop('PYTHONDONTWRITEBYTECODE', None)  # as installed: modules compiled once, not at every start
    return env

def imported(env, *argv) -> set:
    "The modules `llmsurgery ARGV` imports, by `-X importtime`"
    r = subprocess.run([sys.executable, '-X', 'importtime', '-c', RUN, *argv], env=env, capture_output=True, text=True)
    return {l.split('|')[-1].strip() for l in r.stderr.splitlines() if l.startswith('import time:')}

@pytest.mark.parametrize('argv', [('--help',), ('ls',), ('--version',), ('show', '--help')])
def test_no_heavy_imports(env, argv):
    mods = imported(env, *argv)
    assert 'llmsurgery.cli' in mods  # the list is real
    assert sorted(m for m in mods if any(m == h or m.startswith(h + '.') for h in HEAVY)) == []

def test_pricing_reads_the_table_once(env):
    "Pricing a Claude model needs the price map, not `fastllm.types` (whose import reads the map ~28 times)"
    code = ('import sys\nfrom llmsurgery.usage import msg_cost\n'
            'print(msg_cost("claude-sonnet-4-6", dict(input_tokens=10**6, output_tokens=0)), "fastllm.types" in '
            'sys.modules)')
    r = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, check=True)
    assert r.stdout.split() == ['3.0', 'False']

def cpu(cmd, env) -> float:
    "CPU seconds (user + system) of one run of `cmd`"
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, env=env, capture_output=True)
    a = resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime - b.ru_utime + a.ru_stime - b.ru_stime

def test_startup_budget(env):
    "`--help` and `ls` on an empty config: the median of 7 runs at most 12x a bare interpreter's, runs interleaved"
    cmds = dict(bare=[sys.executable, '-c', 'pass'], help=[sys.executable, '-c', RUN, '--help'],
                ls=[sys.executable, '-c', RUN, 'ls'])
    for c in cmds.values(): cpu(c, env)  # .pyc files written
    ts = {k: [] for k in cmds}
    for _ in range(7):
        for k, c in cmds.items(): ts[k].append(cpu(c, env))
    base = statistics.median(ts['bare'])
    ratios = {k: round(statistics.median(v) / base, 1) for k, v in ts.items()}
    assert ratios['help'] <= 12 and ratios['ls'] <= 12, ratios
