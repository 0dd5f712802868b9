"""``streamt test --coverage``: which models and sources have which test types."""

from __future__ import annotations

from typing import Any

from streamt.testrun.kinds import TYPE_ORDER


def coverage(project: Any) -> dict[str, Any]:
    rows = []
    for kind, items in (("model", project.models), ("source", project.sources)):
        for item in items:
            tests = [t for t in project.tests if t.model == item.name]
            rows.append(
                {
                    "name": item.name,
                    "kind": kind,
                    "tests": sorted(t.name for t in tests),
                    "types": [t for t in TYPE_ORDER if any(x.type == t for x in tests)],
                }
            )
    models = [r for r in rows if r["kind"] == "model"]
    tested = sum(1 for r in models if r["tests"])
    return {
        "resources": rows,
        "models_total": len(models),
        "models_tested": tested,
        "model_coverage_percent": round(100 * tested / len(models), 1) if models else 100.0,
    }


def coverage_text(report: dict[str, Any]) -> str:
    lines = ["Test coverage:", ""]
    width = max((len(r["name"]) for r in report["resources"]), default=4)
    for kind in ("model", "source"):
        rows = [r for r in report["resources"] if r["kind"] == kind]
        if not rows:
            continue
        lines.append(f"{kind.capitalize()}s:")
        for row in rows:
            marks = "  ".join(f"{t}:{'✓' if t in row['types'] else '-'}" for t in TYPE_ORDER)
            lines.append(f"  {row['name'].ljust(width)}  {marks}  ({_tests(len(row['tests']))})")
        lines.append("")
    lines.append(
        f"Models with tests: {report['models_tested']}/{report['models_total']} ({report['model_coverage_percent']}%)"
    )
    return "\n".join(lines)


def _tests(count: int) -> str:
    return f"{count} test{'s' if count != 1 else ''}"
