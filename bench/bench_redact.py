r"""Redaction benchmark (issues 13 and 20): recall on secrets the rules were not made from, precision, the check, and
throughput.

1. `fake_secrets` makes secrets of 120 formats the way their providers make them (prefix, length, alphabet, the
   CRC-32 GitHub and npm tokens end with, a JWT signed with HMAC, keys laid out as their DER or OpenSSH encoding
   begins), for the cloud, code-host, chat, payment, LLM, database and CI providers detect-secrets and the gitleaks rule
   set cover, plus private keys and the ways people write passwords (quoted and escaped, Django, Flask, Rails, YAML,
   TOML, INI, .netrc, curl -u, Basic auth, docker login and config.json, OAuth responses, prose). The formats are
   written here from the providers' documentation; nothing is downloaded and nothing comes from llmsurgery's rules.
2. `plant` puts all of them, with some 140 near-misses, through one channel of a session the real Claude Code CLI
   recorded (llmsurgery's fixtures): a typed prompt, Bash output, Read output (as Read prints it: `1\t...`), `cat -n`,
   an older CLI's Read (`     1→...`), Write and Edit input, a JSON tool result, a subagent's transcript and its
   `.meta.json`, thinking, the compaction summary, cut copies in `last-prompt`, a queue operation, a file-history
   backup, lines orjson cannot read (a lone surrogate, `\/`, `\u`-escaped letters, 1e400) and a text document block.
3. `measure` redacts each copy with `redact_sess` into a config folder of its own, counts what is left of every
   planted secret (the value, its middle, each line of a key, the cut copies) and every near-miss whose number of
   occurrences changed, and runs `redact_check` on the copy.
4. Times `redact_sess` and `redact_check` on the ~100 MB benchmark transcript (`benchlib.build`) against `load_recs`.

    .venv/bin/python bench/bench_redact.py [--mb 100] [--reps 3] [--no-resume]

Targets: every planted secret gone, no near-miss changed, a check that passes only copies without secrets, and
redaction under 3x `load_recs`. Ratios are printed, never asserted (tests/test_redact.py asserts the rest).

5. Issue 31 (`leak_secrets`, `leak_near`, `measure_leaks`): 15 leaks made the way the world makes them (Django's
   alphabet, the token Claude Code exports to its Bash tool as `env` prints it, docker's config.json with a PAT and
   an ECR token, a subagent's report relaying a docker `auth`, keys a terminal wrapped at 80 columns, the AWS
   console's CSVs, `urllib.parse.quote`d URLs inside URLs, `base64 -w76` and `xxd -p` of config files) with their
   near-misses (a word in hex, a base64 image and config, public keys, ordinary queries), through 8 channels and a
   subagent's report relayed into the main session; a leak counts as left when any decoding of a file holds it.
"""
import argparse, base64, binascii, hashlib, hmac, json, os, random, re, shutil, string, tempfile, time, uuid
from dataclasses import dataclass, field as dfield
from pathlib import Path
from llmsurgery.core import load_recs, config_dir, proj_slug
from llmsurgery.fixtures import fixture, fixture_sess
from llmsurgery.redact import redact_sess, redact_check
from llmsurgery.sess import sess_files
from benchlib import DATA, build, best

B62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
ALNUM, UPPER, LOWER = string.ascii_letters + string.digits, string.ascii_uppercase, string.ascii_lowercase
HEX, DIG = '0123456789abcdef', string.digits
B64, B64URL = ALNUM + '+/', ALNUM + '-_'
BASE32, BECH32 = string.ascii_uppercase + '234567', 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'.upper()

