"""The head of a demo suite a plugin test writes with pytester: its rule table of one row and its case()."""


def suite_head(usecase: str, *, roles: tuple[str, ...], protocols: tuple[str, ...] = ("ocpp2.0.1",)) -> str:
    return f'''
from harness.rules import RuleTable, must
from harness.suite import case, checks
from harness.verdict import check_equal

class {usecase}(RuleTable):
    value = must("spec 000 demo", "the value is one")

pytestmark = case("{usecase}", block="Demo", roles={roles!r}, protocols={protocols!r})
'''
