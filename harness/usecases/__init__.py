"""Use-case dialogues shared by several suite files (written once, played from either side)."""
