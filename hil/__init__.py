"""Hardware-in-the-loop bench: simulated devices that speak the real wire protocol over ptys or
sockets (``devices``, ``serve``), fault injection (``faults``), YAML scenarios (``scenario``),
``python -m hil.sim`` to run one device alone, and the harnesses built on them: the bench table
with its simulated players (``bench``), the in-process soak (``soak``) and its hold against par
(``hold_summary``).
"""
