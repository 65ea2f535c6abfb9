"""Quiz bank of part 2: every key recomputed from closed forms, every distractor rejected."""

import pytest

from clusterlab.book import quiz
from clusterlab.book.quizbank import part2 as qb

GB = 1e9
S = 7e9 * 2  # 7B parameters, fp16 gradients: 14 GB
BETA = 200e9 / 8  # 200 Gb/s per direction = 25 GB/s
ALPHA = 5e-6
S_NAIVE = 3e9 * 2  # transfer: a 3B model on 16 ranks
ALPHA_T = 8e-6  # transfer: 512 ranks, 50 GB/s
BETA_T = 50e9
S_RING = 6e9 * 2  # transfer: a 6B model on 32 ranks


def _numeric(questions):
    return [q for q in questions if isinstance(q, quiz.Numeric)]


def _choices(questions):
    return [q for q in questions if isinstance(q, quiz.Choice)]


# closed forms, written out independently of clusterlab.communication.collectives
C01_KEYS = [
    S / GB,  # 14 GB
    S_NAIVE * (16 - 1) / GB,  # naive root receives S(N-1) = 90 GB
    2 * ALPHA + 2 * S_NAIVE * (16 - 1) / BETA,  # naive α-β: receive then send, 7.2 s
    512 * ALPHA_T * BETA_T / 1e6,  # crossover S* = N α β = 204.8 MB
]
C02_KEYS = [
    2 * S_RING * (32 - 1) / 32 / GB,  # 23.25 GB
    2 * (384 - 1),  # 766 steps
    (2 + 1) % 4,  # rank r holds chunk (r + 1) mod N after reduce-scatter
    # 10 float32 on 4 ranks: chunk bytes 12, 12, 8, 8; rank r sends 2S - |chunk r+1| - |chunk r+2|
    max(80 - [12, 12, 8, 8][(r + 1) % 4] - [12, 12, 8, 8][(r + 2) % 4] for r in range(4)),
    S / 1.12 * 2 * (8 - 1) / 8 / GB,  # busbw = algbw · 2(N-1)/N
]


@pytest.mark.parametrize(("bank", "keys"), [(qb.c01_questions, C01_KEYS), (qb.c02_questions, C02_KEYS)])
def test_numeric_keys_match_closed_forms(bank, keys):
    qs = _numeric(bank())
    assert len(qs) == len(keys)
    for q, key in zip(qs, keys, strict=True):
        assert q.answer == pytest.approx(key, rel=1e-12), q.prompt


def test_expected_values_in_words():
    c01 = _numeric(qb.c01_questions())
    assert [round(q.answer, 6) for q in c01] == [14.0, 90.0, 7.20001, 204.8]
    c02 = _numeric(qb.c02_questions())
    assert [round(q.answer, 6) for q in c02] == [23.25, 766.0, 3.0, 64.0, 21.875]


@pytest.mark.parametrize("bank", [qb.c01_questions, qb.c02_questions])
def test_choices_have_the_right_number_of_correct_options(bank):
    for q in _choices(bank()):
        n_correct = sum(o.correct for o in q.options)
        if q.multiple:
            assert 1 <= n_correct < len(q.options)
        else:
            assert n_correct == 1
        assert all(o.feedback for o in q.options), q.prompt


def test_specific_distractors():
    size, root, t_naive, cross = _numeric(qb.c01_questions())
    assert dict(size.wrong).keys() >= {28.0, 112.0}  # fp32; bits (or training state)
    assert S / 2**30 in dict(size.wrong)  # GiB
    assert {90.0 + 90.0, 6.0 * 16, 2 * 6.0 * 15 / 16}.issubset({round(v, 9) for v in dict(root.wrong)})
    assert any(v == pytest.approx(S_NAIVE * 15 / BETA) for v in dict(t_naive.wrong))  # one phase only
    assert any(v == pytest.approx(204.8 / 8) for v in dict(cross.wrong))  # a given GB/s divided by 8 again
    assert all(v != pytest.approx(8 * 204.8) for v in dict(cross.wrong))  # the prompt gives GB/s: no Gb/s slip
    vol = _numeric(qb.c02_questions())[0]
    assert {24.0, 46.5, 11.625}.issubset({round(v, 9) for v in dict(vol.wrong)})  # 2S; send+recv; one phase
    # 744 GB is 2(N−1)S, the total over all links: its feedback must say so (not only "bits")
    assert "2(N-1)S" in dict((round(v, 9), f) for v, f in vol.wrong)[744.0]
    assert "比特" in dict((round(v, 9), f) for v, f in vol.wrong)[8 * 23.25]


def test_dominant_term_and_lower_bound_choices():
    c01 = _choices(qb.c01_questions())
    dominant = c01[0]
    (correct,) = [o for o in dominant.options if o.correct]
    # 1 GB at N = 512: latency 2·511·8 µs ≈ 8.2 ms vs bandwidth 2·1e9·511/512/50e9 ≈ 39.9 ms
    assert 2 * 511 * ALPHA_T < 2 * 1e9 * 511 / 512 / BETA_T
    assert correct.text.startswith("带宽项") and dominant.transfer
    bound = _choices(qb.c02_questions())[0]
    (correct,) = [o for o in bound.options if o.correct]
    assert "2S(N-1)/N" in correct.text
    assert not any("原文的说法" in o.feedback for o in bound.options)
    growth = _choices(qb.c02_questions())[1]
    assert growth.multiple
    chosen = {o.text.split(" ")[0] for o in growth.options if o.correct}
    assert chosen == {"通信步数", "延迟项", "所有链路上的字节总数"}

