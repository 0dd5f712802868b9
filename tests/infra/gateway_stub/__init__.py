"""A STUB of the Conduktor Gateway admin API v2, for streamt's tests.

Conduktor Gateway is proprietary and cannot be obtained here.  This in-memory server imitates
the parts of its admin API v2 that streamt uses (virtual clusters, alias topics, interceptors),
from the facts in ``shared/spec/conduktor-gateway-api.md``.  It proxies no Kafka traffic and
applies no interceptor.  It is strict where the facts are firm (paths, envelope, auth, status
codes) so that client bugs fail here as they would against the real thing.
"""

from .server import GatewayStub, make_server, serve_in_thread

__all__ = ["GatewayStub", "make_server", "serve_in_thread"]
