"""CLEVR's decoding correction: predicted states projected onto the table, on constructed states."""

import numpy as np
import pytest

from imaginebench_data import get_domain
from imaginebench_data.domains.clevr import checks
from imaginebench_data.domains.clevr.decode import CONTACT, LIMIT, project_onto_table

CLEVR = get_domain("clevr")
SPREAD = np.float32([-0.6, -0.6, 0.6, -0.6, 0.0, 0.0, -0.6, 0.6, 0.6, 0.6])  # five balls far apart


def project(state):
    return project_onto_table(None, np.asarray(state, np.float32)[None])[0]


def test_the_domain_decodes_with_it():
    assert CLEVR.decode_state is project_onto_table and "projected onto the table" in CLEVR.decoding


def test_a_legal_state_is_left_exactly_as_it_is():
    np.testing.assert_array_equal(project(SPREAD), SPREAD)


def test_a_ball_beyond_the_wall_is_clipped_and_nothing_else_moves():
    state = SPREAD.copy()
    state[4:6] = [1.5, -0.2]  # green beyond the +x wall
    out = project(state)
    np.testing.assert_allclose(out[4:6], [LIMIT, -0.2], atol=1e-6)
    np.testing.assert_array_equal(np.delete(out, [4, 5]), np.delete(state, [4, 5]))
    assert not checks.illegal(out[None]).any()
    assert checks.illegal(state[None])[0, checks.ILLEGAL_KINDS.index("off_table")]


def test_an_overlapping_pair_is_pushed_apart_half_each_way_until_it_touches():
    state = SPREAD.copy()
    state[2:4] = state[0:2] + [0.1, 0.0]  # blue 10 cm right of red: 16 cm of overlap
    out = project(state)
    red, blue = out[0:2], out[2:4]
    assert np.linalg.norm(blue - red) == pytest.approx(CONTACT, abs=1e-5)
    np.testing.assert_allclose((red + blue) / 2, state[0:2] + [0.05, 0.0], atol=1e-6)  # midpoint kept
    np.testing.assert_allclose(blue - red, [CONTACT, 0.0], atol=1e-5)  # along the line of centres
    np.testing.assert_array_equal(out[4:], state[4:])
    assert not checks.illegal(out[None]).any()


def test_coincident_balls_are_separated():
    state = SPREAD.copy()
    state[2:4] = state[0:2]
    out = project(state)
    assert np.linalg.norm(out[2:4] - out[0:2]) == pytest.approx(CONTACT, abs=1e-5)


def test_five_balls_in_one_corner_end_legal():
    corner = np.full(10, 0.95, np.float32)
    corner[::2] += np.float32([0.0, 0.01, 0.02, 0.03, 0.04])
    out = project(corner)
    assert not checks.illegal(out[None]).any(), out


def test_non_finite_rows_are_left_for_the_checkers():
    bad = SPREAD.copy()
    bad[3] = np.nan
    overlapping = SPREAD.copy()
    overlapping[0:2] = overlapping[2:4]
    out = project_onto_table(None, np.stack([bad, overlapping]))
    np.testing.assert_array_equal(out[0], bad)  # NaN kept (assert_array_equal treats NaN == NaN)
    assert not checks.illegal(out[1:]).any()


def test_any_predicted_state_on_or_off_the_table_ends_legal():
    rng = np.random.default_rng(0)
    states = rng.uniform(-1.6, 1.6, (500, 10)).astype(np.float32)
    out = project_onto_table(None, states)
    assert out.shape == states.shape and out.dtype == np.float32
    assert checks.illegal(states).any(axis=1).mean() > 0.9  # most of them needed the projection
    assert not checks.illegal(out).any()
