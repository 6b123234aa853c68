"""Hardware-in-the-loop bench: simulated devices speaking the real wire protocol over ptys
or sockets, scripted scenarios and fault injection. Arrives with the serial device layer issue.
"""
