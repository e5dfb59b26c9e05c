"""Redaction benchmark (issue 13): recall, false positives and throughput.

1. Records a session with the real Claude Code CLI (offline, the scripted `FakeAPI` and the recorder's `Recording`,
   file checkpointing on) in which scripted tool calls plant fake secrets of every kind below: through a prompt, the
   input of Write and Edit, what Read and Bash print, a thinking block, a subagent's Bash output and the `/compact`
   summary; and print some 400 near-misses (ids, hashes, paths, versions, placeholders, code naming a secret).
2. Redacts it with `redact_sess` into a folder of its own, then counts, over every file written (transcript,
   subagents, tool outputs kept beside it, file-history backups): **recall**, the planted secrets gone from
   everywhere they occurred (`toolUseResult` and the request journal included), and **false positives**, near-misses
   whose number of occurrences changed. The copy is resumed through the real CLI (`resume_check`).
3. Times `redact_sess` and `redact_check` on the ~100 MB benchmark transcript (`benchlib.build`) against
   `load_recs` alone, in this one process.

    .venv/bin/python bench/bench_redact.py [--mb 100] [--reps 3]

Targets: every planted secret removed, no near-miss changed. Ratios are printed, never asserted.
"""
import argparse, base64, json, os, random, shutil, string, tempfile, time, uuid
from pathlib import Path
import llmsurgery.claude as claude
from llmsurgery.core import load_recs, config_dir, proj_slug
from llmsurgery.fakeapi import text_block, thinking_block, tool_use_block, route, is_compact
from llmsurgery.record import Recording
from llmsurgery.redact import redact_sess, redact_check, sess_files
from llmsurgery.resume import resume_check
from llmsurgery.sess import open_sess
from benchlib import DATA, build, best

rnd = random.Random(13)
A, U, H, D = (string.ascii_letters + string.digits, string.ascii_uppercase + string.digits, '0123456789abcdef',
              string.digits)
def r(chars, n): return ''.join(rnd.choice(chars) for _ in range(n))

def pem():
    body = '\n'.join(r(A + '+/', 64) for _ in range(8))
    return f'-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----'

# kind -> (the secret, the line that holds it)
def planted():
    s = {
        'anthropic_key': 'sk-ant-api03-' + r(A + '-_', 93) + 'AA',
        'openai_key': 'sk-proj-' + r(A, 48),
        'aws_access_key': 'AKIA' + r(U, 16),
        'github_token': 'ghp_' + r(A, 36),
        'github_pat': 'github_pat_' + r(A + '_', 82),
        'gitlab_token': 'glpat-' + r(A, 20),
        'slack_token': f'xoxb-{r(D, 12)}-{r(D, 13)}-{r(A, 24)}',
        'slack_webhook': f'https://hooks.slack.com/services/T{r(U, 8)}/B{r(U, 10)}/{r(A, 24)}',
        'discord_bot_token': f'M{r(A, 23)}.{r(A, 6)}.{r(A, 27)}',
        'telegram_bot_token': f'{r(D, 10)}:{r(A, 35)}',
        'stripe_key': 'sk_live_' + r(A, 24),
        'stripe_webhook': 'whsec_' + r(A, 32),
        'square_secret': 'sq0csp-' + r(A, 43),
        'sendgrid_key': f'SG.{r(A, 22)}.{r(A, 43)}',
        'mailchimp_key': r(H, 32) + '-us12',
        'twilio_key': 'SK' + r(H, 32),
        'pypi_token': 'pypi-AgEIcHlwaS5vcmc' + r(A, 70),
        'npm_token': 'npm_' + r(A, 36),
        'google_api_key': 'AIza' + r(A, 35),
        'google_oauth_token': 'ya29.' + r(A, 60),
        'google_client_secret': 'GOCSPX-' + r(A, 28),
        'huggingface_token': 'hf_' + r(A, 34),
        'digitalocean_token': 'dop_v1_' + r(H, 64),
        'shopify_token': 'shpat_' + r(H, 32),
        'postman_key': f'PMAK-{r(H, 24)}-{r(H, 34)}',
        'databricks_token': 'dapi' + r(H, 32),
        'linear_key': 'lin_api_' + r(A, 40),
        'groq_key': 'gsk_' + r(A, 52),
        'replicate_token': 'r8_' + r(A, 37),
        'age_secret_key': 'AGE-SECRET-KEY-1' + r(U, 58),
        'vault_token': 'hvs.' + r(A, 90),
        'doppler_token': 'dp.pt.' + r(A, 43),
        'jwt': 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ' + r(A, 40) + '.' + r(A, 43),
        'private_key': pem(),
        'azure_storage_key': r(A, 86) + '==',
        'url_password': r(A, 12) + '!x',
        'authorization': r(A, 40),
        'env_secret': r(A, 10) + '#%',
        'assigned_secret': r(A, 32),
    }
    lines = {k: v for k, v in s.items()}
    lines.update({
        'slack_webhook': f'SLACK_HOOK_URL={s["slack_webhook"]}',
        'azure_storage_key': 'AZURE=DefaultEndpointsProtocol=https;AccountName=acme;'
                             f'AccountKey={s["azure_storage_key"]};',
        'url_password': f'DATABASE_URL=postgres://app:{s["url_password"]}@db.internal:5432/prod',
        'authorization': f'curl -H "Authorization: Bearer {s["authorization"]}" https://api.example.com/v1/me',
        'env_secret': f'DB_PASSWORD={s["env_secret"]}',
        'assigned_secret': f'client_secret = "{s["assigned_secret"]}"',
    })
    return s, lines

