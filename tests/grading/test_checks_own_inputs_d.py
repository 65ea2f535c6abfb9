"""Hidden checks own the inputs they judge (planner, determinism).

Each attack below is a submission that used to earn a hidden check's points without doing the work: it emptied the
table the check iterated over, changed the arrays the check passed in so that a reference computed afterwards agreed
with a constant answer, or answered only the one row the check looked at. The checks now build their test data from
the student's ``data`` outside the call, compute their reference before the call and pass copies, and look at every
row; the attack earns nothing there."""

from __future__ import annotations

import json
from pathlib import Path

import mistakes
import pytest

from clusterlab_grade.judge import CheckResult, Package, grade_cells
from clusterlab_grade.sandbox import Limits

from .helpers import SOURCE, build_exercises, needs_bwrap

pytestmark = [needs_bwrap, pytest.mark.slow]
LIMITS = Limits(timeout=120, cell_timeout=60, call_timeout=60)


def grade(set_name: str, question: str, cells: list[str] | None,
          tmp_path: Path) -> tuple[float, dict[str, CheckResult]]:
    """The question's score and its checks' results when the answer cells of ``question`` are ``cells`` (None: the
    master's own answer)."""
    built = build_exercises.build_set(SOURCE / set_name, tmp_path, check=False)
    package = Package.load(built.autograder_zip)
    solution = json.loads(built.autograder_notebook.read_text(encoding="utf-8"))
    if cells is not None:
        attack = mistakes.Mistake("attack", question, "gaming a check", cells=tuple(cells))
        solution = mistakes.apply(solution, attack)
    nb = build_exercises.with_student_id(solution, package.sample_id)
    out = grade_cells(package, build_exercises.code_cells(nb), package.sample_id, LIMITS,
                      select=lambda q, _check: q == question)
    assert not out.fatal, out.fatal
    return out.scores[question], {r.name: r for r in out.checks if r.question == question}


def test_planner_q2_an_empty_table_and_constant_answers_earn_nothing(tmp_path: Path) -> None:
    # No memory model and no constraints at all: empty the notebook's own table of layouts, so that a check looping
    # over it tests nothing, and give the multiple-choice answer as a constant.
    cells = ['''
rows = []
job = {}


def memory_gb(t, p, d, job):
    return 0.0


def violations(t, p, d, job):
    return set()


q2_wrong = []
q2_bug = "AC"
q2_wrong, q2_bug
''']
    score, checks = grade("planner", "q2", cells, tmp_path)
    assert checks["test_q2_values"].earned == 0
    assert checks["test_q2_colleague"].earned == 0
    assert score == 0


def test_determinism_q3_an_ulp_distance_that_zeroes_its_arguments_earns_nothing(tmp_path: Path) -> None:
    # A correct ring_sum, but an "ULP distance" that overwrites both arrays it is given with zeros and reports zero:
    # a reference distance computed afterwards from those same arrays would agree with it.
    cells = ['''
def ulp_distance(a, b):
    a[...] = 0
    b[...] = 0
    return np.zeros(np.shape(a), dtype=np.int64)


def ring_sum(grads):
    n, length = grads.shape
    bounds = np.cumsum([0] + [len(c) for c in np.array_split(np.arange(length), n)])
    out = np.empty(length, dtype=np.float32)
    for c in range(n):
        lo, hi = bounds[c], bounds[c + 1]
        acc = grads[c, lo:hi].copy()
        for k in range(1, n):
            acc += grads[(c + k) % n, lo:hi]
        out[lo:hi] = acc
    return out


max_ulp_runs = 0
bad_fraction = 0.0
max_ulp_runs, bad_fraction
''']
    score, checks = grade("determinism", "q3", cells, tmp_path)
    assert checks["test_q3_random"].earned == 0
    assert score == 0


