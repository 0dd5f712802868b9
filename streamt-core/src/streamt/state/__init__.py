"""Deployment state: what streamt owns, and the durable record of operations in flight.

* ``records`` — ``OwnershipState`` / ``OwnershipRecord`` / ``OperationControl``
  documents with integrity checksums;
* ``lock`` — the same-host bounded file lock (``E422`` on timeout);
* ``local`` — the embedded ``local`` backend (``.streamt/state/``).

Other backends (PostgreSQL) come from plugins through ``streamt_state_backends``
and follow the same protocol: ``operation_lock()``, ``require_clear()``,
``begin_operation()``, ``record_progress()``, ``record_progress_many()`` (one
durable write for a batch of actions), ``mark_recovery_required()``,
``commit()``, ``status()``, ``read_state()``, ``read_control()``, plus the
attributes ``name`` and ``address``. Reviewed recovery (``streamt.recovery``)
also needs ``read_recovery()``, ``verify_lock()`` and ``commit_recovery()``
(see docs/state-recovery.md).
"""
