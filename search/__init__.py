"""Search over every stored paper: words and meaning, in the process or in PostgreSQL.

- :mod:`search.query`: what a search is asked (filters) and answers (pure): which papers
  match, in which order, and the passage of an abstract that shows why;
- :mod:`search.index`, :mod:`search.index_files`, :mod:`search.in_process`: the in-process
  store (SQLite, and PostgreSQL without pgvector): the index, its files under ``DATA_DIR``,
  and searching it;
- :mod:`search.database_indexes`, :mod:`search.word_index`, :mod:`search.in_database`:
  PostgreSQL's own store (word and vector indexes, kept by triggers and the embed step) and
  its one search statement;
- :mod:`search.searcher`: what the web asks of search, and which store answers.

Search imports only the core: the query model is handed in by whoever builds a searcher.
Nothing heavy is imported here, so the web app imports this package as it starts.
"""
