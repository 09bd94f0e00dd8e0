"""The use cases, one file per use-case id, by protocol and functional block.

The repository keeps them here, at the top level; the wheel carries them as the package
``harness.suites`` (see ``[tool.setuptools.package-dir]`` in pyproject.toml), so an installed harness
runs them without the repository: ``pytest --pyargs harness.suites --sut ...``.
"""
