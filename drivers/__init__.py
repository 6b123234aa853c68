"""Serial device drivers (card shoe/shuffler, bet spots, dealer panel) over pyserial.

Drivers turn bytes into typed events and commands into bytes; they never import game rules.
The wire protocol and the drivers arrive with the serial device layer issue.
"""
