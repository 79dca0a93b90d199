"""The fake E2B server's fixtures for the tests of this folder."""

from fake_fixtures import api_env, debug_env, fake, server

__all__ = ["api_env", "debug_env", "fake", "server"]