@dataclass
class Secret:
    kind: str          # provider and type, e.g. `github_pat_classic`
    family: str        # cloud, code-host, chat, payment, llm, database, ci, password, key, other
    value: str         # the secret: every copy of it must be gone
    lines: list        # how it is written in a session (one or more lines of text)
    field: str = 'token'  # the name a JSON document keeps it under
    parts: list = dfield(default_factory=list)  # pieces that must be gone too (the lines of a key)

    def needles(self) -> list:
        "What must not be left anywhere: the value, its middle 16 characters, each line of a key"
        out = [self.value, *self.parts]
        if len(self.value) >= 24: out.append(self.value[len(self.value)//2 - 8:len(self.value)//2 + 8])
        return list(dict.fromkeys(o for o in out if len(o) >= 8))

def _b62(n, width):
    s = ''
    while n: n, r = divmod(n, 62); s = B62[r] + s
    return s.rjust(width, '0')

class Gen:
    def __init__(self, rnd): self.rnd = rnd
    def r(self, chars, n): return ''.join(self.rnd.choice(chars) for _ in range(n))
    def crc_token(self, prefix, n=30):  # GitHub and npm: 30 random base62, then the CRC-32 of them in 6 base62
        body = self.r(ALNUM, n)
        return prefix + body + _b62(binascii.crc32(body.encode()), 6)
    def b64(self, nbytes, url=False, pad=True):
        raw = self.rnd.randbytes(nbytes)
        s = (base64.urlsafe_b64encode if url else base64.b64encode)(raw).decode()
        return s if pad else s.rstrip('=')
    def jwt(self, claims):
        enc = lambda o: base64.urlsafe_b64encode(json.dumps(o, separators=(',', ':')).encode()).decode().rstrip('=')
        head, body = enc({'alg': 'HS256', 'typ': 'JWT'}), enc(claims)
        sig = hmac.new(self.rnd.randbytes(32), f'{head}.{body}'.encode(), hashlib.sha256).digest()
        return f'{head}.{body}.' + base64.urlsafe_b64encode(sig).decode().rstrip('=')
    def password(self, n=14):
        chars = ALNUM + '!#%&*+-=?@^_~'
        while True:
            p = self.r(chars, n)
            if any(c.isdigit() for c in p) and any(c.isupper() for c in p) and any(not c.isalnum() for c in p):
                return p

def _pem(g, label, der_head, nbytes=600, width=64):
    body = base64.b64encode(der_head + g.rnd.randbytes(nbytes)).decode()
    rows = [body[i:i+width] for i in range(0, len(body), width)]
    return f'-----BEGIN {label}-----\n' + '\n'.join(rows) + f'\n-----END {label}-----', rows

def _openssh(g):
    blob = (b'openssh-key-v1\x00' + b'\x00\x00\x00\x04none' * 2 + b'\x00\x00\x00\x00\x00\x00\x00\x01'
            + b'\x00\x00\x00\x33\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20' + g.rnd.randbytes(180))
    body = base64.b64encode(blob).decode()
    rows = [body[i:i+70] for i in range(0, len(body), 70)]
    return '-----BEGIN OPENSSH PRIVATE KEY-----\n' + '\n'.join(rows) + '\n-----END OPENSSH PRIVATE KEY-----', rows

def _pgp(g):
    body = base64.b64encode(b'\x95\x03\xc6\x04' + g.rnd.randbytes(700)).decode()
    rows = [body[i:i+64] for i in range(0, len(body), 64)]
    crc = '=' + base64.b64encode(g.rnd.randbytes(3)).decode()
    text = ('-----BEGIN PGP PRIVATE KEY BLOCK-----\nComment: deploy key\n\n' + '\n'.join(rows) + f'\n{crc}\n'
            '-----END PGP PRIVATE KEY BLOCK-----')
    return text, rows

def _putty(g):
    pub = base64.b64encode(b'\x00\x00\x00\x0bssh-ed25519' + g.rnd.randbytes(36)).decode()
    priv = base64.b64encode(g.rnd.randbytes(48)).decode()
    mac = g.r(HEX, 64)
    text = (f'PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n{pub[:64]}\n'
            f'{pub[64:]}\nPrivate-Lines: 1\n{priv}\nPrivate-MAC: {mac}')
    return text, [priv, mac]

def fake_secrets(rnd=None) -> list:
    "One `Secret` of each format (some formats twice, in two ways of writing them)"
    g = Gen(rnd or random.Random(20))
    r, out = g.r, []
    def add(kind, family, value, lines=None, field='token', parts=()):
        lines = lines if lines is not None else [value]
        out.append(Secret(kind, family, value, lines if isinstance(lines, list) else [lines], field, list(parts)))
    # code hosts
    add('github_pat_classic', 'code-host', v := g.crc_token('ghp_'), f'export GITHUB_TOKEN={v}')
    add('github_oauth', 'code-host', g.crc_token('gho_'), field='access_token')
    add('github_app_token', 'code-host', v := g.crc_token('ghs_'),
        f'git clone https://x-access-token:{v}@github.com/acme/app')
    add('github_refresh', 'code-host', g.crc_token('ghr_'), field='refresh_token')
    add('github_fine_grained', 'code-host', v := 'github_pat_' + r(ALNUM, 22) + '_' + r(ALNUM, 59),
        f'GH_TOKEN="{v}"')
    add('gitlab_pat', 'code-host', v := 'glpat-' + r(B64URL, 20),
        f'git remote add origin https://oauth2:{v}@gitlab.com/a/b')
    add('gitlab_runner', 'ci', 'glrt-' + r(B64URL, 20))
    add('gitlab_deploy', 'code-host', 'gldt-' + r(B64URL, 20))
    add('bitbucket_app_password', 'code-host', v := 'ATBB' + r(ALNUM, 32), f'BITBUCKET_APP_PASSWORD={v}')
    add('atlassian_api_token', 'code-host', 'ATATT3xFfGF0' + r(B64URL, 170) + '=' + r(HEX.upper(), 8))
    add('npm_token', 'ci', v := g.crc_token('npm_'), f'//registry.npmjs.org/:_authToken={v}')
    add('pypi_token', 'ci', 'pypi-AgEIcHlwaS5vcmc' + g.b64(120, url=True, pad=False), field='password')
    add('rubygems_key', 'ci', 'rubygems_' + r(HEX, 48))
    add('docker_hub_pat', 'ci', v := 'dckr_pat_' + r(B64URL, 27), f'echo {v} | docker login -u acme --password-stdin')
    # cloud
    add('aws_access_key_id', 'cloud', v := 'AKIA' + r(BASE32, 16), f'aws_access_key_id = {v}', 'aws_access_key_id')
    add('aws_secret_access_key', 'cloud', v := r(B64, 40), f'aws_secret_access_key = {v}', 'aws_secret_access_key')
    add('aws_session_token', 'cloud', v := 'IQoJb3JpZ2luX2VjE' + r(B64, 300), f'AWS_SESSION_TOKEN={v}',
        'SessionToken')
    add('gcp_api_key', 'cloud', 'AIza' + r(B64URL, 35), field='apiKey')
    add('google_oauth_access', 'cloud', 'ya29.a0' + r(B64URL, 150), field='access_token')
    add('google_oauth_refresh', 'cloud', '1//0g' + r(B64URL, 99), field='refresh_token')
    add('google_client_secret', 'cloud', 'GOCSPX-' + r(B64URL, 28), field='client_secret')
    key, rows = _pem(g, 'PRIVATE KEY', bytes.fromhex('308204bd020100300d06092a864886f70d0101010500048204a7'), 1200)
    add('gcp_service_account_key', 'cloud', key, [json.dumps({'type': 'service_account', 'project_id': 'acme-prod',
        'private_key_id': r(HEX, 40), 'private_key': key + '\n',
        'client_email': 'ci@acme-prod.iam.gserviceaccount.com'},
        indent=2)], 'private_key', rows)
    add('azure_storage_key', 'cloud', v := g.b64(64),
        f'AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey={v};'
        'EndpointSuffix=core.windows.net"')
    add('azure_ad_client_secret', 'cloud', v := r(ALNUM, 3) + r(DIG, 1) + 'Q~' + r(ALNUM + '_~.-', 34),
        f'AZURE_CLIENT_SECRET={v}', 'clientSecret')
    add('azure_sas_token', 'cloud', v := r(ALNUM, 43) + '%3D',
        f'curl "https://acme.blob.core.windows.net/c/x.zip?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-31&sig={v}"')
    add('alibaba_access_key', 'cloud', 'LTAI' + r(ALNUM, 20))
    add('digitalocean_pat', 'cloud', 'dop_v1_' + r(HEX, 64))
    add('heroku_api_key', 'cloud', v := str(uuid.UUID(int=g.rnd.getrandbits(128), version=4)), f'HEROKU_API_KEY={v}')
    add('cloudflare_api_token', 'cloud', v := r(B64URL, 40), f'CLOUDFLARE_API_TOKEN={v}')
    add('flyio_token', 'cloud', 'fo1_' + r(B64URL, 43))
    add('vault_token', 'cloud', v := 'hvs.' + r(B64URL, 91), f'export VAULT_TOKEN={v}')
    add('doppler_token', 'cloud', 'dp.pt.' + r(ALNUM, 43))
    add('terraform_cloud_token', 'ci', r(ALNUM, 14) + '.atlasv1.' + r(B64URL, 67))
    add('pulumi_token', 'ci', 'pul-' + r(HEX, 40))
    add('supabase_service_key', 'database', v := g.jwt({'iss': 'supabase', 'role': 'service_role', 'iat': 1764500000}),
        f'SUPABASE_SERVICE_ROLE_KEY={v}')
    add('planetscale_password', 'database', v := 'pscale_pw_' + r(B64URL, 43), f'DATABASE_PASSWORD={v}')
    # chat
    add('slack_bot_token', 'chat', f'xoxb-{r(DIG, 12)}-{r(DIG, 13)}-{r(ALNUM, 24)}')
    add('slack_user_token', 'chat', f'xoxp-{r(DIG, 12)}-{r(DIG, 12)}-{r(DIG, 13)}-{r(HEX, 32)}')
    add('slack_app_token', 'chat', f'xapp-1-A{r(UPPER + DIG, 10)}-{r(DIG, 13)}-{r(HEX, 64)}')
    add('slack_webhook', 'chat', f'https://hooks.slack.com/services/T{r(UPPER + DIG, 8)}/B{r(UPPER + DIG, 10)}/'
        f'{r(ALNUM, 24)}', field='webhook_url')
    add('discord_bot_token', 'chat', base64.b64encode(r(DIG, 18).encode()).decode().rstrip('=') + '.' + r(B64URL, 6)
        + '.' + r(B64URL, 38))
    add('discord_webhook', 'chat', f'https://discord.com/api/webhooks/{r(DIG, 18)}/{r(B64URL, 68)}', field='url')
    add('telegram_bot_token', 'chat', v := f'{r(DIG, 10)}:AA{r(B64URL, 33)}', f'TELEGRAM_BOT_TOKEN={v}')
    add('teams_webhook', 'chat', f'https://acme.webhook.office.com/webhookb2/{uuid.UUID(int=g.rnd.getrandbits(128))}'
        f'@{uuid.UUID(int=g.rnd.getrandbits(128))}/IncomingWebhook/{r(HEX, 32)}/'
        f'{uuid.UUID(int=g.rnd.getrandbits(128))}')
    add('twilio_api_key', 'chat', 'SK' + r(HEX, 32))
    add('twilio_auth_token', 'chat', v := r(HEX, 32), f'TWILIO_AUTH_TOKEN={v}', 'auth_token')
    add('sendgrid_key', 'chat', 'SG.' + r(B64URL, 22) + '.' + r(B64URL, 43))
    add('mailgun_key', 'chat', v := 'key-' + r(HEX, 32), f'MAILGUN_API_KEY={v}')
    add('mailchimp_key', 'chat', r(HEX, 32) + '-us' + r(DIG, 2))
    # payment
    add('stripe_secret', 'payment', 'sk_live_' + r(ALNUM, 99))
    add('stripe_restricted', 'payment', 'rk_live_' + r(ALNUM, 24))
    add('stripe_webhook_secret', 'payment', v := 'whsec_' + r(ALNUM, 32), f'STRIPE_WEBHOOK_SECRET={v}')
    add('square_access_token', 'payment', 'EAAA' + r(B64URL, 60))
    add('square_oauth_secret', 'payment', 'sq0csp-' + r(B64URL, 43))
    add('paypal_client_secret', 'payment', v := r(B64URL, 80), f'PAYPAL_CLIENT_SECRET={v}', 'client_secret')
    add('braintree_token', 'payment', f'access_token$production${r(LOWER + DIG, 16)}${r(HEX, 32)}')
    add('razorpay_key', 'payment', v := 'rzp_live_' + r(ALNUM, 14), f'RAZORPAY_KEY_ID={v}')
    add('shopify_token', 'payment', 'shpat_' + r(HEX, 32))
    # LLM providers
    add('anthropic_key', 'llm', v := 'sk-ant-api03-' + r(B64URL, 93) + 'AA', f'ANTHROPIC_API_KEY={v}')
    add('anthropic_admin_key', 'llm', 'sk-ant-admin01-' + r(B64URL, 93) + 'AA')
    add('openai_project_key', 'llm', 'sk-proj-' + r(B64URL, 74) + 'T3BlbkFJ' + r(B64URL, 74), field='api_key')
    add('openai_legacy_key', 'llm', 'sk-' + r(ALNUM, 20) + 'T3BlbkFJ' + r(ALNUM, 20))
    add('openrouter_key', 'llm', 'sk-or-v1-' + r(HEX, 64))
    add('huggingface_token', 'llm', v := 'hf_' + r(string.ascii_letters, 34), f'HF_TOKEN={v}')
    add('groq_key', 'llm', 'gsk_' + r(ALNUM, 52))
    add('replicate_token', 'llm', 'r8_' + r(ALNUM, 37))
    add('perplexity_key', 'llm', 'pplx-' + r(ALNUM, 48))
    add('xai_key', 'llm', 'xai-' + r(ALNUM, 80))
    add('mistral_key', 'llm', v := r(ALNUM, 32), f'MISTRAL_API_KEY={v}', 'apiKey')
    add('cohere_key', 'llm', v := r(ALNUM, 40), f'CO_API_KEY="{v}"', 'api_key')
    add('azure_openai_key', 'llm', v := r(HEX, 32), f'AZURE_OPENAI_API_KEY: {v}', 'api-key')
    add('langsmith_key', 'llm', 'lsv2_pt_' + r(HEX, 32) + '_' + r(HEX, 10))
    # databases
    add('postgres_url', 'database', v := g.password(16), f'DATABASE_URL=postgres://app:{v}@db.internal:5432/prod',
        'password')
    add('mongodb_url', 'database', v := r(ALNUM, 20), f'mongodb+srv://admin:{v}@cluster0.ab1cd.mongodb.net/app',
        'password')
    add('redis_url', 'database', v := r(ALNUM, 24), f'REDIS_URL=redis://default:{v}@redis.internal:6379/0',
        'password')
    add('jdbc_password', 'database', v := g.password(12),
        f'spring.datasource.url=jdbc:postgresql://db:5432/app?user=app&password={v}', 'password')
    add('mssql_connection', 'database', v := g.password(15),
        f'Server=tcp:acme.database.windows.net,1433;Database=app;User ID=app;Password={v};Encrypt=True;', 'password')
    add('mysql_cli_password', 'database', v := r(ALNUM, 12) + '9', f'mysql -h db.internal -u root -p{v} app',
        'password')
    add('pgpassword', 'database', v := g.password(14).replace("'", ''), f"PGPASSWORD='{v}' psql -h db -U app",
        'password')
    # CI
    add('circleci_token', 'ci', 'CCIPAT_' + r(ALNUM, 22) + '_' + r(HEX, 40))
    add('buildkite_token', 'ci', 'bkua_' + r(HEX, 40))
    add('travis_token', 'ci', v := r(ALNUM, 22), f'TRAVIS_API_TOKEN={v}')
    add('jenkins_api_token', 'ci', v := '11' + r(HEX, 32), f'curl -u admin:{v} https://ci.acme.io/job/x/build',
        'api_token')
    add('sonarqube_token', 'ci', 'squ_' + r(HEX, 40))
    add('codecov_token', 'ci', v := str(uuid.UUID(int=g.rnd.getrandbits(128), version=4)), f'CODECOV_TOKEN: {v}')
    add('sentry_auth_token', 'ci', 'sntryu_' + r(HEX, 64))
    add('sentry_dsn', 'ci', v := r(HEX, 32), f'SENTRY_DSN=https://{v}@o{r(DIG, 6)}.ingest.sentry.io/{r(DIG, 7)}')
    add('datadog_api_key', 'ci', v := r(HEX, 32), f'DD_API_KEY={v}')
    add('newrelic_key', 'ci', 'NRAK-' + r(UPPER + DIG, 27))
    add('grafana_sa_token', 'ci', 'glsa_' + r(ALNUM, 32) + '_' + r(HEX, 8))
    add('linear_key', 'other', 'lin_api_' + r(ALNUM, 40))
    add('postman_key', 'other', f'PMAK-{r(HEX, 24)}-{r(HEX, 34)}')
    add('databricks_token', 'other', 'dapi' + r(HEX, 32))
    add('age_secret_key', 'key', 'AGE-SECRET-KEY-1' + r(BECH32, 58))
    add('jwt', 'other', v := g.jwt({'sub': r(DIG, 8), 'name': 'deploy', 'iat': 1764500000, 'exp': 1796036000}),
        f'curl -H "Authorization: Bearer {v}" https://api.acme.io/v1/me')
    # private keys
    key, rows = _pem(g, 'RSA PRIVATE KEY', bytes.fromhex('308204a40201000282010100'), 1150)
    add('rsa_private_key', 'key', key, key.splitlines(), 'private_key', rows)
    key, rows = _pem(g, 'EC PRIVATE KEY', bytes.fromhex('30770201010420'), 100)
    add('ec_private_key', 'key', key, key.splitlines(), 'key', rows)
    key, rows = _openssh(g)
    add('openssh_private_key', 'key', key, key.splitlines(), 'ssh_key', rows)
    key, rows = _pgp(g)
    add('pgp_private_key', 'key', key, key.splitlines(), 'private_key', rows)
    key, rows = _putty(g)
    add('putty_private_key', 'key', rows[0], key.splitlines(), 'private_key', rows)
    # passwords and credentials written the ways the issue lists
    add('env_password_quoted', 'password', v := g.password(12).replace("'", '') + '"s\\', f"ADMIN_PASSWORD='{v}'",
        'password')
    add('django_secret_key', 'password', v := 'django-insecure-' + r(LOWER + DIG + '!@#%^&*(-_=+)', 50),
        f"SECRET_KEY = '{v}'", 'SECRET_KEY')
    add('flask_secret_key', 'password', v := r(HEX, 64), f'app.config["SECRET_KEY"] = "{v}"', 'secret_key')
    add('rails_secret_key_base', 'password', v := r(HEX, 128), f'production:\n  secret_key_base: {v}',
        'secret_key_base')
    add('yaml_password', 'password', v := g.password(13), ['database:', '  host: db.internal', f'  password: {v}'],
        'password')
    add('toml_password', 'password', v := g.password(16), ['[database]', 'user = "app"', f'password = "{v}"'],
        'password')
    add('ini_password', 'password', v := g.password(11), ['[smtp]', 'user=mailer', f'pass={v}'], 'pass')
    add('netrc_multiline', 'password', v := g.password(15), ['machine api.heroku.com', '  login ops@acme.io',
                                                              f'  password {v}'], 'password')
    add('netrc_oneline', 'password', v := r(ALNUM, 18), f'machine github.com login deploy password {v}', 'password')
    add('curl_user', 'password', v := g.password(13), f'curl -u deploy:{v} https://api.acme.io/v1/builds',
        'password')
    add('curl_user_long', 'password', v := g.password(12), f"curl --user 'ops:{v}' -X POST https://ci.acme.io",
        'password')
    u, p = 'deploy', g.password(14)
    add('basic_auth_header', 'password', v := base64.b64encode(f'{u}:{p}'.encode()).decode(),
        f'Authorization: Basic {v}', 'Authorization')
    add('docker_login_p', 'password', v := g.password(16).replace('!', '').replace('&', ''),
        f'docker login -u acme -p {v} registry.acme.io', 'password')
    add('docker_config_auth', 'password', v := base64.b64encode(f'acme:{g.password(12)}'.encode()).decode(),
        json.dumps({'auths': {'registry.acme.io': {'auth': v}}}, indent=2).splitlines(), 'auth')
    add('oauth_client_secret', 'password', v := r(B64URL, 40), json.dumps({'client_id': r(DIG, 12),
        'client_secret': v, 'redirect_uri': 'https://app.acme.io/cb'}), 'client_secret')
    add('oauth_refresh_token', 'password', v := r(B64URL, 64), json.dumps({'access_token': r(B64URL, 43),
        'expires_in': 3600, 'refresh_token': v, 'token_type': 'Bearer'}), 'refresh_token')
    add('json_api_key', 'password', v := r(ALNUM, 32), json.dumps({'service': {'config': {'apiKey': v}}}), 'apiKey')
    add('prose_password', 'password', v := g.password(12), f'the password for the deploy user is {v}', 'password')
    add('prose_token', 'password', v := r(ALNUM, 28), f'use this token: {v} for the staging API', 'token')
    add('cli_token_flag', 'password', v := r(ALNUM, 30), f'./deploy.sh --api-token={v} --env prod', 'api_token')
    return out

def near_misses(rnd=None) -> list:
    "Strings that look random or name a secret but hold none, one per line; none may change"
    rnd = rnd or random.Random(21)
    r = lambda chars, n: ''.join(rnd.choice(chars) for _ in range(n))
    out = [str(uuid.UUID(int=rnd.getrandbits(128), version=4)) for _ in range(20)]
    out += [f'commit {r(HEX, 40)}' for _ in range(10)] + [f'git checkout {r(HEX, 7)}' for _ in range(5)]
    out += [f'sha256:{r(HEX, 64)}' for _ in range(10)] + [f'md5sum {r(HEX, 32)}  dist.tar.gz' for _ in range(5)]
    out += [f'"integrity": "sha512-{base64.b64encode(rnd.randbytes(64)).decode()}"' for _ in range(5)]
    out += [f'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA{base64.b64encode(rnd.randbytes(90)).decode()}'
            for _ in range(3)]
    out += [f'toolu_01{r(ALNUM, 22)}' for _ in range(5)] + [f'msg_01{r(ALNUM, 22)}' for _ in range(5)]
    out += [f'docker pull python@sha256:{r(HEX, 64)}' for _ in range(3)]
    out += [f'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{r(ALNUM, 43)} dev@laptop' for _ in range(3)]
    out += ['OPENAI_API_KEY=sk-...', 'api_key="<your-key>"', 'AKIAIOSFODNN7EXAMPLE',
            'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'export GITHUB_TOKEN=$GITHUB_TOKEN',
            'ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', 'export GITHUB_TOKEN=<your-token>', 'password: ********',
            'API_KEY=${API_KEY}', 'TOKEN=$(cat ~/.token)', 'curl -H "Authorization: Bearer $TOKEN" https://api.x.io',
            'postgres://user:password@localhost:5432/db', 'redis://localhost:6379/0', 'api_key: YOUR_API_KEY',
            'SECRET_KEY=changeme', 'STRIPE_KEY=sk_test_...', 'token: "{{ secrets.NPM_TOKEN }}"', 'sk-ant-...',
            'Authorization: Bearer <token>', 'password = None', 'DB_PASSWORD=', 'hf_token = "hf_..."',
            'password: ${{ secrets.DB_PASSWORD }}', 'Set ANTHROPIC_API_KEY to your key', 'xoxb-your-bot-token',
            '-----BEGIN CERTIFICATE-----', 'MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJRTES',
            'token = os.environ["GITHUB_TOKEN"]', 'password = getpass.getpass()', 'max_tokens: 4096',
            'secret_key = settings.SECRET_KEY', 'TOKEN_EXPIRY=3600', 'PASSWORD_MIN_LENGTH=12', 'def get_token(self):',
            'tokenizer = AutoTokenizer.from_pretrained(name)', 'public_key = load_pem_public_key(data)',
            'password_hash = bcrypt.hashpw(pw, salt)', 'api_key = request.headers.get("X-Api-Key")',
            'auth_token = self.auth_token', 'SSH_KEY_PATH=~/.ssh/id_rsa', 'access_token: Optional[str] = None',
            'password: String!', 'the token is valid for one hour', 'the password is wrong, try again',
            'docker run -p 8080:80 nginx', 'ssh -p 2222 deploy@host', 'mkdir -p /tmp/build',
            'Co-Authored-By: Claude <noreply@anthropic.com>', 'session.get(url, auth=(user, password))',
            'usage: {"input_tokens": 1234, "output_tokens": 56}', 'token_type=Bearer', '"expires_in": 3599',
            'KEYBOARD_LAYOUT=us', 'TOKENIZERS_PARALLELISM=false', 'the key is in ~/.ssh/id_ed25519']
    out += [f'v{rnd.randint(0, 20)}.{rnd.randint(0, 99)}.{rnd.randint(0, 999)}' for _ in range(5)]
    out += [f'2026-11-{rnd.randint(1, 30):02d}T10:00:00.000Z' for _ in range(5)]
    return list(dict.fromkeys(out))

# ---------------------------------------------------------------------------------------------------------------------
# Planting: every secret through each channel, in sessions the real CLI recorded (llmsurgery's fixtures)

TOOLS_PROMPT = 'Tidy up notes.txt and make a todo list.'
LS_ID, READ_ID, WRITE_ID, EDIT_ID = ('toolu_01EEohKjBlvbbXC3pg7ciHCW', 'toolu_01ycFpWJEaY8aC9ESfec4nKw',
                                     'toolu_011yHiH7YPeYpYOm5LLYUE91', 'toolu_01AdrL6CvsGEC5mD3g8mZV4y')

def esc(s): return json.dumps(s, ensure_ascii=False)[1:-1]

def channel_text(secrets, near, rnd):
    "The planted text: every secret's lines and every near-miss, one to a line, shuffled"
    chunks = ['\n'.join(s.lines) for s in secrets] + near
    rnd.shuffle(chunks)
    return '\n'.join(chunks)

def json_doc(secrets, near):
    "A JSON tool result: each secret under its field, nested at varying depth, near-misses under other fields"
    items = []
    for i, s in enumerate(secrets):
        v = {s.field: s.value}
        for k in ('credentials', 'config', 'auth')[:i % 3 + 1]: v = {k: v}
        items.append({'name': s.kind, **v})
    return {'result': {'items': items, 'notes': {f'n{i}': n for i, n in enumerate(near)}}}

def numbered(text, style):
    "`text` as a tool shows it with line numbers: Read (`1\\t`), cat -n (`     1\\t`), older Read (`     1→`)"
    fmt = {'read': '{}\t{}', 'cat_n': '{:6}\t{}', 'arrow': '{:6}→{}'}[style]
    return '\n'.join(fmt.format(i, l) for i, l in enumerate(text.split('\n'), 1))

def _edit_lines(path, fn):
    "Rewrite the JSONL file at `path`: `fn(record)` returns the new record (or None: unchanged); others keep bytes"
    out = []
    for line in path.read_bytes().split(b'\n'):
        if line.strip():
            d = json.loads(line)
            new = fn(d)
            if new is not None: line = json.dumps(new, ensure_ascii=False, separators=(',', ':')).encode()
        out.append(line)
    path.write_bytes(b'\n'.join(out))

def _results(d, tool_id):
    "The tool_result blocks for `tool_id` in record `d` (a user record or a request blob)"
    c = (d.get('message') or {}).get('content')
    return [b for b in c if isinstance(b, dict) and b.get('tool_use_id') == tool_id] if isinstance(c, list) else []

def _set_result(path, tool_id, shown, tur=None):
    "The result of call `tool_id` shows `shown` (the blob copies keep their reminders); `tur(old)` the toolUseResult"
    def fn(d):
        bs = _results(d, tool_id)
        if not bs: return None
        for b in bs:
            c = b['content'] if isinstance(b['content'], str) else ''
            b['content'] = shown + (c[c.index('\n\n<system-reminder>'):] if '\n\n<system-reminder>' in c else '')
        if tur is not None and 'toolUseResult' in d: d['toolUseResult'] = tur(d['toolUseResult'])
        return d
    _edit_lines(path, fn)

def _set_input(path, tool_id, **kw):
    def fn(d):
        c = (d.get('message') or {}).get('content')
        hit = [b for b in c if isinstance(b, dict) and b.get('id') == tool_id] if isinstance(c, list) else []
        for b in hit: b['input'].update(kw)
        return d if hit else None
    _edit_lines(path, fn)

def _replace(path, old, new):
    "Replace text `old` by `new` wherever the file holds it (JSON-escaped): a prompt and all its copies"
    data = path.read_text()
    assert esc(old) in data, old
    path.write_text(data.replace(esc(old), esc(new)))

def _copy_fixture(name, root):
    cfg = root/name
    shutil.copytree(fixture(name), cfg)
    (cfg/'requests.jsonl').unlink(missing_ok=True)
    (cfg/'fixture.json').unlink(missing_ok=True)
    return cfg, fixture_sess(name).sid

def _main(cfg, sid): return next(cfg.glob(f'projects/*/{sid}.jsonl'))

CHANNELS = ['prompt', 'bash', 'read', 'cat_n', 'read_arrow', 'write', 'edit', 'json_result', 'subagent', 'meta',
            'thinking', 'compact', 'last_prompt', 'queue', 'history', 'odd_lines', 'document']

def plant(channel, secrets, near, root, rnd=None):
    "A copy of a recorded session (its config folder under `root`) with every secret planted through `channel`"
    rnd = rnd or random.Random(channel)
    text = channel_text(secrets, near, rnd)
    fix = {'subagent': 'subagent', 'meta': 'subagent', 'thinking': 'thinking', 'compact': 'compact'}.get(channel,
                                                                                                   'tools')
    cfg, sid = _copy_fixture(fix, root/channel)
    p = _main(cfg, sid)
    needles = {}  # kind -> extra strings that must be gone (the cut copies)
    if channel == 'prompt': _replace(p, TOOLS_PROMPT, TOOLS_PROMPT + '\n' + text)
    elif channel in ('bash', 'cat_n'):
        shown = text if channel == 'bash' else numbered(text, 'cat_n')
        _set_result(p, LS_ID, shown, lambda t: {**t, 'stdout': shown})
    elif channel in ('read', 'read_arrow'):
        shown = numbered(text, 'read' if channel == 'read' else 'arrow')
        _set_result(p, READ_ID, shown, lambda t: {**t, 'file': {**t['file'], 'content': text,
                                                                 'numLines': text.count('\n') + 1}})
    elif channel == 'write':
        _set_input(p, WRITE_ID, content=text)
        _edit_lines(p, lambda d: {**d, 'toolUseResult': {**d['toolUseResult'], 'content': text}}
                    if _results(d, WRITE_ID) and isinstance(d.get('toolUseResult'), dict) else None)
    elif channel == 'edit':
        _set_input(p, EDIT_ID, new_string=text)
        def fn(d):
            if not (_results(d, EDIT_ID) and isinstance(t := d.get('toolUseResult'), dict)): return None
            t['newString'] = text
            t['structuredPatch'][0]['lines'] = [' alpha', '-beta', *('+' + l for l in text.split('\n'))]
            return d
        _edit_lines(p, fn)
    elif channel == 'json_result':
        doc = json_doc(secrets, near)
        shown = json.dumps(doc, indent=2)
        _set_result(p, LS_ID, shown, lambda t: {**t, 'stdout': shown, 'structuredContent': doc})
    elif channel == 'subagent':
        a = sorted(p.parent.glob(f'{sid}/subagents/agent-*.jsonl'))[0]
        blocks = [b for l in a.read_text().splitlines()
                  for b in (json.loads(l).get('message') or {}).get('content') or []
                  if isinstance(b, dict) and b.get('type') == 'tool_result']
        _set_result(a, blocks[0]['tool_use_id'], numbered(text, 'read'))
    elif channel == 'meta':
        m = sorted(p.parent.glob(f'{sid}/subagents/agent-*.meta.json'))[0]
        d = json.loads(m.read_text())
        m.write_text(json.dumps({**d, 'description': text, 'prompt': text}, ensure_ascii=False, separators=(',', ':')))
    elif channel == 'thinking':  # the secrets in one thinking block, the near-misses in another
        _replace(p, 'The user wants plan.md summarised.', channel_text(secrets, [], rnd))
        _replace(p, 'It has one step.', 'It has one step.\n' + '\n'.join(near))
    elif channel == 'compact': _replace(p, '1. The user asked for the capital of France (Paris).', '1. ' + text)
    elif channel == 'last_prompt':
        _replace(p, TOOLS_PROMPT, TOOLS_PROMPT + '\n' + text)
        lines = p.read_text().split('\n')
        last = max(i for i, l in enumerate(lines) if '"type":"last-prompt"' in l)
        leaf = json.loads(lines[last])['leafUuid']
        cuts = []
        for s in secrets:  # a copy cut inside the secret, 8 to 24 characters past its public start
            src = s.value if '\n' not in s.value else s.parts[len(s.parts) // 2]
            pub = src.rfind('/') + 1 if '://' in src else len(re.match(r'(?:[A-Za-z0-9]{0,16}[-_.$])*', src).group())
            keep = min(len(src) - 1, pub + rnd.randint(8, 24))
            needles[s.kind] = [src[:keep]]
            cuts.append(json.dumps({'type': 'last-prompt', 'lastPrompt': f'Please deploy: {src[:keep]}…',
                                    'leafUuid': leaf, 'sessionId': sid}, ensure_ascii=False, separators=(',', ':')))
        lines[last:last] = cuts
        p.write_text('\n'.join(lines))
    elif channel == 'queue':
        lines = p.read_text().split('\n')
        q = json.dumps({'type': 'queue-operation', 'operation': 'enqueue', 'timestamp': '2026-11-30T11:26:34.000Z',
                        'sessionId': sid, 'content': text}, ensure_ascii=False, separators=(',', ':'))
        lines[2:2] = [q]
        p.write_text('\n'.join(lines))
    elif channel == 'history':
        h = cfg/'file-history'/sid
        h.mkdir(parents=True)
        (h/'3f2a9c1b7d4e8f0a@v1').write_text(text + '\n')
    elif channel == 'odd_lines':  # a lone surrogate, `\/`, `\u`-escaped letters and 1e400 in the raw line
        _set_result(p, LS_ID, 'PLANTED', lambda t: {**t, 'stdout': 'PLANTED'})
        raw = (esc(text) + ' \\ud83e').replace('/', '\\/')
        raw = re.sub(r'(?<![\\\w])([a-zA-Z])(?=[A-Za-z0-9_]{6})', lambda m: f'\\u{ord(m[1]):04x}', raw, count=400)
        data = p.read_text().replace('PLANTED', raw)
        data = data.replace('"interrupted":false', '"interrupted":false,"elapsed":1e400', 1)
        p.write_text(data)
    elif channel == 'document':
        def fn(d):
            if d.get('type') == 'user' and (d.get('message') or {}).get('content') == TOOLS_PROMPT:
                d['message']['content'] = [{'type': 'text', 'text': TOOLS_PROMPT},
                                           {'type': 'document', 'source': {'type': 'text', 'media_type': 'text/plain',
                                                                           'data': text}, 'title': 'notes.txt'}]
                return d
        _edit_lines(p, fn)
    else: raise ValueError(channel)
    return cfg, sid, needles

def _canon(data):
    "A file's bytes with each JSON line (or document) written one way, so an escaped copy counts as a copy"
    out = []
    for line in data.split(b'\n'):
        try: out.append(json.dumps(json.loads(line), ensure_ascii=False).encode('utf-8', 'surrogatepass'))
        except ValueError: out.append(line)
    return b'\n'.join(out)

def session_bytes(cfg, sid) -> list:
    "The bytes of every file of session `sid` in config folder `cfg`: transcript, subagents, side files, history"
    with config_dir(cfg): return [_canon(f.path.read_bytes()) for f in sess_files(sid) if f.kind != 'todo']

def forms(s): return {s.encode(), esc(s).encode(), json.dumps(s)[1:-1].encode()}

def count(needle, blobs): return sum(b.count(f) for b in blobs for f in forms(needle))

@dataclass
class Outcome:
    channel: str
    leaked: dict   # kind -> the needles left
    absent: list   # kinds never planted (a bug of the harness)
    changed: list  # near-misses whose number of occurrences changed
    check_rc: int  # `llmsurgery redact --check` on the redacted copy
    check: object  # its report
    src_check_rc: int  # and on the planted original

def measure(channel, secrets, near, root, check_original=True) -> Outcome:
    "Plant through `channel`, redact into a config folder of its own, and see what is left; `--check` both"
    cfg, sid, cut = plant(channel, secrets, near, root)
    before = session_bytes(cfg, sid)
    out = root/channel/'shared'
    with config_dir(cfg): res = redact_sess(sid, out)
    after = session_bytes(out, res.sid)
    leaked, absent = {}, []
    for s in secrets:
        ns = s.needles() + cut.get(s.kind, [])
        if not any(count(n, before) for n in ns): absent.append(s.kind)
        if left := [n for n in ns if count(n, after)]: leaked[s.kind] = left
    changed = [n for n in near if count(n, before) != count(n, after)]
    with config_dir(out): rep = redact_check(res.sid)
    src_rc = None
    if check_original:
        with config_dir(cfg): src_rc = 1 if redact_check(sid) else 0
    return Outcome(channel, leaked, absent, changed, 1 if rep else 0, rep, src_rc)

# ---------------------------------------------------------------------------------------------------------------------
# The table, the check, resume, throughput

def table(outcomes, secrets) -> str:
    "Recall per kind and channel: `.` gone everywhere, `X` left somewhere; then per channel: recall, precision, check"
    chans = [o.channel for o in outcomes]
    w = max(len(s.kind) for s in secrets)
    head = ' ' * (w + 12) + ' '.join(f'{i:>2}' for i in range(len(chans)))
    rows = [f'{s.kind:<{w}} {s.family:<11}' + ' '.join(' X' if s.kind in o.leaked else ' .' for o in outcomes)
            for s in secrets]
    legend = '  '.join(f'{i}={c}' for i, c in enumerate(chans))
    return '\n'.join([legend, head, *rows])

def summary(outcomes, secrets, near) -> str:
    lines = [f'{"channel":<12} {"recall":>9} {"near-misses kept":>17} {"check on copy":>14} {"check on planted":>17}']
    for o in outcomes:
        rec, keep = len(secrets) - len(o.leaked), len(near) - len(o.changed)
        lines.append(f'{o.channel:<12} {rec:>4}/{len(secrets):<4} {keep:>8}/{len(near):<8} '
                     f'{"exit " + str(o.check_rc):>14} {"exit " + str(o.src_check_rc):>17}')
    n = len(outcomes) * len(secrets)
    gone = n - sum(len(o.leaked) for o in outcomes)
    kept = len(outcomes) * len(near) - sum(len(o.changed) for o in outcomes)
    lines.append(f'{"all":<12} {gone:>4}/{n:<4} {kept:>8}/{len(outcomes) * len(near):<8}')
    return '\n'.join(lines)

def throughput(mb, reps, root):
    "Seconds of `load_recs`, `redact_check` and `redact_sess` on the ~`mb` MB benchmark transcript"
    DATA.mkdir(exist_ok=True)
    big = DATA/f'load_{mb:g}mb.jsonl'
    if not big.exists(): build(mb, big, chain=False)
    tcfg = root/'redact-config'
    d = tcfg/'projects'/proj_slug('/tmp/bench-redact')
    d.mkdir(parents=True)
    bsid = str(uuid.uuid4())
    try: os.link(big, d/f'{bsid}.jsonl')
    except OSError: shutil.copy(big, d/f'{bsid}.jsonl')
    with config_dir(tcfg):
        tl = best(lambda: load_recs(big), reps)
        tc = best(lambda: redact_check(bsid), reps)
        tr = best(lambda: redact_sess(bsid, root/'big-out'), reps)
    return big.stat().st_size, tl, tc, tr

# ---------------------------------------------------------------------------------------------------------------------
# Round 3 (issue 31): the secrets that still got through, made the way the world makes them

DJANGO_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)'  # django.core.management.utils

def django_key(rnd):
    "A key as Django's `get_random_secret_key()` makes one (Django's own when it is installed)"
    try:
        from django.core.management.utils import get_random_secret_key
        return get_random_secret_key()
    except ImportError: return ''.join(rnd.choice(DJANGO_CHARS) for _ in range(50))

def tool_out(*argv, data:bytes) -> str:
    "What a command-line tool prints for `data` on its stdin: `base64 -w76`, `xxd -p`"
    import subprocess
    return subprocess.run(argv, input=data, capture_output=True, check=True).stdout.decode()

def docker_config(auths:dict) -> str:
    "`~/.docker/config.json` as `docker login` writes it: Go's `json.MarshalIndent(cfg, \"\", \"\\t\")`"
    return json.dumps({'auths': {h: {'auth': a} for h, a in auths.items()}}, indent='\t')

def term_wrap(line, cols=80) -> list:
    "`line` as a terminal shows it (and a copy of the screen keeps it): hard-wrapped at `cols` columns"
    return [line[i:i + cols] for i in range(0, len(line), cols)]

def leak_secrets(rnd=None) -> list:
    "One `Secret` for each way issue 31 found secrets getting through, made as the world makes them"
    from urllib.parse import quote, urlencode
    g = Gen(rnd or random.Random(31))
    r, out = g.r, []
    def add(kind, value, lines, field='token', parts=()):
        out.append(Secret(kind, 'leak', value, lines if isinstance(lines, list) else [lines], field, list(parts)))
    k = django_key(g.rnd)
    while not set('&#(') & set(k[:12]): k = django_key(g.rnd)  # a char that cut the value, early in it
    add('django_env_file', k, ['DEBUG=False', f'DJANGO_SECRET_KEY={k}', 'ALLOWED_HOSTS=app.acme.io'], 'SECRET_KEY')
    k2 = 'django-insecure-' + django_key(g.rnd)
    add('django_env_output', k2, [f'SECRET_KEY={k2}'], 'SECRET_KEY')
    import secrets as S
    rnd_hex = lambda n: g.rnd.randbytes(n).hex()  # `secrets.token_hex(n)`, reproducibly
    t = rnd_hex(16)  # Claude Code exports CLAUDE_CODE_MESSAGING_TOKEN, 32 hex digits, to its Bash tool
    add('claude_code_messaging_token', t, ['CLAUDECODE=1', 'CLAUDE_CODE_ENTRYPOINT=cli',
                                           f'CLAUDE_CODE_MESSAGING_TOKEN={t}'], 'messagingToken')
    t = rnd_hex(32)
    add('hex_session_token', t, [f'CLAUDE_CODE_SESSION_ACCESS_TOKEN={t}'], 'sessionAccessToken')
    pat = 'dckr_pat_' + r(B64URL, 27)
    a = base64.b64encode(f'acme:{pat}'.encode()).decode()
    add('docker_config_pat', a, docker_config({'https://index.docker.io/v1/': a}).splitlines(), 'auth', [pat])
    ecr = base64.b64encode(json.dumps({'payload': g.b64(1500), 'datakey': g.b64(200), 'version': '2',
                                       'type': 'DATA_KEY', 'expiration': 1764500000}).encode()).decode()
    a = base64.b64encode(f'AWS:{ecr}'.encode()).decode()  # `aws ecr get-login-password | docker login`: ~3 KB
    add('docker_config_ecr', a, docker_config({'123456789012.dkr.ecr.eu-west-1.amazonaws.com': a}).splitlines(),
        'auth', [ecr[100:140]])
    pw = g.password(14)
    a = base64.b64encode(f'deploy:{pw}'.encode()).decode()
    add('docker_auth_relayed', a, [f'Found registry credentials in `~/.docker/config.json`: for `registry.acme.io` '
                                   f'the `auth` field is `{a}`, the base64 of `deploy:{pw}`.'], 'auth', [pw])
    key = 'sk-proj-' + r(B64URL, 74) + 'T3BlbkFJ' + r(B64URL, 74)
    add('wrapped_openai_key', key, term_wrap(f'$ export OPENAI_API_KEY={key}'), 'api_key')
    gh = g.crc_token('ghp_')
    line = 'deploy@build-7:~/app$ git remote set-url origin https://x-access-token:' + gh + '@github.com/acme/app'
    add('wrapped_github_token', gh, term_wrap(line), 'token')
    kid, sk = 'AKIA' + r(BASE32, 16), r(B64, 40)
    add('aws_console_csv', sk, ['Access key ID,Secret access key', f'{kid},{sk}'], 'aws_secret_access_key', [kid])
    kid2, sk2, pw2 = 'AKIA' + r(BASE32, 16), r(B64, 40), g.password(16)
    add('aws_console_user_csv', sk2, ['User name,Password,Access key ID,Secret access key,Console login link',
        f'deploy,{pw2},{kid2},{sk2},https://123456789012.signin.aws.amazon.com/console'], 'aws_secret_access_key',
        [kid2])
    v = r(ALNUM, 32)
    inner = f'https://api.acme.io/v1/export?api_key={v}&format=csv'
    add('url_encoded_in_url', v, f'https://login.acme.io/sso?next={quote(inner, safe="")}', 'api_key')
    v = g.crc_token('ghp_')
    add('urlencoded_redirect', v, 'https://auth.acme.io/cb?' + urlencode({'state': 'x1', 'redirect_uri':
        f'https://ci.acme.io/hook?token={v}&job=7'}), 'token')
    sk3, pw3 = 'sk_live_' + r(ALNUM, 99), g.password(15)
    env = f'# production\nDATABASE_HOST=db.internal\nSTRIPE_SECRET_KEY={sk3}\nDB_PASSWORD={pw3}\nDEBUG=0\n'
    add('base64_w76_env', sk3, tool_out('base64', '-w76', data=env.encode()).rstrip('\n').split('\n'), 'token',
        [pw3])
    gho = 'gho_' + g.crc_token('')[:36]
    hosts = f'github.com:\n    user: deploy\n    oauth_token: {gho}\n    git_protocol: https\n'
    add('xxd_hex_hosts', gho, tool_out('xxd', '-p', data=hosts.encode()).rstrip('\n').split('\n'), 'oauth_token')
    return out

def leak_near(rnd=None) -> list:
    "Near-misses of each kind: a real word in hex, a base64 image, public keys, a URL with an ordinary query, ..."
    from urllib.parse import quote
    rnd = rnd or random.Random(32)
    out = [tool_out('xxd', '-p', data=b'Hello, world: the build passed.\n').strip().replace('\n', ''),
           '48656c6c6f20776f726c64', 'sha256 ' + rnd.randbytes(32).hex(),
           tool_out('base64', '-w76', data=png_like(rnd)).replace('\n', ''),
           tool_out('base64', '-w76', data=b'# settings\nDEBUG=0\nLOG_LEVEL=info\nWORKERS=4\n').strip()
           .replace('\n', ''),
           'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI' + base64.b64encode(rnd.randbytes(31)).decode() + ' deploy@ci',
           'authorized_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI' + base64.b64encode(rnd.randbytes(31)).decode(),
           'SSH_AUTHORIZED_KEY=ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ' + base64.b64encode(rnd.randbytes(60)).decode(),
           'https://www.google.com/search?q=django+secret+key&hl=en',
           'https://login.acme.io/sso?next=' + quote('https://app.acme.io/reports?page=2&sort=desc', safe=''),
           'CLAUDE_CODE_SESSION_ID=' + str(uuid.UUID(int=rnd.getrandbits(128), version=4)),
           'CLAUDE_CODE_MAX_OUTPUT_TOKENS=32000', 'CLAUDE_CODE_MESSAGING_SOCKET=/tmp/cc-socks/3888.sock',
           'Access key ID,Secret access key', 'DJANGO_SETTINGS_MODULE=app.settings.production',
           'git_protocol: https', 'SECRET_KEY_FALLBACKS=[]']
    return list(dict.fromkeys(out))

def png_like(rnd) -> bytes:
    "The bytes of a small PNG: its signature, then compressed (random-looking) data"
    return b'\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR' + rnd.randbytes(300)

LEAK_CHANNELS = ['prompt', 'bash', 'read', 'json_result', 'subagent', 'agent_report', 'history', 'odd_lines']
REPORT = 'There is one file: readme.md.'

def plant_report(secrets, near, root, rnd=None):
    "The subagent fixture, its subagent's final report holding every secret: relayed into the main session's result"
    rnd = rnd or random.Random('agent_report')
    text = channel_text(secrets, near, rnd)
    cfg, sid = _copy_fixture('subagent', root/'agent_report')
    files = [_main(cfg, sid), *sorted(cfg.glob(f'projects/*/{sid}/subagents/agent-*.jsonl'))]
    n = 0
    for f in files:
        if esc(REPORT) in f.read_text(): _replace(f, REPORT, REPORT + '\n' + text); n += 1
    assert n == 2, n  # the subagent's transcript, and the main session's result of its call
    return cfg, sid, {}

def views(data: bytes) -> list:
    "`data` and what a reader decodes of it: newlines and escapes dropped (a terminal's wrap), URL-decoded, hex, base64"
    from urllib.parse import unquote_to_bytes
    plain = re.sub(rb'(^|\\n|\n) *\d{1,7}(?:\\t|\t|\xe2\x86\x92)', rb'\1', data)  # Read's line numbers
    flat = re.sub(rb'\\r|\\n|\r|\n', b'', plain)
    out = [data, flat, unquote_to_bytes(flat), unquote_to_bytes(unquote_to_bytes(flat))]
    for m in re.finditer(rb'[0-9a-fA-F]{16,}', flat):
        h = m.group().decode()
        out += [bytes.fromhex(h[i:i + (len(h) - i) // 2 * 2]) for i in (0, 1)]  # however it is aligned
    for m in re.finditer(rb'[A-Za-z0-9+/]{16,}={0,2}', flat):
        b = m.group()
        for skip in range(4):  # a run that starts mid-quad (`"auth":"...`), however it is aligned
            c = b[skip:]
            try: out.append(base64.b64decode(c[:len(c) // 4 * 4]))
            except (binascii.Error, ValueError): pass
    return out

def count_decoded(needle, blobs): return sum(v.count(f) for b in blobs for v in views(b) for f in forms(needle))

def measure_leaks(channel, secrets, near, root) -> Outcome:
    "`measure` for issue 31's secrets: a secret counts as left when any decoding of a file still holds it"
    if channel == 'agent_report': cfg, sid, _ = plant_report(secrets, near, root)
    else: cfg, sid, _ = plant(channel, secrets, near, root/'leaks')
    before = session_bytes(cfg, sid)
    out = cfg.parent/'shared'
    with config_dir(cfg): res = redact_sess(sid, out)
    after = session_bytes(out, res.sid)
    leaked, absent = {}, []
    for s in secrets:
        ns = s.needles()
        if not any(count_decoded(n, before) for n in ns): absent.append(s.kind)
        if left := [n for n in ns if count_decoded(n, after)]: leaked[s.kind] = left
    changed = [n for n in near if count(n, before) != count(n, after)]
    with config_dir(out): rep = redact_check(res.sid)
    with config_dir(cfg): src_rc = 1 if redact_check(sid) else 0
    return Outcome(channel, leaked, absent, changed, 1 if rep else 0, rep, src_rc)

if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('--mb', type=float, default=100)
    ap.add_argument('--reps', type=int, default=3)
    ap.add_argument('--no-resume', action='store_true', help='skip resuming a redacted copy with the real CLI')
    ap.add_argument('--no-speed', action='store_true', help='skip the throughput on the big transcript')
    a = ap.parse_args()
    os.environ.setdefault('LLMSURGERY_REDACT_KEY', 'bench key')
    root = Path(tempfile.mkdtemp(prefix='llmsurgery-bench-redact-'))
    secrets, near = fake_secrets(), near_misses()
    print(f'{len(secrets)} secret formats ({", ".join(sorted({s.family for s in secrets}))}), {len(near)} near-misses,'
          f' {len(CHANNELS)} channels')
    t0 = time.monotonic()
    outcomes = [measure(c, secrets, near, root) for c in CHANNELS]
    print(f'planted, redacted and checked in {time.monotonic() - t0:.0f} s\n')
    print(table(outcomes, secrets), end='\n\n')
    print(summary(outcomes, secrets, near), end='\n\n')
    for o in outcomes:
        if o.leaked: print(f'{o.channel}: left {sorted(o.leaked)}')
        if o.changed: print(f'{o.channel}: near-misses changed {o.changed[:5]}')
        if o.absent: print(f'{o.channel}: never planted {o.absent}')
        if o.check: print(f'{o.channel}: check found {o.check.foot()}')
    bad = [o.channel for o in outcomes if o.check_rc == 0 and o.leaked]
    print(f'copies that passed --check yet hold a planted secret: {bad or "none"}')
    leaks, lnear = leak_secrets(), leak_near()
    lo = [measure_leaks(c, leaks, lnear, root/'issue31') for c in LEAK_CHANNELS]
    print(f'\nissue 31: {len(leaks)} leaks as the world makes them ({", ".join(s.kind for s in leaks)}), '
          f'{len(lnear)} near-misses, {len(LEAK_CHANNELS)} channels; a leak counts as left if any decoding holds it')
    print(summary(lo, leaks, lnear))
    for o in lo:
        if o.leaked: print(f'{o.channel}: left {sorted(o.leaked)}')
        if o.changed: print(f'{o.channel}: near-misses changed {o.changed[:5]}')
        if o.absent: print(f'{o.channel}: never planted {o.absent}')
        if o.check: print(f'{o.channel}: check found {o.check.foot()}')
    if not a.no_resume:
        from llmsurgery.resume import resume_check
        for c in ('bash', 'read', 'json_result'):
            p = next((root/c/'shared').glob('projects/*/*.jsonl'))
            print(f'resume of the redacted {c} copy: {resume_check(path=p)}')
    if not a.no_speed:
        size, tl, tc, tr = throughput(a.mb, a.reps, root)
        print(f'\n{size/1e6:.0f} MB transcript')
        print(f'load_recs     {tl:.2f} s  ({size/1e6/tl:.0f} MB/s; the baseline)')
        print(f'redact_check  {tc:.2f} s  ({tc/tl:.2f}x load_recs)')
        print(f'redact_sess   {tr:.2f} s  ({tr/tl:.2f}x load_recs; reads, redacts and writes the copy)')
    shutil.rmtree(root, ignore_errors=True)
