"""Create the quickstart's external input topic (when missing) and write a few sample orders.

The quickstart declares `quickstart.orders.raw` as an external source: the shop owns it, streamt
never creates it. On your own cluster you create it yourself; this script does that for the demo
and writes orders as the shop would (JSON, one record per order). Two of them are dropped by
`orders_clean` (no customer, a zero amount), so four rows reach the database.

    python examples/quickstart/sample_orders.py BOOTSTRAP_SERVERS [TOPIC]

Runs with the `kafka-python` client that streamt-kafka installs. Order ids are fixed, so running
it twice upserts the same four rows.
"""

from __future__ import annotations

import json
import sys

from kafka import KafkaAdminClient, KafkaProducer
from kafka.admin import NewTopic
from kafka.errors import TopicAlreadyExistsError

USAGE = "usage: python examples/quickstart/sample_orders.py BOOTSTRAP_SERVERS [TOPIC]"
TOPIC = "quickstart.orders.raw"
ORDERS = [
    {"order_id": "o-1001", "customer_id": "c-17", "amount_cents": 2599, "created_at": "2026-01-05 09:00:01.000"},
    {"order_id": "o-1002", "customer_id": "c-42", "amount_cents": 1250, "created_at": "2026-01-05 09:00:14.000"},
    {"order_id": "o-1003", "customer_id": None, "amount_cents": 990, "created_at": "2026-01-05 09:00:20.000"},
    {"order_id": "o-1004", "customer_id": "c-17", "amount_cents": 0, "created_at": "2026-01-05 09:00:31.000"},
    {"order_id": "o-1005", "customer_id": "c-08", "amount_cents": 4100, "created_at": "2026-01-05 09:01:02.000"},
    {"order_id": "o-1006", "customer_id": "c-42", "amount_cents": 300, "created_at": "2026-01-05 09:01:45.000"},
]
# The rows `orders_clean` keeps: what the database table holds afterwards.
EXPECTED_ROWS = [o for o in ORDERS if o["customer_id"] is not None and o["amount_cents"] > 0]


def create_topic(bootstrap: str, topic: str) -> None:
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics([NewTopic(topic, num_partitions=3, replication_factor=1)])
    except TopicAlreadyExistsError:
        pass
    finally:
        admin.close()


def produce(bootstrap: str, topic: str) -> None:
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
    try:
        for order in ORDERS:
            producer.send(topic, key=order["order_id"].encode(), value=json.dumps(order).encode())
        producer.flush(timeout=30)
    finally:
        producer.close()


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(USAGE, file=sys.stderr)
        return 2
    bootstrap, topic = argv[1], argv[2] if len(argv) == 3 else TOPIC
    create_topic(bootstrap, topic)
    produce(bootstrap, topic)
    print(f"wrote {len(ORDERS)} orders to {topic}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
