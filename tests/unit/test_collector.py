"""The app's lifespan runs inside `collector.settled`: start-up objects frozen, young
collections rarer, and the process's own settings back when it ends."""

import gc

import pytest

from api.process import collector


def test_settled_freezes_what_exists_and_restores_the_collector_after() -> None:
    before = gc.get_threshold()
    kept = [[] for _ in range(10)]  # containers, which the collector tracks
    with collector.settled():
        assert gc.get_freeze_count() >= len(kept)
        assert gc.get_threshold() == (collector.YOUNG_THRESHOLD, before[1], before[2])
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == before


def test_settled_restores_the_collector_when_serving_fails() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), collector.settled():
        raise RuntimeError("serving failed")
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == before
