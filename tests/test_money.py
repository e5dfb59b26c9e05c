"""Every Claude model since Claude 3 is priced at Anthropic's list price; a model nobody prices falls back to the cost
Claude Code recorded, and each cost says where it comes from"""
import json, os, shutil
from pathlib import Path
import pytest
from llmsurgery.fixtures import fixture, fixture_sess
from llmsurgery.forensics import sess_stats
from llmsurgery.usage import model_rates, msg_cost, claude_id, sess_usage, find_usage, RECORDED, LIST, UNKNOWN

# $ per million tokens: input, output, 5-minute cache write, 1-hour cache write, cache read
# (https://docs.anthropic.com/en/docs/about-claude/pricing)
LIST_PRICES = {
    'claude-opus-4-1-20250805': (15, 75, 18.75, 30, 1.5), 'claude-opus-4-20250514': (15, 75, 18.75, 30, 1.5),
    'claude-sonnet-4-20250514': (3, 15, 3.75, 6, 0.3), 'claude-3-7-sonnet-20250219': (3, 15, 3.75, 6, 0.3),
    'claude-3-5-sonnet-20241022': (3, 15, 3.75, 6, 0.3), 'claude-3-5-sonnet-20240620': (3, 15, 3.75, 6, 0.3),
    'claude-3-5-haiku-20241022': (0.8, 4, 1, 1.6, 0.08), 'claude-3-opus-20240229': (15, 75, 18.75, 30, 1.5),
    'claude-3-sonnet-20240229': (3, 15, 3.75, 6, 0.3), 'claude-3-haiku-20240307': (0.25, 1.25, 0.3, 0.5, 0.03),
    'claude-opus-4-5-20251101': (5, 25, 6.25, 10, 0.5), 'claude-opus-4-5': (5, 25, 6.25, 10, 0.5),
    'claude-sonnet-4-5-20250929': (3, 15, 3.75, 6, 0.3), 'claude-sonnet-4-5': (3, 15, 3.75, 6, 0.3),
    'claude-haiku-4-5-20251001': (1, 5, 1.25, 2, 0.1), 'claude-haiku-4-5': (1, 5, 1.25, 2, 0.1),
    'claude-opus-4-6': (5, 25, 6.25, 10, 0.5), 'claude-opus-4-7': (5, 25, 6.25, 10, 0.5),
    'claude-opus-4-8': (5, 25, 6.25, 10, 0.5), 'claude-opus-5': (5, 25, 6.25, 10, 0.5),
    'claude-opus-5-5': (4, 20, 5, 8, 0.2), 'claude-sonnet-4-6': (3, 15, 3.75, 6, 0.3),
    'claude-sonnet-5': (2, 10, 2.5, 4, 0.2), 'claude-sonnet-5-5': (2, 10, 2.5, 4, 0.1),
    'claude-haiku-5-5': (0.1, 0.5, 0.125, 0.2, 0.01), 'claude-fable-5': (10, 50, 12.5, 20, 1),
    'claude-fable-5-1': (10, 50, 12.5, 20, 0.25), 'claude-mythos-5': (10, 50, 12.5, 20, 1),
    'claude-mythos-5-1': (10, 50, 12.5, 20, 0.25)}
LONG = {  # prompts over the limit: `(limit, prices)`
    'claude-sonnet-4-20250514': (200_000, (6, 22.5, 7.5, 12, 0.6)),
    'claude-sonnet-4-5-20250929': (200_000, (6, 22.5, 7.5, 12, 0.6)),
    'claude-haiku-5-5': (100_000, (0.5, 2.5, 0.625, 1, 0.05))}
ALIASES = {'claude-opus-4-1': 'claude-opus-4-1-20250805', 'claude-opus-4-0': 'claude-opus-4-20250514',
           'claude-opus-4': 'claude-opus-4-20250514', 'claude-sonnet-4-0': 'claude-sonnet-4-20250514',
           'claude-3-7-sonnet-latest': 'claude-3-7-sonnet-20250219', 'claude-3-5-sonnet-latest':
           'claude-3-5-sonnet-20241022', 'claude-3-5-haiku-latest': 'claude-3-5-haiku-20241022',
           'claude-3-5-haiku': 'claude-3-5-haiku-20241022', 'claude-3-opus-latest': 'claude-3-opus-20240229',
           'claude-3-haiku': 'claude-3-haiku-20240307', 'claude-sonnet-4-20250514[1m]': 'claude-sonnet-4-20250514',
           'claude-sonnet-4@20250514': 'claude-sonnet-4-20250514',  # Vertex
           'claude-3-5-sonnet-v2@20241022': 'claude-3-5-sonnet-20241022',
           'anthropic.claude-opus-4-1-20250805-v1:0': 'claude-opus-4-1-20250805'}  # Bedrock

def rates(prices):
    "fastllm's `PRICED` order (input, cache read, 5-minute write, 1-hour write, output), per token"
    i, o, w5, w1, r = (p * 1e-6 for p in prices)
    return pytest.approx((i, r, w5, w1, o), rel=1e-12)

@pytest.mark.parametrize('model', LIST_PRICES)
def test_list_price(model):
    limit, base, above = model_rates(model)
    assert base == rates(LIST_PRICES[model])
    if (long := LONG.get(claude_id(model) or model)): assert (limit, above) == (long[0], rates(long[1]))
    else: assert limit == float('inf') and above == base

