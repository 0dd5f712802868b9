"""``streamt runtime build``: build the packaged Kafka Streams runner on the local Docker Engine."""

from __future__ import annotations

import click
from streamt.sdk import Result

from streamt_kstreams.limits import DEFAULT_TIMEOUT, MAX_TIMEOUT, MIN_TIMEOUT


@click.command("build")
@click.option(
    "--dry-run", is_flag=True, help="Hash the packaged build inputs only: no process, network, Docker or file write."
)
@click.option(
    "--timeout",
    type=click.IntRange(MIN_TIMEOUT, MAX_TIMEOUT),
    default=DEFAULT_TIMEOUT,
    show_default=True,
    help="Bound for the build itself, in seconds.",
)
@click.option(
    "--base-image",
    # The first is the documented name; the second is what `./dev stack env` exported before (kept working).
    envvar=["STREAMT_RUNNER_BASE_IMAGE", "STREAMT_KSTREAMS_BASE_IMAGE"],
    default=None,
    help="Java 17 base image: sha256:<id> (already on the engine) or repo@sha256:<digest> (pulled when absent); "
    "default: the pinned Eclipse Temurin 17 JRE digest.",
)
def build_command(dry_run: bool, timeout: int, base_image: str | None) -> Result:
    """Build the packaged Kafka Streams runner image (no tag, no push)."""
    from streamt_kstreams import build

    if dry_run:
        data = build.dry_run(base_image)
        text = (
            f"Build inputs: {data['build_input_hash']} ({len(data['inputs'])} files)\n"
            f"Base image:   {data['base_image']}\n"
            "Dry run: nothing was built."
        )
        return Result("runtime build", data=data, text=text)
    data = build.build(base_image, timeout)
    text = (
        f"Built runner image {data['image']}\n"
        f"Build inputs: {data['build_input_hash']}; base {data['base_image']}. No tag, not pushed.\n"
        "Put it into the project:\n"
        "runtime:\n"
        "  kafka_streams:\n"
        f"    image: {data['image']}"
    )
    return Result("runtime build", data=data, text=text)
