"""Hot folders: drops on a share seen settling, claimed, and accounted for in the corpus.

This package holds what a watch knows without planning: what a drop is and when it is whole
(``drops``), who takes it among several watchers and where it goes afterwards (``claims``),
and the corpus's record of every drop (``records``). The use case that plans and commits a
drop is ``engine/api/watch.py``, above it: it sits above ``runs`` because it reads the run
records to account for a drop a person committed.
"""
