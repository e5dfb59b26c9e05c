"""llmsurgery in a real Jupyter kernel (ipykernel, driven by nbclient), as people use it in Jupyter.

`nbdev-test` runs the notebooks in its own shell, which leaves out the cells marked `#| eval: false` (they need an API
key) and has no Jupyter display. A person who opens a notebook and picks "Run all" gets every cell, in a kernel whose
event loop is already running. `nbdev-test` has run every other cell once already (`tools/test` runs it first), so
these tests run in a kernel only what it does not: the cells it leaves out (after their notebook's imports), and the
reprs a kernel displays. `tools/save_outputs` runs whole notebooks in a kernel, to keep their outputs.
"""
import ast, json, os, sys, tempfile
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbdev.config import get_config
from nbdev.test import nb_test_cells

NBS = Path(__file__).parent.parent/'nbs'
KERNEL = 'llmsurgery-test'

def _kernelspec(d):
    "A kernel spec for this very Python in folder `d`, so the kernel runs the llmsurgery under test"
    spec = Path(d)/'kernels'/KERNEL
    spec.mkdir(parents=True)
    (spec/'kernel.json').write_text(json.dumps({
        'argv': [sys.executable, '-m', 'ipykernel_launcher', '-f', '{connection_file}'],
        'display_name': KERNEL, 'language': 'python'}))
    os.environ['JUPYTER_PATH'] = str(d)

def run_nb(nb, cwd=NBS, timeout=900, env=None):
    """Execute notebook `nb` (a path or a `NotebookNode`) top to bottom in a real kernel, in environment `env` (default:
    this process's); the executed notebook"""
    nb = nbformat.read(nb, as_version=4) if isinstance(nb, (str, Path)) else nb
    old = os.environ.get('JUPYTER_PATH')
    with tempfile.TemporaryDirectory(prefix='llmsurgery-kernel-') as d:  # removed once the kernel is done
        _kernelspec(d)
        if env is not None: env = dict(env, JUPYTER_PATH=d)
        kw = {} if env is None else dict(env=env)
        try: NotebookClient(nb, timeout=timeout, kernel_name=KERNEL,
                            resources={'metadata': {'path': str(cwd)}}).execute(**kw)
        finally:
            if old is None: os.environ.pop('JUPYTER_PATH', None)
            else: os.environ['JUPYTER_PATH'] = old
    return nb

def _imports_only(src):
    "Does cell source `src` hold imports alone (nbdev's directives aside)?"
    try: body = ast.parse('\n'.join(l for l in src.splitlines() if not l.startswith('#|'))).body
    except SyntaxError: return False
    return bool(body) and all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in body)

def left_out(path):
    """The code cells of notebook `path` that `nbdev-test` does not run (`#| eval: false`, or a flag of `tst_flags`),
    after every cell of it that holds imports alone: a notebook to run in a kernel, or None if nbdev-test runs it all"""
    ran = {c.id for c in nb_test_cells(path, skip_flags=get_config(path=NBS.parent).tst_flags.split())}
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == 'code']
    if all(c.id in ran for c in code): return None
    nb.cells = [c for c in code if c.id not in ran or _imports_only(c.source)]
    return nb

def no_keys():
    "This environment without API keys: the cells that need one must say so and skip, and spend no tokens"
    return {k: v for k, v in os.environ.items() if not (k.endswith('_API_KEY') or k.startswith('ANTHROPIC_'))}

def test_cells_nbdev_test_leaves_out_run_in_a_kernel():
    """Each cell nbdev-test leaves out runs in a real kernel after its notebook's imports (top-level `await`
    included); without an API key, each that needs one says so and skips"""
    nbs = {p.name: nb for p in sorted(NBS.glob('*.ipynb')) if (nb := left_out(p)) is not None}
    with ProcessPoolExecutor(2, mp_context=get_context('spawn')) as ex: ran = list(ex.map(_run_left_out, nbs.values()))
    assert [e for e in ran if isinstance(e, str)] == []
    skips = [(name, c) for name, nb in zip(nbs, ran) for c in nb.cells if "print('Skipped:" in c.source]
    assert len(skips) >= 2  # 08_resume asks Claude, 12b_convert an OpenAI model: each needs a key
    for name, c in skips:
        shown = ''.join(o.get('text', '') for o in c.outputs if o.get('name') == 'stdout')
        assert shown.startswith('Skipped: '), (name, c.source[:200], c.outputs)

def _run_left_out(nb):
    "Notebook `nb` executed in a kernel without API keys, or the error"
    try: return run_nb(nb, env=no_keys())
    except CellExecutionError as e: return '\n'.join(str(e).splitlines()[-6:])
    except Exception as e: return repr(e)

CELLS = [
    "from fastcore.basics import first\nfrom llmsurgery.core import *\nfrom llmsurgery.sess import *\n"
    "from llmsurgery.forensics import *\nfrom llmsurgery.usage import *\nfrom llmsurgery.search import *\n"
    "from llmsurgery.convert import sess2dlg\n"
    "from llmsurgery.show import show_recs\nfrom llmsurgery.thread import sess_thread\n"
    "from llmsurgery.fixtures import fixture, fixture_sess",
    "tools = fixture_sess('tools')",
    "with config_dir(fixture('tools')): ss = ls_sess()\nss",
    "tool_result(sess_tools(tools)[1].id, tools)",
    "sess2dlg(tools)",
    "sess_search('notes', tools)",
    "sess_stats(tools)",
    "sess_usage(tools)",
    "s = show_recs(sess_thread(tools)[:3])\ns",
]

def test_reprs_in_a_kernel():
    "What people see in Jupyter: tables, a tool call with its output, a dialog's replies; each once"
    nb = run_nb(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS]))
    md = [[o['data'].get('text/markdown', '') for o in c.outputs if 'data' in o] for c in nb.cells]
    sessions, call, dlg, hits, stats, usage, shown = md[2:]
    assert sessions[0].startswith('**Sessions**') and '| ran | size | sid | label |' in sessions[0]
    assert call == ["**Bash** ls missing-dir **failed**\n\n```text\nExit code 2\n"
                    "ls: cannot access 'missing-dir': No such file or directory\n```"]
    assert '**Prompt:**\n\n```text\nTidy up notes.txt' in dlg[0] and 'output_type' not in dlg[0]
    assert '| idx | role | time | tool | preview |' in hits[0]
    assert '| **session** | 8afb154b-f89d-4d3b-afa8-20824c002172 |' in stats[0]
    assert '| model | messages |' in usage[0]
    assert len(shown) == 1 and '--- user · ' in shown[0]  # displayed by show_recs, not again as the cell's value
