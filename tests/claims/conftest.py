"""The claims tests say which block of held-out draws they ran on, so a failure can be re-run."""

from claimlib import claims_block


def pytest_report_header(config):
    block = claims_block()
    chosen = f"CLAIMS_SEED={block}" if block else "CLAIMS_SEED unset: the default block"
    return f"claims: held-out draws from {chosen} (any value from 1 to 1,000,000 picks another block)"
