"""llmsurgery in a real Jupyter kernel (ipykernel, driven by nbclient), as people use it in Jupyter.

`nbdev-test` runs the notebooks in its own shell, which honours `#| eval: false` and has no event loop of its own. A
person who opens a notebook and picks "Run all" gets neither: every cell runs, in a kernel whose event loop is
already running. These tests do exactly that, and check what llmsurgery's objects look like there.
"""
import json, os, sys, tempfile
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

NBS = Path(__file__).parent.parent/'nbs'
KERNEL = 'llmsurgery-test'

def _kernelspec():
    "A kernel spec for this very Python, so the kernel runs the llmsurgery under test"
    d = Path(tempfile.mkdtemp(prefix='llmsurgery-kernel-'))
    spec = d/'kernels'/KERNEL
    spec.mkdir(parents=True)
    (spec/'kernel.json').write_text(json.dumps({
        'argv': [sys.executable, '-m', 'ipykernel_launcher', '-f', '{connection_file}'],
        'display_name': KERNEL, 'language': 'python'}))
    os.environ['JUPYTER_PATH'] = str(d)

def run_nb(nb, cwd=NBS, timeout=900):
    "Execute notebook `nb` (a path or a `NotebookNode`) top to bottom in a real kernel; the executed notebook"
    _kernelspec()
    nb = nbformat.read(nb, as_version=4) if isinstance(nb, (str, Path)) else nb
    NotebookClient(nb, timeout=timeout, kernel_name=KERNEL, resources={'metadata': {'path': str(cwd)}}).execute()
    return nb

def _run_all(path):
    "None when notebook `path` runs to the end, else the error"
    try: run_nb(path)
    except CellExecutionError as e: return f'{Path(path).name}: ' + '\n'.join(str(e).splitlines()[-6:])
    except Exception as e: return f'{Path(path).name}: {e!r}'

def test_run_all_every_notebook():
    "Every notebook in nbs/ runs top to bottom in a real kernel, two at a time"
    nbs = sorted(NBS.glob('*.ipynb'))
    with ProcessPoolExecutor(2, mp_context=get_context('spawn')) as ex: errs = list(ex.map(_run_all, nbs))
    assert [e for e in errs if e] == []

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
