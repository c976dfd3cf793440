"""The error a ranking step raises when its input is not there yet."""


class RankingInputError(RuntimeError):
    """Nothing stored to rank, or vectors missing; the message says which command fixes it."""
