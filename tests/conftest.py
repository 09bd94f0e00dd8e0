"""Repository-local settings for the harness's own tests."""

pytest_plugins = ["pytester"]
