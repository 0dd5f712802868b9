"""The Kafka Streams starter of ``streamt init --executor kafka_streams``: text only, it connects to nothing.

Offered to core's ``init`` through ``streamt_init_starters`` (``STARTER``): its four options follow
``--executor`` in ``init --help``, and ``starter_files`` returns every file it writes.

A managed input topic, one transformation in the runner's SQL subset, a metadata-only downstream
application, sample events and a README walkthrough (build the image, apply, produce, read, apply
again: no changes; then a predicate update through a reviewed replacement, and how to resume it).
Topic names carry the project name so two starters never share a topic.
"""

from __future__ import annotations

import re
from typing import Any

from streamt.sdk import Codes, InitStarter, StreamtError

# What the starter supports, the label its JSON carries (seed): create, no-op repeat, predicate update.
KAFKA_STREAMS_SUPPORT = "create_noop_predicate_update"

# What runtime.kafka_streams.image accepts (validation/enums.py checks the same forms).
_IMAGE = re.compile(r"^(sha256:[0-9a-f]{64}|[a-z0-9][a-z0-9._/:-]*@sha256:[0-9a-f]{64})$")

_PROJECT = """\
apiVersion: streamt.dev/v1alpha1

project:
  name: {name}
  version: "0.1.0"

runtime:
  kafka:
    bootstrap_servers: ${{KAFKA_BOOTSTRAP_SERVERS:-localhost:9092}}
{internal}  kafka_streams:
    # From `streamt -o json runtime build`: data.image (an image ID; tags are refused).
    image: {image}
    docker_network: {network}
    # Where a fresh application id starts reading; an existing one always resumes.
    initial_offset: {offset}

defaults:
  topic:
    partitions: 1
    replication_factor: 1
"""

_MODELS = """\
models:
  # The managed input topic: no SQL, so streamt only creates it.
  - name: raw_orders
    description: Raw order events (JSON objects with id, amount, paid)
    ownership:
      mode: managed
    advanced:
      topic:
        name: {name}.orders.raw.v1
    columns:
      - name: id
        type: STRING
      - name: amount
        type: BIGINT
      - name: paid
        type: BOOLEAN

  # Runs on the packaged Kafka Streams runner: plain columns, AND-joined comparisons.
  # Once it runs, only the WHERE clause may change: a reviewed replacement (see README.md).
  - name: eligible_orders
    description: Paid orders of at least 100 units
    ownership:
      mode: managed
    materialized: topic
    executor: kafka_streams
    sql: |
      SELECT id, amount
      FROM {{{{ ref("raw_orders") }}}}
      WHERE amount >= 100 AND paid = TRUE
    advanced:
      topic:
        name: {name}.orders.eligible.v1
"""

_EXPOSURES = """\
exposures:
  # Declared for lineage and impact only: streamt never deploys or schedules it.
  - name: fraud_app
    type: application
    role: consumer
    description: Custom fraud scoring service (metadata only, not deployed)
    owner: team-fraud
    consumes:
      - ref: eligible_orders
        columns:
          - name: id
            type: STRING
          - name: amount
            type: BIGINT
"""

_EVENTS = """\
{"id": "o-1", "amount": 250, "paid": true}
{"id": "o-2", "amount": 40, "paid": true}
{"id": "o-3", "amount": 500, "paid": false}
{"id": "o-4", "amount": 100, "paid": true}
"""

