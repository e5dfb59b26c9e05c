"The notebooks as docs: the docs build can run what it runs, and every page is in the sidebar"
import ast, json
from pathlib import Path

NBS = Path(__file__).parent.parent/'nbs'
EXPORT = ('export', 'exporti', 'exports', 'exec_doc')

def _cells(nb):
    for i, c in enumerate(json.loads(nb.read_text())['cells']):
        if c['cell_type'] == 'code': yield i, ''.join(c['source'])

def _directives(src): return [l[3:].strip() for l in src.splitlines() if l.startswith('#|')]

def test_cells_with_imports_only_import():
    "nbdev's docs build runs every cell holding an import in a fresh namespace: such a cell must hold imports alone"
    bad = []
    for nb in sorted(NBS.glob('*.ipynb')):
        for i, src in _cells(nb):
            ds = _directives(src)
            if any(d.split()[0] in EXPORT for d in ds if d) or 'eval: false' in ds: continue
            try: tree = ast.parse('\n'.join(l for l in src.splitlines() if not l.startswith(('%', '!'))))
            except SyntaxError: continue
            if not any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in ast.walk(tree)): continue
            if not all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in tree.body):
                bad.append(f'{nb.name} cell {i}')
    assert bad == []

def test_every_notebook_is_in_the_sidebar():
    "The sidebar is written by hand (`custom_sidebar`): a new notebook must be added to `nbs/sidebar.yml`"
    side = (NBS/'sidebar.yml').read_text()
    assert [nb.name for nb in sorted(NBS.glob('*.ipynb')) if nb.name not in side] == []

def test_lines_fit():
    "Every line of every notebook (code and prose) is at most 120 characters, as the docs site shows them"
    long = [f'{nb.name} cell {i}: {l[:60]}…' for nb in sorted(NBS.glob('*.ipynb'))
            for i, c in enumerate(json.loads(nb.read_text())['cells']) for l in ''.join(c['source']).splitlines()
            if len(l) > 120]
    assert long == []

def _text_files(*globs):
    "The text files (binaries skipped: a NUL byte, or not UTF-8) that match `globs` under the repository's root"
    for f in sorted(f for g in globs for f in NBS.parent.glob(g) if f.is_file()):
        b = f.read_bytes()
        if b'\0' in b: continue
        try: yield f, b.decode()
        except UnicodeDecodeError: continue

def test_script_lines_fit():
    "The tests, tools and benchmarks keep to the same 120 characters a line as the notebooks"
    long = [f'{f.relative_to(NBS.parent)}:{i}: {l[:60]}…'
            for f, src in _text_files('tests/*.py', 'tools/*', 'bench/*.py')
            for i, l in enumerate(src.splitlines(), 1) if len(l) > 120]
    assert long == []

def _undocumented(fn, lines):
    "The parameters of function `fn` (`self` aside) without a docment: a comment on the parameter's own line"
    args = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs, fn.args.vararg, fn.args.kwarg]
    return [a.arg for a in args if a is not None and a.arg not in ('self', 'cls')
            and '#' not in lines[a.lineno-1][a.col_offset:]]

def test_public_functions_have_docments():
    "Every public function of the package documents each parameter (docments), so its docs page says what it takes"
    bad = []
    for py in sorted((NBS.parent/'llmsurgery').glob('*.py')):
        if py.name.startswith('_'): continue
        lines = py.read_text().splitlines()
        for n in ast.parse(py.read_text()).body:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and not n.name.startswith('_'):
                if miss := _undocumented(n, lines): bad.append(f'{py.name}: {n.name}({", ".join(miss)})')
    assert bad == []