def near_misses():
    "Some 400 strings that look random or name a secret but hold none, one per line"
    out = [str(uuid.UUID(int=rnd.getrandbits(128), version=4)) for _ in range(60)]
    out += [r(H, 40) for _ in range(40)] + [f'commit {r(H, 7)}' for _ in range(20)]
    out += [f'sha256:{r(H, 64)}' for _ in range(30)] + [f'md5 {r(H, 32)}' for _ in range(20)]
    out += [f'integrity sha512-{base64.b64encode(rnd.randbytes(64)).decode()}' for _ in range(15)]
    out += [base64.b64encode(rnd.randbytes(48)).decode() for _ in range(20)]
    out += [f'toolu_01{r(A, 22)}' for _ in range(15)] + [f'msg_01{r(A, 22)}' for _ in range(15)]
    out += [f'req_011C{r(A, 20)}' for _ in range(15)]
    out += ['/home/dev/.ssh/id_ed25519', '~/.aws/credentials', '/etc/ssl/private/server.key',
            'src/auth/token_service.py', 'C:\\Users\\dev\\AppData\\Roaming\\npm\\.npmrc', 'config/secrets.example.yaml',
            '/var/run/secrets/kube/token', 'tests/fixtures/fake_keys.json', 'app/models/api_key.rb',
            'lib/password_reset.ex']
    out += [f'v{rnd.randint(0, 20)}.{rnd.randint(0, 99)}.{rnd.randint(0, 999)}' for _ in range(15)]
    out += ['claude-agent-sdk 0.2.189', 'Python 3.12.1', 'node v20.20.2', 'Claude Code 2.1.332', 'go1.23.4 linux/amd64']
    out += ['OPENAI_API_KEY=sk-...', 'api_key="<your-key>"', 'AKIAIOSFODNN7EXAMPLE',
            'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
            'ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'export GITHUB_TOKEN=<your-token>', 'password: ********',
            'API_KEY=${API_KEY}', 'TOKEN=$(cat ~/.token)',
            'curl -H "Authorization: Bearer $TOKEN" https://api.github.com',
            'postgres://user:password@localhost:5432/db', 'redis://localhost:6379/0',
            'https://example.com:8443/path?q=1',
            'api_key: YOUR_API_KEY', 'SECRET_KEY=changeme', 'STRIPE_KEY=sk_test_...',
            'token: "{{ secrets.NPM_TOKEN }}"',
            'Authorization: Bearer <token>', 'password = None', 'DB_PASSWORD=', 'hf_token = "hf_..."', 'sk-ant-...',
            'Set ANTHROPIC_API_KEY to your key', 'your_api_key_here', 'xoxb-your-bot-token']
    out += ['token = os.environ["GITHUB_TOKEN"]', 'password = getpass.getpass()', 'secret_key = settings.SECRET_KEY',
            'max_tokens: 4096', 'MAX_TOKENS=8192', 'TOKEN_EXPIRY=3600', 'PASSWORD_MIN_LENGTH=12',
            'def get_token(self):',
            'if password is None:', 'tokenizer = AutoTokenizer.from_pretrained(name)', 'cache_key = f"user:{uid}"',
            'id = Column(Integer, primary_key=True)', 'public_key = load_pem_public_key(data)', 'token_count: int = 0',
            'password_hash = bcrypt.hashpw(pw, salt)', 'api_key = request.headers.get("X-Api-Key")',
            'auth_token = self.auth_token',
            'KEYBOARD_LAYOUT=us', 'SSH_KEY_PATH=~/.ssh/id_rsa', 'TOKENIZERS_PARALLELISM=false',
            'access_token: Optional[str] = None', 'secret: str', 'usage: {"input_tokens": 1234, "output_tokens": 56}',
            'Co-Authored-By: Claude <noreply@anthropic.com>', 'author: Jane Doe', 'keys = list(d.keys())',
            'passthrough=True', 'patience=5', 'password_field = forms.CharField(widget=forms.PasswordInput)',
            'jwt.decode(token, key, algorithms=["HS256"])', 'session.get(url, auth=(user, password))']
    out += ([f'{rnd.randint(10**9, 10**10)}' for _ in range(10)]
            + [f'2026-11-{rnd.randint(1, 30):02d}T10:00:00.000Z' for _ in range(10)])
    out += [f'image sha {r(H, 12)}' for _ in range(10)] + [f'docker pull python@sha256:{r(H, 64)}' for _ in range(10)]
    out += [f'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{r(A, 43)} dev@laptop' for _ in range(5)]
    return list(dict.fromkeys(out))

