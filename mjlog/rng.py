"""The project's own random routine: fixed forever under its name and version.

Every random choice (walls, dice, first dealers, agents) goes through
:class:`Stream`, never through ``random.shuffle`` or numpy, whose streams may
change between library versions. The algorithm is SplitMix64 (Steele, Lea and
Flood 2014) for both seed derivation and the stream; integers below ``n`` by
rejection (no modulo bias); shuffles by Fisher–Yates from the last position down.
Its name and version, :data:`RNG`, is written into every log.

>>> s = Stream(hand_seed(42, 0, 0))
>>> [s.below(6) + 1 for _ in range(4)]
[3, 1, 5, 5]
>>> hand_seed(42, 0, 0) == hand_seed(42, 0, 0) != hand_seed(42, 0, 1)
True
"""

from __future__ import annotations

RNG = "splitmix64-fy/1"

_M64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
# below(n) rejects draws at or above the largest multiple of n (no modulo bias)
_LIMITS = [0] + [_M64 + 1 - (_M64 + 1) % n for n in range(1, 256)]


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


def hand_seed(root: int, match: int, hand: int) -> int:
    """The seed of hand ``hand`` of match ``match`` (its wall, dice, first dealer)."""
    return derive(root, match, hand)


def agent_seed(root: int, match: int, hand: int, seat: int) -> int:
    """The seed of the agent in ``seat`` for one hand (the same tuple plus the seat)."""
    return derive(root, match, hand, 1000 + seat)


class Stream:
    """A SplitMix64 stream. Only :meth:`next64`, :meth:`below`, :meth:`shuffle` exist."""

    __slots__ = ("_s",)

    def __init__(self, seed: int):
        self._s = seed & _M64

    def next64(self) -> int:
        self._s = s = (self._s + _GAMMA) & _M64
        s = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        s = ((s ^ (s >> 27)) * 0x94D049BB133111EB) & _M64
        return s ^ (s >> 31)

    def below(self, n: int) -> int:
        """Uniform integer in [0, n), by rejection from the top 64 bits."""
        if n <= 0:
            raise ValueError("n must be positive")
        limit = _LIMITS[n] if n < 256 else _M64 + 1 - (_M64 + 1) % n
        while True:  # next64() inlined: this is the hottest call of random agents
            self._s = x = (self._s + _GAMMA) & _M64
            x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
            x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _M64
            x ^= x >> 31
            if x < limit:
                return x % n

    def random(self) -> float:
        """A float in [0, 1) from the top 53 bits."""
        return (self.next64() >> 11) * (1.0 / (1 << 53))

    def shuffle(self, items: list) -> None:
        """Fisher–Yates in place: for i = len-1 .. 1, swap i with below(i + 1)."""
        # below() inlined: the same draws, without a method call per tile
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

    def choice(self, seq):
        return seq[self.below(len(seq))]
