"""The project's own random routine: fixed forever under its name and version.

Every random choice (walls, dice, first dealers, agents) goes through
:class:`Stream`, never through ``random.shuffle`` or numpy's generators, whose
streams may change between library versions (numpy's plain uint64 arithmetic
computes a shuffle's SplitMix64 draws at once, and a seat's next draws in the
engine, :func:`buffered`; tests hold both to the one-at-a-time loop). The
algorithm is SplitMix64 (Steele, Lea and Flood 2014) for both seed derivation and
the stream; integers below ``n`` by rejection (no modulo bias); shuffles by
Fisher–Yates from the last position down.
Its name and version, :data:`RNG`, is written into every log.

>>> s = Stream(hand_seed(42, 0, 0))
>>> [s.below(6) + 1 for _ in range(4)]
[3, 1, 5, 5]
>>> hand_seed(42, 0, 0) == hand_seed(42, 0, 0) != hand_seed(42, 0, 1)
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Final, TypeVar

import numpy as np

RNG = "splitmix64-fy/1"

_T = TypeVar("_T")

_M64: Final = (1 << 64) - 1
_GAMMA: Final = 0x9E3779B97F4A7C15
# below(n) rejects draws at or above the largest multiple of n (no modulo bias)
_LIMITS: Final = [0] + [_M64 + 1 - (_M64 + 1) % n for n in range(1, 256)]
# numpy's uint64 arithmetic wraps modulo 2**64: SplitMix64's own arithmetic
_GAMMA_U, _MUL1, _MUL2 = (np.uint64(v) for v in (_GAMMA, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB))
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)
# the largest draw below(n) accepts, per n (limit - 1: a limit of 2**64 is no uint64)
_TOPS_U: Final = np.array([0, *(_M64 - (_M64 + 1) % n for n in range(1, 257))], dtype=np.uint64)


def mix64(z: int) -> int:
    """SplitMix64's output function (a bijection on 64-bit ints)."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def derive(*parts: int) -> int:
    """A 64-bit seed from a tuple of non-negative ints, e.g. (root, match, hand, seat)."""
    h = 0x6A09E667F3BCC908
    for p in parts:
        h = mix64((h ^ (p & _M64)) + _GAMMA & _M64)
    return h


def _mix_np(z: np.ndarray) -> np.ndarray:
    """:func:`mix64` of every element of a uint64 array (numpy's arithmetic wraps
    modulo 2**64: SplitMix64's own), in place."""
    z ^= z >> _S30
    z *= _MUL1
    z ^= z >> _S27
    z *= _MUL2
    z ^= z >> _S31
    return z


def hand_seed(root: int, match: int, hand: int) -> int:
    """The seed of hand ``hand`` of match ``match`` (its wall, dice, first dealer)."""
    return derive(root, match, hand)


def hand_seeds(root: int, match: int, hands: Sequence[int]) -> list[int]:
    """:func:`hand_seed` of each of a match's ``hands``, at once (their tuples share
    (root, match): :func:`derive`'s last step, in numpy's wrapping uint64 arithmetic).

    >>> hand_seeds(42, 3, [0, 7]) == [hand_seed(42, 3, 0), hand_seed(42, 3, 7)]
    True
    """
    h = np.uint64(derive(root, match))
    ks = np.array([k & _M64 for k in hands], dtype=np.uint64)
    out: list[int] = _mix_np((ks ^ h) + _GAMMA_U).tolist()
    return out


def agent_seed(root: int, match: int, hand: int, seat: int) -> int:
    """The seed of the agent in ``seat`` for one hand (the same tuple plus the seat)."""
    return derive(root, match, hand, 1000 + seat)


def seat_seeds(hand_seeds: Sequence[int], n: int) -> list[list[int]]:
    """For each hand seed, the ``n`` seats' :func:`agent_seed`, at once: an agent's
    tuple is its hand's plus ``1000 + seat``, so its seed is :func:`derive`'s one
    more step from the hand seed (numpy's wrapping uint64 arithmetic).

    >>> seat_seeds([hand_seed(42, 3, 1)], 2) == [[agent_seed(42, 3, 1, 0), agent_seed(42, 3, 1, 1)]]
    True
    """
    h = np.array([x & _M64 for x in hand_seeds], dtype=np.uint64)[:, None]
    z = (h ^ np.arange(1000, 1000 + n, dtype=np.uint64)) + _GAMMA_U
    out: list[list[int]] = _mix_np(z).tolist()
    return out


