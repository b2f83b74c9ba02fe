"""What the optional compiled build (``build_compiled.py``, mypyc) reads in the source
and the pure-Python package ignores.

``@mypyc_attr(allow_interpreted_subclasses=True)`` marks a class that code outside the
build may subclass (an agent a user, a test or an uncompiled agent extends): mypyc's
classes refuse interpreted subclasses unless told. mypyc reads the decorator by its
name where the class is defined; in the pure package, and wherever ``mypy_extensions``
is not installed, it returns the class as it is.

``@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)`` marks a class a
deep copy makes blank and fills in (the hand's state and its parts: ``copy.deepcopy``
calls ``cls.__new__(cls)`` and then ``__setstate__``). Compiled, a class's ``__new__``
otherwise runs ``__init__`` (which wants its arguments); ``serializable`` makes it skip
``__init__`` and gives the class ``__getstate__``/``__setstate__``, and mypyc 2.4 calls
``__init__`` on ``cls(...)`` for such a class only when it also allows interpreted
subclasses (else a constructed object stays blank).

>>> @mypyc_attr(allow_interpreted_subclasses=True)
... class Base:
...     pass
>>> class Mine(Base):
...     pass
>>> Mine.__mro__[1] is Base
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # no mypy here: nothing is compiled, the attribute is for mypyc alone

    def mypyc_attr(*attrs: str, **kwattrs: object) -> Callable[[T], T]:
        return lambda cls: cls


__all__ = ["mypyc_attr"]