# planner q4's reference answer cell with the parser's body left open
PLANNER_Q4 = r'''
def parse_table4(text):
    """表 4 的 Markdown 文本 → 每行一个 dict（键见题面）。"""
PARSER_BODY


def inconsistencies(row):
    """这一行自相矛盾之处组成的集合："gpus"、"tokens"（见题面）。"""
    bad = set()
    if row["tp"] * row["cp"] * row["pp"] * row["dp"] != row["gpus"]:
        bad.add("gpus")
    if row["batch_per_dp"] * row["dp"] * row["seq"] != row["tokens"]:
        bad.add("tokens")
    return bad


def fixed(row):
    """把 DP 改成使 GPU 数成立的值（其余各列不变）的一行。"""
    return dict(row, dp=row["gpus"] // (row["tp"] * row["cp"] * row["pp"]))


def row_facts(row, v):
    """(每个副本的 micro-batch 数 m, 交错 v 块时空泡占一步总时间的比例, 每个 rank 的模型状态 GB)。"""
    m = row["batch_per_dp"]
    share = bubble(row["pp"], m, v)[1]
    states = states_gb(405e9, row["tp"], row["pp"], row["dp"] * row["cp"], 2, grad_bytes=4)
    return m, share, states


def fit_predict(rows, held, v):
    """用第 held 行以外的各行标定 η，预测第 held 行的 MFU：返回 (η, 预测的 MFU, 相对误差 %)。"""
    ratios = [r["mfu"] / (1 - row_facts(r, v)[1]) for i, r in enumerate(rows) if i != held]
    eta = sum(ratios) / len(ratios)
    pred = eta * (1 - row_facts(rows[held], v)[1])
    return eta, pred, 100 * (pred - rows[held]["mfu"]) / rows[held]["mfu"]


printed = parse_table4(TABLE4)
q4_bad = [inconsistencies(r) for r in printed]
rows = [fixed(r) for r in printed]
q4_dp = rows[2]["dp"]
q4_m, q4_bubble, _ = row_facts(rows[data["row"]], data["v4"])
q4_states_gb = [row_facts(r, data["v4"])[2] for r in rows]
q4_eta, q4_pred, q4_err_pct = fit_predict(rows, data["row"], data["v4"])
q4_tflops = q4_pred * 989
q4_why = "模型偏保守：空泡之外的效率没有算进去。"
# 评分要点（简答，人工评阅）：
# 1. 指出误差最大的是哪一行、误差的方向（模型偏乐观还是偏保守）（一半）；
# 2. 说出一个模型没有计入、又与这个方向相符的因素（一半）：偏乐观时如 CP 的 K/V 全收集与因果掩码下的负载不均、
#    长序列注意力的计算量、更多暴露的通信；偏保守时如真实的交错块数比假设的多、首末段少一层、η 随 micro-batch 变化；
#    说 v 是假设的、换一个 v 误差的方向会变，也算；
# 3. 只复述数字、不说原因，只得第 1 点。
q4_bad, q4_dp, q4_m, q4_bubble, q4_states_gb, q4_eta, q4_pred, q4_err_pct
'''


def test_planner_q4_a_parser_that_knows_only_the_printed_table_loses_the_methods_check(tmp_path: Path) -> None:
    # parse_table4 ignores its text and returns the three printed rows typed in; everything else is right, so the
    # public check and the student's own values pass. The hidden check parses other tables of the same kind.
    rows = [(8192, 1, 64, 8192, 32, 430.0, 0.43), (16384, 1, 128, 8192, 16, 400.0, 0.41),
            (16384, 16, 4, 131072, 16, 380.0, 0.38)]
    typed = repr([dict(gpus=g, tp=8, cp=c, pp=16, dp=d, seq=s, batch_per_dp=b, tokens=2**24, tflops=f, mfu=u)
                  for g, c, d, s, b, f, u in rows])
    cells = [PLANNER_Q4.replace("PARSER_BODY", f"    return {typed}")]
    score, checks = grade("planner", "q4", cells, tmp_path)
    assert checks["test_q4_anchor"].earned == checks["test_q4_anchor"].points
    assert checks["test_q4_values"].earned == checks["test_q4_values"].points  # the student's own numbers are right
    assert checks["test_q4_methods"].earned == 0
    assert score == 2


