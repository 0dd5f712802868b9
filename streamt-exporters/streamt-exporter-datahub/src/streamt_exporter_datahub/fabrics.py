"""The DataHub v1.7.0 FabricType values ``--fabric`` accepts, exactly (shown in ``--help`` too)."""

FABRICS = (
    "DEV", "TEST", "QA", "UAT", "EI", "PRE", "STG", "NON_PROD", "PROD",
    "CORP", "RVW", "PRD", "TST", "SIT", "SBX", "SANDBOX", "CERT",
)  # fmt: skip