def record(root):
    "Record the session; return its config folder and session id"
    s, lines = planted()
    ks = list(lines)
    env_part, bash_part, sub_part = ks[:14], ks[14:26], ks[26:34]
    rec = Recording('redact', 'Agent,Bash,Read,Write,Edit', root, timeout=300)
    cwd = rec.cwd
    (cwd/'secrets.txt').write_text('\n'.join(lines[k] for k in bash_part) + '\n')
    (cwd/'sub.txt').write_text('\n'.join(lines[k] for k in sub_part) + '\n')
    near = near_misses()
    for i in range(0, len(near), 60): (cwd/f'near{i//60}.txt').write_text('\n'.join(near[i:i+60]) + '\n')
    nears = sorted(p.name for p in cwd.glob('near*.txt'))
    (cwd/'deploy.sh').write_text(f'#!/bin/sh\nexport SENTRY_AUTH_TOKEN=placeholder-to-replace\n')
    env_text = '\n'.join(lines[k] for k in env_part) + '\n'
    summary = [text_block(f'<summary>1. Deployed with {s["huggingface_token"]}.\n2. Read near.txt.</summary>')]
    def agent(prompt): return tool_use_block('Agent', {'description': 'Read sub.txt', 'prompt': prompt,
                                                       'subagent_type': 'general-purpose', 'run_in_background': False})
    sid = rec.run(f'Set up the deploy. My token is {s["github_token"]}.', route(main=[
        [tool_use_block('Write', {'file_path': str(cwd/'.env'), 'content': env_text})],
        [tool_use_block('Read', {'file_path': str(cwd/'.env')})],
        [thinking_block(f'The AWS key {s["aws_access_key"]} is in .env; the script needs {s["age_secret_key"]} too.'),
         tool_use_block('Bash', {'command': 'cat secrets.txt', 'description': 'Show the secrets file'})],
        [tool_use_block('Read', {'file_path': str(cwd/'deploy.sh')})],
        [tool_use_block('Edit', {'file_path': str(cwd/'deploy.sh'), 'old_string': 'placeholder-to-replace',
                                 'new_string': lines[ks[34]]})],
        *[[tool_use_block('Bash', {'command': f'cat {n}', 'description': 'Show the notes'})] for n in nears],
        *[[tool_use_block('Read', {'file_path': str(cwd/n)})] for n in nears],
        [agent('Print sub.txt with cat and report.')],
        [thinking_block('All set; nothing secret in this thought.'), text_block('Done.')]],
        sub=[[tool_use_block('Bash', {'command': 'cat sub.txt', 'description': 'Print sub.txt'})],
             [text_block('sub.txt holds deployment settings.')]]))
    rec.run('/compact', [lambda req: summary if is_compact(req) else [text_block('?')]], resume=sid)
    extra = [k for k in ks[35:]]  # the rest go in a last prompt, so every kind is planted somewhere
    rec.run('Also note: ' + '; '.join(lines[k] for k in extra), [[text_block('Noted.')]], resume=sid)
    return rec.cfg, sid, s, near

