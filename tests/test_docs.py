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
            if not all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in tree.body): bad.append(f'{nb.name} cell {i}')
    assert bad == []

def test_every_notebook_is_in_the_sidebar():
    "The sidebar is written by hand (`custom_sidebar`): a new notebook must be added to `nbs/sidebar.yml`"
    side = (NBS/'sidebar.yml').read_text()
    assert [nb.name for nb in sorted(NBS.glob('*.ipynb')) if nb.name not in side] == []
