"""``FirstAgent``: wins when it can, otherwise discards the tile it just drew
(or its first choice); ``skip`` passes claims when "yes"."""


class FirstAgent:
    def __init__(self, skip: str = "yes"):
        if skip not in ("yes", "no"):
            raise ValueError(f"skip must be yes or no, not {skip!r}")
        self.params = {"skip": skip} if skip != "yes" else {}
        self.skip = skip == "yes"

    def start_hand(self, seat, rng):
        self.seat = seat

    def choose(self, view, options):
        for o in options:
            if o is not None and o.type == "win":
                return o
        if options[-1] is None and self.skip:
            return None
        for o in options:
            if o is not None and o.type == "discard" and o.tile == view.drawn:
                return o
        return options[0]
