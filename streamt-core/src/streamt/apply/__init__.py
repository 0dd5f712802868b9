"""Apply: policy gates, reviewed-plan verification and the durable executor.

* ``gates`` — usage, confirmation and environment policy (``E418``,
  ``E421``, ``E417``, ``E410``), each before the first thing it protects;
* ``review`` — a reviewed plan against the project, state and live re-plan
  (``E408``, ``E409``);
* ``executor`` — ordered, batched execution with durable progress, rollback
  of what this run created, and the ownership-state commit;
* ``outcome`` — what a deployer reports for one action.
"""
