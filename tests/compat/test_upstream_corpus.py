"""Agreement with the early public streamt over its 258-project corpus (status, error codes, counts, edges).

Every disagreement must be listed in ``EXPECTED_DIFFERENCES`` with the reason we differ on purpose; an
unlisted disagreement fails, and so does a listed one that no longer happens (the table stays honest).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from corpus import CORPUS, compare, expectations, observe

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="compat corpus not present")

# (project, aspect) -> why we deliberately differ.
EXPECTED_DIFFERENCES: dict[tuple[str, str], str] = {}


def _results() -> dict[tuple[str, str], bool]:
    results: dict[tuple[str, str], bool] = {}
    for name, entry in sorted(expectations().items()):
        for aspect, agrees in compare(entry, observe(name, entry)).items():
            results[(name, aspect)] = agrees
    return results


def test_corpus_agreement() -> None:
    results = _results()
    disagreements = {key for key, agrees in results.items() if not agrees}
    rate = 1 - len(disagreements) / len(results)
    explained = disagreements & set(EXPECTED_DIFFERENCES)
    report = [f"agreement {rate:.2%} over {len(results)} checks; explained differences: {len(explained)}"]
    report += [f"  expected difference {n} [{a}]: {EXPECTED_DIFFERENCES[(n, a)]}" for n, a in sorted(explained)]
    print("\n".join(report))
    unexplained = sorted(disagreements - set(EXPECTED_DIFFERENCES))
    assert not unexplained, f"unexplained disagreements with upstream: {unexplained}"
    stale = sorted(set(EXPECTED_DIFFERENCES) - disagreements)
    assert not stale, f"listed as expected differences but now agreeing (remove them): {stale}"
    assert len(results) >= 258 * 2
