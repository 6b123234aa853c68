"""Hardware-in-the-loop bench: simulated devices that speak the real wire protocol over ptys or
sockets (``devices``, ``serve``), fault injection (``faults``), YAML scenarios (``scenario``),
and ``python -m hil.sim`` to run one device alone.
"""
