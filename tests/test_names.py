"The package's shape: no name shadows another under star imports, no private name crosses modules, no import cycle"
import ast, importlib, pkgutil
from pathlib import Path
import llmsurgery

PKG = Path(llmsurgery.__file__).parent
MODS = sorted(m.name for m in pkgutil.iter_modules([str(PKG)]) if not m.name.startswith('_'))

def test_star_imports_shadow_nothing():
    "Importing every module's `__all__` into one namespace: a name two modules export is the same object in both"
    seen = {}
    for name in MODS:
        mod = importlib.import_module(f'llmsurgery.{name}')
        for k in mod.__all__:
            obj = getattr(mod, k)
            if k in seen: assert seen[k][1] is obj, f'{k} is exported by both {seen[k][0]} and {name}, differently'
            else: seen[k] = (name, obj)
    assert len(seen) > 200

def _imports(path):
    "`(module, names)` for each `from ... import ...` of a llmsurgery module in the file at `path`"
    for n in ast.walk(ast.parse(path.read_text())):
        if isinstance(n, ast.ImportFrom) and (n.level or (n.module or '').startswith('llmsurgery')):
            mod = (n.module or '').removeprefix('llmsurgery').lstrip('.')
            yield mod, [a.name for a in n.names]

def test_no_private_name_crosses_modules():
    bad = [(f.name, m, a) for f in PKG.glob('*.py') if not f.name.startswith('_')
           for m, names in _imports(f) for a in names if a.startswith('_') and not a.startswith('__')]
    assert bad == []

def test_imports_are_acyclic_and_the_rig_is_apart():
    deps = {f.stem: {m.split('.')[0] for m, _ in _imports(f) if m}
            for f in PKG.glob('*.py') if not f.name.startswith('_')}
    state = {}
    def visit(m, path):
        assert state.get(m) != 1, f'import cycle: {" -> ".join(path + [m])}'
        if state.get(m) == 2: return
        state[m] = 1
        for d in deps.get(m, ()): visit(d, path + [m])
        state[m] = 2
    for m in deps: visit(m, [])
    rig = {'fakeapi', 'fakeresponses', 'recorder', 'cli_versions'}
    assert [m for m, ds in deps.items() if m not in rig and ds & rig] == []