@lru_cache(maxsize=8)
def _steps(k: int) -> np.ndarray:
    """The state offsets i·gamma (i = 1 .. k) of a stream's next k draws."""
    return np.arange(1, k + 1, dtype=np.uint64) * _GAMMA_U


# A buffered stream keeps each draw x as x mod _SMALL_LCM (every n up to _SMALL
# divides it, so x % n is that residue % n, in small ints), or -1 for a draw among
# the top _SMALL values of 64 bits, the only ones below(n) may reject for n <= _SMALL
# (its limit, 2**64 less 2**64 % n, is above all the others): such a draw, and
# every draw for a larger n or next64(), is computed whole from the state.
_SMALL: Final = 32
_SMALL_LCM: Final = math.lcm(*range(1, _SMALL + 1))  # under 2**48


def _residues(states: np.ndarray, k: int) -> list[list[int]]:
    """The next ``k`` draws of the streams at each of ``states`` (uint64), as kept
    by a buffered stream (see _SMALL above)."""
    z = _mix_np(states[:, None] + _steps(k))
    kept = (z % np.uint64(_SMALL_LCM)).astype(np.int64)
    kept[z > np.uint64(_M64 - _SMALL)] = -1
    out: list[list[int]] = kept.tolist()
    return out


def buffered(seeds: Sequence[int], k: int = 32) -> list[Stream]:
    """``Stream(seed)`` for every seed, each with its next ``k`` draws computed
    at once (numpy), and ``k`` more each time they run out: the same draws as the
    plain stream, without its 64-bit arithmetic on Python ints per draw.

    >>> a, b = buffered([5, 6], k=2)
    >>> plain = Stream(5)
    >>> [a.below(9) for _ in range(5)] == [plain.below(9) for _ in range(5)]
    True
    """
    states = [x & _M64 for x in seeds]
    draws = _residues(np.array(states, dtype=np.uint64), k)
    out = []
    for s, d in zip(states, draws, strict=True):
        st = Stream(s)
        st._buf, st._fill = d, k
        out.append(st)
    return out


