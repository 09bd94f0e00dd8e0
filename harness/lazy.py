"""A module imported when one of its attributes is first read: for a heavy module that a process may never use
(``cryptography`` with OpenSSL's bindings, ~7-15 MB, in a load client whose stations sign and verify nothing)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_module(name: str) -> ModuleType:
    """``name`` (a module of this project), registered as imported but run only on the first read of an
    attribute; the import then runs in full, errors and all. Already imported: the module itself."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ImportError(f"no module named {name!r}", name=name)
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)   # `import a.b; a.b.x` reads it as after a plain import
    return module
