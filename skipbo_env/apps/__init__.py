"""The programs people use: the ``skipbo`` command line (`cli`), a person's seat at a table of
bots (`session`), the terminal game (`terminal`) and the browser game (`web`)."""
