"""Find, read, walk, search, write and convert Claude Code session transcripts

Claude Code keeps every conversation as a JSONL transcript under `~/.claude/projects/<project>/<session id>.jsonl`
(`$CLAUDE_CONFIG_DIR` replaces `~/.claude`), and `claude --resume <id>` rebuilds the conversation from that file,
whoever wrote it. llmsurgery is a literate Python library and a command line for working with those files: find a
session, read it, walk the `parentUuid` chain exactly as `claude --resume` does, search it, investigate what
happened in it (prompts, tool calls, failures, files, subagents, tokens and cost), write and curate sessions that
resume, and convert them to and from chat messages and notebook dialogs. Its rules are measured against the real
Claude Code CLI, run offline against a fake API, never guessed.

From a shell (or from inside a Claude Code session, which can read its own transcript this way):

```sh
. .venv/bin/activate               # once per shell: llmsurgery on PATH (tools/run made .venv)
llmsurgery ls                      # every project and session, newest first
llmsurgery show .                  # the current project's newest session, as `claude --resume` sees it
llmsurgery find 'zebra crossing'   # which sessions said it, across every project, subagents included
llmsurgery stats 9b2c0a1e          # one screen: prompts, turns, tools, errors, subagents, tokens, cost
llmsurgery errors --all --tool Bash
llmsurgery files --edited core.py  # which sessions wrote or edited it
llmsurgery usage --by day
llmsurgery resume-check .          # will it resume, and as what? (the real CLI, offline, no tokens)
llmsurgery resume-preview .        # what resume would send and lose, without running it (--cli 2.1.1: as that CLI)
llmsurgery drift                   # record types and fields llmsurgery does not know yet, by version
llmsurgery sess2nb . -o chat.ipynb # the conversation as a notebook dialog; nb2sess writes one back
llmsurgery redact . -o share/      # a copy with keys, tokens and passwords replaced; --check gates a share
llmsurgery html --all -o site/     # every session as a page, site/index.html listing them (again: only what changed)
```

A session is named by id, unique id prefix, title, path, or `.`; `--json` gives data for programs and agents; the
exit status is 0 when something was found, 1 when nothing was, 2 on bad usage.

Claude Code can ask the same questions itself, as MCP tools, with no shell: install llmsurgery's MCP server once,

```sh
llmsurgery mcp install             # for you, in every project (--project: this project's .mcp.json)
```

and the agent finds past sessions by phrase or regex, reads them, and sees their tool calls, files, commands,
failures, subagents and cost (read-only; `llmsurgery mcp --allow-writes` adds rename, tag, fork and redact).

Modules:

- `llmsurgery.archive_index`: A warm index of the whole archive in SQLite: cross-session questions answered without reading every transcript again
- `llmsurgery.backup`: A backup that survives Claude Code's cleanup, what the next cleanup will delete, and getting a session back
- `llmsurgery.claude`: Find the Claude Code CLI, give it a clean environment and a Messages API of our own on loopback, and run it
- `llmsurgery.cli`: `llmsurgery ls`, `llmsurgery show` and friends: each command is one library call plus formatting
- `llmsurgery.cli_base`: How the `llmsurgery` command line is built: each command declared once, then parsed, run and answered
- `llmsurgery.cli_versions`: Fetch the Claude Code CLIs of earlier releases into a cache, so tests and recordings can run them side by side
- `llmsurgery.codex`: OpenAI Codex's rollouts, read as sessions beside Claude Code's: listed, opened by id, read by the same readers
- `llmsurgery.convert`: Convert a Claude Code session to canonical chat messages and to a dialog notebook, and a dialog back to a session
- `llmsurgery.core`: Find Claude Code's config folder and a project's folder of transcripts, and read a transcript record by record
- `llmsurgery.dialog`: The two forms a conversation takes outside Claude Code: aidialog's notebook dialogs and canonical chat messages
- `llmsurgery.drift`: The record types, subtypes and fields of an archive that llmsurgery does not know yet, by the version that wrote them
- `llmsurgery.export`: The archive index's tables as Parquet files, partitioned by project and month, for DuckDB, Spark and the rest
- `llmsurgery.fakeapi`: Script the model's side of a whole conversation, tool calls and subagents included, so the real CLI acts it out
- `llmsurgery.fakeresponses`: A fake OpenAI Responses API on loopback, a proxy that refuses everything else, and the real `codex` run against them
- `llmsurgery.files`: Atomic writes, locks, inside-checks, and the ledger of what llmsurgery wrote: the plumbing under every writer
- `llmsurgery.fixtures`: The transcripts recorded from the real Claude Code CLI that ship with llmsurgery, and how to open them
- `llmsurgery.forensics`: What was asked, what ran, what failed, which files were touched, what the subagents did, and what it cost
- `llmsurgery.handoff`: A Claude Code session continued in Codex, or a Codex session in Claude Code: written where the other CLI resumes it
- `llmsurgery.hist`: Read a dialog's replies back into canonical messages, write messages as a dialog, and walk a dialog as history
- `llmsurgery.manage`: Rename, tag, delete, fork at a message, and move a project's sessions after its folder moved, as Claude Code would
- `llmsurgery.mcp_server`: `llmsurgery mcp`: a running agent asks its own history through typed tools, on the official MCP Python SDK
- `llmsurgery.page`: One self-contained HTML page of a session, for a bug report, a review or a post: its stats, then its conversation
- `llmsurgery.rec`: A record's anatomy: its message, content blocks, text, tool calls and results, ids, copies, times and cuts
- `llmsurgery.recorder`: Regenerate the sample transcripts the library is tested against by running the installed Claude Code CLI offline
- `llmsurgery.redact`: Find the secrets a session holds, put keyed placeholders in their place everywhere, and keep the session resumable
- `llmsurgery.resume`: Resume a scratch copy of any session with the real Claude Code CLI, offline, and see the conversation it rebuilt
- `llmsurgery.scan`: Find the lines of a transcript that may hold a phrase or match a regex, without parsing the rest: fast on archives
- `llmsurgery.search`: Where a session said something: a regex over the readable text of every record, of one session or of the whole archive
- `llmsurgery.sent`: The messages Claude Code sends for a thread when it resumes: joined, paired and repaired as each version does
- `llmsurgery.sess`: Name a session as people do, open it once, list the sessions of a project or the whole archive, find its subagents
- `llmsurgery.show`: Aligned tables for people, plain data for programs, and one readable rendering of a conversation
- `llmsurgery.skill`: Teach Claude Code, from inside any session, to answer questions about its own and other sessions with llmsurgery
- `llmsurgery.thread`: Which records make up the conversation `claude --resume` rebuilds, and in what order, for each Claude Code version
- `llmsurgery.usage`: Tokens and dollars of every API message, counted once, at one price rule: a session, its subagents, the archive
- `llmsurgery.util`: A field read as the type it should have, a file that may be gone, digests, a person's regular expression
- `llmsurgery.view`: HTML that reads like a conversation viewer, and tables and charts, with every transcript string inert
- `llmsurgery.write`: Build transcript records, write sessions Claude Code resumes, and curate real ones without breaking them"""

