"""The trending model: predict at announcement time what the community will upvote.

``data`` reads the files (corpus, labels, embeddings); ``history`` knows what each author had
shown before a day; ``features`` turns a paper into the model's inputs; ``model`` is the
versioned artifact and its scoring; ``training`` fits it; ``metrics``, ``baselines`` and
``evaluation`` replay announcement days and judge any ranking; ``scorer`` serves the model as
a :class:`ranking.scoring.Scorer`. Evaluation and the live scorer share one scoring path.
"""
