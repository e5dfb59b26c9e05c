"""Build the docs pages as far as a machine without Quarto can, into `_site/`.

The docs site is built by the GitHub Pages workflow with nbdev and Quarto (`nbdev-docs`). Quarto cannot be installed
here, so this runs the same first step, nbdev's processing of every notebook into `_proc/` (which executes the
exported and import cells in fresh namespaces and renders each exported function's documentation), without the
Quarto install that `nbdev-proc-nbs` attempts, and then renders each processed page to HTML with nbconvert, named as
Quarto names it (`04_sess.ipynb` -> `sess.html`), and to Markdown beside it (`sess.html.md`, the page `llms.txt` links,
which Quarto makes from the `commonmark` format). `tests/test_site.py` checks the pages; `tools/screenshots`
photographs two of them.

    .venv/bin/python tools/build_docs.py [--force]
"""
import os, re, sys
from pathlib import Path
import nbformat
from nbconvert import HTMLExporter, MarkdownExporter
from nbdev.config import get_config
from nbdev.quarto import refresh_quarto_yml
from nbdev.serve import proc_nbs
import nbdev.doclinks

def page_name(nb):
    "The page Quarto makes of notebook `nb`: its name without the number prefix, as `.html`"
    return re.sub(r'^\d+[a-z]?_', '', Path(nb).stem) + '.html'

def _front(node):
    "Title and description from the raw front-matter cell nbdev writes, which Quarto would turn into the page header"
    cell = node.cells[0] if node.cells and node.cells[0].cell_type == 'raw' else None
    if cell is None: return None, None
    meta = dict(re.findall(r'^(\w+):\s*(.*(?:\n[ ]+.*)*)', cell.source, re.M))
    node.cells.pop(0)
    clean = lambda s: ' '.join(s.split()) if s else s
    return clean(meta.get('title')), clean(meta.get('description'))

_attrs = re.compile(r'\{target="_blank"[^}]*\}')

def _quarto_options(node):
    """Apply the Quarto cell options nbdev writes: `include: false` drops a cell, `echo: false` its code, and
    `output: asis` makes its Markdown output part of the page (as the documentation of each exported function is)"""
    keep = []
    for c in node.cells:
        if c.cell_type == 'markdown':  # Quarto reads a markdown cell's `#|` lines as its options, not as text
            c.source = re.sub(r'\A(?:#\|.*\n?)+', '', c.source)
        opts = dict(re.findall(r'^#\|\s*([\w-]+):\s*(\S+)', c.source, re.M)) if c.cell_type == 'code' else {}
        if opts.get('include') == 'false': continue
        if opts.get('output') == 'asis':
            md = ''.join(''.join(o.get('data', {}).get('text/markdown', '')) for o in c.outputs)
            keep.append(nbformat.v4.new_markdown_cell(_attrs.sub('', md)))
            continue
        if opts.get('echo') == 'false': c.source = ''
        if c.cell_type == 'code': c.source = re.sub(r'\A(?:#\|.*\n?)+', '', c.source)  # options are not shown
        keep.append(c)
    node.cells = keep

_KEYS = dict(code={'cell_type', 'execution_count', 'id', 'metadata', 'outputs', 'source'},
             markdown={'cell_type', 'id', 'metadata', 'source', 'attachments'},
             raw={'cell_type', 'id', 'metadata', 'source'})

def render(proc, site):
    "Render every processed notebook in `proc` to a page in `site`"
    site.mkdir(exist_ok=True)
    ex = HTMLExporter(template_name='lab', exclude_input_prompt=True, exclude_output_prompt=True)
    for nb in sorted(proc.glob('*.ipynb')):
        node = nbformat.read(nb, as_version=4)
        for c in node.cells:  # nbdev's processing leaves keys of its own (`has_sd`) that nbformat would refuse
            for k in set(c) - _KEYS[c.cell_type]: del c[k]
            c.metadata.pop('execution', None)
        title, desc = _front(node)
        _quarto_options(node)
        node.cells = [c for c in node.cells if not (c.cell_type == 'code' and not c.source and not c.get('outputs'))]
        head = f'# {title}' + (f'\n\n> {desc}' if desc else '')
        node.cells.insert(0, nbformat.v4.new_markdown_cell(head))
        node.metadata['title'] = title or nb.stem
        html, _ = ex.from_notebook_node(node)
        (site/page_name(nb)).write_text(html)
        md, _ = MarkdownExporter().from_notebook_node(node)  # Quarto's `commonmark` format: the page `llms.txt` links
        (site/(page_name(nb) + '.md')).write_text(md)

def build(force=False):
    "Process the notebooks into `_proc/` and render them into `_site/`; returns the site folder"
    cfg = get_config()
    os.chdir(cfg.config_path)
    refresh_quarto_yml()
    nbdev.doclinks._build_modidx()
    proc_nbs(cfg.nbs_path, force=force)
    site = cfg.config_path/'_site'
    render(cfg.config_path/'_proc', site)
    return site

if __name__ == '__main__': print(build(force='--force' in sys.argv))