# AUTOGENERATED! DO NOT EDIT! File to edit: ../nbs/index.ipynb.

# %% auto #0
__all__ = []

# %% ../nbs/index.ipynb #a626aeb9
import importlib

__version__ = "0.0.3"

# What `from llmsurgery import *` brings: the library's modules, not the command line's nor the test rig's
API_MODULES = ('core', 'rec', 'show', 'view', 'sess', 'codex', 'thread', 'sent', 'claude', 'files', 'write',
               'resume', 'scan', 'search', 'usage', 'forensics', 'drift', 'dialog', 'hist', 'convert', 'handoff',
               'redact', 'archive_index', 'export', 'page', 'manage', 'backup', 'skill', 'fixtures')

def _home(name):
    "The API module that defines `name`, by the symbol table nbdev writes (no module is imported to find it)"
    from llmsurgery._modidx import d
    return next((m for m in API_MODULES if f'llmsurgery.{m}.{name}' in d['syms'].get(f'llmsurgery.{m}', {})), None)

def api_names() -> list:
    "The names `from llmsurgery import *` brings: each API module's `__all__` (importing them), a module's name aside"
    seen = {}
    for m in API_MODULES:
        for n in importlib.import_module(f'llmsurgery.{m}').__all__:
            if n not in API_MODULES: seen.setdefault(n, m)
    return list(seen)

def __getattr__(name):
    "A name of the API, imported when first asked for: `llmsurgery.sess_thread` imports `llmsurgery.thread` alone"
    if name == '__all__':
        globals()['__all__'] = names = api_names()
        return names
    if name.startswith('__') or name in API_MODULES: raise AttributeError(name)
    mods = [m] if (m := _home(name)) else API_MODULES
    for m in mods:
        mod = importlib.import_module(f'llmsurgery.{m}')
        if name in mod.__all__: return getattr(mod, name)
    raise AttributeError(f"module 'llmsurgery' has no attribute {name!r}")

def __dir__():
    from llmsurgery._modidx import d
    return sorted({*globals(), *(k.rsplit('.', 1)[1] for m in API_MODULES for k in d['syms'].get(f'llmsurgery.{m}', {})
                                 if k.count('.') == 2 and not k.rsplit('.', 1)[1].startswith('_'))})

globals().pop('__all__', None)  # nbdev-export writes an empty one above; `__getattr__` makes the real one when asked
