"""``streamt observe``: live runtime health per model (read-only).

Public API: ``observe_models(project, artifacts, plugins) -> list[model row]`` and
``observe_text(rows)``. Each model row lists the resources it compiles to with what the
provider reports now: consumer lag of the groups reading its topic (total and per partition),
Flink job state with records per second, backpressure and checkpoint age, connector and task
states, runner state.
"""

from streamt.observe.collect import UNITS, observe_models
from streamt.observe.render import observe_text

__all__ = ["UNITS", "observe_models", "observe_text"]
