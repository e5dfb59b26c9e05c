"""Every read bounded (issue 28, item 4): outside `core`, no module reads a whole file into memory at once.

Transcripts are read through `core.open_recs` (records in memory up to `LAZY_MB`, else read from the file as they are
used) or `Sess`, or streamed a line or a chunk at a time; small JSON side files through `util.read_json(path, limit)`,
which refuses a file bigger than the limit instead of holding it. This test reads the package's source (not running
it) and names every call that would hold a whole file: `load_recs`, `.read_bytes()`, `.read_text()`, `.readlines()`,
`.read()` with no size, `json.load`."""
import ast
from pathlib import Path
import llmsurgery

PKG = Path(llmsurgery.__file__).parent
WHOLE = {'read_bytes', 'read_text', 'readlines'}  # methods that read a whole file, whatever their arguments

# Where a whole-file read is allowed, by module and function ('*': the whole module), and why
ALLOWED = {
    'core.py': {'*'},  # the one home of reading a transcript: `load_recs` is how `open_recs` holds a small one
    # The test rig reads only what it wrote itself or what ships in the package, never a user's file:
    'fixtures.py': {'fixture_meta', 'fixture_reqs'},  # the shipped fixtures' `fixture.json` and `requests.jsonl`
    'recorder.py': {'_lines'},  # a transcript the recorder just had the CLI write, in its scratch folder
}

def _name(f):
    "The name a call's function is known by: `load_recs`, `read_bytes`, `json.load`, ..."
    if isinstance(f, ast.Name): return f.id
    if isinstance(f, ast.Attribute):
        mod = f.value.id if isinstance(f.value, ast.Name) and f.value.id in ('json', 'orjson') else None
        return f'{mod}.{f.attr}' if mod else f.attr
    return None

def _whole(n) -> str | None:
    "What node `n` reads whole, when it does: a call (or a reference) that holds a whole file"
    if isinstance(n, ast.Name) and n.id == 'load_recs': return 'load_recs'
    if isinstance(n, ast.Attribute) and n.attr in WHOLE | {'load_recs'}: return n.attr
    if not isinstance(n, ast.Call): return None
    name = _name(n.func)
    if name in WHOLE | {'load_recs', 'json.load'}: return name
    if name == 'read' and isinstance(n.func, ast.Attribute):
        size = n.args[0] if n.args else next((k.value for k in n.keywords if k.arg in ('size', 'n')), None)
        if size is None or _const(size) in (None, -1): return '.read() with no size'
    return None

def _const(n):
    "The value of a constant node (`-1` included), else a marker that is no size"
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub) and isinstance(n.operand, ast.Constant):
        return -n.operand.value
    return n.value if isinstance(n, ast.Constant) else ...

def whole_reads(path) -> list:
    "`(function, line, what)` for each whole-file read in module `path`, named by the function it is in"
    found = []
    def visit(node, fn):
        for c in ast.iter_child_nodes(node):
            inner = c.name if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else fn
            if (what := _whole(c)) and not _is_called(c, node):
                found.append((inner, c.lineno, what))
            visit(c, inner)
    visit(ast.parse(path.read_text()), '<module>')
    return found

def _is_called(attr, parent) -> bool:
    "Is `attr` the function of call `parent`? (then the call is reported, not its name too)"
    return isinstance(parent, ast.Call) and parent.func is attr

def unbounded() -> list:
    "Every whole-file read in the package outside what `ALLOWED` allows"
    out = []
    for p in sorted(PKG.glob('*.py')):
        ok = ALLOWED.get(p.name, set())
        if '*' in ok or p.name == '_modidx.py': continue
        out += [f'{p.name}:{line} in {fn}: {what}' for fn, line, what in whole_reads(p) if fn not in ok]
    return out

def test_the_scan_finds_each_kind_of_whole_read(tmp_path):
    "A module holding each kind of whole-file read, and each bounded one: only the whole ones are named"
    src = tmp_path/'m.py'
    src.write_text('\n'.join([
        'import json', 'from pathlib import Path',
        'def a(p): return load_recs(p)', 'def b(p): return Path(p).read_bytes()', 'def c(p): return p.read_text()',
        'def d(f): return f.read()', 'def e(f): return f.readlines()', 'def g(f): return json.load(f)',
        'def h(f): return f.read(-1)', 'def i(ps): return list(map(Path.read_bytes, ps))',
        'def j(m): return m.load_recs(1)',
        'def ok1(f): return f.read(1 << 20)', 'def ok2(f): return f.read(size)', 'def ok3(f): return json.loads(b)',
        'def ok4(p): return open_recs(p)', 'def ok5(f): return [l for l in f]']))
    found = whole_reads(src)
    assert [fn for fn, _, _ in found] == list('abcdeghij')
    assert dict((fn, what) for fn, _, what in found) == dict(
        a='load_recs', b='read_bytes', c='read_text', d='.read() with no size', e='readlines', g='json.load',
        h='.read() with no size', i='read_bytes', j='load_recs')

def test_no_whole_file_read_outside_core():
    "Outside core, every transcript read goes through `open_recs` or `Sess`, every side file through `read_json`"
    assert unbounded() == []