@pytest.mark.parametrize('alias', ALIASES)
def test_alias(alias):
    assert claude_id(alias) == ALIASES[alias]
    assert model_rates(alias) == model_rates(ALIASES[alias])

def test_1m_suffix():
    "Claude Code's `[1m]` suffix (the 1M-token context window) names the same model"
    assert model_rates('claude-sonnet-4-6[1m]') == model_rates('claude-sonnet-4-6') is not None
    assert model_rates('claude-opus-4-6[1m]') == model_rates('claude-opus-4-6') is not None

def test_one_message():
    "A million tokens of each kind, one hour writes included, on the models of 2025 that cost $0 before"
    u = dict(input_tokens=10**6, output_tokens=10**6, cache_read_input_tokens=10**6,
             cache_creation_input_tokens=2 * 10**6, cache_creation=dict(ephemeral_1h_input_tokens=10**6))
    assert msg_cost('claude-opus-4-1-20250805', u) == 15 + 75 + 1.5 + 18.75 + 30
    assert msg_cost('claude-3-5-haiku-20241022', u) == pytest.approx(0.8 + 4 + 0.08 + 1 + 1.6)
    big = dict(input_tokens=300_000, output_tokens=10**6)  # a long prompt: the whole message at the higher rates
    assert msg_cost('claude-sonnet-4-20250514', big) == pytest.approx(0.3 * 6 + 22.5)
    assert msg_cost('claude-made-up-9', u) is None

def _with_model(tmp_path, model, cost_state=None, per_record=None):
    "The `tools` fixture's config folder, its assistant records answered by `model`"
    cfg = tmp_path/'cfg'
    shutil.copytree(fixture('tools'), cfg)
    p = next((cfg/'projects').glob('*/*.jsonl'))
    out = []
    for line in p.read_text().splitlines():
        r = json.loads(line)
        if r.get('type') == 'assistant':
            r['message']['model'] = model
            if per_record is not None: r['costUSD'] = per_record
        if r.get('type') == 'cost-state' and cost_state is not None:
            r['modelUsage'] = {model: {**next(iter(r['modelUsage'].values())), 'costUSD': cost_state}}
        out.append(json.dumps(r))
    p.write_text('\n'.join(out) + '\n')
    return cfg, p

def test_recorded_fallback(tmp_path, monkeypatch):
    "A model nobody prices: the session's cost is what Claude Code recorded for it, and says so"
    cfg, p = _with_model(tmp_path, 'claude-made-up-9', cost_state=0.5)
    u = sess_usage(p)
    assert (u[0].cost, u[0].cost_source, u.unknown) == (0.5, RECORDED, [])
    assert 'cost_source' in u.cols and '$0.5000' in dict(sess_stats(p).lines())['cost']
    cfg2, p2 = _with_model(tmp_path/'b', 'claude-made-up-9', per_record=0.01)  # older CLIs: `costUSD` per record
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(cfg2))
    u2 = sess_usage(p2)
    assert (u2[0].cost, u2[0].cost_source) == (0.01 * u2[0].messages, RECORDED)
    m = find_usage('model')
    assert (m[0].cost, m[0].cost_source) == (u2[0].cost, RECORDED)
    from llmsurgery.archive_index import ArchiveIndex
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path/'cache'))
    for by in ('model', 'session', 'day'):  # the index answers as the scan does, recorded costs included
        ix = find_usage(by, index=ArchiveIndex())
        assert [(o.cost, o.cost_source) for o in ix] == [(o.cost, o.cost_source) for o in find_usage(by)]
        assert ix.total.cost == u2[0].cost

def test_unknown_says_so(tmp_path):
    cfg, p = _with_model(tmp_path, 'claude-made-up-9')
    u = sess_usage(p)
    assert (u[0].cost, u[0].cost_source, u.unknown) == (None, UNKNOWN, ['claude-made-up-9'])
    assert 'no price, and no cost recorded' in u.foot()

def test_listed_needs_no_column():
    u = sess_usage(fixture_sess('tools'))
    assert u[0].cost_source == LIST and 'cost_source' not in u.cols

def test_old_2025_models_cost_something(tmp_path):
    "The issue's case: a 2025 session on `claude-opus-4-1-20250805` cost $0.0000 in `stats`"
    cfg, p = _with_model(tmp_path, 'claude-opus-4-1-20250805')
    u = sess_usage(p)
    assert u.unknown == [] and u[0].cost > 0.1 and u[0].cost_source == LIST
    assert not dict(sess_stats(p).lines())['cost'].startswith('$0.0000')

def test_usage_by_session(tmp_path, monkeypatch):
    "`usage --by session` names each session by project and title, the costliest first"
    from llmsurgery.fixtures import fixture_names
    for n in fixture_names(): shutil.copytree(fixture(n), tmp_path, dirs_exist_ok=True)
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(tmp_path))
    bys = find_usage('session')
    assert bys.cols[:3] == ['session', 'project', 'title']
    assert bys.attrgot('cost') == sorted(bys.attrgot('cost'), reverse=True)
    assert (bys[0].project, bys[0].title) == ('-tmp-llmsurgery-rec-cache', 'What is the capital of France?')

def test_agents_tokens_say_what_they_count():
    from llmsurgery.forensics import sess_agents
    ags = sess_agents(fixture_sess('subagent'))
    assert 'tokens' not in ags.cols and 'tokens (in+out)' in ags.cols and 'cost' in ags.cols
    assert [a['tokens (in+out)'] for a in ags] == [a.usage.total.input + a.usage.total.output for a in ags]
