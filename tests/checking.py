"""Checkers on deliberately corrupted rollouts: one way, shared by every domain's tests."""

import dataclasses

from imaginebench_data.quality.checkers import annotate


def corrupted(domain, episode, sim, t, new_state, keep_sim_states=True):
    """``episode`` with state ``t`` replaced by ``new_state``, checked again by ``domain``'s
    checkers; ``keep_sim_states=False`` checks it as data without simulator states (like
    imaginary data). The original episode is left as it was."""
    copy = dataclasses.replace(episode, states=episode.states.copy(), infos={},
                               sim_states=episode.sim_states if keep_sim_states else None)
    copy.states[t] = new_state
    return annotate(domain, copy, sim)
