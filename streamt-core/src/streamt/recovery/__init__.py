"""Reviewed recovery of one unfinished operation (``state recovery-plan`` / ``state recover``).

* ``evidence`` — the integrity-checked evidence file and the confirmation syntax;
* ``targets`` — re-observing every action of the durable intent and classifying
  it as ``prior`` or ``candidate`` exactly, or failing closed;
* ``workflow`` — creating evidence and executing it through the backend
  protocol (``read_recovery``, ``verify_lock``, ``commit_recovery``).
"""