_README = """\
# {name}: a Kafka Streams starter

`raw_orders` is a managed topic; `eligible_orders` is computed from it by streamt's packaged Kafka
Streams runner (one container on your local Docker Engine); `fraud_app` is a downstream application
declared for lineage only.

## Create, then repeat with no changes

```sh
# 1. Build the runner image on your Docker Engine (no tag, no push) and put data.image into
#    runtime.kafka_streams.image in stream_project.yml. The Java 17 base is a pinned digest, pulled
#    when the engine lacks it; without registry access pass --base-image sha256:<id> of one you loaded.
streamt -o json runtime build

# 2. Check and review.
streamt validate
streamt plan

# 3. Create both topics and start the runner (waits until it reports RUNNING).
streamt apply

# 4. Produce samples/orders.jsonl to {name}.orders.raw.v1 and read {name}.orders.eligible.v1:
#    o-1 and o-4 come out, as {{"id": ..., "amount": ...}}.

# 5. Nothing changed, nothing to do; the runner is healthy.
streamt plan          # no changes
streamt apply         # no changes
streamt status --health
```

## Change the predicate: a reviewed replacement

The `WHERE` clause is the one thing of a running runner you can change. Edit it (say
`amount >= 300`), then save and apply the reviewed plan; the new runner resumes from the committed
offsets of the same application id:

```sh
streamt -o json plan --out filter-change.json   # format 6: data.kafka_streams_replacement.saved
streamt -o json apply --plan filter-change.json # keep data.operation_id
```

If that apply is interrupted, do not replan or apply again: diagnose, then continue the same operation:

```sh
streamt -o json state runner-status --plan filter-change.json --operation-id <UUID>
streamt -o json state resume        --plan filter-change.json --operation-id <UUID>
```

Any other change of a running runner (columns, schema, image, identity) is refused at plan time
(`kafka_streams_update`). `streamt state runner-status --help` and `streamt state resume --help` describe
every option; `streamt plugins` shows the installed Kafka Streams plugin.
"""


def starter_files(
    name: str, *, image: str | None, network: str | None, internal: str | None, offset: str | None
) -> dict[str, str]:
    if not image:
        raise StreamtError(
            Codes.E900_USAGE_ERROR,
            "The Kafka Streams starter needs --runner-image.",
            "Build one with `streamt -o json runtime build` and pass its data.image.",
        )
    if not _IMAGE.match(image):
        raise StreamtError(
            Codes.E501_PARSE_ERROR,
            f"--runner-image '{image}' is not an immutable image ID or digest.",
            "Use sha256:<64 hex> or repo@sha256:<64 hex> (see 'streamt runtime build').",
        )
    for label, value in (("--docker-network", network), ("--kafka-internal", internal)):
        if value is not None and (not value.strip() or any(c in value for c in "\n\r\"'#{}")):
            raise StreamtError(
                Codes.E900_USAGE_ERROR,
                f"{label} must be a plain name or address list.",
                "Example: --docker-network host --kafka-internal 127.0.0.1:9092",
            )
    internal_line = f"    bootstrap_servers_internal: {internal}\n" if internal else ""
    return {
        "stream_project.yml": _PROJECT.format(
            name=name, internal=internal_line, image=image, network=network or "host", offset=offset or "earliest"
        ),
        "models/orders.yml": _MODELS.format(name=name),
        "exposures/fraud_app.yml": _EXPOSURES,
        "samples/orders.jsonl": _EVENTS,
        "README.md": _README.format(name=name),
    }


def options() -> list[Any]:
    """The starter's ``init`` options, in the order ``init --help`` lists them."""
    import click

    return [
        click.Option(
            ["--runner-image"], default=None, help="Immutable runner image ID or digest (Kafka Streams starter)."
        ),
        click.Option(
            ["--docker-network"],
            default=None,
            help="Local Docker bridge network for the runner (Kafka Streams starter).",
        ),
        click.Option(["--kafka-internal"], default=None, help="Broker addresses the runner container reaches."),
        click.Option(
            ["--initial-offset"],
            type=click.Choice(["earliest", "latest"]),
            default=None,
            help="Initial position of a fresh Kafka Streams application only (default: earliest).",
        ),
    ]


def files(
    name: str,
    *,
    runner_image: str | None,
    docker_network: str | None,
    kafka_internal: str | None,
    initial_offset: str | None,
) -> dict[str, str]:
    return starter_files(
        name, image=runner_image, network=docker_network, internal=kafka_internal, offset=initial_offset
    )


STARTER = InitStarter(
    name="kafka_streams",
    title="Kafka Streams starter",
    options=options,
    files=files,
    data={"support": KAFKA_STREAMS_SUPPORT},
)