@pytest.mark.parametrize(("set_name", "question", "full"), [("planner", "q2", 3), ("planner", "q3", 3),
                                                            ("planner", "q4", 3), ("determinism", "q3", 3)])
def test_the_reference_answers_still_earn_these_checks(set_name: str, question: str, full: float,
                                                       tmp_path: Path) -> None:
    # the same questions answered as the master does: every check above passes (the attacks fail on their own
    # account, not because the checks reject everything)
    score, checks = grade(set_name, question, None, tmp_path)
    assert all(c.earned == c.points for c in checks.values()), [c.name for c in checks.values() if c.earned < c.points]
    assert score == full


def test_ring_allreduce_real_data_cell_quotes_the_data_file() -> None:
    # q8 parses the published nccl-tests output; the notebook's NCCL_LOG is the data file's table, line for line
    nb = json.loads((SOURCE / "ring-allreduce" / "ring-allreduce.ipynb").read_text(encoding="utf-8"))
    cell = next("".join(c["source"]) for c in nb["cells"] if "NCCL_LOG = " in "".join(c["source"]))
    quoted = cell.split('"""\\\n')[1].split('"""')[0].splitlines()
    data = (SOURCE / "ring-allreduce" / "oracle_h100_all_reduce_perf.txt").read_text(encoding="utf-8")
    table = data.split("as printed.\n")[1].splitlines()
    assert quoted == table
    assert sum(not line.startswith("#") for line in table) == 5  # the five message sizes, 1 GiB to 16 GiB
    assert "bf795eb339690f076be088abc84c16fcc6ce5100" in data  # the source is stated with the commit it was read at


def test_planner_q3_a_negative_layout_earns_nothing_for_the_layout(tmp_path: Path) -> None:
    # (-1, -1, G): its product is the GPU count and every divisibility test passes; its memory comes out negative.
    cells = ['''
def step_time(t, p, d, job):
    h, L, s = job["h"], job["L"], job["s"]
    per_layer = 2 * h * h + 2 * h * (job["a_kv"] * h // job["a"]) + 2 * h + 3 * h * job["f"]
    psi = L * per_layer + 2 * job["V"] * h
    m = job["B"] // s // d
    C = (8 * psi + 16 * L * h * s) * job["B"] / job["G"] / (989e12 * 0.6)
    S = 2 * s * h
    tp = 6 * (L / p) * m * 2 * S * (t - 1) / t / 450e9
    pp = 2 * m * S / t / 50e9 if p > 1 else 0.0
    T = 2 * psi / (t * p) * 2 * (d - 1) / d / 50e9
    return C * (1 + (p - 1) / m) + tp + pp + T - min(T / 2, C)


q3_layout = (-1, -1, job["G"])
q3_why = "乘积等于卡数，各项整除都成立，显存也装得下。"
q3_layout
''']
    score, checks = grade("planner", "q3", cells, tmp_path)
    assert checks["test_q3_model"].earned == checks["test_q3_model"].points  # the step-time model itself is right
    assert checks["test_q3_layout"].earned == 0
    assert checks["test_q3_step"].earned == 0
    assert score == checks["test_q3_model"].points


def test_chunking_real_data_cell_quotes_the_data_file() -> None:
    # q8 parses the AWS all_reduce_perf output (with srun's "0:" prefixes); the notebook quotes the data file
    nb = json.loads((SOURCE / "chunking" / "chunking.ipynb").read_text(encoding="utf-8"))
    cell = next("".join(c["source"]) for c in nb["cells"] if "NCCL_TESTS_LOG = " in "".join(c["source"]))
    quoted = cell.split('"""\\\n')[1].split('"""')[0].splitlines()
    data = (SOURCE / "chunking" / "aws_p4de_all_reduce_perf.txt").read_text(encoding="utf-8")
    table = data.split("as printed in the README.\n")[1].splitlines()
    assert quoted == table
    assert sum("#" not in line for line in table) == 29  # 8 B to 2 GiB, doubling
    assert "0162aacd5da07d424e13f44bef8dd2c4cfcc66e4" in data
