"""The errors a ranking step raises when its input is not there yet or its device cannot run."""


class RankingInputError(RuntimeError):
    """Nothing stored to rank, or vectors missing; the message says which command fixes it."""


class EmbeddingDeviceError(RankingInputError):
    """The configured device cannot embed: no such GPU, or out of its memory one text at a
    time; the message names the setting to change. Nothing stored is lost."""
