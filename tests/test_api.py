"The front door (issue 24): `import llmsurgery` imports nothing else; `from llmsurgery import *` brings the library"
import subprocess, sys
import pytest

def py(code):
    "Run `code` in a fresh interpreter; its stdout"
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()

def test_import_llmsurgery_imports_no_module_of_it_nor_its_dependencies():
    out = py("import sys, llmsurgery; print(sorted(m for m in sys.modules if m.startswith(('llmsurgery.', 'fastcore', "
             "'fastllm', 'orjson', 'aidialog', 'claude_agent_sdk', 'detect_secrets', 're2'))))")
    assert out == '[]'

def test_a_name_asked_of_the_package_imports_only_its_module():
    out = py("import sys, llmsurgery; f = llmsurgery.sess_thread; import llmsurgery.thread as t; "
             "print(f is t.sess_thread, sorted(m for m in sys.modules if m.startswith('llmsurgery.')))")
    assert out.startswith('True') and 'llmsurgery.convert' not in out and 'llmsurgery.redact' not in out

def test_star_import_gives_the_api():
    out = py("from llmsurgery import *\nimport llmsurgery.sess, llmsurgery.forensics, llmsurgery.page\n"
             "print(sess_thread.__module__, ls_sess is llmsurgery.sess.ls_sess, sess_usage.__module__, "
             "write_page.__module__, 'cmd_ls' in dir(), 'FakeAPI' in dir(), 'drift' in dir(), MAX_ROWS)")
    assert out == 'llmsurgery.thread True llmsurgery.usage llmsurgery.page False False False 200'

def test_unknown_names_and_version():
    import llmsurgery
    with pytest.raises(AttributeError): llmsurgery.no_such_name
    assert llmsurgery.__version__ == py('import llmsurgery.cli as c, io, contextlib\n'
        'f = io.StringIO()\nwith contextlib.redirect_stdout(f): c.main(["--version"])\nprint(f.getvalue())').split()[-1]
    assert 'sess_thread' in dir(llmsurgery)
