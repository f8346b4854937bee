"""Which Meta-World v3 scene, slots, expert policies and success conditions each task uses.

Thresholds are those of Meta-World v3's ``evaluate_state`` (``info["success"]``), restated on
the 91-number state (see predicates.py): e.g. push ``|puck - goal| <= 0.05``, button-press
``|goal_y - button_y| <= 0.02``. Hammer's
"nail joint > 0.09" is "nail within 0.01 of the goal along y" (the goal site is 0.10 m beyond
the nail's rest position). Soccer deviates: metaworld v3's reported success does not follow
its documented ``|(ball - goal) * (3, 1, 1)| <= 0.07`` and its scripted policy never meets
that, so soccer here is ``|ball - goal|`` in the table plane ``<= 0.07``.
make-coffee is staged over the coffee scene, which has the mug,
the machine and its button: push the mug under the spout (0.22 m in front of the machine),
then press the button (its rest position is 0.22 m in front of and 0.30 m above the machine
origin, pressed when within 0.02 m of 0.03 m further in).
locked-door-open is staged over this package's locked-door scene (locked_door.py: the
door-lock safe with a hinged door that its lock holds shut): turn the lock up, then swing
the door open. Stage 1 is door-unlock's check (lock within 0.02 m of its goal along x, i.e.
turned to within 0.38 rad of horizontal) restated as the lock's height above the handle,
which the door's vertical hinge leaves unchanged while the door swings: at most 0.033 m
short of the fully turned 0.101 m (one-sided: a lock pushed past its stop is still open).
Stage 2 is door-open's ``|handle_x - goal_x| <= 0.08`` against the open goal (safe + (-0.3,
-0.45, 0)), which the target location shows from stage 1 on. The state has no slot for the
safe, so stage 2 is read against the target location, with its height checked too: the open
goal is 0.05 m above the handle, door-unlock's goal 0.111 m, and the height difference is
weighted 8, so a state whose target still shows door-unlock's goal (imagined data does this)
fails stage 2 wherever the handle is; on the simulator's states the height term is 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field


def _near(entity: str, threshold: float, weights=(1.0, 1.0, 1.0), offset=(0.0, 0.0, 0.0),
          reference: str = "target_location", reference_offset=(0.0, 0.0, 0.0),
          one_sided: bool = False) -> dict:
    return {"entity": entity, "reference": reference, "reference_offset": list(reference_offset),
            "offset": list(offset), "weights": list(weights), "threshold": threshold,
            "one_sided": one_sided}


X, Y, Z = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)
MUG_UNDER_SPOUT = (0.0, -0.22, 0.0)  # from the machine origin
BUTTON_PRESSED = (0.0, -0.19, 0.3)  # button rest (0, -0.22, 0.3) + the 0.03 m press
LOCK_TURNED = (0.0, 0.0, 0.101)  # lock site above the handle, lock turned fully up
LOCK_TURNED_THRESHOLD = 0.033  # the height 0.38 rad short of fully up (door-unlock's 0.02 m along x)
DOOR_OPEN_GOAL = (-0.3, -0.45, 0.0)  # from the safe, as door-open
HANDLE_BELOW_OPEN_GOAL = (0.0, 0.0, 0.05)  # the handle is 0.05 m below the safe's (and goal's) height
OPEN_GOAL_HEIGHT_WEIGHT = 8.0  # a target still at door-unlock's goal (0.061 m higher) never passes


@dataclass(frozen=True)
class Scene:
    """``env``: Meta-World v3 env name; ``first``/``second``: slots of the env's observed
    objects 1 and 2; ``policies``: scripted experts, one per stage; ``conditions``: success;
    ``staged_targets``: the target location of each stage after the first, as an offset from
    the MuJoCo body ``staged_origin``."""

    env: str
    first: str
    policies: tuple[str, ...]
    conditions: list[dict]
    second: str | None = None
    staged_targets: tuple = field(default=())
    staged_origin: str = "coffee_machine"


SCENES: dict[str, Scene] = {
    "reach": Scene("reach-v3", "target_object", ("SawyerReachV3Policy",), [_near("gripper", 0.05)]),
    "push": Scene("push-v3", "target_object", ("SawyerPushV3Policy",), [_near("target_object", 0.05)]),
    "pick-place": Scene("pick-place-v3", "target_object", ("SawyerPickPlaceV3Policy",),
                        [_near("target_object", 0.07)]),
    "button-press": Scene("button-press-v3", "button", ("SawyerButtonPressV3Policy",),
                          [_near("button", 0.02, Y)]),
    "door-unlock": Scene("door-unlock-v3", "lock", ("SawyerDoorUnlockV3Policy",), [_near("lock", 0.02, X)]),
    "door-open": Scene("door-open-v3", "handle", ("SawyerDoorOpenV3Policy",), [_near("handle", 0.08, X)]),
    "window-open": Scene("window-open-v3", "window", ("SawyerWindowOpenV3Policy",),
                         [_near("window", 0.05, X)]),
    "faucet-open": Scene("faucet-open-v3", "faucet", ("SawyerFaucetOpenV3Policy",),
                         [_near("faucet", 0.07, offset=(-0.04, 0.0, 0.03))]),
    "coffee-push": Scene("coffee-push-v3", "target_object", ("SawyerCoffeePushV3Policy",),
                         [_near("target_object", 0.07)]),
    "coffee-button": Scene("coffee-button-v3", "coffee_button", ("SawyerCoffeeButtonV3Policy",),
                           [_near("coffee_button", 0.02, Y)]),
    "reach-wall": Scene("reach-wall-v3", "target_object", ("SawyerReachWallV3Policy",),
                        [_near("gripper", 0.05)]),
    "push-wall": Scene("push-wall-v3", "target_object", ("SawyerPushWallV3Policy",),
                       [_near("target_object", 0.07)]),
    "pick-place-wall": Scene("pick-place-wall-v3", "target_object", ("SawyerPickPlaceWallV3Policy",),
                             [_near("target_object", 0.07)]),
    "button-press-wall": Scene("button-press-wall-v3", "button", ("SawyerButtonPressWallV3Policy",),
                               [_near("button", 0.03, Y)]),
    "door-lock": Scene("door-lock-v3", "lock", ("SawyerDoorLockV3Policy",), [_near("lock", 0.02, Z)]),
    "door-close": Scene("door-close-v3", "handle", ("SawyerDoorCloseV3Policy",), [_near("handle", 0.08)]),
    "window-close": Scene("window-close-v3", "window", ("SawyerWindowCloseV3Policy",),
                          [_near("window", 0.05, X)]),
    "faucet-close": Scene("faucet-close-v3", "faucet", ("SawyerFaucetCloseV3Policy",),
                          [_near("faucet", 0.07)]),
    "make-coffee": Scene(
        "coffee-push-v3", "target_object", ("SawyerCoffeePushV3Policy", "SawyerCoffeeButtonV3Policy"),
        [_near("target_object", 0.07, reference="coffee", reference_offset=MUG_UNDER_SPOUT),
         _near("coffee_button", 0.02, Y, reference="coffee", reference_offset=BUTTON_PRESSED)],
        staged_targets=(BUTTON_PRESSED,)),
    "locked-door-open": Scene(
        "locked-door-v3", "lock", ("SawyerDoorUnlockV3Policy", "LockedDoorOpenPolicy"),
        [_near("lock", LOCK_TURNED_THRESHOLD, Z, reference="handle", reference_offset=LOCK_TURNED,
               one_sided=True),
         _near("handle", 0.08, (1.0, 0.0, OPEN_GOAL_HEIGHT_WEIGHT), offset=HANDLE_BELOW_OPEN_GOAL)],
        second="handle", staged_targets=(DOOR_OPEN_GOAL,), staged_origin="door"),
    "hammer": Scene("hammer-v3", "hammer", ("SawyerHammerV3Policy",),
                    [_near("nail", 0.01, Y, one_sided=True)], second="nail"),
    "soccer": Scene("soccer-v3", "soccer", ("SawyerSoccerV3Policy",),
                    [_near("soccer", 0.07, (1.0, 1.0, 0.0))]),
}
