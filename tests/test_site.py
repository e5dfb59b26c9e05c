"""The docs site, as far as this machine can build it: nbdev's processing of every notebook, each page rendered to
HTML (`tools/build_docs.py`; Quarto itself runs in the GitHub Pages workflow), then checked page by page."""
import ast, importlib, json, re, subprocess, sys
from html.parser import HTMLParser
from pathlib import Path
import pytest

ROOT = Path(__file__).parent.parent
NBS = ROOT/'nbs'
sys.path.insert(0, str(ROOT/'tools'))
from build_docs import build, page_name
from llmsurgery import API_MODULES
RIG = ('fixtures', 'fakeapi', 'cli_versions', 'recorder')  # the test rig, apart in llms.txt (tools/readme)

class _Text(HTMLParser):
    "The visible text and heading ids of a page"
    def __init__(self):
        super().__init__()
        self.text, self.ids, self.h1, self._in, self._skip = [], set(), [], None, 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ('script', 'style'): self._skip += 1
        if tag in ('h1', 'h2', 'h3', 'h4') and a.get('id'): self.ids.add(a['id'])
        if tag == 'h1': self._in = []
    def handle_endtag(self, tag):
        if tag in ('script', 'style'): self._skip -= 1
        if tag == 'h1' and self._in is not None:
            self.h1.append(''.join(self._in).strip().rstrip('¶').strip())
            self._in = None
    def handle_data(self, d):
        if self._skip: return
        self.text.append(d)
        if self._in is not None: self._in.append(d)

@pytest.fixture(scope='module')
def site():
    before = subprocess.run(['git', 'status', '--porcelain', 'nbs'], cwd=ROOT, capture_output=True, text=True).stdout
    s = build()
    after = subprocess.run(['git', 'status', '--porcelain', 'nbs'], cwd=ROOT, capture_output=True, text=True).stdout
    assert after == before, f'building the docs changed files in nbs/:\n{after}'
    return s

def _page(site, nb):
    p = _Text()
    p.feed((site/page_name(nb)).read_text())
    return p

def _title(nb): return json.loads(nb.read_text())['cells'][0]['source'][0].lstrip('# ').strip()

def _documented(mod):
    "The entries a module's page documents: its public functions and classes, and `Class.method` for patched methods"
    out = []
    for n in ast.parse((ROOT/'llmsurgery'/f'{mod}.py').read_text()).body:
        if not isinstance(n, (ast.FunctionDef, ast.ClassDef)) or n.name.startswith('_'): continue
        patched = any('patch' in ast.unparse(d) for d in getattr(n, 'decorator_list', []))
        cls = n.args.args[0].annotation if patched and n.args.args else None
        out.append(f'{ast.unparse(cls)}.{n.name}' if cls is not None else n.name)
    return out

NOTEBOOKS = sorted(NBS.glob('*.ipynb'))

@pytest.mark.notebooks
@pytest.mark.parametrize('nb', NOTEBOOKS, ids=lambda p: p.stem)
def test_page(site, nb):
    "Each notebook is a page: titled, free of errors and of nbdev's directives, documenting every function it exports"
    p = _page(site, nb)
    assert p.h1[:1] == [_title(nb)]
    text = ' '.join(p.text)
    assert not re.search(r'#\|\s*\w', text), 'an nbdev directive shows on the page'
    assert 'Traceback (most recent call last)' not in text and 'Error' not in ' '.join(p.h1)
    proc = json.loads((ROOT/'_proc'/nb.name).read_text())
    assert [o for c in proc['cells'] for o in c.get('outputs', []) if o.get('output_type') == 'error'] == []
    mod = next((l.split()[-1] for c in json.loads(nb.read_text())['cells'] for l in ''.join(c['source']).splitlines()
                if l.startswith('#| default_exp')), None)
    if mod: assert [n for n in _documented(mod) if n.lower() not in {i.lower() for i in p.ids}
                    and n not in _hidden(nb)] == []

def _hidden(nb):
    "Names defined in the exported cells a notebook hides from its page (`#| hide`): machinery a reader does not need"
    out = set()
    for c in json.loads(nb.read_text())['cells']:
        src = ''.join(c['source'])
        exported, hidden = (re.search(rf'^#\|\s*{d}', src, re.M) for d in ('export', 'hide'))
        if c['cell_type'] != 'code' or not exported or not hidden: continue
        for n in ast.parse(src).body:
            if isinstance(n, (ast.FunctionDef, ast.ClassDef)):
                patched = any('patch' in ast.unparse(d) for d in n.decorator_list)
                cls = n.args.args[0].annotation if patched and n.args.args else None
                out.add(f'{ast.unparse(cls)}.{n.name}' if cls is not None else n.name)
    return out

