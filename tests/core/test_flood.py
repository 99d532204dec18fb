"""The flood gate: a user's commands past the minute's allowance are told once, then dropped,
until the minute has passed; users are counted apart; quiet ones are forgotten."""

from __future__ import annotations

from bot.core.flood import FloodGate, Verdict


def test_past_the_allowance_told_once_then_dropped_until_the_minute_passes() -> None:
    gate = FloodGate(per_minute=3)
    verdicts = [gate.admit(7, second) for second in (0.0, 1.0, 2.0, 3.0, 4.0, 5.0)]
    assert verdicts == [Verdict.ANSWER] * 3 + [Verdict.TELL, Verdict.DROP, Verdict.DROP]
    assert gate.wait(7, 5.0) == 55.0  # the first of the three leaves the window at 60 s
    assert gate.admit(8, 5.0) is Verdict.ANSWER  # another user: counted apart
    assert gate.admit(7, 60.0) is Verdict.ANSWER  # a minute after the first: room again
    assert gate.admit(7, 60.5) is Verdict.TELL  # ...for one; refused again, told again


def test_no_limit_and_idle_users_forgotten() -> None:
    assert {FloodGate(0).admit(1, 0.0) for _ in range(100)} == {Verdict.ANSWER}
    gate = FloodGate(per_minute=1)
    gate.admit(1, 0.0)
    gate.admit(1, 1.0)
    gate.admit(2, 30.0)
    gate.forget_idle(61.0)
    assert set(gate.recent) == {2} and gate.told == set()
