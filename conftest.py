"""Repository-local settings only: the plugin itself loads through its pytest11 entry point."""

pytest_plugins = ["pytester"]