@pytest.mark.notebooks
def test_cli_page_is_a_reference(site):
    "The command line's page has a section per command: its heading, its usage and options, and a run's output"
    from llmsurgery.cli import cli_parser
    cmds = cli_parser()._subparsers._group_actions[0].choices
    p = _page(site, NBS/'19_cli.ipynb')
    text = ' '.join(p.text)
    html = (site/'cli.html').read_text()
    for name, sp in cmds.items():
        assert re.search(rf'<h[23][^>]*>\s*<code>llmsurgery {re.escape(name)}</code>', html), name
        assert f'llmsurgery {name}' in text and (sp.description or '') in text, name
        for a in sp._actions:
            if a.option_strings and a.dest not in ('help', 'json', 'skip_bad'):
                assert a.option_strings[-1] in text, (name, a.option_strings)
    assert text.count('(exit status ') >= 20  # the runs, with their output
    assert 'cmd_ls' not in text and 'fmt_ls' not in text and 'cli_command' not in html.split('How a command')[0]

@pytest.mark.notebooks
def test_index_page(site):
    "The home page shows the two commands a newcomer needs, and the example's output"
    text = ' '.join(_page(site, NBS/'index.ipynb').text)
    assert 'tools/run' in text and 'tools/test' in text and 'What is the capital of France?' in text

def test_llms_txt_and_package_docstring():
    "nbdev-export writes llms.txt and the package docstring: what llmsurgery does, each module in a line with its page"
    import llmsurgery
    llms = (NBS/'llms.txt').read_text()
    mods = sorted(p.stem for p in (ROOT/'llmsurgery').glob('*.py') if not p.name.startswith('_'))
    for m in mods:
        page = importlib.import_module(f'llmsurgery.{m}').__doc__.strip().splitlines()[-1].removeprefix('Docs: ')
        assert f'- [llmsurgery.{m}]({page}): ' in llms, m
        assert f'- `llmsurgery.{m}`: ' in llmsurgery.__doc__, m
    pages = [page_name(nb) for nb in NOTEBOOKS]
    assert len(set(pages)) == len(pages), 'two notebooks make the same page'

    assert 'claude --resume' in llms and 'llmsurgery find' in llms

@pytest.mark.notebooks
def test_llms_txt_links_pages_the_build_makes_and_summarises_every_function(site):
    """Every page llms.txt links is one the docs build makes (the `.html.md` Quarto writes beside each `.html`), and it
    gives the one-line summary of every public function"""
    llms = (NBS/'llms.txt').read_text()
    links = re.findall(r'\]\((https://llmsurgery\.github\.io/llmsurgery/[^)\s]+)\)', llms)
    assert len(links) >= 2 * 24
    missing = [u for u in links if not (site/u.rsplit('/', 1)[1]).exists() or not u.endswith('.html.md')]
    assert missing == []
    funcs, optional = llms.split('## Functions')[1].split('## Optional')
    for m in API_MODULES:
        if m in RIG: continue
        mod = importlib.import_module(f'llmsurgery.{m}')
        for n in mod.__all__:
            o = getattr(mod, n)
            if callable(o) and getattr(o, '__module__', None) == mod.__name__ and getattr(o, '__name__', None) == n \
               and (o.__doc__ or '').strip():
                assert f'- `{n}`: {o.__doc__.strip().splitlines()[0]}' in funcs, (m, n)

def test_llms_txt_is_the_users_api_and_export_leaves_it_alone():
    """llms.txt lists the user's modules, functions and commands; the test rig and the command line's machinery only
    in its Optional section; it is what tools/readme makes, and nbdev-export (which rewrites a file carrying its own
    marker) leaves it as it is"""
    from llmsurgery.cli import cli_parser
    llms = (NBS/'llms.txt').read_text()
    head, optional = llms.split('## Optional')
    for m in RIG + ('cli_base',): assert f'[llmsurgery.{m}]' in optional and f'llmsurgery.{m}' not in head, m
    for bad in ('`cmd_', '`opt`', '`emit`', '`progress`', '`cli_command`', 'FakeAPI'): assert bad not in llms, bad
    for name in cli_parser()._subparsers._group_actions[0].choices: assert f'- `llmsurgery {name}`: ' in head, name
    assert 'Generated by nbdev-export' not in llms
    r = subprocess.run([sys.executable, str(ROOT/'tools'/'readme'), '--check'], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
