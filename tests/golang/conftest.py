"""The Go oracle fixture, shared with the template tests."""

from tests.gotemplate.conftest import oracle

__all__ = ["oracle"]