def all_bytes(files): return [p.read_bytes() for p in files]

def occurrences(needle, blobs):
    forms = {needle.encode(), json.dumps(needle)[1:-1].encode()}
    return sum(b.count(f) for b in blobs for f in forms)

if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('--mb', type=float, default=100)
    ap.add_argument('--reps', type=int, default=3)
    a = ap.parse_args()
    os.environ.setdefault('LLMSURGERY_REDACT_KEY', 'bench key')
    _env = claude.claude_env  # file checkpointing on, so file-history backups are written too
    claude.claude_env = lambda *x, **k: {**_env(*x, **k), 'CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING': 'true'}
    root = Path(tempfile.mkdtemp(prefix='llmsurgery-bench-redact-'))
    t0 = time.monotonic()
    cfg, sid, secrets, near = record(root)
    with config_dir(cfg):
        src_files = [p for p, _ in sess_files(sid)]
        out = root/'shared'
        res = redact_sess(sid, out)
        with config_dir(out): new_files = [p for p, _ in sess_files(res.sid)]
    print(f'recorded and redacted in {time.monotonic()-t0:.0f} s: {len(src_files)} files in the session '
          f'({", ".join(sorted({p.parent.name for p in src_files}))}), {len(new_files)} written')
    before, after = all_bytes(src_files), all_bytes(new_files)
    n_kinds, missed, occ = len(secrets), [], 0
    for k, v in secrets.items():
        check = [v] if k != 'private_key' else [l for l in v.splitlines() if not l.startswith('-----')]
        o = sum(occurrences(c, before) for c in check)
        occ += o
        if o == 0: missed.append(f'{k} (never written by the CLI?)')
        elif any(occurrences(c, after) for c in check): missed.append(k)
    print(f'recall: {n_kinds - len(missed)}/{n_kinds} planted secrets removed from everywhere they occurred '
          f'({occ} occurrences before)' + (f'; NOT removed: {missed}' if missed else ''))
    changed = [n for n in near if occurrences(n, before) != occurrences(n, after)]
    absent = [n for n in near if not occurrences(n, before)]
    print(f'false positives: {len(changed)}/{len(near)} near-misses changed' + (f': {changed[:10]}' if changed else '')
          + (f' ({len(absent)} never written)' if absent else ''))
    print(f'report: {len(res.report)} findings, {len(res.report.counts)} kinds')
    rc = resume_check(path=res.path)
    print(f'resume: {rc}')
    # throughput
    DATA.mkdir(exist_ok=True)
    big = DATA/f'load_{a.mb:g}mb.jsonl'
    if not big.exists(): build(a.mb, big, chain=False)
    tcfg = DATA/'redact-config'
    shutil.rmtree(tcfg, ignore_errors=True)
    d = tcfg/'projects'/proj_slug('/tmp/bench-redact')
    d.mkdir(parents=True)
    bsid = str(uuid.uuid4())
    os.link(big, d/f'{bsid}.jsonl') if os.stat(big).st_dev == os.stat(d).st_dev else shutil.copy(big, d/f'{bsid}.jsonl')
    size = big.stat().st_size
    with config_dir(tcfg):
        tl = best(lambda: load_recs(big), a.reps)
        tc = best(lambda: redact_check(bsid), a.reps)
        tr = best(lambda: redact_sess(bsid, root/'big-out'), a.reps)
    print(f'{big.name}: {size/1e6:.0f} MB')
    print(f'load_recs     {tl:.2f} s  ({size/1e6/tl:.0f} MB/s; the baseline)')
    print(f'redact_check  {tc:.2f} s  ({tc/tl:.2f}x load_recs)')
    print(f'redact_sess   {tr:.2f} s  ({tr/tl:.2f}x load_recs; reads, redacts and writes the copy)')
    shutil.rmtree(root, ignore_errors=True)
    shutil.rmtree(tcfg, ignore_errors=True)
