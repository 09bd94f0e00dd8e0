"""The built-in reference profile with a few lines changed, for the runs that need it a little different
(a kept PKI, security profile 1 only, a feature left out). A replacement that finds nothing is refused:
a profile that moved on must not leave a variant silently the same as the original."""

from pathlib import Path

REFERENCE_PROFILE = Path(__file__).resolve().parents[2] / "harness" / "profiles" / "reference.toml"


def reference_variant(*replacements: tuple[str, str]) -> str:
    text = REFERENCE_PROFILE.read_text(encoding="utf-8")
    for old, new in replacements:
        assert old in text, f"the reference profile has no {old!r}: update this variant"
        text = text.replace(old, new, 1)
    return text


def write_reference_variant(path: Path, *replacements: tuple[str, str]) -> Path:
    path.write_text(reference_variant(*replacements), encoding="utf-8")
    return path
