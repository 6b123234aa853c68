"""The table controller: where game rules and devices meet.

``engine`` runs one controller thread over one event queue and journals every event before
acting; each game's round runs in a ``transitions`` machine defined as a data table in its own
module (``mississippi_stud``). ``devices`` is the narrow command interface the machine uses.
"""
