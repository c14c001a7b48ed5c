"""The Go oracle fixtures, shared with the template tests."""

from tests.gotemplate.conftest import oracle, oracle_per_toolchain

__all__ = ["oracle", "oracle_per_toolchain"]
