"""clusterlab.faults.recovery, incident, slowlink: an exact resume is bit-for-bit, each missing piece changes the run
in its own way, Adam is Kingma & Ba's, the incident arithmetic and the slow-link throughput formulas hold, bad input
is refused."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clusterlab.faults import incident, slowlink
from clusterlab.faults import recovery as rc

SMALL = rc.Config(samples=128, hidden=16, batch=16, warmup=10, horizon=100)


@pytest.fixture(scope="module")
def experiment() -> rc.RecoveryExperiment:
    return rc.recovery_experiment()


@pytest.fixture(scope="module")
def small_run() -> rc.Run:
    return rc.train(60, SMALL, save_at=(13, 20, 37))


# --------------------------------------------------------------------------------------------------------
# data, model, optimizer
# --------------------------------------------------------------------------------------------------------
def test_dataset_is_seeded_and_balanced() -> None:
    x, y = rc.make_dataset()
    x2, y2 = rc.make_dataset()
    assert x.shape == (512, 2) and y.shape == (512,)
    assert np.array_equal(x, x2) and np.array_equal(y, y2)
    assert set(np.unique(y)) == {0.0, 1.0}
    assert 0.4 < y.mean() < 0.6
    other, _ = rc.make_dataset(rc.Config(data_seed=5))
    assert not np.array_equal(x, other)


def test_adam_update_matches_kingma_ba_by_hand() -> None:
    p, g = np.array([1.0, -2.0]), np.array([0.5, -0.25])
    m, v = np.array([0.1, 0.2]), np.array([0.01, 0.04])
    t, lr, b1, b2, eps = 3, 0.01, 0.9, 0.999, 1e-8
    new_p, new_m, new_v = rc.adam_update(p, g, m, v, t, lr, b1, b2, eps)
    for i in range(2):
        mi = b1 * m[i] + (1 - b1) * g[i]
        vi = b2 * v[i] + (1 - b2) * g[i] ** 2
        step = lr * (mi / (1 - b1**t)) / (math.sqrt(vi / (1 - b2**t)) + eps)
        assert new_m[i] == pytest.approx(mi, rel=1e-15)
        assert new_v[i] == pytest.approx(vi, rel=1e-15)
        assert new_p[i] == pytest.approx(p[i] - step, rel=1e-14)
    assert np.array_equal(p, [1.0, -2.0]) and np.array_equal(m, [0.1, 0.2])  # inputs untouched


@given(st.lists(st.floats(-1e3, 1e3).filter(lambda g: abs(g) > 1e-3), min_size=1, max_size=20),
       st.floats(1e-4, 1.0))
def test_first_adam_step_from_zero_state_is_plus_minus_lr(grads: list[float], lr: float) -> None:
    g = np.array(grads)
    zero = np.zeros_like(g)
    new_p, _, _ = rc.adam_update(zero, g, zero, zero, 1, lr)
    np.testing.assert_allclose(-new_p, lr * np.sign(g), rtol=1e-4)


def test_learning_rate_schedule() -> None:
    cfg = rc.Config(learning_rate=0.1, warmup=10, horizon=110, final_lr_ratio=0.1)
    assert cfg.lr_at(0) == pytest.approx(0.01)
    assert cfg.lr_at(9) == pytest.approx(0.1)
    assert cfg.lr_at(59) == pytest.approx(0.1 * (0.1 + 0.9 * 0.5))  # half way down the cosine
    assert cfg.lr_at(109) == pytest.approx(0.01) and cfg.lr_at(500) == pytest.approx(0.01)
    flat = rc.Config(final_lr_ratio=1.0)
    assert flat.lr_at(100) == flat.lr_at(599) == flat.learning_rate


def test_training_learns(small_run: rc.Run) -> None:
    assert small_run.loss[-1] < 0.7 * small_run.loss[0]
    assert np.all(np.isfinite(small_run.batch_loss))
    assert small_run.steps[0] == 1 and small_run.steps[-1] == 60


# --------------------------------------------------------------------------------------------------------
# checkpoints
# --------------------------------------------------------------------------------------------------------
def test_checkpoint_holds_the_four_pieces(small_run: rc.Run) -> None:
    ckpt = small_run.checkpoint(20)
    cfg = small_run.config
    assert ckpt.step == 20 and ckpt.optimizer.t == 20
    assert ckpt.data.epoch == 20 // cfg.steps_per_epoch
    assert ckpt.data.cursor == (20 % cfg.steps_per_epoch) * cfg.batch
    assert sorted(ckpt.data.order.tolist()) == list(range(cfg.samples))
    sizes = ckpt.nbytes()
    assert set(sizes) == set(rc.PIECES)
    assert sizes["optimizer"] == 2 * sizes["weights"] + 8  # Adam keeps two moments per parameter
    params = 2 * cfg.hidden + cfg.hidden + cfg.hidden + 1
    assert sizes["weights"] == 8 * params


def test_checkpoint_is_a_read_only_snapshot(small_run: rc.Run) -> None:
    ckpt = small_run.checkpoint(13)
    with pytest.raises(ValueError, match="read-only"):
        ckpt.weights["W1"][0, 0] = 1.0
    with pytest.raises(TypeError):
        ckpt.weights["W1"] = np.zeros(1)  # type: ignore[index]
    # the later training steps did not leak into the earlier snapshot
    assert not np.array_equal(ckpt.weights["W1"], small_run.checkpoint(37).weights["W1"])
    # a generator rebuilt from the snapshot continues the same stream every time
    a = ckpt.rng.generator("dropout").random(5)
    b = ckpt.rng.generator("dropout").random(5)
    assert np.array_equal(a, b)


@pytest.mark.parametrize("k", [13, 20, 37])
def test_full_resume_is_bit_for_bit(small_run: rc.Run, k: int) -> None:
    resumed = rc.train(60 - k, SMALL, resume=small_run.checkpoint(k))
    assert resumed.first_step == k and resumed.steps[0] == k + 1
    assert np.array_equal(resumed.loss, small_run.loss[k:])
    assert np.array_equal(resumed.batch_loss, small_run.batch_loss[k:])
    for name in rc.PARAMS:
        assert np.array_equal(resumed.final.weights[name], small_run.final.weights[name])
        assert np.array_equal(resumed.final.optimizer.m[name], small_run.final.optimizer.m[name])
    assert resumed.final.data.epoch == small_run.final.data.epoch
    assert resumed.final.rng.dropout == small_run.final.rng.dropout


def test_resume_in_two_hops_is_still_exact(small_run: rc.Run) -> None:
    first = rc.train(10, SMALL, resume=small_run.checkpoint(13), save_at=(20,))
    second = rc.train(40, SMALL, resume=first.checkpoint(20))
    assert np.array_equal(second.loss, small_run.loss[20:])


@pytest.mark.parametrize("missing", rc.PIECES)
def test_every_missing_piece_changes_the_run(small_run: rc.Run, missing: str) -> None:
    pieces = [p for p in rc.PIECES if p != missing]
    resumed = rc.train(60 - 20, SMALL, resume=small_run.checkpoint(20), restore=pieces)
    assert not np.array_equal(resumed.loss, small_run.loss[20:])
    assert np.all(np.isfinite(resumed.loss))


def test_what_a_fresh_start_of_each_piece_means(small_run: rc.Run) -> None:
    ckpt = small_run.checkpoint(20)
    no_opt = rc.train(1, SMALL, resume=ckpt, restore=("weights", "rng", "data"))
    assert no_opt.final.optimizer.t == 1  # Adam restarted its counter
    no_data = rc.train(1, SMALL, resume=ckpt, restore=("weights", "optimizer", "rng"))
    assert no_data.final.data.epoch == 0 and no_data.final.data.cursor == SMALL.batch
    no_rng = rc.train(1, SMALL, resume=ckpt, restore=("weights", "optimizer", "data"))
    fresh = rc.train(1, SMALL)
    assert no_rng.final.rng.dropout == fresh.final.rng.dropout  # re-seeded: replays the stream of step 1


# --------------------------------------------------------------------------------------------------------
# the experiment of the book
# --------------------------------------------------------------------------------------------------------
def test_book_experiment_exact_resume(experiment: rc.RecoveryExperiment) -> None:
    assert experiment.identical("all")
    assert experiment.first_divergence("all") is None
    assert np.array_equal(experiment.loss("all"), experiment.baseline.loss)
    for name in ("no_optimizer", "no_rng", "no_data"):
        assert not experiment.identical(name)
        assert experiment.first_divergence(name) == experiment.save_step + 1
    ckpt = experiment.baseline.checkpoint(experiment.save_step)
    assert 0 < ckpt.data.cursor < experiment.baseline.config.samples  # the save falls inside an epoch


def test_book_experiment_loss_jumps_without_optimizer_state(experiment: rc.RecoveryExperiment) -> None:
    k = experiment.save_step
    base = experiment.baseline.loss
    level = base[k - 1]
    step, jump = experiment.peak_excess("no_optimizer", 20)
    assert k < step <= k + 5  # within a few steps of the resume
    assert jump > 2 * level  # the loss more than triples
    wobble = np.abs(np.diff(base[k - 50 : k])).max()
    assert jump > 5 * wobble  # far outside the run's own step-to-step noise
    for other in ("no_rng", "no_data"):
        assert jump > 5 * np.abs(experiment.excess(other)[:20]).max()


def test_book_experiment_first_update(experiment: rc.RecoveryExperiment) -> None:
    reset = experiment.first_update("no_optimizer")
    kept = experiment.first_update("all")
    assert reset.max() <= 1 + 1e-9
    assert np.median(reset) > 0.99  # most parameters move by lr
    assert np.median(kept) < 0.05  # the remembered second moment keeps the steps small
    moved = reset[reset > 0]
    assert np.mean(moved > 0.9) > 0.6


@pytest.mark.parametrize("seed", [0, 1])
def test_loss_jump_is_not_a_lucky_seed(seed: int) -> None:
    cfg = rc.Config(init_seed=30 + seed, dropout_seed=10 + seed, shuffle_seed=20 + seed)
    ex = rc.recovery_experiment(config=cfg)
    level = ex.baseline.loss[ex.save_step - 1]
    assert ex.identical("all")
    assert ex.peak_excess("no_optimizer", 20)[1] > level


# --------------------------------------------------------------------------------------------------------
# slow link and incidents
# --------------------------------------------------------------------------------------------------------
def test_throughput_with_slow_link_agrees_with_the_ring_model() -> None:
    fast = slowlink.ring_with_slow_link(14e9, [25e9] * 8)
    slow = slowlink.ring_with_slow_link(14e9, [25e9] * 7 + [2.5e9])
    k = slow.total_time / fast.total_time
    assert k == pytest.approx(10)
    compute = 4.0
    step_fast, step_slow = compute + fast.total_time, compute + slow.total_time
    f = fast.total_time / step_fast
    assert slowlink.throughput_with_slow_link(f, k) == pytest.approx(step_fast / step_slow)
    assert slowlink.throughput_with_slow_link(0.0, 7.0) == 1.0
    assert slowlink.throughput_with_slow_link(1.0, 4.0) == pytest.approx(0.25)


@given(st.floats(0.01, 1.0), st.floats(0.05, 1.0))
@settings(max_examples=60)
def test_slowdown_for_throughput_inverts(f: float, r: float) -> None:
    k = slowlink.slowdown_for_throughput(f, r)
    assert k >= 1
    assert slowlink.throughput_with_slow_link(f, k) == pytest.approx(r, rel=1e-9)


_STEP = st.tuples(
    st.floats(0.01, 100.0),  # compute, s
    st.floats(0.0, 100.0),  # communication, s
    st.floats(0.0, 1.0),  # overlap window as a share of compute
)


@given(_STEP, st.floats(1.0, 100.0))
@settings(max_examples=200)
def test_slow_step_never_beats_the_bound(step: tuple[float, float, float], k: float) -> None:
    c, comm, share = step
    s = slowlink.step_with_slow_link(c, comm, share * c, k)
    assert 0 < s.throughput <= 1
    assert s.throughput <= s.bound * (1 + 1e-12)
    assert s.bound == pytest.approx(slowlink.throughput_with_slow_link(s.exposed_fraction, k), rel=1e-12)


@given(_STEP, st.floats(1.0, 50.0), st.floats(1.0, 50.0))
@settings(max_examples=200)
def test_slow_step_is_monotone_in_the_slowdown(step: tuple[float, float, float], k1: float, k2: float) -> None:
    c, comm, share = step
    lo, hi = sorted((k1, k2))
    a = slowlink.step_with_slow_link(c, comm, share * c, lo)
    b = slowlink.step_with_slow_link(c, comm, share * c, hi)
    assert b.throughput <= a.throughput * (1 + 1e-12)
    assert b.slow_step >= a.slow_step * (1 - 1e-12)


@given(st.floats(0.01, 100.0), st.floats(0.0, 1.0), st.floats(1.0, 100.0))
@settings(max_examples=200)
def test_slow_step_equals_the_bound_when_communication_fits_the_window(c: float, fill: float, k: float) -> None:
    # the slow collective k·comm still fits in the window: nothing is exposed, before or after
    window = c
    comm = fill * window / k
    s = slowlink.step_with_slow_link(c, comm, window, k)
    assert s.throughput == pytest.approx(1.0) and s.bound == pytest.approx(1.0)
    # nothing overlaps: every second of communication is exposed, and the bound is exact
    s0 = slowlink.step_with_slow_link(c, comm, 0.0, k)
    assert s0.throughput == pytest.approx(s0.bound, rel=1e-12)


def test_slow_step_example_and_errors() -> None:
    s = slowlink.step_with_slow_link(0.8, 0.5, 0.3, 10)
    assert s.healthy_step == pytest.approx(1.0) and s.exposed_fraction == pytest.approx(0.2)
    assert s.bound == pytest.approx(1 / 2.8)  # 0.8 + 10·0.2
    assert s.throughput == pytest.approx(1 / 5.5)  # 0.8 + 10·0.5 − 0.3
    with pytest.raises(ValueError, match="overlap"):
        slowlink.step_with_slow_link(0.8, 0.5, 0.9, 10)
    with pytest.raises(ValueError, match="slowdown"):
        slowlink.step_with_slow_link(0.8, 0.5, 0.3, 0.5)
    with pytest.raises(ValueError, match="compute"):
        slowlink.step_with_slow_link(0.0, 0.5, 0.0, 2)


def test_incident_arithmetic() -> None:
    inc = incident.Incident.with_interval(600, 1800, 600, 300, 7200)
    assert inc.catch_up == 3600
    assert inc.mttr == 3300 and inc.total == 6900
    assert [name for name, _ in inc.phases()] == list(incident.Incident.PHASES)
    assert inc.gpu_hours(1024) == pytest.approx(1024 * 6900 / 3600)
    with pytest.raises(ValueError, match="locate"):
        incident.Incident(1, -1, 1, 1, 1)
    with pytest.raises(ValueError, match="gpus"):
        inc.gpu_hours(0)


# --------------------------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"batch": 30}, "batch"),
        ({"samples": 1}, "samples"),
        ({"dropout": 1.0}, "dropout"),
        ({"learning_rate": 0}, "learning_rate"),
        ({"beta2": 1.0}, "beta2"),
        ({"final_lr_ratio": 0}, "final_lr_ratio"),
        ({"horizon": 50}, "horizon"),
        ({"hidden": 2.5}, "hidden"),
        ({"shuffle_seed": -1}, "shuffle_seed"),
    ],
)
def test_config_refuses_bad_values(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        rc.Config(**kwargs)  # type: ignore[arg-type]


def test_train_refuses_bad_arguments(small_run: rc.Run) -> None:
    with pytest.raises(ValueError, match="steps"):
        rc.train(0, SMALL)
    with pytest.raises(ValueError, match="restore"):
        rc.train(5, SMALL, resume=small_run.checkpoint(13), restore=("weights", "moments"))
    with pytest.raises(ValueError, match="restore"):
        rc.train(5, SMALL, resume=small_run.checkpoint(13), restore="weights")
    with pytest.raises(ValueError, match="save_at"):
        rc.train(5, SMALL, save_at=(6,))
    with pytest.raises(ValueError, match="hidden"):
        rc.train(5, rc.Config(), resume=small_run.checkpoint(13))
    with pytest.raises(ValueError, match="step"):
        small_run.checkpoint(14)
    with pytest.raises(ValueError, match="which"):
        small_run.checkpoint(13).rng.generator("model")
    with pytest.raises(ValueError, match="save_step"):
        rc.recovery_experiment(10, 10, SMALL)
    with pytest.raises(ValueError, match="exposed_fraction"):
        slowlink.throughput_with_slow_link(1.5, 2)
    with pytest.raises(ValueError, match="slowdown"):
        slowlink.throughput_with_slow_link(0.5, 0.5)
    with pytest.raises(ValueError, match="exposed_fraction"):
        slowlink.slowdown_for_throughput(0, 0.7)
    with pytest.raises(ValueError, match="throughput"):
        slowlink.slowdown_for_throughput(0.2, 1.5)