@lru_cache(maxsize=8)
def _shuffle_plan(m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For a shuffle of m + 1 items: the state offsets k·gamma (k = 1 .. m), the
    bounds n = i + 1 (i = m .. 1) and the largest draw below(n) accepts."""
    steps = np.arange(1, m + 1, dtype=np.uint64) * _GAMMA_U
    ns = np.arange(m + 1, 1, -1, dtype=np.uint64)
    return steps, ns, _TOPS_U[ns]


def shuffle_many(seeds: list[int], items: list[_T]) -> list[tuple[list[_T], Stream]]:
    """``Stream(seed).shuffle`` of a copy of ``items`` for every seed, at once:
    [(shuffled copy, the stream after the shuffle)], in the order of ``seeds``.

    SplitMix64's state only adds gamma, so the draws of all the shuffles are one
    numpy array, computed with its wrapping uint64 arithmetic; a stream with a
    rejected draw (odds about 1 in 10^17 per tile) is redone by the one-at-a-time
    loop, so every result is :meth:`Stream._shuffle_loop`'s.

    >>> items = list(range(5))
    >>> Stream(8).shuffle(items)
    >>> shuffle_many([7, 8], list(range(5)))[1][0] == items
    True
    """
    m = len(items) - 1
    if m < 1 or m + 1 >= len(_TOPS_U) or not seeds:
        return [_shuffled_with(seed, items) for seed in seeds]
    steps, ns, tops = _shuffle_plan(m)
    z = np.array([seed & _M64 for seed in seeds], dtype=np.uint64)[:, None] + steps
    z = (z ^ (z >> _S30)) * _MUL1
    z = (z ^ (z >> _S27)) * _MUL2
    z ^= z >> _S31
    rejected: list[bool] = (z > tops).any(axis=1).tolist()
    js: list[list[int]] = (z % ns).tolist()
    out = []
    for seed, bad, j in zip(seeds, rejected, js, strict=True):
        if bad:
            out.append(_shuffled_with(seed, items))
            continue
        a = list(items)
        for i in range(m, 0, -1):  # typed indices: compiled, plain list operations
            k = j[m - i]
            a[i], a[k] = a[k], a[i]
        out.append((a, Stream((seed + m * _GAMMA) & _M64)))
    return out


def _shuffled_with(seed: int, items: list[_T]) -> tuple[list[_T], Stream]:
    """The reference loop on a copy of ``items``: (shuffled copy, the stream after)."""
    st = Stream(seed)
    a = list(items)
    st._shuffle_loop(a)
    return a, st


class Stream:
    """A SplitMix64 stream. Only :meth:`next64`, :meth:`below`, :meth:`shuffle` exist.

    A stream made by :func:`buffered` holds its next draws, computed at once
    (``_buf``, of which ``_i`` are taken, as residues (see ``_SMALL``); ``_s`` is the
    state before the first): the same draws, in the same order, as one that
    computes each when asked.
    """

    __slots__ = ("_s", "_buf", "_i", "_fill")

    def __init__(self, seed: int):
        self._s = seed & _M64
        self._buf: list[int] = []
        self._i = 0
        self._fill = 0  # how many draws to compute at once when _buf runs out (0: one)

    def __reduce__(self) -> tuple[type[Stream], tuple[int]]:
        """Copied and pickled through its constructor, at the state it has reached
        (compiled, a class with slots has no default copy).

        >>> import copy
        >>> s = Stream(5)
        >>> _ = s.next64()
        >>> copy.copy(s).next64() == copy.deepcopy(s).next64() == s.next64()
        True
        """
        return (Stream, (self._state(),))

    def _state(self) -> int:
        """The state after the draws taken so far."""
        return (self._s + self._i * _GAMMA) & _M64 if self._i else self._s

    def _drop(self) -> None:
        """Forget the buffered draws: ``_s`` becomes the state reached."""
        if self._buf:
            self._s = self._state()
            self._buf = []
            self._i = 0

    def next64(self) -> int:
        """The next draw, whole: computed from the state (a buffered stream takes
        its residue with it, and computes several at once when it runs out)."""
        if self._fill:
            i = self._i
            if i == len(self._buf):
                self._refill()
                i = 0
            self._i = i + 1
            return mix64((self._s + (i + 1) * _GAMMA) & _M64)
        self._s = s = (self._s + _GAMMA) & _M64
        s = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        s = ((s ^ (s >> 27)) * 0x94D049BB133111EB) & _M64
        return s ^ (s >> 31)

    def _refill(self) -> None:
        """The next ``_fill`` residues, once those buffered are all taken."""
        self._drop()
        (self._buf,) = _residues(np.array([self._s], dtype=np.uint64), self._fill)

    def below(self, n: int) -> int:
        """Uniform integer in [0, n), by rejection from the top 64 bits."""
        if n <= 0:
            raise ValueError("n must be positive")
        if self._fill and n <= _SMALL:  # a buffered draw's residue (the random agent)
            i = self._i
            if i == len(self._buf):
                self._refill()
                i = 0
            r = self._buf[i]
            if r >= 0:  # not among the top values: below every such n's limit
                self._i = i + 1
                return r % n
        limit = _LIMITS[n] if n < 256 else _M64 + 1 - (_M64 + 1) % n
        if self._fill:  # a buffered stream (the engine's seats), drawn whole
            while True:
                x = self.next64()
                if x < limit:
                    return x % n
        while True:  # next64() inlined: the hottest call of the expert's sampling
            self._s = x = (self._s + _GAMMA) & _M64
            x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
            x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _M64
            x ^= x >> 31
            if x < limit:
                return x % n

    def random(self) -> float:
        """A float in [0, 1) from the top 53 bits."""
        return (self.next64() >> 11) * (1.0 / (1 << 53))

    def shuffle(self, items: list[_T]) -> None:
        """Fisher–Yates in place: for i = len-1 .. 1, swap i with below(i + 1)
        (computed at once: :func:`shuffle_many` of this one stream)."""
        self._drop()
        ((shuffled, after),) = shuffle_many([self._s], items)
        items[:] = shuffled
        self._s = after._s

    def _shuffle_loop(self, items: list[_T]) -> None:
        """The reference Fisher–Yates, one draw at a time (below() inlined)."""
        self._drop()
        x = self._s
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            limit = _M64 + 1 - (_M64 + 1) % n
            while True:
                x = (x + _GAMMA) & _M64
                z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
                z ^= z >> 31
                if z < limit:
                    break
            j = z % n
            items[i], items[j] = items[j], items[i]
        self._s = x

    def choice(self, seq: Sequence[_T]) -> _T:
        return seq[self.below(len(seq))]
