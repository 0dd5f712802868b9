"""python -m gateway_stub --port 8888  (run from tests/infra)."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys

from .server import make_server, parse_users


def main() -> int:
    p = argparse.ArgumentParser(prog="gateway_stub", description="Conduktor Gateway admin API v2 stub")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8888)
    p.add_argument(
        "--users",
        default=os.environ.get("GATEWAY_ADMIN_API_USERS"),
        help='JSON list like GATEWAY_ADMIN_API_USERS: [{"username":..,"password":..,"admin":true}]',
    )
    args = p.parse_args()
    users = parse_users(args.users) if args.users else None
    server = make_server(args.host, args.port, users=users)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    print(json.dumps({"event": "listening", "url": f"http://{args.host}:{server.server_address[1]}"}), flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
