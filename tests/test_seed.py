"""The 0.0.2 API docs' examples run unchanged against today's llmsurgery.

The examples are read at test time from `../shared/seed/llmsurgery-0.0.2-ant-docs.md` (relative to the repository
root; never copied here), run in order in one namespace with every llmsurgery module star-imported, inside a scratch
Claude config folder. Every block must pass except those listed in `DIFFERENCES`, each with its reason; those must
still fail (a difference that went away is reported too, so the list stays honest)."""
import asyncio, importlib, os, pkgutil, re, traceback
from pathlib import Path
import pytest
import llmsurgery

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT.parent/'shared'/'seed'/'llmsurgery-0.0.2-ant-docs.md'

# Blocks that stay different, by a phrase of their source: the reason (the docs say the same: nbs/index.ipynb), and
# the block as it reads today (None: nothing to run instead), which runs in its place so later blocks find its names.
DIFFERENCES = {
    "from fastllm.chat import tool_dtls_tag": (
        "fastllm.chat no longer has `tool_dtls_tag` nor `fmt2hist`: `fmt2hist` is llmsurgery.hist's (it still reads "
        "the older `<details class='tool-usage-details'>` replies the seed writes)",
        lambda s: s.replace("from fastllm.chat import tool_dtls_tag, fmt2hist",
                            "tool_dtls_tag = \"<details class='tool-usage-details'>\"")),
    "cur_sess()\n": ("needs a live session in the current directory (outside one, no session is current: an error)",
                     None),
    "test_eq(cur_sess(tp), 'newer')": (
        "session ids must be UUIDs, so an id can never be a path: `older.jsonl`/`newer.jsonl` are not sessions; and "
        "outside a live session no session is current (an error, not None)",
        lambda s: s.replace("test_eq(cur_sess(tp), 'newer')", "test_eq(cur_sess(tp), stable_uuid('newer'))")
                   .replace("enumerate(['older','newer'])", "enumerate([stable_uuid('older'),stable_uuid('newer')])")
                   .replace(".touch()", ".write_text(json.dumps(mk_rec('user', 'hi'))+'\\n')")
                   .replace("test_eq(cur_sess(tempfile.mkdtemp()), os.environ.get('CLAUDE_CODE_SESSION_ID'))",
                            "test_fail(cur_sess, args=[tempfile.mkdtemp()])")),
    "test_eq(sess_file('abc'": (
        "session ids must be UUIDs, so an id can never be a path: `abc` is refused",
        lambda s: "test_fail(sess_file, args=['abc', '/a/b_c'], contains='abc')\n"
                  "test_eq(sess_dir('/a/b_c'), projects_dir()/'-a-b-c')\n"),
    "smsgs[1].content[0].data['id']": (
        "fastllm's message parts no longer have `.data`: a tool call's id is `.id` on aidialog's parts",
        lambda s: s.replace(".data['id']", ".id")),
    "fdlg = Dialog('flux')": (
        "aidialog's `Dialog` takes its messages first and refuses a name there: `Dialog(name='flux')`",
        lambda s: s.replace("Dialog('flux')", "Dialog(name='flux')")),
    "test_eq(len(fback), 4)": (
        "records are written as Claude Code writes them, one per content block of a reply (0.0.2 wrote one per "
        "message): the reply `[text, tool_use]` is two records, so the session has 5",
        lambda s: s.replace("test_eq(len(fback), 4)", "test_eq(len(fback), 5)")),
    "recs = load_sess() if sess_file().exists()": (
        "needs a live session in the current directory: outside one, `sess_file()` has no session to name",
        lambda s: s.replace("load_sess() if sess_file().exists() else ", "")),
    "from claude_agent_sdk import query": ("resumes through the real API: needs a live login and spends tokens", None),
}

# Private names of 0.0.2's module that its examples use (the notebook could see them); here public, under new names.
# `_est_toks` is `est_toks` (llmsurgery.write); `_tr_txt(block)` read a tool_result block's text, as `result_txt`
# (llmsurgery.rec) reads its content.
PRIVATE = ("from llmsurgery.write import est_toks as _est_toks\n"
           "def _tr_txt(b): return result_txt(b.get('content'))\n")

def seed_blocks(text):
    "The python code blocks of the seed docs, in order: not signatures (`def f(...):` with no body), not outputs"
    blocks = re.findall(r'^(<div class="prose" markdown="1">\n\n)?``` python\n(.*?)^```', text, flags=re.M | re.S)
    return [b for out, b in blocks if not out and not re.fullmatch(r'(async )?def \w+\(.*\):\s*', b, flags=re.S)]

def difference(src):
    "`(reason, today's block)` for a block that stays different, else None"
    return next((d for k, d in DIFFERENCES.items() if k in src), None)

def run_block(src, ns):
    "Run `src` in `ns`; top-level `async for` / `await` run in a fresh event loop"
    code = compile(src, '<seed>', 'exec', flags=0x2000)  # ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    res = eval(code, ns)
    if asyncio.iscoroutine(res): asyncio.run(res)

@pytest.fixture
def seed_ns(tmp_path, monkeypatch):
    if not SEED.exists():
        pytest.skip(f"needs llmsurgery 0.0.2's API docs, {SEED.name}, which are not ours to copy into the repository: "
                    f"they are read from ../shared/seed/ beside the checkout, and {SEED} is absent")
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(tmp_path/'config'))
    monkeypatch.delenv('CLAUDE_CODE_SESSION_ID', raising=False)
    monkeypatch.chdir(tmp_path)
    # The seed's notebook ran in its module's namespace: its imports (fastcore's utilities, json, base64) were there.
    ns = {'__name__': '__seed__'}
    exec('from fastcore.utils import *\nimport base64, json, os\n' + PRIVATE, ns)
    for m in pkgutil.iter_modules(llmsurgery.__path__):
        if not m.name.startswith('_'): exec(f'from llmsurgery.{m.name} import *', ns)
    return ns

def attempt(src, ns):
    "None if `src` runs in `ns`, else the error it raised, as one line"
    try: run_block(src, ns)
    except Exception as e: return ''.join(traceback.format_exception_only(e)).strip()

def test_seed_examples_run(seed_ns):
    blocks = seed_blocks(SEED.read_text())
    assert len(blocks) >= 30
    res, vanished, failed = [], [], []
    for src in blocks:
        d = difference(src)
        if d and d[1] is None: res.append((src, 'not run')); continue
        err = attempt(src, {**seed_ns} if d else seed_ns)  # a differing block runs on a copy, then today's form
        if d and not err: vanished.append(src)
        if d: failed += [(d[1](src), attempt(d[1](src), seed_ns))]
        res.append((src, err))
    unexpected = [(s, e) for s, e in res if e and not difference(s)] + [(s, e) for s, e in failed if e]
    passed = sum(not e for _, e in res)
    print(f'{passed} of {len(res)} seed blocks pass unchanged; {len(res)-passed} are listed differences:')
    for s, e in res:
        if e: print(f'  {s.strip().splitlines()[0][:70]!r}: {difference(s)[0][:90]}')
    assert not unexpected, '\n\n'.join(f'{s.strip()[:400]}\n=> {e}' for s, e in unexpected)
    assert not vanished, 'these differences are gone; drop them from DIFFERENCES:\n' + '\n'.join(vanished)
    assert len({difference(s)[0] for s, _ in res if difference(s)}) == len(DIFFERENCES)
